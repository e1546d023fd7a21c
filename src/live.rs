//! Live match pages (issue #49 item 8; docs/architecture.md, "Live match
//! pages").
//!
//! Each instance keeps the matches its open pages watch, and one thread
//! with a connection of its own asks the database where they stand every
//! [`POLL`]: one indexed read of their seqs, rematch offers and last
//! messages (issue #50), however many pages watch. A change goes to the streams of the pages open here
//! (`http::live`), each keeping those of its own match. Whichever instance
//! made the change, every instance sees it, since each reads the database.
//!
//! Why not `LISTEN`/`NOTIFY`: a transaction that notifies takes a lock
//! held through its commit, so every action would commit one after
//! another instead of together; measured, the action path lost a fifth of
//! its throughput (docs/benchmarks.md, "Live match pages"). Reading costs
//! the action path nothing and the database a read per [`POLL`] while any
//! page is open.
//!
//! A notice carries no game content: the page re-reads its match through
//! the API, which shows each viewer only what they may see (§H1). When the
//! connection is lost the thread connects again and tells every page to
//! look again ([`Change::Resync`]); until it has, a page asking for a
//! stream is refused (503) and polls by itself, as it does whenever its
//! stream is down: a lost database costs latency, never a move.

use crate::matches::reads;
use diesel::prelude::*;
use diesel::PgConnection;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::broadcast;
use uuid::Uuid;

/// How often the watched matches are read: the most a change waits.
const POLL: Duration = Duration::from_millis(100);
/// How long to wait before connecting again after a failure.
const RETRY: Duration = Duration::from_secs(1);
/// Changes a slow stream may fall behind before it is told to look again.
const BACKLOG: usize = 1024;

/// What a page open on a match hears.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The match changed; its seq now (none for a rematch asked for or a
    /// message written, which change no seq).
    Moved { match_id: Uuid, seq: Option<i32> },
    /// A message was written at the match in `team`'s channel (none:
    /// everyone's): said to the pages that read that channel only, so a
    /// team's talk is not even timed by the other team.
    Talked { match_id: Uuid, team: Option<i16> },
    /// Changes may have been missed: every page looks again.
    Resync,
    /// The instance is stopping (issue #53): every stream ends, and its
    /// page opens another through the proxy, on an instance that stays.
    Closing,
}

/// Where a watched match stood when last read: its seq, its rematch
/// offers and its last message (issue #50: a message is no event).
type Stand = (i32, i64, Option<i64>);

/// The instance's watched matches and the streams they feed.
pub struct Live {
    changes: broadcast::Sender<Change>,
    /// Each watched match: how many pages watch it, where it stood.
    watched: Mutex<HashMap<Uuid, (usize, Option<Stand>)>>,
    /// Whether the reading connection stands: while it does not, a page
    /// is refused a stream and polls by itself.
    reading: AtomicBool,
    /// Set for good when the instance stops.
    closed: AtomicBool,
}

/// A page's watch on a match, ended when dropped.
pub struct Watch {
    live: Arc<Live>,
    match_id: Uuid,
    pub changes: broadcast::Receiver<Change>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut watched = self.live.watched.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((pages, _)) = watched.get_mut(&self.match_id) {
            *pages -= 1;
            if *pages == 0 {
                watched.remove(&self.match_id);
            }
        }
    }
}

impl Live {
    /// Start watching for the pages of this instance, reading
    /// `database_url` (the primary), in a thread that ends when the
    /// returned `Live` is dropped.
    pub fn start(database_url: &str) -> Arc<Live> {
        let (changes, _) = broadcast::channel(BACKLOG);
        let live = Arc::new(Live {
            changes,
            watched: Mutex::new(HashMap::new()),
            reading: AtomicBool::new(false),
            closed: AtomicBool::new(false),
        });
        let (weak, url) = (Arc::downgrade(&live), database_url.to_owned());
        let spawned = std::thread::Builder::new()
            .name("posthorn-live".into())
            .spawn(move || watch(&weak, &url));
        if let Err(e) = spawned {
            // Pages poll by themselves instead: slower, nothing lost.
            log::error!("live match pages are off: {e}");
        }
        live
    }

    /// Whether changes are being read now (a stream would hear them),
    /// and this instance not stopping.
    pub fn reading(&self) -> bool {
        self.reading.load(Ordering::Relaxed) && !self.closed.load(Ordering::Acquire)
    }

