//! Notifications (issue #6): the outbox, email over real SMTP, retries,
//! two workers, preferences and one-click unsubscribe.

use crate::smtp::SmtpServer;
use crate::support::TestApp;
use chrono::Duration;
use posthorn::jobs::delivery::deliver_due;
use posthorn::notify::worker::Delivered;
use serde_json::json;

pub(crate) async fn app_with_smtp(smtp: &SmtpServer) -> TestApp {
    TestApp::start_with(posthorn::config::Config {
        smtp_url: Some(smtp.url()),
        access_token_seconds: 90 * 24 * 3600,
        ..Default::default()
    })
    .await
}

/// Alice and Bob, with addresses; Alice challenges Bob to `game`, which
/// he accepts: three notices (the challenge, the acceptance, a first turn).
async fn challenged_match(app: &TestApp, game: &str) {
    let alice = app.register("alice").await;
    app.register("bob").await;
    app.post(
        "/v1/matches",
        &alice,
        json!({"game": game, "opponents": ["bob"]}),
    )
    .await;
}

async fn deliver(app: &TestApp) -> Delivered {
    app.blocking(|s| deliver_due(&s.courier())).await.unwrap()
}

async fn register_with_locale(app: &TestApp, name: &str, locale: &str) -> String {
    register(
        app,
        json!({"username": name, "password": "a long password", "locale": locale}),
    )
    .await
}

/// A player in Seoul (UTC+9) with a verified address, in `locale`.
async fn in_seoul(app: &TestApp, name: &str, locale: &str) -> String {
    let body = json!({"username": name, "password": "a long password",
        "time_zone": "Asia/Seoul", "locale": locale});
    register(app, body).await
}

/// Sign up with `body` and verify the address; the access token.
async fn register(app: &TestApp, body: serde_json::Value) -> String {
    let name = body["username"].as_str().unwrap().to_owned();
    let reply = app
        .request("POST", "/v1/accounts", None, Some(body), &[])
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    app.give_verified_email(&name).await;
    reply.body["access_token"].as_str().unwrap().to_owned()
}

/// A header's value, its folded continuation lines joined.
fn header(message: &str, name: &str) -> Option<String> {
    let head = message.split("\r\n\r\n").next()?;
    let lines: Vec<&str> = head.split("\r\n").collect();
    let prefix = format!("{}:", name.to_ascii_lowercase());
    let at = lines
        .iter()
        .position(|l| l.to_ascii_lowercase().starts_with(&prefix))?;
    let mut value = lines[at][name.len() + 1..].trim().to_owned();
    for more in lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with([' ', '\t']))
    {
        value.push_str(more.trim());
    }
    Some(value)
}

/// The message with quoted-printable soft line breaks undone.
pub(crate) fn unfolded(message: &str) -> String {
    message.replace("=\r\n", "").replace("=3D", "=")
}

pub(crate) fn to_address(message: &str) -> String {
    header(message, "To").unwrap_or_default()
}

