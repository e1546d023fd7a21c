//! FlipChess over HTTP (issue #4): two users play whole matches by random
//! legal actions — flip decisions and last-card penalties included — and
//! neither ever receives the other's cards in any response.

use crate::support::{Reply, TestApp};
use chrono::Duration;
use posthorn_rules::flipchess::board::{Board, Kind};
use posthorn_rules::{Random, SplitMix64};

fn square(name: &str) -> u8 {
    let b = name.as_bytes();
    (b[1] - b'1') * 8 + (b[0] - b'a')
}
use serde_json::{json, Value};

/// Nothing in `body`, sent to `me`, shows a card `me` may not see.
pub(crate) fn assert_no_hidden_cards(body: &Value, me: u64) {
    match body {
        Value::Object(map) => {
            if map.get("type").and_then(Value::as_str) == Some("drew")
                && map.get("seat").and_then(Value::as_u64) != Some(me)
            {
                assert!(map["cards"].is_null(), "another seat's draw leaked: {body}");
            }
            if map
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t == "started" || t == "reshuffled")
            {
                assert!(map["deck"].is_null(), "the deck order leaked: {body}");
            }
            for (key, value) in map {
                assert!(key != "hands", "both hands in one response: {body}");
                assert_no_hidden_cards(value, me);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| assert_no_hidden_cards(v, me)),
        _ => {}
    }
}

struct Player {
    token: String,
    seat: u64,
}

fn checked(reply: Reply, me: &Player) -> Reply {
    assert_no_hidden_cards(&reply.body, me.seat);
    if let Some(view) = reply
        .body
        .get("view")
        .or_else(|| reply.body.get("match").map(|m| &m["view"]))
    {
        if let Some(hand) = view.get("hand") {
            let size = view["hand_sizes"][me.seat as usize].as_u64().unwrap();
            assert_eq!(
                hand.as_array().unwrap().len() as u64,
                size,
                "the hand shown is my own"
            );
        }
    }
    reply
}

