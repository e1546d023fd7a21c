//! The computer opponents of four-player chess (docs/rules/four-player-chess.md §Q), FlipChess
//! (§F) and Banqi (§B) (issue #32).
//!
//! * No peeking (§H): `engine::decide` is handed a seat's own view only,
//!   so two states that look the same from the seat — Banqi with the
//!   face-down identities permuted (§B8), FlipChess with the other hand
//!   and the deck reshuffled together (§H1) — get the same decision for
//!   the same seed. The premise (the views are equal) is checked too.
//! * Every decision is one of the seat's legal actions, in its JSON shape,
//!   and computer-vs-computer matches end, at every level and in every
//!   four-player mode.
//! * An ignored test measures think time and strength (docs/bots-hidden.md):
//!   `cargo test --release -p posthorn-rules --test bots_hidden -- --ignored --nocapture`.

use posthorn_rules::banqi::{Banqi, Cell, State as BanqiState};
use posthorn_rules::engine::{self, Level};
use posthorn_rules::flipchess::{FlipChess, State as FlipState};
use posthorn_rules::{DutyKind, Env, Game, GameId, MatchState, Random, Seat, SplitMix64, Viewer};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Who plays a seat: a level, or uniformly random legal actions (never
/// resigning) as the strength check's floor.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Player {
    Bot(Level),
    Random,
}

struct Playout {
    state: MatchState,
    actions: usize,
    /// Per decision by a bot: (level, think time).
    times: Vec<(Level, Duration)>,
}

/// Play `game` from setup with `players[seat]`, at most `max_actions`
/// actions (the game's action cap at most), checking that every decision
/// is listed in `legal_actions(seat)` and that a finished match has nobody
/// left to act.
fn play(
    game: GameId,
    config: &Value,
    players: &[Player],
    seed: u64,
    max_actions: usize,
) -> Playout {
    let mut random = SplitMix64::new(seed);
    let events = MatchState::setup(game, config, players.len(), &mut random).unwrap();
    let mut state = MatchState::replay(game, &events).unwrap();
    let cap = game.about().action_cap.min(max_actions);
    let mut out = Playout {
        state: state.clone(),
        actions: 0,
        times: Vec::new(),
    };
    while out.actions < cap {
        let duties = state.to_act();
        if duties.is_empty() {
            break;
        }
        // An open "last card!" window first (§F8): its owner calls.
        let duty = duties
            .iter()
            .find(|d| d.kind == DutyKind::LastCard)
            .unwrap_or(&duties[0]);
        let seat = duty.seat;
        let legal = state.legal_actions(seat);
        let action = match players[seat.index()] {
            Player::Bot(level) => {
                let view = state.view(Viewer::Seat(seat));
                let started = Instant::now();
                let action = engine::decide(game, &view, seat, level, &mut random)
                    .unwrap_or_else(|e| panic!("seed {seed}: {game:?} {level:?}: {e:?}"));
                out.times.push((level, started.elapsed()));
                assert!(
                    legal.contains(&action),
                    "seed {seed}: {game:?} {level:?} chose {action} not in {legal:?}"
                );
                assert_ne!(action["type"], "resign", "the computer never resigns");
                action
            }
            Player::Random => {
                let playing: Vec<&Value> = legal
                    .iter()
                    .filter(|a| a["type"] != "resign" && a["type"] != "concede")
                    .collect();
                let pool: Vec<&Value> = if playing.is_empty() {
                    legal.iter().collect()
                } else {
                    playing
                };
                pool[random.below(pool.len() as u64) as usize].clone()
            }
        };
        let mut env = Env {
            now: 1_000_000,
            random: &mut random,
        };
        let events = state.act(seat, &action, &mut env).unwrap();
        for e in &events {
            state.apply(e).unwrap();
        }
        out.actions += 1;
    }
    if state.outcome().is_some() {
        assert!(state.to_act().is_empty(), "nobody acts once it is over");
    }
    out.state = state;
    out
}

fn bots(levels: &[Level]) -> Vec<Player> {
    levels.iter().map(|l| Player::Bot(*l)).collect()
}

// ---------------------------------------------------------------- no peek

