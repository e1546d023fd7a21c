//! What the service enforces on a request, stated in the OpenAPI document
//! (docs/decisions/hardening.md), so that a client generated from it, or a fuzzer
//! reading it, can trust it: the game ids and variants on offer, the
//! IANA time zones, the username and nickname rules, cursors, seat
//! indexes, turn lengths, and that no text in a request may hold NUL.
//!
//! What no JSON Schema can say stays in the descriptions (and in
//! docs/fuzzing.md): rules across fields (players per game, a variant of
//! that game), and rules on the state (a seat of yours, a name taken).

use posthorn_rules::GameId;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::BTreeSet;
use utoipa::openapi::schema::{
    ArrayBuilder, Object, ObjectBuilder, Schema, SchemaFormat, SchemaType, Type,
};
use utoipa::openapi::{Array, RefOr};

/// The most seats a game has (four-player chess); a seat index is below it.
pub const MAX_SEATS: u8 = 4;

/// A username as the service gives them (guests' `guest-…` included).
pub const USERNAME: &str = "^[A-Za-z0-9_-]{3,24}$";

/// A username one may register: `guest-`, in any case, is kept for
/// guests, and `deleted-` for deleted accounts
/// (docs/decisions/accounts-and-sessions.md, "Deleting an account").
pub const NEW_USERNAME: &str =
    "^(?![Gg][Uu][Ee][Ss][Tt]-|[Dd][Ee][Ll][Ee][Tt][Ee][Dd]-)[A-Za-z0-9_-]{3,24}$";

/// No NUL anywhere (`body.rs`, and `%00` in a path or query): the pattern
/// every request string without a narrower one is given.
pub const NO_NUL: &str = "^[^\\x00]*$";

/// `Registration.username`.
pub fn new_username() -> Object {
    new_username_of(false)
}

/// `IdentitySignIn.username`: only for a new account.
pub fn new_username_optional() -> Object {
    new_username_of(true)
}

fn new_username_of(nullable: bool) -> Object {
    string(nullable)
        .pattern(Some(NEW_USERNAME))
        .description(Some(
            "3–24 letters, digits, `_` and `-`; not starting with `guest-` or `deleted-` \
             (any case), which are kept for guests and deleted accounts.",
        ))
        .examples([json!("mina")])
        .build()
}

/// A username naming someone (`Named.username`).
pub fn username() -> Object {
    string(false)
        .pattern(Some(USERNAME))
        .description(Some("A username."))
        .examples([json!("mina")])
        .build()
}

fn string(nullable: bool) -> ObjectBuilder {
    let kind = if nullable {
        SchemaType::from_iter([Type::String, Type::Null])
    } else {
        SchemaType::new(Type::String)
    };
    ObjectBuilder::new().schema_type(kind)
}

/// `^(a|b|…)$` for literal values.
fn any_of<'a>(values: impl IntoIterator<Item = &'a str>) -> String {
    let escaped: Vec<String> = values
        .into_iter()
        .map(|v| {
            v.chars()
                .flat_map(|c| {
                    let meta = "\\^$.|?*+()[]{}".contains(c);
                    meta.then_some('\\').into_iter().chain([c])
                })
                .collect()
        })
        .collect();
    format!("^({})$", escaped.join("|"))
}

/// What `game` names on creating a match or a seek: a game id, or
/// `game/variant` (`game/mode` for a game with modes).
pub fn game_choice() -> Object {
    let mut values = Vec::new();
    for game in GameId::ALL {
        let about = game.about();
        values.push(about.id.to_owned());
        for choice in about.variants.iter().chain(about.modes) {
            values.push(format!("{}/{choice}", about.id));
        }
    }
    string(false)
        .pattern(Some(any_of(values.iter().map(String::as_str))))
        .description(Some(
            "A game id from `GET /v1/games`, or `game/variant` (`game/mode` for a game \
             with modes): `checkers/russian`, `four_player_chess/ffa`.",
        ))
        .examples([json!(values[0])])
        .build()
}

