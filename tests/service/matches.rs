//! Matches over HTTP (docs/api.md §Matches, issue #3 points 5–6).

use crate::support::{a_move, TestApp};
use chrono::Duration;
use diesel::RunQueryDsl;
use posthorn_rules::SplitMix64;
use serde_json::{json, Value};

fn match_path(m: &Value) -> String {
    format!("/v1/matches/{}", m["id"].as_str().unwrap())
}

async fn event_count(app: &TestApp) -> i64 {
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    app.blocking(|s| {
        diesel::sql_query("SELECT count(*) AS n FROM match_events")
            .get_result::<Count>(&mut s.pool.get().unwrap())
            .unwrap()
            .n
    })
    .await
}

async fn new_checkers(app: &TestApp, creator: &str, opponent: &str, options: Value) -> Value {
    let reply = app
        .post(
            "/v1/matches",
            creator,
            json!({"game": "checkers", "opponents": [opponent], "options": options}),
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    reply.body
}

/// Random legal moves until the match ends (within 1,000): its view.
async fn play_out(app: &TestApp, players: &[&str; 2], m: &Value, seed: u64) -> Value {
    let id = m["id"].as_str().unwrap();
    let end = (app.play_moves(players, id, &mut SplitMix64::new(seed), 1000, a_move)).await;
    assert_eq!(
        end["status"], "finished",
        "the match ends within 1000 moves"
    );
    end
}

#[actix_web::test]
async fn a_checkers_match_played_to_its_end_between_two_registered_users() {
    let app = TestApp::start().await;
    let (alice, bob) = (app.register("alice").await, app.register("bob").await);
    let m = new_checkers(&app, &alice, "bob", json!({})).await;
    assert_eq!(m["status"], "active");
    assert_eq!(m["variant"], "american");
    assert_eq!(m["to_act"][0]["kind"], "turn");
    assert_eq!(m["view"]["side_to_move"], "black");
    let end = play_out(&app, &[&alice, &bob], &m, 7).await;
    let result = &end["result"];
    assert!(
        ["win", "draw"].contains(&result["outcome"].as_str().unwrap()),
        "{result}"
    );
    assert!(end["to_act"].as_array().unwrap().is_empty());

    // The feed holds every event, in order, each with its server time.
    let feed = app
        .get(&format!("{}/events", match_path(&m)), &bob)
        .await
        .body;
    let events = feed["events"].as_array().unwrap();
    assert_eq!(events.len() as i64, feed["seq"].as_i64().unwrap());
    // Bob took his seat, then the opening was dealt (issue #30).
    assert_eq!(events[0]["type"], "player_joined");
    assert_eq!(events[1]["type"], "started");
    assert_eq!(events.last().unwrap()["type"], "finished");
    assert!(events.iter().all(|e| e["at"].is_string()));
    let after = app
        .get(&format!("{}/events?after=3", match_path(&m)), &bob)
        .await
        .body;
    assert_eq!(after["events"][0]["seq"], 4);

    // A finished match takes no more actions.
    let late = app
        .act(&alice, m["id"].as_str().unwrap(), json!({"type": "resign"}))
        .await;
    assert_eq!((late.status.as_u16(), late.code()), (409, "match_finished"));
    app.stop().await;
}

#[actix_web::test]
async fn a_user_and_a_guest_who_joined_by_invitation_play_to_the_end() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let created = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "open_seats": 1}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(created.body["status"], "waiting");
    let code = created.body["invite"]["code"].as_str().unwrap().to_owned();
    assert!(created.body["invite"]["url"]
        .as_str()
        .unwrap()
        .ends_with(&code));

    let guest = app.guest("Min-jun").await;
    let joined = app
        .post(&format!("/v1/invites/{code}/accept"), &guest, json!(null))
        .await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    assert_eq!(joined.body["status"], "active");
    assert_eq!(joined.body["my_seats"].as_array().unwrap().len(), 1);

    // Usable once.
    let late = app.guest("Late").await;
    let again = app
        .post(&format!("/v1/invites/{code}/accept"), &late, json!(null))
        .await;
    assert_eq!(
        (again.status.as_u16(), again.code()),
        (410, "invite_expired")
    );

    let end = play_out(&app, &[&alice, &guest], &created.body, 11).await;
    assert!(end["result"]["reason"].is_string());
    app.stop().await;
}

