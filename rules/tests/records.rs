//! Game records (issue #69, docs/records.md), one line per game and
//! variant: a seeded random match is written as its record, read back,
//! and its actions played again through the rules from the match's own
//! opening: every action legal, the same moves made, the start the
//! record names the start it was played from. A record written for
//! someone who may not see the hidden things (§H4) holds none of them,
//! and reads back to the same moves all the same. The check
//! bites: a checkers record with two moves swapped no longer replays.

mod harness;

use harness::random_match;
use posthorn_rules::records::{read, write, Header, Records};
use posthorn_rules::{Env, SplitMix64, Viewer};
use serde_json::{json, Value};

/// The words a log's actions are written as, in order (the movetext's
/// moves, as the game writes each).
fn words<G: Records>(events: &[G::Event]) -> Vec<String> {
    let mut state = G::State::default();
    let mut out = Vec::new();
    for event in events {
        if let Some((_, word)) = G::word(&state, event) {
            out.push(word);
        }
        G::apply(&mut state, event).unwrap();
    }
    out
}

/// The record's actions played again from `opening`: the log they make.
fn replayed<G: Records>(
    opening: &[G::Event],
    actions: &[G::Action],
) -> Result<Vec<G::Event>, String> {
    let mut state = G::State::default();
    let mut log = opening.to_vec();
    for event in opening {
        G::apply(&mut state, event).unwrap();
    }
    for (i, action) in actions.iter().enumerate() {
        let seat = G::to_act(&state)
            .first()
            .map(|d| d.seat)
            .ok_or(format!("action {i}: nobody owes one"))?;
        let mut random = SplitMix64::new(0);
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        let events =
            G::act(&state, seat, action, &mut env).map_err(|e| format!("action {i}: {e}"))?;
        for event in events {
            G::apply(&mut state, &event).unwrap();
            log.push(event);
        }
    }
    Ok(log)
}

/// The events before the first action a record writes: the setup's.
fn opening<G: Records>(log: &[G::Event]) -> Vec<G::Event> {
    let mut state = G::State::default();
    let mut out = Vec::new();
    for event in log {
        if G::word(&state, event).is_some() {
            break;
        }
        G::apply(&mut state, event).unwrap();
        out.push(event.clone());
    }
    out
}

fn header(seats: usize, whole: bool) -> Header {
    Header {
        site: "https://posthorn.example".into(),
        date: "2026.12.07".into(),
        names: (0..seats).map(|s| format!("player{s}")).collect(),
        whole,
    }
}

