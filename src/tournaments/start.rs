//! Starting a tournament (docs/tournaments.md): seeds, then every match of a round
//! robin, or the knockout's first pairings, in one transaction under the
//! tournament's lock; and laying out one pairing's match.

use super::bracket::Due;
use super::{EntrantState, Format, Seeding, Status, TournamentRow};
use crate::error::Error;
use crate::lobby::create::{draw_seats, lay_table, Ask, Laid};
use crate::notices::TournamentNews;
use crate::schema::{tournament_matches, tournament_players, tournaments};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::{GameId, Random};
use uuid::Uuid;

/// Whether enough players have joined for the format.
pub fn ready(conn: &mut PgConnection, row: &TournamentRow) -> Result<bool, Error> {
    Ok(joined(conn, row.id)?.len() >= *row.format()?.players().start())
}

/// `user` (its creator) starts the tournament now.
pub fn start_by(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<(), Error> {
    let row = super::load(conn, id, true)?;
    if row.created_by != user {
        return Err(Error::forbidden("only the tournament's creator starts it"));
    }
    if row.status != Status::Open {
        return Err(Error::TournamentStarted(
            "the tournament has started already".into(),
        ));
    }
    start(conn, &row, now, random)
}

/// Start `row` (locked, open): seed the players who joined, then lay out
/// every match due now and tell the players.
pub fn start(
    conn: &mut PgConnection,
    row: &TournamentRow,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<(), Error> {
    let players = joined(conn, row.id)?;
    let least = *row.format()?.players().start();
    if players.len() < least {
        return Err(Error::conflict(format!(
            "a {} needs at least {least} players who joined; {} have",
            row.format()?.id().replace('_', " "),
            players.len()
        )));
    }
    // A block made since they joined still keeps two people apart.
    for (i, user) in players.iter().enumerate() {
        crate::friends::ensure_apart(conn, *user, &players[i + 1..])?;
    }
    let seeds = seed(conn, row, players, random)?;
    diesel::update(tournaments::table.find(row.id))
        .set((
            tournaments::status.eq(Status::Active),
            tournaments::started_at.eq(now),
        ))
        .execute(conn)?;
    let due: Vec<Due> = match row.format()? {
        Format::Knockout => super::bracket::derive(&seeds, &[], &Default::default()).due,
        format => super::standings::rounds(&seeds, format == Format::DoubleRoundRobin)
            .into_iter()
            .enumerate()
            .flat_map(|(round, pairs)| {
                pairs
                    .into_iter()
                    .enumerate()
                    .map(move |(slot, (first, second))| Due {
                        round: round as u32 + 1,
                        slot: slot as u32,
                        game_no: 0,
                        first,
                        second,
                    })
            })
            .collect(),
    };
    for pairing in &due {
        lay_pairing(conn, row, pairing, now, random)?;
    }
    super::tell(conn, row, &seeds, TournamentNews::Started, now)
}

/// [`start`] by itself (at the start time, or at the join that makes
/// enough players after it): a blocked pair among those who joined leaves
/// it open instead (nothing is written before that check), for its
/// creator to sort out; it is not the joiner's refusal.
pub fn start_if_apart(
    conn: &mut PgConnection,
    row: &TournamentRow,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<(), Error> {
    match start(conn, row, now, random) {
        Err(Error::Blocked(_)) => Ok(()),
        other => other,
    }
}

/// The players who joined, in the order they came.
fn joined(conn: &mut PgConnection, id: Uuid) -> Result<Vec<Uuid>, Error> {
    Ok(tournament_players::table
        .filter(tournament_players::tournament_id.eq(id))
        .filter(tournament_players::state.eq(EntrantState::Joined))
        .order((
            tournament_players::updated_at.asc(),
            tournament_players::user_id.asc(),
        ))
        .select(tournament_players::user_id)
        .load(conn)?)
}

/// Seed the players: by their rating in the tournament's game (a new
/// player counts as the start rating, 1500; equal ratings by when they
/// joined), or at random. Written to the players' rows; best first.
fn seed(
    conn: &mut PgConnection,
    row: &TournamentRow,
    mut players: Vec<Uuid>,
    random: &mut dyn Random,
) -> Result<Vec<Uuid>, Error> {
    let perf = perf_of(row);
    let rated = crate::ratings::profile::ratings_in(conn, &perf, &players)?;
    let rating = |u: &Uuid| rated.get(u).copied().unwrap_or(1500.0);
    if row.seeding == Seeding::Random {
        for i in (1..players.len()).rev() {
            players.swap(i, random.below(i as u64 + 1) as usize);
        }
    } else {
        // A stable sort keeps the order of joining among equals.
        players.sort_by(|a, b| rating(b).total_cmp(&rating(a)));
    }
    for (i, user) in players.iter().enumerate() {
        diesel::update(tournament_players::table.find((row.id, *user)))
            .set((
                tournament_players::seed.eq(i as i32 + 1),
                tournament_players::rating.eq(rating(user).round() as i32),
            ))
            .execute(conn)?;
    }
    Ok(players)
}

/// The rating list the tournament's matches count on.
pub fn perf_of(row: &TournamentRow) -> String {
    crate::ratings::perf(&row.game, row.variant.as_deref(), row.mode.as_deref())
}

/// Lay out one pairing's match: both players seated at once, `first` on
/// the side that moves first, on the tournament's terms; recorded as the
/// pairing. The match's own reactions tell the player to move.
pub fn lay_pairing(
    conn: &mut PgConnection,
    row: &TournamentRow,
    due: &Due,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Uuid, Error> {
    let game = GameId::parse(&row.game)
        .ok_or_else(|| Error::internal(format!("a tournament of unknown game {}", row.game)))?;
    let (first, second) = (due.first, due.second);
    // Seat the first player where the rules put the first side.
    let arrange = move |state: &posthorn_rules::MatchState| {
        let ranks = crate::lobby::computers::side_ranks(state, 2);
        Some(if ranks[0] == 0 {
            vec![first, second]
        } else {
            vec![second, first]
        })
    };
    let ask = Ask {
        seated: &[second],
        arrange: Some(&arrange),
        tournament: Some(row.id),
        ..Ask::new(first, 0, "", now)
    };
    let config = row.config();
    let mut people = vec![Some(first), Some(second)];
    let opening = draw_seats(&mut people, game, &config, &ask, None, random)?;
    let laid = Laid {
        game,
        config,
        rated: row.rated,
        turn_seconds: row.turn_seconds,
        opening,
    };
    let (table, _, _) = lay_table(conn, &ask, laid, &mut people, |_| true)?;
    diesel::insert_into(tournament_matches::table)
        .values(super::PairingRow {
            match_id: table.row.id,
            tournament_id: row.id,
            round: due.round as i32,
            slot: due.slot as i32,
            game_no: due.game_no as i32,
            first_player: first,
            second_player: second,
        })
        .execute(conn)?;
    Ok(table.row.id)
}
