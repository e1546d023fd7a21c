//! Who reads a notice, and when (docs/decisions/notifications.md, "The lock
//! screen"): the reader's language, time zone and the names a notice speaks
//! of, and the sentences built from them that more than one kind says: a
//! game with its variant, a deadline, a result as the board says it, a last
//! move.

use super::when;
use super::words::Locale;
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::collections::HashMap;
use uuid::Uuid;

/// Who reads a notice, and when: what its words depend on besides its
/// payload (docs/decisions/notifications.md, "The lock screen").
pub(super) struct Reading<'a> {
    pub(super) locale: Locale,
    pub(super) zone: chrono_tz::Tz,
    pub(super) now: DateTime<Utc>,
    /// The reader: their own rating change in a result.
    pub(super) user: Uuid,
    /// Players' names by id (`None`: a deleted account), for results and
    /// last moves.
    pub(super) names: &'a HashMap<Uuid, Option<String>>,
}

impl Reading<'_> {
    /// A word shared with the web client, or `fallback` where there is none.
    pub(super) fn word_or(&self, key: &str, fallback: &str) -> String {
        match self.locale.known_word(key) {
            Some(word) => word.to_owned(),
            None => fallback.replace('_', " "),
        }
    }

    /// A game by its API id, with its variant where it is not the
    /// game's first: "체커 (러시아식)", "Checkers (Russian)".
    pub(super) fn game(&self, id: &str, variant: Option<&str>) -> String {
        let Some(game) = posthorn_rules::GameId::parse(id) else {
            return "Posthorn".into();
        };
        let name = self.word_or(&format!("game_{id}"), game.about().name);
        match variant.filter(|v| game.about().variants.first() != Some(v)) {
            Some(v) => format!("{name} ({})", self.word_or(&format!("variant_{v}"), v)),
            None => name,
        }
    }

    pub(super) fn name(&self, id: &Value) -> String {
        let id = id.as_str().and_then(|i| i.parse::<Uuid>().ok());
        match id.and_then(|i| self.names.get(&i)) {
            Some(Some(name)) => name.clone(),
            _ => self.locale.word("deleted_player").to_owned(),
        }
    }

    /// A deadline: when, on the reader's clock, and how long is left.
    pub(super) fn deadline(&self, at: &Value) -> (String, String) {
        match when::read(at) {
            Some(at) => (
                when::moment(self.locale, self.zone, at),
                when::left(self.locale, self.now, at),
            ),
            None => Default::default(),
        }
    }

    /// The result as the board says it: "지우 기권 — 민준 승리", "Draw:
    /// threefold repetition"; and the reader's rating change, if rated,
    /// and the coins it paid them, if any ("+12 코인").
    pub(super) fn result(&self, payload: &Value) -> (String, Option<String>) {
        let result = &payload["result"];
        let players = payload["players"].as_array().cloned().unwrap_or_default();
        let reason = result["reason"].as_str().unwrap_or("finished");
        let said = self.word_or(&format!("reason_{reason}"), reason);
        let seats = |list: &Value| -> Vec<usize> {
            (list.as_array().into_iter().flatten())
                .filter_map(|s| s.as_u64().map(|s| s as usize))
                .collect()
        };
        let winners = seats(&result["winners"]);
        let named = |seat: &usize| self.name(players.get(*seat).unwrap_or(&Value::Null));
        let line = if winners.is_empty() {
            self.locale.say("result.draw", &[("reason", &said)])
        } else {
            let losers: Vec<String> = (0..players.len())
                .filter(|s| !winners.contains(s) && !players[*s].is_null())
                .map(|s| named(&s))
                .collect();
            let won = winners.iter().map(named).collect::<Vec<_>>().join(", ");
            let won = self.locale.say("result.won", &[("winners", &won)]);
            let personal = ["resigned", "abandoned", "conceded"].contains(&reason);
            let how = if personal && !losers.is_empty() {
                let losers = losers.join(", ");
                let values = [("losers", losers.as_str()), ("reason", &said)];
                self.locale.say("result.gone", &values)
            } else {
                said
            };
            self.locale
                .say("result.line", &[("how", &how), ("won", &won)])
        };
        let me = self.user.to_string();
        let mine = |key: &str| {
            (result[key].as_array().into_iter().flatten()).find(|r| {
                let seat = r["seat"].as_u64().unwrap_or(u64::MAX) as usize;
                players.get(seat).and_then(Value::as_str) == Some(me.as_str())
            })
        };
        let coins = (mine("coins").and_then(|c| c["coins"].as_i64()))
            .filter(|c| *c > 0)
            .map(|c| {
                self.locale
                    .say("result.coins", &[("coins", &c.to_string())])
            });
        let rating = mine("ratings").map(|r| {
            let number = |key: &str| r[key].as_f64().unwrap_or(0.0).round() as i64;
            let change = number("change");
            let values = [
                ("before", number("before").to_string()),
                ("after", number("after").to_string()),
                (
                    "change",
                    format!("{}{change}", if change >= 0 { "+" } else { "" }),
                ),
            ];
            let values: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
            self.locale.say("result.rating", &values)
        });
        let told = match (rating, coins) {
            (Some(rating), Some(coins)) => Some(format!("{rating} {coins}")),
            (rating, coins) => rating.or(coins),
        };
        (line, told)
    }

    /// The opponent's last move of a turn notice
    /// (docs/decisions/notifications.md, "The last move"): "지우: 차 e2→e7",
    /// in the game's own notation with the piece.
    pub(super) fn last_move(&self, last: &Value) -> Option<String> {
        let name = self.name(&last["by"]);
        let piece = last["piece"].as_str().map(|p| self.word_or(p, p));
        let text = |key: &str, values: &[(&str, &str)]| self.locale.say(key, values);
        match (last["at"].as_str(), piece) {
            (Some(at), Some(piece)) => Some(text(
                "your_turn.turned_up",
                &[("name", &name), ("piece", &piece), ("at", at)],
            )),
            (Some(_), None) => None,
            (None, piece) => {
                let (from, to) = (last["from"].as_str()?, last["to"].as_str()?);
                let squares = [("name", name.as_str()), ("from", from), ("to", to)];
                Some(match piece {
                    Some(piece) => text(
                        "your_turn.moved",
                        &[squares[0], ("piece", &piece), squares[1], squares[2]],
                    ),
                    None => text("your_turn.moved_unnamed", &squares),
                })
            }
        }
    }
}
