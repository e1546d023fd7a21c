#!/usr/bin/env python3
"""Rolling restart drill (issue #53 item 4): two instances of the service
behind HAProxy (Debian's), which checks each one's /readyz every 500 ms,
replaced one at a time under load; no request of the load may fail.

    cargo build && POSTHORN_BIN=target/debug/posthorn python3 tests/fault/rolling.py

One PostgreSQL (PG_BIN or the newest /usr/lib/postgresql/*/bin; as root
it runs as `postgres`) in a fresh folder, two instances A and B of
POSTHORN_BIN (default target/release/posthorn) on ports of their own, and
HAProxy in front with `option httpchk GET /readyz`, `inter 500ms fall 1
rise 1` and `option http-server-close` (no idle connection kept to an
instance that may be stopping). PAIRS pairs of players play checkers
through HAProxy (drill.Load), nothing retried: a broken connection or any
answer but the expected is a failed request. After BEFORE seconds, each
instance in turn is sent SIGTERM (it says not ready, serves on for
POSTHORN_DRAIN_SECONDS=DRAIN, default 2, finishes what is in flight, exits:
src/stopping.rs),
waited for, and started again on its port; once HAProxy sees it ready,
the other. Play goes on AFTER seconds. Exit 1 when a request failed, an
instance did not exit 0, or an acknowledged move is not in the event log.
Standard library only; everything started is stopped and its folder
removed on the way out (KEEP=1 keeps it).
"""
import os, shutil, signal, subprocess, tempfile, threading, time, urllib.request

from drill import Load, as_postgres, free_port, pg_bin, postgres_dir, run_drill, stop, tail, wait_ready

BIN = os.environ.get("POSTHORN_BIN", "target/release/posthorn")
PAIRS = int(os.environ.get("PAIRS", "4"))
BEFORE = float(os.environ.get("BEFORE", "3"))  # seconds of play before the first restart
AFTER = float(os.environ.get("AFTER", "3"))  # seconds of play after the second
HAPROXY = os.environ.get("HAPROXY", "/usr/sbin/haproxy")
# The instances' POSTHORN_DRAIN_SECONDS (DRAIN=0: stop listening at once,
# before HAProxy has seen the 503, to see the drill fail).
DRAIN = os.environ.get("DRAIN", "2")

PG = pg_bin()
DATA = tempfile.mkdtemp(prefix="posthorn-rolling-")
os.chmod(DATA, 0o755)
CLUSTER = os.path.join(DATA, "postgres")
DB_PORT, PROXY_PORT = free_port(), free_port()
PORTS = {"A": free_port(), "B": free_port()}
BASE = f"http://127.0.0.1:{PROXY_PORT}"
URL = f"postgres://postgres@127.0.0.1:{DB_PORT}/posthorn"

started = []  # (what, Popen)
instances = {}  # name -> Popen


def run(cmd):
    out = subprocess.run(as_postgres(cmd), capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {out.stdout}{out.stderr}")


def start_database():
    postgres_dir(CLUSTER)
    run([f"{PG}/initdb", "-D", CLUSTER, "-U", "postgres", "--auth=trust", "-E", "UTF8"])
    opts = f"-p {DB_PORT} -k {CLUSTER} -c listen_addresses=127.0.0.1 -c max_connections=100"
    run([f"{PG}/pg_ctl", "-D", CLUSTER, "-l", os.path.join(CLUSTER, "log"), "-w", "-o", opts, "start"])
    subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(DB_PORT), "-U", "postgres", "-X", "-q",
                    "-c", "CREATE DATABASE posthorn"], check=True)


def log_of(name):
    return os.path.join(DATA, f"service-{name}.log")


def start_instance(name):
    env = dict(os.environ, POSTHORN_BIND=f"127.0.0.1:{PORTS[name]}", DATABASE_URL=URL,
               POSTHORN_DATA_DIR=os.path.join(DATA, f"data-{name}"), RUST_LOG=os.environ.get("RUST_LOG", "info"),
               POSTHORN_JWT_SECRET="the rolling drill's secret, the same for every instance",
               POSTHORN_SWEEP_INTERVAL_SECONDS="1", POSTHORN_DRAIN_SECONDS=DRAIN,
               # The load's players sign up from addresses of their own,
               # told by HAProxy on loopback, a trusted proxy.
               POSTHORN_TRUSTED_PROXIES="127.0.0.1")
    proc = subprocess.Popen([BIN], env=env, stdout=subprocess.DEVNULL, stderr=open(log_of(name), "a"))
    started.append((f"instance {name}", proc))
    instances[name] = proc
    return wait_ready(proc, f"http://127.0.0.1:{PORTS[name]}", log_of(name))


