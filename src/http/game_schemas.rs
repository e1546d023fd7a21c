//! The games' payloads in the OpenAPI document (issue #22): each game's
//! options, actions, events and views, with the JSON Schemas the rules
//! crate derives from its Rust types, so generated clients know boards,
//! cards, seats and moves, and the document cannot drift from the code.
//!
//! OpenAPI 3.1 takes JSON Schema 2020-12 as it is; each game's schemas go
//! under `components/schemas` with the game's name before each
//! (`CheckersView`, `FlipChessAction`, …), and the service's free-form
//! `view`, `action` and `events` become `anyOf` over them. `anyOf`, not
//! `oneOf`: the games share actions (`resign`), so a value may match
//! several; the match's `game` says which one applies.

use crate::matches::ServiceEvent;
use posthorn_rules::schemars::schema_for;
use posthorn_rules::GameId;
use serde_json::{json, Map, Value};

/// `checkers` → `Checkers`, `flipchess` → `FlipChess` (the game's name).
fn prefix(game: GameId) -> String {
    game.about().name.split_whitespace().collect()
}

/// Point `$ref`s at the hoisted definitions.
fn rewrite(value: &mut Value, prefix: &str) {
    match value {
        Value::Object(fields) => {
            if let Some(Value::String(target)) = fields.get_mut("$ref") {
                if let Some(name) = target.strip_prefix("#/$defs/") {
                    *target = format!("#/components/schemas/{prefix}{name}");
                }
            }
            fields.values_mut().for_each(|v| rewrite(v, prefix));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite(v, prefix)),
        _ => {}
    }
}

/// Put one schemars schema in `schemas` as `{prefix}{name}`, with its
/// definitions beside it; the reference to it.
fn hoist(schemas: &mut Map<String, Value>, prefix: &str, name: &str, mut schema: Value) -> Value {
    if let Some(fields) = schema.as_object_mut() {
        fields.remove("$schema");
        if let Some(Value::Object(defs)) = fields.remove("$defs") {
            for (def, mut body) in defs {
                rewrite(&mut body, prefix);
                schemas.insert(format!("{prefix}{def}"), body);
            }
        }
    }
    rewrite(&mut schema, prefix);
    schemas.insert(format!("{prefix}{name}"), schema);
    json!({"$ref": format!("#/components/schemas/{prefix}{name}")})
}

fn set(doc: &mut Value, pointer: &str, value: Value) {
    if let Some(slot) = doc.pointer_mut(pointer) {
        *slot = value;
    }
}

/// The document with the games' schemas in it.
pub fn with_game_schemas(mut doc: Value) -> Value {
    let mut schemas = Map::new();
    let (mut views, mut actions, mut events, mut options) = (vec![], vec![], vec![], vec![]);
    for game in GameId::ALL.iter().copied() {
        let (p, s) = (prefix(game), game.schemas());
        views.push(hoist(&mut schemas, &p, "View", s.view));
        actions.push(hoist(&mut schemas, &p, "Action", s.action));
        events.push(hoist(&mut schemas, &p, "Event", s.event));
        options.push(hoist(&mut schemas, &p, "Options", s.options));
    }
    let service_event = schema_for!(ServiceEvent).to_value();
    events.push(hoist(&mut schemas, "Service", "Event", service_event));
    schemas.insert(
        "ServiceAction".into(),
        json!({
            "description": "The service's own action, valid in every game: give the seat on move 24 h more.",
            "type": "object",
            "properties": {"type": {"const": "grant_time"}},
            "required": ["type"],
            "additionalProperties": false,
        }),
    );
    actions.push(json!({"$ref": "#/components/schemas/ServiceAction"}));
    // An event as a client receives it: the fact, and where it stands.
    schemas.insert(
        "Event".into(),
        json!({
            "description": "A fact of a match's log as this viewer may see it: the game's (or the service's) event, with its place in the log.",
            "allOf": [
                {"anyOf": events},
                {
                    "type": "object",
                    "properties": {
                        "seq": {"type": "integer"},
                        "at": {"type": "string", "format": "date-time"},
                        "seat": {"type": "integer", "minimum": 0}
                    },
                    "required": ["seq", "at"]
                }
            ]
        }),
    );
    schemas.insert("Action".into(), json!({"description": "An action of the match's game, or the service's own.", "anyOf": actions}));
    schemas.insert("View".into(), json!({"description": "The match's game state as this viewer may see it; the match's `game` says which.", "anyOf": views}));
    schemas.insert("GameOptions".into(), json!({"description": "The creation options of the chosen game (`variant`, `mode` and the game's own).", "anyOf": options}));
    let refer = |name: &str| json!({"$ref": format!("#/components/schemas/{name}")});
    let many = |name: &str| json!({"type": "array", "items": refer(name)});
    if let Some(Value::Object(components)) = doc.pointer_mut("/components/schemas") {
        components.extend(schemas);
    }
    set(
        &mut doc,
        "/components/schemas/MatchView/properties/view",
        refer("View"),
    );
    let optional = json!({"anyOf": [refer("GameOptions"), {"type": "null"}]});
    set(
        &mut doc,
        "/components/schemas/NewMatch/properties/options",
        optional,
    );
    set(
        &mut doc,
        "/components/schemas/ActionRequest/properties/action",
        refer("Action"),
    );
    set(
        &mut doc,
        "/components/schemas/LegalActions/properties/actions",
        many("Action"),
    );
    set(
        &mut doc,
        "/components/schemas/SeatActions/properties/actions",
        many("Action"),
    );
    set(
        &mut doc,
        "/components/schemas/ActionAnswer/properties/events",
        many("Event"),
    );
    set(
        &mut doc,
        "/components/schemas/EventFeed/properties/events",
        many("Event"),
    );
    doc
}
