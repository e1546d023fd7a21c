//! Fair play (issue #30): no opening a player may rig, nothing hidden dealt
//! while a seat is open, blocks that hold however seats are filled, and
//! names that cannot pass for someone else's.

use crate::support::TestApp;
use diesel::prelude::*;
use serde_json::{json, Value};
use uuid::Uuid;

/// The rules' facts in a match's log, read from the database.
async fn rules_events(app: &TestApp, id: Uuid) -> Vec<Value> {
    use posthorn::schema::match_events::dsl as e;
    app.blocking(move |s| {
        e::match_events
            .filter(e::match_id.eq(id).and(e::rules.eq(true)))
            .order(e::seq)
            .select(e::body)
            .load(&mut s.pool.get().unwrap())
            .unwrap()
    })
    .await
}

fn id_of(m: &Value) -> Uuid {
    m["id"].as_str().unwrap().parse().unwrap()
}

/// Issue #30, 1: a Banqi layout naming its face-down pieces is never a
/// player's choice, rated or not, challenged or invited; a custom start
/// is never rated, and the invited player sees it before accepting.
#[actix_web::test]
async fn a_rigged_layout_is_refused_and_a_custom_start_is_shown_and_never_rated() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let rigged = json!({"position": "8/8/8/R?k5p r 0"});
    for (who, rated) in [
        (json!({"opponents": ["bob"]}), true),
        (json!({"opponents": ["bob"]}), false),
        (json!({"open_seats": 1}), false),
    ] {
        let mut body = json!({"game": "banqi", "options": rigged, "rated": rated});
        body.as_object_mut()
            .unwrap()
            .extend(who.as_object().unwrap().clone());
        let reply = app.challenge("/v1/matches", &alice, body.clone()).await;
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (422, "unfair_start"),
            "{body}"
        );
        assert!(!reply.body.to_string().contains("?k"), "{}", reply.body);
    }
    // A FlipChess deal names the hands (§H1): never a match's opening.
    let dealt = json!({"deal": {"white": ["red-1"], "black": ["blue-2"], "top": "red-5"}});
    let reply = app
        .challenge(
            "/v1/matches",
            &alice,
            json!({"game": "flipchess", "options": dealt, "opponents": ["bob"], "rated": false}),
        )
        .await;
    assert_eq!(
        (reply.status.as_u16(), reply.code()),
        (422, "unfair_start"),
        "{}",
        reply.body
    );
    assert!(
        reply.body.to_string().contains("dealt hands"),
        "{}",
        reply.body
    );
    // Nothing was made: Bob has no challenge, nobody a match.
    for token in [&alice, &bob] {
        let mine = app.get("/v1/matches", token).await.body;
        assert_eq!(mine["items"], json!([]), "{mine}");
    }

    // A face-up custom start asked to be rated: refused; unrated: made.
    let janggi = json!({"position": "r3k4/9/9/9/9/4R4/9/9/9/4K4 w - - 0 1"});
    let rated = app
        .challenge(
            "/v1/matches",
            &alice,
            json!({"game": "janggi", "options": janggi, "opponents": ["bob"], "rated": true}),
        )
        .await;
    assert_eq!((rated.status.as_u16(), rated.code()), (422, "unfair_start"));
    let unrated = app
        .challenge(
            "/v1/matches",
            &alice,
            json!({"game": "janggi", "options": janggi, "opponents": ["bob"]}),
        )
        .await;
    assert_eq!(unrated.status, 201, "{}", unrated.body);
    // The challenged player reads the start before accepting.
    let seen = app
        .get(&format!("/v1/matches/{}", id_of(&unrated.body)), &bob)
        .await
        .body;
    assert_eq!(seen["options"]["position"], janggi["position"], "{seen}");
    assert_eq!(seen["rated"], false);
    // And so does whoever opens an invitation to it.
    let open = app
        .challenge(
            "/v1/matches",
            &alice,
            json!({"game": "janggi", "options": janggi, "open_seats": 1}),
        )
        .await
        .body;
    let code = open["invite"]["code"].as_str().unwrap();
    let preview = app
        .request("GET", &format!("/v1/invites/{code}"), None, None, &[])
        .await
        .body;
    assert_eq!(
        preview["options"]["position"], janggi["position"],
        "{preview}"
    );
    assert_eq!(preview["rated"], false);
    app.stop().await;
}

