//! Outbox delivery: `cargo bench --bench outbox` (env `OUTBOX_MESSAGES`,
//! default 2000 per channel). Queues that many notices for a user with an
//! address and one device, as actions write them, then times the worker
//! fanning them out and delivering them to a local SMTP
//! server and a local push service (emails over pooled SMTP connections;
//! each push encrypted and VAPID-signed). Reported: messages/s.

#[path = "../service/push_service.rs"]
#[allow(dead_code)]
mod push_service;
#[path = "../service/smtp.rs"]
mod smtp;
#[path = "../service/support.rs"]
#[allow(dead_code)]
mod support;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use diesel::RunQueryDsl;
use serde_json::json;
use std::time::Instant;

fn main() {
    let n: i64 = std::env::var("OUTBOX_MESSAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    actix_rt::System::new().block_on(async move {
        let mail = smtp::SmtpServer::start(0);
        let (push_base, inbox) = push_service::start_push_service().await;
        let app = support::TestApp::start_with(posthorn::config::Config {
            smtp_url: Some(mail.url()),
            allow_insecure_push_endpoints: true,
            ..Default::default()
        })
        .await;
        let token = app.register("reader").await;
        let (device, auth) = ece::generate_keypair_and_auth_secret().unwrap();
        let subscription = json!({
            "endpoint": format!("{push_base}/push/phone"),
            "keys": {"p256dh": URL_SAFE_NO_PAD.encode(device.pub_as_raw().unwrap()), "auth": URL_SAFE_NO_PAD.encode(auth)},
        });
        app.post("/v1/push-subscriptions", &token, subscription).await;
        let pool = app.state.pool.clone();
        actix_web::web::block(move || {
            let conn = &mut pool.get().unwrap();
            // Plain notices, as actions write them: the worker fans each
            // out to the reader's email and device, inside the timing.
            diesel::sql_query(format!(
                "INSERT INTO notices (user_id, match_id, seq, kind, payload, created_at) \
                 SELECT u.id, gen_random_uuid(), g, 'your_turn', '{{\"game\": \"checkers\"}}', now() - interval '100 years' \
                 FROM users u, generate_series(1, {n}) g WHERE u.username = 'reader'"
            ))
            .execute(conn)
            .unwrap();
        })
        .await
        .unwrap();

        let started = Instant::now();
        let fanned = app
            .blocking(|s| {
                let conn = &mut s.pool.get().unwrap();
                std::iter::from_fn(|| Some(posthorn::notify::outbox::fan_out(conn, &posthorn::talk::told::TURN_TALK).unwrap()))
                    .take_while(|(taken, _)| *taken > 0)
                    .map(|(_, fanned)| fanned)
                    .sum::<i64>()
            })
            .await;
        let fan_out = started.elapsed().as_secs_f64();
        assert_eq!(fanned, 2 * n);
        let done = app.blocking(|s| posthorn::jobs::delivery::deliver_due(&s.courier())).await.unwrap();
        let secs = started.elapsed().as_secs_f64();
        println!("fan-out of {n} notices into {fanned} deliveries: {:.0} ms", fan_out * 1e3);
        assert_eq!(done.sent as i64, 2 * n, "{done:?}");
        assert_eq!(mail.messages().len() as i64, n);
        assert_eq!(inbox.lock().unwrap().len() as i64, n);
        println!(
            "outbox: {} emails + {} pushes delivered in {secs:.2} s = {:.0} messages/s (one worker)",
            n,
            n,
            (2 * n) as f64 / secs
        );
        app.stop().await;
    });
}
