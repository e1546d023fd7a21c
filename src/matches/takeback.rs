//! Takebacks. In a match against the computer the person may take back
//! their last move, and the computer's reply, at any time
//! (docs/decisions/matches-and-deadlines.md). Between two people a player
//! may ask to take back their own last move before the opponent answers it
//! with a move of theirs; the opponent accepts or declines
//! (docs/decisions/matches-and-deadlines.md), if their setting lets them be
//! asked in this match (`accounts::Takebacks`: never / unrated / always).
//! The log stays append-only and true: a `taken_back {to_seq}` service
//! event says that from there on the game stands as it did after `to_seq`.
//! Every fold of a match reads its rules' events and its takebacks together
//! and drops what a takeback undid (`super::fold`).

use super::snapshots::Snapshot;
use super::{EventRow, MatchStatus, MatchView, NewEvent, ServiceEvent, Table};
use crate::accounts::Takebacks;
use crate::error::Error;
use crate::schema::match_events;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::{MatchState, RuleError, Seat};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use utoipa::ToSchema;
use uuid::Uuid;

/// What a takeback request did: the move is taken back (against the
/// computer), or the opponent is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    Back,
    Asked,
}

/// `user` takes back their last move: at once against the computer (with
/// whatever followed it), or by asking their opponent between people.
pub fn take_back(
    conn: &mut PgConnection,
    table: &mut Table,
    user: Uuid,
    seq: i32,
    now: DateTime<Utc>,
) -> Result<Taken, Error> {
    let mine = checked(conn, table, user, seq)?;
    let computer = |u: &Uuid| (table.players.get(u)).is_some_and(|p| p.computer.is_some());
    let others: Vec<Uuid> = (table.seats.iter().flatten())
        .filter(|u| **u != user)
        .copied()
        .collect();
    if !others.is_empty() && others.iter().all(computer) {
        let to_seq = last_turn(conn, table, &mine)?.to_seq;
        undo(conn, table, to_seq, mine[0], None, now)?;
        return Ok(Taken::Back);
    }
    ask(conn, table, &mine, &others, now)?;
    Ok(Taken::Asked)
}

