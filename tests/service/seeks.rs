//! A random opponent (issue #20): seeks pair into matches — same settings,
//! within each other's rating range, never oneself nor a blocked pair —
//! exactly once, even with 200 seekers against three instances.

use crate::support::TestApp;
use diesel::RunQueryDsl;
use serde_json::{json, Value};

fn checkers(turn_hours: f64) -> Value {
    json!({"game": "checkers", "turn_hours": turn_hours})
}

#[actix_web::test]
async fn two_seeks_with_the_same_settings_start_a_match_with_both_seated() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let waiting = app.challenge("/v1/seeks", &alice, checkers(48.0)).await;
    assert_eq!(waiting.status, 201, "{}", waiting.body);
    assert_eq!(
        waiting.body["match"],
        Value::Null,
        "nobody to pair with yet"
    );
    let listed = app.get("/v1/seeks?game=checkers", &carol).await.body;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["user"]["username"], "alice");
    // Other settings wait apart.
    let apart = app
        .challenge("/v1/seeks", &carol, checkers(24.0))
        .await
        .body;
    assert_eq!(apart["match"], Value::Null);
    let paired = app.challenge("/v1/seeks", &bob, checkers(48.0)).await;
    assert_eq!(paired.status, 201, "{}", paired.body);
    let m = &paired.body["match"];
    assert_eq!(m["status"], "active", "{m}");
    let mut names: Vec<&str> = m["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["user"]["username"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["alice", "bob"]);
    assert_eq!(m["turn_hours"], 48.0);
    let mine = app.get("/v1/matches?status=active", &alice).await.body;
    assert_eq!(
        mine["items"].as_array().unwrap().len(),
        1,
        "Alice is seated"
    );
    let listed = app.get("/v1/seeks", &carol).await.body;
    let left: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["user"]["username"].as_str().unwrap())
        .collect();
    assert_eq!(left, ["carol"], "a paired seek leaves the list");
    // A second seek with the same settings while one waits is refused.
    let twice = app.challenge("/v1/seeks", &carol, checkers(24.0)).await;
    assert_eq!(twice.status, 409, "{}", twice.body);
    app.stop().await;
}

#[actix_web::test]
async fn rating_ranges_are_respected_both_ways() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    // Everyone rates 1500 until ratings land (issue #19): Alice wants 1600+.
    let picky = json!({"game": "checkers", "rating_range": {"min": 1600, "max": 2000}});
    let seek = app.challenge("/v1/seeks", &alice, picky).await.body;
    let answer = app
        .challenge("/v1/seeks", &bob, json!({"game": "checkers"}))
        .await
        .body;
    assert_eq!(answer["match"], Value::Null, "Bob is outside Alice's range");
    let accept = app
        .challenge(
            &format!("/v1/seeks/{}/accept", seek["seek"]["id"].as_str().unwrap()),
            &bob,
            json!({}),
        )
        .await;
    assert_eq!(accept.status, 409, "{}", accept.body);
    // A range that holds 1500 pairs.
    let carol = app.register("carol").await;
    let fits = json!({"game": "checkers", "rating_range": {"min": 1400, "max": 1600}});
    let answer = app.challenge("/v1/seeks", &carol, fits).await.body;
    assert_eq!(answer["match"]["status"], "active", "{answer}");
    app.stop().await;
}

#[actix_web::test]
async fn blocked_players_are_never_paired_nor_shown_each_others_seeks() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let blocked = app
        .post("/v1/blocks", &alice, json!({"username": "bob"}))
        .await;
    assert_eq!(blocked.status, 201, "{}", blocked.body);
    let seek = app
        .challenge("/v1/seeks", &alice, checkers(48.0))
        .await
        .body;
    let answer = app.challenge("/v1/seeks", &bob, checkers(48.0)).await.body;
    assert_eq!(
        answer["match"],
        Value::Null,
        "never paired with a blocked player"
    );
    let listed = app.get("/v1/seeks", &bob).await.body;
    let shown: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["user"]["username"].as_str().unwrap())
        .collect();
    assert_eq!(shown, ["bob"], "Alice's seek is hidden from Bob");
    let path = format!("/v1/seeks/{}/accept", seek["seek"]["id"].as_str().unwrap());
    let accept = app.challenge(&path, &bob, json!({})).await;
    assert_eq!(
        (accept.status.as_u16(), accept.body["code"].as_str()),
        (403, Some("blocked"))
    );
    app.stop().await;
}