/// A game id alone (`janggi`), to narrow a list by.
pub fn game_id() -> Object {
    game_id_of(true)
        .description(Some("Only this game's matches (`janggi`)."))
        .build()
}

/// A game's id where one must be given (`?game=` of the puzzles).
pub fn game_id_required() -> Object {
    game_id_of(false).build()
}

fn game_id_of(nullable: bool) -> ObjectBuilder {
    string(nullable).pattern(Some(any_of(GameId::ALL.iter().map(|g| g.id()))))
}

fn choices(description: &str, pick: fn(&GameId) -> &'static [&'static str]) -> Object {
    let all: BTreeSet<&str> = GameId::ALL.iter().flat_map(pick).copied().collect();
    string(true)
        .pattern(Some(any_of(all)))
        .description(Some(description))
        .build()
}

/// Any game's variant; the game must offer it (`GET /v1/games`).
pub fn variant() -> Object {
    choices(
        "One of the game's variants (`GET /v1/games`); another game's is refused.",
        |g| g.about().variants,
    )
}

/// Any game's mode; the game must offer it (`GET /v1/games`).
pub fn mode() -> Object {
    choices(
        "One of the game's modes (`GET /v1/games`); another game's is refused.",
        |g| g.about().modes,
    )
}

/// The usernames a match is created with: at most every other seat.
pub fn opponents() -> Array {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(string(false).pattern(Some(USERNAME)))
        .max_items(Some(usize::from(MAX_SEATS) - 1))
        .description(Some(
            "Usernames of the people challenged directly. With the creator and \
             `open_seats` they make the match's players, which must be a number the \
             game takes (`GET /v1/games`: two, or two to four in four-player chess).",
        ))
        .build()
}

/// The characters `names::display_name` refuses, those of the Basic
/// Multilingual Plane (the pattern's `\u` escapes reach no further in
/// every regex dialect): controls, whitespace other than the space, and
/// the invisible ones.
fn refused_in_names() -> String {
    let mut class = String::from("\\x00-\\x1F\\x7F-\\x9F");
    let bmp = crate::ink::DEFAULT_IGNORABLE
        .iter()
        .filter(|(start, _)| *start <= 0xFFFF);
    // The same lists as `ink::outside_the_pattern`, which the service
    // judges a name's form by.
    for (start, end) in crate::ink::BLANKS.iter().chain(bmp) {
        class.push_str(&format!("\\u{start:04X}"));
        if end != start {
            class.push_str(&format!("-\\u{end:04X}"));
        }
    }
    class
}

/// A guest's nickname: 1–24 visible characters after trimming spaces
/// (spaces around them are trimmed, however many), in any script
/// (`민지`, `Mina`).
pub fn nickname() -> Object {
    nickname_of(false)
}

/// A display name that may be left out (`Upgrade.display_name`).
pub fn nickname_optional() -> Object {
    nickname_of(true)
}

fn nickname_of(nullable: bool) -> Object {
    let bad = refused_in_names();
    string(nullable)
        .pattern(Some(format!(
            "^ *[^{bad} ](?:[^{bad}]{{0,22}}[^{bad} ])? *$"
        )))
        .description(Some(
            "1–24 visible characters after NFKC normalisation and trimming: no \
             control, invisible or non-space blank character. A nickname that looks \
             like a registered player's name is refused.",
        ))
        .examples([json!("Mina"), json!("민지")])
        .build()
}

/// A `time_zone`: one of the IANA names the service knows.
pub struct TimeZone;

impl utoipa::PartialSchema for TimeZone {
    fn schema() -> RefOr<Schema> {
        let names = chrono_tz::TZ_VARIANTS.iter().map(|tz| tz.name());
        string(false)
            .pattern(Some(any_of(names)))
            .description(Some(
                "An IANA time zone name, as the tz database spells it \
                 (`Asia/Seoul`, `UTC`): deadlines and the digest's morning are read in it.",
            ))
            .examples([json!("Asia/Seoul")])
            .into()
    }
}

impl utoipa::ToSchema for TimeZone {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("TimeZone")
    }
}

