//! The computer's move, as a job (`job_queue`): read the match, decide
//! from the computer seat's own view off the database threads, then act
//! through the same use case as a person (`matches::play::act`) with the
//! seq the decision was made at. A stale job (the match moved on) does
//! nothing: the append that moved it queued its own job if a computer
//! still owes a duty. A crash before the append loses nothing (the lease
//! runs out and the job is taken again); a crash after it cannot move
//! twice (the repeat meets a newer seq).

use super::{owing, player_id};
use crate::db::Pool;
use crate::dice::{Dice, Roller};
use crate::error::Error;
use crate::job_queue::{Job, Work};
use crate::matches::play::{self, ActionRequest};
use crate::matches::Table;
use chrono::{DateTime, Utc};
use posthorn_rules::{engine, Viewer};
use std::sync::Arc;
use uuid::Uuid;

/// Plays computer moves; its chance is the service's dice.
pub struct Mover {
    pub dice: Arc<dyn Dice>,
}

impl Work for Mover {
    fn kind(&self) -> &'static str {
        super::MOVE_JOB
    }

    fn run(&self, pool: &Pool, job: &Job, now: DateTime<Utc>) -> Result<(), String> {
        let id: Uuid = serde_json::from_value(job.payload["match_id"].clone())
            .map_err(|e| format!("a computer move job without its match: {e}"))?;
        let seq = job.payload["seq"].as_i64().unwrap_or(-1) as i32;
        let read = crate::db::transaction(pool, |c| {
            let Some(mut table) = Table::load(c, id, false)? else {
                return Ok(None);
            };
            table.seat_players(c)?;
            Ok(Some(table))
        });
        let Some(table) = read
            .map_err(|e| e.to_string())?
            .filter(|t| t.row.seq == seq)
        else {
            return Ok(());
        };
        let Some(&(seat, level)) = owing(&table).first() else {
            return Ok(());
        };
        let view = table.state.view(Viewer::Seat(seat));
        let mut random = Roller(self.dice.clone());
        let action = engine::decide(table.game, &view, seat, level, &mut random)
            .map_err(|e| format!("the {} engine refused: {e}", table.game.id()))?;
        let request = ActionRequest {
            seq,
            seat: Some(seat.0),
            action,
        };
        let acted = crate::db::transaction(pool, |c| {
            play::act(c, id, player_id(level), request, None, now, &mut random)
        });
        match acted {
            Ok((_, snapshot)) => {
                snapshot.remember();
                Ok(())
            }
            Err(Error::StaleSeq(_)) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    }
}
