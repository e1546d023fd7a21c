#!/usr/bin/env python3
"""Automatic failover drill (issue #53 items 1 and 2): three etcd members
and two PostgreSQL nodes managed by Patroni (Debian's `etcd-server` and
`patroni`), on loopback ports, in synchronous mode. Under the checkers
load with its ledger (drill.Load), the leader's Patroni and PostgreSQL are
killed with SIGKILL (the machine is gone); Patroni promotes the
synchronous replica by itself; the service, never restarted, follows
through its multi-host URL with target_session_attrs=read-write. Then the
old node's Patroni is started again and rejoins as a replica (pg_rewind
when needed). Then a planned switchover (`patronictl switchover`) under
load.

    cargo build && POSTHORN_BIN=target/debug/posthorn python3 tests/fault/patroni.py

Patroni's timing (docs/failover.md): TTL (default 12) seconds for the
leader key, LOOP_WAIT 2, RETRY_TIMEOUT 5 (Patroni asks loop_wait + 2 ×
retry_timeout ≤ ttl). Reported: lost and duplicated acknowledged moves
(must be 0), 500s (0), the longest stretch without a successful write
after the kill and after the switchover, the old leader's role when back.
Exit 1 when anything of that fails. Everything started is stopped and its
folder removed (KEEP=1 keeps it).
"""
import json, os, shutil, signal, subprocess, tempfile, threading, time, urllib.request

from drill import ROOT, Load, free_port, pg_bin, postgres_dir, run_drill, stop, wait_ready

BIN = os.environ.get("POSTHORN_BIN", "target/release/posthorn")
PAIRS = int(os.environ.get("PAIRS", "4"))
TTL = int(os.environ.get("TTL", "12"))
LOOP_WAIT = int(os.environ.get("LOOP_WAIT", "2"))
RETRY_TIMEOUT = int(os.environ.get("RETRY_TIMEOUT", "5"))
BEFORE = float(os.environ.get("BEFORE", "4"))  # seconds of play before each fault
AFTER = float(os.environ.get("AFTER", "4"))  # seconds of play once writes are back

PG = pg_bin()
DATA = tempfile.mkdtemp(prefix="posthorn-patroni-")
os.chmod(DATA, 0o755)
ETCD = {f"e{i}": (free_port(), free_port()) for i in (1, 2, 3)}  # client, peer
NODES = {f"pg{i}": (free_port(), free_port()) for i in (1, 2)}  # postgres, REST API
PORT = free_port()
BASE = f"http://127.0.0.1:{PORT}"
HOSTS = ",".join(f"127.0.0.1:{pg}" for pg, _ in NODES.values())
URL = f"postgres://postgres@{HOSTS}/posthorn?target_session_attrs=read-write"

started = []  # (what, Popen)
patronis = {}  # node -> Popen


def user():
    return {"user": "postgres", "group": "postgres"} if ROOT else {}


def start_etcd():
    cluster = ",".join(f"{n}=http://127.0.0.1:{peer}" for n, (_, peer) in ETCD.items())
    for name, (client, peer) in ETCD.items():
        proc = subprocess.Popen(
            ["etcd", "--name", name, "--data-dir", os.path.join(DATA, name),
             "--listen-client-urls", f"http://127.0.0.1:{client}",
             "--advertise-client-urls", f"http://127.0.0.1:{client}",
             "--listen-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-cluster", cluster, "--initial-cluster-state", "new",
             "--initial-cluster-token", "posthorn-drill"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(DATA, f"{name}.log"), "a"))
        started.append((f"etcd {name}", proc))


def config(node):
    pg, rest = NODES[node]
    hosts = ",".join(f"127.0.0.1:{client}" for client, _ in ETCD.values())
    data = os.path.join(DATA, node)
    return f"""scope: posthorn
name: {node}
restapi:
  listen: 127.0.0.1:{rest}
  connect_address: 127.0.0.1:{rest}
etcd3:
  hosts: {hosts}
bootstrap:
  dcs:
    ttl: {TTL}
    loop_wait: {LOOP_WAIT}
    retry_timeout: {RETRY_TIMEOUT}
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 100
  initdb:
    - encoding: UTF8
    - auth: trust
  pg_hba:
    - local all all trust
    - host replication postgres 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:{pg}
  connect_address: 127.0.0.1:{pg}
  data_dir: {data}/data
  bin_dir: {PG}
  pgpass: {data}/pgpass
  authentication:
    replication:
      username: postgres
    superuser:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: {data}
"""


def start_patroni(node):
    folder = os.path.join(DATA, node)
    if not os.path.isdir(folder):
        postgres_dir(folder)
    path = os.path.join(folder, "patroni.yml")
    with open(path, "w") as f:
        f.write(config(node))
    proc = subprocess.Popen(["patroni", path], stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(DATA, f"{node}.log"), "a"), **user())
    started.append((f"patroni {node}", proc))
    patronis[node] = proc


def members():
    """Patroni's view of the cluster: {node: (role, state)}."""
    _, rest = NODES["pg1" if patronis["pg1"].poll() is None else "pg2"]
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{rest}/cluster", timeout=2) as r:
            cluster = json.load(r)
    except OSError:
        return {}
    return {m["name"]: (m["role"], m.get("state")) for m in cluster.get("members", [])}


def until(what, done, seconds=90):
    for _ in range(int(seconds * 10)):
        if done():
            return
        time.sleep(0.1)
    raise RuntimeError(f"timed out waiting until {what}: {members()}")


def leader():
    return next((n for n, (role, _) in members().items() if role == "leader"), None)


