//! The contract every Posthorn game fulfils, and the small types it shares.
//!
//! A match is a fold over an append-only list of events (`docs/design.md` §2):
//!
//! ```text
//! setup(config, random)             -> [Event]      opening facts, randomness recorded
//! state = fold(apply, State::default(), events)
//! act(state, seat, action, env)     -> [Event]      validated new facts, or RuleError
//! expire(state, env)                -> [Event]      short windows closed by time (F8)
//! deadline_passed(state, duty)      -> [Event]      that duty's §T deadline passed
//! to_act / legal_actions / outcome / view / redact / told  read-only questions
//! ```
//!
//! How each requirement of the five games maps onto it:
//!
//! * **Seats, teams, elimination, points** — a seat is an index `0..n`.
//!   [`Outcome`] names the winning seats (a team is several seats), and carries
//!   per-seat `scores` for points games. Elimination is a game event the
//!   game names through [`Game::put_out`] (the service tells every player
//!   of it); the eliminated seat simply stops appearing in [`Game::to_act`].
//! * **Hidden information** (§H) — nothing leaves the crate except through
//!   [`Game::view`] and [`Game::redact`], both per [`Viewer`]. Events hold the
//!   full facts (the service stores them); `redact` blanks what the viewer may
//!   not see (a drawn card becomes "a card").
//! * **Randomness** (§H2) — only `setup` and `act` receive a [`Random`]; what
//!   they draw is written into the events, and `apply` never draws. A replay
//!   is `fold(events)` and reproduces the match exactly.
//! * **Turns of several steps** — an action is one step (play a card, move,
//!   end the turn). [`Game::to_act`] reports who owes what now, so a seat can
//!   owe several steps in a row.
//! * **Decisions owed off-move** — `to_act` may list several [`Duty`]s at
//!   once, each with its [`DutyKind`] (a draw-offer reply, the FlipChess flip
//!   decision), not only "the seat on move".
//! * **Short windows and deadlines** — time is an input ([`Env::now`], epoch
//!   milliseconds from the server's clock). A duty may carry `closes_at` for a
//!   short window (the 3-second "last card!" call, §F8); the service calls
//!   [`Game::expire`] at or after it and appends what it returns. The long
//!   correspondence deadline (§T) belongs to the service, which calls
//!   [`Game::deadline_passed`] with the duty whose deadline expired; the game
//!   says what that means (abandonment, an offer lapsing).
//!
//! ## Conventions for a game module
//!
//! * **Layout**: every game has the same shape, and a new game copies
//!   it: see "One shape per game" in the [crate docs](crate) — `mod.rs`,
//!   `state.rs`, `turn.rs`, `board.rs`, more files by concept, the shared
//!   [`crate::grid::Grid`], no file past about 500 lines.
//! * **Registration**: one line in the `games!` list in `lib.rs`, and
//!   one line in `rules/tests/games.rs` for each variant or mode, which
//!   runs the generic harness; a perft file `rules/tests/data/<game>.tsv`
//!   (`<game>-<variant>.tsv` per variant) where the game has a position
//!   notation. Every listed game has a computer opponent: an
//!   [`crate::engine::Engine`] in `engine/<game>.rs`, deciding from the
//!   game's own `View` (which therefore reads back from its JSON); its
//!   [`crate::puzzles::Puzzles`] beside it; and its first steps, an
//!   [`crate::lessons::Lessons`] in `lessons.rs`.
//! * **Self-description**: [`Game::ABOUT`] is the catalogue line — only
//!   what is playable is listed. `Config.variant` / `Config.mode` are serde
//!   enums with `#[serde(rename_all = "snake_case")]` whose names equal
//!   `ABOUT.variants` / `ABOUT.modes`, the default first; configurations
//!   use `deny_unknown_fields`.
//! * **Serde tagging**: actions and events are `#[serde(tag = "type",
//!   rename_all = "snake_case")]`; actions also `deny_unknown_fields`, with
//!   empty braces (`Resign {}`) for variants without fields, since serde
//!   ignores unknown fields on unit variants. Every game accepts
//!   `{"type": "resign"}`; `grant_time` is the service's own, never a game
//!   action. The acting seat is not in the action (the service passes it).
//! * **Spelling**: the API says `colour` (British), everywhere: fields,
//!   views, actions. Seats are numbers `0..n`; squares are in the game's
//!   own notation.
//! * **Hidden information**: events carry the full facts; `redact` blanks
//!   them per viewer and [`Game::secrets`] states what each viewer may not
//!   see, which the harness checks on every view and event of every
//!   playout.
//! * **Tests**: one test per rule clause, named after its `docs/rules/`
//!   section (`c1_man_reaching_the_far_row_is_crowned`,
//!   `f7_free_flip_…`); each `**Decision**` constant lives in one named
//!   place with a `docs/rules/ §` comment.
//!
//! ```
//! use posthorn_rules::checkers::{Checkers, Config, Action};
//! use posthorn_rules::{Game, Env, Seat, SplitMix64, Viewer};
//!
//! let mut random = SplitMix64::new(7);
//! let mut env = Env { now: 0, random: &mut random };
//! let mut state = Default::default();
//! for event in Checkers::setup(&Config::default(), 2, env.random).unwrap() {
//!     Checkers::apply(&mut state, &event).unwrap();
//! }
//! let black = Seat(0); // §C1: Black moves first
//! let events = Checkers::act(&state, black, &"11-15".parse::<Action>().unwrap(), &mut env).unwrap();
//! for event in &events {
//!     Checkers::apply(&mut state, event).unwrap();
//! }
//! assert_eq!(Checkers::to_act(&state)[0].seat, Seat(1));
//! let _for_white = Checkers::view(&state, Viewer::Seat(Seat(1)));
//! ```

