//! The computer's move, as a job (`job_queue`): read the match, decide
//! from the computer seat's own view off the database threads, then act
//! through the same use case as a person (`matches::play::act`) with the
//! seq the decision was made at. A stale job (the match moved on) does
//! nothing: the append that moved it queued its own job if a computer
//! still owes a duty. A crash before the append loses nothing (the lease
//! runs out and the job is taken again); a crash after it cannot move
//! twice (the repeat meets a newer seq). An engine that fails, or whose
//! action the rules refuse, or that panics, is replaced by a random legal
//! move (`engine::fallback`) so the person is never left waiting on a
//! computer; the failure is logged for the engineers. A job that still
//! fails every attempt (the database away for minutes) is revived
//! ([`super::revive`]) while its match waits on it.

use super::{owing, player_id};
use crate::db::Pool;
use crate::dice::{Dice, Roller};
use crate::error::Error;
use crate::job_queue::{Job, Work};
use crate::matches::play::{self, ActionRequest};
use crate::matches::Table;
use chrono::{DateTime, Utc};
use posthorn_rules::engine::{self, Level};
use posthorn_rules::{GameId, Random, RuleError, Seat, Viewer};
use serde_json::Value;
use std::sync::Arc;
use uuid::Uuid;

/// How a computer decides: `engine::decide`'s signature (a seat's view
/// in, an action out).
pub type Engine = fn(GameId, &Value, Seat, Level, &mut dyn Random) -> Result<Value, RuleError>;

/// Plays computer moves; its chance is the service's dice.
pub struct Mover {
    pub dice: Arc<dyn Dice>,
    /// The rules crate's engines; a test may hand in a broken one.
    pub engine: Engine,
}

impl Mover {
    pub fn new(dice: Arc<dyn Dice>) -> Mover {
        Mover {
            dice,
            engine: engine::decide,
        }
    }
}

impl Work for Mover {
    fn kind(&self) -> &'static str {
        super::MOVE_JOB
    }

    fn run(&self, pool: &Pool, job: &Job, now: DateTime<Utc>) -> Result<(), String> {
        let id: Uuid = serde_json::from_value(job.payload["match_id"].clone())
            .map_err(|e| format!("a computer move job without its match: {e}"))?;
        let seq = job.payload["seq"].as_i64().unwrap_or(-1) as i32;
        let mut random = Roller(self.dice.clone());
        let read = crate::db::transaction(pool, |c| {
            let Some(mut table) = Table::load(c, id, false)? else {
                return Ok(None);
            };
            if table.row.seq == seq && play::window_closed(&table, now) {
                // §F8: a "last card" window closed while the job waited.
                // Closing it is the next fact (the act would close it
                // first and refuse a call or catch decided on it open);
                // its append queues the computer's next job.
                if let Some(mut locked) = Table::load(c, id, true)? {
                    play::resolve_expired(c, &mut locked, now, &mut random)?;
                }
                return Ok(None);
            }
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
        let act = |action: Value, random: &mut Roller| {
            let request = ActionRequest {
                seq,
                seat: Some(seat.0),
                action,
            };
            crate::db::transaction(pool, |c| {
                let actor = play::Actor::not_asking(player_id(level));
                play::act(c, id, actor, request, None, now, random)
            })
        };
        let game = table.game.id();
        if super::people_in(&table).is_empty() {
            // Nobody is left to play for (a four-player table whose people
            // are out, §Q9): the computers resign in turn and the match
            // ends now, instead of searching up to §Q6's 1,000 plies for
            // nobody (docs/abuse.md, "Engine time").
            return settled(act(serde_json::json!({"type": "resign"}), &mut random));
        }
        // A panicking engine is a failed engine: the random legal move
        // below stands in for it, rather than a failed attempt that could
        // leave the person waiting (docs/bots.md, "In the service").
        let started = std::time::Instant::now();
        let decided = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            (self.engine)(table.game, &view, seat, level, &mut random)
        }));
        // Charged whatever became of the move: the time was spent.
        super::budget::charge_since(pool, job.owner, started, now);
        let acted = match decided {
            Ok(Ok(action)) => match act(action, &mut random) {
                Err(Error::Rule(refused)) => Err(format!("the rules refused it: {refused}")),
                other => Ok(other),
            },
            Ok(Err(e)) => Err(format!("it failed: {e}")),
            Err(_) => Err("it panicked".to_owned()),
        };
        let acted = match acted {
            Ok(acted) => acted,
            Err(why) => {
                log::error!("the {game} engine's move in match {id} at seq {seq}: {why}; a random legal move instead");
                let legal = table.state.legal_actions(seat);
                let Some(action) = engine::fallback(&legal, &mut random) else {
                    return Err(format!(
                        "no legal action for the {game} computer at seq {seq}"
                    ));
                };
                act(action, &mut random)
            }
        };
        settled(acted)
    }
}

/// The job's end once its act is done: a stale seq means the match went
/// on (the append that moved it queued its own job).
fn settled(acted: Result<play::Acted, Error>) -> Result<(), String> {
    match acted {
        Ok(acted) => {
            acted.snapshot.remember();
            Ok(())
        }
        Err(Error::StaleSeq(_)) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}