#[actix_web::test]
async fn an_invitation_expires_after_24_hours() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let created = app
        .post("/v1/matches", &alice, json!({"game": "checkers"}))
        .await
        .body;
    let code = created["invite"]["code"].as_str().unwrap();
    let own = app
        .post(&format!("/v1/invites/{code}/accept"), &alice, json!(null))
        .await;
    assert_eq!((own.status.as_u16(), own.code()), (409, "conflict"));
    app.clock.advance(Duration::hours(24));
    let guest = app.guest("Slow").await;
    let reply = app
        .post(&format!("/v1/invites/{code}/accept"), &guest, json!(null))
        .await;
    assert_eq!(
        (reply.status.as_u16(), reply.code()),
        (410, "invite_expired")
    );
    let unknown = app
        .post("/v1/invites/NOSUCHCODE/accept", &guest, json!(null))
        .await;
    assert_eq!(unknown.status, 404);
    app.stop().await;
}

/// Who is on move, as (their token, the other's token).
async fn mover<'a>(app: &TestApp, m: &Value, a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    let view = app.get(&match_path(m), a).await.body;
    let seat = &view["to_act"][0]["seat"];
    if view["my_seats"].as_array().unwrap().contains(seat) {
        (a, b)
    } else {
        (b, a)
    }
}

#[actix_web::test]
async fn eight_simultaneous_posts_with_one_seq_one_wins_the_rest_get_409() {
    let app = TestApp::start().await;
    let (alice, bob) = (app.register("alice").await, app.register("bob").await);
    let m = new_checkers(&app, &alice, "bob", json!({})).await;
    let (on_move, _) = mover(&app, &m, &alice, &bob).await;
    let before = event_count(&app).await;
    let path = format!("{}/actions", match_path(&m));
    let moves = [
        "9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16", "9-13",
    ];
    let posts = moves.iter().map(|mv| {
        app.post(
            &path,
            on_move,
            json!({"seq": m["seq"], "action": {"type": "move", "move": mv}}),
        )
    });
    let replies = futures_util::future::join_all(posts).await;
    let ok = replies.iter().filter(|r| r.status == 200).count();
    let stale = replies
        .iter()
        .filter(|r| r.status == 409 && r.code() == "stale_seq")
        .count();
    assert_eq!(
        (ok, stale),
        (1, 7),
        "{:?}",
        replies.iter().map(|r| &r.body).collect::<Vec<_>>()
    );
    assert_eq!(
        event_count(&app).await,
        before + 1,
        "exactly one move appended"
    );
    let stale_reply = replies.iter().find(|r| r.status == 409).unwrap();
    assert_eq!(stale_reply.body["seq"], m["seq"].as_i64().unwrap() + 1);
    app.stop().await;
}

#[actix_web::test]
async fn an_idempotent_retry_returns_the_first_answer_and_appends_nothing() {
    let app = TestApp::start().await;
    let (alice, bob) = (app.register("alice").await, app.register("bob").await);
    let m = new_checkers(&app, &alice, "bob", json!({})).await;
    let (on_move, _) = mover(&app, &m, &alice, &bob).await;
    let body = json!({"seq": m["seq"], "action": {"type": "move", "move": "11-15"}});
    let path = format!("{}/actions", match_path(&m));
    let key = [("Idempotency-Key", "move-1")];
    let first = app
        .request("POST", &path, Some(on_move), Some(body.clone()), &key)
        .await;
    assert_eq!(first.status, 200, "{}", first.body);
    let count = event_count(&app).await;
    let retry = app
        .request("POST", &path, Some(on_move), Some(body), &key)
        .await;
    assert_eq!(retry.status, 200, "{}", retry.body);
    assert_eq!(retry.body, first.body);
    assert_eq!(event_count(&app).await, count);
    app.stop().await;
}

/// Alice and Bob's new checkers match, and the tokens of (who is on move,
/// who waits): the table the refusal tests knock on.
async fn refusal_table(app: &TestApp) -> (Value, String, String) {
    let (alice, bob) = (app.register("alice").await, app.register("bob").await);
    let m = new_checkers(app, &alice, "bob", json!({})).await;
    let (on_move, waiting) = mover(app, &m, &alice, &bob).await;
    let (on_move, waiting) = (on_move.to_owned(), waiting.to_owned());
    (m, on_move, waiting)
}

