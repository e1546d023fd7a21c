//! Limits that hold (issue #30, 3–6): counted atomically, per account
//! whatever name reaches it and per address, by sends rather than by
//! what is pending.

use crate::support::{Reply, TestApp};
use posthorn::limits::Limit;
use serde_json::json;

async fn sign_in(app: &TestApp, login: &str, password: &str, from: &str) -> Reply {
    let body = json!({"login": login, "password": password});
    app.request(
        "POST",
        "/v1/sessions",
        None,
        Some(body),
        &[("X-Forwarded-For", from)],
    )
    .await
}

/// 24 wrong passwords at once from one address meet the limit one after
/// another: exactly 10 are checked, 14 refused; the owner, elsewhere,
/// still signs in; username, email and case share one count.
#[actix_web::test]
async fn sign_in_failures_are_counted_atomically_per_account_and_address() {
    let app = TestApp::start().await;
    app.register("carol").await;
    let attacker = "203.0.113.9";
    let tries = (0..24).map(|_| sign_in(&app, "carol", "guessing", attacker));
    let replies = futures_util::future::join_all(tries).await;
    let count = |status: u16| {
        replies
            .iter()
            .filter(|r| r.status.as_u16() == status)
            .count()
    };
    let allowed = Limit::SignInAccountAddress.allowed() as usize;
    assert_eq!((count(401), count(429)), (allowed, 24 - allowed));
    // Even the right password waits, from the hammering address…
    assert_eq!(
        sign_in(&app, "carol", "a long password", attacker)
            .await
            .status,
        429
    );
    // …but the owner on their own device signs in.
    assert_eq!(
        sign_in(&app, "carol", "a long password", "198.51.100.20")
            .await
            .status,
        201
    );

    // From a third address: the username, its case and the email are
    // one account.
    let third = "192.0.2.30";
    for login in ["carol", "CAROL", "carol@example.test"]
        .iter()
        .cycle()
        .take(allowed)
    {
        assert_eq!(
            sign_in(&app, login, "guessing", third).await.status,
            401,
            "{login}"
        );
    }
    let by_email = sign_in(&app, "carol@example.test", "a long password", third).await;
    assert_eq!(
        (by_email.status.as_u16(), by_email.code()),
        (429, "rate_limited")
    );
    app.stop().await;
}