use schemars::JsonSchema;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::fmt;

/// Epoch milliseconds of the server's clock (§T5).
pub type Millis = i64;

/// A seat at the table: `0..seats`. What a seat plays (a colour, an army) is
/// the game's business and may change during a match (FlipChess flips).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct Seat(pub u8);

impl Seat {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Who is looking: a seat sees its own secrets, a spectator only public facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    Seat(Seat),
    Spectator,
}

/// What kind of action a seat owes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DutyKind {
    /// It is the seat's turn (possibly in the middle of a several-step turn).
    Turn,
    /// The seat must answer the opponent's draw offer.
    DrawReply,
    /// FlipChess §F7: flip or concede after losing the king in rounds 1–3.
    FlipDecision,
    /// FlipChess §F8: the seat's "last card!" window is open.
    LastCard,
}

/// One action owed by one seat. `closes_at` is set for short windows that
/// close by time rather than by the correspondence deadline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Duty {
    pub seat: Seat,
    pub kind: DutyKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closes_at: Option<Millis>,
}

impl Duty {
    pub fn new(seat: Seat, kind: DutyKind) -> Self {
        Duty {
            seat,
            kind,
            closes_at: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    Win,
    Draw,
    Points,
}

/// How a match ended. `reason` is a stable snake_case code (`no_legal_move`,
/// `threefold_repetition`, `resigned`, `abandoned`, …; docs/api.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Outcome {
    pub outcome: OutcomeKind,
    pub winners: Vec<Seat>,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scores: Option<Vec<f64>>,
}

impl Outcome {
    pub fn win(winners: Vec<Seat>, reason: &str) -> Self {
        Outcome {
            outcome: OutcomeKind::Win,
            winners,
            reason: reason.to_owned(),
            scores: None,
        }
    }

    pub fn draw(reason: &str) -> Self {
        Outcome {
            outcome: OutcomeKind::Draw,
            winners: Vec::new(),
            reason: reason.to_owned(),
            scores: None,
        }
    }
}

/// The closed set of reasons the rules refuse something. The service maps
/// each to an HTTP status with an exhaustive `match`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RuleCode {
    /// The input could not be read as an action, position or setting.
    ValidationFailed,
    /// The action is not allowed by the rules now.
    IllegalAction,
    /// Another seat owes the next action.
    NotYourTurn,
    /// The match is over.
    MatchFinished,
}

impl RuleCode {
    /// The stable machine code (docs/api.md §Errors).
    pub fn as_str(self) -> &'static str {
        match self {
            RuleCode::ValidationFailed => "validation_failed",
            RuleCode::IllegalAction => "illegal_action",
            RuleCode::NotYourTurn => "not_your_turn",
            RuleCode::MatchFinished => "match_finished",
        }
    }
}

impl PartialEq<&str> for RuleCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for RuleCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the rules refused: a stable machine `code` and words a player
/// understands. Never carries hidden information.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    pub code: RuleCode,
    pub message: String,
}

