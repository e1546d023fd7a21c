//! Accounts and sessions (issue #30, 9–11): addresses verified before any
//! mail but the link reaches them, no answer that tells a registered
//! address from a free one, and sessions that really end.

use crate::smtp::SmtpServer;
use crate::support::{Reply, TestApp};
use posthorn::jobs::delivery::deliver_due;
use serde_json::json;

pub(crate) async fn app_with_smtp(smtp: &SmtpServer) -> TestApp {
    TestApp::start_with(posthorn::config::Config {
        smtp_url: Some(smtp.url()),
        ..Default::default()
    })
    .await
}

pub(crate) async fn deliver(app: &TestApp) {
    app.blocking(|s| deliver_due(&s.courier())).await.unwrap();
}

/// The mails sent to `address`, soft line breaks joined.
pub(crate) fn mails_to(smtp: &SmtpServer, address: &str) -> Vec<String> {
    smtp.messages()
        .into_iter()
        .filter(|m| {
            m.lines()
                .any(|l| l.starts_with("To:") && l.contains(address))
        })
        .map(|m| m.replace("=\r\n", "").replace("=3D", "="))
        .collect()
}

/// The token of the verification link in `mail`.
pub(crate) fn link_token(mail: &str) -> String {
    let start = mail.find("/verify-email#").expect("a verification link") + "/verify-email#".len();
    mail[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect()
}

async fn sign_up(app: &TestApp, name: &str, email: &str) -> Reply {
    let body = json!({"username": name, "password": "a long password", "email": email});
    app.request("POST", "/v1/accounts", None, Some(body), &[])
        .await
}

/// Issue #30, 9: an address given at sign-up receives its link and
/// nothing else until the link is opened; then it is the account's.
#[actix_web::test]
async fn an_unverified_address_receives_only_its_link_until_it_is_opened() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    let erin = sign_up(&app, "erin", "erin@example.test").await;
    assert_eq!(erin.status, 201, "{}", erin.body);
    let erin = erin.body["access_token"].as_str().unwrap().to_owned();
    let me = app.get("/v1/me", &erin).await.body;
    assert_eq!(
        (me["email"].clone(), me["email_pending"].clone()),
        (json!(null), json!("erin@example.test"))
    );
    // A challenge while the address waits: its mail does not go there.
    app.challenge(
        "/v1/matches",
        &alice,
        json!({"game": "checkers", "opponents": ["erin"]}),
    )
    .await;
    deliver(&app).await;
    let mails = mails_to(&smtp, "erin@example.test");
    assert_eq!(mails.len(), 1, "only the link: {mails:?}");
    assert!(mails[0].contains("Confirm"), "{}", mails[0]);
    assert!(!mails[0].contains("List-Unsubscribe"));
    // The address cannot sign in before it is verified.
    let by_email = app
        .request(
            "POST",
            "/v1/sessions",
            None,
            Some(json!({"login": "erin@example.test", "password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(by_email.status, 401);

    let token = link_token(&mails[0]);
    let opened = app
        .request(
            "POST",
            "/v1/email-verifications",
            None,
            Some(json!({"token": token})),
            &[],
        )
        .await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    let me = app.get("/v1/me", &erin).await.body;
    assert_eq!(me["email"], "erin@example.test");
    assert!(me.get("email_pending").is_none(), "{me}");
    // Used once: a second opening finds nothing waiting.
    let again = app
        .request(
            "POST",
            "/v1/email-verifications",
            None,
            Some(json!({"token": token})),
            &[],
        )
        .await;
    assert_eq!(again.status, 404);
    // A forged or expired link is refused.
    let forged = app
        .request(
            "POST",
            "/v1/email-verifications",
            None,
            Some(json!({"token": "e30.e30.AAAA"})),
            &[],
        )
        .await;
    assert_eq!(forged.status, 404);

    app.challenge(
        "/v1/matches",
        &alice,
        json!({"game": "checkers", "opponents": ["erin"]}),
    )
    .await;
    deliver(&app).await;
    assert_eq!(
        mails_to(&smtp, "erin@example.test").len(),
        2,
        "now the invitation arrives"
    );
    app.stop().await;
}

/// Issue #30, 10: sign-up and `PATCH /v1/me` answer alike whether or not
/// the address is registered; the address's owner is told instead.
#[actix_web::test]
async fn a_registered_address_is_answered_like_a_free_one_and_its_owner_is_told() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    app.register("frank").await; // frank@example.test, verified
    let gina = app.register("gina").await;
    let patch = |email: &str| {
        let body = json!({"email": email, "password": "a long password"});
        app.request("PATCH", "/v1/me", Some(&gina), Some(body), &[])
    };
    let taken = patch("frank@example.test").await;
    let free = patch("nobody@example.test").await;
    assert_eq!(
        (taken.status, free.status),
        (free.status, awc::http::StatusCode::OK)
    );
    let keys = |r: &Reply| {
        let mut k: Vec<String> = r.body.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&taken), keys(&free));
    assert_eq!(taken.body["email_pending"], "frank@example.test");
    let signed_up = sign_up(&app, "hank", "frank@example.test").await;
    assert_eq!(signed_up.status, 201, "{}", signed_up.body);

    deliver(&app).await;
    let to_frank = mails_to(&smtp, "frank@example.test");
    assert_eq!(to_frank.len(), 2, "one word per attempt: {to_frank:?}");
    for mail in &to_frank {
        assert!(mail.contains("already belongs"), "{mail}");
        assert!(
            !mail.contains("/verify-email#"),
            "no link for someone else's address"
        );
    }
    assert_eq!(mails_to(&smtp, "nobody@example.test").len(), 1);
    app.stop().await;
}

async fn sign_in(app: &TestApp, password: &str) -> Reply {
    let body = json!({"login": "alice", "password": password});
    app.request("POST", "/v1/sessions", None, Some(body), &[])
        .await
}

fn tokens(session: &Reply) -> (String, String) {
    let t = |k: &str| session.body[k].as_str().unwrap().to_owned();
    (t("access_token"), t("refresh_token"))
}

async fn refresh(app: &TestApp, token: &str) -> Reply {
    let body = json!({"refresh_token": token});
    app.request("POST", "/v1/sessions/refresh", None, Some(body), &[])
        .await
}

/// Issue #30, 11: signing out, signing out everywhere and a new password
/// end sessions for their access tokens too, at once on this instance.
#[actix_web::test]
async fn ended_sessions_stop_their_access_tokens_at_once() {
    let app = TestApp::start().await;
    let first = app.register("alice").await;
    let (second, _) = tokens(&sign_in(&app, "a long password").await);
    let signed_out = app
        .request("DELETE", "/v1/sessions/current", Some(&first), None, &[])
        .await;
    assert_eq!(signed_out.status, 204);
    assert_eq!(app.get("/v1/me", &first).await.status, 401, "ended at once");
    assert_eq!(
        app.get("/v1/me", &second).await.status,
        200,
        "the other goes on"
    );

    // A new password ends every other session, access and refresh.
    let (third, third_refresh) = tokens(&sign_in(&app, "a long password").await);
    let wrong = app
        .post(
            "/v1/me/password",
            &second,
            json!({"current_password": "guess", "new_password": "a newer password"}),
        )
        .await;
    assert_eq!(wrong.status, 401);
    let changed = app
        .post(
            "/v1/me/password",
            &second,
            json!({"current_password": "a long password", "new_password": "a newer password"}),
        )
        .await;
    assert_eq!(changed.status, 204, "{}", changed.body);
    assert_eq!(app.get("/v1/me", &third).await.status, 401);
    assert_eq!(refresh(&app, &third_refresh).await.status, 401);
    assert_eq!(
        app.get("/v1/me", &second).await.status,
        200,
        "the changer stays"
    );
    assert_eq!(sign_in(&app, "a long password").await.status, 401);
    let (fourth, fourth_refresh) = tokens(&sign_in(&app, "a newer password").await);

    // Everywhere: this session and every other.
    let everywhere = app
        .request("DELETE", "/v1/sessions", Some(&second), None, &[])
        .await;
    assert_eq!(everywhere.status, 204);
    for token in [&second, &fourth] {
        assert_eq!(app.get("/v1/me", token).await.status, 401);
    }
    assert_eq!(refresh(&app, &fourth_refresh).await.status, 401);
    app.stop().await;
}

/// Another instance learns of an ended session by the reading its job does
/// every `REFRESH_EVERY` (two seconds), one indexed query.
#[actix_web::test]
async fn another_instance_refuses_an_ended_session_after_its_next_reading() {
    let app = TestApp::start().await;
    let other = app.sibling().await;
    let token = app.register("alice").await;
    assert_eq!(other.get("/v1/me", &token).await.status, 200);
    app.request("DELETE", "/v1/sessions", Some(&token), None, &[])
        .await;
    other
        .blocking(|s| {
            let mut conn = s.pool.get().unwrap();
            s.revoked
                .refresh(
                    &mut conn,
                    s.clock.now(),
                    s.config.access_token_seconds,
                    posthorn::accounts::ended_since,
                )
                .unwrap()
        })
        .await;
    let after = other.get("/v1/me", &token).await;
    assert_eq!((after.status.as_u16(), after.code()), (401, "unauthorized"));
    other.stop_instance().await;
    app.stop().await;
}

/// Issue #47, 1: a page's reads (and its tabs) refreshing at once with the
/// one refresh token they share. Every racer within the reuse interval
/// (60 s) gets the same new refresh token and a working access token; the
/// session goes on. The old token presented after the interval is a stolen
/// copy: the session ends, its access tokens with it.
#[actix_web::test]
async fn concurrent_refreshes_with_one_token_keep_the_session_and_a_late_reuse_ends_it() {
    let app = TestApp::start().await;
    app.register("alice").await;
    let (_, first) = tokens(&sign_in(&app, "a long password").await);
    // Coming back after the access token expired.
    app.clock.advance(chrono::Duration::minutes(16));
    let other = tokens(&sign_in(&app, "a long password").await).0;

    let replies = futures_util::future::join_all((0..50).map(|_| refresh(&app, &first))).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses, vec![200; 50], "{:?}", replies[0].body);
    let mut successors: Vec<String> = replies.iter().map(|r| tokens(r).1).collect();
    successors.dedup();
    assert_eq!(successors.len(), 1, "every racer holds the one live token");
    let successor = successors.remove(0);
    assert_ne!(successor, first);
    for reply in [&replies[0], &replies[49]] {
        assert_eq!(app.get("/v1/me", &tokens(reply).0).await.status, 200);
    }
    let family = "SELECT count(*) AS n FROM refresh_tokens WHERE family = \
         (SELECT family FROM refresh_tokens WHERE spent_at IS NOT NULL LIMIT 1)"
        .to_owned();
    assert_eq!(app.count(family.clone()).await, 2, "one rotation, not 50");

    // Still within the interval, a late racer gets the same token...
    app.clock.advance(chrono::Duration::seconds(30));
    let late = refresh(&app, &first).await;
    assert_eq!(
        (late.status.as_u16(), tokens(&late).1),
        (200, successor.clone())
    );
    // ...and, once the session rotated again, the live one.
    let rotated = refresh(&app, &successor).await;
    assert_eq!(rotated.status, 200, "{}", rotated.body);
    let (access, live) = tokens(&rotated);
    assert_ne!(live, successor);
    let later = refresh(&app, &first).await;
    assert_eq!(
        (later.status.as_u16(), tokens(&later).1),
        (200, live.clone())
    );
    assert_eq!(
        app.get("/v1/me", &access).await.status,
        200,
        "still signed in"
    );
    assert_eq!(app.count(family).await, 3);

    // After the interval the first token is a stolen copy: the session ends.
    app.clock.advance(chrono::Duration::seconds(31));
    let stolen = refresh(&app, &first).await;
    assert_eq!(
        (stolen.status.as_u16(), stolen.code()),
        (401, "unauthorized")
    );
    assert_eq!(refresh(&app, &live).await.status, 401, "the family ended");
    assert_eq!(app.get("/v1/me", &access).await.status, 401, "at once");
    assert_eq!(
        app.get("/v1/me", &other).await.status,
        200,
        "other sessions go on"
    );
    app.stop().await;
}
