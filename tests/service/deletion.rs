//! Issue #47, items 6 and 7: deleting an account (and what its opponents
//! still read), and exporting one's data with nothing hidden in it.

use crate::banqi::recorded_game;
use crate::identities::{Issuer, SigningKey};
use crate::support::{start_time, TestApp};
use chrono::Duration;
use diesel::prelude::*;
use posthorn_rules::{GameId, Seat, Viewer};
use serde_json::{json, Value};

async fn delete(app: &TestApp, token: &str, body: Value) -> crate::support::Reply {
    app.request("POST", "/v1/me/deletion", Some(token), Some(body), &[])
        .await
}

/// Put `name` on the `perf` leaderboard at `rating`, as the rating
/// update does for an established player.
async fn on_board(app: &TestApp, name: &str, perf: &'static str, rating: i32) {
    let name = name.to_owned();
    app.blocking(move |s| {
        let mut conn = s.pool.get().unwrap();
        diesel::sql_query(format!(
            "INSERT INTO ratings (user_id, perf, rating, deviation, volatility, games, last_rated_at, board_rating) \
             SELECT id, '{perf}', {rating}, 60, 0.06, 30, now(), {rating} FROM users WHERE username = '{name}'"
        ))
        .execute(&mut conn)
        .unwrap();
        let counts = std::collections::BTreeMap::from([(rating, 1)]);
        posthorn::ratings::update::shift_counts(&mut conn, perf, &counts).unwrap();
    })
    .await;
}