#[actix_web::test]
async fn a_seek_is_accepted_once_never_by_its_owner_and_may_be_withdrawn() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let seek = app
        .challenge("/v1/seeks", &alice, checkers(48.0))
        .await
        .body;
    let id = seek["seek"]["id"].as_str().unwrap().to_owned();
    let own = app
        .challenge(&format!("/v1/seeks/{id}/accept"), &alice, json!({}))
        .await;
    assert_eq!(
        (own.status.as_u16(), own.body["code"].as_str()),
        (409, Some("own_seek"))
    );
    let taken = app
        .challenge(&format!("/v1/seeks/{id}/accept"), &bob, json!({}))
        .await;
    assert_eq!(taken.status, 201, "{}", taken.body);
    assert_eq!(taken.body["status"], "active");
    let again = app
        .challenge(&format!("/v1/seeks/{id}/accept"), &carol, json!({}))
        .await;
    assert_eq!(again.status, 409, "{}", again.body);
    let unknown = app
        .challenge(
            "/v1/seeks/00000000-0000-0000-0000-000000000000/accept",
            &carol,
            json!({}),
        )
        .await;
    assert_eq!(
        (unknown.status.as_u16(), unknown.body["code"].as_str()),
        (404, Some("not_found"))
    );
    let carols = app
        .challenge("/v1/seeks", &carol, checkers(48.0))
        .await
        .body;
    let path = format!("/v1/seeks/{}", carols["seek"]["id"].as_str().unwrap());
    assert_eq!(
        app.request("DELETE", &path, Some(&bob), None, &[])
            .await
            .status,
        404,
        "not Bob's"
    );
    assert_eq!(
        app.request("DELETE", &path, Some(&carol), None, &[])
            .await
            .status,
        204
    );
    assert_eq!(app.get("/v1/seeks", &bob).await.body, json!([]));
    app.stop().await;
}

#[actix_web::test]
async fn four_player_seeks_fill_one_match_once() {
    let app = TestApp::start().await;
    let seek = json!({"game": "four_player_chess", "mode": "ffa", "players": 4});
    let mut answers = Vec::new();
    for name in ["alice", "bob", "carol", "dave", "erin"] {
        let token = app.register(name).await;
        answers.push(app.challenge("/v1/seeks", &token, seek.clone()).await.body);
    }
    for early in &answers[..3] {
        assert_eq!(early["match"], Value::Null, "{early}");
    }
    let m = &answers[3]["match"];
    assert_eq!(m["seats"].as_array().unwrap().len(), 4, "{m}");
    assert_eq!(m["status"], "active");
    assert_eq!(
        answers[4]["match"],
        Value::Null,
        "the fifth waits for others"
    );
    app.stop().await;
}

#[actix_web::test]
async fn two_hundred_seekers_against_three_instances_make_exactly_one_hundred_matches() {
    let first = TestApp::start().await;
    let others = [first.sibling().await, first.sibling().await];
    let instances = [&first, &others[0], &others[1]];
    let mut tokens = Vec::new();
    for n in 0..200 {
        tokens.push(first.guest(&format!("seeker{n}")).await);
    }
    let posts = tokens
        .iter()
        .enumerate()
        .map(|(n, token)| instances[n % 3].challenge("/v1/seeks", token, checkers(48.0)));
    let answers = futures_util::future::join_all(posts).await;
    for answer in &answers {
        assert_eq!(answer.status, 201, "{}", answer.body);
    }
    let started = answers
        .iter()
        .filter(|a| !a.body["match"].is_null())
        .count();
    assert_eq!(started, 100, "every second seek pairs one waiting");
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let count = |sql: &'static str| {
        first.blocking(move |s| {
            diesel::sql_query(sql)
                .get_result::<Count>(&mut s.pool.get().unwrap())
                .unwrap()
                .n
        })
    };
    assert_eq!(
        count("SELECT count(*) AS n FROM matches WHERE status = 'active'").await,
        100
    );
    assert_eq!(
        count("SELECT count(DISTINCT user_id) AS n FROM match_seats").await,
        200,
        "every seeker seated"
    );
    assert_eq!(
        count("SELECT count(*) AS n FROM (SELECT user_id FROM match_seats GROUP BY user_id HAVING count(*) > 1) twice").await,
        0,
        "no seeker in two matches"
    );
    assert_eq!(
        count("SELECT count(*) AS n FROM seeks WHERE paired_at IS NULL").await,
        0
    );
    let [a, b] = others;
    a.stop_instance().await;
    b.stop_instance().await;
    first.stop().await;
}

#[actix_web::test]
async fn an_unranged_window_widens_with_the_time_a_seek_has_waited() {
    let app = TestApp::start_with(posthorn::config::Config {
        access_token_seconds: 90 * 24 * 3600,
        ..Default::default()
    })
    .await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    // Bob is rated 1800 in American checkers; Alice has no rating (1500).
    app.blocking(|s| {
        diesel::sql_query(
            "INSERT INTO ratings (user_id, perf, rating, deviation, volatility) \
             SELECT id, 'checkers/american', 1800, 80, 0.06 FROM users WHERE username = 'bob'",
        )
        .execute(&mut s.pool.get().unwrap())
        .unwrap();
    })
    .await;
    app.challenge("/v1/seeks", &alice, checkers(48.0)).await;
    app.clock.advance(chrono::Duration::hours(1));
    let early = app.challenge("/v1/seeks", &bob, checkers(48.0)).await.body;
    assert_eq!(
        early["match"],
        Value::Null,
        "300 apart, the window is ±200 after an hour"
    );
    assert_eq!(early["seek"]["rating"], 1800);
    let path = format!("/v1/seeks/{}", early["seek"]["id"].as_str().unwrap());
    assert_eq!(
        app.request("DELETE", &path, Some(&bob), None, &[])
            .await
            .status,
        204
    );
    app.clock.advance(chrono::Duration::hours(3));
    let later = app.challenge("/v1/seeks", &bob, checkers(48.0)).await.body;
    assert_eq!(
        later["match"]["status"], "active",
        "±350 after four hours: {later}"
    );
    app.stop().await;
}
