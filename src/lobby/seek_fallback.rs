//! A seek that finds nobody plays the computer (docs/bots.md, the FlipChess
//! page: "a casual seek that finds nobody is played against a bot"). A
//! seek posted with `bot_after_seconds` queues a job due then
//! (`seeks::queue_fallback`); if the seek
//! still waits when it runs, it is paired with computers at the level
//! nearest the seeker's rating, in a match that says so in its seats.

use super::computers::ComputerSeat;
use super::create::{self, Ask};
use super::seeks::{new_match, SeekRow, FALLBACK_JOB};
use crate::db::Pool;
use crate::dice::{Dice, Roller};
use crate::error::Error;
use crate::job_queue::{Job, Work};
use crate::notify::outbox::Enqueue;
use crate::schema::seeks;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::engine::Level;
use std::sync::Arc;
use uuid::Uuid;

/// The level whose displayed rating is nearest `rating`.
pub fn level_for(rating: i32) -> Level {
    Level::ALL
        .into_iter()
        .min_by_key(|l| (i64::from(rating) - i64::from(l.rating())).abs())
        .unwrap_or(Level::Normal)
}

/// Runs the fallbacks: what a match needs of the service's settings.
pub struct Fallback {
    pub dice: Arc<dyn Dice>,
    pub min_turn_seconds: i64,
    pub public_url: String,
}

impl Work for Fallback {
    fn kind(&self) -> &'static str {
        FALLBACK_JOB
    }

    fn run(&self, pool: &Pool, job: &Job, now: DateTime<Utc>) -> Result<(), String> {
        let id: Uuid = serde_json::from_value(job.payload["seek_id"].clone())
            .map_err(|e| format!("a seek fallback without its seek: {e}"))?;
        let mut random = Roller(self.dice.clone());
        crate::db::transaction(pool, |c| self.pair(c, id, now, &mut random))
            .map_err(|e| e.to_string())
    }
}

impl Fallback {
    /// Pair seek `id` with computers if it still waits; else nothing.
    fn pair(
        &self,
        conn: &mut PgConnection,
        id: Uuid,
        now: DateTime<Utc>,
        random: &mut Roller,
    ) -> Result<(), Error> {
        let waiting: Option<SeekRow> = seeks::table
            .find(id)
            .filter(seeks::paired_at.is_null())
            .filter(seeks::expires_at.gt(now))
            .select(SeekRow::as_select())
            .for_update()
            .first(conn)
            .optional()?;
        let Some(seek) = waiting else {
            return Ok(());
        };
        let level = level_for(seek.rating);
        let computers = (1..seek.players)
            .map(|_| ComputerSeat {
                level: level.id().to_owned(),
                seat: None,
            })
            .collect();
        let wanted = create::NewMatch {
            turn_hours: None,
            rated: None,
            computers: Some(computers),
            ..new_match(&seek)
        };
        let ask = Ask::new(seek.user_id, self.min_turn_seconds, &self.public_url, now);
        let started = create::create(conn, &ask, wanted, random)?;
        let told =
            crate::notices::seek_met_computer(seek.user_id, started.seq, &started.game, level.id());
        Enqueue::new(started.id, vec![told], now).execute(conn)?;
        diesel::update(seeks::table.find(id))
            .set((seeks::match_id.eq(started.id), seeks::paired_at.eq(now)))
            .execute(conn)?;
        Ok(())
    }
}
