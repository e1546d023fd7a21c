//! Reading a tournament (docs/tournaments.md): its progress derived from its
//! matches (standings, crosstable, bracket), the view, and my list.

use super::bracket::{self, Bracket, Pairing, Played};
use super::standings::{self, Line, Verdict};
use super::{Entrant, EntrantState, Format, PairingRow, Status, TournamentRow};
use crate::error::Error;
use crate::matches::MatchStatus;
use crate::players::Player;
use crate::schema::{tournament_players, tournaments};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use utoipa::ToSchema;
use uuid::Uuid;

/// One pairing's match as the tournament reads it.
#[derive(Clone, Debug)]
pub struct GameState {
    pub pairing: PairingRow,
    pub status: MatchStatus,
    pub seq: i32,
    /// The first player's score once the match is over.
    pub first_scored: Option<f64>,
}

/// Everything derived from the matches.
pub struct Progress {
    /// The players who started, best seed first.
    pub seeds: Vec<Uuid>,
    pub players: HashMap<Uuid, Player>,
    pub entrants: Vec<Entrant>,
    pub games: Vec<GameState>,
    /// A round robin's table (empty for a knockout).
    pub standings: Vec<Line>,
    /// A knockout's bracket (empty for a round robin).
    pub bracket: Bracket,
}

/// Every pairing's match with its result: two reads.
fn games(conn: &mut PgConnection, id: Uuid) -> Result<Vec<GameState>, Error> {
    let pairings = super::pairings(conn, id)?;
    let ids: Vec<Uuid> = pairings.iter().map(|p| p.match_id).collect();
    let standings = crate::matches::reads::standings(conn, &ids)?;
    Ok(pairings
        .into_iter()
        .filter_map(|pairing| {
            let standing = standings.get(&pairing.match_id)?;
            let (status, seq, result) = (standing.status, standing.seq, standing.result.clone());
            let seat = *standing.seats.get(&pairing.first_player)?;
            let first_scored = match status {
                MatchStatus::Finished => super::first_scored(result.as_ref(), seat as usize),
                _ => None,
            };
            Some(GameState {
                pairing,
                status,
                seq,
                first_scored,
            })
        })
        .collect())
}

/// The tournament's progress: seeds, games, standings or bracket.
pub fn progress(conn: &mut PgConnection, row: &TournamentRow) -> Result<Progress, Error> {
    let entrants = super::entrants(conn, row.id)?;
    let seeds: Vec<Uuid> = (entrants.iter())
        .filter(|e| e.seed.is_some())
        .map(|e| e.user_id)
        .collect();
    let players = crate::players::load(conn, entrants.iter().map(|e| e.user_id).collect())?;
    let games = games(conn, row.id)?;
    let withdrawn: HashSet<Uuid> = (entrants.iter())
        .filter(|e| e.state == EntrantState::Withdrawn)
        .map(|e| e.user_id)
        .collect();
    let (standings, bracket) = if row.format()? == Format::Knockout {
        let played: Vec<Played> = (games.iter())
            .map(|g| Played {
                round: g.pairing.round as u32,
                slot: g.pairing.slot as u32,
                game_no: g.pairing.game_no as u32,
                first: g.pairing.first_player,
                second: g.pairing.second_player,
                first_scored: g.first_scored,
            })
            .collect();
        let bracket = if seeds.is_empty() {
            empty_bracket()
        } else {
            bracket::derive(&seeds, &played, &withdrawn)
        };
        (Vec::new(), bracket)
    } else {
        let named: Vec<(Uuid, String)> =
            (seeds.iter()).map(|u| (*u, name_of(&players, u))).collect();
        let played: Vec<standings::Game> = (games.iter())
            .map(|g| standings::Game {
                first: g.pairing.first_player,
                second: g.pairing.second_player,
                first_scored: g.first_scored,
            })
            .collect();
        (standings::table(&named, &played), empty_bracket())
    };
    Ok(Progress {
        seeds,
        players,
        entrants,
        games,
        standings,
        bracket,
    })
}

