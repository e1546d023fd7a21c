#!/usr/bin/env python3
"""PgBouncer in front of PostgreSQL (issue #53 item 6): the service through
Debian's PgBouncer in session mode, then in transaction mode, each under
the checkers load for a few seconds (drill.Load, nothing retried).

    cargo build && POSTHORN_BIN=target/debug/posthorn python3 tests/fault/pgbouncer.py

Session mode must serve every request; transaction mode is expected to
fail (docs/failover.md, "Connection pooling: PgBouncer", says why), and
the drill prints how. Exit 1 when session mode fails a request. Not in
.ci/run: it shows a configuration, not a property of the code.
"""
import os, shutil, subprocess, sys, tempfile, time

from drill import ROOT, Load, as_postgres, free_port, pg_bin, postgres_dir, stop, tail, wait_ready

BIN = os.environ.get("POSTHORN_BIN", "target/release/posthorn")
PLAY = float(os.environ.get("PLAY", "8"))  # seconds of play in each mode

PG = pg_bin()
DATA = tempfile.mkdtemp(prefix="posthorn-pgbouncer-")
os.chmod(DATA, 0o755)
CLUSTER = os.path.join(DATA, "postgres")
DB_PORT = free_port()
started = []


def start_database():
    postgres_dir(CLUSTER)
    subprocess.run(as_postgres([f"{PG}/initdb", "-D", CLUSTER, "-U", "postgres", "--auth=trust", "-E", "UTF8"]),
                   check=True, capture_output=True)
    opts = f"-p {DB_PORT} -k {CLUSTER} -c listen_addresses=127.0.0.1"
    subprocess.run(as_postgres([f"{PG}/pg_ctl", "-D", CLUSTER, "-l", os.path.join(CLUSTER, "log"), "-w",
                                "-o", opts, "start"]), check=True, capture_output=True)


def through(mode):
    """The service through PgBouncer in `mode` under load: the statuses,
    or why it did not start."""
    db, port, service_port = f"posthorn_{mode}", free_port(), free_port()
    subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(DB_PORT), "-U", "postgres", "-X", "-q",
                    "-c", f"CREATE DATABASE {db}"], check=True)
    folder = os.path.join(DATA, mode)
    postgres_dir(folder, 0o755)
    with open(os.path.join(folder, "users.txt"), "w") as f:
        f.write('"postgres" ""\n')
    ini = os.path.join(folder, "pgbouncer.ini")
    with open(ini, "w") as f:
        f.write(f"[databases]\n{db} = host=127.0.0.1 port={DB_PORT} dbname={db}\n"
                f"[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
                f"auth_type = trust\nauth_file = {folder}/users.txt\npool_mode = {mode}\n"
                f"max_client_conn = 200\ndefault_pool_size = 20\n")
    if ROOT:
        for name in os.listdir(folder):
            shutil.chown(os.path.join(folder, name), "postgres", "postgres")
    bouncer = subprocess.Popen(as_postgres(["pgbouncer", ini]), stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(DATA, f"pgbouncer-{mode}.log"), "a"))
    started.append(bouncer)
    time.sleep(1)
    log = os.path.join(DATA, f"service-{mode}.log")
    env = dict(os.environ, POSTHORN_BIND=f"127.0.0.1:{service_port}",
               DATABASE_URL=f"postgres://postgres@127.0.0.1:{port}/{db}",
               POSTHORN_DATA_DIR=os.path.join(DATA, f"data-{mode}"), RUST_LOG="warn",
               POSTHORN_TRUSTED_PROXIES="127.0.0.1")
    service = subprocess.Popen([BIN], env=env, stdout=subprocess.DEVNULL, stderr=open(log, "a"))
    started.append(service)
    try:
        wait_ready(service, f"http://127.0.0.1:{service_port}", log)
    except RuntimeError:
        return None, tail(log).strip().splitlines()[-1]
    load = Load(f"http://127.0.0.1:{service_port}", mode[:3], 4, again=())
    load.start()
    time.sleep(PLAY)
    load.finish(10)
    return load, None


def main():
    code = 2
    try:
        start_database()
        for mode in ("session", "transaction"):
            load, failed = through(mode)
            if load is None:
                print(f"{mode} mode: the service did not start: {failed}")
                code = 1 if mode == "session" else code
                continue
            bad = {s: n for s, n in load.statuses.items() if s >= 400 and s != 404}
            print(f"{mode} mode: HTTP statuses {dict(sorted(load.statuses.items()))}, "
                  f"connections broken {load.broken}, failed {sum(bad.values()) + load.broken}")
            if mode == "session":
                code = 1 if bad or load.broken else 0
    finally:
        stop(started, 30)
        subprocess.run(as_postgres([f"{PG}/pg_ctl", "-D", CLUSTER, "-m", "fast", "-w", "stop"]),
                       capture_output=True)
        shutil.rmtree(DATA, ignore_errors=True)
    sys.exit(code)


main()
