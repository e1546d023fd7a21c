//! Issue #65: the security review's findings on accounts and limits, each
//! shown over HTTP against the real database and a real SMTP server
//! (docs/abuse.md, docs/decisions/accounts-and-sessions.md). The live
//! streams' caps are in `live_caps.rs`, the identity edges in
//! `identities.rs`.

use crate::password_resets::{app_with_smtp, ask as ask_reset, complete, mail_due};
use crate::sessions::mails_to;
use crate::smtp::SmtpServer;
use crate::support::{Reply, TestApp};
use chrono::Duration;
use posthorn::clock::Clock;
use posthorn::limits::Limit;
use serde_json::{json, Value};

async fn patch_me(app: &TestApp, token: &str, body: Value) -> Reply {
    app.request("PATCH", "/v1/me", Some(token), Some(body), &[])
        .await
}

/// The token after `marker` (`/undo-email#`) in `mail`.
fn token_after(mail: &str, marker: &str) -> String {
    let start = mail.find(marker).expect("the link") + marker.len();
    mail[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .collect()
}

/// Open the verification link of `address` for `token`'s account, as its
/// mail would (the link itself is tested in `fair_play.rs`).
async fn verify(app: &TestApp, token: &str, address: &str) {
    let me = app.get("/v1/me", token).await.body;
    let user = me["id"].as_str().unwrap().parse().unwrap();
    let link = app
        .state
        .keys
        .sign_verify_email(user, address, app.clock.now());
    let reply = app
        .request(
            "POST",
            "/v1/email-verifications",
            None,
            Some(json!({ "token": link })),
            &[],
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
}

async fn resets_of(app: &TestApp, username: &str) -> i64 {
    app.count(format!(
        "SELECT count(*) AS n FROM password_resets r JOIN users u ON u.id = r.user_id \
         WHERE u.username = '{username}'"
    ))
    .await
}

/// Item 1: a session alone cannot set the address that controls the
/// password; with the password it can, and the old address then holds a
/// link that puts itself back and ends every session, while no reset is
/// mailed to the new one.
#[actix_web::test]
async fn changing_the_address_takes_the_password_and_the_old_address_can_undo_it() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    let stolen = json!({"email": "mallory@example.test"});
    let refused = patch_me(&app, &alice, stolen.clone()).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let wrong = json!({"email": "mallory@example.test", "password": "not her password"});
    assert_eq!(patch_me(&app, &alice, wrong).await.status, 403);
    let me = app.get("/v1/me", &alice).await.body;
    assert_eq!(
        (me["email"].as_str(), me["email_pending"].as_str()),
        (Some("alice@example.test"), None),
        "nothing changed"
    );
    // Both proofs at once is a malformed confirmation (422).
    let proof = json!({"provider": "google", "id_token": "x", "nonce": "y"});
    let both = json!({"email": "a@example.test", "password": "a long password", "identity": proof});
    assert_eq!(patch_me(&app, &alice, both).await.status, 422);
    // Other settings need no password.
    assert_eq!(
        patch_me(&app, &alice, json!({"time_zone": "Asia/Seoul"}))
            .await
            .status,
        200
    );

    // Whoever holds the session and the password moves the address.
    let given = json!({"email": "mallory@example.test", "password": "a long password"});
    let changed = patch_me(&app, &alice, given).await;
    assert_eq!(changed.status, 200, "{}", changed.body);
    verify(&app, &alice, "mallory@example.test").await;
    mail_due(&app).await;
    let told = mails_to(&smtp, "alice@example.test");
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains("/undo-email#"), "{}", told[0]);
    let undo = token_after(&told[0], "/undo-email#");
    // No reset reaches the new address while the old one can undo.
    assert_eq!(
        ask_reset(&app, "mallory@example.test", "198.51.100.1")
            .await
            .status,
        202
    );
    mail_due(&app).await;
    assert_eq!(resets_of(&app, "alice").await, 0);
    assert!(!smtp
        .messages()
        .iter()
        .any(|m| m.contains("/reset-password#")));

    // The owner opens the link: the address is back, every session ended.
    let back = app
        .request(
            "POST",
            "/v1/email-undos",
            None,
            Some(json!({ "token": undo })),
            &[],
        )
        .await;
    assert_eq!(back.status, 200, "{}", back.body);
    assert_eq!(back.body["email"], "alice@example.test");
    assert_eq!(app.get("/v1/me", &alice).await.status, 401);
    let again = app
        .request(
            "POST",
            "/v1/email-undos",
            None,
            Some(json!({ "token": undo })),
            &[],
        )
        .await;
    assert_eq!(again.status, 404, "used once");
    let forged = app
        .request(
            "POST",
            "/v1/email-undos",
            None,
            Some(json!({"token": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"})),
            &[],
        )
        .await;
    assert_eq!(forged.status, 404);
    // The link was spent, so a reset to the restored address is mailed.
    assert_eq!(
        ask_reset(&app, "alice@example.test", "198.51.100.2")
            .await
            .status,
        202
    );
    mail_due(&app).await;
    assert_eq!(resets_of(&app, "alice").await, 1);
    app.stop().await;
}

/// Item 1: removing the address is proven as setting one is, and the
/// removed address can put itself back within 7 days, not after.
#[actix_web::test]
async fn a_removed_address_can_be_put_back_for_a_week() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    assert_eq!(
        patch_me(&app, &alice, json!({"email": null})).await.status,
        403
    );
    let removed = json!({"email": null, "password": "a long password"});
    assert_eq!(patch_me(&app, &alice, removed).await.status, 200);
    mail_due(&app).await;
    let told = mails_to(&smtp, "alice@example.test");
    assert!(told[0].contains("Put my address back"), "{}", told[0]);
    let undo = token_after(&told[0], "/undo-email#");
    app.clock.advance(Duration::days(7) + Duration::minutes(1));
    let late = app
        .request(
            "POST",
            "/v1/email-undos",
            None,
            Some(json!({ "token": undo })),
            &[],
        )
        .await;
    assert_eq!(late.status, 404);
    let still_none = "SELECT count(*) AS n FROM users WHERE username = 'alice' AND email IS NULL";
    assert_eq!(app.count(still_none.into()).await, 1);
    app.stop().await;
}

/// Item 3: strangers asking for my address from their own addresses do
/// not spend my allowance; the address's ceiling from anywhere holds.
#[actix_web::test]
async fn strangers_cannot_use_up_my_password_resets() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    app.register("alice").await;
    for stranger in ["203.0.113.1", "203.0.113.2", "203.0.113.3"] {
        for _ in 0..Limit::PasswordResetForEmail.allowed() {
            ask_reset(&app, "alice@example.test", stranger).await;
        }
    }
    let mine = ask_reset(&app, "alice@example.test", "198.51.100.7").await;
    assert_eq!(mine.status, 202, "{}", mine.body);
    // While a link is open, asking again mails that link again.
    mail_due(&app).await;
    assert_eq!(resets_of(&app, "alice").await, 1);
    let links: std::collections::BTreeSet<String> = mails_to(&smtp, "alice@example.test")
        .iter()
        .map(|m| token_after(m, "/reset-password#"))
        .collect();
    assert_eq!(links.len(), 1, "one link, mailed again");
    // The ceiling from anywhere, for an address nobody has alike.
    let all = Limit::PasswordResetForEmailAll.allowed();
    for email in ["alice@example.test", "nobody@example.test"] {
        let mut passed = 0;
        for i in 0..all + 5 {
            let from = format!("192.0.2.{}", i + 1);
            if ask_reset(&app, email, &from).await.status == 202 {
                passed += 1;
            }
        }
        let asked_before = if email.starts_with("alice") { 10 } else { 0 };
        assert_eq!(passed, all - asked_before, "{email}");
    }
    app.stop().await;
}

/// Item 4: a stranger's address gets at most 5 verification mails a day,
/// however many accounts ask.
#[actix_web::test]
async fn verification_mails_are_limited_per_recipient() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let senders = [
        app.register("alice").await,
        app.register("bob").await,
        app.register("carol").await,
    ];
    let mut answers = Vec::new();
    for round in 0..4 {
        for token in &senders {
            let address = if round % 2 == 0 {
                "Stranger@example.test"
            } else {
                "stranger@example.test"
            };
            let body = json!({"email": address, "password": "a long password"});
            answers.push(patch_me(&app, token, body).await.status.as_u16());
        }
    }
    let limit = Limit::VerificationMailTo.allowed() as usize;
    assert_eq!(
        answers.iter().filter(|s| **s == 200).count(),
        limit,
        "{answers:?}"
    );
    assert_eq!(answers.iter().filter(|s| **s == 429).count(), 12 - limit);
    mail_due(&app).await;
    assert_eq!(mails_to(&smtp, "tranger@example.test").len(), limit);
    app.stop().await;
}