/// `GET /v1/matches`' cursor: opaque, as `next_cursor` gave it.
/// My matches' cursor (docs/decisions/api-and-schemas.md, "400 for form,
/// 422 for meaning"): "one this service did not give" was once a 400 for a
/// cursor the pattern allowed; the pattern now admits exactly the cursors
/// the service reads: `o:` and 1–18 digits (an offset), in unpadded
/// base64url. `bzo` is `o:` and the top bits of the first digit; each
/// further 4 characters carry three digits, and the tail one or two. A
/// digit is `0011dddd` with `dddd` 0–9, which fixes each character's
/// choices (`tests/service/schemas.rs` checks offsets against it).
pub const MATCH_CURSOR: &str = concat!(
    "^bzo[w-z0-5]",
    "(?:(?:[MN][DTjz]|O[DT])[AEIMQUYcgk][w-z0-5]){0,5}",
    "(?:[MN][AQgw]|O[AQ]|(?:[MN][DTjz]|O[DT])[AEIMQUYcgk])?$",
);

pub fn match_cursor() -> Object {
    string(true)
        .pattern(Some(MATCH_CURSOR))
        .description(Some(
            "The previous page's `next_cursor`, unchanged. Treat it as opaque: \
             its form (stated by the pattern) may change with a new version of \
             the API. A cursor past the last match gives an empty page.",
        ))
        .build()
}

/// A leaderboard's cursor: `<rating>_<user id>`, the last row read.
pub fn board_cursor() -> Object {
    string(true)
        .pattern(Some(
            "^-?[0-9]{1,9}_[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$",
        ))
        .description(Some(
            "The previous page's `next_cursor`: `<rating>_<user id>` of the last row \
             read; the page starts after it.",
        ))
        .build()
}

/// A push endpoint as a browser gives it (`notify::push::endpoint_shape`
/// checks the same): `https://`, a DNS name whose last label starts with
/// a letter, a dotted IPv4 address or a bracketed IPv6 address (whether
/// an address is public is judged by the service, not the pattern), an
/// optional port (1–65535), then a path and query of RFC 3986 characters.
pub const PUSH_ENDPOINT: &str = concat!(
    "^https://(([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?\\.)*[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?",
    "|(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}|\\[[0-9A-Fa-f:.]+\\])",
    "(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?",
    "(/([A-Za-z0-9._~:/?@!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*)?$",
);

/// `NewSubscription.endpoint`.
pub fn push_endpoint() -> Object {
    string(false)
        .format(Some(SchemaFormat::Custom("uri".into())))
        .pattern(Some(PUSH_ENDPOINT))
        .description(Some(
            "The push service's `https` URL for this device. One naming a private, \
             loopback or link-local address is refused.",
        ))
        .examples([json!("https://fcm.googleapis.com/fcm/send/abc123")])
        .build()
}

/// Default time per turn (§T1: notice at 24 h, abandonment at 48 h).
pub const DEFAULT_TURN_HOURS: f64 = 48.0;
/// The longest turn a match may have.
pub const MAX_TURN_HOURS: f64 = 14.0 * 24.0;

/// `turn_hours` as `create::turn_seconds` takes it: at least the
/// configured shortest turn, at most 14 days.
pub fn state_turn_hours(doc: &mut Value, min_turn_seconds: i64) {
    let min = min_turn_seconds.max(0) as f64 / 3600.0;
    let max = MAX_TURN_HOURS;
    for name in ["NewMatch", "NewSeek", "NewTournament"] {
        if let Some(Value::Object(field)) =
            doc.pointer_mut(&format!("/components/schemas/{name}/properties/turn_hours"))
        {
            field.insert("minimum".into(), json!(min));
            field.insert("maximum".into(), json!(max));
        }
    }
}

