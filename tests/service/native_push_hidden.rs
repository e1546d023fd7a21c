//! Push to the native apps (issue #51): nothing hidden from a player
//! reaches their phone.

use crate::native_peers::{self, apns_peer, fcm_peer};
use crate::native_push::{android_token, config, deliver, ios_token, register_device};
use crate::support::TestApp;
use posthorn_rules::SplitMix64;
use serde_json::{json, Value};

#[actix_web::test]
async fn a_banqi_push_shows_no_face_down_piece() {
    push_hides_secrets("banqi", posthorn_rules::GameId::Banqi).await;
}

#[actix_web::test]
async fn a_flipchess_push_shows_no_hand_and_no_deck() {
    push_hides_secrets("flipchess", posthorn_rules::GameId::FlipChess).await;
}

/// Hidden information (DESIGN: never in a push): a Banqi or FlipChess
/// table, Alice on an Android phone and Bob on an iPhone; after every
/// ply each payload delivered since is checked against what is hidden
/// from its reader's seat at that moment.
async fn push_hides_secrets(game: &str, id_of: posthorn_rules::GameId) {
    use posthorn_rules::{Seat, Viewer};
    let tls = native_peers::tls();
    let (apns, fcm) = (apns_peer(&tls), fcm_peer(&tls));
    let app = TestApp::start_with(config(&tls, Some(&apns), Some(&fcm))).await;
    let (alice, bob) = (app.register("alice").await, app.register("bob").await);
    for (token, body) in [
        (
            &alice,
            json!({"platform": "android", "token": android_token("alice")}),
        ),
        (&bob, json!({"platform": "ios", "token": ios_token(7)})),
    ] {
        assert_eq!(register_device(&app, token, body).await.status, 201);
    }
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": game, "opponents": ["bob"]}),
        )
        .await
        .body;
    let id = m["id"].as_str().unwrap().to_owned();
    let alice_seat = Seat(m["my_seats"][0].as_u64().unwrap() as u8);
    let bob_seat = Seat(1 - alice_seat.0);
    let mut random = SplitMix64::new(5);
    let (mut seen_apns, mut seen_fcm, mut checked) = (0, 0, 0);
    // A FlipChess seat may play many plies in a row (a card's moves, a
    // flip decision), and a turn notice goes only when the turn passes:
    // play on until each phone has heard three times.
    for _ in 0..120 {
        let last = app
            .play_moves(
                &[&alice, &bob],
                &id,
                &mut random,
                1,
                crate::support::plays_on,
            )
            .await;
        deliver(&app).await;
        let (state, _) = crate::banqi::recorded_game(&app, id.parse().unwrap(), id_of).await;
        for (seat, payloads) in [
            (bob_seat, {
                let log = apns.log.lock().unwrap();
                let new: Vec<Value> = log.received[seen_apns..]
                    .iter()
                    .map(|r| json!([r.headers, r.payload]))
                    .collect();
                seen_apns = log.received.len();
                new
            }),
            (alice_seat, {
                let log = fcm.log.lock().unwrap();
                let new: Vec<Value> = log.received[seen_fcm..]
                    .iter()
                    .map(|r| r.message.clone())
                    .collect();
                seen_fcm = log.received.len();
                new
            }),
        ] {
            let hidden = state.secrets(Viewer::Seat(seat));
            assert!(
                !hidden.is_empty(),
                "something is hidden from seat {}",
                seat.0
            );
            for payload in &payloads {
                crate::banqi::assert_hides(payload, &hidden, "a native push");
                checked += 1;
            }
        }
        if last["status"] == "finished" || (seen_apns >= 3 && seen_fcm >= 3) {
            break;
        }
    }
    assert!(
        seen_apns >= 3 && seen_fcm >= 3 && checked >= 6,
        "notices reached both phones (iPhone {seen_apns}, Android {seen_fcm})"
    );
    app.stop().await;
}