/// Item 5: a guest gives no address through settings, and a guest's
/// verified address (kept from before) resets nothing.
#[actix_web::test]
async fn a_guest_never_gets_a_password_by_the_back_door() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let guest = app.guest("Wanderer").await;
    let given = patch_me(&app, &guest, json!({"email": "wanderer@example.test"})).await;
    assert_eq!(given.status, 403, "{}", given.body);
    // A guest that verified an address before the rule.
    let me = app.get("/v1/me", &guest).await.body;
    let name = me["username"].as_str().unwrap().to_owned();
    app.count(format!(
        "WITH u AS (UPDATE users SET email = 'wanderer@example.test' \
         WHERE username = '{name}' RETURNING 1) SELECT count(*) AS n FROM u"
    ))
    .await;
    assert_eq!(
        ask_reset(&app, "wanderer@example.test", "198.51.100.3")
            .await
            .status,
        202
    );
    mail_due(&app).await;
    assert_eq!(resets_of(&app, &name).await, 0);
    assert!(mails_to(&smtp, "wanderer@example.test").is_empty());
    app.stop().await;
}

/// Item 6: the review's four code points after a registered name are not
/// a new name (every Cf, Cn, Co, Cs and default-ignorable code point is
/// looped over in `names::tests`).
#[actix_web::test]
async fn a_name_with_a_character_that_shows_nothing_is_refused() {
    let app = TestApp::start().await;
    app.register("mallory").await;
    for c in ['\u{1D159}', '\u{13437}', '\u{110BD}', '\u{0600}'] {
        let body = json!({ "nickname": format!("mallory{c}") });
        let reply = app
            .request(
                "POST",
                "/v1/guests",
                None,
                Some(body),
                &[("X-Forwarded-For", "198.51.100.50")],
            )
            .await;
        // The document's pattern cannot state UTS #39's list: refused for
        // its meaning (422), as the fuzzer's contract has it.
        assert_eq!(reply.status, 422, "U+{:04X}: {}", c as u32, reply.body);
    }
    app.stop().await;
}

