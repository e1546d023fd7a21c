//! Guests are never lost (issue #47, item 2): a guest's session lasts as
//! a registered one's, a guest from a Korean browser is Korean, nicknames
//! may be Hangul and are protected from look-alikes once registered, and
//! a guest becomes a registered player keeping every match and friend.

use crate::support::{Reply, TestApp};
use chrono::Duration;
use serde_json::{json, Value};

const KOREAN: &str = "ko-KR,ko;q=0.9,en-US;q=0.8";

/// A new guest, from an address of its own, with these request headers.
async fn guest_with(app: &TestApp, nickname: &str, headers: &[(&str, &str)]) -> Reply {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let address = std::net::Ipv4Addr::from(0xC612_0000 + n).to_string();
    let mut all = vec![("X-Forwarded-For", address.as_str())];
    all.extend_from_slice(headers);
    let body = json!({ "nickname": nickname });
    app.request("POST", "/v1/guests", None, Some(body), &all)
        .await
}

/// `POST /v1/me/registration` with `body`, from an address of its own
/// (sign-ups per address are limited).
async fn register_guest(app: &TestApp, token: &str, body: Value) -> Reply {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let address = std::net::Ipv4Addr::from(0xC613_0000 + n).to_string();
    let headers = [("X-Forwarded-For", address.as_str())];
    app.request(
        "POST",
        "/v1/me/registration",
        Some(token),
        Some(body),
        &headers,
    )
    .await
}

fn access(reply: &Reply) -> String {
    assert!(reply.body["access_token"].is_string(), "{}", reply.body);
    reply.body["access_token"].as_str().unwrap().to_owned()
}

fn hangul(text: &Value) -> bool {
    let text = text.as_str().unwrap_or_default();
    text.chars().any(|c| ('가'..='힣').contains(&c))
}

#[actix_web::test]
async fn a_guest_from_a_korean_browser_is_korean_and_stays_as_long_as_anyone() {
    let app = TestApp::start().await;
    let korean = guest_with(&app, "민지", &[("Accept-Language", KOREAN)]).await;
    assert_eq!(korean.status, 201, "{}", korean.body);
    assert_eq!(korean.body["user"]["locale"], "ko");
    assert_eq!(korean.body["user"]["display_name"], "민지");
    let token = access(&korean);

    // Refusals speak Korean by the account's locale, with no header.
    let short = register_guest(
        &app,
        &token,
        json!({"username": "minji", "password": "short"}),
    )
    .await;
    assert_eq!(
        (short.status.as_u16(), short.code()),
        (400, "validation_failed")
    );
    assert!(hangul(&short.body["detail"]), "{}", short.body);
    assert!(short.body["detail_en"]
        .as_str()
        .unwrap()
        .contains("password"));

    // Any other language, or none, is English; the body's locale wins.
    for (headers, locale) in [
        (vec![("Accept-Language", "en-GB,en;q=0.9")], "en"),
        (vec![("Accept-Language", "fr-FR, de;q=0.5")], "en"),
        (vec![], "en"),
        (vec![("Accept-Language", "en;q=0.3, ko;q=0.7")], "ko"),
    ] {
        let reply = guest_with(&app, "Mina", &headers).await;
        assert_eq!(reply.body["user"]["locale"], locale, "{headers:?}");
    }
    let chosen = app
        .request(
            "POST",
            "/v1/guests",
            None,
            Some(json!({"nickname": "Jun", "locale": "ko-KR"})),
            &[("Accept-Language", "en"), ("X-Forwarded-For", "198.18.9.9")],
        )
        .await;
    assert_eq!(chosen.body["user"]["locale"], "ko-KR");
    let bad = app
        .request(
            "POST",
            "/v1/guests",
            None,
            Some(json!({"nickname": "Jun", "locale": "ko KR!"})),
            &[("X-Forwarded-For", "198.18.9.10")],
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.body);

    // A guest's session lasts as a registered player's: its refresh
    // token lives as long, and still works 59 days on.
    app.register("alice").await;
    let lives = app
        .count("SELECT count(DISTINCT expires_at - created_at) AS n FROM refresh_tokens".into())
        .await;
    assert_eq!(lives, 1, "one lifetime for guests and registered players");
    app.clock.advance(Duration::days(59));
    let refreshed = app
        .request(
            "POST",
            "/v1/sessions/refresh",
            None,
            Some(json!({"refresh_token": korean.body["refresh_token"]})),
            &[],
        )
        .await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.body);
    assert_eq!(refreshed.body["user"]["guest"], true);
    app.stop().await;
}