/// The caller's seats, once the request may be heard at all: a seq that
/// saw the position, a match being played, a seat in it, and nothing hidden that an
/// undo would show again (a piece turned up or cards drawn, then undone,
/// would be known and hidden again: Banqi, FlipChess; the rules say
/// whether anything is hidden from the seat, §H1).
fn checked(
    conn: &mut PgConnection,
    table: &Table,
    user: Uuid,
    seq: i32,
) -> Result<Vec<Seat>, Error> {
    // Stale only when the position changed, as for a move (docs/api.md, "A
    // seq is stale only when the position changed"): an opponent's vacation
    // does not void a takeback asked or answered.
    if !super::stale::saw_the_position(conn, table, seq)? {
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
    // A seat still in a match being played may always resign, so one
    // with no action left is out of it (§Q7/§Q9): its moves stand, as a
    // finished match's do.
    if mine
        .iter()
        .all(|s| table.state.legal_actions(*s).is_empty())
    {
        return Err(Error::conflict(
            "you are out of this match: your moves stand",
        ));
    }
    if table.hides_from(mine[0]) {
        return Err(RuleError::illegal(
            "moves are not taken back where pieces or cards are hidden: it would show them",
        )
        .into());
    }
    Ok(mine)
}

/// Ask the one opponent to take back `mine`'s last move: only in a game
/// for two (not in four-player chess, even with two people: other armies
/// move between one's own; the rules' `About::seats` says),
/// only while that move is the last one played, once at a time, and only
/// if the opponent's setting lets them be asked in this match.
fn ask(
    conn: &mut PgConnection,
    table: &mut Table,
    mine: &[Seat],
    others: &[Uuid],
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let two_player_game = table.game.about().seats.1 == 2;
    if !two_player_game || table.seats.len() != 2 || others.len() != 1 {
        return Err(
            RuleError::illegal("takebacks are asked for only in two-player matches").into(),
        );
    }
    let turn = last_turn(conn, table, mine)?;
    if !turn.last_played {
        return Err(RuleError::illegal(
            "your opponent has moved since: only your last move, before their answer, can be taken back",
        )
        .into());
    }
    if table.takeback_asked(conn)?.is_some() {
        return Err(Error::conflict("a takeback is already asked for"));
    }
    if !Takebacks::of(conn, others[0])?.allow(table.row.rated) {
        return Err(RuleError::illegal(
            "your opponent does not take takeback requests in this match (their setting)",
        )
        .into());
    }
    let event = NewEvent {
        seat: Some(mine[0]),
        rules: false,
        body: ServiceEvent::TakebackRequested {
            to_seq: turn.to_seq,
        }
        .to_body(),
    };
    table.append(conn, vec![event], now)?;
    Ok(())
}

/// What `event` makes of the takeback asked, if it settles it: a request
/// asks one; a rules event (a move after the request answers it: no), a
/// refusal or a takeback answers it. The others leave it as it was.
/// [`pending`] reads the same from the log.
pub fn settled_by(event: &EventRow) -> Option<Option<(Seat, i32)>> {
    if event.rules {
        return Some(None);
    }
    match ServiceEvent::from_body(&event.body)? {
        ServiceEvent::TakebackRequested { to_seq } => {
            Some(event.seat.map(|seat| (Seat(seat as u8), to_seq)))
        }
        ServiceEvent::TakebackDeclined | ServiceEvent::TakenBack { .. } => Some(None),
        _ => None,
    }
}

/// The takeback asked for and not yet answered, if any: `(seat that
/// asked, to_seq)`. A move played after the request answers it (no).
pub fn pending(conn: &mut PgConnection, table: &Table) -> Result<Option<(Seat, i32)>, Error> {
    let latest: Option<(Option<i16>, Value)> = match_events::table
        .filter(match_events::match_id.eq(table.row.id))
        .filter(
            match_events::rules
                .eq(true)
                .or(diesel::dsl::sql::<diesel::sql_types::Bool>(
                    "body->>'type' IN ('takeback_requested', 'takeback_declined', 'taken_back')",
                )),
        )
        .order(match_events::seq.desc())
        .select((match_events::seat, match_events::body))
        .first(conn)
        .optional()?;
    Ok(match latest {
        Some((Some(seat), body)) => match ServiceEvent::from_body(&body) {
            Some(ServiceEvent::TakebackRequested { to_seq }) => Some((Seat(seat as u8), to_seq)),
            _ => None,
        },
        _ => None,
    })
}

/// `user` answers the takeback their opponent asked for: yes takes the
/// move back, no leaves it standing.
pub fn answer(
    conn: &mut PgConnection,
    table: &mut Table,
    user: Uuid,
    seq: i32,
    accept: bool,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let mine = checked(conn, table, user, seq)?;
    let Some((asker, to_seq)) = table.takeback_asked(conn)? else {
        return Err(Error::conflict("no takeback is asked for in this match"));
    };
    if mine.contains(&asker) {
        return Err(RuleError::illegal("your opponent answers your takeback request").into());
    }
    if accept {
        return undo(conn, table, to_seq, asker, Some(mine[0]), now);
    }
    let event = NewEvent {
        seat: Some(mine[0]),
        rules: false,
        body: ServiceEvent::TakebackDeclined.to_body(),
    };
    table.append(conn, vec![event], now)?;
    Ok(())
}

/// The last turn of `mine` that still stands: the seq it returns to, and
/// whether it is the last thing played in the match.
struct LastTurn {
    to_seq: i32,
    last_played: bool,
}

/// The person's last turn that still stands: their last own move and the
/// events of theirs just before it (one action stores several events; a
/// turn may take several actions).
fn last_turn(conn: &mut PgConnection, table: &Table, mine: &[Seat]) -> Result<LastTurn, Error> {
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
    let standing = super::fold::standing(logged.into_iter().map(|(q, r, _, b)| (q, r, b)));
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
    let last_played = standing[last + 1..].iter().all(|(q, _)| is_mine(q));
    Ok(LastTurn {
        to_seq: standing[first].0 - 1,
        last_played,
    })
}

/// Return the game to where it stood after `to_seq`: the rules' events
/// standing then are folded again, and a `taken_back` event records it for
/// `seat` (whose move it was), agreed by `accepted_by` between people.
fn undo(
    conn: &mut PgConnection,
    table: &mut Table,
    to_seq: i32,
    seat: Seat,
    accepted_by: Option<Seat>,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let logged: Vec<(i32, bool, Value)> = match_events::table
        .filter(match_events::match_id.eq(table.row.id))
        .filter(match_events::seq.le(to_seq))
        .order(match_events::seq)
        .select((match_events::seq, match_events::rules, match_events::body))
        .load(conn)?;
    let bodies = super::fold::effective(logged);
    table.state = MatchState::replay(table.game, &bodies).map_err(Error::internal)?;
    let event = NewEvent {
        seat: Some(seat),
        rules: false,
        body: ServiceEvent::TakenBack {
            to_seq,
            accepted_by: accepted_by.map(|s| s.0),
        }
        .to_body(),
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

/// `user` accepts (`accept`) or declines the takeback asked of them in
/// match `id` (see [`answer`]).
pub fn respond(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    req: TakebackRequest,
    accept: bool,
    now: DateTime<Utc>,
) -> Result<(MatchView, Snapshot), Error> {
    let mut table = Table::load_mine(conn, id, user, true)?;
    answer(conn, &mut table, user, req.seq, accept, now)?;
    let view = table.view_for(conn, user)?;
    Ok((view, table.snapshot()))
}
