//! The games' payloads in the OpenAPI document
//! (docs/decisions/api-and-schemas.md): each game's options, actions,
//! events and views, with the JSON Schemas the rules crate derives from its
//! Rust types, so generated clients know boards, cards, seats and moves,
//! and the document cannot drift from the code.
//!
//! OpenAPI 3.1 takes JSON Schema 2020-12 as it is; each game's schemas go
//! under `components/schemas` with the game's name before each
//! (`CheckersView`, `FlipChessAction`, …), and the service's free-form
//! `view`, `action` and `events` become unions over them. A view carries
//! its game's id (`"game"`), so `View` is a `oneOf` with that discriminator.
//! Actions and events cannot be told apart across games (`move`, `moved`,
//! `resign` are everyone's), so the answers that list them (legal actions,
//! an action's answer, the event feed) carry the match's `game` and are a
//! `oneOf` over per-game envelopes (`CheckersLegalActions`, …) with that
//! discriminator; a request's `action` is `anyOf` every game's (the client
//! builds it from its game's models).

use crate::matches::ServiceEvent;
use posthorn_rules::schemars::schema_for;
use posthorn_rules::GameId;
use serde_json::{json, Map, Value};

/// The game's name in CamelCase: `Checkers`, `FlipChess`,
/// `Four-player chess` → `FourPlayerChess`.
pub fn prefix(game: GameId) -> String {
    game.about()
        .name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// `oneOf` plain strings (an enum whose variants have doc comments) as
/// an `enum`: the same values, and generators read it as one enum type
/// (openapi-python-client tries a union of consts in turn and fails on
/// the last one).
fn as_enum(fields: &mut Map<String, Value>) {
    let Some(Value::Array(variants)) = fields.get("oneOf") else {
        return;
    };
    let values: Option<Vec<Value>> = variants
        .iter()
        .map(|v| {
            let plain = v.as_object().is_some_and(|o| {
                o.keys()
                    .all(|k| ["const", "type", "description"].contains(&k.as_str()))
            });
            v.get("const").filter(|c| plain && c.is_string()).cloned()
        })
        .collect();
    if let Some(values) = values {
        fields.remove("oneOf");
        fields.insert("type".into(), json!("string"));
        fields.insert("enum".into(), Value::Array(values));
    }
}

/// Point `$ref`s at the hoisted definitions.
fn rewrite(value: &mut Value, prefix: &str) {
    match value {
        Value::Object(fields) => {
            as_enum(fields);
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

/// Name a hoisted schema by its component: generators take a schema's
/// `title` for its model's name, and schemars titles every game's view
/// `View`, which would collide.
fn entitle(schema: &mut Value, title: &str) {
    if let Some(fields) = schema.as_object_mut() {
        fields.insert("title".into(), Value::from(title));
    }
}

/// Name each variant of a tagged union by its tag (`CheckersActionMove`,
/// `FlipChessEventCardPlayed`), so generated models read as the game does.
fn entitle_variants(schema: &mut Value, name: &str) {
    let Some(Value::Array(variants)) = schema.get_mut("oneOf") else {
        return;
    };
    for variant in variants {
        let tag = &variant["properties"]["type"];
        let Some(tag) = tag["const"].as_str().or(tag["enum"][0].as_str()) else {
            continue;
        };
        let pascal: String = tag
            .split('_')
            .map(|word| {
                let mut chars = word.chars();
                chars.next().map_or(String::new(), |c| {
                    c.to_ascii_uppercase().to_string() + chars.as_str()
                })
            })
            .collect();
        entitle(variant, &format!("{name}{pascal}"));
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
                entitle(&mut body, &format!("{prefix}{def}"));
                schemas.insert(format!("{prefix}{def}"), body);
            }
        }
    }
    rewrite(&mut schema, prefix);
    entitle(&mut schema, &format!("{prefix}{name}"));
    entitle_variants(&mut schema, &format!("{prefix}{name}"));
    schemas.insert(format!("{prefix}{name}"), schema);
    json!({"$ref": format!("#/components/schemas/{prefix}{name}")})
}

fn set(doc: &mut Value, pointer: &str, value: Value) {
    if let Some(slot) = doc.pointer_mut(pointer) {
        *slot = value;
    }
}

fn refer(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

fn many(item: Value) -> Value {
    json!({"type": "array", "items": item})
}

/// Events as a client receives them carry their place in the log: add
/// `seq`, `at` and (where the fact names none) `seat` to every variant, so
/// a generated model holds the fact and its place together.
fn placed(mut schema: Value) -> Value {
    let place = json!({
        "seq": {"type": "integer", "description": "The event's place in the match's log."},
        "at": {"type": "string", "format": "date-time", "description": "When the server recorded it."},
        "seat": {"type": "integer", "minimum": 0, "description": "The seat that acted, if one did."}
    });
    let mut variants: Vec<&mut Value> = match schema.get_mut("oneOf") {
        Some(Value::Array(variants)) => variants.iter_mut().collect(),
        _ => vec![&mut schema],
    };
    for variant in variants.iter_mut() {
        if let Some(Value::Object(properties)) = variant.get_mut("properties") {
            for (name, body) in place.as_object().into_iter().flatten() {
                properties
                    .entry(name.clone())
                    .or_insert_with(|| body.clone());
            }
        }
        if let Some(Value::Array(required)) = variant.get_mut("required") {
            required.extend([json!("seq"), json!("at")]);
        }
    }
    schema
}

/// One game's answers, each tagged with its `game`, so that a generated
/// client reads the game's own models: the games share action and event
/// names (`move`, `moved`), so a union across games could not tell them
/// apart. `{P}LegalActions`, `{P}ActionAnswer`, `{P}EventFeed`.
fn envelopes(schemas: &mut Map<String, Value>, game: GameId, p: &str) {
    let tag = json!({"const": game.id(), "description": "The match's game."});
    let action = json!({"anyOf": [refer(&format!("{p}Action")), refer("ServiceAction")]});
    schemas.insert(
        format!("{p}LogEvent"),
        json!({
            "description": "A fact of the match's log as this viewer may see it: the game's or the service's.",
            "anyOf": [refer(&format!("{p}Event")), refer("ServiceEvent")],
        }),
    );
    let events = many(refer(&format!("{p}LogEvent")));
    schemas.insert(
        format!("{p}SeatActions"),
        json!({
            "type": "object",
            "properties": {"seat": {"type": "integer", "minimum": 0}, "actions": many(action.clone())},
            "required": ["seat", "actions"],
        }),
    );
    let envelope = |description: &str, properties: Value| {
        let mut required: Vec<&String> = properties
            .as_object()
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        required.sort();
        json!({"description": description, "type": "object", "properties": properties, "required": required})
    };
    schemas.insert(
        format!("{p}LegalActions"),
        envelope(
            "Every action of every seat I hold (`actions`), and the same seat by seat.",
            json!({"game": tag, "seq": {"type": "integer"}, "actions": many(action), "seats": many(refer(&format!("{p}SeatActions")))}),
        ),
    );
    schemas.insert(
        format!("{p}ActionAnswer"),
        envelope(
            "The match after the action, and the events it appended.",
            json!({"game": tag, "match": refer("MatchView"), "events": events}),
        ),
    );
    schemas.insert(
        format!("{p}EventFeed"),
        envelope(
            "The match's events after the asked seq.",
            json!({"game": tag, "seq": {"type": "integer"}, "events": events}),
        ),
    );
}

/// `oneOf` the games' `{P}{kind}` with `game` as the discriminator.
fn by_game(kind: &str, description: &str) -> Value {
    let mut mapping = Map::new();
    let mut each = Vec::new();
    for game in GameId::ALL {
        let target = refer(&format!("{}{kind}", prefix(*game)));
        mapping.insert(game.id().into(), target["$ref"].clone());
        each.push(target);
    }
    json!({
        "description": description,
        "oneOf": each,
        "discriminator": {"propertyName": "game", "mapping": mapping},
    })
}

/// The document with the games' schemas in it.
pub fn with_game_schemas(mut doc: Value) -> Value {
    let mut schemas = Map::new();
    let (mut actions, mut events, mut options) = (vec![], vec![], vec![]);
    for game in GameId::ALL.iter().copied() {
        let (p, s) = (prefix(game), game.schemas());
        hoist(&mut schemas, &p, "View", s.view);
        actions.push(hoist(&mut schemas, &p, "Action", s.action));
        events.push(hoist(&mut schemas, &p, "Event", placed(s.event)));
        options.push(hoist(&mut schemas, &p, "Options", s.options));
        envelopes(&mut schemas, game, &p);
    }
    let service_event = placed(schema_for!(ServiceEvent).to_value());
    events.push(hoist(&mut schemas, "Service", "Event", service_event));
    schemas.insert(
        "ServiceAction".into(),
        json!({
            "description": "The service's own action, valid in every game: give the seat on move 24 h more.",
            "title": "ServiceAction",
            "type": "object",
            "properties": {"type": {"const": "grant_time"}},
            "required": ["type"],
            "additionalProperties": false,
        }),
    );
    actions.push(refer("ServiceAction"));
    schemas.insert("Event".into(), json!({"description": "A fact of a match's log as this viewer may see it, of any game.", "anyOf": events}));
    schemas.insert("Action".into(), json!({"description": "An action of the match's game, or the service's own.", "anyOf": actions}));
    schemas.insert(
        "View".into(),
        by_game("View", "The match's game state as this viewer may see it; its `game` (the match's) says which."),
    );
    schemas.insert(
        "LegalActions".into(),
        by_game(
            "LegalActions",
            "The actions I may take now, as the match's game writes them.",
        ),
    );
    schemas.insert(
        "ActionAnswer".into(),
        by_game(
            "ActionAnswer",
            "The match after my action, with the events it appended.",
        ),
    );
    schemas.insert(
        "EventFeed".into(),
        by_game("EventFeed", "A match's events as I may see them."),
    );
    schemas.remove("SeatActions");
    schemas.insert("GameOptions".into(), json!({"description": "The creation options of the chosen game (`variant`, `mode` and the game's own).", "anyOf": options}));
    if let Some(Value::Object(components)) = doc.pointer_mut("/components/schemas") {
        components.remove("SeatActions");
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
        optional.clone(),
    );
    // A tournament's matches take the same options (docs/fuzzing.md: a free
    // object let the fuzzer nest what no game reads).
    set(
        &mut doc,
        "/components/schemas/NewTournament/properties/options",
        optional,
    );
    set(
        &mut doc,
        "/components/schemas/ActionRequest/properties/action",
        refer("Action"),
    );
    // A puzzle's and a lesson's actions are a game's too (docs/fuzzing.md:
    // the fuzzer sent free objects the document allowed).
    set(
        &mut doc,
        "/components/schemas/PuzzleMove/properties/action",
        refer("Action"),
    );
    set(
        &mut doc,
        "/components/schemas/StepActions/properties/actions/items",
        refer("Action"),
    );
    doc
}
