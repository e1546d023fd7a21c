"""What the fault drills in this folder share: PostgreSQL's binaries, free
loopback ports, the service's HTTP calls and readiness, and the load that
kill9.py and failover.py put on the service while something fails. Each
drill runs as `python3 tests/fault/<drill>.py`, which puts this folder on
the import path. Standard library only.
"""
import json, os, random, shutil, signal, socket, subprocess, sys, threading, time, urllib.error, urllib.request, uuid

ROOT = os.getuid() == 0


def pg_bin():
    """PG_BIN, else the newest /usr/lib/postgresql/<version>/bin that has
    the server's tools (Debian's packages), else the folder of the
    `initdb` on PATH (as the service itself looks)."""
    if os.environ.get("PG_BIN"):
        return os.environ["PG_BIN"]
    top = "/usr/lib/postgresql"
    versions = sorted((int(v) for v in os.listdir(top) if v.isdigit()), reverse=True) if os.path.isdir(top) else []
    for v in versions:
        d = f"{top}/{v}/bin"
        if os.path.exists(os.path.join(d, "initdb")):
            return d
    on_path = shutil.which("initdb")
    if on_path:
        return os.path.dirname(on_path)
    sys.exit("no PostgreSQL server binaries (apt-get install postgresql, or set PG_BIN)")


def as_postgres(cmd):
    """The command as the clusters' owner: initdb and pg_ctl refuse root."""
    return ["runuser", "-u", "postgres", "--"] + cmd if ROOT else cmd


def postgres_dir(path, mode=0o700):
    """A new folder for a cluster (or its logs), owned by its owner."""
    os.makedirs(path)
    os.chmod(path, mode)
    if ROOT:
        shutil.chown(path, "postgres", "postgres")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, token=None, body=None, key=None, timeout=10, address=None):
    """(status, json) of one request; raises OSError when the connection
    breaks. `address`: the client it comes from, as a trusted proxy would
    say (the service started with POSTHORN_TRUSTED_PROXIES=127.0.0.1):
    sign-ups are limited per address (issue #46)."""
    headers = {"Content-Type": "application/json"}
    if address:
        headers["X-Forwarded-For"] = address
    if token:
        headers["Authorization"] = "Bearer " + token
    if key:
        headers["Idempotency-Key"] = key
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def wait_ready(proc, base, log):
    """The service started as `proc`, once /readyz answers 200; a
    RuntimeError when it exits or does not get ready (a drill's own
    failure, which each drill reports and cleans up after)."""
    for _ in range(600):
        if proc.poll() is not None:
            raise RuntimeError(f"the service exited ({proc.returncode}): {tail(log)}")
        try:
            with urllib.request.urlopen(base + "/readyz", timeout=1) as r:
                if r.status == 200:
                    return proc
        except Exception:
            time.sleep(0.05)
    raise RuntimeError(f"the service did not become ready: {tail(log)}")


