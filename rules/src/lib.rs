//! The rules of every Posthorn game: pure, deterministic, no I/O, no clock
//! and no random source of its own (`docs/design.md` §1–2).
//!
//! * [`contract`] — the [`Game`] trait every game implements, with the
//!   shared types (seats, duties, outcomes, errors, randomness) and the
//!   conventions a game module follows. Read it before writing a game.
//! * one module per game: [`checkers`], [`flipchess`], [`janggi`], [`banqi`],
//!   [`four_player_chess`], each of the same shape (below).
//! * [`grid`] — rectangular boards: square index ↔ file and rank,
//!   algebraic names (`a1`), bounds and stepping, shared by the games.
//! * [`listing`] — the legal actions of a position in a game's own
//!   notation, none when the match is over there, and why (the `moves`
//!   example).
//! * [`engine`] — the computer opponents: one [`engine::Engine`] per game,
//!   deciding from the seat's view read into the game's own `View`, with
//!   the game's own move generation and judgements; under it
//!   [`puzzles`] (`engine::puzzles`, re-exported here), the puzzles mined
//!   from play: lines the engines' search proves forced.
//! * [`lessons`] — each game's first steps, taught by playing: the steps
//!   of one game are its `impl Lessons`, and the rules judge each attempt.
//! * [`games!`] — the one list of games. It generates [`GameId`] and
//!   [`MatchState`], the closed enum the service talks to (JSON in and out,
//!   through [`dispatch`]), and the dispatch to each game's engine,
//!   puzzles and first steps ([`GameId::decide`], [`GameId::mine`],
//!   [`GameId::lessons`]), so the service never names a game's types and a
//!   new game costs one line here.
//!
//! The modules sit on floors, each importing only its own floor or those
//! below: `contract` and `grid`; the games; `engine` (with its puzzles),
//! `listing` and `lessons`; `dispatch`; and this root composing them all.
//! A game never reaches up to the engine or the puzzles; what a game's
//! puzzles need of the engine lives under `engine/`. `rules/tests/floors.rs`
//! holds the list and fails on an import above its floor or in a circle.
//!
//! ## One shape per game
//!
//! Every game has the same shape, and a new game copies it
//! (`four_player_chess` shows every part). In `rules/src/<game>/`:
//!
//! * `mod.rs` — the module doc (with the game's Decisions where docs/rules/
//!   is silent), the `Config`, the `View` types, the rule constants
//!   (`PLY_LIMIT`, …) and the `impl Game`, whose `apply` calls
//!   `State::apply` and whose `act` calls `turn::act`. It re-exports what
//!   the service and the tests name: `pub use state::{Action, Event,
//!   State}` and the board's types.
//! * `state.rs` — `Action`, `Event`, `State` with its questions
//!   (`on_move`, `seat_of`, …), and `State::apply`, the fold of one event
//!   (it never draws randomness).
//! * `turn.rs` — `act`: validating an action by a seat into events, each
//!   folded into a scratch copy of the state so that later judgments see
//!   it, then the endings that follow.
//! * `board.rs` — geometry, pieces, moves, the position, move generation
//!   and `perft`.
//! * more files by concept where `board.rs` would pass about 500 lines:
//!   `notation.rs` (the position notation, reading a written move),
//!   `attacks.rs` (check), `moves.rs` (move generation and the
//!   start-of-turn judgments); and a game's own (checkers' `draughts.rs`
//!   and `table.rs`, FlipChess' `cards.rs`). Where a family has variants,
//!   the variant's rules are one small value read by hooks in the board
//!   (checkers' `table.rs`), not a bag of flags.
//!
//! No file passes about 500 lines. A rectangular board takes its square
//! numbering, algebraic names, bounds and stepping from [`grid::Grid`]
//! rather than its own copy; registration, serde and test conventions are
//! in [`contract`].

pub mod banqi;
pub mod checkers;
pub mod contract;
pub mod dispatch;
pub mod drawing;
pub mod engine;
pub mod flipchess;
pub mod four_player_chess;
pub mod grid;
pub mod janggi;
pub mod lessons;
pub mod listing;
pub mod records;

