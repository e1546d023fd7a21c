#!/usr/bin/env python3
"""Failover drill (issue #36): kill -9 the primary PostgreSQL under load,
promote its synchronous standby, and check that the service, never
restarted, writes again and that nothing acknowledged is lost or applied
twice.

    cargo build --release && python3 tests/fault/failover.py

It starts a primary and a streaming standby (PostgreSQL's own binaries,
PG_BIN or the newest /usr/lib/postgresql/*/bin; as root they run as the
`postgres` user) in fresh folders on free loopback ports. The primary
waits for the standby, named `standby1`, on every commit
(`synchronous_commit=remote_apply`, docs/failover.md says why). Then it
starts `target/release/posthorn` (override with POSTHORN_BIN) with the
multi-host URL

    postgres://postgres@127.0.0.1:P1,127.0.0.1:P2/posthorn?target_session_attrs=read-write

and plays checkers between PAIRS pairs of players, one thread per pair,
as tests/fault/kill9.py does: every creation and move is posted with an
Idempotency-Key and posted again with the same key when the connection
breaks or the answer is 503 (or 500, counted), until it is answered. After BEFORE seconds
the primary's postmaster is killed with SIGKILL; PROMOTE_AFTER seconds
later the standby is promoted (`pg_ctl promote`); play goes on for AFTER
seconds (PROMOTE=0 leaves the standby as it is, to see the drill fail).
Then every acknowledged move is looked up in the promoted server's event
log (lost = 0, duplicated = 0), and the drill reports the
statuses seen (no 500), the longest stretch without a successful write
from the kill on, and how long after the promotion the first write
succeeded. Exit 1 when something was lost, duplicated, answered 500,
writes never came back, or /readyz is not 200 at the end. SYNC sets the
primary's synchronous_commit, SESSION_ATTRS the URL's
target_session_attrs (`any` shows why it must be read-write). Standard
library only; psql reads the log. Everything it started is stopped and
its folder removed on the way out, failure or not (KEEP=1 keeps the
folder and its logs).
"""
import os, shutil, signal, subprocess, sys, tempfile, time, urllib.error, urllib.request

from drill import COINS, Load, as_postgres, coins, free_port, pg_bin, postgres_dir, wait_ready

BIN = os.environ.get("POSTHORN_BIN", "target/release/posthorn")
PAIRS = int(os.environ.get("PAIRS", "4"))
BEFORE = float(os.environ.get("BEFORE", "4"))  # seconds of play before the kill
PROMOTE_AFTER = float(os.environ.get("PROMOTE_AFTER", "1"))  # the kill to the promotion
AFTER = float(os.environ.get("AFTER", "8"))  # seconds of play after the promotion
GRACE = float(os.environ.get("GRACE", "20"))  # then a request still unanswered is given up
SYNC = os.environ.get("SYNC", "remote_apply")  # the primary's synchronous_commit
PROMOTE = os.environ.get("PROMOTE", "1") != "0"  # PROMOTE=0: no promotion, to see the drill fail


PG = pg_bin()
DATA = tempfile.mkdtemp(prefix="posthorn-failover-")
os.chmod(DATA, 0o755)  # as root, the clusters belong to postgres, who must get in
PRIMARY = os.path.join(DATA, "primary")
STANDBY = os.path.join(DATA, "standby")
LOGS = os.path.join(DATA, "logs")
SERVICE_LOG = os.path.join(DATA, "service.log")


P1, P2, PORT = free_port(), free_port(), free_port()
METRICS_TOKEN = f"failover-drill-{os.getpid()}"
BASE = f"http://127.0.0.1:{PORT}"
# SESSION_ATTRS=any: libpq takes the first server that answers, even a standby.
SESSION_ATTRS = os.environ.get("SESSION_ATTRS", "read-write")
URL = f"postgres://postgres@127.0.0.1:{P1},127.0.0.1:{P2}/posthorn?target_session_attrs={SESSION_ATTRS}"

started = []  # (what, Popen) of the processes this drill runs itself
orphans = set()  # pids of the killed primary's backends, ended on the way out


def run(cmd, check=True):
    out = subprocess.run(as_postgres(cmd), capture_output=True, text=True)
    if check and out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {out.stdout}{out.stderr}")
    return out


