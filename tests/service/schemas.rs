//! Issue #22: what the service answers matches the schemas of the document
//! it serves, the games' payloads included (views, actions, events).

use crate::support::TestApp;
use posthorn_rules::{Random, SplitMix64};
use serde_json::{json, Value};

/// A validator for one component of the served document.
fn component(doc: &Value, name: &str) -> jsonschema::Validator {
    let root = json!({
        "$ref": format!("#/components/schemas/{name}"),
        "components": doc["components"].clone(),
    });
    jsonschema::validator_for(&root).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn assert_valid(validator: &jsonschema::Validator, name: &str, value: &Value) {
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
