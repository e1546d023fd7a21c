//! Solving (docs/puzzles.md): the daily puzzle, the next one near my
//! rating, one move at a time, giving up. An attempt remembers how far
//! along the line it is; the board is the puzzle's opening with that much
//! of the line played, folded by the rules. Nothing of the line beyond what
//! is on the board is sent while the attempt is being played.

use super::day::{day_of, game};
pub use super::day::{Day, Solver};
use super::rating::{self, PuzzleRating};
use super::PuzzleRow;
use crate::closed::AttemptState;
use crate::error::Error;
use crate::schema::{puzzle_attempts, puzzle_days, puzzles};
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::engine::is_talk;
use posthorn_rules::puzzles::Step;
use posthorn_rules::{Env, GameId, MatchState, Seat, SplitMix64, Viewer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// A puzzle as its solver sees it now.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct PuzzleView {
    pub id: Uuid,
    pub game: String,
    /// The configuration (variant or mode) the position is played in.
    #[schema(value_type = Object)]
    pub options: Value,
    /// The seat the solver plays.
    pub seat: u8,
    /// `win`: the line wins the match; `gain`: it wins decisive material.
    pub goal: String,
    /// How many of the solver's moves the line takes.
    pub moves: usize,
    pub rating: i32,
    /// The board as the solver sees it now (the game's own view).
    #[schema(value_type = Object)]
    pub view: Value,
    /// The moves on the board since the start: the solver's and the replies.
    #[schema(value_type = Vec<Object>)]
    pub played: Vec<Step>,
    /// `playing`, `solved` or `given_up`.
    pub state: String,
    /// A wrong move was tried (the attempt then counts as lost).
    pub missed: bool,
    /// The day this is the daily puzzle of, for this attempt.
    pub daily: Option<NaiveDate>,
    /// My moves now, while playing (the rules' list, without resigning
    /// or offers, nor passing where the line never passes): what the
    /// board lets me tap.
    #[schema(value_type = Vec<Object>)]
    pub legal: Vec<Value>,
    /// The whole line, once solved or given up.
    #[schema(value_type = Option<Vec<Object>>)]
    pub solution: Option<Vec<Step>>,
}

/// `POST /v1/puzzles/{id}/moves`'s answer.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct MoveAnswer {
    /// `right` (the replies follow), `solved`, or `not_the_move` (nothing
    /// changes on the board; try again or give up).
    pub verdict: String,
    /// The opponent's replies to a right move.
    #[schema(value_type = Vec<Object>)]
    pub replies: Vec<Step>,
    pub puzzle: PuzzleView,
    /// My puzzle rating in this game, when this move made the attempt
    /// count (accounts only).
    pub my_rating: Option<PuzzleRating>,
    /// The coins this move earned: solving the daily puzzle, and a
    /// streak's bonus (docs/rules/rewards.md §R2); absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coins: Option<i32>,
}

#[derive(Clone, Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = puzzle_attempts)]
struct Attempt {
    user_id: Uuid,
    puzzle_id: Uuid,
    step: i32,
    state: AttemptState,
    missed: bool,
    rated: bool,
    daily: Option<NaiveDate>,
    started_at: DateTime<Utc>,
    finished_at: Option<DateTime<Utc>>,
}

fn line_of(row: &PuzzleRow) -> Result<Vec<Step>, Error> {
    serde_json::from_value(row.line.clone())
        .map_err(|e| Error::Internal(format!("puzzle line: {e}")))
}

fn game_of(row: &PuzzleRow) -> Result<GameId, Error> {
    GameId::parse(&row.game).ok_or_else(|| Error::Internal(format!("puzzle of game {}", row.game)))
}

/// The board `solver`'s attempt is played on after the first `step`
/// actions of the line. Where the puzzle hides pieces (Banqi's face-down
/// ones, docs/puzzles.md), each attempt is dealt one of the ways to lay
/// them, all proved, chosen by who is solving: the same every time they
/// look, another for another solver, so that no one's board tells what
/// lies face down on anyone else's.
fn board(row: &PuzzleRow, solver: Uuid, line: &[Step], step: usize) -> Result<MatchState, Error> {
    let game = game_of(row)?;
    let events = row.events.as_array().cloned().unwrap_or_default();
    // A game that hides nothing has one deal, the puzzle's own: no need
    // to lay it out again on every move.
    let mut deals = match game.about().hides {
        true => game.puzzle_deals(&events).map_err(Error::Rule)?,
        false => Vec::new(),
    };
    let events = match deals.len() {
        0 => events,
        n => deals.swap_remove(deal_for(solver, row.id, n)),
    };
    let mut state = MatchState::replay(game, &events).map_err(Error::Rule)?;
    for s in &line[..step.min(line.len())] {
        for event in act(&state, s.seat, &s.action)? {
            state.apply(&event).map_err(Error::Rule)?;
        }
    }
    Ok(state)
}

