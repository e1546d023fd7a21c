//! A match against the computer (docs/bots.md): the creator names computer
//! opponents (`NewMatch.computers`) and may pick their own seat, i.e.
//! their side (`NewMatch.seat`: checkers' colour, Janggi's Cho or Han);
//! the computers sit down at once. Such a match is never rated. With one
//! person it has no time limit: the person has no deadline, no notice, no
//! abandonment, and takes moves back at once. A four-player table may also
//! seat other people beside the computers (named or by invitation): it is
//! then timed like any match between people, for everyone, and nobody
//! takes back at once, since other people's turns are at stake.

use crate::computer::player_id;
use crate::error::Error;
use diesel::PgConnection;
use posthorn_rules::engine::Level;
use posthorn_rules::{MatchState, Seat};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use utoipa::ToSchema;
use uuid::Uuid;

/// A computer opponent at the table.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ComputerSeat {
    /// `easy`, `normal` or `hard` (`GET /v1/bots`).
    #[schema(pattern = "^(easy|normal|hard)$", example = "normal")]
    pub level: String,
    /// The seat it takes (default: drawn with the others).
    #[schema(minimum = 0, maximum = 3)]
    pub seat: Option<u8>,
}

/// The computers a match request names, checked.
pub struct Computers {
    /// `(player, seat)` per computer.
    seats: Vec<(Uuid, Option<u8>)>,
    /// The creator's chosen seat, or side by order of play.
    mine: Option<u8>,
    side: Option<u8>,
    /// Whether other people sit at the table too (then it is timed).
    pub with_people: bool,
}

impl Computers {
    /// The computers a match request names (with the creator's `seat` or
    /// `side`, and whether it asks to be `rated` or `timed`), or none;
    /// refuses what a match against the computer cannot be and a seat or
    /// side chosen without one.
    pub fn of(
        named: &[ComputerSeat],
        seat: Option<u8>,
        side: Option<u8>,
        rated: Option<bool>,
        timed: bool,
        other_people: bool,
    ) -> Result<Option<Computers>, Error> {
        if named.is_empty() {
            if seat.is_some() || side.is_some() {
                return Err(Error::unacceptable(
                    "seat is chosen only against the computer; seats are drawn otherwise",
                ));
            }
            return Ok(None);
        }
        if rated == Some(true) {
            return Err(Error::unacceptable(
                "a match against the computer is never rated; leave rated out",
            ));
        }
        // Alone with computers the person has no time limit; with other
        // people at the table every turn is timed as between people.
        if timed && !other_people {
            return Err(Error::unacceptable(
                "a match of one person against the computer has no time limit; leave turn_hours out",
            ));
        }
        let mut seats = Vec::with_capacity(named.len());
        for c in named {
            let level = Level::parse(&c.level).ok_or_else(|| {
                Error::validation(format!("unknown level {:?}: easy, normal or hard", c.level))
            })?;
            seats.push((player_id(level), c.seat));
        }
        Ok(Some(Computers {
            seats,
            mine: seat,
            side,
            with_people: other_people,
        }))
    }

    /// The computer players, one per seat they hold.
    pub fn players(&self) -> impl Iterator<Item = Uuid> + '_ {
        self.seats.iter().map(|(player, _)| *player)
    }

    /// Whether `user` is one of these computers.
    pub fn contains(&self, user: &Uuid) -> bool {
        self.seats.iter().any(|(player, _)| player == user)
    }

    /// `people` (already drawn at random) with the chosen seats honoured:
    /// the creator's and the computers' fixed seats first, everyone else
    /// in the drawn order in the seats left. `ranks` is each seat's side
    /// by order of play in the dealt opening: a `side` names the seat
    /// whose side plays in that order (0 first: American checkers' Black,
    /// Janggi's Cho, wherever the rules drew it), in games where every seat has a
    /// side of its own.
    pub fn place(
        &self,
        people: Vec<Option<Uuid>>,
        creator: Uuid,
        ranks: &[usize],
    ) -> Result<Vec<Option<Uuid>>, Error> {
        let own_sides = ranks.iter().collect::<BTreeSet<_>>().len() == ranks.len();
        let mine = match (self.mine, self.side) {
            (Some(_), Some(_)) => {
                return Err(Error::validation("choose a seat or a side, not both"));
            }
            (_, Some(_)) if !own_sides => {
                return Err(Error::validation(
                    "in this game sides are shared by teams: choose a seat instead",
                ));
            }
            (_, Some(side)) => Some(
                ranks
                    .iter()
                    .position(|r| *r == usize::from(side))
                    .ok_or_else(|| Error::validation(format!("there is no side {side}")))?
                    as u8,
            ),
            (seat, None) => seat,
        };
        let fixed: Vec<(u8, Uuid)> = (mine.map(|s| (s, creator)).into_iter())
            .chain(self.seats.iter().filter_map(|(p, s)| s.map(|s| (s, *p))))
            .collect();
        let n = people.len();
        let mut placed: Vec<Option<Option<Uuid>>> = vec![None; n];
        for (seat, who) in &fixed {
            let slot = placed.get_mut(usize::from(*seat)).ok_or_else(|| {
                Error::validation(format!("seat {seat} is not at this table of {n}"))
            })?;
            if slot.is_some() {
                return Err(Error::validation(format!("seat {seat} is chosen twice")));
            }
            *slot = Some(Some(*who));
        }
        let mut rest = people;
        for (_, who) in &fixed {
            if let Some(i) = rest.iter().position(|p| *p == Some(*who)) {
                rest.remove(i);
            }
        }
        // The seats left keep the random draw of the others.
        let mut rest = rest.into_iter();
        Ok(placed
            .into_iter()
            .map(|slot| slot.unwrap_or_else(|| rest.next().flatten()))
            .collect())
    }
}

/// How many matches against the computer one player may have going at
/// once: the computers of a four-player match play on after the person
/// is out (§Q7/§Q9), each move a search, so the engines' time is bounded
/// per player (docs/abuse.md).
pub const ACTIVE_PER_PLAYER: i64 = 10;

/// Refuse a new match against the computer to a player who already has
/// [`ACTIVE_PER_PLAYER`] going; counted under the player's own lock, so
/// simultaneous requests are counted in turn.
pub fn within_limit(conn: &mut PgConnection, player: Uuid) -> Result<(), Error> {
    crate::limits::serialize(conn, &format!("computer-matches:{player}"))?;
    let computers: Vec<Uuid> = Level::ALL.into_iter().map(player_id).collect();
    let going = crate::matches::reads::active_against(conn, player, computers)?;
    if going >= ACTIVE_PER_PLAYER {
        return Err(Error::rate_limited(format!(
            "at most {ACTIVE_PER_PLAYER} matches against the computer at once; finish or resign one first"
        )));
    }
    Ok(())
}

/// Each seat's side by order of play in the dealt opening: 0 for the
/// side that acts first, then the game's own order of sides from there
/// (§C2: in checkers' draughts variants White moves first, though the
/// game lists Black first).
pub fn side_ranks(state: &MatchState, seats: usize) -> Vec<usize> {
    let sides: Vec<usize> = (0..seats).map(|i| state.side(Seat(i as u8))).collect();
    let order: BTreeSet<usize> = sides.iter().copied().collect();
    let rank = |side: usize| order.iter().position(|s| *s == side).unwrap_or(0);
    let first = (state.to_act().first())
        .and_then(|duty| sides.get(duty.seat.index()))
        .map_or(0, |side| rank(*side));
    (sides.iter())
        .map(|side| (rank(*side) + order.len() - first) % order.len())
        .collect()
}
