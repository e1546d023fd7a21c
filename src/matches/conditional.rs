//! Conditional moves (docs/decisions/matches-and-deadlines.md): while it is
//! not my turn I may store lines — "if they play X, I reply Y (then if they
//! play Z, I reply W …)". When the opponent's action hands the turn to me,
//! the first line whose head matches it is played for me in the same
//! transaction, through the rules like any action of mine; lines that do
//! not match are dropped; a reply that is no longer legal drops the lines
//! and leaves the turn to me.
//!
//! What a condition may name, and why hidden information cannot be named:
//! a condition (`when`) is a pattern over the opponent's events **as I see
//! them** — the redacted form the event feed gives me — and matches when
//! one of those events has every key of the pattern with the same value
//! (objects compared key by key). A card played, a piece turned up and its
//! identity once revealed are in my view of the events; the opponent's
//! hand, the deck, a face-down piece are not, so a pattern naming them
//! never matches (§H1).
//!
//! Lines are their owner's alone: only `GET` by the owner returns them;
//! they are in no view, event, notice or error anyone else receives. Only
//! in games for two (not four-player chess: other armies move between
//! one's own turns, so "their move" has no single meaning).

use super::{EventRow, MatchStatus, NewEvent, Table};
use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::{conditional_lines, match_events, matches};
use chrono::{DateTime, Utc};
use diesel::dsl::{array_append, array_remove};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::{DutyKind, Env, Random, Seat};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// At most this many lines, steps per line and actions per reply.
pub const MAX_LINES: usize = 16;
pub const MAX_STEPS: usize = 8;
pub const MAX_PLAYS: usize = 8;

/// One step of a line: when the opponent's action shows me `when`, I play
/// `play`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// A pattern over the opponent's events as I see them: it matches an
    /// event that has each of its keys with the same value, e.g.
    /// `{"type": "moved", "move": "11-15"}` or, in Banqi,
    /// `{"type": "turned_up", "square": "b3", "piece": {"colour": "red", "kind": "cannon"}}`.
    #[schema(value_type = Object)]
    pub when: Value,
    /// My reply: the actions I play, in order (a turn of several actions
    /// is several), each as I would post it.
    #[schema(value_type = Vec<Object>, min_items = 1, max_items = 8)]
    pub play: Vec<Value>,
}

/// `GET/PUT /v1/matches/{id}/conditional-moves`: my stored lines.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Lines {
    #[schema(max_items = 16)]
    pub lines: Vec<Vec<Step>>,
}

/// `GET …/conditional-moves/options?line=…`: where a planned line leads.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Options {
    /// The seat to act after the line is played out.
    #[schema(minimum = 0, maximum = 1)]
    pub seat: u8,
    /// Its legal actions there.
    #[schema(value_type = Vec<Object>)]
    pub actions: Vec<Value>,
    /// The position there, as the caller sees it.
    #[schema(value_type = Object)]
    pub view: Value,
    /// The events of the line's last action, as the caller sees them:
    /// after an opponent's action, the `when` of a step waiting on it.
    #[schema(value_type = Vec<Object>)]
    pub last_events: Vec<Value>,
}

/// Play out `line` (actions, each by the seat to act) from the current
/// position, to plan a line on a board. Only where nothing is hidden
/// from the caller: elsewhere the opponent's choices would show what they
/// hold (a FlipChess hand), and a line is written as event patterns.
pub fn options(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    line: &[Value],
    random: &mut dyn Random,
) -> Result<Options, Error> {
    let table = Table::load_mine(conn, id, user, false)?;
    let seat = owner_seat(&table, user)?;
    if table.hides_from(seat) {
        return Err(posthorn_rules::RuleError::illegal(
            "where pieces or cards are hidden, write the line's conditions as event patterns",
        )
        .into());
    }
    if line.len() > 2 * MAX_STEPS {
        return Err(Error::validation("a line too long to plan"));
    }
    let mut state = table.state.clone();
    let mut last_events = Vec::new();
    for action in line {
        let Some(turn) = state.to_act().first().map(|d| d.seat) else {
            return Err(
                posthorn_rules::RuleError::illegal("the match is over along this line").into(),
            );
        };
        let mut env = Env {
            now: 0,
            random: &mut *random,
        };
        let events = state.act(turn, action, &mut env)?;
        last_events.clear();
        for event in &events {
            state.apply(event).map_err(Error::internal)?;
            let view = posthorn_rules::MatchState::redact(
                table.game,
                event,
                posthorn_rules::Viewer::Seat(seat),
            )
            .map_err(Error::internal)?;
            last_events.push(view);
        }
    }
    let turn = state.to_act().first().map_or(seat, |d| d.seat);
    Ok(Options {
        seat: turn.0,
        actions: state.legal_actions(turn),
        view: state.view(posthorn_rules::Viewer::Seat(seat)),
        last_events,
    })
}

/// Whether `event` has every key of `pattern` with the same value.
pub fn matches(pattern: &Value, event: &Value) -> bool {
    match (pattern, event) {
        (Value::Object(want), Value::Object(have)) => want
            .iter()
            .all(|(k, v)| have.get(k).is_some_and(|h| matches(v, h))),
        _ => pattern == event,
    }
}