/// Item 7: a message of characters that show nothing is not written.
#[actix_web::test]
async fn a_message_that_shows_nothing_is_refused_and_counts_nothing() {
    let app = TestApp::start().await;
    let (id, alice, _bob) = crate::talk::table(&app).await;
    let path = format!("/v1/matches/{id}/messages");
    for blank in [
        "\u{115F}",
        "\u{1160}",
        "\u{FFA0}",
        "\u{2800}\u{2800}",
        "\u{00AD}",
        "\u{034F}",
        "\u{180E}",
        "\u{2061}",
        "\u{E0067}\u{E0067}",
    ] {
        let reply = app
            .request(
                "POST",
                &path,
                Some(&alice),
                Some(json!({ "text": blank })),
                &[],
            )
            .await;
        assert_eq!(reply.status, 422, "{blank:?}: {}", reply.body);
    }
    assert_eq!(
        app.count("SELECT count(*) AS n FROM messages".into()).await,
        0
    );
    app.stop().await;
}

async fn sign_up_from(app: &TestApp, name: &str, forwarded: &str) -> Reply {
    app.request(
        "POST",
        "/v1/accounts",
        None,
        Some(json!({"username": name, "password": "a long password"})),
        &[("X-Forwarded-For", forwarded)],
    )
    .await
}

/// Item 8: behind a proxy that writes `ip:port`, the client's spoofed
/// entry left of it is never the key.
#[actix_web::test]
async fn a_forwarded_address_with_a_port_is_the_key_not_the_spoofed_entry() {
    let app = TestApp::start().await;
    let allowed = Limit::SignUpFromAddress.allowed();
    for i in 0..allowed {
        let forwarded = format!("10.99.0.{i}, 198.51.100.9:4711");
        assert_eq!(
            sign_up_from(&app, &format!("pp{i}"), &forwarded)
                .await
                .status,
            201
        );
    }
    let spoofed = sign_up_from(&app, "late", "10.99.1.1, 198.51.100.9:5000").await;
    assert_eq!(spoofed.status, 429, "{}", spoofed.body);
    // Counted by rule for `/metrics` (this test process's counters).
    let refused = posthorn::limits::refusals().find(|(rule, _)| *rule == "sign-up");
    assert!(refused.is_some_and(|(_, n)| n >= 1), "{refused:?}");
    let v6 = sign_up_from(&app, "six", "10.99.1.2, [2001:db8::9]:443").await;
    assert_eq!(v6.status, 201);
    // An entry that parses as nothing is the key itself.
    for i in 0..allowed {
        let forwarded = format!("10.98.0.{i}, unknown");
        assert_eq!(
            sign_up_from(&app, &format!("uu{i}"), &forwarded)
                .await
                .status,
            201
        );
    }
    assert_eq!(
        sign_up_from(&app, "unknown9", "10.98.1.1, unknown")
            .await
            .status,
        429
    );
    app.stop().await;
}

