//! Examples of every game's payloads in the OpenAPI document
//! (docs/decisions/api-and-schemas.md): a match at its start, its legal
//! actions, an action and the answer with its events. They are played, not
//! written: each game is set up with a fixed seed and its first legal
//! action applied through the rules crate, and the service's own types and
//! redaction shape them (as seat 0, Alice, sees them), so an example cannot
//! show what the code would not send.

use crate::matches::duties;
use crate::matches::play::{ActionAnswer, ActionRequest, LegalActions, SeatActions};
use crate::matches::view::event_view;
use crate::matches::{EventRow, MatchStatus, MatchView, SeatView};
use crate::players::Player;
use chrono::{DateTime, TimeZone, Utc};
use posthorn_rules::{Env, GameId, MatchState, Seat, SplitMix64, Viewer};
use serde_json::{json, Value};
use uuid::Uuid;

/// One game's examples, each ready for the document.
pub struct Examples {
    pub start: Value,
    pub legal_actions: Value,
    pub request: Value,
    pub answer: Value,
}

const TURN_SECONDS: i64 = 48 * 3600;

fn at(minutes: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 1, 9, minutes, 0)
        .single()
        .expect("a valid time")
}

fn player(n: u8) -> Player {
    let name = ["alice", "bob", "carol", "dave"][n as usize % 4];
    Player {
        id: Uuid::from_u128(0xa11ce + n as u128),
        username: name.into(),
        display_name: format!("{}{}", name[..1].to_uppercase(), &name[1..]),
        guest: false,
        computer: None,
        deleted: false,
        emblem: None,
    }
}

/// The match as Alice (seat 0) sees it after `log`.
fn match_view(game: GameId, state: &MatchState, seats: usize, seq: i32, now: u32) -> MatchView {
    let about = game.about();
    let to_act = duties::schedule(&[], &state.to_act(), at(now), TURN_SECONDS);
    MatchView {
        id: Uuid::from_u128(0x5eed + game as u128),
        game: game.id().into(),
        variant: about.variants.first().map(|v| v.to_string()),
        mode: about.modes.first().map(|m| m.to_string()),
        status: MatchStatus::Active,
        seq,
        rated: false,
        options: serde_json::json!({}),
        turn_hours: (TURN_SECONDS / 3600) as f64,
        seats: (0..seats as u8)
            .map(|seat| SeatView {
                seat,
                user: Some(player(seat)),
            })
            .collect(),
        my_seats: vec![0],
        to_act,
        round: state.round(),
        view: state.view(Viewer::Seat(Seat(0))),
        result: state.outcome().and_then(|o| serde_json::to_value(o).ok()),
        created_at: at(0),
        updated_at: at(now),
        invite: None,
        invites: Vec::new(),
        challenges: Vec::new(),
        rematch_of: None,
        rematch: None,
        tournament: None,
        takeback_asked_by: None,
        rematch_asked_by: Vec::new(),
        unread_messages: 0,
    }
}

