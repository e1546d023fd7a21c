//! Takebacks (issue #32): in a match against the computer the person may
//! take back their last move, and the computer's reply, at any time. The
//! log stays append-only and true: a `taken_back {to_seq}` service event
//! says that from there on the game stands as it did after `to_seq`.
//! Every fold of a match reads its rules' events and its takebacks
//! together ([`folded`]) and drops what a takeback undid ([`effective`]).

use super::snapshots::Snapshot;
use super::{MatchStatus, MatchView, NewEvent, ServiceEvent, Table};
use crate::error::Error;
use crate::schema::match_events;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::{MatchState, RuleError, Viewer};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use utoipa::ToSchema;
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
        } else if let Some(ServiceEvent::TakenBack { to_seq }) = ServiceEvent::from_body(&body) {
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
        .filter(
            match_events::rules
                .eq(true)
                .or(diesel::dsl::sql::<diesel::sql_types::Bool>(
                    "body->>'type' = 'taken_back'",
                )),
        )
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

/// Take back `user`'s last move and whatever followed it (the computer's
/// reply): the game returns to where it stood before that move, and it is
/// `user`'s turn again. Only in a match against the computer, while it is
/// being played, with the match's current `seq`.
pub fn take_back(
    conn: &mut PgConnection,
    table: &mut Table,
    user: Uuid,
    seq: i32,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    if seq != table.row.seq {
        return Err(Error::stale_seq(table.row.seq));
    }
    if table.row.status != MatchStatus::Active {
        return Err(Error::conflict(
            "only a match being played can take a move back",
        ));
    }
    let mine = table.seats_of(user);
    if mine.is_empty() {
        return Err(Error::not_found("match"));
    }
    // Only against the computer alone: nobody takes back another
    // person's move.
    let computer = |u: &Uuid| (table.players.get(u)).is_some_and(|p| p.computer.is_some());
    let others: Vec<&Uuid> = table
        .seats
        .iter()
        .flatten()
        .filter(|u| **u != user)
        .collect();
    if others.is_empty() || !others.iter().all(|u| computer(u)) {
        return Err(RuleError::illegal("moves are taken back only against the computer").into());
    }
    // A takeback must not show what is hidden: a piece turned up, cards
    // drawn, then undone, would be known and hidden again (Banqi,
    // FlipChess). The rules say whether anything is hidden from the seat.
    if !table.state.secrets(Viewer::Seat(mine[0])).is_empty() {
        return Err(RuleError::illegal(
            "moves are not taken back where pieces or cards are hidden: it would show them",
        )
        .into());
    }
    // The person's last turn that still stands: their last own move and
    // the events of theirs just before it (one action stores several
    // events; a turn may take several actions).
    let logged: Vec<(i32, bool, Option<i16>, Value)> = match_events::table
        .filter(match_events::match_id.eq(table.row.id))
        .order(match_events::seq)
        .select((
            match_events::seq,
            match_events::rules,
            match_events::seat,
            match_events::body,
        ))
        .load(conn)?;
    let seat_at: HashMap<i32, Option<i16>> = logged.iter().map(|(q, _, s, _)| (*q, *s)).collect();
    let is_mine = |q: &i32| {
        let seat = seat_at.get(q).copied().flatten();
        seat.is_some_and(|s| mine.iter().any(|m| i16::from(m.0) == s))
    };
    let standing = standing(logged.into_iter().map(|(q, r, _, b)| (q, r, b)));
    let last = standing
        .iter()
        .rposition(|(q, body)| {
            is_mine(q) && MatchState::is_own_move(table.game, body).unwrap_or(false)
        })
        .ok_or_else(|| RuleError::illegal("you have no move to take back"))?;
    let mut first = last;
    while first > 0 && is_mine(&standing[first - 1].0) {
        first -= 1;
    }
    let to_seq = standing[first].0 - 1;
    let bodies: Vec<Value> = standing
        .into_iter()
        .filter(|(q, _)| *q <= to_seq)
        .map(|(_, body)| body)
        .collect();
    table.state = MatchState::replay(table.game, &bodies).map_err(Error::internal)?;
    let event = NewEvent {
        seat: mine.first().copied(),
        rules: false,
        body: ServiceEvent::TakenBack { to_seq }.to_body(),
    };
    table.append(conn, vec![event], now)?;
    Ok(())
}

/// `POST /v1/matches/{id}/takeback`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TakebackRequest {
    /// The match's current `seq`, as for an action.
    #[schema(minimum = 0)]
    pub seq: i32,
}

/// `user` takes back their last move in match `id` (see [`take_back`]);
/// the match as they now see it, and the snapshot to remember once
/// committed.
pub fn request(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    req: TakebackRequest,
    now: DateTime<Utc>,
) -> Result<(MatchView, Snapshot), Error> {
    let mut table = Table::load_mine(conn, id, user, true)?;
    take_back(conn, &mut table, user, req.seq, now)?;
    let view = table.view_for(conn, user)?;
    Ok((view, table.snapshot()))
}
