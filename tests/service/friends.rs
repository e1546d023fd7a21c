//! Friends and blocks (issue #20): requests answered by the other, the
//! friends list with whose turn it is in our matches, and blocks that hold
//! on every path one person could reach the other by.

use crate::support::TestApp;
use serde_json::{json, Value};

async fn friends_of(app: &TestApp, token: &str) -> Value {
    let reply = app.get("/v1/friends", token).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|f| f["user"]["username"].as_str().unwrap().to_owned())
        .collect()
}

#[actix_web::test]
async fn a_friend_request_is_answered_and_friends_see_whose_turn_it_is() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let asked = app
        .post("/v1/friends/requests", &alice, json!({"username": "Bob"}))
        .await;
    assert_eq!(asked.status, 201, "{}", asked.body);
    assert_eq!(asked.body["status"], "pending");
    let again = app
        .post("/v1/friends/requests", &alice, json!({"username": "bob"}))
        .await;
    assert_eq!((again.status.as_u16(), again.code()), (409, "conflict"));
    assert_eq!(names(&friends_of(&app, &bob).await["incoming"]), ["alice"]);
    assert_eq!(names(&friends_of(&app, &alice).await["outgoing"]), ["bob"]);
    assert_eq!(
        friends_of(&app, &alice).await["friends"],
        json!([]),
        "not before bob accepts"
    );
    let accepted = app
        .request(
            "POST",
            "/v1/friends/requests/alice/accept",
            Some(&bob),
            None,
            &[],
        )
        .await;
    assert_eq!(accepted.status, 204);
    let repeat = app
        .post("/v1/friends/requests", &bob, json!({"username": "alice"}))
        .await;
    assert_eq!(
        (repeat.status.as_u16(), repeat.code()),
        (409, "already_friends")
    );
    // A match between us: the list says whose turn it is.
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await
        .body;
    let id = m["id"].clone();
    let alice_moves = m["to_act"][0]["seat"] == m["my_seats"][0];
    let mine = friends_of(&app, &alice).await;
    let friend = &mine["friends"][0];
    assert_eq!(friend["user"]["username"], "bob");
    let (me, them) = if alice_moves {
        ("awaiting_me", "awaiting_them")
    } else {
        ("awaiting_them", "awaiting_me")
    };
    assert_eq!(friend[me], json!([id]));
    assert_eq!(friend[them], json!([]));
    // Asking back someone who asked first makes friends at once.
    app.post("/v1/friends/requests", &carol, json!({"username": "alice"}))
        .await;
    let back = app
        .post("/v1/friends/requests", &alice, json!({"username": "carol"}))
        .await;
    assert_eq!(back.body["status"], "friends");
    assert_eq!(
        names(&friends_of(&app, &alice).await["friends"]),
        ["bob", "carol"]
    );
    // Declining and removing.
    let dave = app.register("dave").await;
    app.post("/v1/friends/requests", &dave, json!({"username": "bob"}))
        .await;
    let declined = app
        .request(
            "POST",
            "/v1/friends/requests/dave/decline",
            Some(&bob),
            None,
            &[],
        )
        .await;
    assert_eq!(declined.status, 204);
    assert_eq!(friends_of(&app, &dave).await["outgoing"], json!([]));
    let removed = app
        .request("DELETE", "/v1/friends/carol", Some(&alice), None, &[])
        .await;
    assert_eq!(removed.status, 204);
    assert_eq!(
        names(&friends_of(&app, &carol).await["friends"]),
        Vec::<String>::new()
    );
    let gone = app
        .request("DELETE", "/v1/friends/carol", Some(&alice), None, &[])
        .await;
    assert_eq!((gone.status.as_u16(), gone.code()), (404, "not_found"));
    let me_myself = app
        .post("/v1/friends/requests", &alice, json!({"username": "alice"}))
        .await;
    // Issue #46: a well-formed name, refused for whose it is.
    assert_eq!(
        (me_myself.status.as_u16(), me_myself.code()),
        (422, "validation_failed")
    );
    let nobody = app
        .post(
            "/v1/friends/requests",
            &alice,
            json!({"username": "nobody"}),
        )
        .await;
    assert_eq!(nobody.status, 404);
    app.stop().await;
}

