//! Zero-configuration PostgreSQL: with no `DATABASE_URL`, the service (and
//! the test suite) runs a private cluster in a local folder from the
//! machine's PostgreSQL binaries. initdb refuses to run as root, so as root
//! the cluster belongs to the `postgres` user.

use diesel::{Connection, PgConnection, RunQueryDsl};
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct LocalPostgres {
    data: PathBuf,
    bin: PathBuf,
    port: u16,
    /// Whether this process launched it (else it found it running: a
    /// service's, which a command run beside it must leave running).
    launched: bool,
}

const INSTALL_HINT: &str = "PostgreSQL's server binaries (initdb, pg_ctl) were not found. \
Install them (Debian/Ubuntu: `apt-get install postgresql`) or set DATABASE_URL to a server.";

fn find_bin_dir() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .find(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file())
    });
    on_path.or_else(|| {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
            .filter(|d| d.join("initdb").is_file())
            .collect();
        dirs.sort_by_key(|d| {
            let version = d
                .parent()
                .and_then(|v| v.file_name())
                .and_then(|v| v.to_str());
            version.and_then(|v| v.parse::<u32>().ok()).unwrap_or(0)
        });
        dirs.pop()
    })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.starts_with(b"0\n"))
        .unwrap_or(false)
}

impl LocalPostgres {
    /// Start (creating if need be) the cluster in `dir`, with a database
    /// named `database` in it.
    pub fn start(dir: &Path, database: &str) -> Result<LocalPostgres, String> {
        let bin = find_bin_dir().ok_or(INSTALL_HINT)?;
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let data = std::fs::canonicalize(dir).map_err(|e| e.to_string())?;
        let mut pg = LocalPostgres {
            data,
            bin,
            port: 0,
            launched: false,
        };
        if is_root() {
            pg.run(
                Command::new("chown")
                    .args(["-R", "postgres:postgres"])
                    .arg(&pg.data),
                false,
            )?;
        }
        if !pg.data.join("PG_VERSION").exists() {
            log::info!(
                "creating a private PostgreSQL cluster in {}",
                pg.data.display()
            );
            let mut initdb = Command::new(pg.bin.join("initdb"));
            initdb
                .arg("-D")
                .arg(&pg.data)
                .args(["-U", "postgres", "--auth=trust", "-E", "UTF8"]);
            pg.run(&mut initdb, true)?;
        }
        pg.port = match pg.running_port() {
            Some(port) => port,
            None => {
                pg.launched = true;
                pg.launch()?
            }
        };
        pg.create_database(database)?;
        Ok(pg)
    }

    fn run(&self, cmd: &mut Command, as_postgres: bool) -> Result<(), String> {
        let mut cmd = if as_postgres && is_root() {
            let mut wrapped = Command::new("runuser");
            wrapped
                .args(["-u", "postgres", "--"])
                .arg(cmd.get_program())
                .args(cmd.get_args());
            wrapped
        } else {
            std::mem::replace(cmd, Command::new("true"))
        };
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{:?} failed: {}{}",
                cmd.get_program(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// The port of a cluster already running from this folder.
    fn running_port(&self) -> Option<u16> {
        let pid_file = std::fs::read_to_string(self.data.join("postmaster.pid")).ok()?;
        let pid: u32 = pid_file.lines().next()?.trim().parse().ok()?;
        if !Path::new(&format!("/proc/{pid}")).exists() {
            return None;
        }
        pid_file.lines().nth(3)?.trim().parse().ok()
    }

    fn launch(&self) -> Result<u16, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c max_connections=200",
            self.data.display()
        );
        self.pg_ctl(&["-w", "-o", &options, "start"])?;
        log::info!("private PostgreSQL listening on 127.0.0.1:{port}");
        Ok(port)
    }

    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    fn create_database(&self, database: &str) -> Result<(), String> {
        let mut conn = PgConnection::establish(&self.url("postgres")).map_err(|e| e.to_string())?;
        let exists = diesel::sql_query(format!(
            "SELECT 1 FROM pg_database WHERE datname = '{database}'"
        ))
        .execute(&mut conn)
        .map_err(|e| e.to_string())?;
        if exists == 0 {
            diesel::sql_query(format!("CREATE DATABASE \"{database}\""))
                .execute(&mut conn)
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Restart the cluster with `pg_ctl restart -m <mode>` (`immediate`:
    /// as after a crash, every connection cut at once).
    pub fn restart(&self, mode: &str) -> Result<(), String> {
        self.pg_ctl(&["-m", mode, "-w", "restart"])
    }

    /// `pg_ctl -D <data> -l <data>/server.log …` as the cluster's owner.
    /// The server logs to the file, not to pg_ctl's output, which would
    /// then never close.
    fn pg_ctl(&self, args: &[&str]) -> Result<(), String> {
        let mut pg_ctl = Command::new(self.bin.join("pg_ctl"));
        pg_ctl
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(self.data.join("server.log"))
            .args(args);
        self.run(&mut pg_ctl, true)
    }

    /// Whether this process launched the cluster (rather than found it
    /// running).
    pub fn launched(&self) -> bool {
        self.launched
    }

    pub fn stop(&self) {
        if let Err(e) = self.pg_ctl(&["-m", "fast", "-w", "stop"]) {
            log::warn!("stopping the private PostgreSQL: {e}");
        }
    }
}