fn check_shape(lines: &Lines) -> Result<(), Error> {
    if lines.lines.len() > MAX_LINES {
        return Err(Error::validation(format!("at most {MAX_LINES} lines")));
    }
    for line in &lines.lines {
        if line.is_empty() || line.len() > MAX_STEPS {
            return Err(Error::validation(format!(
                "a line has 1 to {MAX_STEPS} steps"
            )));
        }
        for step in line {
            if !step.when.get("type").is_some_and(Value::is_string) {
                return Err(Error::validation(
                    "a step's when is an event pattern with its type",
                ));
            }
            let plays_ok = (1..=MAX_PLAYS).contains(&step.play.len())
                && step
                    .play
                    .iter()
                    .all(|a| a.get("type").is_some_and(Value::is_string));
            if !plays_ok {
                return Err(Error::validation(format!(
                    "a step plays 1 to {MAX_PLAYS} actions, each with its type"
                )));
            }
        }
    }
    Ok(())
}

/// The caller's one seat, where lines may be kept at all.
fn owner_seat(table: &Table, user: Uuid) -> Result<Seat, Error> {
    let mine = table.seats_of(user);
    let Some(seat) = mine.first().copied() else {
        return Err(Error::not_found("match"));
    };
    let two_player_game = table.game.about().seats.1 == 2;
    if !two_player_game || table.seats.len() != 2 || mine.len() != 1 {
        return Err(posthorn_rules::RuleError::illegal(
            "conditional moves are kept only in two-player matches",
        )
        .into());
    }
    Ok(seat)
}