/// Issue #30, 4: challenges (unanswered per pair, unaccepted per day), guests
/// who name players, guests per address, and invitation look-ups per
/// address (unknown codes count: guessing is what they stop).
#[actix_web::test]
async fn challenges_guests_and_invitation_look_ups_are_limited() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let challenge = || {
        app.challenge(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
    };
    let mut sent = Vec::new();
    for _ in 0..posthorn::lobby::challenge::PENDING_PER_PAIR {
        let reply = challenge().await;
        assert_eq!(reply.status, 201, "{}", reply.body);
        sent.push(reply.body["id"].as_str().unwrap().to_owned());
    }
    let one_too_many = challenge().await;
    assert_eq!(
        (one_too_many.status.as_u16(), one_too_many.code()),
        (429, "rate_limited")
    );
    // Declined, they stop waiting, but still count for the day; accepted
    // ones do not (a friend who said yes was not spammed).
    for id in &sent {
        let declined = app
            .request(
                "POST",
                &format!("/v1/matches/{id}/decline"),
                Some(&bob),
                None,
                &[],
            )
            .await;
        assert_eq!(declined.status, 200, "{}", declined.body);
    }
    let accepted = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await;
    assert_eq!(accepted.body["status"], "active", "{}", accepted.body);
    let left = Limit::Challenge.allowed() - sent.len() as i64;
    let mut strangers = Vec::new();
    for n in 0..=left {
        let token = app.guest(&format!("Stranger {n}")).await;
        strangers.push(
            app.get("/v1/me", &token).await.body["username"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    for (n, name) in strangers.iter().enumerate() {
        let reply = app
            .challenge(
                "/v1/matches",
                &alice,
                json!({"game": "checkers", "opponents": [name]}),
            )
            .await;
        let expected = if (n as i64) < left { 201 } else { 429 };
        assert_eq!(
            reply.status.as_u16(),
            expected,
            "challenge {n}: {}",
            reply.body
        );
    }
    // A refused challenge sent nothing: the invitations are the ones made.
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let invitations = app
        .blocking(|s| {
            use diesel::RunQueryDsl;
            diesel::sql_query("SELECT count(*) AS n FROM notices WHERE kind = 'invitation'")
                .get_result::<Count>(&mut s.pool.get().unwrap())
                .unwrap()
                .n
        })
        .await;
    assert_eq!(
        invitations,
        Limit::Challenge.allowed() + 1,
        "and one accepted"
    );

    // Guests share links; they do not name players.
    let guest = app.guest("Pat").await;
    let named = app
        .challenge(
            "/v1/matches",
            &guest,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await;
    assert_eq!((named.status.as_u16(), named.code()), (403, "forbidden"));

    // Guests per address.
    let from = [("X-Forwarded-For", "203.0.113.40")];
    for n in 0..Limit::GuestFromAddress.allowed() {
        let body = json!({"nickname": format!("Visitor {n}")});
        assert_eq!(
            app.request("POST", "/v1/guests", None, Some(body), &from)
                .await
                .status,
            201
        );
    }
    let more = app
        .request(
            "POST",
            "/v1/guests",
            None,
            Some(json!({"nickname": "One more"})),
            &from,
        )
        .await;
    assert_eq!((more.status.as_u16(), more.code()), (429, "rate_limited"));

    // Invitation look-ups and accepts per address, unknown codes included.
    let from = [("X-Forwarded-For", "203.0.113.41")];
    for _ in 0..Limit::InvitePreview.allowed() {
        let guess = app
            .request("GET", "/v1/invites/ABCDEFGHJK", None, None, &from)
            .await;
        assert_eq!(guess.status, 404);
    }
    let guess = app
        .request("GET", "/v1/invites/ABCDEFGHJK", None, None, &from)
        .await;
    assert_eq!((guess.status.as_u16(), guess.code()), (429, "rate_limited"));
    for _ in 0..Limit::InviteAccept.allowed() {
        let guess = app
            .request(
                "POST",
                "/v1/invites/ABCDEFGHJK/accept",
                Some(&alice),
                None,
                &from,
            )
            .await;
        assert_eq!(guess.status, 404);
    }
    let guess = app
        .request(
            "POST",
            "/v1/invites/ABCDEFGHJK/accept",
            Some(&alice),
            None,
            &from,
        )
        .await;
    assert_eq!((guess.status.as_u16(), guess.code()), (429, "rate_limited"));
    app.stop().await;
}

/// Issue #30, 5: sending, withdrawing and sending again spends the
/// allowance: sends are counted, not pending requests.
#[actix_web::test]
async fn withdrawing_a_friend_request_does_not_give_the_send_back() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    app.register("bob").await;
    for cycle in 0..Limit::FriendRequestPair.allowed() {
        let sent = app
            .post("/v1/friends/requests", &alice, json!({"username": "bob"}))
            .await;
        assert_eq!(sent.status, 201, "cycle {cycle}: {}", sent.body);
        let withdrawn = app
            .request("DELETE", "/v1/friends/bob", Some(&alice), None, &[])
            .await;
        assert!(withdrawn.status.is_success(), "{}", withdrawn.body);
    }
    let again = app
        .post("/v1/friends/requests", &alice, json!({"username": "bob"}))
        .await;
    assert_eq!((again.status.as_u16(), again.code()), (429, "rate_limited"));
    app.stop().await;
}

/// Issue #30, 6: one player cannot fill everyone's list of seeks.
#[actix_web::test]
async fn a_player_has_at_most_a_few_open_seeks() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let cap = posthorn::lobby::seeks::OPEN_SEEKS_PER_PLAYER;
    for hours in (0..cap).map(|n| 24 + 12 * n) {
        let posted = app
            .challenge(
                "/v1/seeks",
                &alice,
                json!({"game": "checkers", "turn_hours": hours}),
            )
            .await;
        assert_eq!(posted.status, 201, "{}", posted.body);
    }
    let more = app
        .challenge(
            "/v1/seeks",
            &alice,
            json!({"game": "checkers", "turn_hours": 200}),
        )
        .await;
    assert_eq!((more.status.as_u16(), more.code()), (429, "rate_limited"));
    let bob = app.register("bob").await;
    let listed = app.get("/v1/seeks?game=checkers", &bob).await.body;
    assert_eq!(
        listed.as_array().map(Vec::len),
        Some(cap as usize),
        "{listed}"
    );
    app.stop().await;
}

async fn sign_up(app: &TestApp, username: &str, from: &str) -> Reply {
    let body = json!({"username": username, "password": "a long password"});
    app.request(
        "POST",
        "/v1/accounts",
        None,
        Some(body),
        &[("X-Forwarded-For", from)],
    )
    .await
}

/// Issue #46, 5: sign-ups are limited per address like guests, and hold
/// when 20 arrive at once: exactly the allowance is made, the rest are
/// `429 rate_limited`; another address still signs up.
#[actix_web::test]
async fn sign_ups_are_limited_per_address_even_all_at_once() {
    let app = TestApp::start().await;
    let from = "203.0.113.50";
    let names: Vec<String> = (0..20).map(|n| format!("signup{n}")).collect();
    let replies =
        futures_util::future::join_all(names.iter().map(|name| sign_up(&app, name, from))).await;
    let made = replies.iter().filter(|r| r.status == 201).count();
    let refused = replies
        .iter()
        .filter(|r| (r.status.as_u16(), r.code()) == (429, "rate_limited"))
        .count();
    let allowed = Limit::SignUpFromAddress.allowed() as usize;
    assert_eq!((made, refused), (allowed, 20 - allowed));
    let elsewhere = sign_up(&app, "elsewhere", "198.51.100.77").await;
    assert_eq!(elsewhere.status, 201, "{}", elsewhere.body);
    // A refused name costs nothing: a look-alike is refused before the
    // limit is taken, so the count on a fresh address stays whole.
    let fresh = "192.0.2.99";
    let look_alike = sign_up(&app, "e1sewhere", fresh).await;
    assert_eq!(look_alike.status, 422, "{}", look_alike.body);
    for n in 0..allowed {
        let reply = sign_up(&app, &format!("fresh{n}"), fresh).await;
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    app.stop().await;
}

/// Issue #46, 5: an IPv6 client is keyed by its /64, so the addresses of
/// one subscriber's block share one allowance; the next block does not.
#[actix_web::test]
async fn ipv6_sign_ups_and_guests_are_counted_per_64() {
    let app = TestApp::start().await;
    let allowed = Limit::SignUpFromAddress.allowed();
    for n in 0..allowed {
        let from = format!("2001:db8:46:1:{n:x}::1");
        let reply = sign_up(&app, &format!("six{n}"), &from).await;
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    let same_block = sign_up(&app, "sixmore", "2001:db8:46:1:ffff::9").await;
    assert_eq!(
        (same_block.status.as_u16(), same_block.code()),
        (429, "rate_limited")
    );
    let next_block = sign_up(&app, "sixnext", "2001:db8:46:2::1").await;
    assert_eq!(next_block.status, 201, "{}", next_block.body);
    // Guests share the keying: the guest limit counts the block too.
    for n in 0..Limit::GuestFromAddress.allowed() {
        let from = format!("2001:db8:46:3:{n:x}::1");
        let reply = app
            .request(
                "POST",
                "/v1/guests",
                None,
                Some(json!({"nickname": format!("Six {n}")})),
                &[("X-Forwarded-For", &from)],
            )
            .await;
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    let guest = app
        .request(
            "POST",
            "/v1/guests",
            None,
            Some(json!({"nickname": "Six more"})),
            &[("X-Forwarded-For", "2001:db8:46:3::abcd")],
        )
        .await;
    assert_eq!(guest.status, 429, "{}", guest.body);
    app.stop().await;
}
