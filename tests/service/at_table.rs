//! Silence while at the table (issue #66 items 3 and 4), against real
//! peers: an SMTP server, a Web Push service, and the APNs and FCM peers
//! that verify every request. A notice about a match whose page its
//! reader has open waits; it is dropped once they play, and goes once
//! they close the page without playing, or after ten minutes of watching.

use crate::live::{checkers_of, play_one, Live};
use crate::native_peers::{self, apns_peer, fcm_peer, ApnsPeer, FcmPeer, Tls};
use crate::native_push::{android_token, deliver, ios_token, register_device};
use crate::push_service::{start_push_service, Inbox};
use crate::smtp::SmtpServer;
use crate::support::TestApp;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::Duration;
use serde_json::json;
use std::collections::HashMap;

const METRICS: &str = "the scraper's token";

struct Peers {
    smtp: SmtpServer,
    push: String,
    inbox: Inbox,
    apns: ApnsPeer,
    fcm: FcmPeer,
    _tls: Tls,
}

impl Peers {
    /// What each channel has received so far: mails, Web Pushes, APNs
    /// and FCM notices.
    fn counts(&self) -> [usize; 4] {
        [
            self.smtp.messages().len(),
            self.inbox.lock().unwrap().len(),
            self.apns.log.lock().unwrap().received.len(),
            self.fcm.log.lock().unwrap().received.len(),
        ]
    }

    /// Item 4: within the time to live, no collapse id, tag or topic ever
    /// carries two urgencies, on any push channel.
    fn one_urgency_per_collapse_id(&self) {
        let mut seen: HashMap<String, String> = HashMap::new();
        let mut one = |id: String, urgency: String| {
            let first = seen.entry(id.clone()).or_insert(urgency.clone());
            assert_eq!(*first, urgency, "{id} carried two urgencies");
        };
        for r in &self.apns.log.lock().unwrap().received {
            one(
                "apns ".to_owned() + &r.headers["apns-collapse-id"],
                r.headers["apns-priority"].clone(),
            );
        }
        for r in &self.fcm.log.lock().unwrap().received {
            let android = &r.message["android"];
            let priority = android["priority"].as_str().unwrap().to_owned();
            one(format!("fcm {}", android["collapse_key"]), priority.clone());
            one(
                format!("fcm tag {}", android["notification"]["tag"]),
                priority,
            );
        }
        for r in self.inbox.lock().unwrap().iter() {
            one(format!("web {}", r.topic), r.urgency.clone());
        }
        assert!(!seen.is_empty(), "some pushes were looked at");
        let log = self.apns.log.lock().unwrap();
        assert!(log.malformed.is_empty(), "{:?}", log.malformed);
    }
}

async fn start(stream_seconds: u64) -> (TestApp, Peers) {
    let tls = native_peers::tls();
    let (apns, fcm) = (apns_peer(&tls), fcm_peer(&tls));
    let smtp = SmtpServer::start(0);
    let (push, inbox) = start_push_service().await;
    let app = TestApp::start_with(posthorn::config::Config {
        smtp_url: Some(smtp.url()),
        allow_insecure_push_endpoints: true,
        live_stream_seconds: stream_seconds,
        metrics_token: Some(METRICS.into()),
        ..native_peers::config(&tls, Some(&apns), Some(&fcm))
    })
    .await;
    let peers = Peers {
        smtp,
        push,
        inbox,
        apns,
        fcm,
        _tls: tls,
    };
    (app, peers)
}

/// Every channel for the player of `token`: the address they signed up
/// with, a browser's Web Push subscription, an iPhone and an Android phone.
async fn on_every_channel(app: &TestApp, peers: &Peers, token: &str, n: u32) {
    let (device, auth) = ece::generate_keypair_and_auth_secret().unwrap();
    let subscription = json!({
        "endpoint": format!("{}/push/browser-{n}", peers.push),
        "keys": {"p256dh": URL_SAFE_NO_PAD.encode(device.pub_as_raw().unwrap()),
                 "auth": URL_SAFE_NO_PAD.encode(auth)},
    });
    let made = app
        .post("/v1/push-subscriptions", token, subscription)
        .await;
    assert_eq!(made.status, 201, "{}", made.body);
    for body in [
        json!({"platform": "ios", "token": ios_token(n), "app_id": native_peers::TOPIC}),
        json!({"platform": "android", "token": android_token(&format!("p{n}"))}),
    ] {
        let made = register_device(app, token, body).await;
        assert_eq!(made.status, 201, "{}", made.body);
    }
}

