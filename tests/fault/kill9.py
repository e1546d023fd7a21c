#!/usr/bin/env python3
"""Fault run (issue #13): kill -9 the service under load, again and again,
and check that nothing acknowledged is lost and nothing is applied twice.

    cargo build --release && python3 tests/fault/kill9.py

It starts `target/release/posthorn` (override with POSTHORN_BIN) with its
own private PostgreSQL in a fresh data folder, seats PAIRS pairs of players
in checkers matches, and plays them from one thread per pair (a new match
when one ends): each creation and each move
is posted with an Idempotency-Key and, when the connection breaks, posted
again with the same key until it is answered. Meanwhile the service is
killed with SIGKILL every few seconds and started again. At the end every
acknowledged move is looked up in the event log: a move answered 2xx must
be there (lost = 0), and each key's move must be there once (duplicated =
0). Standard library only; psql reads the log. Bounded: KILLS kills, each
after KILL_EVERY seconds, loopback only.
"""
import os, signal, subprocess, sys, tempfile, time

from drill import COINS, Load, as_postgres, coins, pg_bin, wait_ready

BIN = os.environ.get("POSTHORN_BIN", "target/release/posthorn")
PORT = int(os.environ.get("FAULT_PORT", "18181"))
PAIRS = int(os.environ.get("PAIRS", "8"))
KILLS = int(os.environ.get("KILLS", "5"))
KILL_EVERY = float(os.environ.get("KILL_EVERY", "3"))
BASE = f"http://127.0.0.1:{PORT}"
DATA = tempfile.mkdtemp(prefix="posthorn-fault-")
os.chmod(DATA, 0o755)  # as root, the cluster belongs to postgres, who must get in
LOG = os.path.join(DATA, "service.log")


def start():
    env = dict(os.environ, POSTHORN_BIND=f"127.0.0.1:{PORT}", POSTHORN_DATA_DIR=DATA, RUST_LOG="warn",
               POSTHORN_TRUSTED_PROXIES="127.0.0.1")
    env.pop("DATABASE_URL", None)
    proc = subprocess.Popen([BIN], env=env, stdout=subprocess.DEVNULL, stderr=open(LOG, "a"))
    return wait_ready(proc, BASE, LOG)


def sizes(port):
    """Bytes per event and per match in the database the run wrote
    (issue #36's capacity notes): each table with its indexes and TOAST,
    after VACUUM ANALYZE so the counts and sizes are settled."""
    def sql(q):
        return subprocess.run(["psql", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "posthorn", "-At",
                               "-F", " ", "-c", q], capture_output=True, text=True, check=True).stdout.strip()
    sql("VACUUM ANALYZE")
    events, matches, finished = map(int, sql(
        "SELECT (SELECT count(*) FROM match_events), (SELECT count(*) FROM matches), "
        "(SELECT count(*) FROM matches WHERE status = 'finished')").split())
    print(f"database after the run: {events} events in {matches} matches ({finished} finished), "
          f"{events / max(matches, 1):.1f} events a match")
    per_match = 0
    for table in ["match_events", "matches", "match_seats", "notices", "notifications", "idempotent_answers",
                  "challenges", "rating_changes"]:
        size = int(sql(f"SELECT pg_total_relation_size('{table}')"))
        rows = int(sql(f"SELECT count(*) FROM {table}"))
        each = size / max(rows, 1)
        print(f"  {table:20} {rows:8} rows {size / 1e6:8.2f} MB  {each:7.0f} B a row  {size / max(matches, 1):8.0f} B a match")
        if table != "idempotent_answers":  # kept 24 h only
            per_match += size / max(matches, 1)
    log_size = int(sql("SELECT pg_total_relation_size('match_events')"))
    print(f"  per event (match_events with its index): {log_size / max(events, 1):.0f} B; "
          f"per match, everything kept for good: {per_match:.0f} B")


def main():
    proc = start()
    load = Load(BASE, "fault", PAIRS)
    load.start()
    downtime = []
    for _ in range(KILLS):
        time.sleep(KILL_EVERY)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        began = time.time()
        proc = start()
        downtime.append(time.time() - began)
    time.sleep(KILL_EVERY)
    load.finish()
    # SIGKILL again: a clean stop would stop the private cluster with it.
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    port = open(os.path.join(DATA, "postgres", "postmaster.pid")).read().split("\n")[3].strip()
    rows = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "posthorn", "-At", "-F", " ", "-c",
         "SELECT match_id, seq FROM match_events WHERE body->>'type' = 'moved'"],
        capture_output=True, text=True, check=True).stdout
    acked, keys, lost, duplicated, logged = load.ledger(rows)
    paid = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "posthorn", "-At", "-F", " ", "-c", COINS],
        capture_output=True, text=True, check=True).stdout
    seats, unpaid, off = coins(paid)
    if downtime:
        print(f"kills {KILLS}, restart to ready {min(downtime):.2f}–{max(downtime):.2f} s")
    print(f"moves acknowledged {acked} under {keys} keys, moves in the log {logged}, refused {load.refused}")
    print(f"requests broken by the kills and sent again: {load.broken}")
    print(f"lost {lost}, duplicated {duplicated}")
    if os.environ.get("SIZES"):
        sizes(port)
    subprocess.run(as_postgres([f"{pg_bin()}/pg_ctl", "-D", os.path.join(DATA, "postgres"), "-m", "fast", "stop"]),
                   capture_output=True)
    sys.exit(1 if lost or duplicated or unpaid or off or not seats else 0)


main()