/// Which of a puzzle's `deals` ways to lay what it hides `solver` is
/// dealt: spread over solvers, the same for one solver every time.
pub fn deal_for(solver: Uuid, puzzle: Uuid, deals: usize) -> usize {
    ((solver.as_u128() ^ puzzle.as_u128()) % deals.max(1) as u128) as usize
}

/// The events `action` makes, with a fixed randomness: two spellings of
/// one move make the same events.
fn act(state: &MatchState, seat: Seat, action: &Value) -> Result<Vec<Value>, Error> {
    let mut random = SplitMix64::new(0);
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    state.act(seat, action, &mut env).map_err(Error::Rule)
}

fn view_of(row: &PuzzleRow, attempt: &Attempt) -> Result<PuzzleView, Error> {
    let line = line_of(row)?;
    let step = attempt.step as usize;
    let state = board(row, attempt.user_id, &line, step)?;
    let solver = Seat(row.solver as u8);
    let over = attempt.state != AttemptState::Playing;
    Ok(PuzzleView {
        id: row.id,
        game: row.game.clone(),
        options: row.config.clone(),
        seat: solver.0,
        goal: row.goal.as_str().to_owned(),
        moves: line.iter().filter(|s| s.seat == solver).count(),
        rating: row.rating.round() as i32,
        view: state.view(Viewer::Seat(solver)),
        played: line[..step.min(line.len())].to_vec(),
        state: attempt.state.as_str().to_owned(),
        missed: attempt.missed,
        daily: attempt.daily,
        legal: if over {
            Vec::new()
        } else {
            // A pass tapped by mistake is a miss: it is offered only in a
            // puzzle whose line passes (docs/puzzles.md, "Serving").
            let passes = (line.iter()).any(|s| s.seat == solver && s.action["type"] == "pass");
            state
                .legal_actions(solver)
                .into_iter()
                .filter(|a| !is_talk(a) && (passes || a["type"] != "pass"))
                .collect()
        },
        solution: over.then_some(line),
    })
}

fn puzzle(conn: &mut PgConnection, id: Uuid) -> Result<PuzzleRow, Error> {
    puzzles::table
        .find(id)
        .select(PuzzleRow::as_select())
        .first(conn)
        .optional()?
        .ok_or(Error::NotFound("puzzle"))
}

/// My attempt at `id`, begun now if I had none (and marked the day's
/// daily puzzle when it is one: the local day, and when it began).
fn attempt(
    conn: &mut PgConnection,
    user: Uuid,
    id: Uuid,
    day: Option<Day>,
    now: DateTime<Utc>,
) -> Result<Attempt, Error> {
    let daily = day.map(|d| d.date);
    diesel::insert_into(puzzle_attempts::table)
        .values(Attempt {
            user_id: user,
            puzzle_id: id,
            step: 0,
            state: AttemptState::Playing,
            missed: false,
            rated: false,
            daily,
            started_at: now,
            finished_at: None,
        })
        .on_conflict_do_nothing()
        .execute(conn)?;
    if let Some(day) = day {
        // Marked when the attempt is begun as the daily (the insert above
        // wrote its date) or when one begun otherwise turns out to be.
        let unmarked = puzzle_attempts::daily.is_null().or(puzzle_attempts::daily
            .eq(day.date)
            .and(puzzle_attempts::day_began.is_null()));
        diesel::update(puzzle_attempts::table.find((user, id)))
            .filter(unmarked)
            .set((
                puzzle_attempts::daily.eq(day.date),
                puzzle_attempts::day_began.eq(day.began),
            ))
            .execute(conn)?;
    }
    Ok(puzzle_attempts::table
        .find((user, id))
        .select(Attempt::as_select())
        .for_update()
        .first(conn)?)
}