#[actix_web::test]
async fn a_hangul_nickname_works_and_a_registered_one_has_no_look_alike() {
    let app = TestApp::start().await;
    // Guests are not protected from each other: two may be 민지.
    let first = access(&guest_with(&app, "민지", &[]).await);
    let second = guest_with(&app, " 민지 ", &[]).await;
    assert_eq!(second.status, 201, "{}", second.body);
    assert_eq!(second.body["user"]["display_name"], "민지");

    // Registered, the first keeps 민지 beside the username minji: both
    // are now a registered player's names.
    let saved = register_guest(
        &app,
        &first,
        json!({"username": "minji", "password": "a long password"}),
    )
    .await;
    assert_eq!(saved.status, 201, "{}", saved.body);
    assert_eq!(saved.body["user"]["display_name"], "민지");
    for (copy, why) in [
        ("민지", "the same Hangul"),
        (
            "\u{1106}\u{1175}\u{11AB}\u{110C}\u{1175}",
            "decomposed jamo, NFKC-composed",
        ),
        ("Мinji", "a Cyrillic М for minji"),
        ("ＭＩＮＪＩ", "fullwidth minji"),
        ("rninji", "rn for m"),
    ] {
        let reply = guest_with(&app, copy, &[]).await;
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (422, "validation_failed"),
            "{why}: {}",
            reply.body
        );
    }
    // A registration too: the username may not look like the kept name.
    let copycat = access(&guest_with(&app, "Somebody", &[]).await);
    let taken = register_guest(
        &app,
        &copycat,
        json!({"username": "MINJI", "password": "a long password"}),
    )
    .await;
    assert_eq!((taken.status.as_u16(), taken.code()), (409, "conflict"));
    let alike = register_guest(
        &app,
        &copycat,
        json!({"username": "somebody", "password": "a long password", "display_name": "민지"}),
    )
    .await;
    assert_eq!(
        (alike.status.as_u16(), alike.code()),
        (422, "validation_failed"),
        "{}",
        alike.body
    );
    // Other Hangul names are free, and so is a name that only shares
    // letters with a registered one.
    for other in ["민준", "지민", "하늘 Kim"] {
        assert_eq!(guest_with(&app, other, &[]).await.status, 201, "{other}");
    }
    // A guest's name that reads as a computer's is refused in Korean too.
    let computer = guest_with(&app, "컴퓨터", &[]).await;
    assert_eq!(computer.status, 422, "{}", computer.body);
    app.stop().await;
}

