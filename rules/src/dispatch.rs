//! The game contract over JSON, generic in the game: what [`crate::games!`]
//! dispatches to. Everything that crosses to the service is parsed here
//! (one function each, precise errors) or produced here (already redacted
//! per viewer), so a new game brings no JSON code of its own.

use crate::engine::{Engine, Level};
use crate::{Duty, Env, Game, Random, RuleError, Seat, Viewer};
use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;

fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("rules types serialize to JSON")
}

fn from_json<T: DeserializeOwned>(what: &str, value: &Value) -> Result<T, RuleError> {
    T::deserialize(value).map_err(|e| RuleError::malformed(format!("{what}: {e}")))
}

/// `variant` or `mode` of a configuration, checked against what the game
/// offers, so the refusal names the valid ones (and nothing unbuilt slips
/// through as a default).
fn check_choice(
    config: &Value,
    field: &str,
    offered: &[&str],
    game: &str,
) -> Result<(), RuleError> {
    let Some(chosen) = config.get(field) else {
        return Ok(());
    };
    let plural = format!("{field}s");
    match chosen.as_str() {
        Some(name) if offered.contains(&name) => Ok(()),
        _ if offered.is_empty() => Err(RuleError::malformed(format!(
            "{game} has no {plural}; leave {field} out"
        ))),
        _ => Err(RuleError::malformed(format!(
            "unknown {field} {chosen} for {game}; {plural}: {}",
            offered.join(", ")
        ))),
    }
}

/// Read a creation configuration (`{variant?, mode?, …options}`) strictly.
pub fn configure<G: Game>(config: &Value) -> Result<G::Config, RuleError> {
    let about = G::ABOUT;
    if !config.is_object() {
        return Err(RuleError::malformed("options must be a JSON object"));
    }
    check_choice(config, "variant", about.variants, about.id)?;
    check_choice(config, "mode", about.modes, about.id)?;
    from_json("options", config)
}

pub fn seat_range<G: Game>(config: &Value) -> Result<std::ops::RangeInclusive<usize>, RuleError> {
    Ok(G::seats(&configure::<G>(config)?))
}

pub fn start<G: Game>(config: &Value) -> Result<crate::Start, RuleError> {
    Ok(G::start(&configure::<G>(config)?))
}

pub fn setup<G: Game>(
    config: &Value,
    seats: usize,
    random: &mut dyn Random,
) -> Result<Vec<Value>, RuleError> {
    let config = configure::<G>(config)?;
    let range = G::seats(&config);
    if !range.contains(&seats) {
        return Err(RuleError::malformed(format!(
            "{} takes {} to {} players, not {seats}",
            G::ABOUT.id,
            range.start(),
            range.end()
        )));
    }
    Ok(G::setup(&config, seats, random)?
        .iter()
        .map(to_json)
        .collect())
}

pub fn apply<G: Game>(state: &mut G::State, event: &Value) -> Result<(), RuleError> {
    G::apply(state, &from_json("event", event)?)
}

pub fn act<G: Game>(
    state: &G::State,
    seat: Seat,
    action: &Value,
    env: &mut Env,
) -> Result<Vec<Value>, RuleError> {
    let action: G::Action = from_json("action", action)?;
    Ok(G::act(state, seat, &action, env)?
        .iter()
        .map(to_json)
        .collect())
}

pub fn legal_actions<G: Game>(state: &G::State, seat: Seat) -> Vec<Value> {
    G::legal_actions(state, seat).iter().map(to_json).collect()
}

/// The view, tagged with the game's id (`"game": "checkers"`): a client
/// generated from the OpenAPI document picks the view's model by it (the
/// document's discriminator), whatever the game's own fields.
pub fn view<G: Game>(state: &G::State, viewer: Viewer) -> Value {
    let mut view = to_json(&G::view(state, viewer));
    if let Value::Object(fields) = &mut view {
        fields.insert("game".into(), Value::from(G::ABOUT.id));
    }
    view
}

/// A view as [`view`] gives it, read back into the game's own type (the
/// `game` tag is ignored): what a computer opponent decides from. A value
/// that is not such a view is refused, never a panic.
pub fn read_view<G: Game>(view: &Value) -> Result<G::View, RuleError> {
    from_json("view", view)
}

/// A computer opponent's action ([`crate::engine::decide`]): the view read
/// into the game's own type, the game's engine, the action as JSON.
pub fn decide<G: Engine>(
    view: &Value,
    seat: Seat,
    level: Level,
    random: &mut dyn Random,
) -> Result<Value, RuleError> {
    let view = read_view::<G>(view)?;
    Ok(to_json(&G::decide(&view, seat, level, random)?))
}

/// The view's schema with the `game` tag [`view`] adds (a game's view is a
/// struct: an object schema with `properties`).
fn tagged_view_schema<G: Game>() -> Value {
    let mut schema = schemars::schema_for!(G::View).to_value();
    let tag = serde_json::json!({"const": G::ABOUT.id, "description": "The game this view is of."});
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.insert("game".into(), tag);
    }
    if let Some(fields) = schema.as_object_mut() {
        let required = fields
            .entry("required")
            .or_insert_with(|| Value::Array(vec![]));
        if let Value::Array(required) = required {
            required.push(Value::from("game"));
        }
    }
    schema
}

pub fn is_own_move<G: Game>(event: &Value) -> Result<bool, RuleError> {
    let event: G::Event = from_json("event", event)?;
    Ok(G::is_own_move(&event))
}

