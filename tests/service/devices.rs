//! Issue #47, item 8: my sessions (the devices signed in, one ended from
//! another) and a changed address that tells the address it replaces.

use crate::sessions::{app_with_smtp, deliver, link_token, mails_to};
use crate::smtp::SmtpServer;
use crate::support::TestApp;
use serde_json::{json, Value};

const PHONE: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const LAPTOP: &str =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

async fn sign_in_from(app: &TestApp, agent: &str) -> (String, String) {
    let body = json!({"login": "mina", "password": "a long password"});
    let reply = app
        .request(
            "POST",
            "/v1/sessions",
            None,
            Some(body),
            &[("User-Agent", agent)],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let field = |f: &str| reply.body[f].as_str().unwrap().to_owned();
    (field("access_token"), field("refresh_token"))
}

#[actix_web::test]
async fn my_sessions_name_each_device_and_one_device_signs_another_out() {
    let app = TestApp::start().await;
    app.register("mina").await;
    let (phone, _) = sign_in_from(&app, PHONE).await;
    let (laptop, laptop_refresh) = sign_in_from(&app, LAPTOP).await;
    let listed = app.get("/v1/me/sessions", &phone).await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    let sessions = listed.body["sessions"].as_array().unwrap().clone();
    // The sign-up's session, the phone and the laptop.
    assert_eq!(sessions.len(), 3, "{sessions:?}");
    let named = |device: &str| {
        sessions
            .iter()
            .find(|s| s["device"] == device)
            .unwrap_or_else(|| panic!("{device} in {sessions:?}"))
            .clone()
    };
    assert_eq!(named("Chrome · Android")["current"], true);
    let laptop_session = named("Firefox · Windows");
    assert_eq!(laptop_session["current"], false);

    // Someone else cannot end it (not found), and the laptop still works.
    let other = app.register("other").await;
    let id = laptop_session["id"].as_str().unwrap();
    let theirs = app
        .request(
            "DELETE",
            &format!("/v1/me/sessions/{id}"),
            Some(&other),
            None,
            &[],
        )
        .await;
    assert_eq!(theirs.status, 404, "{}", theirs.body);
    assert_eq!(app.get("/v1/me", &laptop).await.status, 200);

    // The phone signs the laptop out: its access token at once, its
    // refresh token for good; the phone stays in.
    let ended = app
        .request(
            "DELETE",
            &format!("/v1/me/sessions/{id}"),
            Some(&phone),
            None,
            &[],
        )
        .await;
    assert_eq!(ended.status, 204, "{}", ended.body);
    assert_eq!(app.get("/v1/me", &laptop).await.status, 401);
    let refreshed = app
        .request(
            "POST",
            "/v1/sessions/refresh",
            None,
            Some(json!({"refresh_token": laptop_refresh})),
            &[],
        )
        .await;
    assert_eq!(refreshed.status, 401, "{}", refreshed.body);
    assert_eq!(app.get("/v1/me", &phone).await.status, 200);
    let left = app.get("/v1/me/sessions", &phone).await.body;
    assert_eq!(left["sessions"].as_array().unwrap().len(), 2, "{left}");
    let again = app
        .request(
            "DELETE",
            &format!("/v1/me/sessions/{id}"),
            Some(&phone),
            None,
            &[],
        )
        .await;
    assert_eq!(again.status, 404, "an ended session is gone");
    app.stop().await;
}

#[actix_web::test]
async fn a_new_address_is_confirmed_before_it_counts_and_the_old_one_is_told() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let mina = app.register("mina").await;
    let changed = app
        .request(
            "PATCH",
            "/v1/me",
            Some(&mina),
            Some(json!({"email": "mina.new@example.test", "password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(changed.status, 200, "{}", changed.body);
    // Until the new address is confirmed, the old one is the account's.
    assert_eq!(changed.body["email"], "mina@example.test");
    assert_eq!(changed.body["email_pending"], "mina.new@example.test");
    deliver(&app).await;
    assert!(mails_to(&smtp, "mina@example.test").is_empty());
    let link = mails_to(&smtp, "mina.new@example.test");
    assert_eq!(link.len(), 1, "{link:?}");
    let opened = app
        .request(
            "POST",
            "/v1/email-verifications",
            None,
            Some(json!({"token": link_token(&link[0])})),
            &[],
        )
        .await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    assert_eq!(
        app.get("/v1/me", &mina).await.body["email"],
        "mina.new@example.test"
    );
    deliver(&app).await;
    let told = mails_to(&smtp, "mina@example.test");
    assert_eq!(told.len(), 1, "the old address is told: {told:?}");
    assert!(
        told[0].contains("no longer your Posthorn account"),
        "{}",
        told[0]
    );
    // It names no link and not the new address: whoever changed it may
    // not be the owner, and the owner only needs to know it happened.
    assert!(!told[0].contains("mina.new@"), "{}", told[0]);
    app.stop().await;
}

/// Issue #47 (review): removing the address tells it, as replacing it
/// does; an address added again waits for its link.
#[actix_web::test]
async fn a_removed_address_is_told_and_one_added_again_waits_for_its_link() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let mina = app.register("mina").await;
    let removed = app
        .request(
            "PATCH",
            "/v1/me",
            Some(&mina),
            Some(json!({"email": null, "password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(removed.status, 200, "{}", removed.body);
    assert_eq!(removed.body["email"], Value::Null);
    deliver(&app).await;
    let told = mails_to(&smtp, "mina@example.test");
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(
        told[0].contains("This address was removed from your Posthorn account"),
        "{}",
        told[0]
    );
    let added = app
        .request(
            "PATCH",
            "/v1/me",
            Some(&mina),
            Some(json!({"email": "mina@example.test", "password": "a long password"})),
            &[],
        )
        .await;
    assert_eq!(added.status, 200, "{}", added.body);
    assert_eq!(added.body["email"], Value::Null);
    assert_eq!(added.body["email_pending"], "mina@example.test");
    deliver(&app).await;
    let mails = mails_to(&smtp, "mina@example.test");
    assert_eq!(mails.len(), 2, "{mails:?}");
    assert!(mails[1].contains("/verify-email#"), "{}", mails[1]);
    app.stop().await;
}
