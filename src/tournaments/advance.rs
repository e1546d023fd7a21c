//! What moves a tournament on (docs/tournaments.md), through the jobs table so it
//! happens once whatever the number of instances:
//!
//! * [`Ended`], a reaction: when a tournament's match ends, a job to
//!   advance the tournament is queued in the append's transaction, keyed
//!   by the match (queued once; a crash loses nothing).
//! * [`Advancer`], that job's worker: under the tournament's row lock it
//!   derives the bracket (or the round robin's progress) from the matches
//!   and lays out what is due and not yet laid out, or finishes the
//!   tournament. A second job for the same tournament, on any instance,
//!   waits for the lock and then finds nothing left to do; the unique
//!   (tournament, round, slot, game) key is the backstop.
//! * [`Starter`]: a tournament with a start time starts then, if enough
//!   players have joined (otherwise as soon as enough have).

use super::{Format, Status, TournamentRow};
use crate::db::Pool;
use crate::dice::{Dice, Roller};
use crate::error::Error;
use crate::job_queue::{Job, Work};
use crate::matches::reactions::{Appended, Reaction};
use crate::matches::Table;
use crate::notices::TournamentNews;
use crate::notify::outbox::Notice;
use crate::schema::tournaments;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use std::sync::Arc;
use uuid::Uuid;

pub const ADVANCE_JOB: &str = "tournament.advance";
pub const START_JOB: &str = "tournament.start";

/// A tournament's match ended: queue the tournament's advance.
pub struct Ended;

impl Reaction for Ended {
    fn react(
        &self,
        conn: &mut PgConnection,
        table: &mut Table,
        appended: &Appended,
    ) -> Result<Vec<Notice>, Error> {
        let ended = appended.ended(&table.row);
        if let (true, Some(id)) = (ended, table.row.tournament_id) {
            super::queue_advance(conn, id, &table.row.id.to_string(), appended.now)?;
        }
        Ok(Vec::new())
    }
}

fn tournament_of(job: &Job) -> Result<Uuid, String> {
    serde_json::from_value(job.payload["tournament_id"].clone())
        .map_err(|e| format!("a tournament job without its tournament: {e}"))
}

/// Advances tournaments; its chance is the service's dice (the draw of a
/// new match's opening).
pub struct Advancer {
    pub dice: Arc<dyn Dice>,
}

impl Work for Advancer {
    fn kind(&self) -> &'static str {
        ADVANCE_JOB
    }

    fn run(&self, pool: &Pool, job: &Job, now: DateTime<Utc>) -> Result<(), String> {
        let id = tournament_of(job)?;
        let mut random = Roller(self.dice.clone());
        crate::db::transaction(pool, |c| advance(c, id, now, &mut random))
            .map_err(|e| e.to_string())
    }
}

/// Lay out what is due in tournament `id`, or finish it.
pub fn advance(
    conn: &mut PgConnection,
    id: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn posthorn_rules::Random,
) -> Result<(), Error> {
    let row = super::load(conn, id, true)?;
    if row.status != Status::Active {
        return Ok(());
    }
    let progress = super::read::progress(conn, &row)?;
    if row.format()? == Format::Knockout {
        let laid: Vec<(i32, i32, i32)> = (progress.games.iter())
            .map(|g| (g.pairing.round, g.pairing.slot, g.pairing.game_no))
            .collect();
        for due in &progress.bracket.due {
            let key = (due.round as i32, due.slot as i32, due.game_no as i32);
            if laid.contains(&key) {
                continue;
            }
            super::start::lay_pairing(conn, &row, due, now, random)?;
            // A new round is announced; a replay is a match like any other.
            if due.game_no == 0 && due.round > 1 {
                let players = [due.first, due.second];
                let round = TournamentNews::Round(due.round as i32);
                super::tell(conn, &row, &players, round, now)?;
            }
        }
        if progress.bracket.champion.is_some() {
            finish(conn, &row, &progress, now)?;
        }
    } else if progress.games.iter().all(|g| g.first_scored.is_some()) {
        finish(conn, &row, &progress, now)?;
    }
    Ok(())
}

/// The tournament is over: mark it and tell everyone who played the
/// final standings (the top three, or the champion of a knockout).
fn finish(
    conn: &mut PgConnection,
    row: &TournamentRow,
    progress: &super::read::Progress,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    diesel::update(tournaments::table.find(row.id))
        .set((
            tournaments::status.eq(Status::Finished),
            tournaments::finished_at.eq(now),
        ))
        .execute(conn)?;
    let name = |u: &Uuid| super::read::name_of(&progress.players, u);
    let standings = match progress.bracket.champion {
        Some(champion) if row.format()? == Format::Knockout => format!("🏆 {}", name(&champion)),
        _ => (progress.standings.iter().take(3))
            .map(|l| format!("{}. {} {}", l.place, name(&l.user), l.points))
            .collect::<Vec<_>>()
            .join(" · "),
    };
    // §R2: the podium's coins, in the finish's transaction (a knockout
    // places its champion alone).
    let places: Vec<(Uuid, usize)> = match progress.bracket.champion {
        Some(champion) if row.format()? == Format::Knockout => vec![(champion, 1)],
        _ => (progress.standings.iter())
            .map(|l| (l.user, l.place as usize))
            .collect(),
    };
    crate::coins::award::podium(conn, row.id, &places, progress.players.len(), now)?;
    let news = TournamentNews::Finished { standings };
    super::tell(conn, row, &progress.seeds, news, now)
}

/// Queue an advance, once an hour at most, for every started tournament
/// with no match in play: one whose last advance job failed for good (its
/// attempts spent on a database outage) would otherwise wait forever. An
/// advance with nothing to do changes nothing. Run by the deadline sweep.
pub fn requeue_idle(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    let idle: Vec<Uuid> = tournaments::table
        .filter(tournaments::status.eq(Status::Active))
        .filter(diesel::dsl::not(
            tournaments::id.eq_any(crate::matches::reads::tournaments_in_play()),
        ))
        .select(tournaments::id)
        .load(conn)?;
    let hour = now.format("%Y-%m-%dT%H").to_string();
    for id in &idle {
        super::queue_advance(conn, *id, &format!("idle:{hour}"), now)?;
    }
    Ok(idle.len())
}

/// Starts a tournament at its start time.
pub struct Starter {
    pub dice: Arc<dyn Dice>,
}

impl Work for Starter {
    fn kind(&self) -> &'static str {
        START_JOB
    }

    fn run(&self, pool: &Pool, job: &Job, now: DateTime<Utc>) -> Result<(), String> {
        let id = tournament_of(job)?;
        let mut random = Roller(self.dice.clone());
        crate::db::transaction(pool, |c| {
            let row = super::load(c, id, true)?;
            if row.status == Status::Open && super::start::ready(c, &row)? {
                super::start::start_if_apart(c, &row, now, &mut random)?;
            }
            Ok(())
        })
        .map_err(|e| e.to_string())
    }
}
