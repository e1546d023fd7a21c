//! A finished match's analysis (issue #69, docs/analysis.md). One of its
//! players asks; the engines judge every play (the rules'
//! `engine::analysis`) a few plays a job ([`CHUNK`]), in the review lane,
//! which the hard searches' threads take when no computer reply is due,
//! so a reply waits at most one chunk; charged to the asker's engine
//! time; the result is kept, one per match.
//!
//! Who sees what (§H3–§H5): the match's players see the whole analysis;
//! anyone else who may read the match sees the plays judged from what a
//! spectator sees too, and the players' figures only when every play was
//! (a FlipChess judgement reads its mover's hand: players only).

use crate::db::Pool;
use crate::error::Error;
use crate::job_queue::{Job, Lane, Queued, Work};
use crate::matches::{MatchStatus, Table};
use crate::schema::analyses;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::engine::analysis::{summed, Effort, Judged, Ply};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// The kind of job that analyses a match.
pub const ANALYSIS_JOB: &str = "computer.analysis";

/// A match's analysis as one reader may see it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct AnalysisView {
    /// `none` until one of the players asks, `queued` while the engines
    /// work, `done` once they have; `failed` when they could not (asked
    /// again, it begins again).
    pub status: String,
    /// The rules' analysis, once done: each judged play (`seq` the event's
    /// in the match's log; `before`/`after` the mover's winning chance in
    /// per mille with the best move and with the move played; `best` the
    /// engines' move; `judgement` `inaccuracy`, `mistake` or `blunder`),
    /// and each seat's accuracy and counts.
    #[schema(value_type = Option<Object>)]
    pub analysis: Option<Value>,
    /// Whether some of it is the players' only and left out for this
    /// reader (§H5: judged from a hand they could not see).
    pub withheld: bool,
}

