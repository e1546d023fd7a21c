//! First steps (docs/lessons.md): each game's lessons from the rules crate
//! (`posthorn_rules::lessons`), tried one action at a time and judged by
//! the rules, and the steps each account has completed — a guest's too,
//! whose account lives on their device.
//!
//! Nothing of an attempt is stored: the client sends the actions it has
//! played in the step so far, and the rules replay the step from its
//! setup. Only a completed step is written.

use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::lessons_done;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::lessons::{self, Attempt, Lesson, Verdict};
use posthorn_rules::{GameId, Viewer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;
use utoipa::ToSchema;
use uuid::Uuid;

/// One step as the student sees it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct StepView {
    /// The step's stable name (`colour`, `flip_window`): the client's
    /// words for it are keyed by it.
    pub key: String,
    /// How many actions the step takes.
    pub actions: usize,
    /// I have completed it before.
    pub done: bool,
}

/// A game's first steps and my progress through them.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct LessonsView {
    pub game: String,
    pub steps: Vec<StepView>,
}

/// `POST /v1/lessons/{game}/{step}/moves`'s answer: where the attempt
/// stands and the board as the student sees it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct TryView {
    pub game: String,
    pub step: String,
    /// `playing` (right so far), `done`, or `not_this_way` (the last
    /// action is legal but not what the step teaches: it was not played).
    pub verdict: String,
    /// How many of the actions sent were played.
    pub accepted: usize,
    /// The seat the student plays.
    pub seat: u8,
    /// The game's own view for that seat, after the accepted actions.
    #[schema(value_type = Object)]
    pub view: Value,
    /// The student's legal actions now (the rules' list without
    /// resigning or offers), what the board lets them tap.
    #[schema(value_type = Vec<Object>)]
    pub legal: Vec<Value>,
}

fn game_of(game: &str) -> Result<GameId, Error> {
    GameId::parse(game).ok_or(Error::not_found("game"))
}

fn lesson_of(game: GameId, key: &str) -> Result<Lesson, Error> {
    lessons::lessons(game)
        .into_iter()
        .find(|l| l.key == key)
        .ok_or(Error::not_found("step"))
}

fn done_steps(
    conn: &mut PgConnection,
    user: Uuid,
    game: GameId,
) -> Result<BTreeSet<String>, Error> {
    let done: Vec<String> = lessons_done::table
        .filter(lessons_done::user_id.eq(user))
        .filter(lessons_done::game.eq(game.id()))
        .select(lessons_done::step)
        .load(conn)?;
    Ok(done.into_iter().collect())
}

/// `game`'s steps, in order, each marked done where I completed it.
pub fn list(conn: &mut PgConnection, user: Uuid, game: &str) -> Result<LessonsView, Error> {
    let game = game_of(game)?;
    let done = done_steps(conn, user, game)?;
    Ok(listed(game, &done))
}

/// `game`'s steps for a visitor with no account: none done here (their
/// page keeps what they finished). No database is asked.
pub fn list_for_visitor(game: &str) -> Result<LessonsView, Error> {
    Ok(listed(game_of(game)?, &BTreeSet::new()))
}

fn listed(game: GameId, done: &BTreeSet<String>) -> LessonsView {
    let steps = lessons::lessons(game)
        .into_iter()
        .map(|l| StepView {
            key: l.key.to_owned(),
            actions: l.line.len(),
            done: done.contains(l.key),
        })
        .collect();
    LessonsView {
        game: game.id().to_owned(),
        steps,
    }
}

/// Judge a visitor's `actions` at `step`: as [`try_step`], and nothing is
/// written (no database is asked).
pub fn judge(game: &str, step: &str, actions: &[Value]) -> Result<TryView, Error> {
    let game = game_of(game)?;
    let lesson = lesson_of(game, step)?;
    let tried = lessons::attempt(game, &lesson, actions)?;
    Ok(shown(game, &lesson, tried))
}

/// Judge `actions`, my attempt at `step` so far; a completed step is
/// recorded as mine. An illegal action is the rules' error (422) and
/// records nothing.
pub fn try_step(
    conn: &mut PgConnection,
    user: Uuid,
    game: &str,
    step: &str,
    actions: &[Value],
    now: DateTime<Utc>,
) -> Result<TryView, Error> {
    let game = game_of(game)?;
    let lesson = lesson_of(game, step)?;
    let tried = lessons::attempt(game, &lesson, actions)?;
    if tried.verdict == Verdict::Done {
        diesel::insert_into(lessons_done::table)
            .values((
                lessons_done::user_id.eq(user),
                lessons_done::game.eq(game.id()),
                lessons_done::step.eq(lesson.key),
                lessons_done::done_at.eq(now),
            ))
            .on_conflict_do_nothing()
            .execute(conn)?;
    }
    Ok(shown(game, &lesson, tried))
}

fn shown(game: GameId, lesson: &Lesson, tried: Attempt) -> TryView {
    let verdict = match tried.verdict {
        Verdict::Playing => "playing",
        Verdict::Done => "done",
        Verdict::NotThisWay => "not_this_way",
    };
    let legal = match tried.verdict {
        Verdict::Done => Vec::new(),
        _ => lessons::offered(&tried.state, tried.student),
    };
    TryView {
        game: game.id().to_owned(),
        step: lesson.key.to_owned(),
        verdict: verdict.to_owned(),
        accepted: tried.accepted,
        seat: tried.student.0,
        view: tried.state.view(Viewer::Seat(tried.student)),
        legal,
    }
}

/// The steps a player completed go with the account.
pub const PERSONAL: Owner = Owner::erasing(
    "lessons",
    &["lessons_done"],
    forget,
    Exported::In(&["lessons"]),
);

/// A step I completed, for the export.
#[derive(Debug, Serialize, ToSchema, Queryable)]
pub struct ExportedStep {
    pub game: String,
    pub step: String,
    pub done_at: DateTime<Utc>,
}

/// Every step I completed, in the order I did.
pub fn export(conn: &mut PgConnection, user: Uuid) -> Result<Vec<ExportedStep>, Error> {
    Ok(lessons_done::table
        .filter(lessons_done::user_id.eq(user))
        .order((
            lessons_done::done_at,
            lessons_done::game,
            lessons_done::step,
        ))
        .select((
            lessons_done::game,
            lessons_done::step,
            lessons_done::done_at,
        ))
        .load(conn)?)
}

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(lessons_done::table.filter(lessons_done::user_id.eq(leaving.user)))
        .execute(conn)?;
    Ok(())
}