/// The round trip for one game: several seeds, whole and spectator's.
fn round_trip<G: Records>(config: Value, seats: usize, start_tag: Option<&str>) {
    let mut replayed_matches = 0;
    for seed in 1..=6 {
        let log = random_match::<G>(&config, seats, seed, 160);
        let reshuffled =
            (log.iter()).any(|e| serde_json::to_value(e).unwrap()["type"] == "reshuffled");
        if reshuffled {
            continue;
        }
        replayed_matches += 1;
        let opening = opening::<G>(&log);
        for whole in [true, false] {
            let text = write::<G>(&log, &header(seats, whole)).unwrap();
            let back = read::<G>(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
            let again = replayed::<G>(&opening, &back.actions)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
            assert_eq!(
                words::<G>(&again),
                words::<G>(&log),
                "seed {seed}: the same moves\n{text}"
            );
            if let Some(tag) = start_tag {
                let mut start = G::State::default();
                for event in &opening {
                    G::apply(&mut start, event).unwrap();
                }
                let position = serde_json::to_value(G::view(&start, Viewer::Spectator)).unwrap()
                    ["position"]
                    .clone();
                assert_eq!(
                    back.tag(tag),
                    position.as_str(),
                    "seed {seed}: the start named"
                );
            }
            if !whole {
                // §H4: nothing hidden at the start is in a spectator's
                // record (Banqi's layout; FlipChess's hands are arrays here,
                // so its own test below looks for the hands' tags and the
                // cards drawn).
                let mut start = G::State::default();
                for event in &opening {
                    G::apply(&mut start, event).unwrap();
                }
                for secret in G::secrets(&start, Viewer::Spectator) {
                    let secret = secret.as_str().map_or(secret.to_string(), str::to_owned);
                    assert!(
                        !text.contains(&secret),
                        "seed {seed}: {secret} in a spectator's record\n{text}"
                    );
                }
            }
        }
    }
    assert!(
        replayed_matches >= 3,
        "{replayed_matches} of 6 matches replayed"
    );
}

#[test]
fn checkers_records_are_pdn_that_replay_every_variant() {
    for variant in posthorn_rules::checkers::Variant::NAMES {
        // Russian and Brazilian name the start's squares by file and rank
        // (pydraughts reads them, `tests/records/run`).
        let numbered = !matches!(*variant, "russian" | "brazilian");
        round_trip::<posthorn_rules::checkers::Checkers>(
            json!({ "variant": variant }),
            2,
            numbered.then_some("FEN"),
        );
    }
}

#[test]
fn janggi_records_are_pgn_with_fairy_stockfish_fen_that_replay() {
    round_trip::<posthorn_rules::janggi::Janggi>(json!({}), 2, Some("FEN"));
}

#[test]
fn four_player_chess_records_are_pgn4_that_replay_in_every_mode() {
    for mode in ["teams", "ffa", "points"] {
        round_trip::<posthorn_rules::four_player_chess::FourPlayerChess>(
            json!({ "mode": mode }),
            4,
            Some("Position"),
        );
    }
}

/// FlipChess's draws come from the deck the opening holds; a reshuffle
/// (§F2) draws its order at random, so matches that reach one are left
/// out of the replay (the record still says what was drawn).
#[test]
fn flipchess_records_replay_and_show_hands_and_draws_only_to_the_players_h3() {
    round_trip::<posthorn_rules::flipchess::FlipChess>(json!({}), 2, Some("Position"));
    let log = random_match::<posthorn_rules::flipchess::FlipChess>(&json!({}), 2, 9, 60);
    let whole = write::<posthorn_rules::flipchess::FlipChess>(&log, &header(2, true)).unwrap();
    let seen = write::<posthorn_rules::flipchess::FlipChess>(&log, &header(2, false)).unwrap();
    assert!(
        whole.contains("[WhiteHand \"") && whole.contains("draw {"),
        "{whole}"
    );
    assert!(!seen.contains("Hand") && !seen.contains("draw {"), "{seen}");
}

#[test]
fn banqi_records_replay_and_show_the_layout_only_to_the_players_h3() {
    round_trip::<posthorn_rules::banqi::Banqi>(json!({}), 2, None);
    let log = random_match::<posthorn_rules::banqi::Banqi>(&json!({}), 2, 9, 40);
    let whole = write::<posthorn_rules::banqi::Banqi>(&log, &header(2, true)).unwrap();
    let seen = write::<posthorn_rules::banqi::Banqi>(&log, &header(2, false)).unwrap();
    assert!(whole.contains("[Layout \"?"), "{whole}");
    assert!(!seen.contains("Layout"), "{seen}");
}

/// The check bites: a record with two of its moves swapped does not
/// replay to the same moves.
#[test]
fn a_record_with_two_moves_swapped_does_not_replay() {
    type C = posthorn_rules::checkers::Checkers;
    let log = random_match::<C>(&json!({}), 2, 3, 40);
    let text = write::<C>(&log, &header(2, true)).unwrap();
    let mut back = read::<C>(&text).unwrap();
    back.actions.swap(0, 1);
    // Either a move is refused, or the moves made are others.
    if let Ok(again) = replayed::<C>(&opening::<C>(&log), &back.actions) {
        assert_ne!(words::<C>(&again), words::<C>(&log));
    }
}

/// Records for the independent readers (`tests/records/run`: pydraughts
/// reads American, Brazilian, International and Russian PDN, pyffish
/// Janggi's PGN): six seeded random matches per game, each written whole
/// to `$RECORDS_OUT/<game>-<seed>.<ext>` beside `<game>-<seed>.end`, the
/// final position's FEN as the record's `FEN` tag writes it, for the reader to reach by
/// its own rules. Ignored in the plain run: the readers' script runs it.
#[test]
#[ignore]
fn written_for_independent_readers() {
    let out = std::path::PathBuf::from(std::env::var("RECORDS_OUT").expect("RECORDS_OUT"));
    std::fs::create_dir_all(&out).unwrap();
    fn each<G: Records>(out: &std::path::Path, name: &str, config: Value) {
        for seed in 1..=6 {
            let log = random_match::<G>(&config, 2, seed, 200);
            let text = write::<G>(&log, &header(2, true)).unwrap();
            let mut end = G::State::default();
            for event in &log {
                G::apply(&mut end, event).unwrap();
            }
            // The end as the record's own FEN tag would name it.
            let fen = (G::tags(&end, &end, &header(2, true)).into_iter())
                .find(|(name, _)| *name == "FEN")
                .unwrap()
                .1;
            let file = out.join(format!("{name}-{seed}"));
            std::fs::write(file.with_extension(G::EXTENSION), text).unwrap();
            std::fs::write(file.with_extension("end"), fen).unwrap();
        }
    }
    for variant in ["american", "brazilian", "international", "russian"] {
        each::<posthorn_rules::checkers::Checkers>(&out, variant, json!({ "variant": variant }));
    }
    each::<posthorn_rules::janggi::Janggi>(&out, "janggi", json!({}));
}
