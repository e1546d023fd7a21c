//! Challenges (issue #20): a named opponent is challenged, not seated, and
//! no match starts — its deadlines running against anyone — before every
//! challenged player accepts. A decline, the creator's withdrawal or a
//! week's silence cancels it for everyone.

use crate::support::TestApp;
use chrono::Duration;
use serde_json::{json, Value};

async fn challenged(app: &TestApp, from: &str, body: Value) -> Value {
    let reply = app.challenge("/v1/matches", from, body).await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.body
}

fn path(m: &Value) -> String {
    format!("/v1/matches/{}", m["id"].as_str().unwrap())
}

#[actix_web::test]
async fn a_named_opponent_is_never_in_a_match_they_did_not_accept() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let m = challenged(
        &app,
        &alice,
        json!({"game": "checkers", "opponents": ["bob"], "rated": true}),
    )
    .await;
    assert_eq!(m["status"], "waiting");
    assert_eq!(m["to_act"], json!([]), "no deadline runs");
    assert_eq!(m["challenges"][0]["user"]["username"], "bob");
    let bob_seat = m["challenges"][0]["seat"].as_u64().unwrap() as usize;
    assert!(
        m["seats"][bob_seat]["user"].is_null(),
        "bob holds no seat yet"
    );
    // Bob sees the challenge, in his list too, but cannot play it.
    let seen = app.get(&path(&m), &bob).await;
    assert_eq!(seen.status, 200);
    assert_eq!(seen.body["my_seats"], json!([]));
    let listed = app.get("/v1/matches?status=waiting", &bob).await.body;
    assert_eq!(listed["items"][0]["id"], m["id"]);
    let early = app
        .act(&bob, m["id"].as_str().unwrap(), json!({"type": "resign"}))
        .await;
    assert_eq!(early.status, 409, "{}", early.body);
    let early = app
        .act(&alice, m["id"].as_str().unwrap(), json!({"type": "resign"}))
        .await;
    assert_eq!(early.status, 409, "alice cannot start it alone");
    // A stranger neither sees nor answers it.
    let carol = app.register("carol").await;
    assert_eq!(app.get(&path(&m), &carol).await.status, 404);
    let stranger = app
        .request(
            "POST",
            &format!("{}/accept", path(&m)),
            Some(&carol),
            None,
            &[],
        )
        .await;
    assert_eq!(stranger.status, 404);
    // Bob accepts: the match starts, rated, with both seated.
    let accepted = app
        .request(
            "POST",
            &format!("{}/accept", path(&m)),
            Some(&bob),
            None,
            &[],
        )
        .await;
    assert_eq!(accepted.status, 200, "{}", accepted.body);
    assert_eq!(accepted.body["status"], "active");
    assert_eq!(accepted.body["rated"], true);
    assert_eq!(accepted.body["my_seats"], json!([bob_seat]));
    assert!(accepted.body.get("challenges").is_none());
    assert_eq!(
        accepted.body["to_act"].as_array().unwrap().len(),
        1,
        "the clock runs now"
    );
    let again = app
        .request(
            "POST",
            &format!("{}/accept", path(&m)),
            Some(&bob),
            None,
            &[],
        )
        .await;
    // Answered once: Bob now sits in the match, so there is no challenge
    // to him left (409, the match exists; issue #46).
    assert_eq!(again.status, 409, "answered once");
    app.stop().await;
}

#[actix_web::test]
async fn a_decline_cancels_the_match_for_everyone() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    app.register("carol").await;
    let m = challenged(
        &app,
        &alice,
        json!({"game": "flipchess", "opponents": ["bob"]}),
    )
    .await;
    let declined = app
        .request(
            "POST",
            &format!("{}/decline", path(&m)),
            Some(&bob),
            None,
            &[],
        )
        .await;
    assert_eq!(declined.status, 200, "{}", declined.body);
    assert_eq!(declined.body["status"], "cancelled");
    let mine = app.get(&path(&m), &alice).await.body;
    assert_eq!(mine["status"], "cancelled");
    let events = app.get(&format!("{}/events", path(&m)), &alice).await.body;
    let last = events["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["type"].as_str(), last["reason"].as_str()),
        (Some("cancelled"), Some("declined"))
    );
    // Nothing more happens in it; Alice is free to challenge someone else.
    let late = app
        .act(&alice, m["id"].as_str().unwrap(), json!({"type": "resign"}))
        .await;
    assert_eq!(late.status, 409);
    assert_eq!(
        app.get(&path(&m), &bob).await.status,
        404,
        "bob is out of it"
    );
    let next = challenged(
        &app,
        &alice,
        json!({"game": "flipchess", "opponents": ["carol"]}),
    )
    .await;
    assert_eq!(next["status"], "waiting");
    let cancelled = app.get("/v1/matches?status=cancelled", &alice).await.body;
    assert_eq!(cancelled["items"].as_array().unwrap().len(), 1);
    app.stop().await;
}

