//! Native push delivery (issue #51): `cargo bench --bench native_push`
//! (env `NATIVE_MESSAGES`, default 4000 per service). Queues that many
//! notices for guests with ten devices each, as actions write them, then
//! times one outbox worker fanning them out and delivering them to the
//! local APNs peer (one HTTP/2 connection; every provider token's ES256
//! signature and every header verified there), then the same to the local
//! FCM peer (the OAuth exchange, each message's shape checked). Reported:
//! notifications/s per service.

#[path = "../service/native_peers.rs"]
#[allow(dead_code)]
mod native_peers;
#[path = "../service/support.rs"]
#[allow(dead_code)]
mod support;

use serde_json::json;
use std::time::Instant;

const DEVICES: usize = 10;

fn main() {
    let n: usize = std::env::var("NATIVE_MESSAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    actix_rt::System::new().block_on(async move {
        let tls = native_peers::tls();
        let (apns, fcm) = (native_peers::apns_peer(&tls), native_peers::fcm_peer(&tls));
        let app = support::TestApp::start_with(native_peers::config(&tls, Some(&apns), Some(&fcm)))
        .await;
        for platform in ["ios", "android"] {
            let users = 40;
            let per_user = n / (users * DEVICES);
            for u in 0..users {
                let guest = app.guest(&format!("{platform}{u}")).await;
                for d in 0..DEVICES {
                    let token = match platform {
                        "ios" => format!("{:064x}", u * 100 + d),
                        _ => format!("fcm:{u}-{d}-{}", "k".repeat(140)),
                    };
                    let made = app
                        .post("/v1/devices", &guest, json!({"platform": platform, "token": token}))
                        .await;
                    assert_eq!(made.status, 201, "{}", made.body);
                }
            }
            let queued = app
                .count(format!(
                    "WITH i AS (INSERT INTO notices (user_id, match_id, seq, kind, payload, created_at) \
                     SELECT u.id, gen_random_uuid(), g, 'your_turn', '{{\"game\": \"checkers\"}}', now() - interval '100 years' \
                     FROM users u, generate_series(1, {per_user}) g WHERE u.display_name LIKE '{platform}%' RETURNING 1) \
                     SELECT count(*) AS n FROM i"
                ))
                .await as usize;
            let started = Instant::now();
            let done = app
                .blocking(|s| posthorn::jobs::delivery::deliver_due(&s.courier()))
                .await
                .unwrap();
            let secs = started.elapsed().as_secs_f64();
            let deliveries = queued * DEVICES;
            assert_eq!(done.sent, deliveries, "{done:?}");
            let received = match platform {
                "ios" => apns.log.lock().unwrap().received.iter().filter(|r| r.delivered).count(),
                _ => fcm.log.lock().unwrap().received.iter().filter(|r| r.delivered).count(),
            };
            assert_eq!(received, deliveries);
            let service = if platform == "ios" { "APNs" } else { "FCM" };
            println!(
                "{service}: {deliveries} notifications ({queued} notices x {DEVICES} devices) fanned out and delivered in {secs:.2} s = {:.0}/s (one worker)",
                deliveries as f64 / secs
            );
        }
        assert!(apns.log.lock().unwrap().malformed.is_empty());
        assert!(fcm.log.lock().unwrap().malformed.is_empty());
        app.stop().await;
    });
}