impl RuleError {
    pub fn new(code: RuleCode, message: impl Into<String>) -> Self {
        RuleError {
            code,
            message: message.into(),
        }
    }
    /// The action is not allowed by the rules now.
    pub fn illegal(message: impl Into<String>) -> Self {
        Self::new(RuleCode::IllegalAction, message)
    }
    /// The input could not be read as an action, position or setting.
    pub fn malformed(message: impl Into<String>) -> Self {
        Self::new(RuleCode::ValidationFailed, message)
    }
    /// A stored event that cannot be read: `what` it holds, and why.
    pub fn unreadable(what: &str, why: RuleError) -> Self {
        Self::malformed(format!(
            "a stored {what} that does not parse: {}",
            why.message
        ))
    }
    pub fn not_your_turn() -> Self {
        Self::new(RuleCode::NotYourTurn, "it is not your turn")
    }
    pub fn finished() -> Self {
        Self::new(RuleCode::MatchFinished, "the match is over")
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for RuleError {}

/// A source of uniform random numbers, supplied by the caller. The rules crate
/// has no random source of its own; whatever is drawn is recorded in events.
pub trait Random {
    fn next_u64(&mut self) -> u64;

    /// Uniform in `0..n` (`n > 0`), without modulo bias.
    fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }
}

/// A small deterministic generator for seeded tests and playouts. The
/// service seeds one from the operating system per action.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
}

impl Random for SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// What the world supplies to a decision: the server's time and randomness.
pub struct Env<'a> {
    pub now: Millis,
    pub random: &'a mut dyn Random,
}

/// What a game says of itself: its catalogue line (docs/api.md `GET /v1/games`)
/// and the bounds the rules harness holds it to.
#[derive(Clone, Copy, Debug)]
pub struct About {
    /// The API id (`checkers`), also the `game` of a match.
    pub id: &'static str,
    pub name: &'static str,
    /// The variants on offer, the default first (`Config.variant`). Only
    /// what is playable: a variant not built yet is not listed.
    pub variants: &'static [&'static str],
    /// The modes on offer, the default first (`Config.mode`).
    pub modes: &'static [&'static str],
    /// The fewest and most seats any configuration takes.
    pub seats: (usize, usize),
    /// The other creation options, by name, and what each does.
    pub options: &'static [(&'static str, &'static str)],
    /// No match takes more actions than this before the rules end it
    /// (the game's own ply caps, with every step of a turn counted).
    pub action_cap: usize,
    /// How its results are rated.
    pub rating: Rating,
    /// Whether the game keeps anything from a seat at some point (a hand,
    /// a deck, face-down pieces, §H). The service never undoes a move or
    /// plays a line out where this holds: `secrets` says what is hidden
    /// now, and may say nothing late in a match while a hand is still
    /// hidden.
    pub hides: bool,
    /// Titles shown beside a rating, from the lowest rating each starts
    /// at (Janggi's 급 and 단); empty for games without.
    pub titles: &'static [(i32, &'static str)],
}

/// How a match's opening stands to fair play (issue #30). A player may
/// choose a [`Start::Custom`] opening, which everyone sees before they
/// accept and which is never rated; a [`Start::FixesHidden`] one is never
/// chosen by a player, since it would let them know what the others
/// cannot see (the service refuses it; tests and `perft` may use it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    Standard,
    Custom,
    FixesHidden,
}

/// How a game's results are rated (issue #31: the service reads it here
/// rather than guessing from a game's name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rating {
    /// Two players, one result between them: Glicko-2.
    Pairwise,
    /// Places among several players or teams: Weng-Lin.
    Placings,
}

/// A side put out of a continuing match ([`Game::put_out`]): its name as
/// the game writes it (`red`) and why (`checkmate`, `resigned`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PutOut {
    pub side: String,
    pub reason: String,
}

/// A move as a turn notice tells it (issue #66 item 7: "지우: 차 e2→e7"):
/// which piece went from where to where, squares in the game's own
/// notation. It names only what every seat sees (docs/rules/
/// hidden-information.md §H1: a notification is built from public facts),
/// so never a card nor a face-down Banqi piece.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Told {
    /// A piece moved, a capture too. `piece` is the web client's word key
    /// for it (`src/web/words.js`, the `piece_*` keys: `piece_janggi_chariot`,
    /// `piece_chess_r`, `piece_checkers_king`, `piece_banqi_horse`), as it
    /// stands on `to` once the append is folded; `None` when `to` no longer
    /// holds a piece of the mover's.
    Moved {
        piece: Option<&'static str>,
        from: String,
        to: String,
    },
    /// Banqi: a face-down piece turned up at `at`, public from then on
    /// (§B8).
    TurnedUp { piece: &'static str, at: String },
}