/// The subject, decoded from RFC 2047 base64 words when need be.
pub(crate) fn subject(message: &str) -> String {
    use base64::Engine;
    let raw = header(message, "Subject").unwrap_or_default();
    raw.replace("?==?", "?= =?")
        .split_whitespace()
        .map(|word| {
            match word
                .strip_prefix("=?utf-8?b?")
                .and_then(|w| w.strip_suffix("?="))
            {
                Some(b64) => String::from_utf8(
                    base64::engine::general_purpose::STANDARD
                        .decode(b64)
                        .unwrap(),
                )
                .unwrap(),
                None => word.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[actix_web::test]
async fn your_turn_reaches_the_player_by_smtp_with_a_link_and_one_click_unsubscribe() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await
        .body;
    let alice_moves = m["my_seats"][0] == m["to_act"][0]["seat"];
    let mover = if alice_moves { "alice" } else { "bob" };
    let done = deliver(&app).await;
    assert_eq!(
        done.sent, 3,
        "bob's challenge, its acceptance, the first mover's turn: {done:?}"
    );
    let mails = smtp.messages();
    let turn = mails
        .iter()
        .find(|m| subject(m).starts_with("Your move"))
        .expect("a your-turn email");
    assert!(to_address(turn).contains(&format!("{mover}@example.test")));
    assert!(mails
        .iter()
        .any(|m| to_address(m).contains("bob@") && subject(m).contains("invited")));
    assert!(header(turn, "Content-Type")
        .unwrap()
        .starts_with("multipart/alternative"));
    assert!(turn.contains("text/plain") && turn.contains("text/html"));
    let link = format!("/matches/{}", m["id"].as_str().unwrap());
    assert!(
        unfolded(turn).contains(&link),
        "a link to the match: {turn}"
    );
    assert_eq!(
        header(turn, "List-Unsubscribe-Post").as_deref(),
        Some("List-Unsubscribe=One-Click")
    );
    let unsubscribe = header(turn, "List-Unsubscribe")
        .unwrap()
        .trim_matches(['<', '>'])
        .to_owned();
    let path = unsubscribe
        .split_once("/v1/")
        .map(|(_, p)| format!("/v1/{p}"))
        .unwrap();

    // One click, no sign-in.
    let reply = app.request("POST", &path, None, None, &[]).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let token = if alice_moves { &alice } else { &bob };
    let settings = app.get("/v1/me/notification-settings", token).await.body;
    assert_eq!(settings["email"]["your_turn"], false);
    assert_eq!(settings["email"]["match_finished"], true);
    let forged = app
        .request("POST", "/v1/unsubscribe?token=forged", None, None, &[])
        .await;
    assert_eq!(forged.status, 404);
    assert_eq!(
        deliver(&app).await,
        Delivered::default(),
        "nothing sent twice"
    );
    app.stop().await;
}

#[actix_web::test]
async fn a_refused_delivery_is_retried_with_backoff_and_delivered_once() {
    let smtp = SmtpServer::start(1);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    app.register("bob").await;
    app.post(
        "/v1/matches",
        &alice,
        json!({"game": "checkers", "opponents": ["bob"], "rated": false}),
    )
    .await;
    let first = deliver(&app).await;
    assert!(first.retried >= 1, "{first:?}");
    let received = smtp.messages().len();
    assert_eq!(deliver(&app).await.sent, 0, "not before the backoff");
    app.clock.advance(Duration::seconds(31));
    let second = deliver(&app).await;
    assert_eq!(second.sent, first.retried);
    assert_eq!(
        smtp.messages().len(),
        received + first.retried,
        "each delivered once"
    );
    app.stop().await;
}

#[actix_web::test]
async fn failures_are_recorded_after_the_last_attempt() {
    let smtp = SmtpServer::start(100);
    let app = TestApp::start_with(posthorn::config::Config {
        smtp_url: Some(smtp.url()),
        notify_max_attempts: 2,
        ..Default::default()
    })
    .await;
    let alice = app.register("alice").await;
    app.register("bob").await;
    app.post(
        "/v1/matches",
        &alice,
        json!({"game": "checkers", "opponents": ["bob"]}),
    )
    .await;
    let first = deliver(&app).await;
    app.clock.advance(Duration::minutes(5));
    let second = deliver(&app).await;
    assert_eq!((second.failed, second.sent), (first.retried, 0));
    app.clock.advance(Duration::hours(5));
    assert_eq!(
        deliver(&app).await,
        Delivered::default(),
        "failed rows stay failed"
    );
    app.stop().await;
}

#[actix_web::test]
async fn two_workers_on_one_outbox_never_send_twice() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    app.register("bob").await;
    for _ in 0..15 {
        app.post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["bob"]}),
        )
        .await;
    }
    let workers: Vec<posthorn::state::AppState> = (0..2)
        .map(|_| {
            let config = posthorn::config::Config {
                smtp_url: Some(smtp.url()),
                jwt_secret: Some("a test secret that is long enough for HS256".into()),
                pool_size: 2,
                ..Default::default()
            };
            posthorn::app_state(
                config,
                &app.database_url(),
                std::sync::Arc::new(app.clock.clone()),
            )
            .unwrap()
        })
        .collect();
    let sent: usize = std::thread::scope(|s| {
        let runs: Vec<_> = workers
            .iter()
            .map(|w| s.spawn(move || deliver_due(&w.courier()).unwrap()))
            .collect();
        runs.into_iter().map(|r| r.join().unwrap().sent).sum()
    });
    assert_eq!(sent, 45, "15 challenges, 15 acceptances and 15 first turns");
    assert_eq!(smtp.messages().len(), 45);
    app.stop().await;
}

