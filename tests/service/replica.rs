//! Reads from a replica (issue #36): profiles, leaderboards, head-to-head
//! and replays read `POSTHORN_READ_DATABASE_URL` when it is set, and the
//! primary when the replica is down. The "replica" here is another
//! database that never receives the primary's writes, so what a read
//! answers shows where it was read.

use crate::support::TestApp;
use serde_json::{json, Value};

/// Alice and Bob finish a rated checkers match (both move, then Alice
/// resigns): each has a rated record on the primary.
async fn rated_match(app: &TestApp) -> String {
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let body = json!({"game": "checkers", "opponents": ["bob"], "rated": true});
    let id = app.post("/v1/matches", &alice, body).await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for _ in 0..2 {
        for token in [&alice, &bob] {
            let legal = app
                .get(&format!("/v1/matches/{id}/legal-actions"), token)
                .await;
            let mv = (legal.body["actions"].as_array().unwrap().iter())
                .find(|a| a["type"] == "move")
                .cloned();
            if let Some(mv) = mv {
                assert_eq!(app.act(token, &id, mv).await.status, 200);
            }
        }
    }
    let resigned = app.act(&alice, &id, json!({"type": "resign"})).await;
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    alice
}

fn config(read: String) -> posthorn::config::Config {
    posthorn::config::Config {
        read_database_url: Some(read),
        ..Default::default()
    }
}

async fn perfs(app: &TestApp, token: &str) -> Value {
    let profile = app.get("/v1/users/bob", token).await;
    assert_eq!(profile.status, 200, "{}", profile.body);
    profile.body["perfs"].clone()
}

#[actix_web::test]
async fn profiles_read_the_replica_and_the_primary_when_it_is_down() {
    // The "replica": Alice and Bob exist there, with no match played.
    let stale = TestApp::start().await;
    stale.register("alice").await;
    stale.register("bob").await;
    let app = TestApp::start_with(config(stale.database_url())).await;
    let alice = rated_match(&app).await;
    assert_eq!(perfs(&app, &alice).await, json!([]), "read on the replica");
    let ready = app.get("/readyz", "").await.body;
    assert_eq!(ready["database"]["role"], "primary", "{ready}");
    assert_eq!(ready["replica"]["reachable"], true, "{ready}");
    // What must see the caller's own writes stays on the primary.
    let mine = app.get("/v1/matches", &alice).await.body;
    assert_eq!(mine["items"].as_array().unwrap().len(), 1, "{mine}");
    stale.stop().await;
    app.stop().await;

    // A replica that is down: the same reads come from the primary.
    let down = "postgres://postgres@127.0.0.1:1/nowhere".to_owned();
    let app = TestApp::start_with(config(down)).await;
    let alice = rated_match(&app).await;
    assert_eq!(perfs(&app, &alice).await.as_array().unwrap().len(), 1);
    let ready = app.get("/readyz", "").await;
    assert_eq!(ready.status, 200, "ready without its replica");
    assert_eq!(ready.body["replica"]["reachable"], false, "{}", ready.body);
    let metrics =
        posthorn::db::replica::REPLICA_FALLBACKS.load(std::sync::atomic::Ordering::Relaxed);
    assert!(metrics > 0);
    app.stop().await;
}