/// How an event takes a seat out of play before the match is played out
/// ([`Game::departure`]): the cases the rewards tell apart
/// (docs/rules/rewards.md §R3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Departure {
    /// The seat resigned (§T6), or left by the menu, which is the same.
    Resigned,
    /// The seat's deadline passed (§T3): it is gone by abandonment.
    Abandoned,
    /// FlipChess §F7: the seat whose king was taken declined to flip.
    /// The king was lost on the board; the service reads a concession
    /// the clock made (a lapsed decision, §T4) as an abandonment.
    Conceded,
}

/// The game contract. Every function is pure: the same inputs give the same
/// answer, and nothing is mutated except the state handed to [`Game::apply`].
pub trait Game {
    /// The catalogue line and the harness bounds.
    const ABOUT: About;

    /// Creation options (variant, mode, setups), as JSON from the client.
    /// Every type that crosses to a client derives its JSON Schema
    /// (`schemars`), so the API's document cannot drift from the code.
    type Config: Serialize + DeserializeOwned + Default + Clone + JsonSchema;
    /// The full state: everything, hidden parts included. Never sent out.
    type State: Clone + PartialEq + std::fmt::Debug + Default;
    /// One step a seat may take. `{"type": ...}` in JSON.
    type Action: Serialize + DeserializeOwned + Clone + std::fmt::Debug + JsonSchema;
    /// One fact of the log, with all hidden details. `{"type": ...}` in JSON.
    type Event: Serialize + DeserializeOwned + Clone + std::fmt::Debug + PartialEq + JsonSchema;
    /// What one viewer may see of the state: a struct (a JSON object), to
    /// which the contract adds `"game": <id>` (see [`crate::dispatch::view`]).
    /// It also reads back from that JSON (the tag ignored): the computer
    /// opponents decide from a seat's view read into this type
    /// ([`crate::engine`]).
    type View: Serialize + DeserializeOwned + JsonSchema;

    /// The opening facts for `seats` players. The first event records the
    /// configuration, so the log alone replays the match.
    fn setup(
        config: &Self::Config,
        seats: usize,
        random: &mut dyn Random,
    ) -> Result<Vec<Self::Event>, RuleError>;

    /// How many seats the game (with this configuration) takes.
    fn seats(config: &Self::Config) -> std::ops::RangeInclusive<usize>;

    /// Fold one event into the state. Deterministic; an event this game
    /// produced always folds, and one whose position or move cannot be read
    /// (a corrupted log) is an error, never a silent start position
    /// (issue #48).
    fn apply(state: &mut Self::State, event: &Self::Event) -> Result<(), RuleError>;

    /// Validate `action` by `seat` and return the facts it produces. On error
    /// nothing has changed.
    fn act(
        state: &Self::State,
        seat: Seat,
        action: &Self::Action,
        env: &mut Env,
    ) -> Result<Vec<Self::Event>, RuleError>;

    /// Every action `seat` may take now, each accepted by `act` as is.
    fn legal_actions(state: &Self::State, seat: Seat) -> Vec<Self::Action>;

    /// Who owes what now. Empty when the match is over.
    fn to_act(state: &Self::State) -> Vec<Duty>;

    fn outcome(state: &Self::State) -> Option<Outcome>;

    fn view(state: &Self::State, viewer: Viewer) -> Self::View;

    /// The event as `viewer` may see it.
    fn redact(event: &Self::Event, viewer: Viewer) -> Self::Event;

    /// Facts caused by short windows that have closed by `env.now`.
    fn expire(state: &Self::State, env: &mut Env) -> Vec<Self::Event>;

    /// The correspondence deadline (§T3/§T4) of `duty`, one of `to_act`,
    /// passed: abandonment for a turn, a lapse or a forced answer for a
    /// decision — the game decides.
    fn deadline_passed(state: &Self::State, duty: &Duty) -> Vec<Self::Event>;