#[actix_web::test]
async fn preferences_switch_kinds_off_and_korean_users_get_korean_mail() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    let minji = register_with_locale(&app, "minji", "ko").await;
    let defaults = app.get("/v1/me/notification-settings", &minji).await.body;
    assert_eq!(defaults["email"]["invitation"], true);
    let off = json!({"email": {"your_turn": false}});
    let put = app
        .request(
            "PUT",
            "/v1/me/notification-settings",
            Some(&minji),
            Some(off),
            &[],
        )
        .await;
    assert_eq!(put.status, 200, "{}", put.body);
    assert_eq!(put.body["email"]["your_turn"], false);
    let bad = app
        .request(
            "PUT",
            "/v1/me/notification-settings",
            Some(&minji),
            Some(json!({"sms": {}})),
            &[],
        )
        .await;
    assert_eq!(bad.status, 400);

    for _ in 0..6 {
        app.post(
            "/v1/matches",
            &alice,
            json!({"game": "checkers", "opponents": ["minji"]}),
        )
        .await;
    }
    deliver(&app).await;
    let to_minji: Vec<String> = smtp
        .messages()
        .into_iter()
        .filter(|m| to_address(m).contains("minji@"))
        .collect();
    assert_eq!(
        to_minji.len(),
        6,
        "invitations only: her turns are switched off"
    );
    assert!(
        to_minji.iter().all(|m| subject(m).contains("초대")),
        "{:?}",
        to_minji.iter().map(|m| subject(m)).collect::<Vec<_>>()
    );
    app.stop().await;
}

#[actix_web::test]
async fn without_smtp_the_dev_default_writes_eml_files() {
    let dir = std::env::temp_dir().join(format!("posthorn-mail-{}", uuid::Uuid::new_v4()));
    let app = TestApp::start_with(posthorn::config::Config {
        data_dir: dir.clone(),
        ..Default::default()
    })
    .await;
    let alice = app.register("alice").await;
    app.register("bob").await;
    app.post(
        "/v1/matches",
        &alice,
        json!({"game": "checkers", "opponents": ["bob"]}),
    )
    .await;
    // Bob's challenge, its acceptance to Alice, the first mover's turn.
    assert_eq!(deliver(&app).await.sent, 3);
    let files: Vec<_> = std::fs::read_dir(dir.join("mail"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(
        files
            .iter()
            .filter(|f| f.path().extension().is_some_and(|e| e == "eml"))
            .count(),
        3
    );
    let _ = std::fs::remove_dir_all(&dir);
    app.stop().await;
}

#[actix_web::test]
async fn flipchess_notifications_carry_no_cards() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    challenged_match(&app, "flipchess").await;
    deliver(&app).await;
    let mails = smtp.messages();
    assert_eq!(mails.len(), 3);
    for mail in &mails {
        for card in ["red-", "blue-", "green-", "yellow-", "wild"] {
            assert!(!mail.contains(card), "no card in a notification: {mail}");
        }
    }
    app.stop().await;
}

#[actix_web::test]
async fn the_timeout_notice_sends_a_reminder_and_the_end_reaches_both() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    app.register("bob").await;
    app.post(
        "/v1/matches",
        &alice,
        json!({"game": "checkers", "opponents": ["bob"]}),
    )
    .await;
    deliver(&app).await;
    let before = smtp.messages().len();
    app.clock.advance(Duration::hours(24));
    app.blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep())
        .await
        .unwrap();
    assert_eq!(deliver(&app).await.sent, 1);
    assert!(subject(&smtp.messages()[before]).starts_with("Time is running out"));
    app.clock.advance(Duration::hours(24));
    app.blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep())
        .await
        .unwrap();
    assert_eq!(deliver(&app).await.sent, 2, "the result, to both players");
    let last: Vec<String> = smtp.messages()[before + 1..]
        .iter()
        .map(|m| subject(m))
        .collect();
    assert!(last.iter().all(|s| s.contains("has ended")), "{last:?}");
    app.stop().await;
}