/// Issue #30, 2: while a seat is open nothing is dealt and no colour is
/// drawn, so a creator cannot look at a hand and withdraw; the deal comes
/// with the last seat.
#[actix_web::test]
async fn flipchess_deals_no_hand_and_draws_no_colour_until_every_seat_is_taken() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let waiting = app
        .challenge(
            "/v1/matches",
            &alice,
            json!({"game": "flipchess", "open_seats": 1, "rated": true}),
        )
        .await
        .body;
    assert_eq!(waiting["status"], "waiting");
    let id = id_of(&waiting);
    assert!(
        rules_events(&app, id).await.is_empty(),
        "nothing is dealt yet"
    );
    let feed = app
        .get(&format!("/v1/matches/{id}/events"), &alice)
        .await
        .body;
    assert!(
        feed["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["type"] != "drew" && e["type"] != "started"),
        "{feed}"
    );
    // Withdrawing leaves no dealt hand behind either.
    let withdrawn = app
        .post(&format!("/v1/matches/{id}/cancel"), &alice, json!({}))
        .await;
    assert_eq!(withdrawn.status, 200, "{}", withdrawn.body);
    assert!(rules_events(&app, id).await.is_empty());

    // A second table fills: the deal and the colours come with the seat.
    let table = app
        .challenge(
            "/v1/matches",
            &alice,
            json!({"game": "flipchess", "open_seats": 1}),
        )
        .await
        .body;
    let code = table["invite"]["code"].as_str().unwrap();
    let guest = app.guest("Pat").await;
    let joined = app
        .post(&format!("/v1/invites/{code}/accept"), &guest, json!({}))
        .await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    assert_eq!(joined.body["status"], "active");
    let log = rules_events(&app, id_of(&table)).await;
    assert_eq!(log[0]["type"], "started", "{}", log[0]);
    assert_eq!(log.iter().filter(|e| e["type"] == "drew").count(), 2);
    app.stop().await;
}

/// Issue #30, 7: a challenge sent before a block cannot be accepted after
/// it, and a blocked pair cannot meet by challenge on one side and
/// invitation on the other.
#[actix_web::test]
async fn a_block_keeps_a_pair_apart_however_their_seats_are_filled() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let carol = app.register("carol").await;
    let challenged = app
        .challenge(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await
        .body;
    let blocked = app
        .post("/v1/blocks", &alice, json!({"username": "bob"}))
        .await;
    assert_eq!(blocked.status, 201, "{}", blocked.body);
    let accept = app
        .request(
            "POST",
            &format!("/v1/matches/{}/accept", id_of(&challenged)),
            Some(&bob),
            None,
            &[],
        )
        .await;
    assert_eq!((accept.status.as_u16(), accept.code()), (403, "blocked"));
    let still = app
        .get(&format!("/v1/matches/{}", id_of(&challenged)), &alice)
        .await
        .body;
    assert_eq!(still["status"], "waiting");

    // Three seats: Bob is challenged, the third is open; Carol, who has
    // blocked Bob, cannot take it by the invitation.
    app.post("/v1/blocks", &carol, json!({"username": "bob"}))
        .await;
    let three = app
        .challenge("/v1/matches", &alice, json!({"game": "four_player_chess", "mode": "ffa", "opponents": ["bob"], "open_seats": 1}))
        .await;
    // Alice blocked Bob above: lift it so only Carol's block stands.
    assert_eq!((three.status.as_u16(), three.code()), (403, "blocked"));
    app.request("DELETE", "/v1/blocks/bob", Some(&alice), None, &[])
        .await;
    let three = app
        .challenge("/v1/matches", &alice, json!({"game": "four_player_chess", "mode": "ffa", "opponents": ["bob"], "open_seats": 1}))
        .await
        .body;
    let code = three["invite"]["code"].as_str().unwrap();
    let joined = app
        .request(
            "POST",
            &format!("/v1/invites/{code}/accept"),
            Some(&carol),
            None,
            &[],
        )
        .await;
    assert_eq!(
        (joined.status.as_u16(), joined.code()),
        (403, "blocked"),
        "{}",
        joined.body
    );
    assert!(!joined.body["detail"].as_str().unwrap().contains("bob"));
    // And the other way round: Carol named with Bob in one challenge.
    let both = app
        .challenge(
            "/v1/matches",
            &alice,
            json!({"game": "four_player_chess", "mode": "ffa", "opponents": ["bob", "carol"]}),
        )
        .await;
    assert_eq!((both.status.as_u16(), both.code()), (403, "blocked"));
    app.stop().await;
}

