#!/usr/bin/env python3
"""Backup drill (issue #36): a base backup plus archived WAL restores the
database to a chosen moment, with PostgreSQL's own tools.

    cargo build && python3 tests/fault/backup_restore.py

Starts a private PostgreSQL (initdb from the machine's binaries, as the
`postgres` user when run as root, loopback only, in a temp folder) with
WAL archiving on (`archive_command` copies each finished segment into an
archive folder), and `target/debug/posthorn` (override with POSTHORN_BIN)
on it. Two players start MATCHES checkers matches and play them over HTTP;
every acknowledged action is recorded (match id, the seqs and types of the
events its answer reported). While the service runs:

  base     moves, then `pg_basebackup -Ft -z -X stream --checkpoint=fast`
           (moves go on while it runs: the phase "during");
  phase A  more moves, then the chosen moment:
           `SELECT pg_create_restore_point('drill')`;
  phase B  one new match and more moves, then `pg_switch_wal()` and a wait
           until that segment is in the archive.

One player plays at a time, so every action is answered before the moment
is marked or after it. The primary must hold every action of every phase
(a control: phase B really was committed and archived). Then everything
stops, the base backup is unpacked into a new folder and checked against
its manifest (`pg_verifybackup`), given `restore_command` reading the
archive, `recovery_target_name = 'drill'`, `recovery_target_action =
'promote'` and `recovery.signal`, and started on another port. Checked
with psql once it is promoted: every action acknowledged before the moment
(base, during, phase A) is in `match_events` and every match made before
it is in `matches`; no event of phase B is there, nor the match made in
phase B; and the server's log says recovery stopped at the target.
TARGET=time recovers to `recovery_target_time` instead: the now() of the
statement that made the restore point. Exits non-zero if any check fails.
Every process and the temp folder are removed at the end, also on failure
(KEEP=1 keeps the folder). Standard library only; 10-20 s.
"""
import os, random, shutil, signal, subprocess, sys, tempfile, time

from drill import as_postgres, call, free_port, pg_bin, postgres_dir, wait_ready

BIN = os.environ.get("POSTHORN_BIN", "target/debug/posthorn")
MATCHES = int(os.environ.get("MATCHES", "4"))
MOVES = int(os.environ.get("MOVES", "40"))  # moves per phase
KEEP = os.environ.get("KEEP") == "1"
# The recovery target: the restore point by name (default), or TARGET=time:
# the time now() gave in the same statement that made the restore point.
TARGET = os.environ.get("TARGET", "name")
assert TARGET in ("name", "time"), "TARGET is name or time"


PG = pg_bin()
TMP = tempfile.mkdtemp(prefix="posthorn-backup-")
os.chmod(TMP, 0o755)  # as root, the clusters belong to postgres, who must get in
PRIMARY = os.path.join(TMP, "primary")
ARCHIVE = os.path.join(TMP, "archive")
BACKUP = os.path.join(TMP, "backup")
RESTORED = os.path.join(TMP, "restored")
SERVICE_DATA = os.path.join(TMP, "service")
RUN = os.path.join(TMP, "run")  # server logs and sockets, outside the data folders (not in the backup)

service = None
clusters = []  # data folders of the clusters started, to stop at the end


def run(cmd, **kw):
    """Run a PostgreSQL tool as the cluster's owner (initdb refuses root)."""
    return subprocess.run(as_postgres(cmd), check=True, capture_output=True, text=True, **kw)


def configure(data, settings):
    """Append settings to postgresql.auto.conf (read last: these win)."""
    with open(os.path.join(data, "postgresql.auto.conf"), "a") as f:
        for name, value in settings.items():
            f.write(f"{name} = '{value}'\n")


