//! Seeded random playouts of whole FlipChess matches (issue #4): the 108
//! cards are always accounted for, nothing panics, every listed action
//! applies, fold(events) = state, no view or redacted event shows a card
//! its viewer may not see, and every match ends.

use posthorn_rules::flipchess::cards::{Card, DECK_SIZE};
use posthorn_rules::flipchess::{Action, Config, Event, FlipChess, State};
use posthorn_rules::{Env, Game, GameId, MatchState, Random, Seat, SplitMix64, Viewer};
use std::collections::BTreeMap;

const GAMES: u64 = 2000;

fn accounted(state: &State) {
    let mut all: Vec<u8> = state
        .deck
        .iter()
        .chain(&state.discard)
        .chain(&state.hands[0])
        .chain(&state.hands[1])
        .copied()
        .collect();
    all.sort_unstable();
    assert_eq!(
        all,
        (0..DECK_SIZE).collect::<Vec<_>>(),
        "every card exactly once"
    );
}

/// What `viewer` is shown must not name a card of the other hand, and the
/// deck order never.
fn no_leaks(state: &State, new_events: &[Event]) {
    for seat in [Seat(0), Seat(1)] {
        let view = serde_json::to_value(FlipChess::view(state, Viewer::Seat(seat))).unwrap();
        let hand: Vec<String> = state.hands[seat.index()]
            .iter()
            .map(|&c| Card::of(c).name())
            .collect();
        assert_eq!(
            view["hand"],
            serde_json::json!(hand),
            "a seat sees exactly its own hand"
        );
        assert!(view.get("deck").is_none());
        for event in new_events {
            match FlipChess::redact(event, Viewer::Seat(seat)) {
                Event::Started { deck, .. } | Event::Reshuffled { deck, .. } => {
                    assert!(deck.is_none())
                }
                Event::Drew {
                    seat: drawer,
                    cards,
                    ..
                } if drawer != seat => assert!(cards.is_none(), "another's draw is hidden"),
                _ => {}
            }
        }
    }
    let spectator = serde_json::to_value(FlipChess::view(state, Viewer::Spectator)).unwrap();
    assert!(spectator.get("hand").is_none());
    for event in new_events {
        if let Event::Drew { cards, .. } = FlipChess::redact(event, Viewer::Spectator) {
            assert!(cards.is_none());
        }
    }
}

fn pick(random: &mut SplitMix64, actions: &[Action]) -> Action {
    // Resigning rarely, so most matches are played out.
    let playing: Vec<&Action> = actions
        .iter()
        .filter(|a| !matches!(a, Action::Resign {}))
        .collect();
    if playing.is_empty() || random.below(2000) == 0 {
        return Action::Resign {};
    }
    playing[random.below(playing.len() as u64) as usize].clone()
}

#[test]
fn playouts_keep_every_card_accounted_for_leak_nothing_and_end() {
    let mut reasons = BTreeMap::new();
    let mut flips = 0;
    let mut penalties = 0;
    for seed in 0..GAMES {
        let mut random = SplitMix64::new(seed);
        let mut now = 1_000_000i64;
        let mut log = FlipChess::setup(&Config::default(), 2, &mut random).unwrap();
        let mut state = State::default();
        for e in &log {
            FlipChess::apply(&mut state, e).unwrap();
        }
        accounted(&state);
        assert_eq!((state.hands[0].len(), state.hands[1].len()), (7, 7));
        let mut steps = 0;
        while FlipChess::outcome(&state).is_none() {
            steps += 1;
            assert!(steps < 20_000, "seed {seed}: the match must end");
            now += random.below(2500) as i64;
            let mut env = Env {
                now,
                random: &mut random,
            };
            let mut events = FlipChess::expire(&state, &mut env);
            if events.is_empty() {
                // A seat with something to do besides resigning.
                let busy: Vec<Seat> = [Seat(0), Seat(1)]
                    .into_iter()
                    .filter(|s| {
                        FlipChess::legal_actions(&state, *s)
                            .iter()
                            .any(|a| !matches!(a, Action::Resign {}))
                    })
                    .collect();
                assert!(!busy.is_empty(), "seed {seed}: someone can always act");
                let seat = busy[random.below(busy.len() as u64) as usize];
                let actions = FlipChess::legal_actions(&state, seat);
                for action in &actions {
                    let mut env = Env {
                        now,
                        random: &mut random,
                    };
                    if let Err(e) = FlipChess::act(&state, seat, action, &mut env) {
                        panic!("seed {seed}: listed {action:?} refused: {e}");
                    }
                }
                let action = pick(&mut random, &actions);
                let mut env = Env {
                    now,
                    random: &mut random,
                };
                events = FlipChess::act(&state, seat, &action, &mut env).unwrap();
            }
            for e in &events {
                FlipChess::apply(&mut state, e).unwrap();
                flips += matches!(e, Event::Flipped { .. }) as u32;
                penalties +=
                    matches!(e, Event::Drew { reason, .. } if reason == "last_card_penalty") as u32;
            }
            accounted(&state);
            no_leaks(&state, &events);
            log.extend(events);
        }
        *reasons
            .entry(state.outcome.clone().unwrap().reason)
            .or_insert(0) += 1;
        let stored: Vec<serde_json::Value> = log
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect();
        let replayed = MatchState::replay(GameId::FlipChess, &stored).unwrap();
        assert_eq!(
            replayed,
            MatchState::FlipChess(state),
            "seed {seed}: fold(events) = state"
        );
    }
    for reason in ["king_captured", "hand_emptied", "round_limit"] {
        assert!(
            reasons.contains_key(reason),
            "no playout ended by {reason}: {reasons:?}"
        );
    }
    assert!(
        flips > 0 && penalties > 0,
        "flips {flips}, penalties {penalties}"
    );
}
