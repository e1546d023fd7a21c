//! Forgotten passwords (issue #47, item 4): a link mailed through a real
//! SMTP server sets a new password once, within an hour, and ends every
//! session; an address nobody has is answered alike and mailed nothing;
//! the limits hold, also at once.

use crate::sessions::mails_to;
use crate::smtp::SmtpServer;
use crate::support::{Reply, TestApp};
use chrono::Duration;
use posthorn::accounts::password_resets::Mailer;
use posthorn::jobs::delivery::deliver_due;
use posthorn::jobs::one_off::run_due;
use posthorn::limits::Limit;
use serde_json::json;

pub(crate) async fn app_with_smtp(smtp: &SmtpServer) -> TestApp {
    TestApp::start_with(posthorn::config::Config {
        smtp_url: Some(smtp.url()),
        ..Default::default()
    })
    .await
}

/// Run the queued work (the job that looks the address up), then the
/// outbox (the mail), as the service's ticks do.
pub(crate) async fn mail_due(app: &TestApp) {
    app.blocking(|s| {
        let mailer = Mailer {
            keys: s.keys.clone(),
        };
        run_due(&s.pool, &[&mailer], s.clock.now()).unwrap();
        deliver_due(&s.courier()).unwrap();
    })
    .await;
}

/// The token of the reset link in `mail`.
fn link_token(mail: &str) -> String {
    let start = mail.find("/reset-password#").expect("a reset link") + "/reset-password#".len();
    mail[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .collect()
}

pub(crate) async fn ask(app: &TestApp, email: &str, from: &str) -> Reply {
    app.request(
        "POST",
        "/v1/password-resets",
        None,
        Some(json!({"email": email})),
        &[("X-Forwarded-For", from)],
    )
    .await
}

pub(crate) async fn complete(app: &TestApp, token: &str, password: &str) -> Reply {
    app.request(
        "POST",
        "/v1/password-resets/complete",
        None,
        Some(json!({"token": token, "password": password})),
        &[],
    )
    .await
}

async fn sign_in(app: &TestApp, login: &str, password: &str) -> Reply {
    let body = json!({"login": login, "password": password});
    app.request("POST", "/v1/sessions", None, Some(body), &[])
        .await
}

/// Ask for alice's link and return its token.
async fn mailed_token(app: &TestApp, smtp: &SmtpServer, from: &str) -> String {
    let before = mails_to(smtp, "alice@example.test").len();
    assert_eq!(ask(app, "alice@example.test", from).await.status, 202);
    mail_due(app).await;
    let mails = mails_to(smtp, "alice@example.test");
    assert_eq!(mails.len(), before + 1, "one more mail: {mails:?}");
    link_token(mails.last().unwrap())
}

#[actix_web::test]
async fn a_forgotten_password_is_reset_by_the_mailed_link_and_every_session_ends() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let laptop = app.register("alice").await;
    let phone = sign_in(&app, "alice", "a long password").await;
    assert_eq!(phone.status, 201);

    // Asked in any case: the verified address is found, and its link sent.
    assert_eq!(
        ask(&app, "Alice@Example.test", "198.51.100.1").await.status,
        202
    );
    mail_due(&app).await;
    let mails = mails_to(&smtp, "alice@example.test");
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert!(
        mails[0].contains("Set a new Posthorn password"),
        "{}",
        mails[0]
    );
    assert!(!mails[0].contains("List-Unsubscribe"));
    let token = link_token(&mails[0]);
    // Only the token's hash is stored.
    let stored = app
        .count(format!(
            "SELECT count(*) AS n FROM password_resets WHERE token_hash = sha256('{token}'::bytea)"
        ))
        .await;
    assert_eq!(stored, 1);

    let reset = complete(&app, &token, "a brand new password").await;
    assert_eq!(reset.status, 201, "{}", reset.body);
    assert_eq!(reset.body["user"]["username"], "alice");
    let fresh = reset.body["access_token"].as_str().unwrap();
    assert_eq!(app.get("/v1/me", fresh).await.status, 200);

    // The new password signs in, the old one no longer does.
    assert_eq!(
        sign_in(&app, "alice", "a brand new password").await.status,
        201
    );
    assert_eq!(sign_in(&app, "alice", "a long password").await.status, 401);
    // Every session that was open has ended: access and refresh tokens.
    assert_eq!(app.get("/v1/me", &laptop).await.status, 401);
    let phone_access = phone.body["access_token"].as_str().unwrap();
    assert_eq!(app.get("/v1/me", phone_access).await.status, 401);
    let refresh = app
        .request(
            "POST",
            "/v1/sessions/refresh",
            None,
            Some(json!({"refresh_token": phone.body["refresh_token"]})),
            &[],
        )
        .await;
    assert_eq!(refresh.status, 401);

    // Used once: the same link again is refused, and changes nothing.
    let again = complete(&app, &token, "yet another password").await;
    assert_eq!(
        (again.status.as_u16(), again.code()),
        (410, "reset_link_expired")
    );
    assert_eq!(
        sign_in(&app, "alice", "a brand new password").await.status,
        201
    );
    // A link the service never sent is refused alike.
    let forged = complete(
        &app,
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "whatever it is",
    )
    .await;
    assert_eq!(
        (forged.status.as_u16(), forged.code()),
        (410, "reset_link_expired")
    );
}

