//! Live match pages (docs/architecture.md, "Live match pages").
//!
//! Each instance keeps the matches its open pages watch, and one thread
//! with a connection of its own asks the database where they stand every
//! [`POLL`]: one indexed read of their seqs, rematch offers and last
//! messages (docs/decisions/table-talk.md), however many pages watch. A
//! change goes to the streams of the pages open here (`http::live`), each
//! keeping those of its own match. Whichever instance made the change,
//! every instance sees it, since each reads the database.
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
    /// The instance is stopping (docs/operations.md, "Stopping and rolling
    /// restarts"): every stream ends, and its page opens another through
    /// the proxy, on an instance that stays.
    Closing,
}

/// Where a watched match stood when last read: its seq, its rematch
/// offers and its last message (docs/decisions/table-talk.md: a message is
/// no event).
type Stand = (i32, i64, Option<i64>);

/// The instance's watched matches and the streams they feed.
pub struct Live {
    changes: broadcast::Sender<Change>,
    /// Who holds the open streams, as their caps count them.
    book: Mutex<Book>,
    /// Streams this instance holds at most (from its open-file limit).
    most: usize,
    /// Each watched match: how many pages watch it, where it stood.
    watched: Mutex<HashMap<Uuid, (usize, Option<Stand>)>>,
    /// Whether the reading connection stands: while it does not, a page
    /// is refused a stream and polls by itself.
    reading: AtomicBool,
    /// Set for good when the instance stops.
    closed: AtomicBool,
}

/// Streams one session holds: a third opened displaces the oldest, which
/// hears `displaced` and polls instead (docs/operations.md, "Open files and
/// live streams"), so open tabs do not bounce each other and nobody holds
/// streams by the hundred.
pub const PER_SESSION: usize = 2;
/// Streams one account holds on an instance: a family's phones and a
/// laptop, each on two boards.
pub const PER_ACCOUNT: usize = 8;
/// Streams one address (an IPv4 address or an IPv6 /64) holds: a café or
/// a school behind one NAT, some forty players on their boards.
pub const PER_ADDRESS: usize = 64;
/// Streams one IPv6 /48 holds.
pub const PER_BLOCK: usize = 256;

/// What one instance holds below its open-file limit (docs/operations.md
/// "Open files and live streams"): every client connection and every live
/// stream is a descriptor, so without caps a crowd of streams takes the
/// last descriptor and the instance stops accepting anyone, health checks
/// and sign-ins included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacity {
    /// The process's open-file limit (`ulimit -n`, soft).
    pub files: u64,
    /// Client connections accepted at once (the listener waits past it).
    pub connections: usize,
    /// Live streams open at once: fewer than connections, so that a
    /// sign-in, a move or a health check always finds one.
    pub streams: usize,
}

impl Capacity {
    /// Descriptors kept for everything but clients: the listener, logs,
    /// the live reader, mail and push connections, and the pools.
    const KEPT: u64 = 96;
    /// Connections kept for requests that are not streams.
    const OTHER_REQUESTS: usize = 64;

    /// The capacity under `files` open files, with database pools of
    /// `pool` connections (a primary's and maybe a replica's).
    pub fn of(files: u64, pool: u32) -> Capacity {
        let spare = files.saturating_sub(Self::KEPT + 2 * u64::from(pool));
        let connections = usize::try_from(spare).unwrap_or(usize::MAX).max(32);
        Capacity {
            files,
            connections,
            streams: connections.saturating_sub(Self::OTHER_REQUESTS).max(1),
        }
    }

    /// This process's capacity.
    pub fn here(pool: u32) -> Capacity {
        Self::of(open_file_limit(), pool)
    }
}

/// The soft limit on this process's open files.
pub fn open_file_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes only the struct it is given.
    #[allow(unsafe_code)]
    let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    if read == 0 {
        limit.rlim_cur
    } else {
        1024
    }
}

/// Who opens a stream, as its caps count it.
#[derive(Clone, Debug)]
pub struct Watcher {
    pub session: Uuid,
    pub user: Uuid,
    pub origin: crate::limits::Origin,
}

/// Why a stream was refused: the rule, as `/metrics` labels it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    Account,
    Address,
    Block,
    /// The instance holds all the streams its open files allow: the page
    /// polls (503), as when changes are not being read.
    Instance,
}

impl Refusal {
    pub const ALL: [Refusal; 4] = [
        Refusal::Account,
        Refusal::Address,
        Refusal::Block,
        Refusal::Instance,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Refusal::Account => "account",
            Refusal::Address => "address",
            Refusal::Block => "block",
            Refusal::Instance => "instance",
        }
    }
}

/// Streams displaced, and refused by rule (in [`Refusal::ALL`]'s order),
/// on this instance.
static DISPLACED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static REFUSED: [std::sync::atomic::AtomicU64; 4] =
    [const { std::sync::atomic::AtomicU64::new(0) }; 4];

/// The open streams of this instance, counted by their holders.
#[derive(Default)]
struct Book {
    next: u64,
    total: usize,
    /// Each session's streams, oldest first, each with its displacement.
    sessions: HashMap<Uuid, std::collections::VecDeque<(u64, tokio::sync::oneshot::Sender<()>)>>,
    accounts: HashMap<Uuid, usize>,
    addresses: HashMap<String, usize>,
    blocks: HashMap<String, usize>,
}