/// A puzzle, as I see it (my attempt begins when I first open it).
pub fn show(
    conn: &mut PgConnection,
    me: Solver,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<PuzzleView, Error> {
    conn.transaction(|conn| {
        let row = puzzle(conn, id)?;
        let attempt = attempt(conn, me.user, id, None, now)?;
        view_of(&row, &attempt)
    })
}

/// Puzzles of middling difficulty the daily one is chosen among.
const DAILY_BAND: (f64, f64) = (1150.0, 1700.0);

/// `game`'s puzzle of `day`, chosen the first time anyone asks: one not
/// daily before, in the middling band where there is one, else the one
/// not daily before nearest the band (a game's dailies repeat only once
/// every puzzle has been one: docs/puzzles.md, "Serving"), picked by a
/// hash of the day so that two servers asking at once agree (and the
/// table's key settles any race).
fn of_the_day(
    conn: &mut PgConnection,
    (game, variant): (GameId, &str),
    day: NaiveDate,
) -> Result<Uuid, Error> {
    let find = |conn: &mut PgConnection| -> Result<Option<Uuid>, Error> {
        Ok(puzzle_days::table
            .find((game.id(), variant, day))
            .select(puzzle_days::puzzle_id)
            .first(conn)
            .optional()?)
    };
    if let Some(id) = find(conn)? {
        return Ok(id);
    }
    let never_daily = puzzles::id.ne_all(puzzle_days::table.select(puzzle_days::puzzle_id));
    let by_day = diesel::dsl::sql::<diesel::sql_types::Text>("md5(puzzles.id::text || ")
        .bind::<diesel::sql_types::Text, _>(day.to_string())
        .sql(")");
    let band = puzzles::rating.between(DAILY_BAND.0, DAILY_BAND.1);
    let base = || {
        puzzles::table
            .filter(puzzles::game.eq(game.id()))
            .filter(puzzles::variant.eq(variant))
            .select(puzzles::id)
    };
    let fresh: Option<Uuid> = base()
        .filter(never_daily)
        .filter(band)
        .order(by_day.clone())
        .first(conn)
        .optional()?;
    let off_band = || {
        diesel::dsl::sql::<diesel::sql_types::Double>("greatest(")
            .bind::<diesel::sql_types::Double, _>(DAILY_BAND.0)
            .sql(" - puzzles.rating, puzzles.rating - ")
            .bind::<diesel::sql_types::Double, _>(DAILY_BAND.1)
            .sql(")")
    };
    let pick: Option<Uuid> = match fresh {
        Some(id) => Some(id),
        None => match base()
            .filter(never_daily)
            .order((off_band(), by_day.clone()))
            .first(conn)
            .optional()?
        {
            Some(id) => Some(id),
            None => base().order(by_day).first(conn).optional()?,
        },
    };
    let pick = pick.ok_or(Error::NotFound("puzzle of that game"))?;
    diesel::insert_into(puzzle_days::table)
        .values((
            puzzle_days::game.eq(game.id()),
            puzzle_days::variant.eq(variant),
            puzzle_days::day.eq(day),
            puzzle_days::puzzle_id.eq(pick),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    find(conn)?.ok_or(Error::NotFound("puzzle of that game"))
}

/// A game and, for a game with variants, one of them: the one asked for,
/// else (`None`) the one `me` plays most, else the game's first (American
/// checkers for a new player). '' for a game without variants.
fn variant_for(
    conn: &mut PgConnection,
    me: Uuid,
    game: GameId,
    asked: Option<&str>,
) -> Result<String, Error> {
    let variants = game.about().variants;
    match asked {
        Some(v) if variants.contains(&v) => Ok(v.to_owned()),
        Some(v) if variants.is_empty() => Err(Error::validation(format!(
            "{} has no variants, so no {v:?}",
            game.id()
        ))),
        Some(v) => Err(Error::validation(format!(
            "unknown variant {v:?} of {}; variants: {}",
            game.id(),
            variants.join(", ")
        ))),
        None if variants.is_empty() => Ok(String::new()),
        None => {
            let most = crate::matches::reads::most_played_variant(conn, me, game.id())?;
            Ok(most
                .filter(|v| variants.contains(&v.as_str()))
                .unwrap_or_else(|| variants[0].to_owned()))
        }
    }
}

/// `GET /v1/puzzles/daily?game=&variant=`: today's puzzle of the game (and
/// variant: by default the one I play most), the day being mine.
pub fn daily(
    conn: &mut PgConnection,
    me: Solver,
    (game_id, variant): (&str, Option<&str>),
    now: DateTime<Utc>,
) -> Result<PuzzleView, Error> {
    let game = game(game_id)?;
    conn.transaction(|conn| {
        let variant = variant_for(conn, me.user, game, variant)?;
        let day = day_of(conn, me.user, now)?;
        let id = of_the_day(conn, (game, &variant), day.date)?;
        let row = puzzle(conn, id)?;
        let attempt = attempt(conn, me.user, id, Some(day), now)?;
        view_of(&row, &attempt)
    })
}

/// `GET /v1/puzzles/next?game=&variant=`: the one I left unfinished, else
/// a new one nearest my puzzle rating (of that variant, when one is
/// named).
pub fn next(
    conn: &mut PgConnection,
    me: Solver,
    (game_id, variant): (&str, Option<&str>),
    now: DateTime<Utc>,
) -> Result<PuzzleView, Error> {
    let game = game(game_id)?;
    conn.transaction(|conn| {
        let variant = match variant {
            Some(_) => Some(variant_for(conn, me.user, game, variant)?),
            None => None,
        };
        let mut open = puzzle_attempts::table
            .inner_join(puzzles::table)
            .filter(puzzle_attempts::user_id.eq(me.user))
            .filter(puzzle_attempts::state.eq(AttemptState::Playing))
            .filter(puzzle_attempts::daily.is_null())
            .filter(puzzles::game.eq(game.id()))
            .select(puzzles::id)
            .into_boxed();
        if let Some(v) = &variant {
            open = open.filter(puzzles::variant.eq(v.clone()));
        }
        let open: Option<Uuid> = open.first(conn).optional()?;
        let id = match open {
            Some(id) => id,
            None => {
                let mine = rating::of(conn, me.user, game.id())?.rating;
                let nearness =
                    diesel::dsl::sql::<diesel::sql_types::Double>("abs(puzzles.rating - ")
                        .bind::<diesel::sql_types::Double, _>(f64::from(mine))
                        .sql(")");
                let tried = puzzle_attempts::table
                    .filter(puzzle_attempts::user_id.eq(me.user))
                    .select(puzzle_attempts::puzzle_id);
                let mut untried = puzzles::table
                    .filter(puzzles::game.eq(game.id()))
                    .filter(puzzles::id.ne_all(tried))
                    .order(nearness)
                    .select(puzzles::id)
                    .into_boxed();
                if let Some(v) = &variant {
                    untried = untried.filter(puzzles::variant.eq(v.clone()));
                }
                (untried.first(conn).optional()?)
                    .ok_or(Error::NotFound("puzzle left in that game"))?
            }
        };
        let row = puzzle(conn, id)?;
        let attempt = attempt(conn, me.user, id, None, now)?;
        view_of(&row, &attempt)
    })
}

fn save(conn: &mut PgConnection, a: &Attempt) -> Result<(), Error> {
    diesel::update(puzzle_attempts::table.find((a.user_id, a.puzzle_id)))
        .set((
            puzzle_attempts::step.eq(a.step),
            puzzle_attempts::state.eq(a.state),
            puzzle_attempts::missed.eq(a.missed),
            puzzle_attempts::rated.eq(a.rated),
            puzzle_attempts::finished_at.eq(a.finished_at),
        ))
        .execute(conn)?;
    Ok(())
}

/// Count the attempt once, for an account: `solved` clean or not.
fn count(
    conn: &mut PgConnection,
    me: Solver,
    row: &PuzzleRow,
    a: &mut Attempt,
    solved: bool,
) -> Result<Option<PuzzleRating>, Error> {
    if a.rated || me.guest {
        return Ok(None);
    }
    a.rated = true;
    rating::record(conn, me.user, row, solved).map(Some)
}

/// `POST /v1/puzzles/{id}/moves`: one move of mine. An illegal one is
/// refused by the rules and changes nothing; a legal one that is not the
/// line's is "not the move" (and the attempt counts as lost); the right
/// one brings the replies, or solves the puzzle.
pub fn play(
    conn: &mut PgConnection,
    me: Solver,
    id: Uuid,
    action: Value,
    now: DateTime<Utc>,
) -> Result<MoveAnswer, Error> {
    conn.transaction(|conn| {
        let row = puzzle(conn, id)?;
        let mut a = attempt(conn, me.user, id, None, now)?;
        if a.state != AttemptState::Playing {
            return Err(Error::conflict("this puzzle is over for you: open another"));
        }
        let line = line_of(&row)?;
        let solver = Seat(row.solver as u8);
        let step = a.step as usize;
        let state = board(&row, me.user, &line, step)?;
        if is_talk(&action) {
            return Err(Error::unacceptable(
                "a puzzle takes moves only: resigning and offers are not moves",
            ));
        }
        let mine = act(&state, solver, &action)?;
        let expected = line
            .get(step)
            .ok_or_else(|| Error::Internal("a line played out".into()))?;
        let mut replies = Vec::new();
        let (verdict, my_rating) = if mine != act(&state, solver, &expected.action)? {
            a.missed = true;
            ("not_the_move", count(conn, me, &row, &mut a, false)?)
        } else {
            let mut next = step + 1;
            while let Some(reply) = line.get(next).filter(|s| s.seat != solver) {
                replies.push(reply.clone());
                next += 1;
            }
            a.step = next as i32;
            if next < line.len() {
                ("right", None)
            } else {
                a.state = AttemptState::Solved;
                a.finished_at = Some(now);
                let clean = !a.missed;
                ("solved", count(conn, me, &row, &mut a, clean)?)
            }
        };
        save(conn, &a)?;
        let coins = match a.daily {
            Some(day) if verdict == "solved" && !me.guest => {
                Some(pay_daily(conn, me, &row, day, now)?)
            }
            _ => None,
        };
        Ok(MoveAnswer {
            verdict: verdict.into(),
            replies,
            puzzle: view_of(&row, &a)?,
            my_rating,
            coins: coins.filter(|c| *c > 0),
        })
    })
}

/// §R2: the daily puzzle of `day` solved pays, with the streak it makes
/// (counted as `GET /v1/me/puzzles` counts it), in the attempt's
/// transaction.
fn pay_daily(
    conn: &mut PgConnection,
    me: Solver,
    row: &PuzzleRow,
    day: NaiveDate,
    now: DateTime<Utc>,
) -> Result<i32, Error> {
    let streak = super::streak::mine(conn, me, &row.game, now)?.streak;
    crate::coins::award::daily_puzzle(conn, me.user, &row.game, day, streak, now)
}

/// `POST /v1/puzzles/{id}/give-up`: the solution shown; the attempt
/// counts as lost if it had not counted yet.
pub fn give_up(
    conn: &mut PgConnection,
    me: Solver,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<PuzzleView, Error> {
    conn.transaction(|conn| {
        let row = puzzle(conn, id)?;
        let mut a = attempt(conn, me.user, id, None, now)?;
        if a.state == AttemptState::Playing {
            count(conn, me, &row, &mut a, false)?;
            a.state = AttemptState::GivenUp;
            a.finished_at = Some(now);
            save(conn, &a)?;
        }
        view_of(&row, &a)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #68 item 3: each solver's board is laid as their deal says,
    /// and two deals of a hidden-piece puzzle lay it differently.
    #[test]
    fn each_solver_is_dealt_their_own_layout_of_a_hidden_piece_puzzle() {
        // A shipped puzzle of any game with more than one deal (Banqi's
        // hidden pieces, today).
        let (row, deals) = (GameId::ALL.iter())
            .flat_map(|game| game.shipped_puzzles().lines())
            .find_map(|line| {
                let (game, config, found) = super::super::read_mined(line).ok()?;
                let deals = game.puzzle_deals(&found.events).ok()?;
                let row = PuzzleRow {
                    id: Uuid::from_u128(7),
                    game: game.id().into(),
                    config,
                    events: Value::from(found.events.clone()),
                    seats: 2,
                    solver: i16::from(found.solver.0),
                    line: serde_json::to_value(&found.line).ok()?,
                    goal: crate::closed::PuzzleGoal::Gain,
                    depth: 7,
                    margin: 0,
                    source: String::new(),
                    rating: 1500.0,
                    deviation: 300.0,
                    volatility: 0.06,
                    plays: 0,
                    created_at: DateTime::<Utc>::default(),
                    variant: String::new(),
                };
                (deals.len() > 1).then_some((row, deals))
            })
            .expect("a shipped puzzle with pieces face down");
        let laid = |state: &MatchState| state.secrets(Viewer::Spectator);
        let mut seen = Vec::new();
        let game = GameId::parse(&row.game).unwrap();
        for who in 0..64u128 {
            let solver = Uuid::from_u128(who);
            let board = board(&row, solver, &[], 0).unwrap();
            let deal = deal_for(solver, row.id, deals.len());
            let expected = MatchState::replay(game, &deals[deal]).unwrap();
            assert_eq!(
                laid(&board),
                laid(&expected),
                "solver {who} is dealt deal {deal}"
            );
            if !seen.contains(&laid(&board)) {
                seen.push(laid(&board));
            }
        }
        assert!(seen.len() > 1, "solvers are dealt more than one layout");
    }
}