def stop(procs, wait=15):
    """SIGTERM every process of `procs` still running, the last started
    first; SIGKILL one that has not ended `wait` seconds later."""
    for proc in reversed(procs):
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(wait)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def run_drill(name, drill, logs, cleanup):
    """Exit with `drill()`'s status (2 when it raised, saying why), the
    tails of `logs()` ((what, path) pairs) printed when it failed, after
    `cleanup()` whatever happened."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(2))
    code = 2
    try:
        code = drill()
    except Exception as e:
        print(f"{name} failed: {e!r}", file=sys.stderr)
    finally:
        if code:
            for what, path in logs():
                print(f"{what} (tail):\n{tail(path)}", file=sys.stderr)
        cleanup()
    sys.exit(code)


def tail(log):
    """The end of a log, for a message (its folder may be gone by then)."""
    try:
        return open(log, errors="replace").read()[-2000:]
    except OSError:
        return f"no log at {log}"


class GaveUp(Exception):
    pass


# How often a player of the load resigns instead of moving: a match lasts
# about fifty moves, so a drill of a few seconds finishes matches.
RESIGN_CHANCE = 0.02

# Issue #70: the coins a drill's finished matches paid, as psql prints one
# row: finished seats, those without exactly one ledger entry for their
# cause, and players whose balance is not the sum of their entries.
COINS = (
    "SELECT (SELECT count(*) FROM matches m JOIN match_seats s ON s.match_id = m.id "
    "WHERE m.status = 'finished' AND s.user_id IS NOT NULL), "
    "(SELECT count(*) FROM matches m JOIN match_seats s ON s.match_id = m.id "
    "WHERE m.status = 'finished' AND s.user_id IS NOT NULL AND (SELECT count(*) FROM coins c "
    "WHERE c.user_id = s.user_id AND c.cause = 'match:' || m.id || ':' || s.seat) <> 1), "
    "(SELECT count(*) FROM (SELECT user_id, sum(amount) AS total FROM coins GROUP BY user_id) c "
    "FULL JOIN purses p USING (user_id) WHERE coalesce(c.total, 0) <> coalesce(p.balance, 0))"
)


def coins(row):
    """(finished seats, unpaid or paid twice, balances off) from `COINS`'s
    row; printed, and a drill fails on any of the last two or on no
    finished seat at all."""
    seats, unpaid, off = (int(x) for x in row.replace("|", " ").split())
    print(f"coins: {seats} finished seats, {unpaid} without exactly one ledger entry, "
          f"{off} balances not the sum of their entries")
    return seats, unpaid, off


class Load:
    """Pairs of players playing checkers, one thread a pair, a new match
    when one ends. Every creation and move is posted with an
    Idempotency-Key and posted again with the same key until it is
    answered: after a broken connection, or an answer whose status is in
    `again` (503 while the service or its database is away). `ledger`
    then checks the acknowledged moves against the event log."""

    def __init__(self, base, prefix, pairs, again=(503,)):
        self.base, self.prefix, self.pairs, self.again = base, prefix, pairs, again
        self.lock = threading.Lock()
        self.statuses = {}  # HTTP status -> how many answers
        self.broken = 0  # requests whose connection broke, sent again
        self.writes = []  # time.monotonic() of every 2xx POST
        self.acknowledged = []  # (match_id, key, seqs of the moves the answer reported)
        self.refused = {}  # status -> moves answered other than 200
        self.unanswered = 0  # requests still unanswered when told to give up
        self.in_doubt = {}  # match_id -> moves posted but never answered (given up)
        self.stop = threading.Event()
        self.give_up = threading.Event()
        self.threads = []

    def call(self, *args, **kw):
        status, answer = call(self.base, *args, **kw)
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1
            if args[0] == "POST" and 200 <= status < 300:
                self.writes.append(time.monotonic())
        return status, answer

    def patiently(self, *args, **kw):
        """Call until answered with a status not in `again`."""
        while True:
            if self.give_up.is_set():
                with self.lock:
                    self.unanswered += 1
                raise GaveUp()
            try:
                status, body = self.call(*args, **kw)
                if status not in self.again:
                    return status, body
            except OSError:
                with self.lock:
                    self.broken += 1
            time.sleep(0.05)

    def start(self):
        """Sign the players up and start one thread a pair."""
        tokens = []
        for i in range(2 * self.pairs):
            status, session = self.call("POST", "/v1/accounts", address=f"198.51.100.{i + 1}",
                                        body={"username": f"{self.prefix}{i}", "password": "a long password"})
            assert status == 201, session
            tokens.append(session["access_token"])
        for p in range(self.pairs):
            opponent = f"{self.prefix}{2 * p + 1}"
            t = threading.Thread(target=self.play, args=(opponent, (tokens[2 * p], tokens[2 * p + 1])))
            t.start()
            self.threads.append(t)

    def finish(self, grace=None):
        """Stop play; after `grace` seconds a request still unanswered is
        given up (None: wait as long as it takes)."""
        self.stop.set()
        deadline = None if grace is None else time.monotonic() + grace
        for t in self.threads:
            t.join(None if deadline is None else max(0, deadline - time.monotonic()))
        self.give_up.set()
        for t in self.threads:
            t.join()

    def play(self, opponent, tokens):
        rng = random.Random(opponent)
        try:
            while not self.stop.is_set():
                status, m = self.patiently("POST", "/v1/matches", tokens[0],
                                           {"game": "checkers", "opponents": [opponent]}, str(uuid.uuid4()))
                assert status == 201, (status, m)
                # The opponent accepts the challenge; a retry of an accept
                # that had already committed (its answer lost with the
                # primary) finds no challenge left: 404, or 409 once the
                # match is under way (the accept takes no Idempotency-Key).
                status, _ = self.patiently("POST", f"/v1/matches/{m['id']}/accept", tokens[1], None,
                                           str(uuid.uuid4()))
                assert status in (200, 404, 409), status
                self.play_match(m["id"], tokens, rng)
        except GaveUp:
            pass

    def play_match(self, match_id, tokens, rng):
        while not self.stop.is_set():
            moved = False
            for token in tokens:
                # Now and then a player resigns: matches end and pay
                # their coins (issue #70), which `COINS` then checks.
                if rng.random() < RESIGN_CHANCE:
                    status, legal = self.patiently("GET", f"/v1/matches/{match_id}", token)
                    if status == 200 and legal.get("status") == "active":
                        self.patiently("POST", f"/v1/matches/{match_id}/actions", token,
                                       {"seq": legal["seq"], "action": {"type": "resign"}}, str(uuid.uuid4()))
                    return
                status, legal = self.patiently("GET", f"/v1/matches/{match_id}/legal-actions", token)
                if status != 200:
                    continue
                moves = [a for a in legal["actions"] if a["type"] == "move"]
                if not moves:
                    continue
                key = str(uuid.uuid4())
                body = {"seq": legal["seq"], "action": rng.choice(moves)}
                try:
                    status, answer = self.patiently("POST", f"/v1/matches/{match_id}/actions", token, body, key)
                except GaveUp:  # its move may or may not be in the log
                    with self.lock:
                        self.in_doubt[match_id] = self.in_doubt.get(match_id, 0) + 1
                    raise
                with self.lock:
                    if status == 200:
                        seqs = [e["seq"] for e in answer["events"] if e["type"] == "moved"]
                        self.acknowledged.append((match_id, key, seqs))
                    else:
                        self.refused[status] = self.refused.get(status, 0) + 1
                moved = True
                break
            if not moved:  # the match is over
                return

    def ledger(self, rows):
        """(moves acknowledged, their keys, lost, duplicated, moves in the
        log), `rows` being the log's moves as psql prints
        `SELECT match_id, seq`. A move answered
        2xx must be in the log (lost); every logged move was acknowledged
        under one key, so a key sent again never applied its move twice
        (duplicated), except a move given up on unanswered, which may be
        there once."""
        logged = set()
        for line in rows.strip().splitlines():
            match_id, seq = line.split()
            logged.add((match_id, int(seq)))
        acked = {(m, s) for m, _, seqs in self.acknowledged for s in seqs}
        keys = len({k for _, k, _ in self.acknowledged})
        extra = {}
        for m, _ in logged - acked:
            extra[m] = extra.get(m, 0) + 1
        duplicated = sum(max(0, n - self.in_doubt.get(m, 0)) for m, n in extra.items())
        return len(acked), keys, len(acked - logged), duplicated, len(logged)