    /// What `viewer` may not see now (§H), each as the JSON that would
    /// betray it: no JSON value inside a view or a redacted event for that
    /// viewer may equal one of them (an array also may not be a
    /// reordering of one). Games without hidden information return none.
    fn secrets(state: &Self::State, viewer: Viewer) -> Vec<serde_json::Value>;

    /// The side `seat` started this match with, as an index in the game's
    /// own order of sides (Black before White, Cho before Han, the first
    /// to act before the second, armies clockwise from Red). A rematch
    /// gives each player the next side (issue #20). Default: the seat.
    fn side(state: &Self::State, seat: Seat) -> usize {
        let _ = state;
        seat.index()
    }

    /// Each seat's place when the match is over (1 = best; ties share a
    /// place). Default: the winners first, everyone else second; a draw
    /// places everyone first.
    fn placements(state: &Self::State, seats: usize) -> Vec<usize> {
        let Some(outcome) = Self::outcome(state) else {
            return vec![1; seats];
        };
        (0..seats)
            .map(|seat| {
                let won = outcome.winners.iter().any(|w| w.index() == seat);
                if won || outcome.winners.is_empty() {
                    1
                } else {
                    2
                }
            })
            .collect()
    }

    /// Which team each seat plays in (seats of one team share a number).
    /// Default: everyone alone.
    fn teams(state: &Self::State, seats: usize) -> Vec<usize> {
        let _ = state;
        (0..seats).collect()
    }

    /// Whether `event` is a player's own move, as opposed to a fact the
    /// rules or the clock add (a deal, a resignation, an elimination, the
    /// end): a seat that made none never played, and its match is aborted
    /// rather than rated. Default: every event acted by a seat is.
    fn is_own_move(event: &Self::Event) -> bool {
        let _ = event;
        true
    }

    /// The round the match is in, from 1 (docs/rules/rewards.md §R3):
    /// a round is one turn of every side in play, skipped turns counted
    /// — FlipChess's own round (§F5: ⌊turns/2⌋ + 1), and its like in
    /// every other game. Required: a game that said nothing would make
    /// every resignation an early one.
    fn round(state: &Self::State) -> u32;

    /// The seat `event` takes out of play, and how, when it is a
    /// resignation, an abandonment or (FlipChess) a concession; `None`
    /// for every other event. Required, for the same reason.
    fn departure(event: &Self::Event) -> Option<(Seat, Departure)>;

    /// The side `event` puts out of a match that goes on (four-player
    /// chess's elimination, §Q7/§Q9/§Q10), which every player hears of;
    /// the seat simply stops appearing in [`Game::to_act`]. Default: an
    /// event puts nobody out.
    fn put_out(event: &Self::Event) -> Option<PutOut> {
        let _ = event;
        None
    }

    /// `event`, one of the events of an append, told as a turn notice
    /// tells a move ([`Told`]), or `None` when it moves no piece (a card,
    /// a pass, a resignation, a draw offer, the start). `state` is the
    /// state after the whole append, so the piece is read where it now
    /// stands (a crowned man is a king). Only public facts (§H1).
    /// Default: no event is told.
    fn told(state: &Self::State, event: &Self::Event) -> Option<Told> {
        let _ = (state, event);
        None
    }

    /// Whether the setup deals each player something the others cannot
    /// see (FlipChess's hands, §F1): once dealt, a player has looked at
    /// their chances, so leaving before a move is not a clean abort
    /// (issue #46). Banqi's face-down layout is hidden from everyone
    /// alike and does not count. Default: nothing private is dealt.
    fn deals_in_private() -> bool {
        false
    }

    /// How this configuration's opening stands to fair play (issue #30):
    /// the standard start, a custom one every player can see, or one that
    /// fixes what some player may not see (a Banqi layout naming its
    /// face-down pieces). Default: standard.
    fn start(config: &Self::Config) -> Start {
        let _ = config;
        Start::Standard
    }

    /// Count the action sequences of `depth` from `position` in the game's
    /// own notation (`rules/tests/data/<game>.tsv`). Games without a
    /// position notation keep the default refusal.
    fn perft(config: &Self::Config, position: &str, depth: usize) -> Result<u64, RuleError> {
        let _ = (config, position, depth);
        Err(RuleError::malformed(format!(
            "{} has no perft",
            Self::ABOUT.id
        )))
    }
}