def psql(port, sql, db="postgres"):
    return subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", db,
                           "-X", "-At", "-F", " ", "-c", sql],
                          capture_output=True, text=True, check=True).stdout.strip()


def pg_start(data, port, extra=""):
    opts = f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c max_connections=100 {extra}"
    run([f"{PG}/pg_ctl", "-D", data, "-l", os.path.join(LOGS, os.path.basename(data) + ".log"),
         "-w", "-t", "30", "-o", opts, "start"])


def postmaster_pid(data):
    return int(open(os.path.join(data, "postmaster.pid")).readline())


def children_of(pid):
    kids = set()
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                stat = open(f"/proc/{p}/stat").read()
            except OSError:
                continue
            if int(stat[stat.rfind(")") + 2:].split()[1]) == pid:
                kids.add(int(p))
    return kids


def setup_clusters():
    postgres_dir(PRIMARY)
    postgres_dir(STANDBY)
    postgres_dir(LOGS)
    run([f"{PG}/initdb", "-D", PRIMARY, "-U", "postgres", "--auth=trust", "-E", "UTF8"])
    with open(os.path.join(PRIMARY, "pg_hba.conf"), "a") as f:
        f.write("host replication postgres 127.0.0.1/32 trust\n")
    # The primary's own settings go on its command line, not in
    # postgresql.conf: pg_basebackup copies that file, and a promoted
    # standby that still named a synchronous standby would wait for it on
    # every commit, for ever.
    pg_start(PRIMARY, P1, f"-c wal_level=replica -c max_wal_senders=4 "
                          f"-c synchronous_standby_names=standby1 -c synchronous_commit={SYNC}")
    run([f"{PG}/pg_basebackup", "-h", "127.0.0.1", "-p", str(P1), "-U", "postgres",
         "-D", STANDBY, "-R", "-X", "stream", "-c", "fast"])
    with open(os.path.join(STANDBY, "postgresql.auto.conf"), "a") as f:
        f.write(f"primary_conninfo = 'host=127.0.0.1 port={P1} user=postgres application_name=standby1'\n")
    pg_start(STANDBY, P2, "-c hot_standby=on")
    for _ in range(200):
        state = psql(P1, "SELECT application_name, state, sync_state FROM pg_stat_replication")
        if state == "standby1 streaming sync":
            break
        time.sleep(0.05)
    else:
        raise RuntimeError(f"the standby is not streaming in sync: {state!r}")
    psql(P1, "CREATE DATABASE posthorn")
    return state


def start_service():
    # The sweep notes which server is primary on each tick: every second.
    env = dict(os.environ, POSTHORN_BIND=f"127.0.0.1:{PORT}", POSTHORN_DATA_DIR=os.path.join(DATA, "service"),
               DATABASE_URL=URL, RUST_LOG=os.environ.get("RUST_LOG", "warn"), POSTHORN_METRICS_TOKEN=METRICS_TOKEN,
               POSTHORN_SWEEP_INTERVAL_SECONDS="1",
               # The drill's players sign up from addresses of their own
               # (drill.Load), told by loopback as a trusted proxy.
               POSTHORN_TRUSTED_PROXIES="127.0.0.1")
    proc = subprocess.Popen([BIN], env=env, stdout=subprocess.DEVNULL, stderr=open(SERVICE_LOG, "a"))
    started.append(("service", proc))
    return wait_ready(proc, BASE, SERVICE_LOG)


# A 500 is counted and sent again too, with the same key, so that the
# drill goes on.
load = Load(BASE, "failover", PAIRS, again=(500, 503))