    /// End every stream and refuse new ones: the instance is stopping.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        let _ = self.changes.send(Change::Closing);
    }

    /// How many pages of this instance listen now (the operator's gauge,
    /// `posthorn_live_pages`): a stream closed by its page is released.
    pub fn pages(&self) -> usize {
        let watched = self.watched.lock().unwrap_or_else(|e| e.into_inner());
        watched.values().map(|(pages, _)| pages).sum()
    }

    /// Watch `match_id` for a page: every change from now on.
    pub fn watch(self: &Arc<Self>, match_id: Uuid) -> Watch {
        let changes = self.changes.subscribe();
        let mut watched = self.watched.lock().unwrap_or_else(|e| e.into_inner());
        watched.entry(match_id).or_insert((0, None)).0 += 1;
        Watch {
            live: self.clone(),
            match_id,
            changes,
        }
    }

    /// The watched matches, read afresh: each change said once.
    fn read(&self, conn: &mut PgConnection) -> Result<(), crate::error::Error> {
        let ids: Vec<Uuid> = {
            let watched = self.watched.lock().unwrap_or_else(|e| e.into_inner());
            watched.keys().copied().collect()
        };
        if ids.is_empty() {
            return Ok(());
        }
        let stands = reads::stands(conn, &ids)?;
        let talked = crate::talk::messages::latest(conn, &ids)?;
        let mut watched = self.watched.lock().unwrap_or_else(|e| e.into_inner());
        let mut talked_since = Vec::new();
        for (id, seq, offers) in stands {
            let Some((_, known)) = watched.get_mut(&id) else {
                continue;
            };
            let now = (seq, offers, talked.get(&id).copied());
            match known.replace(now) {
                // First read: the page read the match a moment ago, and a
                // move or a rematch offer may have come between. Its stream
                // drops a seq it has already said; an offer or a message
                // standing costs the page one needless look.
                None => {
                    self.tell(Change::Moved {
                        match_id: id,
                        seq: Some(seq),
                    });
                    if offers > 0 || now.2.is_some() {
                        self.tell(Change::Moved {
                            match_id: id,
                            seq: None,
                        });
                    }
                }
                Some((was, _, _)) if was != seq => self.tell(Change::Moved {
                    match_id: id,
                    seq: Some(seq),
                }),
                Some((_, asked, _)) if asked != offers => self.tell(Change::Moved {
                    match_id: id,
                    seq: None,
                }),
                Some((_, _, said)) if said != now.2 => talked_since.push((id, said.unwrap_or(0))),
                Some(_) => {}
            }
        }
        // Which channels spoke, read with the watched matches let go.
        drop(watched);
        for (id, since) in talked_since {
            for team in crate::talk::messages::channels_after(conn, id, since)? {
                self.tell(Change::Talked { match_id: id, team });
            }
        }
        Ok(())
    }

    fn tell(&self, change: Change) {
        // No page open anywhere is no error.
        let _ = self.changes.send(change);
    }
}

fn watch(live: &Weak<Live>, url: &str) {
    let mut lost = false;
    while live.strong_count() > 0 {
        match connect(url) {
            Ok(mut conn) => {
                if let Some(live) = live.upgrade() {
                    live.reading.store(true, Ordering::Relaxed);
                    if lost {
                        live.tell(Change::Resync);
                    }
                }
                while let Some(live) = live.upgrade() {
                    if let Err(e) = live.read(&mut conn) {
                        log::warn!("live match pages: reading the watched matches failed: {e}");
                        live.reading.store(false, Ordering::Relaxed);
                        break;
                    }
                    drop(live);
                    std::thread::sleep(POLL);
                }
            }
            Err(e) => log::warn!("live match pages: cannot connect: {e}"),
        }
        lost = true;
        std::thread::sleep(RETRY);
    }
}

fn connect(url: &str) -> Result<PgConnection, String> {
    let mut conn = PgConnection::establish(url).map_err(|e| e.to_string())?;
    // Named, for an operator reading pg_stat_activity (and the tests).
    diesel::sql_query("SET application_name = 'posthorn-live'")
        .execute(&mut conn)
        .map_err(|e| e.to_string())?;
    Ok(conn)
}