#[actix_web::test]
async fn two_users_play_whole_flipchess_matches_and_never_see_each_others_cards() {
    let app = TestApp::start_with(posthorn::config::Config {
        access_token_seconds: 90 * 24 * 3600,
        ..Default::default()
    })
    .await;
    let alice = app.register("alice").await;
    let bob = app.register("bob").await;
    let mut random = SplitMix64::new(5);
    let (mut flips, mut penalties, mut games, mut sweep_penalties, mut windows) = (0, 0, 0, 0, 0);
    // Every other match starts where each queen already attacks the other
    // king (the players take a king whenever they can, so round-1–3 king
    // captures and flip decisions come early); the others start from the
    // standard position and last long enough for hands to run down to one
    // card.
    let exposed = "4k2Q/8/8/8/8/8/8/4K2q w - - 0 1";
    let standard = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    while games < 4 || flips == 0 || penalties == 0 || sweep_penalties == 0 {
        assert!(
            games < 60,
            "in {games} games: {flips} flip decisions, {penalties} penalties, {sweep_penalties} by the sweep"
        );
        games += 1;
        let position = if games % 2 == 0 { exposed } else { standard };
        let m = app
            .post("/v1/matches", &alice, json!({"game": "flipchess", "opponents": ["bob"], "options": {"position": position}}))
            .await;
        assert_eq!(m.status, 201, "{}", m.body);
        let id = m.body["id"].as_str().unwrap().to_owned();
        let a_seat = m.body["my_seats"][0].as_u64().unwrap();
        let players = [
            Player {
                token: alice.clone(),
                seat: a_seat,
            },
            Player {
                token: bob.clone(),
                seat: 1 - a_seat,
            },
        ];
        for step in 0.. {
            assert!(step < 3000, "the match must end");
            let view = checked(
                app.get(&format!("/v1/matches/{id}"), &players[0].token)
                    .await,
                &players[0],
            )
            .body;
            if view["status"] == "finished" {
                break;
            }
            let mut options = Vec::new();
            for p in &players {
                let legal = checked(
                    app.get(&format!("/v1/matches/{id}/legal-actions"), &p.token)
                        .await,
                    p,
                )
                .body;
                for action in legal["actions"].as_array().unwrap() {
                    let kind = action["type"].as_str().unwrap();
                    if kind != "resign" && kind != "grant_time" {
                        options.push((p, legal["seq"].clone(), action.clone()));
                    }
                }
            }
            let window_open = options
                .iter()
                .any(|(_, _, a)| a["type"] == "call_last_card");
            if window_open && random.below(3) > 0 {
                // Let the 3-second window pass: the sweep or the next request,
                // whichever comes first, resolves it — once.
                app.clock.advance(Duration::seconds(4));
                windows += 1;
                if windows % 2 == 0 {
                    let swept = app
                        .blocking(|s| posthorn::jobs::deadlines::Sweeper::of(s).sweep())
                        .await
                        .unwrap();
                    assert_eq!(swept.matches, 1, "the closed window makes the match due");
                    sweep_penalties += 1;
                }
                continue;
            }
            let board = Board::from_fen(view["view"]["position"].as_str().unwrap()).unwrap();
            let takes_king = |a: &Value| {
                let to = a["move"].as_str().and_then(|m| m.get(2..4)).map(square);
                to.is_some_and(|sq| {
                    board.squares[sq as usize].is_some_and(|p| p.kind == Kind::King)
                })
            };
            let pick = options.iter().position(|(_, _, a)| takes_king(a));
            let (p, seq, action) =
                &options[pick.unwrap_or_else(|| random.below(options.len() as u64) as usize)];
            let reply = checked(
                app.post(
                    &format!("/v1/matches/{id}/actions"),
                    &p.token,
                    json!({"seq": seq, "action": action}),
                )
                .await,
                p,
            );
            assert_eq!(reply.status, 200, "{action}: {}", reply.body);
        }
        let feed = checked(
            app.get(&format!("/v1/matches/{id}/events"), &bob).await,
            &players[1],
        )
        .body;
        for e in feed["events"].as_array().unwrap() {
            flips += (e["type"] == "flip_decision_owed") as u32;
            penalties += (e["type"] == "drew" && e["reason"] == "last_card_penalty") as u32;
        }
        let alices = checked(
            app.get(&format!("/v1/matches/{id}/events"), &alice).await,
            &players[0],
        )
        .body;
        assert_eq!(alices["seq"], feed["seq"]);
    }
    app.stop().await;
}

/// Issue #12: game chance is injected like the clock, so a seeded service
/// seats the players and deals the cards the same way every time.
#[actix_web::test]
async fn a_seeded_service_deals_the_same_flipchess_match_twice() {
    let mut deals = Vec::new();
    for seed in [2026, 2026, 7] {
        let app = TestApp::start_seeded(seed).await;
        let alice = app.register("alice").await;
        let bob = app.register("bob").await;
        let created = app
            .post(
                "/v1/matches",
                &alice,
                json!({"game": "flipchess", "opponents": ["bob"]}),
            )
            .await;
        assert_eq!(created.status, 201, "{}", created.body);
        let path = format!("/v1/matches/{}", created.body["id"].as_str().unwrap());
        let (a, b) = (
            app.get(&path, &alice).await.body,
            app.get(&path, &bob).await.body,
        );
        let seating: Vec<&Value> = a["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| &s["user"]["username"])
            .collect();
        deals.push(json!({
            "seats": seating,
            "white": a["view"]["white"],
            "alice": a["view"]["hand"],
            "bob": b["view"]["hand"],
            "discard": a["view"]["discard_top"],
        }));
        app.stop().await;
    }
    assert_eq!(deals[0], deals[1], "the same seed deals the same match");
    assert_ne!(deals[0], deals[2], "another seed deals another");
}