/// A checkers match of two players on every channel, all its first
/// notices delivered: its id and the tokens, the first on move first.
async fn table(app: &TestApp, peers: &Peers) -> (String, [String; 2]) {
    let (id, [first, second]) = checkers_of(app, "alice", "bob").await;
    on_every_channel(app, peers, &first, 1).await;
    on_every_channel(app, peers, &second, 2).await;
    deliver(app).await;
    (id, [first, second])
}

/// Waits (in real time: actix hears of a closed connection at its second
/// write, within two beats) until the player has no stream of the match.
async fn left_the_table(app: &TestApp, id: &str) {
    let most = posthorn::http::live::BEAT * 2 + std::time::Duration::from_secs(5);
    let since = std::time::Instant::now();
    let sql = format!("SELECT count(*) AS n FROM watchers WHERE match_id = '{id}'");
    while app.count(sql.clone()).await > 1 {
        assert!(since.elapsed() < most, "the closed page is heard of");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

#[actix_web::test]
async fn two_players_at_the_table_hear_nothing_and_one_who_leaves_hears_once() {
    let (app, peers) = start(300).await;
    let (id, [first, second]) = table(&app, &peers).await;
    let mut pages = [
        Live::open(&app, &first, &id).await,
        Live::open(&app, &second, &id).await,
    ];
    for page in &mut pages {
        page.next(std::time::Duration::from_secs(2)).await.unwrap();
    }
    let before = peers.counts();
    // Ten moves, the worker running after each, a second apart.
    for n in 0..10 {
        play_one(&app, if n % 2 == 0 { &first } else { &second }, &id).await;
        app.clock.advance(Duration::seconds(1));
        deliver(&app).await;
    }
    assert_eq!(peers.counts(), before, "no mail, no push at the table");
    // The first moves; the second closes the page and does not move.
    play_one(&app, &first, &id).await;
    deliver(&app).await;
    assert_eq!(peers.counts(), before, "still at the table");
    let [_first_page, second_page] = pages;
    drop(second_page);
    left_the_table(&app, &id).await;
    app.clock.advance(Duration::seconds(31));
    let done = deliver(&app).await;
    let after = peers.counts();
    let gained: Vec<usize> = after.iter().zip(before).map(|(a, b)| a - b).collect();
    assert_eq!(gained, [1, 1, 1, 1], "one notice on each channel: {done:?}");
    // Item 7: it says the opponent's last move, with the piece.
    let body = (peers.apns.log.lock().unwrap().received.last())
        .map(|r| r.payload["aps"]["alert"]["body"].clone())
        .unwrap();
    let body = body.as_str().unwrap();
    let said = ["alice: man ", "bob: man ", "alice: king ", "bob: king "];
    assert!(
        said.iter().any(|s| body.starts_with(s)) && body.contains('→'),
        "{body}"
    );
    app.clock.advance(Duration::minutes(20));
    deliver(&app).await;
    assert_eq!(peers.counts(), after, "and only once");
    let dropped = "SELECT count(*) AS n FROM notifications \
                   WHERE status = 'dropped' AND last_error LIKE '%played at the table%'";
    let reasons = app
        .blocking(|s| {
            use diesel::prelude::*;
            use posthorn::schema::notifications as n;
            n::table
                .select((n::kind, n::channel, n::status, n::last_error))
                .load::<(String, String, String, Option<String>)>(&mut s.pool.get().unwrap())
                .unwrap()
        })
        .await;
    assert!(
        app.count(dropped.into()).await >= 10 * 4,
        "each turn dropped once played: {reasons:#?}"
    );

    peers.one_urgency_per_collapse_id();
}

#[actix_web::test]
async fn a_page_left_open_ten_minutes_without_a_move_gets_one_notice() {
    // Streams that outlast the test's clock, as a page's next one would.
    let (app, peers) = start(3600).await;
    let (id, [first, second]) = table(&app, &peers).await;
    let mut page = Live::open(&app, &second, &id).await;
    page.next(std::time::Duration::from_secs(2)).await.unwrap();
    let before = peers.counts();
    play_one(&app, &first, &id).await;
    for _ in 0..19 {
        deliver(&app).await;
        app.clock.advance(Duration::seconds(30));
    }
    assert_eq!(
        peers.counts(),
        before,
        "held through nine and a half minutes"
    );
    app.clock.advance(Duration::seconds(31));
    deliver(&app).await;
    let after = peers.counts();
    let gained: Vec<usize> = after.iter().zip(before).map(|(a, b)| a - b).collect();
    assert_eq!(
        gained,
        [1, 1, 1, 1],
        "one notice on each channel after ten minutes"
    );
    app.clock.advance(Duration::minutes(30));
    deliver(&app).await;
    assert_eq!(peers.counts(), after, "and no other");
    let metrics = "SELECT count(*) AS n FROM notifications WHERE held_at IS NOT NULL \
                   AND status = 'sent'";
    assert_eq!(app.count(metrics.into()).await, 4);
    let scraped = app.get("/metrics", METRICS).await.body;
    let line = (scraped.as_str().unwrap().lines())
        .find(|l| {
            l.starts_with(
                r#"posthorn_notices_at_table_total{kind="your_turn",outcome="sent_after_hold"}"#,
            )
        })
        .expect("the counter is there")
        .to_owned();
    let n: u64 = line.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(n >= 4, "{line}");
    drop(page);
    peers.one_urgency_per_collapse_id();
}

/// Item 4: a challenge accepted where the challenger moves first tells
/// them "accepted" and "your turn" at once: the phone gets the turn only
/// (the quieter notice could arrive last and replace it), the mail both.
#[actix_web::test]
async fn an_acceptance_never_takes_the_place_of_a_turn_on_a_phone() {
    let (app, peers) = start(300).await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    on_every_channel(&app, &peers, &alice, 1).await;
    // The seats are drawn: challenge until Alice has the first move.
    for _ in 0..20 {
        deliver(&app).await;
        peers.apns.log.lock().unwrap().received.clear();
        let m = app
            .challenge(
                "/v1/matches",
                &alice,
                json!({"game": "checkers", "opponents": ["bob"]}),
            )
            .await;
        assert_eq!(m.status, 201, "{}", m.body);
        let path = format!("/v1/matches/{}/accept", m.body["id"].as_str().unwrap());
        let accepted = app.request("POST", &path, Some(&bob), None, &[]).await;
        assert_eq!(accepted.status, 200, "{}", accepted.body);
        if accepted.body["to_act"][0]["seat"] != accepted.body["my_seats"][0] {
            break;
        }
    }
    let mails = peers.smtp.messages().len();
    deliver(&app).await;
    let apns = peers.apns.log.lock().unwrap();
    let kinds: Vec<&str> = (apns.received.iter())
        .filter_map(|r| r.payload["type"].as_str())
        .collect();
    assert_eq!(kinds, ["your_turn"], "the turn alone on the phone");
    drop(apns);
    let fcm = peers.fcm.log.lock().unwrap();
    let kinds: Vec<&str> = (fcm.received.iter())
        .filter_map(|r| r.message["data"]["type"].as_str())
        .collect();
    assert!(kinds.ends_with(&["your_turn"]), "{kinds:?}");
    drop(fcm);
    // Bob's challenge, and Alice's acceptance and turn.
    assert_eq!(peers.smtp.messages().len(), mails + 3, "both by mail");
    peers.one_urgency_per_collapse_id();
}
