//! The rules of every Posthorn game: pure, deterministic, no I/O, no clock
//! and no random source of its own (`DESIGN.md` §1–2).
//!
//! * [`contract`] — the [`Game`] trait every game implements, with the
//!   shared types (seats, duties, outcomes, errors, randomness). Read its
//!   module documentation before writing a game.
//! * one module per game: [`checkers`], [`flipchess`].
//! * [`MatchState`] — the one closed enum the service talks to, with JSON
//!   in and out, so the service never names a game's types.

pub mod checkers;
pub mod contract;
pub mod flipchess;

pub use contract::{
    Duty, DutyKind, Env, Game, Millis, Outcome, OutcomeKind, Random, RuleError, Seat, SplitMix64,
    Viewer,
};

use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;

/// The games on offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameId {
    FlipChess,
    Checkers,
}

/// One line of the game catalogue (API.md `GET /v1/games`).
#[derive(Clone, Debug, Serialize)]
pub struct GameInfo {
    pub id: &'static str,
    pub name: &'static str,
    pub variants: Vec<&'static str>,
    pub modes: Vec<&'static str>,
    pub min_seats: usize,
    pub max_seats: usize,
    /// The `options` a match may be created with, by name, and what each does.
    pub options: Vec<(&'static str, &'static str)>,
}

impl GameId {
    pub const ALL: &'static [GameId] = &[GameId::FlipChess, GameId::Checkers];

    pub fn id(self) -> &'static str {
        match self {
            GameId::FlipChess => "flipchess",
            GameId::Checkers => "checkers",
        }
    }

    /// `"checkers"` or `"checkers/american"` → the game (the variant is part
    /// of the configuration).
    pub fn parse(name: &str) -> Option<GameId> {
        let family = name.split('/').next().unwrap_or_default();
        GameId::ALL.iter().copied().find(|g| g.id() == family)
    }

    pub fn info(self) -> GameInfo {
        match self {
            GameId::FlipChess => GameInfo {
                id: "flipchess",
                name: "FlipChess",
                variants: Vec::new(),
                modes: Vec::new(),
                min_seats: 2,
                max_seats: 2,
                options: vec![(
                    "position",
                    "start from this chess FEN instead of the standard position",
                )],
            },
            GameId::Checkers => GameInfo {
                id: "checkers",
                name: "Checkers",
                variants: checkers::Variant::ALL.iter().map(|v| v.name()).collect(),
                modes: Vec::new(),
                min_seats: 2,
                max_seats: 2,
                options: vec![(
                    "position",
                    "start from this PDN FEN position instead of the standard one",
                )],
            },
        }
    }
}

fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("rules types serialize to JSON")
}

fn from_json<T: DeserializeOwned>(what: &str, value: &Value) -> Result<T, RuleError> {
    T::deserialize(value).map_err(|e| RuleError::malformed(format!("{what}: {e}")))
}

/// The state of one match of any game. Everything crosses as JSON: actions
/// and configurations are parsed here (one function each, precise errors),
/// events and views are produced here, already redacted per viewer.
// The variants differ in size (a FlipChess board is 64 squares); one match
// state lives per request, so boxing would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum MatchState {
    FlipChess(flipchess::State),
    Checkers(checkers::State),
}

/// Call `$body` with `G` bound to the game type and `$s` to its state.
macro_rules! dispatch {
    ($self:expr, $s:ident, $G:ident => $body:expr) => {
        match $self {
            MatchState::FlipChess($s) => {
                type $G = flipchess::FlipChess;
                $body
            }
            MatchState::Checkers($s) => {
                type $G = checkers::Checkers;
                $body
            }
        }
    };
}

impl MatchState {
    /// An empty state for `game`, to fold a log into.
    pub fn empty(game: GameId) -> MatchState {
        match game {
            GameId::FlipChess => MatchState::FlipChess(Default::default()),
            GameId::Checkers => MatchState::Checkers(Default::default()),
        }
    }

    pub fn game(&self) -> GameId {
        match self {
            MatchState::FlipChess(_) => GameId::FlipChess,
            MatchState::Checkers(_) => GameId::Checkers,
        }
    }

    /// Check a configuration (`{variant?, mode?, …options}`) and the seat
    /// count, and return the opening events.
    pub fn setup(
        game: GameId,
        config: &Value,
        seats: usize,
        random: &mut dyn Random,
    ) -> Result<Vec<Value>, RuleError> {
        dispatch!(Self::empty(game), _s, G => {
            let config: <G as Game>::Config = from_json("options", config)?;
            if !G::seats(&config).contains(&seats) {
                return Err(RuleError::malformed(format!(
                    "{} takes {:?} players, not {seats}", game.id(), G::seats(&config)
                )));
            }
            Ok(G::setup(&config, seats, random)?.iter().map(to_json).collect())
        })
    }

    /// The seat counts a configuration allows.
    pub fn seat_range(
        game: GameId,
        config: &Value,
    ) -> Result<std::ops::RangeInclusive<usize>, RuleError> {
        dispatch!(Self::empty(game), _s, G => {
            let config: <G as Game>::Config = from_json("options", config)?;
            Ok(G::seats(&config))
        })
    }

    /// Fold a whole log.
    pub fn replay<'a>(
        game: GameId,
        events: impl IntoIterator<Item = &'a Value>,
    ) -> Result<MatchState, RuleError> {
        let mut state = Self::empty(game);
        for event in events {
            state.apply(event)?;
        }
        Ok(state)
    }

    pub fn apply(&mut self, event: &Value) -> Result<(), RuleError> {
        dispatch!(self, s, G => {
            let event: <G as Game>::Event = from_json("event", event)?;
            G::apply(s, &event);
            Ok(())
        })
    }

    /// Parse and validate `action` by `seat`; the new events, unredacted.
    pub fn act(&self, seat: Seat, action: &Value, env: &mut Env) -> Result<Vec<Value>, RuleError> {
        dispatch!(self, s, G => {
            let action: <G as Game>::Action = from_json("action", action)?;
            Ok(G::act(s, seat, &action, env)?.iter().map(to_json).collect())
        })
    }

    pub fn legal_actions(&self, seat: Seat) -> Vec<Value> {
        dispatch!(self, s, G => G::legal_actions(s, seat).iter().map(to_json).collect())
    }

    pub fn to_act(&self) -> Vec<Duty> {
        dispatch!(self, s, G => G::to_act(s))
    }

    pub fn outcome(&self) -> Option<Outcome> {
        dispatch!(self, s, G => G::outcome(s))
    }

    pub fn view(&self, viewer: Viewer) -> Value {
        dispatch!(self, s, G => to_json(&G::view(s, viewer)))
    }

    /// `event` (as stored) as `viewer` may see it.
    pub fn redact(game: GameId, event: &Value, viewer: Viewer) -> Result<Value, RuleError> {
        dispatch!(Self::empty(game), _s, G => {
            let event: <G as Game>::Event = from_json("event", event)?;
            Ok(to_json(&G::redact(&event, viewer)))
        })
    }

    pub fn expire(&self, env: &mut Env) -> Vec<Value> {
        dispatch!(self, s, G => G::expire(s, env).iter().map(to_json).collect())
    }

    pub fn deadline_passed(&self, duty: &Duty) -> Vec<Value> {
        dispatch!(self, s, G => G::deadline_passed(s, duty).iter().map(to_json).collect())
    }
}