/// Item 9: hopping /64s inside one /48 meets the /48's ceiling, for
/// sign-ups, guests and resets alike.
#[actix_web::test]
async fn an_ipv6_48_has_a_ceiling_beside_each_64() {
    let app = TestApp::start().await;
    let hop = |n: i64| format!("2001:db8:77:{n:x}::1");
    let block = Limit::SignUpFromBlock.allowed();
    for n in 0..block {
        let reply = sign_up_from(&app, &format!("hop{n}"), &hop(n)).await;
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    assert_eq!(sign_up_from(&app, "onemore", &hop(block)).await.status, 429);
    // The next /48 is someone else.
    assert_eq!(
        sign_up_from(&app, "neighbour", "2001:db8:78::1")
            .await
            .status,
        201
    );
    let guests = Limit::GuestFromBlock.allowed();
    let guest = |n: i64| {
        let from = format!("2001:db8:79:{n:x}::1");
        let app = &app;
        async move {
            app.request(
                "POST",
                "/v1/guests",
                None,
                Some(json!({"nickname": "Hopper"})),
                &[("X-Forwarded-For", from.as_str())],
            )
            .await
            .status
        }
    };
    for n in 0..guests {
        assert_eq!(guest(n).await, 201);
    }
    assert_eq!(guest(guests).await, 429);
    let resets = Limit::PasswordResetFromBlock.allowed();
    for n in 0..resets {
        let from = format!("2001:db8:7a:{n:x}::1");
        assert_eq!(
            ask_reset(&app, &format!("x{n}@example.test"), &from)
                .await
                .status,
            202
        );
    }
    let over = ask_reset(&app, "y@example.test", "2001:db8:7a:ffff::1").await;
    assert_eq!(over.status, 429);
    app.stop().await;
}

/// The five requests schemathesis found breaking the document now answer
/// as it says: `game` is required (400 without it, as the document now
/// states), both proofs of a deletion are 422, and an empty reset token
/// breaks the form (400).
#[actix_web::test]
async fn the_fuzzers_five_cases_answer_as_the_document_says() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let document = app
        .request("GET", "/v1/openapi.json", None, None, &[])
        .await
        .body;
    for path in ["/v1/me/puzzles", "/v1/puzzles/daily", "/v1/puzzles/next"] {
        let reply = app.get(path, &alice).await;
        assert_eq!(reply.status, 400, "{path}: {}", reply.body);
        let params = &document["paths"][path]["get"]["parameters"];
        let game = (params.as_array().unwrap().iter())
            .find(|p| p["name"] == "game")
            .unwrap();
        assert_eq!(game["required"], true, "{path}: {game}");
    }
    // What else the three seeds found: a puzzle's and a lesson's actions
    // and a tournament's options are a game's as the document says, and
    // a report's context no longer takes talk's `Said` name.
    let schemas = &document["components"]["schemas"];
    let action = json!({"$ref": "#/components/schemas/Action"});
    assert_eq!(schemas["PuzzleMove"]["properties"]["action"], action);
    assert_eq!(
        schemas["StepActions"]["properties"]["actions"]["items"],
        action
    );
    let options = &schemas["NewTournament"]["properties"]["options"];
    assert!(options.to_string().contains("GameOptions"), "{options}");
    assert!(schemas["Said"]["properties"]["text"].is_object());
    assert!(schemas["Said"]["properties"].get("author").is_none());
    let proof = json!({"provider": "google", "id_token": "x", "nonce": "y"});
    let both = json!({"password": "a long password", "identity": proof});
    let deletion = app
        .request("POST", "/v1/me/deletion", Some(&alice), Some(both), &[])
        .await;
    assert_eq!(deletion.status, 422, "{}", deletion.body);
    // An empty or over-long token breaks the form (400); a blank one of
    // the documented form was never sent, so it is spent (410).
    let long = "a".repeat(2049);
    for (token, status) in [("", 400), (long.as_str(), 400), (" ", 410)] {
        let reset = complete(&app, token, "a long password").await;
        assert_eq!(reset.status, status, "{}", reset.body);
    }
    // A proof with no address to confirm is refused for its meaning.
    let proof = json!({"identity": {"provider": "apple", "id_token": "x", "nonce": "y"}});
    let alone = app
        .request("PATCH", "/v1/me", Some(&alice), Some(proof), &[])
        .await;
    assert_eq!(alone.status, 422, "{}", alone.body);
    assert_eq!(app.get("/v1/me", &alice).await.status, 200, "not deleted");
    app.stop().await;
}
