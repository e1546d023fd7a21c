//! Banqi over HTTP (issue #15): two users play whole matches by random
//! legal actions, and no response either of them receives ever shows a
//! face-down piece (docs/rules/banqi.md §B8, §H1), judged against the server's own
//! record of the layout in the database.

use crate::support::TestApp;
use diesel::prelude::*;
use posthorn_rules::{GameId, MatchState, Random, Seat, SplitMix64, Viewer};
use serde_json::{json, Value};
use uuid::Uuid;

/// A `game` match as the server recorded it: its rules events, folded
/// (the export's test reads FlipChess ones too).
pub(crate) async fn recorded_game(
    app: &TestApp,
    id: Uuid,
    game: GameId,
) -> (MatchState, Vec<Value>) {
    use posthorn::schema::match_events::dsl as e;
    let bodies: Vec<Value> = app
        .blocking(move |s| {
            e::match_events
                .filter(e::match_id.eq(id).and(e::rules.eq(true)))
                .order(e::seq)
                .select(e::body)
                .load(&mut s.pool.get().unwrap())
                .unwrap()
        })
        .await;
    let state = MatchState::replay(game, &bodies).expect("the log folds");
    (state, bodies)
}

async fn recorded(app: &TestApp, id: Uuid) -> (MatchState, Vec<Value>) {
    recorded_game(app, id, GameId::Banqi).await
}

/// Panics when anything in `shown` equals one of `secrets`.
pub(crate) fn assert_hides(shown: &Value, secrets: &[Value], what: &str) {
    assert!(
        !secrets.contains(shown),
        "{what} shows a face-down piece: {shown}"
    );
    match shown {
        Value::Array(items) => items.iter().for_each(|v| assert_hides(v, secrets, what)),
        Value::Object(fields) => fields.values().for_each(|v| assert_hides(v, secrets, what)),
        _ => {}
    }
}

#[actix_web::test]
async fn b8_whole_matches_by_random_legal_actions_never_show_a_face_down_piece() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let mut random = SplitMix64::new(15);
    let mut checked = 0;
    for _ in 0..2 {
        let m = app
            .post(
                "/v1/matches",
                &alice,
                json!({"game": "banqi", "opponents": ["bob"]}),
            )
            .await
            .body;
        let id: Uuid = m["id"].as_str().unwrap().parse().unwrap();
        let path = format!("/v1/matches/{id}");
        let seats = if m["my_seats"][0] == 0 {
            [&alice, &bob]
        } else {
            [&bob, &alice]
        };
        let (_, log) = recorded(&app, id).await;
        let layout = log[0]["position"]
            .as_str()
            .expect("the server records the layout");
        assert_eq!(layout.matches('?').count(), 32, "{layout}");
        let mut last = m;
        for _ in 0..3_000 {
            if last["status"] == "finished" {
                break;
            }
            let (state, _) = recorded(&app, id).await;
            let mut secrets = state.secrets(Viewer::Spectator);
            secrets.push(json!(layout));
            let mover = last["to_act"][0]["seat"].as_u64().unwrap() as usize;
            let mut shown = vec![("the last answer", last.clone())];
            for (seat, token) in seats.iter().enumerate() {
                assert_eq!(
                    state.secrets(Viewer::Seat(Seat(seat as u8))),
                    state.secrets(Viewer::Spectator)
                );
                shown.push(("a view", app.get(&path, token).await.body));
                shown.push((
                    "legal actions",
                    app.get(&format!("{path}/legal-actions"), token).await.body,
                ));
            }
            if random.below(10) == 0 {
                shown.push((
                    "the event feed",
                    app.get(&format!("{path}/events"), seats[mover]).await.body,
                ));
            }
            for (what, body) in &shown {
                assert_hides(body, &secrets, what);
                checked += 1;
            }
            let listed = &shown[2 + 2 * mover].1;
            let playing: Vec<&Value> = listed["actions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|a| a["type"] != "resign" && a["type"] != "grant_time")
                .collect();
            let action = playing[random.below(playing.len() as u64) as usize].clone();
            let reply = app
                .post(
                    &format!("{path}/actions"),
                    seats[mover],
                    json!({"seq": listed["seq"], "action": action}),
                )
                .await;
            assert_eq!(reply.status, 200, "{action}: {}", reply.body);
            last = reply.body["match"].clone();
            let (after, _) = recorded(&app, id).await;
            assert_hides(
                &reply.body,
                &after.secrets(Viewer::Spectator),
                "an action's answer",
            );
        }
        assert_eq!(last["status"], "finished", "{last}");
        let reason = last["result"]["reason"].as_str().unwrap();
        assert!(
            [
                "no_pieces",
                "no_legal_move",
                "threefold_repetition",
                "no_progress"
            ]
            .contains(&reason),
            "{reason}"
        );
        // The whole feed, for both, at the end: the layout only as turned up.
        for token in seats {
            let feed = app.get(&format!("{path}/events"), token).await.body;
            assert!(
                feed["events"][0]["position"].is_null(),
                "{}",
                feed["events"][0]
            );
            assert_hides(&feed, &[json!(layout)], "the final feed");
        }
    }
    assert!(checked > 200, "{checked} responses checked");
    app.stop().await;
}

#[actix_web::test]
async fn b8_refusals_name_no_face_down_piece() {
    let app = TestApp::start().await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    // A dealt layout: a player may not fix one (issue #30), so the
    // refusals are judged against the server's own record of it.
    let m = app
        .post(
            "/v1/matches",
            &alice,
            json!({"game": "banqi", "opponents": ["bob"]}),
        )
        .await
        .body;
    let id: Uuid = m["id"].as_str().unwrap().parse().unwrap();
    let (first, seat) = if m["view"]["on_move"] == m["my_seats"][0] {
        (&alice, m["my_seats"][0].as_u64().unwrap())
    } else {
        (&bob, 1 - m["my_seats"][0].as_u64().unwrap())
    };
    let (state, _) = recorded(&app, id).await;
    let secrets = state.secrets(Viewer::Seat(Seat(seat as u8)));
    for action in [
        json!({"type": "move", "move": "a1xb1"}),
        json!({"type": "move", "move": "a1-a2"}),
        json!({"type": "move", "move": "b1-c1"}),
    ] {
        let reply = app.act(first, &id.to_string(), action.clone()).await;
        assert_eq!(
            (reply.status.as_u16(), reply.code()),
            (422, "illegal_action"),
            "{action}"
        );
        assert_hides(&reply.body, &secrets, "a refusal");
        let text = reply.body["detail"].as_str().unwrap().to_lowercase();
        for piece in [
            "general", "advisor", "elephant", "chariot", "horse", "cannon", "soldier",
        ] {
            assert!(!text.contains(piece), "{action}: {text}");
        }
    }
    app.stop().await;
}