#[actix_web::test]
async fn quiet_hours_in_the_users_own_time_zone_hold_mail_until_they_end() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    let bora = in_seoul(&app, "bora", "en").await;
    let quiet = json!({"quiet_hours": {"start": "22:00", "end": "07:30"}});
    assert_eq!(
        app.request(
            "PUT",
            "/v1/me/notification-settings",
            Some(&bora),
            Some(quiet),
            &[]
        )
        .await
        .status,
        200
    );
    let bad = json!({"quiet_hours": {"start": "25:00", "end": "07:30"}});
    assert_eq!(
        app.request(
            "PUT",
            "/v1/me/notification-settings",
            Some(&bora),
            Some(bad),
            &[]
        )
        .await
        .status,
        400
    );

    // The clock starts at 09:00 UTC = 18:00 in Seoul; 23:00 there is quiet.
    app.clock.advance(Duration::hours(5));
    app.post(
        "/v1/matches",
        &alice,
        json!({"game": "checkers", "opponents": ["bora"]}),
    )
    .await;
    let held = deliver(&app).await;
    assert!(held.waiting >= 1, "{held:?}");
    let to_bora = |smtp: &SmtpServer| {
        smtp.messages()
            .iter()
            .filter(|m| to_address(m).contains("bora@"))
            .count()
    };
    assert_eq!(to_bora(&smtp), 0);
    // 07:29 in Seoul: still quiet.
    app.clock
        .advance(Duration::hours(8) + Duration::minutes(29));
    deliver(&app).await;
    assert_eq!(to_bora(&smtp), 0);
    // 07:30: the quiet hours are over.
    app.clock.advance(Duration::minutes(1));
    deliver(&app).await;
    assert!(to_bora(&smtp) >= 1);
    app.stop().await;
}

#[actix_web::test]
async fn the_daily_digest_replaces_per_event_mail_once_a_local_morning() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    let dami = in_seoul(&app, "dami", "en").await;
    let digest = app
        .request(
            "PUT",
            "/v1/me/notification-settings",
            Some(&dami),
            Some(json!({"digest": true})),
            &[],
        )
        .await;
    assert_eq!(digest.status, 200, "{}", digest.body);
    // Two matches awaiting Dami; the one with the shorter turn comes first.
    for hours in [72.0, 24.0] {
        let m = app
            .post(
                "/v1/matches",
                &alice,
                json!({"game": "checkers", "opponents": ["dami"], "turn_hours": hours}),
            )
            .await
            .body;
        let id = m["id"].as_str().unwrap().to_owned();
        if m["my_seats"][0] == m["to_act"][0]["seat"] {
            let legal = app
                .get(&format!("/v1/matches/{id}/legal-actions"), &alice)
                .await
                .body;
            let first = legal["actions"][0].clone();
            assert_eq!(
                app.post(
                    &format!("/v1/matches/{id}/actions"),
                    &alice,
                    json!({"seq": legal["seq"], "action": first})
                )
                .await
                .status,
                200
            );
        }
    }
    // 18:00 in Seoul: the morning has come, so today's digest goes out.
    deliver(&app).await;
    let to_dami = |smtp: &SmtpServer| {
        smtp.messages()
            .into_iter()
            .filter(|m| to_address(m).contains("dami@"))
            .collect::<Vec<_>>()
    };
    let mails = to_dami(&smtp);
    assert_eq!(mails.len(), 1, "one digest, no per-event mail");
    let text = unfolded(&mails[0]);
    assert!(
        subject(&mails[0]).contains("2 matches"),
        "{}",
        subject(&mails[0])
    );
    // In the reader's words and time (issue #66): nearest deadline first.
    let due: Vec<&str> = text.lines().filter(|l| l.ends_with(" left)")).collect();
    assert!(due.len() >= 2, "{text}");
    assert!(
        due[0].contains("Jan, ") && !due[0].contains("UTC"),
        "{text}"
    );
    assert!(
        due[0].contains("hours left") && due[1].contains("days left"),
        "nearest deadline first: {due:?}"
    );
    deliver(&app).await;
    assert_eq!(to_dami(&smtp).len(), 1, "once a day");
    // The next local morning: 07:59 nothing, 08:00 the next digest.
    app.clock
        .advance(Duration::hours(13) + Duration::minutes(59));
    deliver(&app).await;
    assert_eq!(to_dami(&smtp).len(), 1);
    app.clock.advance(Duration::minutes(1));
    deliver(&app).await;
    assert_eq!(to_dami(&smtp).len(), 2);
    app.stop().await;
}