fn board_names(board: &Value) -> Vec<String> {
    board["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["username"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[actix_web::test]
async fn a_deleted_account_signs_in_nowhere_and_its_opponent_still_reads_their_matches() {
    let app = TestApp::start().await;
    let dora = app.register("dora").await;
    let otto = app.register("otto").await;
    app.register("pia").await;
    // A finished match, and one in play.
    let finished = app
        .post(
            "/v1/matches",
            &dora,
            json!({"game": "checkers", "opponents": ["otto"]}),
        )
        .await
        .body;
    let finished_id = finished["id"].as_str().unwrap().to_owned();
    assert_eq!(
        app.act(&otto, &finished_id, json!({"type": "resign"}))
            .await
            .status,
        200
    );
    let playing = app
        .post(
            "/v1/matches",
            &otto,
            json!({"game": "janggi", "opponents": ["dora"]}),
        )
        .await
        .body;
    let playing_id = playing["id"].as_str().unwrap().to_owned();
    app.post("/v1/friends/requests", &dora, json!({"username": "otto"}))
        .await;
    app.request(
        "POST",
        "/v1/friends/requests/dora/accept",
        Some(&otto),
        None,
        &[],
    )
    .await;
    on_board(&app, "dora", "banqi", 1700).await;
    on_board(&app, "pia", "banqi", 1600).await;
    let board = app.get("/v1/leaderboards/banqi", &otto).await.body;
    assert_eq!(board_names(&board), ["dora", "pia"]);

    // A phone signed in, and the match's end told her (fanned out into
    // deliveries): both leave personal words behind.
    let phone = app
        .request(
            "POST",
            "/v1/sessions",
            None,
            Some(json!({"login": "dora", "password": "a long password"})),
            &[(
                "User-Agent",
                "Mozilla/5.0 (Linux; Android 14) Chrome/131.0 Mobile Safari/537.36",
            )],
        )
        .await;
    assert_eq!(phone.status, 201, "{}", phone.body);
    app.fan_out().await;
    let told = "SELECT count(*) AS n FROM notifications n JOIN users u ON u.id = n.user_id \
        WHERE u.username = 'dora' AND n.payload <> '{}'::jsonb";
    assert!(
        app.count(told.into()).await > 0,
        "a delivery with its words"
    );
    let device = "SELECT count(*) AS n FROM refresh_tokens r JOIN users u ON u.id = r.user_id \
        WHERE u.username = 'dora' AND r.device <> ''";
    assert_eq!(app.count(device.into()).await, 1, "the phone");

    // Confirmed with the password, and only with the right one.
    let bare = delete(&app, &dora, json!({})).await;
    assert_eq!(bare.status, 403, "{}", bare.body);
    let wrong = delete(&app, &dora, json!({"password": "not the password"})).await;
    assert_eq!(wrong.status, 403, "{}", wrong.body);
    assert_eq!(
        app.get("/v1/me", &dora).await.status,
        200,
        "nothing changed"
    );
    let done = delete(&app, &dora, json!({"password": "a long password"})).await;
    assert_eq!(done.status, 204, "{}", done.body);

    // Every way in is closed.
    assert_eq!(app.get("/v1/me", &dora).await.status, 401);
    let sign_in = app
        .request(
            "POST",
            "/v1/sessions",
            None,
            Some(json!({"login": "dora", "password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(sign_in.status, 401);
    let by_email = app
        .request(
            "POST",
            "/v1/sessions",
            None,
            Some(json!({"login": "dora@example.test", "password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(by_email.status, 401);
    // The profile is gone.
    assert_eq!(app.get("/v1/users/dora", &otto).await.status, 404);
    // The match in play was resigned: Otto won it, and both matches read,
    // Dora shown as a deleted player with nothing to link to.
    for id in [&finished_id, &playing_id] {
        let seen = app.get(&format!("/v1/matches/{id}"), &otto).await;
        assert_eq!(seen.status, 200, "{}", seen.body);
        assert_eq!(seen.body["status"], "finished", "{}", seen.body);
        let her = seen.body["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["user"].clone())
            .find(|u| u["username"] != "otto")
            .unwrap();
        assert_eq!(her["deleted"], true, "{her}");
        assert_eq!(her["display_name"], "Deleted player");
        assert!(
            her["username"].as_str().unwrap().starts_with("deleted-"),
            "{her}"
        );
        assert!(
            !seen.body.to_string().contains("dora"),
            "no trace of her name: {}",
            seen.body
        );
    }
    // Off the leaderboard, and its counts agree with its rows.
    let board = app.get("/v1/leaderboards/banqi", &otto).await.body;
    assert_eq!(board_names(&board), ["pia"]);
    assert_eq!(
        app.count(
            "SELECT coalesce(sum(players), 0)::bigint AS n FROM rating_counts WHERE perf = 'banqi'"
                .into()
        )
        .await,
        1
    );
    // Friends forget her; her personal data is gone from the row.
    assert_eq!(
        app.get("/v1/friends", &otto).await.body["friends"],
        json!([])
    );
    assert_eq!(
        app.count("SELECT count(*) AS n FROM users WHERE deleted_at IS NOT NULL AND email IS NULL AND password_hash IS NULL AND username LIKE 'deleted-%'".into()).await,
        1
    );
    // What was told her and from which device she signed in are erased.
    let left = "SELECT (SELECT count(*) FROM notifications n JOIN users u ON u.id = n.user_id \
        WHERE u.deleted_at IS NOT NULL AND n.payload <> '{}'::jsonb) \
        + (SELECT count(*) FROM refresh_tokens r JOIN users u ON u.id = r.user_id \
        WHERE u.deleted_at IS NOT NULL AND r.device <> '') AS n";
    assert_eq!(app.count(left.into()).await, 0);
    // Her name is held: nobody may register it, or a look-alike of it.
    for name in ["dora", "Dora", "d0ra"] {
        let taken = app
            .request(
                "POST",
                "/v1/accounts",
                None,
                Some(json!({"username": name, "password": "a long password"})),
                &[("X-Forwarded-For", "10.9.9.9")],
            )
            .await;
        assert!(
            [409, 422].contains(&taken.status.as_u16()),
            "{name}: {}",
            taken.body
        );
    }
    // A year on, the sweep frees it.
    app.clock.advance(Duration::days(366));
    app.blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep())
        .await
        .unwrap();
    let free = app
        .request(
            "POST",
            "/v1/accounts",
            None,
            Some(json!({"username": "dora", "password": "a long password"})),
            &[("X-Forwarded-For", "10.9.9.10")],
        )
        .await;
    assert_eq!(free.status, 201, "{}", free.body);
    app.stop().await;
}

#[actix_web::test]
async fn a_guest_deletes_with_its_session_and_an_identity_account_with_its_identity() {
    let key = SigningKey::new("g1");
    let issuer = Issuer::start(&[&key]);
    let app = TestApp::start_with(issuer.config()).await;
    let guest = app.guest("손님").await;
    let gone = delete(&app, &guest, json!({})).await;
    assert_eq!(gone.status, 204, "{}", gone.body);
    assert_eq!(app.get("/v1/me", &guest).await.status, 401);

    // Each proof with a nonce of its own: a nonce proves once (issue #65).
    let now = start_time().timestamp();
    let proof = |sub: &'static str| {
        let (app, key) = (&app, &key);
        async move {
            let nonce = app
                .request("POST", "/v1/sessions/nonce", None, None, &[])
                .await
                .body["nonce"]
                .as_str()
                .unwrap()
                .to_owned();
            let claims = json!({"iss": "https://accounts.google.com", "aud": "web.apps.googleusercontent.com",
                "sub": sub, "iat": now, "exp": now + 3600, "nonce": nonce});
            json!({"provider": "google", "id_token": key.sign(&claims), "nonce": nonce})
        }
    };
    let mut body = proof("777").await;
    body["username"] = json!("gina");
    let session = app
        .request("POST", "/v1/sessions/identity", None, Some(body), &[])
        .await;
    assert_eq!(session.status, 201, "{}", session.body);
    let gina = session.body["access_token"].as_str().unwrap();
    // Another person's identity does not confirm it.
    let other = delete(&app, gina, json!({"identity": proof("888").await})).await;
    assert_eq!(other.status, 403, "{}", other.body);
    let done = delete(&app, gina, json!({"identity": proof("777").await})).await;
    assert_eq!(done.status, 204, "{}", done.body);
    let again = app
        .request(
            "POST",
            "/v1/sessions/identity",
            None,
            Some(proof("777").await),
            &[],
        )
        .await;
    assert_eq!(
        again.code(),
        "identity_unknown",
        "the identity is unlinked: {}",
        again.body
    );
    app.stop().await;
}

fn shows_any(shown: &Value, secrets: &[Value]) -> bool {
    secrets.contains(shown)
        || match shown {
            Value::Array(items) => items.iter().any(|v| shows_any(v, secrets)),
            Value::Object(fields) => fields.values().any(|v| shows_any(v, secrets)),
            _ => false,
        }
}

/// Each player of a `game` match plays a few moves, then exports: the
/// export holds the match and its log, and none of the secrets the rules
/// keep from that player (`MatchState::secrets`: every form a leak of
/// them would take); the same export with one of them slipped deep inside
/// is caught (the check bites).
async fn export_hides_what_the_rules_hide(game: GameId) {
    let app = TestApp::start_seeded(47).await;
    let ann = app.register("ann").await;
    let ben = app.register("ben").await;
    let m = app
        .post(
            "/v1/matches",
            &ann,
            json!({"game": game.id(), "opponents": ["ben"]}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    let by_seat = if m["my_seats"][0] == 0 {
        [&ann, &ben]
    } else {
        [&ben, &ann]
    };
    for _ in 0..4 {
        let now = app.get(&format!("/v1/matches/{id}"), &ann).await.body;
        let Some(seat) = now["to_act"][0]["seat"].as_u64() else {
            break;
        };
        let actions = app.legal_actions(by_seat[seat as usize], &id).await;
        let action = actions
            .into_iter()
            .find(|a| a["type"] != "resign" && a["type"] != "grant_time")
            .unwrap();
        assert_eq!(
            app.act(by_seat[seat as usize], &id, action).await.status,
            200
        );
    }
    let (state, _) = recorded_game(&app, id.parse().unwrap(), game).await;
    for (seat, token) in by_seat.iter().enumerate() {
        let export = app.get("/v1/me/export", token).await;
        assert_eq!(export.status, 200, "{}", export.body);
        assert!(export
            .header("content-disposition")
            .starts_with("attachment"));
        let body = &export.body;
        assert_eq!(body["matches"][0]["match"]["id"], id.as_str());
        assert!(
            body["matches"][0]["events"].as_array().unwrap().len() >= 5,
            "{body}"
        );
        assert!(!body["sessions"].as_array().unwrap().is_empty());
        let secrets = state.secrets(Viewer::Seat(Seat(seat as u8)));
        assert!(
            !secrets.is_empty(),
            "{game:?} keeps something from seat {seat}"
        );
        assert!(
            !shows_any(body, &secrets),
            "{game:?} seat {seat}'s export shows a secret"
        );
        let mut leaked = body.clone();
        leaked["matches"][0]["events"][1]["hint"] = secrets.last().unwrap().clone();
        assert!(
            shows_any(&leaked, &secrets),
            "the check finds a secret slipped in"
        );
    }
    app.stop().await;
}

#[actix_web::test]
async fn a_flipchess_export_holds_no_opponents_card() {
    export_hides_what_the_rules_hide(GameId::FlipChess).await;
}

#[actix_web::test]
async fn a_banqi_export_holds_no_face_down_piece() {
    export_hides_what_the_rules_hide(GameId::Banqi).await;
}

#[actix_web::test]
async fn exports_are_limited_to_five_a_day() {
    let app = TestApp::start().await;
    let ann = app.register("ann").await;
    for _ in 0..5 {
        assert_eq!(app.get("/v1/me/export", &ann).await.status, 200);
    }
    let sixth = app.get("/v1/me/export", &ann).await;
    assert_eq!(sixth.status, 429, "{}", sixth.body);
    app.clock.advance(Duration::hours(25));
    let ann = app.register("ann2").await;
    assert_eq!(app.get("/v1/me/export", &ann).await.status, 200);
    app.stop().await;
}

/// Issue #47 (review): the export holds the conditional moves I keep in a
/// match and the tournaments I am in.
#[actix_web::test]
async fn an_export_holds_my_conditional_moves_and_my_tournaments() {
    let app = TestApp::start().await;
    let ann = app.register("ann").await;
    let ben = app.register("ben").await;
    app.register("cal").await;
    let m = app
        .post(
            "/v1/matches",
            &ann,
            json!({"game": "checkers", "opponents": ["ben"]}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    let waiting = if m["my_seats"][0] == m["to_act"][0]["seat"] {
        &ben
    } else {
        &ann
    };
    let line = json!([[{"when": {"type": "moved", "move": "EXPORT-LINE"},
                         "play": [{"type": "move", "move": "1-2"}]}]]);
    let stored = app
        .request(
            "PUT",
            &format!("/v1/matches/{id}/conditional-moves"),
            Some(waiting),
            Some(json!({ "lines": line })),
            &[],
        )
        .await;
    assert!(stored.status.is_success(), "{}", stored.body);
    let cup = app
        .post(
            "/v1/tournaments",
            waiting,
            json!({"name": "Export cup", "format": "round_robin", "game": "checkers",
                   "players": ["cal"], "turn_hours": 48}),
        )
        .await;
    assert_eq!(cup.status, 201, "{}", cup.body);
    let export = app.get("/v1/me/export", waiting).await.body;
    assert_eq!(export["matches"][0]["conditional_moves"]["lines"], line);
    assert_eq!(export["tournaments"][0]["name"], "Export cup", "{export}");
    app.stop().await;
}