#[actix_web::test]
async fn a_link_works_for_an_hour_and_a_password_too_short_is_refused() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    app.register("alice").await;
    let token = mailed_token(&app, &smtp, "198.51.100.1").await;
    // The rules of sign-up, before the link is spent.
    let short = complete(&app, &token, "short").await;
    assert_eq!(
        (short.status.as_u16(), short.code()),
        (400, "validation_failed")
    );

    app.clock.advance(Duration::minutes(61));
    let late = complete(&app, &token, "a brand new password").await;
    assert_eq!(
        (late.status.as_u16(), late.code()),
        (410, "reset_link_expired")
    );
    assert_eq!(sign_in(&app, "alice", "a long password").await.status, 201);

    // A new link works. Asked again while it is open, the same link is
    // mailed again (issue #65: asking never makes two); used, it is spent,
    // and the next request makes a new one.
    let first = mailed_token(&app, &smtp, "198.51.100.1").await;
    let second = mailed_token(&app, &smtp, "198.51.100.1").await;
    assert_eq!(first, second);
    assert_eq!(
        complete(&app, &second, "a brand new password").await.status,
        201
    );
    let again = complete(&app, &first, "yet another password").await;
    assert_eq!(again.status, 410);
    let third = mailed_token(&app, &smtp, "198.51.100.4").await;
    assert_ne!(third, first);
}

#[actix_web::test]
async fn an_address_nobody_has_is_answered_alike_and_mailed_nothing() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    app.register("alice").await;
    // An address waiting for its verification is nobody's yet either.
    let pending =
        json!({"username": "erin", "password": "a long password", "email": "erin@example.test"});
    app.request("POST", "/v1/accounts", None, Some(pending), &[])
        .await;
    mail_due(&app).await;
    let sent_before = smtp.messages().len();

    let jobs = || app.count("SELECT count(*) AS n FROM jobs".into());
    let before = jobs().await;
    let known = ask(&app, "alice@example.test", "198.51.100.1").await;
    let after_known = jobs().await;
    let unknown = ask(&app, "nobody@example.test", "198.51.100.2").await;
    let after_unknown = jobs().await;
    let unverified = ask(&app, "erin@example.test", "198.51.100.3").await;
    // The same answer: status, body and headers (but the date and the
    // request's id).
    for other in [&unknown, &unverified] {
        assert_eq!(other.status, known.status);
        assert_eq!(other.body, known.body);
        let names = |r: &Reply| {
            let mut n: Vec<String> = (r.headers.keys())
                .filter(|k| !matches!(k.as_str(), "date" | "x-request-id"))
                .map(|k| format!("{k}: {:?}", r.headers.get(k).unwrap()))
                .collect();
            n.sort();
            n
        };
        assert_eq!(names(other), names(&known));
    }
    assert_eq!(known.status, 202);
    // The same work: one job queued for each, whoever the address is.
    assert_eq!((after_known - before, after_unknown - after_known), (1, 1));

    mail_due(&app).await;
    let sent: Vec<String> = smtp.messages()[sent_before..].to_vec();
    assert_eq!(sent.len(), 1, "only alice's link: {sent:?}");
    assert!(mails_to(&smtp, "nobody@example.test").is_empty());
    assert_eq!(
        mails_to(&smtp, "erin@example.test").len(),
        1,
        "only its verification link"
    );
    // The addresses asked for are not kept once the jobs have run.
    let kept = app
        .count("SELECT count(*) AS n FROM jobs WHERE payload::text LIKE '%example.test%'".into())
        .await;
    assert_eq!(kept, 0);
}