/// Issue #33: a refusal speaks the player's language. Korean by
/// `Accept-Language`, or by the account's locale when the request names
/// none; the `code` and the extension members stay, the English `detail`
/// moves to `detail_en`; nothing is written either way.
#[actix_web::test]
async fn problems_are_told_in_korean_when_asked_or_set() {
    let app = TestApp::start().await;
    let (m, on_move, waiting) = refusal_table(&app).await;
    let (on_move, waiting) = (on_move.as_str(), waiting.as_str());
    let path = format!("{}/actions", match_path(&m));
    let before = event_count(&app).await;
    let illegal = json!({"seq": m["seq"], "action": {"type": "move", "move": "11-14"}});
    let send = |token: &str, body: Value, language: Option<&'static str>| {
        let headers: Vec<(&str, &str)> = language
            .map(|l| ("Accept-Language", l))
            .into_iter()
            .collect();
        let (token, path) = (token.to_owned(), path.clone());
        let app = &app;
        async move {
            app.request("POST", &path, Some(&token), Some(body), &headers)
                .await
        }
    };
    let korean = send(on_move, illegal.clone(), Some("ko-KR,ko;q=0.9,en;q=0.8")).await;
    assert_eq!(
        (korean.status.as_u16(), korean.code()),
        (422, "illegal_action")
    );
    assert_eq!(korean.body["detail"], "규칙상 지금 둘 수 없는 수예요.");
    assert!(
        korean.body["detail_en"]
            .as_str()
            .is_some_and(|d| !d.is_empty()),
        "{}",
        korean.body
    );
    assert_eq!(korean.headers.get("content-language").unwrap(), "ko");
    assert_eq!(korean.headers.get("vary").unwrap(), "accept-language");
    let english = send(on_move, illegal, Some("en-US,en;q=0.9,ko;q=0.5")).await;
    assert_eq!(english.code(), "illegal_action");
    assert_eq!(english.body["detail"], korean.body["detail_en"]);
    assert!(english.body.get("detail_en").is_none());
    // The account's locale when the request names no language.
    let saved = app
        .request(
            "PATCH",
            "/v1/me",
            Some(waiting),
            Some(json!({"locale": "ko-KR"})),
            &[],
        )
        .await;
    assert_eq!(saved.status, 200, "{}", saved.body);
    let out_of_turn = json!({"seq": m["seq"], "action": {"type": "move", "move": "22-18"}});
    let by_account = send(waiting, out_of_turn.clone(), None).await;
    assert_eq!(
        (by_account.status.as_u16(), by_account.code()),
        (409, "not_your_turn")
    );
    assert_eq!(by_account.body["detail"], "지금은 내 차례가 아니에요.");
    // The header still wins over the account.
    let asked_english = send(waiting, out_of_turn, Some("en")).await;
    assert!(
        asked_english.body["detail"].as_str().unwrap().is_ascii(),
        "{}",
        asked_english.body
    );
    // A stale seq keeps its `seq` member; a malformed body is told too.
    let stale = send(
        on_move,
        json!({"seq": 0, "action": {"type": "move", "move": "11-15"}}),
        Some("ko"),
    )
    .await;
    assert_eq!((stale.code(), &stale.body["seq"]), ("stale_seq", &m["seq"]));
    assert_eq!(
        stale.body["detail"],
        "그사이 대국이 진행됐어요. 새로 고친 뒤 다시 두세요."
    );
    let malformed = send(
        on_move,
        json!({"seq": m["seq"], "action": {"type": "castle"}}),
        Some("ko"),
    )
    .await;
    assert_eq!(malformed.code(), "validation_failed");
    assert!(malformed.body["detail"]
        .as_str()
        .unwrap()
        .contains("입력을 고쳐서"));
    // Signed out, no language: English.
    let anonymous = app.request("GET", "/v1/me", None, None, &[]).await;
    assert_eq!(anonymous.code(), "unauthorized");
    assert!(anonymous.body["detail"].as_str().unwrap().is_ascii());
    assert_eq!(event_count(&app).await, before);
    app.stop().await;
}

