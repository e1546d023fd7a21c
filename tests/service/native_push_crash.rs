//! Push to the native apps (issue #51): the service binary killed
//! mid-batch loses nothing and repeats only its batch.

use crate::native_peers::{self, apns_peer, temp_file, ApnsPeer, Tls};
use crate::native_push::{config, ios_token, register_device};
use crate::support::TestApp;
use serde_json::json;

/// The service binary on the test's database, pushing to `apns`.
fn spawn_service(app: &TestApp, tls: &Tls, apns: &ApnsPeer) -> crate::support::Binary {
    let ca = temp_file("ca.pem", &tls.cert_pem);
    let env = [
        (
            "POSTHORN_APNS_KEY_FILE",
            apns.key_file.display().to_string(),
        ),
        ("POSTHORN_APNS_KEY_ID", native_peers::KEY_ID.into()),
        ("POSTHORN_APNS_TEAM_ID", native_peers::TEAM_ID.into()),
        ("POSTHORN_APNS_TOPIC", native_peers::TOPIC.into()),
        ("POSTHORN_APNS_HOST", apns.base.clone()),
        ("POSTHORN_NATIVE_PUSH_CA_FILE", ca.display().to_string()),
    ];
    crate::support::spawn_binary(app, &env).0
}

/// Wait (up to a minute) until `done` holds.
pub(crate) async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    for _ in 0..600 {
        if done().await {
            return;
        }
        actix_rt::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("timed out waiting until {what}");
}

/// Issue #51, "nothing acknowledged is lost and nothing is delivered
/// twice when the worker is killed mid-batch": the service is killed
/// (SIGKILL) with a batch's requests in flight, and started again. Every
/// notice is then delivered and recorded once; what the first run had
/// committed is never sent again; the only repeats are the interrupted
/// batch's, each with the same apns-id, collapse id and payload as its
/// first, so the phone shows it once (docs/decisions/native-push.md).
#[actix_web::test]
async fn a_worker_killed_mid_batch_loses_nothing_and_repeats_only_its_batch_the_same() {
    const DEVICES: usize = 10;
    const PER_DEVICE: usize = 60;
    const BATCH: usize = 256;
    let tls = native_peers::tls();
    let apns = apns_peer(&tls);
    let app = TestApp::start_with(config(&tls, Some(&apns), None)).await;
    // A guest: no address, so the app's devices are the only channel.
    let reader = app.guest("Reader").await;
    for n in 0..DEVICES {
        let body = json!({"platform": "ios", "token": ios_token(500 + n as u32)});
        assert_eq!(register_device(&app, &reader, body).await.status, 201);
    }
    let total = DEVICES * PER_DEVICE;
    // Notices as actions write them, due now; the first batch is
    // answered, then requests are held: the worker is mid-batch.
    app.count(format!(
        "WITH i AS (INSERT INTO notices (user_id, match_id, seq, kind, payload, created_at) \
         SELECT u.id, gen_random_uuid(), g, 'your_turn', '{{\"game\": \"checkers\"}}', now() - interval '1 hour' \
         FROM users u, generate_series(1, {PER_DEVICE}) g WHERE u.display_name = 'Reader' RETURNING 1) \
         SELECT count(*) AS n FROM i"
    ))
    .await;
    apns.script.lock().unwrap().hold_after = Some(BATCH + 20);
    let sent = || {
        app.count("SELECT count(*) AS n FROM notifications WHERE status = 'sent' AND channel LIKE 'app:%'".into())
    };
    let mut service = spawn_service(&app, &tls, &apns);
    until(
        "the first batch is committed and the second held",
        async || {
            let held = apns
                .log
                .lock()
                .unwrap()
                .received
                .iter()
                .filter(|r| !r.delivered)
                .count();
            held >= 32 && sent().await == BATCH as i64
        },
    )
    .await;
    service.kill().unwrap();
    service.wait().unwrap();
    let before: Vec<native_peers::ApnsReceived> = apns.log.lock().unwrap().received.clone();
    assert_eq!(
        sent().await,
        BATCH as i64,
        "the interrupted batch was not committed"
    );

    apns.script.lock().unwrap().hold_after = None;
    let mut service = spawn_service(&app, &tls, &apns);
    until("every notice is sent", async || {
        sent().await == total as i64
    })
    .await;
    service.kill().unwrap();
    service.wait().unwrap();

    let failed = app
        .count(
            "SELECT count(*) AS n FROM notifications WHERE status <> 'sent' OR attempts <> 1"
                .into(),
        )
        .await;
    assert_eq!(failed, 0, "nothing lost or failed, each recorded sent once");
    let log = apns.log.lock().unwrap();
    assert!(log.malformed.is_empty(), "{:?}", log.malformed);
    let mut by_id: std::collections::HashMap<&str, Vec<&native_peers::ApnsReceived>> =
        Default::default();
    for r in &log.received {
        by_id
            .entry(r.headers["apns-id"].as_str())
            .or_default()
            .push(r);
    }
    assert_eq!(by_id.len(), total, "every notice reached the service");
    let first_batch: std::collections::HashSet<&str> = before
        .iter()
        .filter(|r| r.delivered)
        .take(BATCH)
        .map(|r| r.headers["apns-id"].as_str())
        .collect();
    let repeated: Vec<&str> = by_id
        .iter()
        .filter(|(_, rs)| rs.len() > 1)
        .map(|(id, _)| *id)
        .collect();
    assert!(!repeated.is_empty(), "the kill interrupted sends");
    assert!(
        repeated.len() <= BATCH,
        "only the interrupted batch: {}",
        repeated.len()
    );
    for id in repeated {
        assert!(!first_batch.contains(id), "a committed notice sent again");
        let rs = &by_id[id];
        assert!(
            rs.iter().all(
                |r| r.headers["apns-collapse-id"] == rs[0].headers["apns-collapse-id"]
                    && r.payload == rs[0].payload
            ),
            "{id}: a repeat is the same notice"
        );
    }
    let delivered: usize = by_id
        .values()
        .map(|rs| rs.iter().filter(|r| r.delivered).count().min(1))
        .sum();
    assert_eq!(delivered, total, "each notice answered 200 at least once");
}
