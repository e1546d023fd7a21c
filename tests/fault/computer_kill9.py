#!/usr/bin/env python3
"""Issue #32: two instances share one database; one is killed with
SIGKILL while it thinks for a computer opponent. The computer's move must
be made exactly once: the other instance takes the job when its lease runs
out, and the killed search leaves nothing behind.

    POSTHORN_TEST_DATABASE_URL=postgres://… python3 tests/fault/computer_kill9.py

Starts `target/debug/posthorn` (override with POSTHORN_BIN) twice on a
fresh database of that server, with a 3 s job lease. Instance A alone
runs at first; the person creates a match against the hard computer,
which moves first. As soon as A has claimed the computer's move (the job's
lease is taken and no move is in the log yet) A is killed. Then B starts,
takes the job after the lease and moves; A is started again to show that
nothing moves twice. Rounds where A finished its move before the kill
landed are counted and retried. Standard library only; psql reads the log.
"""
import os, signal, subprocess, sys, tempfile, time

import drill
from drill import free_port, wait_ready

BIN = os.environ.get("POSTHORN_BIN", "target/debug/posthorn")
SERVER_URL = os.environ.get("POSTHORN_TEST_DATABASE_URL")
if not SERVER_URL:
    sys.exit("POSTHORN_TEST_DATABASE_URL: a PostgreSQL server to make a database on")
SERVER = SERVER_URL.rsplit("/", 1)[0]
DB = f"posthorn_bot_fault_{os.getpid()}"
DATA = tempfile.mkdtemp(prefix="posthorn-bot-fault-")
ROUNDS = int(os.environ.get("ROUNDS", "3"))


def psql(sql, db=None):
    url = f"{SERVER}/{db}" if db else SERVER_URL
    out = subprocess.run(["psql", "-qAtX", url, "-c", sql], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def start(name, port):
    env = dict(os.environ, DATABASE_URL=f"{SERVER}/{DB}", POSTHORN_BIND=f"127.0.0.1:{port}",
               POSTHORN_DATA_DIR=os.path.join(DATA, name), POSTHORN_JOB_LEASE_SECONDS="3",
               POSTHORN_BOT_THREADS="1", RUST_LOG="warn",
               POSTHORN_JWT_SECRET="bot-fault-shared-secret-of-both-instances")
    log = os.path.join(DATA, name + ".log")
    proc = subprocess.Popen([BIN], env=env, stdout=subprocess.DEVNULL, stderr=open(log, "a"))
    return wait_ready(proc, f"http://127.0.0.1:{port}", log)


def call(port, method, path, token=None, body=None):
    status, answer = drill.call(f"http://127.0.0.1:{port}", method, path, token, body, timeout=30)
    assert 200 <= status < 300, (status, answer)
    return answer


def computer_moves(match_id, seat):
    """The computer seat's rules events in the log."""
    return int(psql(f"SELECT count(*) FROM match_events WHERE match_id = '{match_id}' "
                    f"AND rules AND seat = {seat}", DB))


def main():
    psql(f"CREATE DATABASE {DB}")
    a_port, b_port = free_port(), free_port()
    a = start("a", a_port)
    b = None
    killed_mid_search = 0
    try:
        token = call(a_port, "POST", "/v1/accounts", body={"username": "kim", "password": "a long password"})["access_token"]
        for round_no in range(ROUNDS * 3):
            if killed_mid_search == ROUNDS:
                break
            if a is None:
                a = start("a", a_port)
            # Janggi at the hard level thinks longest (about a second); the
            # person takes Han, so the computer is Cho and moves first.
            m = call(a_port, "POST", "/v1/matches", token,
                     {"game": "janggi", "computers": [{"level": "hard"}], "side": 1})
            match_id = m["id"]
            seat = next(s["seat"] for s in m["seats"] if s["user"] and s["user"].get("computer"))
            key = f"computer.move:{match_id}:{m['seq']}"
            claimed = False
            for _ in range(2000):
                row = psql(f"SELECT attempts, leased_until IS NOT NULL, done_at IS NOT NULL FROM jobs WHERE key = '{key}'", DB)
                if row and row.split("|")[0] == "1" and (row.split("|")[1] == "t" or row.split("|")[2] == "t"):
                    claimed = True
                    break
                time.sleep(0.005)
            if not claimed:
                sys.exit("instance A never claimed the computer's move")
            a.send_signal(signal.SIGKILL)
            a.wait()
            a = None
            if computer_moves(match_id, seat) > 0:
                print(f"round {round_no}: A moved before the kill landed; again")
                continue
            killed_mid_search += 1
            if b is None:
                b = start("b", b_port)
            for _ in range(600):
                if psql(f"SELECT done_at IS NOT NULL FROM jobs WHERE key = '{key}'", DB) == "t":
                    break
                time.sleep(0.05)
            else:
                sys.exit("instance B never finished the computer's move")
            # A comes back; give both instances time to do anything twice.
            a = start("a", a_port)
            time.sleep(2)
            moves = computer_moves(match_id, seat)
            attempts = psql(f"SELECT attempts FROM jobs WHERE key = '{key}'", DB)
            view = call(b_port, "GET", f"/v1/matches/{match_id}", token)
            mine = [d for d in view["to_act"] if d["seat"] in view["my_seats"]]
            print(f"round {round_no}: killed mid-search; computer moves in the log: {moves}, "
                  f"job attempts: {attempts}, the person to move: {bool(mine)}")
            if moves != 1 or attempts != "2" or not mine:
                sys.exit("FAILED: the computer must move exactly once, on the second attempt")
            # The next round starts with A alone again.
            b.terminate()
            b.wait()
            b = None
        if killed_mid_search < ROUNDS:
            sys.exit(f"FAILED: only {killed_mid_search} of {ROUNDS} kills landed mid-search")
        print(f"computer kill -9: {killed_mid_search} kills mid-search, the computer moved exactly once each time")
    finally:
        for proc in (a, b):
            if proc is not None:
                proc.kill()
                proc.wait()
        psql(f"DROP DATABASE IF EXISTS {DB}")


if __name__ == "__main__":
    main()
