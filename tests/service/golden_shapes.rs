//! The golden notices (issue #66 item 2, `src/notify/golden.rs`) are
//! rendered from `docs/notices/fixtures.json`; this checks those fixtures
//! against payloads the service really writes, from real play: every
//! field of a real notice of a kind is in that kind's fixtures, so the
//! golden table shows what readers get.

use crate::support::{a_move, TestApp};
use posthorn::jobs::delivery::deliver_due;
use posthorn_rules::SplitMix64;
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};

/// Every field path of a JSON value: `result.ratings[].change`.
fn paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                out.insert(path.clone());
                paths(field, &path, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                paths(item, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

/// The fields the fixtures of each kind show.
fn fixture_fields() -> HashMap<String, BTreeSet<String>> {
    let list: Vec<Value> =
        serde_json::from_str(include_str!("../../docs/notices/fixtures.json")).unwrap();
    let mut fields: HashMap<String, BTreeSet<String>> = HashMap::new();
    for fixture in list {
        let kind = fixture["kind"].as_str().unwrap().to_owned();
        paths(&fixture["payload"], "", fields.entry(kind).or_default());
    }
    fields
}

/// Fields of `real` its kind's fixtures do not show.
fn unshown(real: &[(String, Value)]) -> Vec<String> {
    let shown = fixture_fields();
    let mut missing = BTreeSet::new();
    for (kind, payload) in real {
        let mut fields = BTreeSet::new();
        paths(payload, "", &mut fields);
        let known = shown.get(kind).cloned().unwrap_or_default();
        missing.extend(fields.difference(&known).map(|f| format!("{kind}: {f}")));
    }
    missing.into_iter().collect()
}

#[test]
fn the_check_bites() {
    let toy = [(
        "your_turn".to_owned(),
        json!({"game": "checkers", "deadline_at": "x", "surprise": {"field": 1}}),
    )];
    assert_eq!(
        unshown(&toy),
        ["your_turn: surprise", "your_turn: surprise.field"]
    );
    let shown = [(
        "match_finished".to_owned(),
        json!({"result": {"winners": [0]}}),
    )];
    assert!(unshown(&shown).is_empty());
}

#[actix_web::test]
async fn the_golden_fixtures_show_every_field_the_service_writes() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    // A rated match played a few moves, then resigned.
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"], "rated": true}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    let mut random = SplitMix64::new(66);
    app.play_moves(&[&alice, &bob], &id, &mut random, 4, a_move)
        .await;
    assert_eq!(
        app.act(&alice, &id, json!({"type": "resign"})).await.status,
        200
    );
    // A challenge accepted, and one declined.
    for answer in ["accept", "decline"] {
        let m = app
            .challenge(
                "/v1/matches",
                &alice,
                json!({"game": "janggi", "opponents": ["bob"]}),
            )
            .await;
        assert_eq!(m.status, 201, "{}", m.body);
        let path = format!("/v1/matches/{}/{answer}", m.body["id"].as_str().unwrap());
        let answered = app.request("POST", &path, Some(&bob), None, &[]).await;
        assert!(answered.status.is_success(), "{}", answered.body);
    }
    app.blocking(|s| deliver_due(&s.courier())).await.unwrap();
    let real: Vec<(String, Value)> = app
        .blocking(|s| {
            use diesel::prelude::*;
            use posthorn::schema::notifications as n;
            n::table
                .select((n::kind, n::payload))
                .load(&mut s.pool.get().unwrap())
                .unwrap()
        })
        .await;
    let kinds: BTreeSet<&str> = real.iter().map(|(k, _)| k.as_str()).collect();
    for kind in [
        "your_turn",
        "match_finished",
        "invitation",
        "invitation_accepted",
        "match_cancelled",
    ] {
        assert!(kinds.contains(kind), "{kind} was written: {kinds:?}");
    }
    let last = real
        .iter()
        .find(|(k, p)| k == "your_turn" && p["last"].is_object());
    assert!(last.is_some(), "a turn tells the last move");
    assert_eq!(unshown(&real), Vec::<String>::new());
}
