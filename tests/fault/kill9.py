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
import json, os, random, signal, subprocess, sys, tempfile, threading, time, urllib.error, urllib.request, uuid

BIN = os.environ.get("POSTHORN_BIN", "target/release/posthorn")
PORT = int(os.environ.get("FAULT_PORT", "18181"))
PAIRS = int(os.environ.get("PAIRS", "8"))
KILLS = int(os.environ.get("KILLS", "5"))
KILL_EVERY = float(os.environ.get("KILL_EVERY", "3"))
BASE = f"http://127.0.0.1:{PORT}"
DATA = tempfile.mkdtemp(prefix="posthorn-fault-")
os.chmod(DATA, 0o755)  # as root, the cluster belongs to postgres, who must get in


def start():
    env = dict(os.environ, POSTHORN_BIND=f"127.0.0.1:{PORT}", POSTHORN_DATA_DIR=DATA, RUST_LOG="warn")
    env.pop("DATABASE_URL", None)
    proc = subprocess.Popen([BIN], env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(DATA, "service.log"), "a"))
    for _ in range(600):
        try:
            with urllib.request.urlopen(BASE + "/readyz", timeout=1) as r:
                if r.status == 200:
                    return proc
        except Exception:
            time.sleep(0.05)
    sys.exit("the service did not become ready")


def call(method, path, token=None, body=None, key=None):
    """(status, json) or raises OSError when the connection breaks."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    if key:
        headers["Idempotency-Key"] = key
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


broken = [0]  # requests cut off by a kill, or sent while it was down


def patiently(*args, **kw):
    """Call until the service answers (it may be down)."""
    while True:
        try:
            status, body = call(*args, **kw)
            if status != 503:
                return status, body
        except OSError:
            with lock:
                broken[0] += 1
        time.sleep(0.05)


acknowledged = []  # (match_id, key, seqs of the events the answer reported)
refused = {}
lock = threading.Lock()
stop = threading.Event()


def play(opponent, tokens):
    """Play matches between a pair until told to stop, a new one when one ends."""
    rng = random.Random(opponent)
    while not stop.is_set():
        status, m = patiently("POST", "/v1/matches", tokens[0],
                              {"game": "checkers", "opponents": [opponent]}, str(uuid.uuid4()))
        assert status == 201, m
        # The opponent accepts the challenge (issue #20); a retry after a
        # crash that had already committed finds no challenge left: 404.
        status, _ = patiently("POST", f"/v1/matches/{m['id']}/accept", tokens[1], None, str(uuid.uuid4()))
        assert status in (200, 404), status
        play_match(m["id"], tokens, rng)


def play_match(match_id, tokens, rng):
    while not stop.is_set():
        moved = False
        for token in tokens:
            status, legal = patiently("GET", f"/v1/matches/{match_id}/legal-actions", token)
            if status != 200:
                continue
            moves = [a for a in legal["actions"] if a["type"] == "move"]
            if not moves:
                continue
            key = str(uuid.uuid4())
            body = {"seq": legal["seq"], "action": rng.choice(moves)}
            status, answer = patiently("POST", f"/v1/matches/{match_id}/actions", token, body, key)
            with lock:
                if status == 200:
                    seqs = [e["seq"] for e in answer["events"] if e["type"] == "moved"]
                    acknowledged.append((match_id, key, seqs))
                else:
                    refused[status] = refused.get(status, 0) + 1
            moved = True
            break
        if not moved:  # the match is over
            return


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
    tokens = []
    for i in range(2 * PAIRS):
        status, session = call("POST", "/v1/accounts", body={"username": f"fault{i}", "password": "a long password"})
        assert status == 201, session
        tokens.append(session["access_token"])
    threads = []
    for p in range(PAIRS):
        a, b = tokens[2 * p], tokens[2 * p + 1]
        t = threading.Thread(target=play, args=(f"fault{2 * p + 1}", (a, b)))
        t.start()
        threads.append(t)
    downtime = []
    for _ in range(KILLS):
        time.sleep(KILL_EVERY)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        began = time.time()
        proc = start()
        downtime.append(time.time() - began)
    time.sleep(KILL_EVERY)
    stop.set()
    for t in threads:
        t.join()
    # SIGKILL again: a clean stop would stop the private cluster with it.
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    port = open(os.path.join(DATA, "postgres", "postmaster.pid")).read().split("\n")[3].strip()
    out = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "posthorn", "-At", "-F", " ", "-c",
         "SELECT match_id, seq FROM match_events WHERE body->>'type' = 'moved'"],
        capture_output=True, text=True, check=True).stdout
    logged = set()
    for line in out.strip().splitlines():
        match_id, seq = line.split()
        logged.add((match_id, int(seq)))
    acked = {(m, s) for m, _, seqs in acknowledged for s in seqs}
    lost = len(acked - logged)
    keys = len({k for _, k, _ in acknowledged})
    # Every logged move was acknowledged under exactly one key: a retried
    # key never applied its move a second time.
    duplicated = len(logged) - len(acked)
    if downtime:
        print(f"kills {KILLS}, restart to ready {min(downtime):.2f}–{max(downtime):.2f} s")
    print(f"moves acknowledged {len(acked)} under {keys} keys, moves in the log {len(logged)}, refused {refused}")
    print(f"requests broken by the kills and sent again: {broken[0]}")
    print(f"lost {lost}, duplicated {duplicated}")
    if os.environ.get("SIZES"):
        sizes(port)
    subprocess.run(["pg_ctl" if not os.path.exists("/usr/lib/postgresql") else
                    sorted(d for d in (f"/usr/lib/postgresql/{v}/bin/pg_ctl" for v in os.listdir("/usr/lib/postgresql")) if os.path.exists(d))[-1],
                    "-D", os.path.join(DATA, "postgres"), "-m", "fast", "stop"],
                   capture_output=True, user="postgres" if os.getuid() == 0 else None)
    sys.exit(1 if lost or duplicated else 0)


main()