#[actix_web::test]
async fn an_unanswered_challenge_expires_after_a_week() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    app.register("bob").await;
    let m = challenged(
        &app,
        &alice,
        json!({"game": "janggi", "opponents": ["bob"]}),
    )
    .await;
    // Access tokens last minutes: sign in again after each wait.
    let signed_in = || async {
        let body = json!({"login": "alice", "password": "a long password"});
        let session = app
            .request("POST", "/v1/sessions", None, Some(body), &[])
            .await;
        session.body["access_token"].as_str().unwrap().to_owned()
    };
    app.clock.advance(Duration::days(6));
    app.blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep())
        .await
        .unwrap();
    let alice = signed_in().await;
    assert_eq!(app.get(&path(&m), &alice).await.body["status"], "waiting");
    app.clock.advance(Duration::days(1));
    app.blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep())
        .await
        .unwrap();
    let alice = signed_in().await;
    let after = app.get(&path(&m), &alice).await.body;
    assert_eq!(after["status"], "cancelled");
    let events = app.get(&format!("{}/events", path(&m)), &alice).await.body;
    assert_eq!(
        events["events"].as_array().unwrap().last().unwrap()["reason"],
        "expired"
    );
    app.stop().await;
}

#[actix_web::test]
async fn the_creator_may_withdraw_a_match_that_has_not_started() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let m = challenged(
        &app,
        &alice,
        json!({"game": "checkers", "opponents": ["bob"]}),
    )
    .await;
    let by_bob = app
        .request(
            "POST",
            &format!("{}/cancel", path(&m)),
            Some(&bob),
            None,
            &[],
        )
        .await;
    assert_eq!(by_bob.status, 403, "only the creator: {}", by_bob.body);
    let withdrawn = app
        .request(
            "POST",
            &format!("{}/cancel", path(&m)),
            Some(&alice),
            None,
            &[],
        )
        .await;
    assert_eq!(withdrawn.body["status"], "cancelled");
    let late = app
        .request(
            "POST",
            &format!("{}/accept", path(&m)),
            Some(&bob),
            None,
            &[],
        )
        .await;
    assert_eq!(late.status, 404, "nothing left to accept");
    // A started match cannot be withdrawn.
    let started = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await
        .body;
    assert_eq!(started["status"], "active");
    let refused = app
        .request(
            "POST",
            &format!("{}/cancel", path(&started)),
            Some(&alice),
            None,
            &[],
        )
        .await;
    assert_eq!(refused.status, 409);
    app.stop().await;
}

/// Issue #20: my matches filtered by game and opponent, and the counts an
/// app shows on its badge (awaiting me, challenges, friend requests).
#[actix_web::test]
async fn my_matches_filter_by_game_and_opponent_and_the_summary_counts_what_awaits_me() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    app.register("carol").await;
    let with_bob = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "janggi", "opponents": ["bob"]}),
        )
        .await
        .body;
    app.post(
        "/v1/matches",
        &alice,
        json!({"game": "checkers", "opponents": ["carol"]}),
    )
    .await;
    challenged(&app, &bob, json!({"game": "banqi", "opponents": ["alice"]})).await;
    app.post("/v1/friends/requests", &bob, json!({"username": "alice"}))
        .await;
    let ids = |page: &Value| -> Vec<String> {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["game"].as_str().unwrap().to_owned())
            .collect()
    };
    let janggi = app.get("/v1/matches?game=janggi", &alice).await.body;
    assert_eq!(ids(&janggi), ["janggi"]);
    assert_eq!(janggi["items"][0]["id"], with_bob["id"]);
    let mut against_bob = ids(&app.get("/v1/matches?opponent=bob", &alice).await.body);
    against_bob.sort();
    assert_eq!(
        against_bob,
        ["banqi", "janggi"],
        "the challenge from bob too"
    );
    assert_eq!(
        ids(&app
            .get("/v1/matches?opponent=carol&game=janggi", &alice)
            .await
            .body),
        Vec::<String>::new()
    );
    let bad = app.get("/v1/matches?game=go", &alice).await;
    assert_eq!(bad.status, 400);
    assert_eq!(
        app.get("/v1/matches?opponent=nobody", &alice).await.status,
        404
    );
    // Alice's badge: her turns among the two started matches, bob's
    // challenge, bob's friend request.
    let summary = app.get("/v1/me/summary", &alice).await.body;
    let mut turns = 0;
    for page in app.get("/v1/matches?status=active", &alice).await.body["items"]
        .as_array()
        .unwrap()
    {
        if page["to_act"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| page["my_seats"].as_array().unwrap().contains(&d["seat"]))
        {
            turns += 1;
        }
    }
    assert_eq!(
        summary,
        json!({"awaiting_me": turns, "challenges": 1, "friend_requests": 1,
            "awaiting_me_people": turns, "tournament_invitations": 0, "badge": turns + 2, "unread_messages": 0})
    );
    app.stop().await;
}

