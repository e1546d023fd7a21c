//! Rematches (docs/decisions/challenges-and-lobby.md). A player of a
//! finished match asks for a rematch: the same game, settings and players.
//! The others are told; once every player has asked (asking back is
//! accepting), the new match starts with the sides rotated — each player
//! takes the next side in the game's order ([`posthorn_rules::Game::side`]:
//! checkers colours swap, Janggi's Cho and Han swap, four-player armies
//! move on clockwise). The two matches are linked both ways (`rematch_of`,
//! `rematch`).

use super::computers::{side_ranks, ComputerSeat};
use super::create::{self, Ask, NewMatch};
use crate::error::Error;
use crate::matches::{MatchStatus, MatchView, Table};
use crate::notify::outbox::Enqueue;
use crate::players::{self, Player};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::{MatchState, Random};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Where a rematch stands.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RematchState {
    /// The players who have asked for it.
    pub asked: Vec<Player>,
    /// The players it waits for.
    pub waiting_for: Vec<Player>,
    /// The new match, once every player has asked.
    pub rematch: Option<MatchView>,
}

/// The players of a match, once each, in seat order.
fn players(table: &Table) -> Vec<Uuid> {
    let mut seen = Vec::new();
    for user in table.seats.iter().flatten() {
        if !seen.contains(user) {
            seen.push(*user);
        }
    }
    seen
}

/// `user` asks for the rematch of `match_id` (as `ask.creator`).
pub fn ask_for(
    conn: &mut PgConnection,
    ask: &Ask,
    match_id: Uuid,
    random: &mut dyn Random,
) -> Result<RematchState, Error> {
    let user = ask.creator;
    let mut table = Table::load_mine(conn, match_id, user, true)?;
    // Every seated player known, so that a deleted one is seen below.
    table.seat_players(conn)?;
    if table.seats_of(user).is_empty() {
        return Err(Error::forbidden(
            "only the match's players may ask for a rematch",
        ));
    }
    if table.row.status != MatchStatus::Finished {
        return Err(Error::conflict("a rematch follows a finished match"));
    }
    if let Some(id) = table.row.rematch_id {
        return Err(Error::conflict(format!(
            "the rematch has started already: {id}"
        )));
    }
    let everyone = players(&table);
    if everyone
        .iter()
        .any(|u| table.players.get(u).is_some_and(|p| p.deleted))
    {
        return Err(Error::conflict(
            "a player of this match deleted their account: there is nobody to play the rematch",
        ));
    }
    for other in everyone.iter().filter(|u| **u != user) {
        crate::friends::ensure_not_blocked(conn, user, *other, "a player of this match")?;
    }
    let (new, asked) = crate::matches::rematch_offers::ask(conn, match_id, user, ask.now)?;
    // A computer opponent always agrees (docs/bots.md, "In the service").
    let is_computer =
        |u: &Uuid| (table.players.get(u)).is_some_and(|p| crate::computer::level_of(p).is_some());
    let waiting: Vec<Uuid> = everyone
        .iter()
        .filter(|u| !asked.contains(u) && !is_computer(u))
        .copied()
        .collect();
    let names = players::load(conn, everyone.clone())?;
    let named = |ids: &[Uuid]| ids.iter().filter_map(|u| names.get(u).cloned()).collect();
    if !waiting.is_empty() {
        if new {
            let told = crate::notices::rematch_offered(&waiting, &table);
            Enqueue::new(match_id, told, ask.now).execute(conn)?;
        }
        return Ok(RematchState {
            asked: named(&asked),
            waiting_for: named(&waiting),
            rematch: None,
        });
    }
    let started = start(conn, ask, &table, &everyone, random)?;
    Ok(RematchState {
        asked: named(&asked),
        waiting_for: Vec::new(),
        rematch: Some(started),
    })
}

/// Start the rematch with every player on the next side.
fn start(
    conn: &mut PgConnection,
    ask: &Ask,
    old: &Table,
    everyone: &[Uuid],
    random: &mut dyn Random,
) -> Result<MatchView, Error> {
    let row = &old.row;
    // Who had which side; each takes the next one.
    let count = old.seats.len();
    let before: Vec<(Uuid, usize)> = old
        .seats
        .iter()
        .zip(side_ranks(&old.state, count))
        .filter_map(|(user, rank)| user.map(|u| (u, rank)))
        .collect();
    let arrange = |opening: &MatchState| -> Option<Vec<Uuid>> {
        side_ranks(opening, count)
            .into_iter()
            .map(|rank| {
                before
                    .iter()
                    .find(|(_, r)| (r + 1) % count == rank)
                    .map(|(u, _)| *u)
            })
            .collect()
    };
    // The computers sit down again as computers (never rated); the
    // people are seated as they were.
    let level = |u: &Uuid| old.players.get(u).and_then(crate::computer::level_of);
    let others: Vec<Uuid> = everyone
        .iter()
        .filter(|u| **u != row.created_by && level(u).is_none())
        .copied()
        .collect();
    let computers: Vec<ComputerSeat> = (old.seats.iter().flatten())
        .filter_map(level)
        .map(|l| ComputerSeat {
            level: l.id().to_owned(),
            seat: None,
        })
        .collect();
    let against_computer = !computers.is_empty();
    // Timed as before wherever people play people (computers beside
    // friends included); one person alone with computers is untimed.
    let timed = !against_computer || !others.is_empty();
    let rematch_ask = Ask {
        seated: &others,
        arrange: Some(&arrange),
        rematch_of: Some(row.id),
        ..Ask::new(
            row.created_by,
            ask.min_turn_seconds,
            ask.public_url,
            ask.now,
        )
    };
    let same = NewMatch {
        game: row.game.clone(),
        variant: None,
        mode: None,
        options: Some(row.options.clone()),
        opponents: None,
        open_seats: Some(0),
        turn_hours: timed.then(|| row.turn_seconds as f64 / 3600.0),
        rated: (!against_computer).then_some(row.rated),
        computers: against_computer.then_some(computers),
        seat: None,
        side: None,
    };
    let created = create::create(conn, &rematch_ask, same, random)?;
    crate::matches::seating::rematched(conn, row.id, created.id)?;
    let mut table = Table::load(conn, created.id, false)?
        .ok_or_else(|| Error::internal("the rematch vanished"))?;
    table.view_for(conn, ask.creator)
}
