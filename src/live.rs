//! Live match pages (issue #49 item 8; docs/architecture.md, "Live match
//! pages").
//!
//! The database says when a match changed: a trigger (migration
//! `2026-12-06-000032_live_matches`) notifies `match_changed` with
//! "<match id> <seq>" when a match's seq, status or rematch moves, or a
//! rematch is asked for. Because NOTIFY is delivered at commit, a page
//! hears only of what stands, from every writer alike (an action, the
//! sweep, a takeback), with no writer having to remember to tell.
//!
//! Each instance keeps one connection listening, in a thread of its own,
//! and hands every notice to the streams of the pages open here
//! (`http::live`), each keeping those of its own match. A notice carries
//! no game content: the page re-reads its match through the API, which
//! shows each viewer only what they may see (§H1).
//!
//! The listening connection is read without blocking every [`POLL`] (diesel
//! offers no way to wait on its socket), and asked a question every
//! [`PROBE`] so that a lost server is noticed. When it is lost, the thread
//! connects again, then tells every page to look again ([`Change::Resync`]):
//! what changed in between was not heard. A page falls back to polling
//! while its stream is down, so a listener that cannot connect costs
//! latency, never a move.

use diesel::prelude::*;
use diesel::PgConnection;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;
use uuid::Uuid;

/// How often the listening connection is read: the most a notice waits.
const POLL: Duration = Duration::from_millis(20);
/// How often the listening connection is asked whether it still stands.
const PROBE: Duration = Duration::from_secs(15);
/// How long to wait before connecting again after a failure.
const RETRY: Duration = Duration::from_secs(1);
/// Notices a slow stream may fall behind before it is told to look again.
const BACKLOG: usize = 1024;

/// What a page open on a match hears.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The match changed; its seq now (unchanged for a rematch asked for).
    Moved { match_id: Uuid, seq: Option<i32> },
    /// Notices may have been missed: every page looks again.
    Resync,
}

/// The instance's one listener and the streams it feeds.
pub struct Live {
    changes: broadcast::Sender<Change>,
}

impl Live {
    /// Start listening on `database_url` (the primary) in a thread that
    /// ends when the returned `Live` is dropped.
    pub fn start(database_url: &str) -> Arc<Live> {
        let (changes, _) = broadcast::channel(BACKLOG);
        let live = Arc::new(Live { changes });
        let (weak, url) = (Arc::downgrade(&live), database_url.to_owned());
        let spawned = std::thread::Builder::new()
            .name("posthorn-live".into())
            .spawn(move || listen(&weak, &url));
        if let Err(e) = spawned {
            // Pages poll instead: slower, nothing lost.
            log::error!("live match pages are off: {e}");
        }
        live
    }

    /// Every change from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }
}

fn listen(live: &Weak<Live>, url: &str) {
    let mut lost = false;
    while live.strong_count() > 0 {
        match connect(url) {
            Ok(conn) => {
                if lost {
                    tell(live, Change::Resync);
                }
                hear(conn, live);
            }
            Err(e) => log::warn!("live match pages: cannot listen: {e}"),
        }
        lost = true;
        std::thread::sleep(RETRY);
    }
}

fn connect(url: &str) -> Result<PgConnection, diesel::result::Error> {
    let mut conn = PgConnection::establish(url).map_err(|e| {
        diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::ClosedConnection,
            Box::new(e.to_string()),
        )
    })?;
    // Named, for an operator reading pg_stat_activity (and the tests).
    diesel::sql_query("SET application_name = 'posthorn-live'").execute(&mut conn)?;
    diesel::sql_query("LISTEN match_changed").execute(&mut conn)?;
    Ok(conn)
}

/// Pass on what `conn` hears until it fails or nobody is left to tell.
fn hear(mut conn: PgConnection, live: &Weak<Live>) {
    let mut probed = Instant::now();
    while live.strong_count() > 0 {
        for notice in conn.notifications_iter() {
            match notice {
                Ok(n) => match parse(&n.payload) {
                    Some(change) => tell(live, change),
                    None => log::warn!("live match pages: a notice not understood: {}", n.payload),
                },
                Err(e) => return log::warn!("live match pages: the listener was lost: {e}"),
            }
        }
        if probed.elapsed() >= PROBE {
            if let Err(e) = diesel::sql_query("SELECT 1").execute(&mut conn) {
                return log::warn!("live match pages: the listener was lost: {e}");
            }
            probed = Instant::now();
        }
        std::thread::sleep(POLL);
    }
}

fn tell(live: &Weak<Live>, change: Change) {
    if let Some(live) = live.upgrade() {
        // No page open anywhere is no error.
        let _ = live.changes.send(change);
    }
}

/// "<match id> <seq>", the seq -1 for "unchanged".
fn parse(payload: &str) -> Option<Change> {
    let (id, seq) = payload.split_once(' ')?;
    let seq: i32 = seq.parse().ok()?;
    Some(Change::Moved {
        match_id: id.parse().ok()?,
        seq: (seq >= 0).then_some(seq),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_names_its_match_and_seq() {
        let id = Uuid::new_v4();
        assert_eq!(
            parse(&format!("{id} 12")),
            Some(Change::Moved {
                match_id: id,
                seq: Some(12)
            })
        );
        assert_eq!(
            parse(&format!("{id} -1")),
            Some(Change::Moved {
                match_id: id,
                seq: None
            })
        );
        assert_eq!(parse("not-a-uuid 3"), None);
        assert_eq!(parse(&id.to_string()), None);
    }
}