#[actix_web::test]
async fn a_block_holds_on_every_path_until_it_is_lifted() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    app.post("/v1/friends/requests", &alice, json!({"username": "bob"}))
        .await;
    app.request(
        "POST",
        "/v1/friends/requests/alice/accept",
        Some(&bob),
        None,
        &[],
    )
    .await;
    // Bob opens a table with an open seat before he blocks Alice.
    let open = app
        .post(
            "/v1/matches",
            &bob,
            json!({"game": "checkers", "open_seats": 1}),
        )
        .await
        .body;
    let code = open["invite"]["code"].as_str().unwrap().to_owned();
    let blocked = app
        .post("/v1/blocks", &bob, json!({"username": "alice"}))
        .await;
    assert_eq!(blocked.status, 201, "{}", blocked.body);
    assert_eq!(
        friends_of(&app, &bob).await["friends"],
        json!([]),
        "the block ends the friendship"
    );
    assert_eq!(
        names(&json!(app
            .get("/v1/blocks", &bob)
            .await
            .body
            .as_array()
            .unwrap()
            .iter()
            .map(|p| json!({"user": p}))
            .collect::<Vec<_>>())),
        ["alice"]
    );
    let refused = |reply: crate::support::Reply, what: &str| {
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (403, "blocked"),
            "{what}: {}",
            reply.body
        );
    };
    // Either way round.
    refused(
        app.post("/v1/friends/requests", &alice, json!({"username": "bob"}))
            .await,
        "alice asks",
    );
    refused(
        app.post("/v1/friends/requests", &bob, json!({"username": "alice"}))
            .await,
        "bob asks",
    );
    refused(
        app.post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await,
        "alice names bob",
    );
    refused(
        app.post(
            "/v1/matches",
            &bob,
            json!({"game": "janggi", "opponents": ["alice"]}),
        )
        .await,
        "bob names alice",
    );
    refused(
        app.request(
            "POST",
            &format!("/v1/invites/{code}/accept"),
            Some(&alice),
            None,
            &[],
        )
        .await,
        "alice takes bob's open seat",
    );
    assert_eq!(
        app.get("/v1/matches", &alice).await.body["items"],
        json!([]),
        "nothing was created for alice"
    );
    // Lifted: all paths open again.
    assert_eq!(
        app.request("DELETE", "/v1/blocks/alice", Some(&bob), None, &[])
            .await
            .status,
        204
    );
    assert_eq!(
        app.request("DELETE", "/v1/blocks/alice", Some(&bob), None, &[])
            .await
            .status,
        404
    );
    let seat = app
        .request(
            "POST",
            &format!("/v1/invites/{code}/accept"),
            Some(&alice),
            None,
            &[],
        )
        .await;
    assert_eq!(seat.status, 200, "{}", seat.body);
    assert_eq!(
        app.post("/v1/friends/requests", &alice, json!({"username": "bob"}))
            .await
            .status,
        201
    );
    app.stop().await;
}

#[actix_web::test]
async fn friend_requests_are_rate_limited_per_sender() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let mut last = None;
    for n in 0..=friends_limit() {
        let guest = app.guest(&format!("Pal {n}")).await;
        let name = app.get("/v1/me", &guest).await.body["username"]
            .as_str()
            .unwrap()
            .to_owned();
        last = Some(
            app.post("/v1/friends/requests", &alice, json!({"username": name}))
                .await,
        );
        if n < friends_limit() {
            assert_eq!(last.as_ref().unwrap().status, 201, "request {n}");
        }
    }
    let last = last.unwrap();
    assert_eq!((last.status.as_u16(), last.code()), (429, "rate_limited"));
    app.stop().await;
}

fn friends_limit() -> usize {
    posthorn::limits::Limit::FriendRequest.allowed() as usize
}