/// A player's display name (empty for one whose account is gone).
pub fn name_of(players: &HashMap<Uuid, Player>, user: &Uuid) -> String {
    players
        .get(user)
        .map(|p| p.display_name.clone())
        .unwrap_or_default()
}

fn empty_bracket() -> Bracket {
    Bracket {
        rounds: Vec::new(),
        due: Vec::new(),
        champion: None,
    }
}

/// One player of the tournament, as the view shows them.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntrantView {
    pub player: Player,
    /// `invited`, `joined`, `declined` or `withdrawn`.
    pub state: String,
    /// 1 for the top seed, once started.
    pub seed: Option<i32>,
    /// Their rating in the game when it started.
    pub rating: Option<i32>,
}

/// One match of the tournament.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentMatch {
    pub match_id: Uuid,
    /// A round robin's round, or a knockout's (1 = the first).
    pub round: i32,
    pub slot: i32,
    /// 0, then 1 and 2 for a drawn knockout pairing's replays.
    pub game_no: i32,
    /// Moves first.
    pub first: Uuid,
    pub second: Uuid,
    pub status: MatchStatus,
    /// The first player's score (1, 0.5, 0) once over.
    pub first_scored: Option<f64>,
}

/// A round robin's crosstable: `cells[i][j]` holds the scores of the
/// player of row `i` against the player of column `j`, one per game
/// ("1", "½", "0", or "*" while on), players in standings order.
#[derive(Debug, Serialize, ToSchema)]
pub struct Crosstable {
    pub players: Vec<Uuid>,
    pub cells: Vec<Vec<Vec<String>>>,
}

/// `GET /v1/tournaments/{id}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentView {
    pub id: Uuid,
    pub name: String,
    pub format: Format,
    pub game: String,
    pub variant: Option<String>,
    pub mode: Option<String>,
    /// The game's other options, as every match of it is created with
    /// (shown to invitees before they join).
    #[schema(value_type = Object)]
    pub options: Value,
    pub turn_hours: f64,
    pub rated: bool,
    /// `rating` or `random` (a knockout's seeds).
    pub seeding: String,
    /// `open` (taking players), `active` or `finished`.
    pub status: String,
    pub created_by: Uuid,
    pub created_at: DateTime<Utc>,
    pub starts_at: Option<DateTime<Utc>>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// My part in it, if any.
    pub my_state: Option<String>,
    /// The invitation link (while open, for those in it): anyone who
    /// opens it may join.
    pub invite_url: Option<String>,
    pub players: Vec<EntrantView>,
    /// A round robin's standings (ties broken as docs/tournaments.md says).
    pub standings: Vec<Line>,
    pub crosstable: Option<Crosstable>,
    /// A knockout's rounds of pairings.
    pub bracket: Option<Vec<Vec<Pairing>>>,
    pub champion: Option<Uuid>,
    pub matches: Vec<TournamentMatch>,
}

