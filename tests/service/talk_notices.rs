//! Hearing of a message (issue #50 item 4; docs/decisions/table-talk.md):
//! gathered notices by real SMTP, at most one per match per 15 minutes,
//! folded into the turn notice where one is due and into the digest; a
//! muted table tells nothing.

use crate::notifications::{subject, to_address, unfolded};
use crate::smtp::SmtpServer;
use crate::support::{a_move, TestApp};
use chrono::Duration;
use posthorn::jobs::outbox::deliver_due;
use serde_json::json;

async fn app_with_smtp(smtp: &SmtpServer) -> TestApp {
    TestApp::start_with(posthorn::config::Config {
        smtp_url: Some(smtp.url()),
        access_token_seconds: 90 * 24 * 3600,
        ..Default::default()
    })
    .await
}

async fn deliver(app: &TestApp) -> usize {
    app.blocking(|s| deliver_due(&s.courier()))
        .await
        .unwrap()
        .sent
}

/// A started checkers match of alice and bob, its first notices
/// delivered: (id, (the player on move, name), (the other, name)).
async fn table(app: &TestApp) -> (String, (String, &'static str), (String, &'static str)) {
    let (alice, bob) = (app.register("alice").await, app.register("bob").await);
    let body = json!({"game": "checkers", "opponents": ["bob"]});
    let id = app.post("/v1/matches", &alice, body).await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    deliver(app).await;
    let alice_moves = app.legal_actions(&alice, &id).await.iter().any(a_move);
    match alice_moves {
        true => (id, (alice, "alice"), (bob, "bob")),
        false => (id, (bob, "bob"), (alice, "alice")),
    }
}

async fn say(app: &TestApp, id: &str, token: &str, text: &str) -> u16 {
    let path = format!("/v1/matches/{id}/messages");
    let body = json!({ "text": text });
    (app.request("POST", &path, Some(token), Some(body), &[])
        .await)
        .status
        .as_u16()
}

async fn speaks_korean(app: &TestApp, name: &'static str) {
    app.blocking(move |s| {
        use diesel::RunQueryDsl;
        diesel::sql_query(format!(
            "UPDATE users SET locale = 'ko' WHERE username = '{name}'"
        ))
        .execute(&mut s.pool.get().unwrap())
        .unwrap();
    })
    .await;
}

#[actix_web::test]
async fn twenty_messages_in_a_minute_make_one_notice_then_the_turn_notice_carries_the_count() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let (id, (mover, mover_name), (waiter, waiter_name)) = table(&app).await;
    speaks_korean(&app, mover_name).await;
    let before = smtp.messages().len();
    // Twenty messages written over a minute: the limit lets ten land.
    let mut landed = 0;
    for n in 0..20 {
        landed += (say(&app, &id, &waiter, &format!("m{n}")).await == 201) as usize;
        app.clock.advance(Duration::seconds(2));
    }
    assert_eq!(landed, 10);
    assert_eq!(deliver(&app).await, 0, "gathering: nothing yet");
    app.clock.advance(Duration::seconds(25));
    assert_eq!(deliver(&app).await, 1, "one notice for the twenty");
    let mail = &smtp.messages()[before];
    assert!(to_address(mail).contains(mover_name), "{mail}");
    assert_eq!(
        subject(mail),
        "Checkers: 새 메시지가 왔어요",
        "in the reader's language"
    );
    for _ in 0..3 {
        app.clock.advance(Duration::minutes(5));
        assert_eq!(deliver(&app).await, 0, "told once, however long unread");
    }

    // Messages, then a move within the gathering time: the turn notice
    // says how many, and no message notice follows.
    let told = smtp.messages().len();
    for text in ["one", "two", "three"] {
        assert_eq!(say(&app, &id, &mover, text).await, 201);
    }
    app.clock.advance(Duration::seconds(20));
    let action = (app.legal_actions(&mover, &id).await.into_iter())
        .find(a_move)
        .unwrap();
    assert_eq!(app.act(&mover, &id, action).await.status, 200);
    assert_eq!(deliver(&app).await, 1);
    let turn = unfolded(&smtp.messages()[told]);
    assert!(to_address(&turn).contains(waiter_name));
    assert!(subject(&turn).starts_with("Your move"), "{turn}");
    assert!(turn.contains("New messages at the table too: 3."), "{turn}");
    app.clock.advance(Duration::minutes(2));
    assert_eq!(deliver(&app).await, 0, "folded: no notice of its own");

    // Told at the turn notice: a message a minute later waits out the
    // fifteen minutes since.
    assert_eq!(say(&app, &id, &mover, "four").await, 201);
    app.clock.advance(Duration::minutes(5));
    assert_eq!(deliver(&app).await, 0, "within fifteen minutes of the last");
    app.clock.advance(Duration::minutes(9));
    assert_eq!(deliver(&app).await, 1);
    let last = unfolded(smtp.messages().last().unwrap());
    assert!(to_address(&last).contains(waiter_name));
    assert_eq!(subject(&last), "Checkers: new messages at your table");
    assert!(last.contains("New messages at your table: 4."), "{last}");
    app.stop().await;
}

#[actix_web::test]
async fn a_muted_match_raises_no_notice_and_a_read_one_none_either() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let (id, (mover, _), (waiter, _)) = table(&app).await;
    let mute = json!({"muted": true});
    let path = format!("/v1/matches/{id}/mute");
    let muted = app
        .request("PUT", &path, Some(&mover), Some(mute), &[])
        .await;
    assert_eq!(muted.status, 200);
    assert_eq!(say(&app, &id, &waiter, "hello?").await, 201);
    app.clock.advance(Duration::hours(1));
    assert_eq!(deliver(&app).await, 0, "muted");
    // The waiter hears the mover, and reads before the gathering ends.
    assert_eq!(say(&app, &id, &mover, "shh").await, 201);
    let read = format!("/v1/matches/{id}/messages/read");
    let read = app.request("POST", &read, Some(&waiter), None, &[]).await;
    assert_eq!(read.status, 204);
    app.clock.advance(Duration::hours(1));
    assert_eq!(deliver(&app).await, 0, "read already");
    let queued = app
        .count("SELECT count(*) AS n FROM notifications WHERE kind = 'message'".into())
        .await;
    assert_eq!(queued, 0);
    app.stop().await;
}

#[actix_web::test]
async fn the_digest_lists_the_tables_with_new_messages() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let (id, (mover, _), (waiter, waiter_name)) = table(&app).await;
    let settings = json!({"digest": true});
    let put = app
        .request(
            "PUT",
            "/v1/me/notification-settings",
            Some(&waiter),
            Some(settings),
            &[],
        )
        .await;
    assert_eq!(put.status, 200, "{}", put.body);
    let before = smtp.messages().len();
    for text in ["a", "b"] {
        assert_eq!(say(&app, &id, &mover, text).await, 201);
    }
    // The digest's morning (08:00 in the reader's zone, UTC here).
    app.clock.advance(Duration::hours(26));
    deliver(&app).await;
    let mails: Vec<String> = (smtp.messages()[before..].iter())
        .filter(|m| to_address(m).contains(waiter_name))
        .map(|m| unfolded(m))
        .collect();
    assert_eq!(mails.len(), 1, "the digest alone, no mail per message");
    assert_eq!(subject(&mails[0]), "New messages at your tables");
    assert!(mails[0].contains("New messages wait at your tables:"));
    assert!(
        mails[0].contains("Checkers =E2=80=94 new messages: 2"),
        "the table, quoted-printable: {}",
        mails[0]
    );
    app.stop().await;
}