pub fn departure<G: Game>(event: &Value) -> Result<Option<(Seat, crate::Departure)>, RuleError> {
    let event: G::Event = from_json("event", event)?;
    Ok(G::departure(&event))
}

pub fn put_out<G: Game>(event: &Value) -> Result<Option<crate::PutOut>, RuleError> {
    let event: G::Event = from_json("event", event)?;
    Ok(G::put_out(&event))
}

pub fn told<G: Game>(state: &G::State, event: &Value) -> Result<Option<crate::Told>, RuleError> {
    let event: G::Event = from_json("event", event)?;
    Ok(G::told(state, &event))
}

pub fn redact<G: Game>(event: &Value, viewer: Viewer) -> Result<Value, RuleError> {
    let event: G::Event = from_json("event", event)?;
    Ok(to_json(&G::redact(&event, viewer)))
}

pub fn expire<G: Game>(state: &G::State, env: &mut Env) -> Vec<Value> {
    G::expire(state, env).iter().map(to_json).collect()
}

pub fn deadline_passed<G: Game>(state: &G::State, duty: &Duty) -> Vec<Value> {
    G::deadline_passed(state, duty)
        .iter()
        .map(to_json)
        .collect()
}

pub fn perft<G: Game>(config: &Value, position: &str, depth: usize) -> Result<u64, RuleError> {
    G::perft(&configure::<G>(config)?, position, depth)
}

/// The JSON Schemas (draft 2020-12) of what a game sends and takes: the
/// creation options, an action, an event and a view. Derived from the
/// Rust types, so they cannot drift from what the code produces.
#[derive(Clone, Debug)]
pub struct Schemas {
    pub options: Value,
    pub action: Value,
    pub event: Value,
    pub view: Value,
}

pub fn schemas<G: Game>() -> Schemas {
    let schema = |s: schemars::Schema| s.to_value();
    Schemas {
        options: schema(schemars::schema_for!(G::Config)),
        action: schema(schemars::schema_for!(G::Action)),
        event: schema(schemars::schema_for!(G::Event)),
        view: tagged_view_schema::<G>(),
    }
}

/// A puzzle from a finished match's log, if it has one
/// ([`crate::engine::puzzles::mine`]).
pub fn mine<G: crate::engine::puzzles::Puzzles>(
    config: &Value,
    seats: usize,
    events: &[Value],
) -> Result<Option<crate::engine::puzzles::Found>, RuleError> {
    let config = configure::<G>(config)?;
    let events = events
        .iter()
        .map(|e| from_json::<G::Event>("event", e))
        .collect::<Result<Vec<_>, _>>()?;
    G::mine_log(&config, seats, &events)
}

/// The record of a match's whole log (`events`, every one the server
/// holds), as `header`'s reader may see it ([`crate::records`]).
pub fn record<G: crate::records::Records>(
    events: &[Value],
    header: &crate::records::Header,
) -> Result<String, RuleError> {
    let events = events
        .iter()
        .map(|e| from_json::<G::Event>("event", e))
        .collect::<Result<Vec<_>, _>>()?;
    crate::records::write::<G>(&events, header)
}

/// The board `view` shows, to draw: the view read into the game's own
/// type first, so a picture is made of nothing else.
pub fn drawing<G: crate::drawing::Drawn>(
    view: &Value,
) -> Result<crate::drawing::Drawing, RuleError> {
    Ok(G::drawing(&from_json::<G::View>("view", view)?))
}

/// A match's frames as `viewer` sees them ([`crate::drawing::frames`]).
pub fn frames<G: crate::drawing::Drawn>(
    events: &[Value],
    viewer: Viewer,
) -> Result<Vec<crate::drawing::Drawing>, RuleError> {
    let events = events
        .iter()
        .map(|e| from_json::<G::Event>("event", e))
        .collect::<Result<Vec<_>, _>>()?;
    crate::drawing::frames::<G>(&events, viewer)
}

/// The plays `range` of a match's whole log judged at `effort`
/// ([`crate::engine::analysis`]).
pub fn judge_plays<G: crate::engine::analysis::Analyse>(
    events: &[Value],
    effort: crate::engine::analysis::Effort,
    range: std::ops::Range<usize>,
) -> Result<crate::engine::analysis::Judged, RuleError> {
    let events = events
        .iter()
        .map(|e| from_json::<G::Event>("event", e))
        .collect::<Result<Vec<_>, _>>()?;
    crate::engine::analysis::judge_plays::<G>(&events, effort, range)
}

/// Every opening a puzzle's `events` allow, as the proof covers them
/// ([`crate::engine::puzzles::Puzzles::deals`]): the puzzle's own first.
pub fn puzzle_deals<G: crate::engine::puzzles::Puzzles>(
    events: &[Value],
) -> Result<Vec<Vec<Value>>, RuleError> {
    let events = events
        .iter()
        .map(|e| from_json::<G::Event>("event", e))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((G::deals(&events).iter())
        .map(|deal| deal.iter().map(to_json).collect())
        .collect())
}

/// The engines' own match for mining ([`crate::engine::puzzles::self_play`]).
pub fn self_play<G: crate::engine::puzzles::Puzzles>(
    config: &Value,
    seats: usize,
    plies: usize,
    seed: u64,
) -> Result<Vec<Value>, RuleError> {
    let config = configure::<G>(config)?;
    let log = crate::engine::puzzles::self_play::<G>(&config, seats, plies, seed)?;
    Ok(log.iter().map(to_json).collect())
}