def start_proxy():
    config = os.path.join(DATA, "haproxy.cfg")
    servers = "\n".join(f"    server {n} 127.0.0.1:{p} check" for n, p in PORTS.items())
    with open(config, "w") as f:
        f.write(f"""global
    maxconn 2000
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    option http-server-close
frontend posthorn
    bind 127.0.0.1:{PROXY_PORT}
    default_backend instances
backend instances
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 500ms fall 1 rise 1
{servers}
""")
    proc = subprocess.Popen([HAPROXY, "-f", config, "-db"], stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(DATA, "haproxy.log"), "a"))
    started.append(("haproxy", proc))
    for _ in range(100):
        try:
            with urllib.request.urlopen(BASE + "/readyz", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("HAProxy does not answer: " + tail(os.path.join(DATA, "haproxy.log")))


def serving(name):
    """Whether HAProxy sends to `name` now (its stats socket is not set
    up: the instance's own /readyz and one rise interval stand for it)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{PORTS[name]}/readyz", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def replace(name):
    """SIGTERM `name`, wait for it to exit, start it again; seconds taken."""
    t = time.monotonic()
    old = instances[name]
    old.send_signal(signal.SIGTERM)
    code = old.wait(60)
    stopped = time.monotonic() - t
    start_instance(name)
    time.sleep(1.0)  # two of HAProxy's checks: it sends to the new one
    assert serving(name)
    return code, stopped, time.monotonic() - t


load = Load(BASE, "rolling", PAIRS, again=())
# A pair's thread ends at an answer it cannot read (HAProxy's own 503
# page, not a problem document): a failed request too.
crashed = []
threading.excepthook = lambda hook: crashed.append(repr(hook.exc_value))


def drill():
    start_database()
    for name in PORTS:
        start_instance(name)
    start_proxy()
    print(f"PostgreSQL on {DB_PORT}; instances A :{PORTS['A']}, B :{PORTS['B']}; HAProxy {BASE} "
          f"(checks /readyz every 500 ms); {PAIRS} pairs playing")
    load.start()
    time.sleep(BEFORE)
    codes = []
    for name in PORTS:
        with load.lock:
            before = sum(load.statuses.values())
        code, stopped, whole = replace(name)
        with load.lock:
            during = sum(load.statuses.values()) - before
        codes.append(code)
        print(f"instance {name}: SIGTERM to exit {stopped:.2f} s (exit {code}), serving again after "
              f"{whole:.2f} s; {during} requests answered meanwhile")
    time.sleep(AFTER)
    load.finish(20)
    rows = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(DB_PORT), "-U", "postgres", "-d", "posthorn",
                           "-X", "-At", "-F", " ", "-c",
                           "SELECT match_id, seq FROM match_events WHERE body->>'type' = 'moved'"],
                          capture_output=True, text=True, check=True).stdout
    acked, keys, lost, duplicated, logged = load.ledger(rows)
    failed = {s: n for s, n in load.statuses.items() if s >= 400}
    print(f"HTTP statuses {dict(sorted(load.statuses.items()))}; connections broken {load.broken}; "
          f"moves acknowledged {acked}, in the log {logged}, refused {load.refused}")
    print(f"failed requests: {sum(failed.values()) + load.broken + len(crashed)} "
          f"(pairs stopped by an unreadable answer: {crashed}); lost {lost}, duplicated {duplicated}")
    bad = (failed or load.broken or crashed or lost or duplicated or any(codes) or load.refused
           or load.unanswered)
    return 1 if bad else 0


def cleanup():
    load.give_up.set()
    stop([proc for _, proc in started])
    if os.path.exists(os.path.join(CLUSTER, "postmaster.pid")):
        subprocess.run(as_postgres([f"{PG}/pg_ctl", "-D", CLUSTER, "-m", "fast", "-w", "stop"]),
                       capture_output=True)
    if os.environ.get("KEEP"):
        print(f"kept {DATA}")
    else:
        shutil.rmtree(DATA, ignore_errors=True)


run_drill("rolling restart drill", drill, lambda: [(f"instance {n} log", log_of(n)) for n in PORTS], cleanup)