fn count_up<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: K) {
    *map.entry(key).or_default() += 1;
}

fn count_down<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: &K) {
    if let Some(n) = map.get_mut(key) {
        *n -= 1;
        if *n == 0 {
            map.remove(key);
        }
    }
}

/// An open stream's place in the book, given back when dropped.
pub struct Pass {
    live: Arc<Live>,
    id: u64,
    watcher: Watcher,
    /// Fires when a newer stream of the same session displaced this one.
    pub displaced: tokio::sync::oneshot::Receiver<()>,
}

impl Drop for Pass {
    fn drop(&mut self) {
        let mut book = self.live.book.lock().unwrap_or_else(|e| e.into_inner());
        let w = &self.watcher;
        let Some(streams) = book.sessions.get_mut(&w.session) else {
            return;
        };
        let before = streams.len();
        streams.retain(|(id, _)| *id != self.id);
        // Not there: displaced, and its place already given to the newer
        // stream (`admit`).
        if streams.len() == before {
            return;
        }
        if streams.is_empty() {
            book.sessions.remove(&w.session);
        }
        book.release(w);
    }
}

impl Book {
    /// Give back one stream's place in every count but its session's.
    fn release(&mut self, w: &Watcher) {
        self.total -= 1;
        count_down(&mut self.accounts, &w.user);
        count_down(&mut self.addresses, &w.origin.address);
        if let Some(block) = &w.origin.block {
            count_down(&mut self.blocks, block);
        }
    }
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
    /// returned `Live` is dropped; at most `most` streams at once.
    pub fn start(database_url: &str, most: usize) -> Arc<Live> {
        let (changes, _) = broadcast::channel(BACKLOG);
        let live = Arc::new(Live {
            changes,
            book: Mutex::new(Book::default()),
            most,
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

    /// A place for one more stream of `watcher`'s, or the rule that
    /// refuses it. When the session holds [`PER_SESSION`] already, its
    /// oldest is displaced (and counts no more towards the caps here).
    pub fn admit(self: &Arc<Self>, watcher: Watcher) -> Result<Pass, Refusal> {
        let mut book = self.book.lock().unwrap_or_else(|e| e.into_inner());
        let held = book.sessions.get(&watcher.session).map_or(0, |s| s.len());
        // A stream displaced leaves its place to the new one.
        let added = usize::from(held < PER_SESSION);
        let count = |map: &HashMap<String, usize>, key: &str| map.get(key).copied().unwrap_or(0);
        let refusal = if book.total + added > self.most {
            Some(Refusal::Instance)
        } else if book.accounts.get(&watcher.user).copied().unwrap_or(0) + added > PER_ACCOUNT {
            Some(Refusal::Account)
        } else if count(&book.addresses, &watcher.origin.address) + added > PER_ADDRESS {
            Some(Refusal::Address)
        } else if (watcher.origin.block.as_deref())
            .is_some_and(|b| count(&book.blocks, b) + added > PER_BLOCK)
        {
            Some(Refusal::Block)
        } else {
            None
        };
        if let Some(refusal) = refusal {
            REFUSED[refusal as usize].fetch_add(1, Ordering::Relaxed);
            return Err(refusal);
        }
        if held >= PER_SESSION {
            if let Some((_, oldest)) =
                (book.sessions.get_mut(&watcher.session)).and_then(|streams| streams.pop_front())
            {
                DISPLACED.fetch_add(1, Ordering::Relaxed);
                let _ = oldest.send(());
            }
            // Its place is the new one's: taken off the counts now, so
            // the book holds each stream once.
            book.release(&watcher);
        }
        book.next += 1;
        let id = book.next;
        let (tell, displaced) = tokio::sync::oneshot::channel();
        book.sessions
            .entry(watcher.session)
            .or_default()
            .push_back((id, tell));
        book.total += 1;
        count_up(&mut book.accounts, watcher.user);
        count_up(&mut book.addresses, watcher.origin.address.clone());
        if let Some(block) = &watcher.origin.block {
            count_up(&mut book.blocks, block.clone());
        }
        Ok(Pass {
            live: self.clone(),
            id,
            watcher,
            displaced,
        })
    }

    /// The streams' lines of `/metrics`: open, displaced, refused by rule.
    pub fn metrics(&self) -> String {
        use std::fmt::Write;
        let mut out = format!(
            "# TYPE posthorn_live_streams gauge\nposthorn_live_streams {}\n\
             # TYPE posthorn_live_streams_displaced_total counter\n\
             posthorn_live_streams_displaced_total {}\n\
             # TYPE posthorn_live_streams_refused_total counter\n",
            self.streams(),
            DISPLACED.load(Ordering::Relaxed)
        );
        for refusal in Refusal::ALL {
            let n = REFUSED[refusal as usize].load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "posthorn_live_streams_refused_total{{rule=\"{}\"}} {n}",
                refusal.name()
            );
        }
        out
    }

    /// Streams open on this instance now.
    pub fn streams(&self) -> usize {
        self.book.lock().unwrap_or_else(|e| e.into_inner()).total
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
        for reads::Stand {
            id,
            seq,
            rematch_offers: offers,
        } in stands
        {
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