#[actix_web::test]
async fn a_korean_account_gets_its_link_in_korean() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let body = json!({"username": "minji", "password": "a long password", "locale": "ko-KR"});
    let reply = app
        .request("POST", "/v1/accounts", None, Some(body), &[])
        .await;
    assert_eq!(reply.status, 201);
    app.give_verified_email("minji").await;
    assert_eq!(
        ask(&app, "minji@example.test", "198.51.100.1").await.status,
        202
    );
    mail_due(&app).await;
    let mails = mails_to(&smtp, "minji@example.test");
    assert_eq!(mails.len(), 1);
    let subject = crate::notifications::subject(&smtp.messages()[0]);
    // Encoded words split the subject where they like: compare unspaced.
    assert_eq!(subject.replace(' ', ""), "Posthorn새비밀번호를정해주세요");
}

/// 25 asks at once for one address, each from its own client address:
/// exactly 20 pass (the address's ceiling from anywhere), known or not,
/// and all mail one link; 5 at once from one client address for one email
/// address: exactly 3 pass (issue #65: per asking address); 20 at once from
/// one client address, for as many addresses: exactly 5 pass.
#[actix_web::test]
async fn the_limits_hold_also_at_once() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    app.register("alice").await;
    let count = |replies: &[Reply], status: u16| {
        replies
            .iter()
            .filter(|r| r.status.as_u16() == status)
            .count()
    };
    let per_email = Limit::PasswordResetForEmailAll.allowed() as usize;
    for email in ["alice@example.test", "nobody@example.test"] {
        let froms: Vec<String> = (0..25).map(|i| format!("198.51.100.{}", i + 10)).collect();
        let tries = froms.iter().map(|from| ask(&app, email, from));
        let replies = futures_util::future::join_all(tries).await;
        assert_eq!(
            (count(&replies, 202), count(&replies, 429)),
            (per_email, 25 - per_email),
            "{email}"
        );
        assert!(replies
            .iter()
            .all(|r| r.status == 202 || r.code() == "rate_limited"));
    }
    mail_due(&app).await;
    let mails = mails_to(&smtp, "alice@example.test");
    assert_eq!(mails.len(), per_email);
    let links: std::collections::BTreeSet<String> = mails.iter().map(|m| link_token(m)).collect();
    assert_eq!(links.len(), 1, "one link, mailed again while open");
    let per_pair = Limit::PasswordResetForEmail.allowed() as usize;
    let tries = (0..5).map(|_| ask(&app, "carol@example.test", "203.0.113.99"));
    let replies = futures_util::future::join_all(tries).await;
    assert_eq!(
        (count(&replies, 202), count(&replies, 429)),
        (per_pair, 5 - per_pair)
    );

    let per_address = Limit::PasswordResetFromAddress.allowed() as usize;
    let emails: Vec<String> = (0..20)
        .map(|i| format!("someone{i}@example.test"))
        .collect();
    let tries = emails.iter().map(|email| ask(&app, email, "203.0.113.7"));
    let replies = futures_util::future::join_all(tries).await;
    assert_eq!(
        (count(&replies, 202), count(&replies, 429)),
        (per_address, 20 - per_address)
    );

    // A day later alice may ask again.
    app.clock.advance(Duration::hours(25));
    assert_eq!(
        ask(&app, "alice@example.test", "198.51.100.99")
            .await
            .status,
        202
    );
}
