//! Ratings (docs/decisions/ratings.md). A perf is a game with its variant or mode
//! (`checkers/american`, `janggi`, `four_player_chess/ffa`). Two-player
//! games use Glicko-2 and four-player chess Weng-Lin (both from the
//! `skillratings` crate; no rating maths here), updated per match in the
//! transaction that records its end.
//!
//! * **What counts**: a match created `rated: true` whose players are all
//!   registered; one in which some player never made a move ends
//!   *aborted* and unrated, except in a game that deals private hands
//!   (FlipChess: no hand shopping, docs/decisions/ratings.md). Abandonment
//!   is a loss like any other.
//! * **Locking**: the rows of every player are created if missing and
//!   then locked in user-id order, and the board counts are changed in
//!   rating order, so two matches of one player ending at the same moment
//!   both count and never deadlock.
//! * **The board**: a player is on it while established (deviation at most
//!   [`PROVISIONAL_ABOVE`]) and active (a rated match within
//!   [`ACTIVE_DAYS`]); `rating_counts` holds how many board players stand
//!   at each whole rating, so a rank is a sum over the ratings above —
//!   bounded by the spread of ratings, never a count of the players.

pub mod board;
pub mod profile;
pub mod update;

use crate::matches::MatchRow;

/// Glicko-2's start (`skillratings` defaults: 1500, 350, 0.06).
pub const START_RATING: f64 = 1500.0;
/// A rating is provisional while its deviation is above this.
pub const PROVISIONAL_ABOVE: f64 = 110.0;
/// Players with no rated match for this long leave the board.
pub const ACTIVE_DAYS: i64 = 180;
/// Weng-Lin's mu and sigma are shown on Glicko's scale: times this
/// (25 → 1500, 25/3 → 500).
pub const WENG_LIN_SCALE: f64 = 60.0;

/// The title beside a rating in `perf`, from the game's own list
/// (`About::titles`: Janggi's 급 and 단); none where the game has none.
pub fn title(perf: &str, rating: i32) -> Option<&'static str> {
    let game = posthorn_rules::GameId::parse(perf.split('/').next().unwrap_or_default())?;
    game.about()
        .titles
        .iter()
        .rev()
        .find(|(from, _)| rating >= *from)
        .map(|(_, t)| *t)
}

/// The rating model of a perf's game (`About::rating`).
pub fn model(perf: &str) -> posthorn_rules::Rating {
    posthorn_rules::GameId::parse(perf.split('/').next().unwrap_or_default())
        .map_or(posthorn_rules::Rating::Pairwise, |g| g.about().rating)
}

/// The perf a match is rated in.
pub fn perf_of(row: &MatchRow) -> String {
    perf(&row.game, row.variant.as_deref(), row.mode.as_deref())
}

/// The rating list of `game` in its variant or mode.
pub fn perf(game: &str, variant: Option<&str>, mode: Option<&str>) -> String {
    match (variant, mode) {
        (Some(v), _) => format!("{game}/{v}"),
        (None, Some(m)) => format!("{game}/{m}"),
        (None, None) => game.to_owned(),
    }
}

/// Every perf on offer, for checking a path.
pub fn perfs() -> Vec<String> {
    let mut all = Vec::new();
    for game in posthorn_rules::GameId::ALL {
        let about = game.about();
        let choices: Vec<&str> = about.variants.iter().chain(about.modes).copied().collect();
        if choices.is_empty() {
            all.push(about.id.to_owned());
        }
        all.extend(choices.iter().map(|c| format!("{}/{c}", about.id)));
    }
    all
}

pub fn is_weng_lin(perf: &str) -> bool {
    model(perf) == posthorn_rules::Rating::Placings
}