def drill():
    t0 = time.time()
    state = setup_clusters()
    print(f"PostgreSQL {psql(P1, 'SHOW server_version')} from {PG}: primary 127.0.0.1:{P1}, "
          f"standby 127.0.0.1:{P2} ({state}), synchronous_commit={SYNC}")
    start_service()
    print(f"service ready on {BASE} with DATABASE_URL={URL} ({time.time() - t0:.1f} s after start)")
    load.start()

    time.sleep(BEFORE)
    pid = postmaster_pid(PRIMARY)
    orphans.update(children_of(pid))
    os.kill(pid, signal.SIGKILL)
    killed = time.monotonic()
    with load.lock:
        before_kill = len(load.writes)
    time.sleep(PROMOTE_AFTER)
    promoting = time.monotonic()
    if PROMOTE:
        run([f"{PG}/pg_ctl", "-D", STANDBY, "-w", "-t", "30", "promote"])
    promoted = time.monotonic()
    time.sleep(AFTER)
    readiness = ""
    try:
        with urllib.request.urlopen(BASE + "/readyz", timeout=10) as r:
            ready = r.status
            readiness = r.read().decode()
    except urllib.error.HTTPError as e:
        ready = e.code
    except OSError as e:
        ready = f"no answer ({e})"
    # What the service noticed: the server answering as primary changed,
    # connections found dead and replaced (issue #36's metrics).
    noticed = {}
    try:
        ask = urllib.request.Request(BASE + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        with urllib.request.urlopen(ask, timeout=10) as r:
            for line in r.read().decode().splitlines():
                if line.startswith(("posthorn_db_failovers_noticed_total", "posthorn_db_reconnects_total")):
                    name, value = line.split()
                    noticed[name.removeprefix("posthorn_db_")] = int(float(value))
    except OSError as e:
        noticed = {"metrics": f"no answer ({e})"}
    load.finish(GRACE)

    rows = psql(P2, "SELECT match_id, seq FROM match_events WHERE body->>'type' = 'moved'", db="posthorn")
    acked, keys, lost, duplicated, logged = load.ledger(rows)
    seats, unpaid, off = coins(psql(P2, COINS, db="posthorn"))
    after = [w for w in load.writes if w > killed]
    resumed = [w for w in after if w >= promoting]
    gap = max(b - a for a, b in zip([killed] + after, after)) if after else None
    internal = load.statuses.get(500, 0)

    print(f"primary killed {BEFORE:.0f} s into play; " +
          (f"standby promoted {PROMOTE_AFTER:.1f} s later (pg_ctl promote took {promoted - promoting:.2f} s)"
           if PROMOTE else "standby NOT promoted (PROMOTE=0)") + f"; play went on {PROMOTE_AFTER + AFTER:.0f} s")
    print(f"moves acknowledged {acked} under {keys} keys, moves in the standby's log {logged}, "
          f"refused {load.refused}")
    print(f"successful writes: {before_kill} before the kill, {len(after)} after it")
    print(f"HTTP statuses {dict(sorted(load.statuses.items()))}; requests broken and sent again {load.broken}; "
          f"unanswered at the end {load.unanswered} (moves among them {sum(load.in_doubt.values())})")
    if gap is not None:
        print(f"longest stretch without a successful write, from the kill: {gap:.2f} s")
    if resumed:
        print(f"wrote again without a restart: first successful write {resumed[0] - promoting:.2f} s after "
              f"`pg_ctl promote` was run ({resumed[0] - promoted:.2f} s after it returned)")
    else:
        print("writes never resumed" + (" after the promotion" if PROMOTE else ""))
    print(f"/readyz at the end of play: {ready} {readiness}")
    print(f"the service's metrics: {noticed}")
    print(f"lost {lost}, duplicated {duplicated}, answered 500: {internal}")
    return 1 if (lost or duplicated or internal or not resumed or load.unanswered or ready != 200
                 or unpaid or off or not seats) else 0


def cleanup():
    load.give_up.set()
    for what, proc in started:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    for data in (PRIMARY, STANDBY):
        if os.path.exists(os.path.join(data, "postmaster.pid")):
            run([f"{PG}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"], check=False)
    for pid in orphans:  # the killed primary's backends, if any outlived it
        try:
            if open(f"/proc/{pid}/cmdline", "rb").read().startswith(b"postgres"):
                os.kill(pid, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass
    if os.environ.get("KEEP"):
        print(f"kept {DATA}")
    else:
        shutil.rmtree(DATA, ignore_errors=True)


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(2))
    code = 2
    try:
        code = drill()
    except Exception as e:
        print(f"failover drill failed: {e}", file=sys.stderr)
    finally:
        if os.path.exists(SERVICE_LOG) and code:
            tail = open(SERVICE_LOG).read()[-3000:]
            if tail:
                print("service log (tail):\n" + tail, file=sys.stderr)
        cleanup()
    sys.exit(code)


main()