/// Issue #30, 8: names that only look like a registered one are refused
/// at registration, compared before any case folding; guests too. Issue
/// #46: with 422, since the name has the documented form.
#[actix_web::test]
async fn look_alike_names_cannot_register_or_play_as_guests() {
    let app = TestApp::start().await;
    app.register("mallory").await;
    for name in ["rnallory", "ma11ory", "maIIory"] {
        let reply = app
            .request(
                "POST",
                "/v1/accounts",
                None,
                Some(json!({"username": name, "password": "a long password"})),
                &[],
            )
            .await;
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (422, "validation_failed"),
            "{name}"
        );
    }
    let same = app
        .request(
            "POST",
            "/v1/accounts",
            None,
            Some(json!({"username": "Mallory", "password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!((same.status.as_u16(), same.code()), (409, "conflict"));
    let guest = app
        .request(
            "POST",
            "/v1/guests",
            None,
            Some(json!({"nickname": "MaIlory"})),
            &[("X-Forwarded-For", "192.0.2.7")],
        )
        .await;
    assert_eq!(
        (guest.status.as_u16(), guest.code()),
        (422, "validation_failed")
    );
    app.stop().await;
}

/// Issue #30, 2, for every game: a match waiting for a seat shows a view
/// and an event feed with nothing dealt, and lists no action.
#[actix_web::test]
async fn every_game_waits_for_its_last_seat_with_nothing_dealt() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let games = app.request("GET", "/v1/games", None, None, &[]).await.body;
    for game in games.as_array().unwrap() {
        let id = game["id"].as_str().unwrap();
        let waiting = app
            .challenge("/v1/matches", &alice, json!({"game": id, "open_seats": 1}))
            .await;
        assert_eq!(waiting.status, 201, "{id}: {}", waiting.body);
        assert_eq!(waiting.body["status"], "waiting", "{id}");
        let match_id = id_of(&waiting.body);
        assert!(
            rules_events(&app, match_id).await.is_empty(),
            "{id}: dealt while waiting"
        );
        let legal = app
            .get(&format!("/v1/matches/{match_id}/legal-actions"), &alice)
            .await;
        assert_eq!(legal.status, 200, "{id}: {}", legal.body);
        assert_eq!(legal.body["actions"], json!([]), "{id}");
        let feed = app
            .get(&format!("/v1/matches/{match_id}/events"), &alice)
            .await;
        assert_eq!(feed.status, 200, "{id}: {}", feed.body);
    }
    app.stop().await;
}

/// Issue #46, 7: no guest nickname or username reads as a computer seat,
/// in English or Korean, whatever its case, spacing or punctuation: 422,
/// the name has the documented form. The check reads the name alone, so
/// 20 at once are all refused and none is made.
#[actix_web::test]
async fn names_that_read_as_a_computer_are_refused() {
    let app = TestApp::start().await;
    for nickname in [
        "computer · hard",
        "Computer-Easy",
        "컴퓨터 · 어려움",
        "COMPUTER",
    ] {
        let guest = app
            .request(
                "POST",
                "/v1/guests",
                None,
                Some(json!({"nickname": nickname})),
                &[("X-Forwarded-For", "192.0.2.46")],
            )
            .await;
        assert_eq!(
            (guest.status.as_u16(), guest.code()),
            (422, "validation_failed"),
            "{nickname}"
        );
    }
    let shared = &app;
    let at_once = (0..20).map(|n| {
        let from = format!("192.0.2.{}", 100 + n);
        async move {
            shared
                .request(
                    "POST",
                    "/v1/accounts",
                    None,
                    Some(json!({"username": "computer_hard", "password": "a long password"})),
                    &[("X-Forwarded-For", &from)],
                )
                .await
        }
    });
    for reply in futures_util::future::join_all(at_once).await {
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (422, "validation_failed"),
            "{}",
            reply.body
        );
    }
    // A name that only mentions a computer is a person's.
    let fan = app
        .request(
            "POST",
            "/v1/guests",
            None,
            Some(json!({"nickname": "Computer fan"})),
            &[("X-Forwarded-For", "192.0.2.47")],
        )
        .await;
    assert_eq!(fan.status, 201, "{}", fan.body);
    app.stop().await;
}