/// Issue #52: the daily puzzle's morning notice goes only to those who
/// asked, once a local morning, in their language, with the puzzles'
/// link — to a digest reader too, whose digest does not stand in for it.
#[actix_web::test]
async fn the_daily_puzzle_notice_comes_each_local_morning_to_those_who_asked() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let sora = in_seoul(&app, "sora", "ko").await;
    let quiet = register_with_locale(&app, "quiet", "en").await;
    let asked = app
        .request(
            "PUT",
            "/v1/me/notification-settings",
            Some(&sora),
            Some(json!({"daily_puzzle": true, "digest": true})),
            &[],
        )
        .await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    assert_eq!(asked.body["daily_puzzle"], true);
    let theirs = app.get("/v1/me/notification-settings", &quiet).await.body;
    assert_eq!(theirs["daily_puzzle"], false, "off unless asked for");
    let to = |smtp: &SmtpServer, who: &str| {
        smtp.messages()
            .into_iter()
            .filter(|m| to_address(m).contains(&format!("{who}@")))
            .collect::<Vec<_>>()
    };
    // 18:00 in Seoul: this morning's notice goes out, in Korean.
    deliver(&app).await;
    let mails = to(&smtp, "sora");
    assert_eq!(mails.len(), 1);
    assert_eq!(subject(&mails[0]), "오늘의 퍼즐이 나왔어요");
    assert!(
        unfolded(&mails[0]).contains("/puzzles"),
        "the puzzles' link"
    );
    assert!(to(&smtp, "quiet").is_empty(), "nobody who did not ask");
    deliver(&app).await;
    assert_eq!(to(&smtp, "sora").len(), 1, "once a morning");
    // The next local morning: 07:59 nothing, 08:00 the next notice.
    app.clock
        .advance(Duration::hours(13) + Duration::minutes(59));
    deliver(&app).await;
    assert_eq!(to(&smtp, "sora").len(), 1);
    app.clock.advance(Duration::minutes(1));
    deliver(&app).await;
    assert_eq!(to(&smtp, "sora").len(), 2);
    app.stop().await;
}

/// Issue #14: Janggi is playable end to end by mail too — the player drawn
/// to Cho is told it is their move, and both hear the bikjang ending.
#[actix_web::test]
async fn janggi_turns_and_its_end_reach_the_players_by_email() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let position = "r3k4/9/9/9/9/4R4/9/9/9/4K4 w - - 0 1";
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "janggi", "opponents": ["bob"], "options": {"position": position}}),
        )
        .await
        .body;
    let alice_is_cho = m["view"]["cho"] == m["my_seats"][0];
    let (cho, cho_name) = if alice_is_cho {
        (&alice, "alice")
    } else {
        (&bob, "bob")
    };
    deliver(&app).await;
    let turn = smtp
        .messages()
        .into_iter()
        .find(|mail| subject(mail) == "Your move in Janggi")
        .expect("a your-move email for Janggi");
    assert!(to_address(&turn).contains(&format!("{cho_name}@")));
    let before = smtp.messages().len();
    let reply = app
        .act(
            cho,
            m["id"].as_str().unwrap(),
            json!({"type": "move", "move": "e5b5"}),
        )
        .await;
    assert_eq!(reply.body["match"]["result"]["reason"], "bikjang");
    deliver(&app).await;
    let ended: Vec<String> = smtp.messages()[before..]
        .iter()
        .map(|m| subject(m))
        .collect();
    assert_eq!(
        ended,
        vec!["Your Janggi match has ended"; 2],
        "both players hear the end"
    );
    app.stop().await;
}

