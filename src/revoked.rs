//! Sessions that have ended (docs/decisions/accounts-and-sessions.md). An
//! access token is a JWT checked without the database, so on its own it
//! would work until it expires (15 minutes) after sign-out, a password
//! change or a stolen refresh token's family being revoked. Every instance
//! keeps the set of sessions (refresh-token families) revoked within an
//! access token's lifetime and refuses their tokens: its own revocations at
//! once, every other instance's within [`REFRESH_EVERY`], read by one small
//! indexed query (the set holds only the last few minutes' sign-outs).
//! Checking a request is one hash-set look-up under a read lock.

use crate::error::Error;
use chrono::{DateTime, Duration, Utc};
use diesel::PgConnection;
use std::collections::HashMap;
use std::sync::RwLock;
use uuid::Uuid;

/// How often each instance reads the sessions others ended.
pub const REFRESH_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

#[derive(Default)]
pub struct Revoked {
    /// Each ended session, with when it ended.
    ended: RwLock<HashMap<Uuid, DateTime<Utc>>>,
}

/// Sessions (refresh families) that ended, each with when (`None`: just
/// now).
pub type EndedSessions = Vec<(Uuid, Option<DateTime<Utc>>)>;

/// The sessions ended since a time.
pub type Ended = fn(&mut PgConnection, DateTime<Utc>) -> Result<EndedSessions, Error>;

impl Revoked {
    pub fn contains(&self, session: Uuid) -> bool {
        self.ended
            .read()
            .map(|set| set.contains_key(&session))
            .unwrap_or(true)
    }

    /// Sessions this instance ended (after their transaction committed).
    pub fn add(&self, sessions: &[Uuid], now: DateTime<Utc>) {
        if let Ok(mut set) = self.ended.write() {
            set.extend(sessions.iter().map(|s| (*s, now)));
        }
    }

    /// Read the sessions ended within an access token's lifetime (by any
    /// instance), and forget those whose tokens have all expired. Which
    /// ended since when is asked of `ended`, the sessions' owner's read
    /// (`accounts::sessions::ended_since`).
    pub fn refresh(
        &self,
        conn: &mut PgConnection,
        now: DateTime<Utc>,
        access_seconds: i64,
        ended: Ended,
    ) -> Result<usize, Error> {
        // A minute's margin for clocks that differ between instances.
        let since = now - Duration::seconds(access_seconds) - Duration::minutes(1);
        let found = ended(conn, since)?;
        let mut set = self
            .ended
            .write()
            .map_err(|_| Error::internal("the revoked sessions' lock is poisoned"))?;
        set.retain(|_, at| *at > since);
        for (family, at) in found {
            set.insert(family, at.unwrap_or(now));
        }
        Ok(set.len())
    }
}
