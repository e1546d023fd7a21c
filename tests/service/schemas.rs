//! Issue #22: what the service answers matches the schemas of the document
//! it serves, the games' payloads included (views, actions, events).

use crate::support::TestApp;
use posthorn_rules::{Random, SplitMix64};
use serde_json::{json, Value};

/// A validator for one component of the served document.
pub(crate) fn component(doc: &Value, name: &str) -> jsonschema::Validator {
    let root = json!({
        "$ref": format!("#/components/schemas/{name}"),
        "components": doc["components"].clone(),
    });
    jsonschema::validator_for(&root).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub(crate) fn assert_valid(validator: &jsonschema::Validator, name: &str, value: &Value) {
    if let Err(e) = validator.validate(value) {
        panic!("{name} does not match the document: {e}\n{value}");
    }
}

#[actix_web::test]
async fn answers_of_whole_matches_match_the_served_document() {
    let app = TestApp::start().await;
    let doc = app
        .request("GET", "/v1/openapi.json", None, None, &[])
        .await
        .body;
    let mut names = vec!["ServiceEvent".to_owned(), "ServiceAction".to_owned()];
    for game in posthorn_rules::GameId::ALL {
        let prefix = posthorn::http::game_schemas::prefix(*game);
        names.extend(["View", "Action", "Event", "Options"].map(|kind| format!("{prefix}{kind}")));
    }
    for name in names {
        assert!(
            doc["components"]["schemas"][&name].is_object(),
            "{name} is documented"
        );
    }
    // The catalogue points at each game's options schema in the document.
    let games = app.request("GET", "/v1/games", None, None, &[]).await.body;
    for game in games.as_array().unwrap() {
        let target = game["options_schema"].as_str().unwrap();
        let pointer = target.strip_prefix("/v1/openapi.json#").unwrap();
        assert!(
            doc.pointer(pointer).is_some_and(Value::is_object),
            "{target}"
        );
    }
    let match_view = component(&doc, "MatchView");
    let legal = component(&doc, "LegalActions");
    let answer = component(&doc, "ActionAnswer");
    let feed = component(&doc, "EventFeed");
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let mut random = SplitMix64::new(22);
    let mut checked = 0;
    for game in posthorn_rules::GameId::ALL.iter().map(|g| g.id()) {
        let created = app
            .post(
                "/v1/matches",
                &alice,
                json!({"game": game, "opponents": ["bob"]}),
            )
            .await;
        assert_valid(&match_view, "MatchView", &created.body);
        let path = format!("/v1/matches/{}", created.body["id"].as_str().unwrap());
        for _ in 0..60 {
            let mut acted = false;
            for token in [&alice, &bob] {
                let view = app.get(&path, token).await.body;
                assert_valid(&match_view, "MatchView", &view);
                if view["status"] == "finished" {
                    break;
                }
                let listed = app.get(&format!("{path}/legal-actions"), token).await.body;
                assert_valid(&legal, "LegalActions", &listed);
                let playing: Vec<&Value> = listed["actions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|a| a["type"] != "resign" && a["type"] != "offer_draw")
                    .collect();
                if playing.is_empty() {
                    continue;
                }
                let action = playing[random.below(playing.len() as u64) as usize].clone();
                let reply = app
                    .post(
                        &format!("{path}/actions"),
                        token,
                        json!({"seq": listed["seq"], "action": action}),
                    )
                    .await;
                if reply.status == 200 {
                    assert_valid(&answer, "ActionAnswer", &reply.body);
                    checked += 1;
                    acted = true;
                }
            }
            if !acted {
                break;
            }
        }
        for token in [&alice, &bob] {
            let events = app.get(&format!("{path}/events"), token).await.body;
            assert_valid(&feed, "EventFeed", &events);
        }
    }
    assert!(checked > 20, "{checked} answers checked");
    // The schemas bite: a view of another shape is refused.
    let mut wrong = app.get("/v1/matches", &alice).await.body["items"][0].clone();
    wrong["view"] = json!({"board": 7});
    assert!(match_view.validate(&wrong).is_err());
    app.stop().await;
}

/// Issue #22: the document carries every game's examples (a start view, a
/// legal-actions answer, an action and an answer with its events), and
/// each validates against the schema of the place it documents.
#[test]
fn every_game_has_examples_that_match_the_document() {
    use utoipa::OpenApi;
    let doc = posthorn::http::document(&posthorn::http::ApiDoc::openapi());
    let places = [
        ("/v1/matches/{id}", "get", "/responses/200", "MatchView"),
        (
            "/v1/matches/{id}/legal-actions",
            "get",
            "/responses/200",
            "LegalActions",
        ),
        (
            "/v1/matches/{id}/actions",
            "post",
            "/requestBody",
            "ActionRequest",
        ),
        (
            "/v1/matches/{id}/actions",
            "post",
            "/responses/200",
            "ActionAnswer",
        ),
    ];
    for (path, method, at, schema) in places {
        let validator = component(&doc, schema);
        let media = &doc["paths"][path][method].pointer(at).unwrap()["content"]["application/json"];
        for game in posthorn_rules::GameId::ALL {
            let example = &media["examples"][game.id()]["value"];
            assert!(
                example.is_object(),
                "{path} {method} has a {} example",
                game.id()
            );
            assert_valid(&validator, schema, example);
        }
    }
}

/// Issue #30 item 15: the document states what the service enforces on a
/// request, as a schema-driven fuzzer found it did not: each value below
/// is refused by the service, and now by the document too (the service
/// side is `errors::requests_the_document_refuses_are_refused`).
#[test]
fn the_document_states_what_a_request_must_be() {
    use utoipa::OpenApi;
    let config = posthorn::config::Config::default();
    let doc = posthorn::http::served_document(&posthorn::http::ApiDoc::openapi(), &config);
    let schema = |name: &str| component(&doc, name);
    let verdicts = [
        (
            "ActionRequest",
            json!({"seq": 1, "action": {"type": "resign"}, "seat": 3}),
            true,
        ),
        (
            "ActionRequest",
            json!({"seq": 1, "action": {"type": "resign"}, "seat": 4}),
            false,
        ),
        (
            "ActionRequest",
            json!({"seq": 1, "action": {"type": "resign"}, "seat": 2147483646}),
            false,
        ),
        ("MeChanges", json!({"time_zone": "Asia/Seoul"}), true),
        ("MeChanges", json!({"time_zone": "Etc/GMT+9"}), true),
        ("MeChanges", json!({"time_zone": "v"}), false),
        ("MeChanges", json!([null, null]), false),
        (
            "Registration",
            json!({"username": "mina", "password": "a long password"}),
            true,
        ),
        (
            "Registration",
            json!({"username": "Guest-2203e6", "password": "a long password"}),
            false,
        ),
        (
            "Registration",
            json!({"username": "mina", "password": "a long password", "time_zone": "Mars/Base"}),
            false,
        ),
        ("GuestRequest", json!({"nickname": " Mina "}), true),
        (
            "GuestRequest",
            json!({"nickname": format!(" 0{}", " ".repeat(30))}),
            true,
        ),
        ("GuestRequest", json!({"nickname": "김철수"}), true),
        ("GuestRequest", json!({"nickname": "   "}), false),
        ("GuestRequest", json!({"nickname": "a\u{1}b"}), false),
        ("GuestRequest", json!({"nickname": "a\u{200b}b"}), false),
        (
            "NewMatch",
            json!({"game": "checkers/russian", "open_seats": 1}),
            true,
        ),
        (
            "NewMatch",
            json!({"game": "four_player_chess", "opponents": ["a_b", "c-d", "efg"]}),
            true,
        ),
        ("NewMatch", json!({"game": "chess"}), false),
        (
            "NewMatch",
            json!({"game": "checkers", "open_seats": 4}),
            false,
        ),
        (
            "NewMatch",
            json!({"game": "checkers", "turn_hours": 0.5}),
            false,
        ),
        (
            "NewMatch",
            json!({"game": "checkers", "turn_hours": 337}),
            false,
        ),
        (
            "NewMatch",
            json!({"game": "checkers", "variant": "nope"}),
            false,
        ),
        (
            "NewMatch",
            json!({"game": "checkers", "opponents": ["x"]}),
            false,
        ),
        ("NewSeek", json!({"game": "checkers", "players": 2}), true),
        ("NewSeek", json!({"game": "checkers", "players": 0}), false),
        (
            "NewSeek",
            json!({"game": "checkers", "rating_range": {"min": -1, "max": 0}}),
            false,
        ),
        ("Login", json!({"login": "mina", "password": "x"}), true),
        ("Login", json!({"login": "Z\u{0}", "password": "x"}), false),
        ("Refresh", json!({"refresh_token": "a\u{0}"}), false),
        ("Named", json!({"username": "mina"}), true),
        ("Named", json!({"username": "m"}), false),
    ];
    for (name, value, valid) in verdicts {
        assert_eq!(schema(name).is_valid(&value), valid, "{name}: {value}");
    }
    let keys = json!({"p256dh": format!("B{}", "A".repeat(86)), "auth": "A".repeat(22)});
    let push = schema("NewSubscription");
    // The document's endpoint pattern and the service's check agree.
    for (endpoint, valid) in [
        ("https://fcm.googleapis.com/fcm/send/abc123", true),
        ("https://push.example:8443/x?y=1&z=%2F", true),
        ("https://push.example:65535", true),
        ("https://", false),
        ("http://push.example/x", false),
        ("ftp://push.example", false),
        ("https://iz6j6tzd.q.test*", false),
        ("https://push.example/a b", false),
        ("https://push.example/%zz", false),
        ("https://push.example#x", false),
        ("https://push.example:0/", false),
        ("https://push.example:65536/", false),
        ("https://1.2.3.4/x", true),
        ("https://[2a00:1450::1]:8443/x", true),
        ("https://[2a00:1450::1]/x", true),
        ("https://[zz]/x", false),
        ("https://[2a00:1450::1]x/", false),
        ("https://256.1.1.1/x", false),
        ("https://01.2.3.4/x", false),
        ("https://1.2.3/x", false),
        ("https://-a.example", false),
        ("https://a..example", false),
        ("https://user@push.example/", false),
    ] {
        let value = json!({"endpoint": endpoint, "keys": keys});
        assert_eq!(push.is_valid(&value), valid, "{value}");
        assert_eq!(
            posthorn::notify::push::endpoint_shape(endpoint),
            valid,
            "{endpoint}"
        );
    }
    for (expiration, valid) in [
        (json!(null), true),
        (json!(1.8e12), true),
        (json!([null]), false),
    ] {
        let value = json!({"endpoint": "https://push.example/x", "keys": keys, "expirationTime": expiration});
        assert_eq!(push.is_valid(&value), valid, "{value}");
    }
    let value = json!({"endpoint": "https://push.example/x", "keys": keys, "x": "\u{0}"});
    assert!(!push.is_valid(&value), "no other member");
    let endpoint = &doc["components"]["schemas"]["NewSubscription"]["properties"]["endpoint"];
    assert_eq!(endpoint["format"], "uri");
    let short = json!({"endpoint": "https://push.example", "keys": {"p256dh": "AA", "auth": "AA"}});
    assert!(!push.is_valid(&short));

    // The parameters: cursors, the game filter, and no NUL in any text.
    let param = |path: &str, name: &str| {
        let params = doc["paths"][path]["get"]["parameters"].as_array().unwrap();
        let found = params.iter().find(|p| p["name"] == name).unwrap();
        jsonschema::validator_for(&found["schema"]).unwrap()
    };
    let cursor = param("/v1/matches", "cursor");
    assert!(cursor.is_valid(&json!("bzoyMA")) && !cursor.is_valid(&json!("")));
    // Issue #46: exactly the cursors the service reads (`o:<offset>` in
    // base64url), so a schema-valid cursor is never refused.
    use base64::Engine;
    let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
    for offset in [
        "0",
        "9",
        "20",
        "40",
        "987",
        "1234",
        "98765",
        "123456789012345678",
    ] {
        let token = b64(&format!("o:{offset}"));
        assert!(cursor.is_valid(&json!(token)), "{offset}: {token}");
    }
    for forged in [
        "o:",
        "o:-1",
        "o:+1",
        "o:1a",
        "x:1",
        "o:1234567890123456789",
        "0",
    ] {
        let token = b64(forged);
        assert!(!cursor.is_valid(&json!(token)), "{forged}: {token}");
    }
    assert!(!cursor.is_valid(&json!("MA")), "base64url of 0, no prefix");
    let game = param("/v1/matches", "game");
    assert!(game.is_valid(&json!("janggi")) && !game.is_valid(&json!("")));
    let board = param("/v1/leaderboards/{perf}", "cursor");
    assert!(board.is_valid(&json!("1500_0b8e6a3c-7c1e-4f4e-9a65-6a1f0c2d3e4f")));
    assert!(!board.is_valid(&json!("1500")));
    let seeks = param("/v1/seeks", "game");
    assert!(seeks.is_valid(&json!("x")) && !seeks.is_valid(&json!("x\u{0}")));
}