#[actix_web::test]
async fn a_guest_who_played_registers_and_finds_the_match_and_friends_on_a_new_session() {
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
    let id = created.body["id"].as_str().unwrap().to_owned();
    let code = created.body["invite"]["code"].as_str().unwrap().to_owned();
    let joined = guest_with(&app, "민지", &[("Accept-Language", KOREAN)]).await;
    let guest = access(&joined);
    let guest_id = joined.body["user"]["id"].clone();
    let guest_name = joined.body["user"]["username"].as_str().unwrap().to_owned();
    let accepted = app
        .post(&format!("/v1/invites/{code}/accept"), &guest, json!(null))
        .await;
    assert_eq!(accepted.status, 200, "{}", accepted.body);
    // A move each way, then the guest resigns: a finished match.
    for _ in 0..2 {
        for token in [&alice, &guest] {
            let actions = app.legal_actions(token, &id).await;
            if let Some(step) = actions.iter().find(|a| a["type"] == "move") {
                assert_eq!(app.act(token, &id, step.clone()).await.status, 200);
            }
        }
    }
    let resigned = app.act(&guest, &id, json!({"type": "resign"})).await;
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    // Friends with alice.
    let asked = app
        .post("/v1/friends/requests", &guest, json!({"username": "alice"}))
        .await;
    assert_eq!(asked.status, 201, "{}", asked.body);
    let answered = app
        .post(
            &format!("/v1/friends/requests/{guest_name}/accept"),
            &alice,
            json!(null),
        )
        .await;
    assert_eq!(answered.status, 204, "{}", answered.body);
    let profile_before = app
        .get(&format!("/v1/users/{guest_name}"), &alice)
        .await
        .body;

    // Registered with a password and an email.
    let saved = register_guest(
        &app,
        &guest,
        json!({"username": "minji", "password": "a long password", "email": "minji@example.test"}),
    )
    .await;
    assert_eq!(saved.status, 201, "{}", saved.body);
    let user = &saved.body["user"];
    assert_eq!(user["id"], guest_id, "the same account");
    assert_eq!(
        (
            &user["guest"],
            &user["username"],
            &user["display_name"],
            &user["locale"]
        ),
        (&json!(false), &json!("minji"), &json!("민지"), &json!("ko"))
    );
    let claims = saved.body["access_token"]
        .as_str()
        .unwrap()
        .split('.')
        .nth(1)
        .unwrap();
    let claims: Value = serde_json::from_slice(
        &base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, claims).unwrap(),
    )
    .unwrap();
    assert_eq!(claims["guest"], false);
    // The guest's session ended with the guest.
    assert_eq!(app.get("/v1/me", &guest).await.status, 401);
    let refresh = json!({"refresh_token": joined.body["refresh_token"]});
    let old = app
        .request("POST", "/v1/sessions/refresh", None, Some(refresh), &[])
        .await;
    assert_eq!(old.status, 401);
    // The email waits for its link, as at sign-up.
    let me = app.get("/v1/me", &access(&saved)).await.body;
    assert_eq!(me["email_pending"], "minji@example.test");
    assert_eq!(me["email"], Value::Null);
    let mails = app
        .count(
            "SELECT count(*) AS n FROM notifications \
             WHERE kind = 'verify_email' AND payload->>'address' = 'minji@example.test'"
                .into(),
        )
        .await;
    assert_eq!(mails, 1, "one verification mail");

    // Another device signs in with the password and finds everything.
    let signed_in = app
        .request(
            "POST",
            "/v1/sessions",
            None,
            Some(json!({"login": "minji", "password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(signed_in.status, 201, "{}", signed_in.body);
    let token = access(&signed_in);
    let mine = app.get("/v1/matches?status=finished", &token).await.body;
    let ids: Vec<&Value> = mine["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["id"])
        .collect();
    assert_eq!(ids, [&json!(id)]);
    let view = app.get(&format!("/v1/matches/{id}"), &token).await.body;
    assert_eq!(view["my_seats"].as_array().unwrap().len(), 1);
    let friends = app.get("/v1/friends", &token).await.body;
    assert_eq!(friends["friends"][0]["user"]["username"], "alice");
    let theirs = app.get("/v1/friends", &alice).await.body;
    assert_eq!(theirs["friends"][0]["user"]["username"], "minji");
    let profile_after = app.get("/v1/users/minji", &alice).await.body;
    assert_eq!(
        profile_after["perfs"], profile_before["perfs"],
        "the same ratings"
    );
    assert_eq!(
        profile_after["member_since"],
        profile_before["member_since"]
    );
    assert_eq!(
        app.get(&format!("/v1/users/{guest_name}"), &alice)
            .await
            .status,
        404
    );

    // Registering again, or as a registered player, is refused.
    for token in [&token, &alice] {
        let again = register_guest(
            &app,
            token,
            json!({"username": "minji2", "password": "a long password"}),
        )
        .await;
        assert_eq!((again.status.as_u16(), again.code()), (409, "conflict"));
    }
    app.stop().await;
}

#[actix_web::test]
async fn bad_registrations_of_a_guest_are_refused_with_a_problem_and_change_nothing() {
    let app = TestApp::start().await;
    app.register("mallory").await;
    let guest = access(&guest_with(&app, "Mina", &[]).await);
    for (body, status) in [
        // Neither a password nor an identity (issue #47: either signs in,
        // so the schema cannot require one): refused for what it means.
        (json!({"username": "mina"}), 422),
        (
            json!({"username": "mi", "password": "a long password"}),
            400,
        ),
        (
            json!({"username": "guest-mina", "password": "a long password"}),
            400,
        ),
        (
            json!({"username": "민지", "password": "a long password"}),
            400,
        ),
        (
            json!({"username": "mina", "password": "a long password", "email": "nope"}),
            400,
        ),
        (
            json!({"username": "mina", "password": "a long password", "display_name": "\u{202e}x"}),
            400,
        ),
        (
            json!({"username": "mina", "password": "a long password", "extra": 1}),
            400,
        ),
        (
            json!({"username": "mallory", "password": "a long password"}),
            409,
        ),
        (
            json!({"username": "maIIory", "password": "a long password"}),
            422,
        ),
        (
            json!({"username": "computer", "password": "a long password"}),
            422,
        ),
    ] {
        let reply = register_guest(&app, &guest, body.clone()).await;
        assert_eq!(reply.status.as_u16(), status, "{body}: {}", reply.body);
    }
    let me = app.get("/v1/me", &guest).await.body;
    assert_eq!(me["guest"], true, "still a guest, still signed in");
    let anonymous = app
        .request(
            "POST",
            "/v1/me/registration",
            None,
            Some(json!({"username": "mina", "password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(anonymous.status, 401);
    app.stop().await;
}

/// Two guests registering the same username at once: one gets it.
#[actix_web::test]
async fn two_guests_registering_one_username_at_once_one_wins() {
    let app = TestApp::start().await;
    for round in 0..3 {
        let name = format!("haneul{round}");
        // Nicknames of their own: the winner's is a registered name next.
        let a = access(&guest_with(&app, &format!("하늘{round}"), &[]).await);
        let b = access(&guest_with(&app, &format!("Sky{round}"), &[]).await);
        let body = json!({"username": name, "password": "a long password"});
        let (ra, rb) = futures_util::future::join(
            register_guest(&app, &a, body.clone()),
            register_guest(&app, &b, body.clone()),
        )
        .await;
        let mut statuses = [ra.status.as_u16(), rb.status.as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses, [201, 409], "{} {}", ra.body, rb.body);
        let held = app
            .count(format!(
                "SELECT count(*) AS n FROM users WHERE username = '{name}' AND NOT guest"
            ))
            .await;
        assert_eq!(held, 1);
    }
    // One guest registering twice at once: once.
    let c = access(&guest_with(&app, "Bora", &[]).await);
    let (r1, r2) = futures_util::future::join(
        register_guest(
            &app,
            &c,
            json!({"username": "bora1", "password": "a long password"}),
        ),
        register_guest(
            &app,
            &c,
            json!({"username": "bora2", "password": "a long password"}),
        ),
    )
    .await;
    // The second is refused as registered already (409), or, if it came
    // after the first had ended the guest's session, as signed out (401).
    let mut statuses = [r1.status.as_u16(), r2.status.as_u16()];
    statuses.sort_unstable();
    assert!(
        statuses == [201, 409] || statuses == [201, 401],
        "{} {}",
        r1.body,
        r2.body
    );
    let registered = app
        .count("SELECT count(*) AS n FROM users WHERE username IN ('bora1', 'bora2')".into())
        .await;
    assert_eq!(registered, 1);
    app.stop().await;
}