/// Give every string a request can carry, and that has no pattern,
/// format or set of values narrower than "no NUL", the [`NO_NUL`]
/// pattern: parameters, bodies, and the components they reach.
pub fn state_no_nul(doc: &mut Value) {
    let mut reached = BTreeSet::new();
    let mut inline = Vec::new();
    if let Some(Value::Object(paths)) = doc.get("paths") {
        for (path, item) in paths {
            let Value::Object(item) = item else { continue };
            for (method, op) in item {
                let base = format!("/paths/{}/{method}", escape(path));
                if let Some(Value::Array(params)) = op.get("parameters") {
                    for i in 0..params.len() {
                        inline.push(format!("{base}/parameters/{i}/schema"));
                    }
                }
                if let Some(Value::Object(content)) = op.pointer("/requestBody/content") {
                    for media in content.keys() {
                        inline.push(format!(
                            "{base}/requestBody/content/{}/schema",
                            escape(media)
                        ));
                    }
                }
            }
        }
    }
    let mut todo: Vec<String> = inline.clone();
    while let Some(at) = todo.pop() {
        if let Some(schema) = doc.pointer(&at) {
            for name in refs(schema) {
                if reached.insert(name.clone()) {
                    todo.push(format!("/components/schemas/{}", escape(&name)));
                }
            }
        }
    }
    let components = reached
        .iter()
        .map(|name| format!("/components/schemas/{}", escape(name)));
    for at in inline.into_iter().chain(components) {
        if let Some(schema) = doc.pointer_mut(&at) {
            no_nul(schema);
        }
    }
}

/// A JSON pointer's escaping of one segment.
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The components `schema` refers to, at any depth.
fn refs(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(fields) => {
                if let Some(Value::String(target)) = fields.get("$ref") {
                    if let Some(name) = target.strip_prefix("#/components/schemas/") {
                        found.push(name.replace("~1", "/").replace("~0", "~"));
                    }
                }
                stack.extend(fields.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found
}

fn is_string(schema: &serde_json::Map<String, Value>) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
        _ => false,
    }
}

/// The [`NO_NUL`] pattern on every open string of one schema (not
/// following references: those are walked on their own).
fn no_nul(schema: &mut Value) {
    let Value::Object(fields) = schema else {
        return;
    };
    let narrowed = ["pattern", "format", "enum", "const"]
        .iter()
        .any(|k| fields.contains_key(*k));
    if is_string(fields) && !narrowed {
        fields.insert("pattern".into(), json!(NO_NUL));
    }
    for (key, value) in fields.iter_mut() {
        match (key.as_str(), value) {
            ("items" | "additionalProperties" | "not" | "contains", inner) => no_nul(inner),
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(inner)) => {
                inner.iter_mut().for_each(no_nul)
            }
            ("properties" | "patternProperties", Value::Object(inner)) => {
                inner.values_mut().for_each(no_nul)
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seat_bound_is_the_largest_game_s() {
        let most = GameId::ALL.iter().map(|g| g.about().seats.1).max();
        assert_eq!(most, Some(usize::from(MAX_SEATS)));
    }

    #[test]
    fn every_time_zone_of_the_pattern_is_one_the_service_reads() {
        for tz in chrono_tz::TZ_VARIANTS {
            assert!(tz.name().parse::<chrono_tz::Tz>().is_ok(), "{}", tz.name());
        }
        assert_eq!(any_of(["Etc/GMT+1", "UTC"]), "^(Etc/GMT\\+1|UTC)$");
    }

    #[test]
    fn examples_are_left_as_they_are() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "example": "x"},
                "b": {"type": ["string", "null"], "format": "email"},
                "c": {"type": "array", "items": {"type": "string"}},
                "d": {"type": "string", "enum": ["x"]},
            },
            "example": {"a": {"type": "string"}},
        });
        no_nul(&mut schema);
        assert_eq!(schema["properties"]["a"]["pattern"], NO_NUL);
        assert!(schema["properties"]["b"].get("pattern").is_none());
        assert_eq!(schema["properties"]["c"]["items"]["pattern"], NO_NUL);
        assert!(schema["properties"]["d"].get("pattern").is_none());
        assert!(schema["example"]["a"].get("pattern").is_none());
    }
}