#[actix_web::test]
async fn refused_actions_change_nothing() {
    let app = TestApp::start().await;
    let (m, on_move, waiting) = refusal_table(&app).await;
    let (on_move, waiting) = (on_move.as_str(), waiting.as_str());
    let path = format!("{}/actions", match_path(&m));
    let before = event_count(&app).await;
    let cases = [
        (
            waiting,
            json!({"seq": m["seq"], "action": {"type": "move", "move": "22-18"}}),
            409,
            "not_your_turn",
        ),
        (
            on_move,
            json!({"seq": m["seq"], "action": {"type": "move", "move": "11-14"}}),
            422,
            "illegal_action",
        ),
        (
            on_move,
            json!({"seq": m["seq"], "action": {"type": "move", "move": "banana"}}),
            400,
            "validation_failed",
        ),
        (
            on_move,
            json!({"seq": m["seq"], "action": {"type": "castle"}}),
            400,
            "validation_failed",
        ),
        (
            on_move,
            json!({"seq": 0, "action": {"type": "move", "move": "11-15"}}),
            409,
            "stale_seq",
        ),
        (
            on_move,
            json!({"seq": m["seq"], "action": {"type": "accept_draw"}}),
            422,
            "illegal_action",
        ),
    ];
    for (token, body, status, code) in cases {
        let reply = app.post(&path, token, body.clone()).await;
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (status, code),
            "{body}: {}",
            reply.body
        );
    }
    assert_eq!(event_count(&app).await, before);
    app.stop().await;
}

#[actix_web::test]
async fn someone_elses_match_is_not_found_and_leaks_nothing() {
    let app = TestApp::start().await;
    let (alice, bob, mallory) = (
        app.register("alice").await,
        app.register("bob").await,
        app.register("mallory").await,
    );
    let m = new_checkers(&app, &alice, "bob", json!({})).await;
    let _ = bob;
    let path = match_path(&m);
    let missing = format!("/v1/matches/{}", uuid::Uuid::new_v4());
    for suffix in ["", "/legal-actions", "/events"] {
        let theirs = app.get(&format!("{path}{suffix}"), &mallory).await;
        let nothing = app.get(&format!("{missing}{suffix}"), &mallory).await;
        assert_eq!(theirs.status, 404);
        assert_eq!(
            theirs.body, nothing.body,
            "the same answer as for no match at all"
        );
    }
    let post = app
        .post(
            &format!("{path}/actions"),
            &mallory,
            json!({"seq": m["seq"], "action": {"type": "resign"}}),
        )
        .await;
    assert_eq!(post.status, 404);
    app.stop().await;
}

#[actix_web::test]
async fn a_match_view_carries_its_seq_as_etag_and_answers_304_when_unchanged() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let m = new_checkers(&app, &alice, "bob", json!({})).await;
    let first = app.get(&match_path(&m), &alice).await;
    let etag = first.header("etag");
    assert!(etag.starts_with(&format!("\"{}-", m["seq"])), "{etag}");
    let again = app
        .request(
            "GET",
            &match_path(&m),
            Some(&alice),
            None,
            &[("If-None-Match", &etag)],
        )
        .await;
    assert_eq!(again.status, 304);
    // What changes with no event changes the ETag too (issue #33): a
    // rematch asked for is seen by a client that revalidates.
    let resigned = app
        .act(&alice, m["id"].as_str().unwrap(), json!({"type": "resign"}))
        .await;
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    let finished = app.get(&match_path(&m), &alice).await;
    let tag = finished.header("etag");
    let rematch = format!("{}/rematch", match_path(&m));
    let asked = app.request("POST", &rematch, Some(&bob), None, &[]).await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    let seen = app
        .request(
            "GET",
            &match_path(&m),
            Some(&alice),
            None,
            &[("If-None-Match", &tag)],
        )
        .await;
    assert_eq!(seen.status, 200, "a new ETag for the same seq");
    assert_eq!(seen.body["seq"], finished.body["seq"]);
    let bob_seat = 1 - seen.body["my_seats"][0].as_u64().unwrap();
    assert_eq!(seen.body["rematch_asked_by"], json!([bob_seat]));
    app.stop().await;
}