def psql(node, sql, db="postgres"):
    pg, _ = NODES[node]
    return subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(pg), "-U", "postgres", "-d", db, "-X", "-At",
                           "-F", " ", "-c", sql], capture_output=True, text=True, check=True).stdout.strip()


def start_service():
    log = os.path.join(DATA, "service.log")
    env = dict(os.environ, POSTHORN_BIND=f"127.0.0.1:{PORT}", POSTHORN_DATA_DIR=os.path.join(DATA, "service"),
               DATABASE_URL=URL, RUST_LOG=os.environ.get("RUST_LOG", "warn"),
               POSTHORN_SWEEP_INTERVAL_SECONDS="1", POSTHORN_TRUSTED_PROXIES="127.0.0.1")
    proc = subprocess.Popen([BIN], env=env, stdout=subprocess.DEVNULL, stderr=open(log, "a"))
    started.append(("service", proc))
    return wait_ready(proc, BASE, log)


def gap_after(load, t):
    """The longest stretch without a successful write from `t` on, and
    the first write after it."""
    with load.lock:
        after = [w for w in load.writes if w > t]
    if not after:
        return None, None
    return max(b - a for a, b in zip([t] + after, after)), after[0] - t


load = Load(BASE, "patroni", PAIRS, again=(500, 503))
# A pair's thread ended by an answer it cannot use is a failure too.
crashed = []
threading.excepthook = lambda hook: crashed.append(repr(hook.exc_value))


def drill():
    start_etcd()
    for node in NODES:
        start_patroni(node)
    until("a leader and a streaming synchronous standby",
          lambda: sorted(r for r, s in members().values()) == ["leader", "sync_standby"]
          and all(s in ("running", "streaming") for _, s in members().values()))
    first = leader()
    psql(first, "CREATE DATABASE posthorn")
    print(f"etcd ×3, Patroni {subprocess.run(['patroni', '--version'], capture_output=True, text=True).stdout.split()[-1]} "
          f"×2 (ttl {TTL}, loop_wait {LOOP_WAIT}, retry_timeout {RETRY_TIMEOUT}, synchronous_mode): {members()}")
    start_service()
    load.start()
    time.sleep(BEFORE)

    # The leader's machine is gone: its Patroni and its PostgreSQL, kill -9.
    postmaster = int(open(os.path.join(DATA, first, "data", "postmaster.pid")).readline())
    patronis[first].kill()
    os.kill(postmaster, signal.SIGKILL)
    killed = time.monotonic()
    other = next(n for n in NODES if n != first)
    until(f"{other} leads", lambda: leader() == other)
    promoted = time.monotonic() - killed
    time.sleep(AFTER)
    failover_gap, first_write = gap_after(load, killed)
    print(f"{first} killed (Patroni and PostgreSQL, SIGKILL); {other} promoted by Patroni {promoted:.1f} s later; "
          f"first write {first_write and round(first_write, 2)} s after the kill, "
          f"longest stretch without a write {failover_gap and round(failover_gap, 2)} s")

    # The old leader comes back and rejoins as a replica.
    start_patroni(first)
    until(f"{first} rejoins as a replica", lambda: members().get(first, (None, None))[0] in ("replica", "sync_standby")
          and members()[first][1] in ("running", "streaming"), 120)
    print(f"{first} back: {members()[first]}")
    until("the standby is synchronous again", lambda: members().get(first, (None,))[0] == "sync_standby", 60)
    time.sleep(BEFORE)

    # A planned switchover under load.
    switched = time.monotonic()
    out = subprocess.run(["patronictl", "-c", os.path.join(DATA, other, "patroni.yml"), "switchover",
                          "--leader", other, "--candidate", first, "--force"], capture_output=True, text=True, **user())
    until(f"{first} leads again", lambda: leader() == first)
    time.sleep(AFTER)
    switch_gap, switch_write = gap_after(load, switched)
    print(f"switchover {other} → {first} (patronictl exit {out.returncode}): "
          f"longest stretch without a write {switch_gap and round(switch_gap, 2)} s")
    load.finish(20)

    rows = psql(first, "SELECT match_id, seq FROM match_events WHERE body->>'type' = 'moved'", db="posthorn")
    acked, keys, lost, duplicated, logged = load.ledger(rows)
    internal = load.statuses.get(500, 0)
    print(f"moves acknowledged {acked} under {keys} keys, in the log {logged}; HTTP statuses "
          f"{dict(sorted(load.statuses.items()))}; connections broken and sent again {load.broken}")
    print(f"lost {lost}, duplicated {duplicated}, answered 500: {internal}, refused {load.refused}, "
          f"pairs stopped by an error {crashed}; members at the end {members()}")
    bad = (lost or duplicated or internal or load.unanswered or failover_gap is None or switch_gap is None
           or out.returncode or load.refused or crashed)
    return 1 if bad else 0


def cleanup():
    load.give_up.set()
    stop([proc for _, proc in started])
    for node in NODES:  # a postmaster Patroni left behind
        pid_file = os.path.join(DATA, node, "data", "postmaster.pid")
        if os.path.exists(pid_file):
            try:
                os.kill(int(open(pid_file).readline()), signal.SIGQUIT)
            except (OSError, ValueError):
                pass
    if os.environ.get("KEEP"):
        print(f"kept {DATA}")
    else:
        time.sleep(1)
        shutil.rmtree(DATA, ignore_errors=True)


run_drill("Patroni drill", drill, lambda: [(log, os.path.join(DATA, log)) for log in ("pg1.log", "pg2.log", "service.log")],
          cleanup)