/// Puzzles are the engines' forced lines, so they live under [`engine`],
/// on its floor (`rules/tests/floors.rs`); the service names them here.
pub use engine::puzzles;

pub use contract::{
    About, Departure, Duty, DutyKind, Env, Game, Millis, Outcome, OutcomeKind, PutOut, Random,
    Rating, RuleCode, RuleError, Seat, SplitMix64, Start, Told, Viewer,
};
/// For the service's own schemas, from the same version.
pub use schemars;
#[doc(hidden)]
pub use serde_json;

/// Generate the closed set of games: `GameId` (ids, catalogue) and
/// `MatchState` (one variant per game, every contract call dispatched to
/// [`dispatch`]). `games! { Checkers => checkers::Checkers, … }`; each line
/// is a variant name and a type implementing [`Game`],
/// [`engine::Engine`], [`puzzles::Puzzles`], [`lessons::Lessons`],
/// [`records::Records`], [`engine::analysis::Analyse`] and
/// [`drawing::Drawn`] (every game has a computer opponent, says which of
/// its positions can be puzzles, has its first steps, its records, its
/// analysis and its pictures). Still no trait
/// objects (`docs/design.md` §2). Tests may call it with a list of their own.
#[macro_export]
macro_rules! games {
    ($($Id:ident => $G:ty),+ $(,)?) => {
        /// The games on offer.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum GameId {
            $($Id),+
        }

        impl GameId {
            pub const ALL: &'static [GameId] = &[$(GameId::$Id),+];

            /// The catalogue line.
            pub fn about(self) -> $crate::About {
                match self {
                    $(GameId::$Id => <$G as $crate::Game>::ABOUT),+
                }
            }

            pub fn id(self) -> &'static str {
                self.about().id
            }

            /// The game with this API id, exactly: a variant is not part of
            /// the id (`checkers`, not `checkers/russian`).
            pub fn parse(id: &str) -> Option<GameId> {
                Self::ALL.iter().copied().find(|g| g.id() == id)
            }

            /// A game as the examples and benches name it, `janggi`,
            /// `checkers/russian` or `four_player_chess/ffa`: the game and
            /// its creation options, the part after `/` a mode where
            /// `ABOUT.modes` lists it, else a variant.
            pub fn named(name: &str) -> Option<(GameId, $crate::serde_json::Value)> {
                let (id, choice) = match name.split_once('/') {
                    Some((id, choice)) => (id, Some(choice)),
                    None => (name, None),
                };
                let game = Self::parse(id)?;
                let mut options = $crate::serde_json::Map::new();
                if let Some(choice) = choice {
                    let key = if game.about().modes.contains(&choice) { "mode" } else { "variant" };
                    options.insert(key.into(), choice.into());
                }
                Some((game, options.into()))
            }

            /// The JSON Schemas of the game's options, actions, events
            /// and views.
            pub fn schemas(self) -> $crate::dispatch::Schemas {
                match self {
                    $(GameId::$Id => $crate::dispatch::schemas::<$G>()),+
                }
            }

            /// A computer opponent's action as `seat` at `level`, from
            /// that seat's view read into the game's own `View`
            /// ([`crate::engine::decide`]).
            pub fn decide(
                self,
                view: &$crate::serde_json::Value,
                seat: $crate::Seat,
                level: $crate::engine::Level,
                random: &mut dyn $crate::Random,
            ) -> Result<$crate::serde_json::Value, $crate::RuleError> {
                match self {
                    $(GameId::$Id => $crate::dispatch::decide::<$G>(view, seat, level, random)),+
                }
            }

            /// A puzzle from a finished match's log, if it has one
            /// ([`crate::puzzles::mine`]).
            pub fn mine(
                self,
                config: &$crate::serde_json::Value,
                seats: usize,
                events: &[$crate::serde_json::Value],
            ) -> Result<Option<$crate::engine::puzzles::Found>, $crate::RuleError> {
                match self {
                    $(GameId::$Id => $crate::dispatch::mine::<$G>(config, seats, events)),+
                }
            }

            /// The record of a match's whole log, as `header`'s reader
            /// may see it (§H3, §H4), and its file's extension.
            pub fn record(
                self,
                events: &[$crate::serde_json::Value],
                header: &$crate::records::Header,
            ) -> Result<(String, &'static str), $crate::RuleError> {
                match self {
                    $(GameId::$Id => Ok((
                        $crate::dispatch::record::<$G>(events, header)?,
                        <$G as $crate::records::Records>::EXTENSION,
                    ))),+
                }
            }

            /// The board a view shows, to draw ([`crate::drawing`]).
            pub fn drawing(
                self,
                view: &$crate::serde_json::Value,
            ) -> Result<$crate::drawing::Drawing, $crate::RuleError> {
                match self {
                    $(GameId::$Id => $crate::dispatch::drawing::<$G>(view)),+
                }
            }

            /// A match's frames, the board before play and after each play,
            /// as `viewer` sees them ([`crate::drawing::frames`]).
            pub fn frames(
                self,
                events: &[$crate::serde_json::Value],
                viewer: $crate::Viewer,
            ) -> Result<Vec<$crate::drawing::Drawing>, $crate::RuleError> {
                match self {
                    $(GameId::$Id => $crate::dispatch::frames::<$G>(events, viewer)),+
                }
            }

            /// The engines' judgement of the plays `range` of a match's
            /// whole log ([`crate::engine::analysis`]).
            pub fn judge_plays(
                self,
                events: &[$crate::serde_json::Value],
                effort: $crate::engine::analysis::Effort,
                range: std::ops::Range<usize>,
            ) -> Result<$crate::engine::analysis::Judged, $crate::RuleError> {
                match self {
                    $(GameId::$Id => $crate::dispatch::judge_plays::<$G>(events, effort, range)),+
                }
            }

            /// The engines' judgement of every play of a match's whole log.
            pub fn analyse(
                self,
                events: &[$crate::serde_json::Value],
                effort: $crate::engine::analysis::Effort,
            ) -> Result<$crate::engine::analysis::Analysis, $crate::RuleError> {
                let judged = self.judge_plays(events, effort, 0..usize::MAX)?;
                Ok($crate::engine::analysis::summed(effort, judged.plies))
            }

            /// Every opening a puzzle's events allow (what they hide
            /// laid otherwise), each proved: an attempt is dealt one.
            pub fn puzzle_deals(
                self,
                events: &[$crate::serde_json::Value],
            ) -> Result<Vec<Vec<$crate::serde_json::Value>>, $crate::RuleError> {
                match self {
                    $(GameId::$Id => $crate::dispatch::puzzle_deals::<$G>(events)),+
                }
            }

            /// The figures of the game's forced-line rule.
            pub fn puzzle_rule(self) -> $crate::engine::puzzles::Rule {
                match self {
                    $(GameId::$Id => <$G as $crate::engine::puzzles::Puzzles>::RULE),+
                }
            }

            /// The game's checked puzzles shipped with the rules, one JSON
            /// line each.
            pub fn shipped_puzzles(self) -> &'static str {
                match self {
                    $(GameId::$Id => <$G as $crate::engine::puzzles::Puzzles>::SHIPPED),+
                }
            }

            /// The game's first steps, in order ([`crate::lessons::lessons`]).
            pub fn lessons(self) -> Vec<$crate::lessons::Lesson> {
                match self {
                    $(GameId::$Id => <$G as $crate::lessons::Lessons>::lessons()),+
                }
            }

            /// The engines' own match, for mining puzzles.
            pub fn self_play(
                self,
                config: &$crate::serde_json::Value,
                seats: usize,
                plies: usize,
                seed: u64,
            ) -> Result<Vec<$crate::serde_json::Value>, $crate::RuleError> {
                match self {
                    $(GameId::$Id => $crate::dispatch::self_play::<$G>(config, seats, plies, seed)),+
                }
            }

            /// Count action sequences from a position (`perft`).
            pub fn perft(
                self,
                config: &$crate::serde_json::Value,
                position: &str,
                depth: usize,
            ) -> Result<u64, $crate::RuleError> {
                match self {
                    $(GameId::$Id => $crate::dispatch::perft::<$G>(config, position, depth)),+
                }
            }
        }

        /// The state of one match of any game. Everything crosses as JSON:
        /// actions and configurations are parsed strictly, events and views
        /// are produced already redacted per viewer.
        // One match state lives per request: boxing the larger variants
        // would buy nothing.
        #[expect(clippy::large_enum_variant)]
        #[derive(Clone, Debug, PartialEq)]
        pub enum MatchState {
            $($Id(<$G as $crate::Game>::State)),+
        }

        impl MatchState {
            /// An empty state for `game`, to fold a log into.
            pub fn empty(game: GameId) -> MatchState {
                match game {
                    $(GameId::$Id => MatchState::$Id(Default::default())),+
                }
            }

            pub fn game(&self) -> GameId {
                match self {
                    $(MatchState::$Id(_) => GameId::$Id),+
                }
            }

            /// Check a configuration (`{variant?, mode?, …options}`) and the
            /// seat count, and return the opening events.
            pub fn setup(
                game: GameId,
                config: &$crate::serde_json::Value,
                seats: usize,
                random: &mut dyn $crate::Random,
            ) -> Result<Vec<$crate::serde_json::Value>, $crate::RuleError> {
                match game {
                    $(GameId::$Id => $crate::dispatch::setup::<$G>(config, seats, random)),+
                }
            }

            /// How a configuration's opening stands to fair play.
            pub fn start(
                game: GameId,
                config: &$crate::serde_json::Value,
            ) -> Result<$crate::Start, $crate::RuleError> {
                match game {
                    $(GameId::$Id => $crate::dispatch::start::<$G>(config)),+
                }
            }

            /// The seat counts a configuration allows.
            pub fn seat_range(
                game: GameId,
                config: &$crate::serde_json::Value,
            ) -> Result<std::ops::RangeInclusive<usize>, $crate::RuleError> {
                match game {
                    $(GameId::$Id => $crate::dispatch::seat_range::<$G>(config)),+
                }
            }

            /// Fold a whole log.
            pub fn replay<'a>(
                game: GameId,
                events: impl IntoIterator<Item = &'a $crate::serde_json::Value>,
            ) -> Result<MatchState, $crate::RuleError> {
                let mut state = Self::empty(game);
                for event in events {
                    state.apply(event)?;
                }
                Ok(state)
            }

            pub fn apply(
                &mut self,
                event: &$crate::serde_json::Value,
            ) -> Result<(), $crate::RuleError> {
                match self {
                    $(MatchState::$Id(s) => $crate::dispatch::apply::<$G>(s, event)),+
                }
            }

            /// Parse and validate `action` by `seat`; the new events, unredacted.
            pub fn act(
                &self,
                seat: $crate::Seat,
                action: &$crate::serde_json::Value,
                env: &mut $crate::Env,
            ) -> Result<Vec<$crate::serde_json::Value>, $crate::RuleError> {
                match self {
                    $(MatchState::$Id(s) => $crate::dispatch::act::<$G>(s, seat, action, env)),+
                }
            }

            pub fn legal_actions(&self, seat: $crate::Seat) -> Vec<$crate::serde_json::Value> {
                match self {
                    $(MatchState::$Id(s) => $crate::dispatch::legal_actions::<$G>(s, seat)),+
                }
            }

            pub fn to_act(&self) -> Vec<$crate::Duty> {
                match self {
                    $(MatchState::$Id(s) => <$G as $crate::Game>::to_act(s)),+
                }
            }

            /// The side `seat` started with ([`crate::Game::side`]).
            pub fn side(&self, seat: $crate::Seat) -> usize {
                match self {
                    $(MatchState::$Id(s) => <$G as $crate::Game>::side(s, seat)),+
                }
            }

            /// Each seat's place once over ([`crate::Game::placements`]).
            pub fn placements(&self, seats: usize) -> Vec<usize> {
                match self {
                    $(MatchState::$Id(s) => <$G as $crate::Game>::placements(s, seats)),+
                }
            }

            /// Each seat's team ([`crate::Game::teams`]).
            pub fn teams(&self, seats: usize) -> Vec<usize> {
                match self {
                    $(MatchState::$Id(s) => <$G as $crate::Game>::teams(s, seats)),+
                }
            }

            /// Whether the setup deals a player something private
            /// ([`crate::Game::deals_in_private`]).
            pub fn deals_in_private(&self) -> bool {
                match self {
                    $(MatchState::$Id(_) => <$G as $crate::Game>::deals_in_private()),+
                }
            }

            /// Whether a stored event is a player's own move
            /// ([`crate::Game::is_own_move`]).
            pub fn is_own_move(
                game: GameId,
                event: &$crate::serde_json::Value,
            ) -> Result<bool, $crate::RuleError> {
                match game {
                    $(GameId::$Id => $crate::dispatch::is_own_move::<$G>(event)),+
                }
            }

            /// The round the match is in ([`crate::Game::round`]).
            pub fn round(&self) -> u32 {
                match self {
                    $(MatchState::$Id(s) => <$G as $crate::Game>::round(s)),+
                }
            }

            /// The seat a stored event takes out of play, and how
            /// ([`crate::Game::departure`]).
            pub fn departure(
                game: GameId,
                event: &$crate::serde_json::Value,
            ) -> Result<Option<($crate::Seat, $crate::Departure)>, $crate::RuleError> {
                match game {
                    $(GameId::$Id => $crate::dispatch::departure::<$G>(event)),+
                }
            }

            /// The side a stored event puts out of the match, if any
            /// ([`crate::Game::put_out`]).
            pub fn put_out(
                game: GameId,
                event: &$crate::serde_json::Value,
            ) -> Result<Option<$crate::PutOut>, $crate::RuleError> {
                match game {
                    $(GameId::$Id => $crate::dispatch::put_out::<$G>(event)),+
                }
            }

            /// A stored event told as a turn notice tells a move, read
            /// against this state, the one after the event's append
            /// ([`crate::Game::told`]).
            pub fn told(
                &self,
                event: &$crate::serde_json::Value,
            ) -> Result<Option<$crate::Told>, $crate::RuleError> {
                match self {
                    $(MatchState::$Id(s) => $crate::dispatch::told::<$G>(s, event)),+
                }
            }

            pub fn outcome(&self) -> Option<$crate::Outcome> {
                match self {
                    $(MatchState::$Id(s) => <$G as $crate::Game>::outcome(s)),+
                }
            }

            pub fn view(&self, viewer: $crate::Viewer) -> $crate::serde_json::Value {
                match self {
                    $(MatchState::$Id(s) => $crate::dispatch::view::<$G>(s, viewer)),+
                }
            }

            /// What `viewer` may not see now (the harness's leak check).
            pub fn secrets(&self, viewer: $crate::Viewer) -> Vec<$crate::serde_json::Value> {
                match self {
                    $(MatchState::$Id(s) => <$G as $crate::Game>::secrets(s, viewer)),+
                }
            }

            /// `event` (as stored) as `viewer` may see it.
            pub fn redact(
                game: GameId,
                event: &$crate::serde_json::Value,
                viewer: $crate::Viewer,
            ) -> Result<$crate::serde_json::Value, $crate::RuleError> {
                match game {
                    $(GameId::$Id => $crate::dispatch::redact::<$G>(event, viewer)),+
                }
            }

            pub fn expire(&self, env: &mut $crate::Env) -> Vec<$crate::serde_json::Value> {
                match self {
                    $(MatchState::$Id(s) => $crate::dispatch::expire::<$G>(s, env)),+
                }
            }

            pub fn deadline_passed(&self, duty: &$crate::Duty) -> Vec<$crate::serde_json::Value> {
                match self {
                    $(MatchState::$Id(s) => $crate::dispatch::deadline_passed::<$G>(s, duty)),+
                }
            }
        }
    };
}

games! {
    FlipChess => flipchess::FlipChess,
    Checkers => checkers::Checkers,
    Janggi => janggi::Janggi,
    Banqi => banqi::Banqi,
    FourPlayerChess => four_player_chess::FourPlayerChess,
}