#[actix_web::test]
async fn my_matches_list_those_awaiting_me_first_then_the_nearest_deadline() {
    let app = TestApp::start().await;
    let (alice, bob) = (app.register("alice").await, app.register("bob").await);
    let mut ids = Vec::new();
    for hours in [72.0, 24.0, 48.0] {
        let m = app
            .post(
                "/v1/matches",
                &alice,
                json!({"game": "checkers", "opponents": ["bob"], "turn_hours": hours}),
            )
            .await
            .body;
        ids.push((
            m["id"].as_str().unwrap().to_owned(),
            m["my_seats"][0] == m["to_act"][0]["seat"],
        ));
    }
    app.post(
        "/v1/matches",
        &alice,
        json!({"game": "checkers", "open_seats": 1}),
    )
    .await;
    let page = app.get("/v1/matches?status=active", &alice).await.body;
    let items = page["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    let awaiting: Vec<bool> = items
        .iter()
        .map(|i| i["my_seats"][0] == i["to_act"][0]["seat"])
        .collect();
    let first_waiting = awaiting.iter().position(|a| !a).unwrap_or(awaiting.len());
    assert!(
        awaiting[first_waiting..].iter().all(|a| !a),
        "awaiting me first: {awaiting:?}"
    );
    for group in [&items[..first_waiting], &items[first_waiting..]] {
        let deadlines: Vec<&str> = group
            .iter()
            .map(|i| i["to_act"][0]["deadline_at"].as_str().unwrap())
            .collect();
        assert!(
            deadlines.windows(2).all(|w| w[0] <= w[1]),
            "nearest deadline first: {deadlines:?}"
        );
    }
    let all = app.get("/v1/matches", &alice).await.body;
    assert_eq!(all["items"].as_array().unwrap().len(), 4);
    let bad = app.get("/v1/matches?cursor=!!", &alice).await;
    assert_eq!(bad.status, 400);
    let _ = bob;
    app.stop().await;
}

#[actix_web::test]
async fn the_catalogue_lists_every_game_and_each_can_be_created() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let games = app.request("GET", "/v1/games", None, None, &[]).await.body;
    for game in games.as_array().unwrap() {
        let reply = app
            .post("/v1/matches", &alice, json!({"game": game["id"]}))
            .await;
        assert_eq!(reply.status, 201, "{game}: {}", reply.body);
    }
    let unknown = app.post("/v1/matches", &alice, json!({"game": "go"})).await;
    assert_eq!(
        (unknown.status.as_u16(), unknown.code()),
        (400, "validation_failed")
    );
    let too_fast = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "turn_hours": 0.01}),
        )
        .await;
    assert_eq!(too_fast.status, 400);
    app.stop().await;
}

#[actix_web::test]
async fn my_matches_page_with_an_opaque_cursor() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    app.register("bob").await;
    let total = posthorn::matches::play::PAGE_SIZE as usize + 3;
    for _ in 0..total {
        new_checkers(&app, &alice, "bob", json!({})).await;
    }
    let first = app.get("/v1/matches", &alice).await.body;
    assert_eq!(first["items"].as_array().unwrap().len(), total - 3);
    let cursor = first["next_cursor"].as_str().unwrap();
    let second = app
        .get(&format!("/v1/matches?cursor={cursor}"), &alice)
        .await
        .body;
    assert_eq!(second["items"].as_array().unwrap().len(), 3);
    assert!(second["next_cursor"].is_null());
    let mut ids: Vec<&str> = first["items"]
        .as_array()
        .unwrap()
        .iter()
        .chain(second["items"].as_array().unwrap())
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), total, "every match once");
    app.stop().await;
}

/// Issue #12: a variant is parsed strictly, whether named in `game` or in
/// `variant`; the refusal names the valid ones and nothing is created.
#[actix_web::test]
async fn an_unknown_or_unbuilt_variant_is_refused_naming_the_valid_ones() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    app.register("bob").await;
    // Issue #46: a name no game offers breaks the document (400); one of
    // another game, or two names at once, has its form and is refused for
    // its meaning (422).
    for (body, status) in [
        (
            json!({"game": "checkers/filipino", "opponents": ["bob"]}),
            400,
        ),
        (
            json!({"game": "checkers", "variant": "nope", "opponents": ["bob"]}),
            400,
        ),
        (
            json!({"game": "checkers/american", "variant": "pool", "opponents": ["bob"]}),
            422,
        ),
        (
            json!({"game": "flipchess", "variant": "american", "opponents": ["bob"]}),
            422,
        ),
    ] {
        let reply = app.post("/v1/matches", &alice, body.clone()).await;
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (status, "validation_failed"),
            "{body}: {}",
            reply.body
        );
        let detail = reply.body["detail"].as_str().unwrap();
        if body["game"] != "flipchess" {
            assert!(detail.contains("american"), "{body}: {detail}");
        }
    }
    assert_eq!(event_count(&app).await, 0, "nothing was created");
    let mine = app.get("/v1/matches", &alice).await.body;
    assert_eq!(mine["items"], json!([]));
    // The default and the named default both make an American match.
    for game in ["checkers", "checkers/american"] {
        let reply = app
            .post(
                "/v1/matches",
                &alice,
                json!({"game": game, "opponents": ["bob"]}),
            )
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
        assert_eq!(reply.body["variant"], "american");
        assert_eq!(reply.body["game"], "checkers");
    }
    app.stop().await;
}