/// The tournament as `user` sees it: those in it (invited, joined, or
/// who left) see it, and anyone holding its invitation `code` (to join).
pub fn view(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    code: Option<&str>,
    public_url: &str,
) -> Result<TournamentView, Error> {
    let row = super::load(conn, id, false)?;
    let progress = progress(conn, &row)?;
    let mine = progress.entrants.iter().find(|e| e.user_id == user);
    // The invitation code shows it to someone not in it while it takes
    // players; after that it is its players' only.
    let by_code = row.status == Status::Open && code == Some(row.invite_code.as_str());
    if mine.is_none() && !by_code {
        return Err(Error::not_found("tournament"));
    }
    let my_state = mine.map(|e| e.state);
    let in_it = matches!(
        my_state,
        Some(EntrantState::Invited) | Some(EntrantState::Joined)
    );
    let players =
        crate::players::load(conn, progress.entrants.iter().map(|e| e.user_id).collect())?;
    let crosstable = (row.format()? != Format::Knockout && row.status != Status::Open)
        .then(|| crosstable(&progress));
    Ok(TournamentView {
        id: row.id,
        name: row.name.clone(),
        format: row.format()?,
        game: row.game.clone(),
        variant: row.variant.clone(),
        mode: row.mode.clone(),
        options: other_options(&row.options),
        turn_hours: row.turn_seconds as f64 / 3600.0,
        rated: row.rated,
        seeding: row.seeding.as_str().to_owned(),
        status: row.status.as_str().to_owned(),
        created_by: row.created_by,
        created_at: row.created_at,
        starts_at: row.starts_at,
        started_at: row.started_at,
        finished_at: row.finished_at,
        my_state: my_state.map(|s| s.as_str().to_owned()),
        invite_url: (in_it && row.status == Status::Open).then(|| invite_url(public_url, &row)),
        // Who declined is the creator's to know.
        players: (progress.entrants.iter())
            .filter(|e| e.state != EntrantState::Declined || user == row.created_by)
            .filter_map(|e| {
                Some(EntrantView {
                    player: players.get(&e.user_id)?.clone(),
                    state: e.state.as_str().to_owned(),
                    seed: e.seed,
                    rating: e.rating,
                })
            })
            .collect(),
        standings: progress.standings.clone(),
        crosstable,
        bracket: (row.format()? == Format::Knockout && row.status != Status::Open)
            .then(|| progress.bracket.rounds.clone()),
        champion: progress.bracket.champion,
        matches: (progress.games.iter())
            .map(|g| TournamentMatch {
                match_id: g.pairing.match_id,
                round: g.pairing.round,
                slot: g.pairing.slot,
                game_no: g.pairing.game_no,
                first: g.pairing.first_player,
                second: g.pairing.second_player,
                status: g.status,
                first_scored: g.first_scored,
            })
            .collect(),
    })
}

/// A configuration without its variant and mode (shown on their own).
fn other_options(config: &Value) -> Value {
    let mut options = config.as_object().cloned().unwrap_or_default();
    options.remove("variant");
    options.remove("mode");
    Value::Object(options)
}

/// The web client's page for the tournament, with the code that lets
/// anyone who opens it join.
pub fn invite_url(public_url: &str, row: &TournamentRow) -> String {
    format!(
        "{}/tournaments/{}?code={}",
        public_url.trim_end_matches('/'),
        row.id,
        row.invite_code
    )
}

fn crosstable(progress: &Progress) -> Crosstable {
    let order: Vec<Uuid> = progress.standings.iter().map(|l| l.user).collect();
    let at = |u: Uuid| order.iter().position(|o| *o == u);
    let mut cells = vec![vec![Vec::new(); order.len()]; order.len()];
    let mark = |s: Option<f64>| match s {
        None => "*".to_owned(),
        Some(s) => match Verdict::of(s) {
            Verdict::Won => "1".to_owned(),
            Verdict::Drew => "½".to_owned(),
            Verdict::Lost => "0".to_owned(),
        },
    };
    for g in &progress.games {
        let (Some(a), Some(b)) = (at(g.pairing.first_player), at(g.pairing.second_player)) else {
            continue;
        };
        cells[a][b].push(mark(g.first_scored));
        cells[b][a].push(mark(g.first_scored.map(|s| 1.0 - s)));
    }
    Crosstable {
        players: order,
        cells,
    }
}

/// One line of my tournaments.
#[derive(Debug, Serialize, ToSchema, Queryable)]
pub struct TournamentSummary {
    pub id: Uuid,
    pub name: String,
    pub format: String,
    pub game: String,
    pub status: String,
    /// My part: `invited`, `joined`, `declined` or `withdrawn`.
    pub my_state: String,
    pub created_at: DateTime<Utc>,
}

/// The tournaments I am or was in, newest first.
pub fn mine(conn: &mut PgConnection, user: Uuid) -> Result<Vec<TournamentSummary>, Error> {
    Ok(tournaments::table
        .inner_join(tournament_players::table)
        .filter(tournament_players::user_id.eq(user))
        .order(tournaments::created_at.desc())
        .limit(100)
        .select((
            tournaments::id,
            tournaments::name,
            tournaments::format,
            tournaments::game,
            tournaments::status,
            tournament_players::state,
            tournaments::created_at,
        ))
        .load(conn)?)
}