def pg_start(data):
    """Start the cluster on a free loopback port; its port. A port found
    free may be taken (an outgoing connection) before the server binds it:
    then another."""
    clusters.append(data)
    for attempt in range(5):
        port = free_port()
        seen = os.path.getsize(log_of(data)) if os.path.exists(log_of(data)) else 0
        try:
            run([f"{PG}/pg_ctl", "-D", data, "-l", log_of(data), "-w", "-t", "60",
                 "-o", f"-p {port} -k {RUN} -c listen_addresses=127.0.0.1", "start"])
            return port
        except subprocess.CalledProcessError:
            news = open(log_of(data)).read()[seen:]
            if attempt == 4 or "Address already in use" not in news:
                sys.stderr.write(f"{log_of(data)}:\n{news[-3000:]}")
                raise


def log_of(data):
    return os.path.join(RUN, os.path.basename(data) + ".log")


def pg_stop(data, mode="fast"):
    subprocess.run(as_postgres([f"{PG}/pg_ctl", "-D", data, "-m", mode, "-w", "stop"]), capture_output=True)


def psql(port, sql, db="posthorn"):
    return subprocess.run([f"{PG}/psql", "-qAtX", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
                           "-d", db, "-F", " ", "-c", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


def start_service(db_port, http_port):
    env = dict(os.environ, DATABASE_URL=f"postgres://postgres@127.0.0.1:{db_port}/posthorn",
               POSTHORN_BIND=f"127.0.0.1:{http_port}", POSTHORN_DATA_DIR=SERVICE_DATA,
               POSTHORN_JWT_SECRET="backup-drill-secret-0123456789abcdef", RUST_LOG="warn")
    log = os.path.join(TMP, "service.log")
    proc = subprocess.Popen([BIN], env=env, stdout=subprocess.DEVNULL, stderr=open(log, "a"))
    return wait_ready(proc, f"http://127.0.0.1:{http_port}", log)


class Players:
    """Two players and their checkers matches, played one move at a time."""

    def __init__(self, base):
        self.base = base
        self.tokens = []
        for name in ("drill0", "drill1"):
            status, session = call(base, "POST", "/v1/accounts", body={"username": name, "password": "a long password"})
            assert status == 201, session
            self.tokens.append(session["access_token"])
        self.acked = []  # (phase, match_id, seq, event type): the events of each acknowledged action
        self.actions = {}  # phase: acknowledged actions
        self.created = {}  # phase: ids of the matches made in it
        self.live = []
        self.next = 0
        self.rng = random.Random(36)

    def new_match(self, phase):
        status, m = call(self.base, "POST", "/v1/matches", self.tokens[0], {"game": "checkers", "opponents": ["drill1"]})
        assert status == 201, m
        status, answer = call(self.base, "POST", f"/v1/matches/{m['id']}/accept", self.tokens[1])
        assert status == 200, answer
        self.created.setdefault(phase, []).append(m["id"])
        self.live.append(m["id"])

    def move(self, match_id, phase):
        """One move in the match by whoever is to move; False when it is over."""
        for token in self.tokens:
            status, legal = call(self.base, "GET", f"/v1/matches/{match_id}/legal-actions", token)
            assert status == 200, legal
            moves = [a for a in legal["actions"] if a["type"] == "move"]
            if not moves:
                continue
            status, answer = call(self.base, "POST", f"/v1/matches/{match_id}/actions", token,
                                  {"seq": legal["seq"], "action": self.rng.choice(moves)})
            assert status == 200, (status, answer)
            self.actions[phase] = self.actions.get(phase, 0) + 1
            for e in answer["events"]:
                self.acked.append((phase, match_id, e["seq"], e["type"]))
            return True
        return False

    def play(self, phase, moves):
        """MOVES moves round the live matches (a new one when all are over)."""
        played = 0
        while played < moves:
            if not self.live:
                self.new_match(phase)
            m = self.live[self.next % len(self.live)]
            self.next += 1
            if self.move(m, phase):
                played += 1
            else:
                self.live.remove(m)


def logged(port):
    out = psql(port, "SELECT match_id, seq, body->>'type' FROM match_events")
    return {(m, int(s), t) for m, s, t in (line.split() for line in out.splitlines())}


def drill():
    began = time.time()

    # 1. The primary, archiving every finished WAL segment.
    postgres_dir(RUN, 0o755)
    postgres_dir(PRIMARY)
    postgres_dir(ARCHIVE, 0o755)
    run([f"{PG}/initdb", "-D", PRIMARY, "-U", "postgres", "--auth=trust", "-E", "UTF8"])
    configure(PRIMARY, {
        "wal_level": "replica",
        "archive_mode": "on",
        "archive_command": f"test ! -f {ARCHIVE}/%f && cp %p {ARCHIVE}/%f",
        "archive_timeout": "60s",
    })
    pg_port = pg_start(PRIMARY)
    psql(pg_port, "CREATE DATABASE posthorn", db="postgres")

    # 2. The service on it; two players, MATCHES matches, the base moves.
    global service
    http_port = free_port()
    service = start_service(pg_port, http_port)
    players = Players(f"http://127.0.0.1:{http_port}")
    for _ in range(MATCHES):
        players.new_match("base")
    players.play("base", MOVES)

    # 3. The base backup, taken while the service runs and moves are played.
    t = time.time()
    postgres_dir(BACKUP)
    cmd = [f"{PG}/pg_basebackup", "-h", "127.0.0.1", "-p", str(pg_port), "-U", "postgres",
           "-D", BACKUP, "-Ft", "-z", "-X", "stream", "--checkpoint=fast"]
    backup = subprocess.Popen(as_postgres(cmd),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    while backup.poll() is None:
        players.play("during", 1)
    if backup.returncode != 0:
        raise subprocess.CalledProcessError(backup.returncode, cmd, backup.stdout.read(), "")
    backup_seconds = time.time() - t
    backup_bytes = sum(os.path.getsize(os.path.join(BACKUP, f)) for f in os.listdir(BACKUP))

    # 4. Phase A, the chosen moment, phase B (with a new match), the switch.
    players.play("A", MOVES)
    moment_lsn, moment_time = psql(pg_port, "SELECT pg_create_restore_point('drill'), now()").split(" ", 1)
    players.new_match("B")
    players.play("B", MOVES)
    segment = psql(pg_port, "SELECT pg_walfile_name(pg_switch_wal())")
    for _ in range(200):
        if os.path.exists(os.path.join(ARCHIVE, segment)):
            break
        time.sleep(0.05)
    else:
        raise SystemExit(f"segment {segment} was not archived")
    failed = int(psql(pg_port, "SELECT failed_count FROM pg_stat_archiver"))

    # The control: the primary holds every acknowledged action, phase B too.
    on_primary = logged(pg_port)
    acked = {phase: {(m, s, ty) for p, m, s, ty in players.acked if p == phase} for phase in ("base", "during", "A", "B")}
    missing_on_primary = sum(len(acked[p] - on_primary) for p in acked)

    service.send_signal(signal.SIGTERM)
    service.wait(timeout=30)
    pg_stop(PRIMARY)
    archived = sorted(os.listdir(ARCHIVE))

    # 5. Restore into a new folder and recover to the restore point.
    t = time.time()
    postgres_dir(RESTORED)
    run(["tar", "-xzf", os.path.join(BACKUP, "base.tar.gz"), "-C", RESTORED])
    run(["tar", "-xzf", os.path.join(BACKUP, "pg_wal.tar.gz"), "-C", os.path.join(RESTORED, "pg_wal")])
    # Every file against the backup's manifest (checksums), and its WAL.
    run([f"{PG}/pg_verifybackup", "-q", "-m", os.path.join(BACKUP, "backup_manifest"), RESTORED])
    target = ({"recovery_target_name": "drill"} if TARGET == "name"
              else {"recovery_target_time": moment_time, "recovery_target_inclusive": "on"})
    configure(RESTORED, {
        "restore_command": f"cp {ARCHIVE}/%f %p",
        **target,
        "recovery_target_action": "promote",
        # A drill copy must not archive its new timeline into the primary's archive.
        "archive_mode": "off",
    })
    run(["touch", os.path.join(RESTORED, "recovery.signal")])
    restore_port = pg_start(RESTORED)
    # pg_ctl returns once hot standby accepts connections: wait for the promotion.
    for _ in range(600):
        if psql(restore_port, "SELECT pg_is_in_recovery()", db="postgres") == "f":
            break
        time.sleep(0.05)
    else:
        raise SystemExit("the restored server did not leave recovery")
    restore_seconds = time.time() - t
    restored = logged(restore_port)
    made_in_b = players.created["B"]
    b_match_rows = int(psql(restore_port, "SELECT count(*) FROM matches WHERE id IN ({})".format(
        ", ".join(f"'{m}'" for m in made_in_b))))
    made_before = [m for p in ("base", "during", "A") for m in players.created.get(p, [])]
    before_match_rows = int(psql(restore_port, "SELECT count(*) FROM matches WHERE id IN ({})".format(
        ", ".join(f"'{m}'" for m in made_before))))
    log = open(log_of(RESTORED)).read()
    stopped_at_point = ('recovery stopping at restore point "drill"' if TARGET == "name"
                        else "recovery stopping before commit of transaction") in log

    before = acked["base"] | acked["during"] | acked["A"]
    lost = before - restored
    leaked = acked["B"] & restored
    print(f"PostgreSQL {psql(restore_port, 'SHOW server_version', db='postgres')}, binary {BIN}")
    a = players.actions
    print("acknowledged actions (their events): " + ", ".join(
        f"{p} {a.get(p, 0)} ({len(acked[p])})" for p in acked)
        + "; matches made: " + ", ".join(f"{p} {len(players.created.get(p, []))}" for p in acked))
    print(f"base backup {backup_bytes / 1e6:.1f} MB (tar.gz) in {backup_seconds:.2f} s; "
          f"archive {len(archived)} files ({', '.join(archived[:1])} … {archived[-1]}), archiver failures {failed}")
    print(f"chosen moment: restore point 'drill' at LSN {moment_lsn}, {moment_time}")
    print(f"primary before stop: {len(on_primary)} events, acknowledged missing {missing_on_primary}")
    print(f"restored in {restore_seconds:.2f} s (unpack + replay + promote); target {', '.join(f'{k} = {v!r}' for k, v in target.items())}; the log says recovery stopped there: {stopped_at_point}")
    print(f"restored: {len(restored)} events; before the moment {len(before)} acknowledged, {len(before) - len(lost)} present, "
          f"lost {len(lost)}; phase B {len(acked['B'])} acknowledged, present {len(leaked)}; "
          f"matches made before the moment present {before_match_rows} of {len(made_before)}, made in phase B present {b_match_rows}")
    print(f"total {time.time() - began:.1f} s")
    ok = (not lost and not leaked and not missing_on_primary and b_match_rows == 0 and before_match_rows == len(made_before) and stopped_at_point
          and not failed and acked["A"] and acked["B"])
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def cleanup():
    if service is not None and service.poll() is None:
        service.kill()
        service.wait()
    for data in clusters:
        if os.path.exists(os.path.join(data, "postmaster.pid")):
            pg_stop(data, "immediate")
    if KEEP:
        print(f"kept {TMP}")
    else:
        shutil.rmtree(TMP, ignore_errors=True)


def main():
    # SIGTERM (a CI timeout) unwinds like Ctrl-C, so the cleanup still runs.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    code = 1
    try:
        code = drill()
    except subprocess.CalledProcessError as e:
        print(f"FAIL: {e.cmd} exited {e.returncode}: {e.stdout}{e.stderr}", file=sys.stderr)
    except AssertionError as e:
        print(f"FAIL: unexpected answer {e}", file=sys.stderr)
    finally:
        cleanup()
    sys.exit(code)


main()
