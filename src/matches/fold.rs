//! The fold of a match's log (docs/decisions/matches-and-deadlines.md:
//! loading a match no longer enters a feature file): its rules' events and
//! its takebacks read together, and what a takeback undid dropped. A
//! `taken_back {to_seq}` service event says that from there on the game
//! stands as it did after `to_seq` (`takeback.rs` writes it); every reader
//! of the rules' events that must agree with the game as it stands reads
//! them through here.

use super::{EventRow, ServiceEvent};
use crate::error::Error;
use crate::schema::match_events;
use diesel::prelude::*;
use diesel::PgConnection;
use serde_json::Value;
use std::collections::HashMap;
use uuid::Uuid;

/// `(seq, rules, body)` of a match's events.
pub type Logged = (i32, bool, Value);

/// The rules' events a fold applies, in order, with their seqs: each
/// takeback drops the rules' events after its `to_seq` that came before it.
pub fn standing(events: impl IntoIterator<Item = Logged>) -> Vec<(i32, Value)> {
    let mut kept: Vec<(i32, Value)> = Vec::new();
    for (seq, rules, body) in events {
        if rules {
            kept.push((seq, body));
        } else if let Some(ServiceEvent::TakenBack { to_seq, .. }) = ServiceEvent::from_body(&body)
        {
            kept.retain(|(s, _)| *s <= to_seq);
        }
    }
    kept
}

/// [`standing`]'s bodies alone, as the rules fold them.
pub fn effective(events: impl IntoIterator<Item = Logged>) -> Vec<Value> {
    standing(events).into_iter().map(|(_, body)| body).collect()
}

/// The events of `ids` a fold needs, up to each match's `upto` seq: the
/// rules' events and the takebacks, by match, in order.
pub fn folded(
    conn: &mut PgConnection,
    upto: &HashMap<Uuid, i32>,
) -> Result<HashMap<Uuid, Vec<Value>>, Error> {
    let ids: Vec<Uuid> = upto.keys().copied().collect();
    let rows: Vec<(Uuid, i32, bool, Value)> = match_events::table
        .filter(match_events::match_id.eq_any(&ids))
        .filter(folds())
        .order((match_events::match_id, match_events::seq))
        .select((
            match_events::match_id,
            match_events::seq,
            match_events::rules,
            match_events::body,
        ))
        .load(conn)?;
    let mut logged: HashMap<Uuid, Vec<Logged>> = HashMap::new();
    for (id, seq, rules, body) in rows {
        if upto.get(&id).is_some_and(|last| seq <= *last) {
            logged.entry(id).or_default().push((seq, rules, body));
        }
    }
    Ok(ids
        .into_iter()
        .map(|id| (id, effective(logged.remove(&id).unwrap_or_default())))
        .collect())
}

/// The rows a fold reads: the rules' events and the takebacks.
fn folds() -> diesel::dsl::Or<
    diesel::dsl::Eq<match_events::rules, bool>,
    diesel::expression::SqlLiteral<diesel::sql_types::Bool>,
> {
    match_events::rules
        .eq(true)
        .or(diesel::dsl::sql::<diesel::sql_types::Bool>(
            "body->>'type' = 'taken_back'",
        ))
}

/// The rules' events of match `id` that stand, with their seqs: the
/// log a finished match is judged from (`computer::analysis`).
pub fn standing_log(conn: &mut PgConnection, id: Uuid) -> Result<Vec<(i32, Value)>, Error> {
    let rows: Vec<Logged> = match_events::table
        .filter(match_events::match_id.eq(id))
        .filter(folds())
        .order(match_events::seq)
        .select((match_events::seq, match_events::rules, match_events::body))
        .load(conn)?;
    Ok(standing(rows))
}

/// The rules' events of match `id` that stand (what a takeback undid
/// dropped), with their seats, in order; `unwritten` are this
/// transaction's events not yet in the table (a held batch's;
/// docs/decisions/ratings.md). The rating update's "never moved" reads
/// these (docs/decisions/matches-and-deadlines.md, "Takebacks by consent"):
/// a move taken back was never made.
pub fn standing_with_seats(
    conn: &mut PgConnection,
    id: Uuid,
    unwritten: &[EventRow],
) -> Result<Vec<(Option<i16>, Value)>, Error> {
    let mut rows: Vec<(i32, Option<i16>, bool, Value)> = match_events::table
        .filter(match_events::match_id.eq(id))
        .filter(folds())
        .order(match_events::seq)
        .select((
            match_events::seq,
            match_events::seat,
            match_events::rules,
            match_events::body,
        ))
        .load(conn)?;
    rows.extend(
        unwritten
            .iter()
            .map(|e| (e.seq, e.seat, e.rules, e.body.clone())),
    );
    let seats: HashMap<i32, Option<i16>> =
        rows.iter().map(|(seq, seat, ..)| (*seq, *seat)).collect();
    let logged = rows
        .into_iter()
        .map(|(seq, _, rules, body)| (seq, rules, body));
    Ok(standing(logged)
        .into_iter()
        .map(|(seq, body)| (seats.get(&seq).copied().flatten(), body))
        .collect())
}

/// The seats of `table` that never made a move of their own in the moves
/// that stand (the rules say what is one: `Game::is_own_move`; a move
/// taken back was never made). The ratings abort a match with one, except
/// where the deal showed each player a private hand (docs/decisions/
/// ratings.md); the coins pay nobody when fewer than two seats moved
/// (docs/rules/rewards.md §R4). `unwritten`: this transaction's events
/// not yet in the table.
pub fn unmoved_seats(
    conn: &mut PgConnection,
    table: &super::Table,
    unwritten: &[EventRow],
) -> Result<Vec<usize>, Error> {
    let events = standing_with_seats(conn, table.row.id, unwritten)?;
    let game = table.game;
    let moved = |seat: usize| {
        events.iter().any(|(s, body)| {
            *s == Some(seat as i16)
                && posthorn_rules::MatchState::is_own_move(game, body).unwrap_or(true)
        })
    };
    Ok((0..table.seats.len()).filter(|s| !moved(*s)).collect())
}

/// The seats of match `id` that had a move of theirs taken back, against
/// the computer or by consent: they earn no coins from it
/// (docs/rules/rewards.md §R4).
pub fn took_back(conn: &mut PgConnection, id: Uuid) -> Result<Vec<i16>, Error> {
    let rows: Vec<(Option<i16>, Value)> = match_events::table
        .filter(match_events::match_id.eq(id))
        .filter(match_events::rules.eq(false))
        .filter(diesel::dsl::sql::<diesel::sql_types::Bool>(
            "body->>'type' = 'taken_back'",
        ))
        .select((match_events::seat, match_events::body))
        .load(conn)?;
    Ok((rows.into_iter())
        .filter(|(_, body)| {
            matches!(
                ServiceEvent::from_body(body),
                Some(ServiceEvent::TakenBack { .. })
            )
        })
        .filter_map(|(seat, _)| seat)
        .collect())
}