/// My lines in match `id` (empty when none).
pub fn get(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<Lines, Error> {
    let table = Table::load_mine(conn, id, user, false)?;
    owner_seat(&table, user)?;
    stored(conn, id, user, false)
}

/// Replace my lines in match `id`: only while it is being played and it
/// is not my turn.
pub fn put(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    lines: Lines,
    now: DateTime<Utc>,
) -> Result<Lines, Error> {
    let table = Table::load_mine(conn, id, user, true)?;
    let seat = owner_seat(&table, user)?;
    if table.row.status != MatchStatus::Active {
        return Err(Error::conflict(
            "only a match being played keeps conditional moves",
        ));
    }
    if table.state.to_act().iter().any(|d| d.seat == seat) {
        return Err(Error::conflict("it is your turn: play instead"));
    }
    check_shape(&lines)?;
    store(conn, id, user, &lines, now)?;
    Ok(lines)
}

/// Forget my lines in match `id`.
pub fn delete(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<(), Error> {
    Table::load_mine(conn, id, user, false)?;
    diesel::delete(conditional_lines::table.find((id, user))).execute(conn)?;
    Ok(())
}

/// My stored lines in match `id` (none when I keep none), without `get`'s
/// checks: the export reads every match of mine, finished ones too.
pub fn planned(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<Lines, Error> {
    stored(conn, id, user, false)
}

fn stored(conn: &mut PgConnection, id: Uuid, user: Uuid, lock: bool) -> Result<Lines, Error> {
    let query = conditional_lines::table
        .find((id, user))
        .select(conditional_lines::lines);
    let found: Option<Value> = if lock {
        query.for_update().first(conn).optional()?
    } else {
        query.first(conn).optional()?
    };
    // Lines that do not parse are an error, never "no lines"
    // (docs/architecture.md).
    match found {
        Some(v) => serde_json::from_value(v).map_err(|e| {
            Error::internal(format!(
                "match {id}: {user}'s conditional lines are unreadable: {e}"
            ))
        }),
        None => Ok(Lines::default()),
    }
}

fn store(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    lines: &Lines,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let planning = matches::table.find(id);
    if lines.lines.is_empty() {
        diesel::delete(conditional_lines::table.find((id, user))).execute(conn)?;
        diesel::update(planning)
            .set(matches::planning.eq(array_remove(matches::planning, user)))
            .execute(conn)?;
        return Ok(());
    }
    // Named on the match row, which every move reads anyway: a move whose
    // opponent keeps no line reads none (docs/benchmarks.md, "Winning back
    // the action path").
    diesel::update(planning.filter(diesel::dsl::not(matches::planning.contains(vec![user]))))
        .set(matches::planning.eq(array_append(matches::planning, user)))
        .execute(conn)?;
    let value = serde_json::to_value(lines).map_err(Error::internal)?;
    diesel::insert_into(conditional_lines::table)
        .values((
            conditional_lines::match_id.eq(id),
            conditional_lines::user_id.eq(user),
            conditional_lines::lines.eq(&value),
            conditional_lines::updated_at.eq(now),
        ))
        .on_conflict((conditional_lines::match_id, conditional_lines::user_id))
        .do_update()
        .set((
            conditional_lines::lines.eq(&value),
            conditional_lines::updated_at.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

/// After `actor`'s action in the locked `table`: if it handed the turn to
/// the other seat and its player keeps lines, play the first line that
/// matches, in this transaction. The events appended for them.
pub fn answer(
    conn: &mut PgConnection,
    table: &mut Table,
    actor: Seat,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Vec<EventRow>, Error> {
    let two = table.seats.len() == 2 && table.game.about().seats.1 == 2;
    if !two || table.row.status != MatchStatus::Active {
        return Ok(Vec::new());
    }
    let owner = Seat(1 - actor.0.min(1));
    let Some(user) = table.seats[owner.index()] else {
        return Ok(Vec::new());
    };
    // Judged when my turn comes, not at a decision owed mid-turn (a draw
    // offer to answer, a FlipChess catch).
    let my_turn =
        (table.state.to_act().iter()).any(|d| d.seat == owner && d.kind == DutyKind::Turn);
    if user == table.seats[actor.index()].unwrap_or_default() || !my_turn {
        return Ok(Vec::new());
    }
    if !table.row.planning.contains(&user) {
        return Ok(Vec::new());
    }
    let lines = stored(conn, table.row.id, user, true)?;
    if lines.lines.is_empty() {
        return Ok(Vec::new());
    }
    // What the opponent did since my last event, as I see it.
    let seen = seen_since_mine(conn, table, owner, user)?;
    let hit = |line: &Vec<Step>| seen.iter().any(|e| matches(&line[0].when, e));
    let Some(chosen) = lines.lines.iter().find(|l| hit(l)).cloned() else {
        store(conn, table.row.id, user, &Lines::default(), now)?;
        return Ok(Vec::new());
    };
    let mut appended = Vec::new();
    let played = play(
        conn,
        table,
        owner,
        &chosen[0].play,
        &mut appended,
        now,
        random,
    );
    if !played? {
        // No longer legal: the lines go, and the turn stays with me.
        store(conn, table.row.id, user, &Lines::default(), now)?;
        return Ok(appended);
    }
    // The lines that continue from here: those that matched and replied
    // the same, without the step just played.
    let rest: Vec<Vec<Step>> = (lines.lines.into_iter())
        .filter(|l| hit(l) && l[0].play == chosen[0].play && l.len() > 1)
        .map(|l| l[1..].to_vec())
        .collect();
    store(conn, table.row.id, user, &Lines { lines: rest }, now)?;
    Ok(appended)
}

/// Play `actions` for `owner`, each through the rules and the append;
/// false at the first that is not legal (what came before it stands).
fn play(
    conn: &mut PgConnection,
    table: &mut Table,
    owner: Seat,
    actions: &[Value],
    appended: &mut Vec<EventRow>,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<bool, Error> {
    for action in actions {
        let mut env = Env {
            now: now.timestamp_millis(),
            random: &mut *random,
        };
        let Ok(events) = table.state.act(owner, action, &mut env) else {
            return Ok(false);
        };
        let events = NewEvent::from_rules(Some(owner), events);
        appended.extend(table.append_for(conn, events, now, Some(owner))?);
    }
    Ok(true)
}

/// The game's events that still stand after `owner`'s last one (a
/// takeback's undone events are gone, `fold::standing`), as `user`
/// (its player) sees them.
fn seen_since_mine(
    conn: &mut PgConnection,
    table: &Table,
    owner: Seat,
    user: Uuid,
) -> Result<Vec<Value>, Error> {
    let rows: Vec<EventRow> = match_events::table
        .filter(match_events::match_id.eq(table.row.id))
        .order(match_events::seq)
        .select(EventRow::as_select())
        .load(conn)?;
    let logged = rows.iter().map(|e| (e.seq, e.rules, e.body.clone()));
    let standing: std::collections::HashSet<i32> = super::fold::standing(logged)
        .into_iter()
        .map(|(seq, _)| seq)
        .collect();
    let standing_rows: Vec<&EventRow> = (rows.iter())
        .filter(|e| e.rules && standing.contains(&e.seq))
        .collect();
    let after = (standing_rows.iter())
        .rposition(|e| e.seat == Some(owner.0 as i16))
        .map_or(0, |i| i + 1);
    (standing_rows[after..].iter())
        .map(|e| table.event_view(e, user))
        .collect()
}

/// A player's conditional moves go with the account.
pub const PERSONAL: Owner = Owner::erasing(
    "matches::conditional",
    &["conditional_lines"],
    forget,
    Exported::In(&["matches/*/conditional_moves"]),
);

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(conditional_lines::table.filter(conditional_lines::user_id.eq(leaving.user)))
        .execute(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pattern_matches_an_event_with_each_of_its_keys() {
        let event = json!({"type": "turned_up", "square": "b3", "piece": {"colour": "red", "kind": "cannon"}, "seq": 4});
        assert!(matches(
            &json!({"type": "turned_up", "square": "b3"}),
            &event
        ));
        assert!(matches(&json!({"piece": {"kind": "cannon"}}), &event));
        assert!(!matches(&json!({"piece": {"kind": "horse"}}), &event));
        assert!(!matches(
            &json!({"type": "turned_up", "hidden": true}),
            &event
        ));
    }
}
