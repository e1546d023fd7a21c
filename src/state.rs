//! What every handler shares.

use crate::auth::Keys;
use crate::clock::Clock;
use crate::config::Config;
use crate::db::Pool;
use crate::metrics::Metrics;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub pool: Pool,
    /// The read-heavy paths' reads: a replica when configured
    /// (docs/operations.md, "The database: failover, replicas, backups").
    pub reads: crate::db::replica::Reads,
    pub config: Arc<Config>,
    pub clock: Arc<dyn Clock>,
    pub keys: Arc<Keys>,
    pub metrics: Arc<Metrics>,
    pub mailer: Arc<crate::notify::deliver::Mailer>,
    pub vapid: Arc<crate::notify::push::Vapid>,
    pub native: Arc<crate::notify::native::Native>,
    /// Game chance: seat draws, deals, layouts.
    pub dice: Arc<dyn crate::dice::Dice>,
    /// Sessions ended within an access token's lifetime (docs/abuse.md,
    /// "Sessions that end").
    pub revoked: Arc<crate::revoked::Revoked>,
    /// Google and Apple `id_token`s checked, their keys kept
    /// (docs/decisions/accounts-and-sessions.md, "Google and Apple").
    pub identities: Arc<crate::accounts::identities::verify::Verifier>,
    /// What the open match pages hear of their matches
    /// (docs/architecture.md, "Live match pages").
    pub live: Arc<crate::live::Live>,
    /// Set when the instance stops (docs/operations.md, "Stopping and
    /// rolling restarts").
    pub stopping: Arc<crate::stopping::Stopping>,
}

impl AppState {
    /// The narrow context of the outbox worker.
    pub fn courier(&self) -> crate::notify::Courier {
        crate::notify::Courier {
            pool: self.pool.clone(),
            clock: self.clock.clone(),
            mailer: self.mailer.clone(),
            vapid: self.vapid.clone(),
            native: self.native.clone(),
            badge: |conn, user| crate::summary::summary(conn, user).map(|s| s.badge),
            acted: crate::matches::reads::acted_after,
            board: |conn, id, user, seq| {
                crate::matches::replay::picture_at(conn, id, user, Some(seq))
            },
            turn_talk: &crate::talk::told::TURN_TALK,
            keys: self.keys.clone(),
            public_url: self.config.public_url.clone(),
            max_attempts: self.config.notify_max_attempts,
        }
    }

    /// A source of game chance for one use case.
    pub fn roller(&self) -> crate::dice::Roller {
        crate::dice::Roller(self.dice.clone())
    }

    /// What sessions are issued with, now, to `device`
    /// (`http::caller::device`).
    pub fn issuer(&self, device: String) -> crate::accounts::Issuer {
        crate::accounts::Issuer {
            keys: self.keys.clone(),
            now: self.clock.now(),
            access_seconds: self.config.access_token_seconds,
            refresh_days: self.config.refresh_token_days,
            reuse_seconds: self.config.refresh_reuse_seconds,
            device,
        }
    }
}