/// Issue #12: the acting seat is a field of the request, beside `seq`, not
/// a member of the game's action; legal actions are listed seat by seat.
#[actix_web::test]
async fn the_acting_seat_is_a_request_field_and_must_be_mine() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let m = new_checkers(&app, &alice, "bob", json!({})).await;
    let (mover, _) = mover(&app, &m, &alice, &bob).await;
    let path = match_path(&m);
    let legal = app.get(&format!("{path}/legal-actions"), mover).await.body;
    let seats = legal["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 1);
    assert_eq!(seats[0]["actions"], legal["actions"]);
    let my_seat = seats[0]["seat"].as_u64().unwrap();
    let action = legal["actions"][0].clone();
    let other = app
        .post(
            &format!("{path}/actions"),
            mover,
            json!({"seq": legal["seq"], "seat": 1 - my_seat, "action": action}),
        )
        .await;
    assert_eq!(
        (other.status.as_u16(), other.code()),
        (400, "validation_failed")
    );
    let inside = app
        .post(
            &format!("{path}/actions"),
            mover,
            json!({"seq": legal["seq"], "action": {"seat": my_seat, "type": "move", "move": action["move"]}}),
        )
        .await;
    assert_eq!(
        inside.status, 400,
        "a seat inside the action is not the game's: {}",
        inside.body
    );
    let mine = app
        .post(
            &format!("{path}/actions"),
            mover,
            json!({"seq": legal["seq"], "seat": my_seat, "action": action}),
        )
        .await;
    assert_eq!(mine.status, 200, "{}", mine.body);
    app.stop().await;
}

/// A table read inside a transaction that already wrote (here: the
/// roster moved, as a deletion moves it before resigning) is not cached:
/// after a rollback the cache holds no phantom at the unwritten key,
/// while a read outside a transaction is cached at once.
#[actix_web::test]
async fn a_table_read_in_a_rolled_back_transaction_is_not_cached() {
    use diesel::Connection;
    use posthorn::matches::{roster_changed, snapshots, Table};
    let app = TestApp::start().await;
    let (alice, _bob) = (app.register("alice").await, app.register("bob").await);
    let m = new_checkers(&app, &alice, "bob", json!({})).await;
    let id: uuid::Uuid = m["id"].as_str().unwrap().parse().unwrap();
    let me = app.get("/v1/me", &alice).await.body["id"].clone();
    let me: uuid::Uuid = me.as_str().unwrap().parse().unwrap();
    let (phantom, committed) = app
        .blocking(move |s| {
            let mut c = s.pool.get().unwrap();
            let read = Table::load(&mut c, id, false).unwrap().unwrap();
            let (seq, roster) = (read.row.seq, read.row.roster);
            let committed = snapshots::get(id, seq, roster).is_some();
            let rolled_back = c.transaction::<(), diesel::result::Error, _>(|c| {
                roster_changed(c, me).unwrap();
                let inside = Table::load(c, id, true).unwrap().unwrap();
                assert_eq!(inside.row.roster, roster + 1, "the write is seen inside");
                Err(diesel::result::Error::RollbackTransaction)
            });
            assert!(rolled_back.is_err());
            (snapshots::get(id, seq, roster + 1).is_some(), committed)
        })
        .await;
    assert!(committed, "a read outside a transaction is cached");
    assert!(
        !phantom,
        "nothing read inside the rolled-back transaction is"
    );
    app.stop().await;
}