/// Issue #49 item 7: the badge counts what people wait for (a move in a
/// match with people, a challenge, a friend request, a tournament
/// invitation), never a match against the computer, however long it
/// waits on me.
#[actix_web::test]
async fn the_badge_counts_what_people_wait_for_not_the_computer() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    app.register("carol").await;
    // Seat 0 plays Black, who moves first (§C1): it is alice's turn.
    let computer = json!({"game": "checkers", "computers": [{"level": "easy"}], "side": 0});
    let made = app.post("/v1/matches", &alice, computer).await;
    assert_eq!(made.status, 201, "{}", made.body);
    let badge = |s: &Value| {
        (
            s["awaiting_me"].clone(),
            s["awaiting_me_people"].clone(),
            s["badge"].clone(),
        )
    };
    let summary = app.get("/v1/me/summary", &alice).await.body;
    assert_eq!(badge(&summary), (json!(1), json!(0), json!(0)), "{summary}");
    let cup = json!({"name": "Bob's cup", "format": "round_robin", "game": "checkers",
        "players": ["alice", "carol"], "turn_hours": 48});
    let created = app.post("/v1/tournaments", &bob, cup).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let summary = app.get("/v1/me/summary", &alice).await.body;
    assert_eq!(summary["tournament_invitations"], 1);
    assert_eq!(summary["badge"], 1, "{summary}");
    let id = created.body["id"].as_str().unwrap();
    let declined = app
        .post(&format!("/v1/tournaments/{id}/decline"), &alice, json!({}))
        .await;
    assert_eq!(declined.status, 200, "{}", declined.body);
    let summary = app.get("/v1/me/summary", &alice).await.body;
    assert_eq!(
        (
            summary["tournament_invitations"].clone(),
            summary["badge"].clone()
        ),
        (json!(0), json!(0))
    );
    app.stop().await;
}

/// The subjects of the mail sent to `name`.
fn subjects_to(smtp: &crate::smtp::SmtpServer, name: &str) -> Vec<String> {
    smtp.messages()
        .iter()
        .filter(|m| m.contains(&format!("To: {name}@")) || m.contains(&format!("<{name}@")))
        .filter_map(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("Subject: ").map(str::to_owned))
        })
        .collect()
}

#[actix_web::test]
async fn a_cancellation_reaches_the_others_by_smtp_but_not_whoever_cancelled() {
    let smtp = crate::smtp::SmtpServer::start(0);
    let app = TestApp::start_with(posthorn::config::Config {
        smtp_url: Some(smtp.url()),
        ..Default::default()
    })
    .await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let m = challenged(
        &app,
        &alice,
        json!({"game": "checkers", "opponents": ["bob"]}),
    )
    .await;
    let declined = app
        .challenge(&format!("{}/decline", path(&m)), &bob, json!({}))
        .await;
    assert_eq!(declined.status, 200, "{}", declined.body);
    app.blocking(|s| posthorn::jobs::delivery::deliver_due(&s.courier()))
        .await
        .unwrap();
    assert!(
        subjects_to(&smtp, "alice").contains(&"Your Checkers match was cancelled".to_owned()),
        "{:?}",
        subjects_to(&smtp, "alice")
    );
    assert!(
        !subjects_to(&smtp, "bob")
            .iter()
            .any(|s| s.contains("cancelled")),
        "Bob declined: he is not told"
    );
    app.stop().await;
}

#[actix_web::test]
async fn a_friend_who_allows_it_is_seated_at_once_and_others_still_challenge() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let settings = app.get("/v1/me/challenge-settings", &bob).await.body;
    assert_eq!(
        settings,
        json!({"auto_accept_friends": false}),
        "off by default"
    );
    let on = app
        .request(
            "PUT",
            "/v1/me/challenge-settings",
            Some(&bob),
            Some(json!({"auto_accept_friends": true})),
            &[],
        )
        .await;
    assert_eq!(on.status, 200, "{}", on.body);
    // Not friends yet: a challenge like any other.
    let before = challenged(
        &app,
        &alice,
        json!({"game": "checkers", "opponents": ["bob"]}),
    )
    .await;
    assert_eq!(before["status"], "waiting");
    app.post("/v1/friends/requests", &alice, json!({"username": "bob"}))
        .await;
    let accepted = app
        .challenge("/v1/friends/requests/alice/accept", &bob, json!({}))
        .await;
    assert_eq!(accepted.status, 204, "{}", accepted.body);
    let m = challenged(
        &app,
        &alice,
        json!({"game": "checkers", "opponents": ["bob"]}),
    )
    .await;
    assert_eq!(
        m["status"], "active",
        "a friend's challenge starts at once: {m}"
    );
    assert_eq!(m["challenges"], Value::Null);
    // Carol is no friend of Bob's.
    let other = challenged(
        &app,
        &carol,
        json!({"game": "checkers", "opponents": ["bob"]}),
    )
    .await;
    assert_eq!(other["status"], "waiting");
    app.stop().await;
}