/// Set `game` up with its default options and play its first legal action.
pub fn examples(game: GameId) -> Result<Examples, String> {
    let seats = game.about().seats.0;
    let mut random = SplitMix64::new(2026);
    let opening = MatchState::setup(game, &json!({}), seats, &mut random)
        .map_err(|e| format!("{}: setup: {}", game.id(), e.message))?;
    let mut state = MatchState::replay(game, &opening).map_err(|e| e.message)?;
    let seq = opening.len() as i32;
    let start = match_view(game, &state, seats, seq, 0);

    // Who acts first; the example acts from that seat's point of view, so
    // the match is shown from the same seat.
    let seat = state
        .to_act()
        .first()
        .map(|d| d.seat)
        .ok_or_else(|| format!("{}: nobody acts at the start", game.id()))?;
    let actions = state.legal_actions(seat);
    let legal_actions = LegalActions {
        game: game.id().into(),
        seq,
        actions: actions.clone(),
        seats: vec![SeatActions {
            seat: seat.0,
            actions: actions.clone(),
        }],
    };
    let action = actions
        .first()
        .cloned()
        .ok_or_else(|| format!("{}: no legal action at the start", game.id()))?;
    let request = ActionRequest {
        seq,
        seat: None,
        action: action.clone(),
    };
    let mut env = Env {
        now: at(1).timestamp_millis(),
        random: &mut random,
    };
    let bodies = state
        .act(seat, &action, &mut env)
        .map_err(|e| format!("{}: first action: {}", game.id(), e.message))?;
    let mut events = Vec::new();
    for (n, body) in bodies.into_iter().enumerate() {
        state.apply(&body).map_err(|e| e.message)?;
        let row = EventRow {
            seq: seq + 1 + n as i32,
            at: at(1),
            seat: Some(seat.0 as i16),
            rules: true,
            body,
        };
        events.push(event_view(game, &row, Viewer::Seat(Seat(0))).map_err(|e| e.message)?);
    }
    let answer = ActionAnswer {
        game: game.id().into(),
        match_view: match_view(game, &state, seats, seq + events.len() as i32, 1),
        events,
    };
    let value = |v: serde_json::Result<Value>| v.map_err(|e| e.to_string());
    Ok(Examples {
        start: value(serde_json::to_value(&start))?,
        legal_actions: value(serde_json::to_value(&legal_actions))?,
        request: value(serde_json::to_value(&request))?,
        answer: value(serde_json::to_value(&answer))?,
    })
}

/// Where each example goes: its JSON pointer under the operation, below
/// `content/application~1json/examples`.
const PLACES: [(&str, &str); 4] = [
    ("/paths/~1v1~1matches~1{id}/get/responses/200", "start"),
    (
        "/paths/~1v1~1matches~1{id}~1legal-actions/get/responses/200",
        "legal_actions",
    ),
    (
        "/paths/~1v1~1matches~1{id}~1actions/post/requestBody",
        "request",
    ),
    (
        "/paths/~1v1~1matches~1{id}~1actions/post/responses/200",
        "answer",
    ),
];

/// The document with every game's examples on the match operations, named
/// by game (`checkers`, `flipchess`, …). A game whose examples cannot be
/// played is left without (its unit test fails instead).
pub fn with_game_examples(mut doc: Value) -> Value {
    for game in GameId::ALL.iter().copied() {
        let Ok(examples) = examples(game) else {
            continue;
        };
        for (operation, which) in PLACES {
            let value = match which {
                "start" => &examples.start,
                "legal_actions" => &examples.legal_actions,
                "request" => &examples.request,
                _ => &examples.answer,
            };
            let Some(media) = doc.pointer_mut(&format!("{operation}/content/application~1json"))
            else {
                continue;
            };
            let slot = media
                .as_object_mut()
                .map(|m| m.entry("examples").or_insert_with(|| json!({})));
            if let Some(Value::Object(named)) = slot {
                let summary = format!("{} ({})", game.about().name, which.replace('_', " "));
                named.insert(
                    game.id().into(),
                    json!({"summary": summary, "value": value}),
                );
            }
        }
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every registered game has its four examples
    /// (docs/decisions/api-and-schemas.md, "Typed game payloads"), played
    /// from its start, and the answer's match moved on by the action's
    /// events.
    #[test]
    fn every_game_has_played_examples() {
        for game in GameId::ALL.iter().copied() {
            let e = examples(game).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(e.start["view"]["game"], game.id());
            assert!(!e.legal_actions["actions"].as_array().unwrap().is_empty());
            assert_eq!(e.request["action"], e.legal_actions["actions"][0]);
            let events = e.answer["events"].as_array().unwrap();
            assert!(
                !events.is_empty(),
                "{}: the action made no event",
                game.id()
            );
            assert_eq!(
                e.answer["match"]["seq"].as_i64().unwrap(),
                e.start["seq"].as_i64().unwrap() + events.len() as i64
            );
        }
    }
}