/// `user`, a player of finished match `id`, asks for its analysis: queued
/// once per match (asked again, the same one is answered; one whose jobs
/// failed for good is begun again). Whether it was (re)queued, and the
/// analysis as it stands.
pub fn ask(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<(bool, AnalysisView), Error> {
    let table = Table::load_mine(conn, id, user, false)?;
    if !table.seats.contains(&Some(user)) {
        return Err(Error::forbidden(
            "only the match's players ask for its analysis",
        ));
    }
    if table.row.status != MatchStatus::Finished {
        return Err(Error::conflict("a match is analysed once it is over"));
    }
    let added = diesel::insert_into(analyses::table)
        .values((analyses::match_id.eq(id), analyses::requested_at.eq(now)))
        .on_conflict_do_nothing()
        .execute(conn)?
        == 1;
    let failed = match added {
        true => None,
        false => failed_job(conn, id)?,
    };
    let again = failed.is_some();
    if let Some(failed) = failed {
        // Its failed job goes, so the new first chunk is queued under
        // a key of its own.
        crate::job_queue::forget_failed(conn, &failed)?;
        diesel::update(analyses::table.find(id))
            .set((
                analyses::requested_at.eq(now),
                analyses::judged_to.eq(0),
                analyses::plies.eq(serde_json::json!([])),
            ))
            .execute(conn)?;
    }
    if added || again {
        queue_from(conn, id, now, 0, Some(user), now)?;
    }
    Ok((added || again, shown(conn, &table, user)?))
}

/// The job that judges match `id`'s plays from `from` on, for `owner`;
/// its key names the asking (`requested_at`) and where it starts, so each
/// chunk is queued once.
fn queue_from(
    conn: &mut PgConnection,
    id: Uuid,
    requested_at: DateTime<Utc>,
    from: i32,
    owner: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let work = Queued {
        kind: ANALYSIS_JOB,
        key: &key(id, requested_at, from),
        payload: serde_json::json!({ "match_id": id, "from": from }),
        lane: Lane::Review,
        owner,
    };
    crate::job_queue::enqueue_work(conn, work, now, now)?;
    Ok(())
}

fn key(id: Uuid, requested_at: DateTime<Utc>, from: i32) -> String {
    format!(
        "{ANALYSIS_JOB}:{id}:{}:{from}",
        requested_at.timestamp_micros()
    )
}

/// The key of match `id`'s next analysis job when it failed every attempt
/// (the database away for minutes, an engine that panics) and the
/// analysis is unfinished.
fn failed_job(conn: &mut PgConnection, id: Uuid) -> Result<Option<String>, Error> {
    let (requested_at, judged_to, done): (DateTime<Utc>, i32, Option<DateTime<Utc>>) =
        analyses::table
            .find(id)
            .select((
                analyses::requested_at,
                analyses::judged_to,
                analyses::done_at,
            ))
            .first(conn)?;
    let next = key(id, requested_at, judged_to);
    let failed = done.is_none() && crate::job_queue::has_failed(conn, &next)?;
    Ok(failed.then_some(next))
}

/// Match `id`'s analysis as `user` may see it (`none` when nobody asked).
pub fn read(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<AnalysisView, Error> {
    let table = Table::load_mine(conn, id, user, false)?;
    shown(conn, &table, user)
}

fn shown(conn: &mut PgConnection, table: &Table, user: Uuid) -> Result<AnalysisView, Error> {
    read_as(conn, table, table.seats.contains(&Some(user)))
}

/// `table`'s analysis for one of its players (`whole`) or anyone else
/// (a share link's reader, §H4, §H5).
pub fn read_as(conn: &mut PgConnection, table: &Table, whole: bool) -> Result<AnalysisView, Error> {
    let asked: Option<Option<Value>> = analyses::table
        .find(table.row.id)
        .select(analyses::result)
        .first(conn)
        .optional()?;
    let waiting = |status: &str| AnalysisView {
        status: status.into(),
        analysis: None,
        withheld: false,
    };
    let result = match asked {
        None => return Ok(waiting("none")),
        Some(None) if failed_job(conn, table.row.id)?.is_some() => return Ok(waiting("failed")),
        Some(None) => return Ok(waiting("queued")),
        Some(Some(result)) => result,
    };
    let (analysis, withheld) = if whole {
        (result, false)
    } else {
        for_others(result)
    };
    Ok(AnalysisView {
        status: "done".into(),
        analysis: Some(analysis),
        withheld,
    })
}

/// §H4, §H5: what anyone but the players see: the plays judged from a
/// spectator's view alone, and the players' figures only when that is
/// every play.
fn for_others(mut analysis: Value) -> (Value, bool) {
    let Some(plies) = analysis["plies"].as_array_mut() else {
        return (analysis, false);
    };
    let before = plies.len();
    plies.retain(|p| p["public"] == true);
    let withheld = plies.len() < before;
    if withheld {
        analysis["players"] = Value::Array(Vec::new());
    }
    (analysis, withheld)
}

/// Analyses a match for the job's owner.
pub struct Analyst {
    pub effort: Effort,
}

/// The plays one job judges: a few seconds of a heavy-lane thread at the
/// service's effort (docs/benchmarks.md), after which a computer's reply
/// that came due meanwhile is taken first.
pub const CHUNK: usize = 4;

impl Work for Analyst {
    fn kind(&self) -> &'static str {
        ANALYSIS_JOB
    }

    /// Judge [`CHUNK`] plays from the payload's `from`, add them to the
    /// plays judged so far and queue the next chunk in the same
    /// transaction, fenced by `judged_to` (a repeated job changes
    /// nothing); after the last, write the analysis.
    fn run(&self, pool: &Pool, job: &Job, now: DateTime<Utc>) -> Result<(), String> {
        let id: Uuid = serde_json::from_value(job.payload["match_id"].clone())
            .map_err(|e| format!("an analysis job without its match: {e}"))?;
        let from = job.payload["from"].as_i64().unwrap_or(0) as i32;
        let read = crate::db::transaction(pool, |c| {
            let Some(table) = Table::load(c, id, false)? else {
                return Ok(None);
            };
            Ok(Some((
                table.game,
                crate::matches::fold::standing_log(c, id)?,
            )))
        });
        let Some((game, log)) = read.map_err(|e| e.to_string())? else {
            return Ok(());
        };
        let events: Vec<Value> = log.iter().map(|(_, body)| body.clone()).collect();
        let plays = from as usize..from as usize + CHUNK;
        let started = std::time::Instant::now();
        let judged =
            std::panic::catch_unwind(|| game.judge_plays(&events, self.effort, plays.clone()));
        super::budget::charge_since(pool, job.owner, started, now);
        let mut judged = match judged {
            Ok(Ok(judged)) => judged,
            Ok(Err(e)) => return Err(format!("the {} analysis failed: {e}", game.id())),
            Err(_) => return Err(format!("the {} analysis panicked", game.id())),
        };
        // The rules count a play by its place in the log; the service's
        // readers by the event's seq.
        for ply in &mut judged.plies {
            ply.seq = log.get(ply.seq - 1).map_or(0, |(seq, _)| *seq as usize);
        }
        let last = plays.end >= judged.plays;
        crate::db::transaction(pool, |c| {
            self.keep(c, id, from, &judged, last, job.owner, now)
        })
        .map_err(|e: Error| e.to_string())
    }
}

impl Analyst {
    /// Add a chunk's plies where the analysis stands at `from`; then the
    /// next chunk's job, or the analysis itself after the last.
    #[allow(clippy::too_many_arguments)]
    fn keep(
        &self,
        conn: &mut PgConnection,
        id: Uuid,
        from: i32,
        judged: &Judged,
        last: bool,
        owner: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<(), Error> {
        let new = serde_json::to_value(&judged.plies).map_err(Error::internal)?;
        let to = from + CHUNK as i32;
        let kept: Option<(DateTime<Utc>, Value)> = diesel::update(
            analyses::table
                .find(id)
                .filter(analyses::judged_to.eq(from))
                .filter(analyses::done_at.is_null()),
        )
        .set((
            analyses::judged_to.eq(to),
            analyses::plies.eq(diesel::dsl::sql::<diesel::sql_types::Jsonb>("plies || ")
                .bind::<diesel::sql_types::Jsonb, _>(new)),
        ))
        .returning((analyses::requested_at, analyses::plies))
        .get_result(conn)
        .optional()?;
        let Some((requested_at, plies)) = kept else {
            return Ok(()); // a repeat: this chunk was kept already
        };
        if !last {
            return queue_from(conn, id, requested_at, to, owner, now);
        }
        let plies: Vec<Ply> = serde_json::from_value(plies).map_err(Error::internal)?;
        let result = serde_json::to_value(summed(self.effort, plies)).map_err(Error::internal)?;
        diesel::update(analyses::table.find(id))
            .set((analyses::result.eq(result), analyses::done_at.eq(now)))
            .execute(conn)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §H5: a stranger gets the plays judged from a spectator's view, and
    /// the figures only when that is every play.
    #[test]
    fn a_stranger_sees_no_judgement_read_from_a_hand_h5() {
        let ply = |seq: u32, public: bool| serde_json::json!({"seq": seq, "public": public});
        let players = serde_json::json!([{"seat": 0, "accuracy": 80.0}]);
        let open = serde_json::json!({"plies": [ply(3, true), ply(4, true)], "players": players});
        assert_eq!(for_others(open.clone()), (open, false));
        let hand = serde_json::json!({"plies": [ply(3, true), ply(4, false)], "players": players});
        let (seen, withheld) = for_others(hand);
        assert!(withheld);
        assert_eq!(seen["plies"], serde_json::json!([ply(3, true)]));
        assert_eq!(seen["players"], serde_json::json!([]));
    }
}