/// A Banqi match after `plies` random actions.
fn banqi_after(seed: u64, plies: usize) -> BanqiState {
    let mut random = SplitMix64::new(seed);
    let mut state = BanqiState::default();
    for e in Banqi::setup(&Default::default(), 2, &mut random).unwrap() {
        Banqi::apply(&mut state, &e).unwrap();
    }
    for _ in 0..plies {
        if state.outcome.is_some() {
            break;
        }
        let seat = state.on_move();
        let actions: Vec<_> = Banqi::legal_actions(&state, seat)
            .into_iter()
            .filter(|a| !matches!(a, posthorn_rules::banqi::Action::Resign {}))
            .collect();
        let action = &actions[random.below(actions.len() as u64) as usize];
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        for e in Banqi::act(&state, seat, action, &mut env).unwrap() {
            Banqi::apply(&mut state, &e).unwrap();
        }
    }
    state
}

/// §B8, §H: permuting what lies face down changes nothing the seat sees,
/// so nothing the computer decides.
#[test]
fn banqi_decision_does_not_depend_on_face_down_identities_b8() {
    let mut checked = 0;
    for seed in 0..40u64 {
        let state = banqi_after(seed, (seed as usize * 3) % 40);
        if state.outcome.is_some() {
            continue;
        }
        let down: Vec<usize> = (0..32)
            .filter(|sq| matches!(state.position.cells[*sq], Cell::Down(_)))
            .collect();
        if down.len() < 2 {
            continue;
        }
        let mut other = state.clone();
        let mut random = SplitMix64::new(seed ^ 0xB8);
        let mut pieces: Vec<Cell> = down.iter().map(|sq| state.position.cells[*sq]).collect();
        for i in (1..pieces.len()).rev() {
            pieces.swap(i, random.below(i as u64 + 1) as usize);
        }
        // Make sure the two worlds really differ.
        pieces.rotate_left(1);
        for (sq, cell) in down.iter().zip(pieces) {
            other.position.cells[*sq] = cell;
        }
        let seat = state.on_move();
        let (a, b) = (MatchState::Banqi(state), MatchState::Banqi(other));
        let view = a.view(Viewer::Seat(seat));
        assert_eq!(view, b.view(Viewer::Seat(seat)), "the premise: same view");
        assert_ne!(a, b, "the hidden parts differ");
        // Hard on every fifth state only: it is slow in debug builds.
        for level in Level::ALL
            .into_iter()
            .filter(|l| *l != Level::Hard || seed % 5 == 0)
        {
            let da = engine::decide(
                GameId::Banqi,
                &view,
                seat,
                level,
                &mut SplitMix64::new(seed),
            );
            let db = engine::decide(
                GameId::Banqi,
                &b.view(Viewer::Seat(seat)),
                seat,
                level,
                &mut SplitMix64::new(seed),
            );
            assert_eq!(da.unwrap(), db.unwrap(), "seed {seed} {level:?}");
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} states checked");
}

/// A FlipChess match after `steps` random actions (never resigning).
fn flipchess_after(seed: u64, steps: usize) -> FlipState {
    let mut random = SplitMix64::new(seed);
    let mut state = FlipState::default();
    for e in FlipChess::setup(&Default::default(), 2, &mut random).unwrap() {
        FlipChess::apply(&mut state, &e).unwrap();
    }
    for _ in 0..steps {
        if state.outcome.is_some() {
            break;
        }
        let duties = FlipChess::to_act(&state);
        let seat = duties[0].seat;
        let actions: Vec<_> = FlipChess::legal_actions(&state, seat)
            .into_iter()
            .filter(|a| {
                !matches!(
                    a,
                    posthorn_rules::flipchess::Action::Resign {}
                        | posthorn_rules::flipchess::Action::Concede {}
                )
            })
            .collect();
        if actions.is_empty() {
            break;
        }
        let action = &actions[random.below(actions.len() as u64) as usize];
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        for e in FlipChess::act(&state, seat, action, &mut env).unwrap() {
            FlipChess::apply(&mut state, &e).unwrap();
        }
    }
    state
}

/// §H1: the other hand and the deck reshuffled together (same sizes)
/// look the same from the seat, so the computer decides the same.
#[test]
fn flipchess_decision_does_not_depend_on_other_hand_or_deck_h1() {
    let mut checked = 0;
    for seed in 0..40u64 {
        let state = flipchess_after(seed, (seed as usize * 7) % 60);
        if state.outcome.is_some() {
            continue;
        }
        let seat = FlipChess::to_act(&state)[0].seat;
        let them = Seat(1 - seat.0);
        let mut other = state.clone();
        let mut pool: Vec<u8> = state.hands[them.index()]
            .iter()
            .chain(&state.deck)
            .copied()
            .collect();
        let mut random = SplitMix64::new(seed ^ 0xF1);
        for i in (1..pool.len()).rev() {
            pool.swap(i, random.below(i as u64 + 1) as usize);
        }
        pool.rotate_left(1);
        let deck = pool.split_off(state.hands[them.index()].len());
        other.hands[them.index()] = pool;
        other.deck = deck;
        let (a, b) = (MatchState::FlipChess(state), MatchState::FlipChess(other));
        let view = a.view(Viewer::Seat(seat));
        assert_eq!(view, b.view(Viewer::Seat(seat)), "the premise: same view");
        assert_ne!(a, b, "the hidden parts differ");
        for level in Level::ALL {
            let da = engine::decide(
                GameId::FlipChess,
                &view,
                seat,
                level,
                &mut SplitMix64::new(seed),
            );
            let db = engine::decide(
                GameId::FlipChess,
                &b.view(Viewer::Seat(seat)),
                seat,
                level,
                &mut SplitMix64::new(seed),
            );
            assert_eq!(da.unwrap(), db.unwrap(), "seed {seed} {level:?}");
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} states checked");
}

// ------------------------------------------------------- legal playouts

/// §B: easy plays whole matches; normal and hard some opening actions.
#[test]
fn banqi_computer_matches_are_legal_and_end_b() {
    for seed in 0..4 {
        let p = play(
            GameId::Banqi,
            &json!({}),
            &bots(&[Level::Easy; 2]),
            seed,
            usize::MAX,
        );
        assert!(p.state.outcome().is_some(), "seed {seed}: ended");
    }
    for level in [Level::Normal, Level::Hard] {
        play(GameId::Banqi, &json!({}), &bots(&[level; 2]), 7, 12);
    }
    play(
        GameId::Banqi,
        &json!({}),
        &bots(&[Level::Hard, Level::Easy]),
        8,
        12,
    );
}

/// §F: easy plays whole matches (cards, moves, draws, flips, calls);
/// normal and hard some opening actions.
#[test]
fn flipchess_computer_matches_are_legal_and_end_f() {
    for seed in 0..4 {
        let p = play(
            GameId::FlipChess,
            &json!({}),
            &bots(&[Level::Easy; 2]),
            seed,
            usize::MAX,
        );
        assert!(p.state.outcome().is_some(), "seed {seed}: ended");
    }
    for level in [Level::Normal, Level::Hard] {
        play(GameId::FlipChess, &json!({}), &bots(&[level; 2]), 7, 16);
    }
}

/// §Q5: teams with four seats and with two (one player per team, acting
/// for both its armies), ffa and points with four; easy to the end.
#[test]
fn four_player_chess_computer_matches_are_legal_and_end_q5() {
    for (mode, seats) in [("teams", 4), ("teams", 2), ("ffa", 4), ("points", 4)] {
        let p = play(
            GameId::FourPlayerChess,
            &json!({"mode": mode}),
            &bots(&vec![Level::Easy; seats]),
            3,
            usize::MAX,
        );
        assert!(p.state.outcome().is_some(), "{mode} with {seats}: ended");
    }
    for mode in ["teams", "ffa", "points"] {
        for level in [Level::Normal, Level::Hard] {
            play(
                GameId::FourPlayerChess,
                &json!({"mode": mode}),
                &bots(&[level; 4]),
                5,
                4,
            );
        }
    }
    play(
        GameId::FourPlayerChess,
        &json!({"mode": "teams"}),
        &bots(&[Level::Normal; 2]),
        6,
        4,
    );
}

// ------------------------------------------------------------ figures

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    if times.is_empty() {
        return Duration::ZERO;
    }
    times.sort();
    let i = ((times.len() - 1) as f64 * p).round() as usize;
    times[i]
}

/// The score (win 1, draw ½) of `players[0]`'s side over `games` two-seat
/// matches, the seats exchanged every other game.
fn duel(game: GameId, a: Player, b: Player, games: u64, times: &mut Vec<(Level, Duration)>) -> f64 {
    let mut score = 0.0;
    for g in 0..games {
        let players = if g % 2 == 0 { [a, b] } else { [b, a] };
        let p = play(game, &json!({}), &players, 1000 + g, usize::MAX);
        times.extend(p.times);
        let a_seat = Seat((g % 2) as u8);
        score += result_for(&p.state, &[a_seat]);
    }
    score / games as f64
}

/// 1 when one of `seats` won, ½ for a draw (or a match cut short), else 0.
fn result_for(state: &MatchState, seats: &[Seat]) -> f64 {
    match state.outcome() {
        Some(o) if o.winners.is_empty() => 0.5,
        Some(o) if o.winners.iter().any(|w| seats.contains(w)) => 1.0,
        Some(_) => 0.0,
        None if state.game() == GameId::FourPlayerChess => adjudicated(state, seats),
        None => 0.5,
    }
}

/// A four-player match cut short (the figures' ply cap) judged by §Q8
/// material still on the board: 1 when `seats` hold the most, ½ when tied.
fn adjudicated(state: &MatchState, seats: &[Seat]) -> f64 {
    let view = state.view(Viewer::Spectator);
    let mut material = [0i64; 4];
    for p in view["pieces"].as_array().unwrap() {
        let army = ["red", "green", "blue", "gray"]
            .iter()
            .position(|a| p["owner"] == *a);
        let worth = match p["kind"].as_str().unwrap() {
            _ if p["promoted"] == true => 1,
            "pawn" => 1,
            "knight" => 3,
            "bishop" | "rook" => 5,
            "queen" => 9,
            _ => 0,
        };
        if let Some(a) = army {
            material[a] += worth;
        }
    }
    let seat_of = |a: usize| view["armies"][a]["seat"].as_u64().map(|s| Seat(s as u8));
    let teams = view["mode"] == "teams";
    // Per side (team, or army): its material, and whether it is ours.
    let sides: Vec<(i64, bool)> = if teams {
        (0..2)
            .map(|t| {
                let armies = [t, t + 2];
                (
                    armies.iter().map(|a| material[*a]).sum(),
                    armies
                        .iter()
                        .any(|a| seat_of(*a).is_some_and(|s| seats.contains(&s))),
                )
            })
            .collect()
    } else {
        (0..4)
            .filter(|a| view["armies"][*a]["status"] == "alive")
            .map(|a| (material[a], seat_of(a).is_some_and(|s| seats.contains(&s))))
            .collect()
    };
    let top = sides.iter().map(|s| s.0).max().unwrap_or(0);
    let tops: Vec<&(i64, bool)> = sides.iter().filter(|s| s.0 == top).collect();
    match tops.iter().filter(|s| s.1).count() {
        0 => 0.0,
        _ if tops.len() == 1 => 1.0,
        _ => 0.5,
    }
}

fn report_times(name: &str, times: &[(Level, Duration)]) {
    for level in Level::ALL {
        let mut t: Vec<Duration> = times
            .iter()
            .filter(|(l, _)| *l == level)
            .map(|(_, d)| *d)
            .collect();
        if t.is_empty() {
            continue;
        }
        let n = t.len();
        let median = percentile(&mut t, 0.5);
        let p99 = percentile(&mut t, 0.99);
        println!(
            "{name} {}: {n} decisions, median {:.1} ms, p99 {:.1} ms",
            level.id(),
            median.as_secs_f64() * 1e3,
            p99.as_secs_f64() * 1e3
        );
    }
}

fn games_from_env(default: u64) -> u64 {
    std::env::var("BOTS_GAMES")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(default)
}

#[test]
#[ignore = "figures for docs/bots-hidden.md: run in release with --nocapture"]
fn figures_think_time_and_strength() {
    let games = games_from_env(20);
    use Level::*;
    // BOTS_ONLY=banqi|flipchess|four_player_chess runs one game's figures.
    let only = std::env::var("BOTS_ONLY").ok();
    let wanted = |game: GameId| only.as_deref().is_none_or(|o| o == game.id());
    for game in [GameId::Banqi, GameId::FlipChess] {
        if !wanted(game) {
            continue;
        }
        let mut times = Vec::new();
        let pairs = [
            (Player::Bot(Hard), Player::Bot(Normal)),
            (Player::Bot(Normal), Player::Bot(Easy)),
            (Player::Bot(Easy), Player::Random),
        ];
        for (a, b) in pairs {
            let started = Instant::now();
            let score = duel(game, a, b, games, &mut times);
            println!(
                "{game:?}: {a:?} vs {b:?}: {:.0} % over {games} games ({:.0} s)",
                score * 100.0,
                started.elapsed().as_secs_f64()
            );
        }
        report_times(&format!("{game:?}"), &times);
    }
    if !wanted(GameId::FourPlayerChess) {
        return;
    }
    // Four-player chess, teams: one level per team, the teams exchanged
    // every other game. A seat's team is its army's (§Q1: red+blue, green+gray).
    let games4 = games_from_env(20).div_ceil(2);
    let mut times = Vec::new();
    let plies4: usize = std::env::var("BOTS_PLIES4")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(usize::MAX);
    for (a, b) in [
        (Player::Bot(Hard), Player::Bot(Normal)),
        (Player::Bot(Normal), Player::Bot(Easy)),
        (Player::Bot(Easy), Player::Random),
    ] {
        let mut score = 0.0;
        let started = Instant::now();
        for g in 0..games4 {
            // Seats are dealt armies at setup; a probe run tells which.
            let probe = play(
                GameId::FourPlayerChess,
                &json!({"mode": "teams"}),
                &[Player::Random; 4],
                2000 + g,
                0,
            );
            let team_of = |s: u8| probe.state.side(Seat(s)) % 2;
            let a_team = (g % 2) as usize;
            let players: Vec<Player> = (0..4)
                .map(|s| if team_of(s) == a_team { a } else { b })
                .collect();
            let p = play(
                GameId::FourPlayerChess,
                &json!({"mode": "teams"}),
                &players,
                2000 + g,
                plies4,
            );
            times.extend(p.times);
            let a_seats: Vec<Seat> = (0..4).filter(|s| team_of(*s) == a_team).map(Seat).collect();
            score += result_for(&p.state, &a_seats);
        }
        println!(
            "FourPlayerChess teams: {a:?} vs {b:?}: {:.0} % over {games4} games ({:.0} s)",
            score / games4 as f64 * 100.0,
            started.elapsed().as_secs_f64()
        );
    }
    // Ffa: one of each level and a random player, seats rotated.
    let mut wins = [0.0f64; 4];
    let roster = [
        Player::Bot(Hard),
        Player::Bot(Normal),
        Player::Bot(Easy),
        Player::Random,
    ];
    let started = Instant::now();
    for g in 0..games4 {
        let players: Vec<Player> = (0..4).map(|s| roster[(s + g as usize) % 4]).collect();
        let p = play(
            GameId::FourPlayerChess,
            &json!({"mode": "ffa"}),
            &players,
            3000 + g,
            plies4,
        );
        times.extend(p.times);
        for (i, player) in roster.iter().enumerate() {
            let seat = players.iter().position(|q| q == player).unwrap();
            wins[i] += result_for(&p.state, &[Seat(seat as u8)]);
        }
    }
    println!(
        "FourPlayerChess ffa over {games4} games ({:.0} s): hard {}, normal {}, easy {}, random {} (win 1, draw ½; unfinished judged by material on the board)",
        started.elapsed().as_secs_f64(),
        wins[0], wins[1], wins[2], wins[3]
    );
    report_times("FourPlayerChess", &times);
}