/// Issue #15, docs/rules/banqi.md §B8: a Banqi match's mail names no piece — the
/// layout lies face down and stays out of every notification.
#[actix_web::test]
async fn banqi_notifications_name_no_piece() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    app.register("bob").await;
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "banqi", "opponents": ["bob"]}),
        )
        .await
        .body;
    assert_eq!(m["view"]["face_down"].as_array().unwrap().len(), 32);
    deliver(&app).await;
    let mails = smtp.messages();
    assert!(
        mails.iter().any(|m| subject(m) == "Your move in Banqi"),
        "{mails:?}"
    );
    for mail in &mails {
        let text = unfolded(mail);
        for piece in [
            "general", "advisor", "elephant", "chariot", "horse", "cannon", "soldier",
        ] {
            assert!(!text.contains(piece), "{piece} in a notification: {mail}");
        }
        // Nor the layout's notation (`?K`, `?p`, …).
        let coded = text
            .as_bytes()
            .windows(2)
            .any(|w| w[0] == b'?' && b"KAERNCPkaernc".contains(&w[1]));
        assert!(!coded, "a face-down code in a notification: {mail}");
    }
    app.stop().await;
}

/// Issue #20: a challenge reaches the challenged player by real SMTP, with
/// a link to the match; nobody is told it is their move until it starts.
#[actix_web::test]
async fn a_challenge_reaches_the_challenged_by_smtp_and_no_turn_runs_before_it_is_accepted() {
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let m = app
        .challenge(
            "/v1/matches",
            &alice,
            json!({"game": "janggi", "opponents": ["bob"]}),
        )
        .await
        .body;
    assert_eq!(deliver(&app).await.sent, 1, "the challenge only");
    let mail = &smtp.messages()[0];
    assert!(to_address(mail).contains("bob@"), "{mail}");
    assert_eq!(subject(mail), "You're invited to play Janggi");
    let link = format!("/matches/{}", m["id"].as_str().unwrap());
    assert!(
        unfolded(mail).contains(&link),
        "a link to the match: {mail}"
    );
    let accept = format!("/v1/matches/{}/accept", m["id"].as_str().unwrap());
    let accepted = app.request("POST", &accept, Some(&bob), None, &[]).await;
    assert_eq!(accepted.status, 200);
    deliver(&app).await;
    let subjects: Vec<String> = smtp.messages()[1..].iter().map(|m| subject(m)).collect();
    assert!(
        subjects.iter().any(|s| s == "Your move in Janggi"),
        "{subjects:?}"
    );
    assert!(
        subjects.iter().any(|s| s.contains("accepted")),
        "{subjects:?}"
    );
    app.stop().await;
}

/// Issue #21: an action writes plain notices; the worker fans them out.
/// Until it runs nothing is in the outbox, and a notice that is there
/// twice (its delivery key repeated) still reaches the inbox once.
#[actix_web::test]
async fn notices_are_fanned_out_by_the_worker_and_a_repeated_key_is_sent_once() {
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let count = |sql: &'static str| {
        move |s: &posthorn::state::AppState| {
            use diesel::RunQueryDsl;
            diesel::sql_query(sql)
                .get_result::<Count>(&mut s.pool.get().unwrap())
                .unwrap()
                .n
        }
    };
    let smtp = SmtpServer::start(0);
    let app = app_with_smtp(&smtp).await;
    challenged_match(&app, "checkers").await;
    let notices = app
        .blocking(count("SELECT count(*) AS n FROM notices"))
        .await;
    assert_eq!(notices, 3, "a challenge, its acceptance and the first turn");
    let queued = app
        .blocking(count("SELECT count(*) AS n FROM notifications"))
        .await;
    assert_eq!(queued, 0, "the action wrote no channel rows");
    app.blocking(|s| {
        use diesel::RunQueryDsl;
        diesel::sql_query("INSERT INTO notices (user_id, match_id, seq, kind, payload, created_at) SELECT user_id, match_id, seq, kind, payload, created_at FROM notices")
            .execute(&mut s.pool.get().unwrap())
            .unwrap()
    })
    .await;
    assert_eq!(deliver(&app).await.sent, 3);
    assert_eq!(smtp.messages().len(), 3, "each once, though noticed twice");
    let left = app
        .blocking(count("SELECT count(*) AS n FROM notices"))
        .await;
    assert_eq!(left, 0, "every notice fanned out");
    app.stop().await;
}
