//! Rematches (issue #20): when every player of a finished match asks, a new
//! match starts with the same settings, each player on the next side, the
//! two linked both ways.

use crate::support::TestApp;
use serde_json::{json, Value};
use std::collections::HashMap;

fn id(m: &Value) -> String {
    m["id"].as_str().unwrap().to_owned()
}

/// Each username's seats in `m`.
fn seats_by_name(m: &Value) -> HashMap<String, u64> {
    m["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["user"]["username"].as_str().unwrap().to_owned(),
                s["seat"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `players[0]` creates `body` naming the others; the first on move resigns.
async fn finished(
    app: &TestApp,
    tokens: &HashMap<&str, String>,
    players: &[&str],
    body: Value,
) -> Value {
    let mut body = body;
    body["opponents"] = json!(players[1..]);
    let m = app
        .post("/v1/matches", &tokens[players[0]], body)
        .await
        .body;
    let names = seats_by_name(&m);
    let seat = m["to_act"][0]["seat"].as_u64().unwrap();
    let mover = names.iter().find(|(_, s)| **s == seat).unwrap().0.clone();
    let reply = app
        .act(&tokens[mover.as_str()], &id(&m), json!({"type": "resign"}))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body["match"].clone()
}

async fn tokens<'a>(app: &TestApp, names: &[&'a str]) -> HashMap<&'a str, String> {
    let mut tokens = HashMap::new();
    for name in names {
        tokens.insert(*name, app.register(name).await);
    }
    tokens
}

async fn rematch(app: &TestApp, token: &str, old: &Value) -> Value {
    let reply = app
        .challenge(
            &format!("/v1/matches/{}/rematch", id(old)),
            token,
            json!({}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body
}

#[actix_web::test]
async fn a_checkers_rematch_starts_when_both_ask_with_colours_swapped_and_links_both_ways() {
    let app = TestApp::start().await;
    let t = tokens(&app, &["alice", "bob"]).await;
    let old = finished(
        &app,
        &t,
        &["alice", "bob"],
        json!({"game": "checkers", "turn_hours": 24}),
    )
    .await;
    let asked = rematch(&app, &t["alice"], &old).await;
    assert_eq!(asked["rematch"], Value::Null);
    assert_eq!(asked["waiting_for"][0]["username"], "bob");
    let again = rematch(&app, &t["alice"], &old).await;
    assert_eq!(again["rematch"], Value::Null, "asking twice starts nothing");
    let started = rematch(&app, &t["bob"], &old).await["rematch"].clone();
    assert_eq!(started["status"], "active", "{started}");
    assert_eq!(started["turn_hours"], 24.0, "the same settings");
    assert_eq!(started["rematch_of"], old["id"]);
    let (before, after) = (seats_by_name(&old), seats_by_name(&started));
    for name in ["alice", "bob"] {
        assert_eq!(
            after[name],
            1 - before[name],
            "{name} changes colour (seat 0 is Black)"
        );
    }
    let old_now = app
        .get(&format!("/v1/matches/{}", id(&old)), &t["alice"])
        .await
        .body;
    assert_eq!(old_now["rematch"], started["id"]);
    let late = app
        .challenge(
            &format!("/v1/matches/{}/rematch", id(&old)),
            &t["alice"],
            json!({}),
        )
        .await;
    assert_eq!(late.status, 409, "{}", late.body);
    // Only a finished match, only its players.
    let carol = app.register("carol").await;
    let stranger = app
        .challenge(
            &format!("/v1/matches/{}/rematch", id(&old)),
            &carol,
            json!({}),
        )
        .await;
    assert_eq!(stranger.status, 404, "{}", stranger.body);
    let early = app
        .challenge(
            &format!("/v1/matches/{}/rematch", id(&started)),
            &t["alice"],
            json!({}),
        )
        .await;
    assert_eq!(early.status, 409, "{}", early.body);
    app.stop().await;
}

#[actix_web::test]
async fn a_janggi_rematch_swaps_cho_and_han() {
    let app = TestApp::start().await;
    let t = tokens(&app, &["alice", "bob"]).await;
    let old = finished(&app, &t, &["alice", "bob"], json!({"game": "janggi"})).await;
    rematch(&app, &t["bob"], &old).await;
    let started = rematch(&app, &t["alice"], &old).await["rematch"].clone();
    let cho_name = |m: &Value| {
        let cho = m["view"]["cho"].as_u64().unwrap();
        seats_by_name(m)
            .into_iter()
            .find(|(_, s)| *s == cho)
            .unwrap()
            .0
    };
    assert_ne!(cho_name(&old), cho_name(&started));
    app.stop().await;
}

#[actix_web::test]
async fn a_four_player_rematch_moves_every_army_on_clockwise() {
    let app = TestApp::start().await;
    let names = ["alice", "bob", "carol", "dave"];
    let t = tokens(&app, &names).await;
    let old = finished(
        &app,
        &t,
        &names,
        json!({"game": "four_player_chess", "mode": "teams"}),
    )
    .await;
    for name in names {
        rematch(&app, &t[name], &old).await;
    }
    let new_id = app
        .get(&format!("/v1/matches/{}", id(&old)), &t["alice"])
        .await
        .body["rematch"]
        .clone();
    let started = app
        .get(
            &format!("/v1/matches/{}", new_id.as_str().unwrap()),
            &t["alice"],
        )
        .await
        .body;
    let army_of = |m: &Value, name: &str| {
        let seat = seats_by_name(m)[name];
        m["view"]["armies"]
            .as_array()
            .unwrap()
            .iter()
            .position(|a| a["seat"] == seat)
            .unwrap()
    };
    for name in names {
        assert_eq!(
            army_of(&started, name),
            (army_of(&old, name) + 1) % 4,
            "{name}"
        );
    }
    app.stop().await;
}
