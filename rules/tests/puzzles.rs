//! An independent check of mined puzzles (issue #52, docs/puzzles.md),
//! written apart from the miner (`rules/src/engine/puzzles.rs`): it shares
//! only the definition of a position's value (the engine's evaluation,
//! through `Puzzles::whole`) and the figures of `Puzzles::RULE`.
//!
//! For each puzzle of `puzzles/<game>.jsonl` (mined by
//! `cargo run --release -p posthorn-rules --example mine`):
//! * the opening replays through the rules and the line is played through
//!   the rules' own `act`, each action by the seat that owes a turn;
//! * at each solver step every engine move is one of the rules' legal
//!   moves, and every other move of the rules' own list is found worse by
//!   the margin by its own plain alpha-beta at the rule's depth (deeper
//!   than hard's; two exact searches of one depth must agree);
//! * a won line ends in the rules' win for the solver, a gain is on the
//!   board, in material, after the hard engine's replies;
//! * where the game hides anything (Banqi), every hidden state consistent
//!   with the solver's view is enumerated: a mined Banqi position has
//!   nothing face down, so there is exactly one.
//!
//! `PUZZLES_CHECKED=n` checks every puzzle whose index is a multiple of
//! `len / n` (CI's small data); unset, all of them. Every file holds 200
//! at least.

mod harness;
mod toy;

use posthorn_rules::engine::{is_talk, Level, Search, WIN};
use posthorn_rules::puzzles::{Found, Goal, Puzzles};
use posthorn_rules::{banqi, checkers, four_player_chess, janggi};
use posthorn_rules::{Env, Game, Seat, SplitMix64, Viewer};
use serde_json::Value;

/// Plain alpha-beta for `root`'s side, children ordered by their static
/// value: nothing of the miner's search (no budget, no iterative
/// deepening, no null-window proof).
fn search<P: Search>(pos: &P, root: usize, depth: u32, mut alpha: i32, mut beta: i32) -> i32 {
    if depth == 0 || pos.over() {
        return pos.value(root);
    }
    let mut moves = Vec::new();
    pos.moves(&mut moves);
    if moves.is_empty() {
        return pos.value(root);
    }
    let maximising = pos.allies(pos.mover(), root);
    let mut children: Vec<(P, i32)> = moves
        .iter()
        .map(|m| {
            let child = pos.play(m);
            let v = child.value(root);
            (child, v)
        })
        .collect();
    children.sort_by_key(|c| if maximising { -c.1 } else { c.1 });
    let mut best = if maximising { i32::MIN } else { i32::MAX };
    for (child, _) in &children {
        let v = search(child, root, depth - 1, alpha, beta);
        // A win sooner is worth more, as the engines count it.
        let v = v - v.signum() * i32::from(v.abs() > WIN / 2);
        if maximising {
            best = best.max(v);
            alpha = alpha.max(v);
        } else {
            best = best.min(v);
            beta = beta.min(v);
        }
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The events `action` makes `seat` produce in `state`, the way the rules
/// tell two spellings of one move apart: not at all.
fn effect<G: Game>(state: &G::State, seat: Seat, action: &G::Action) -> Option<Vec<Value>> {
    let mut random = SplitMix64::new(0);
    let mut env = Env {
        now: 0,
        random: &mut random,
    };
    let events = G::act(state, seat, action, &mut env).ok()?;
    Some(
        events
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect(),
    )
}

/// What is wrong with `puzzle`, if anything.
fn check<G: Puzzles>(
    puzzle: &Found,
    enumerate_hidden: impl Fn(&G::View) -> usize,
) -> Result<(), String> {
    let rule = G::RULE;
    let depth = rule.depth;
    let mut state = G::State::default();
    for e in &puzzle.events {
        let event: G::Event = serde_json::from_value(e.clone()).map_err(|e| e.to_string())?;
        G::apply(&mut state, &event).map_err(|e| e.to_string())?;
    }
    let solver = puzzle.solver;
    let view = G::view(&state, Viewer::Seat(solver));
    let hidden_states = enumerate_hidden(&view);
    if hidden_states != 1 {
        return Err(format!(
            "{hidden_states} hidden states fit the solver's view"
        ));
    }
    let start = G::whole(&view).ok_or("the solver does not see the start whole")?;
    let side = start.mover();
    let start_value = start.value(side);
    let mut last_value = None;
    for (i, step) in puzzle.line.iter().enumerate() {
        let duties = G::to_act(&state);
        if duties.len() != 1 || duties[0].seat != step.seat {
            return Err(format!(
                "step {i}: {:?} owes, not seat {}",
                duties, step.seat.0
            ));
        }
        let action: G::Action =
            serde_json::from_value(step.action.clone()).map_err(|e| format!("step {i}: {e}"))?;
        let played = effect::<G>(&state, step.seat, &action).ok_or(format!("step {i}: illegal"))?;
        if step.seat == solver {
            let pos = G::whole(&G::view(&state, Viewer::Seat(solver))).ok_or("not whole")?;
            let mut engine_moves = Vec::new();
            pos.moves(&mut engine_moves);
            let mut engine: Vec<Vec<Value>> = Vec::new();
            for m in &engine_moves {
                engine.push(
                    effect::<G>(&state, solver, &G::action(m))
                        .ok_or(format!("step {i}: an engine move the rules refuse"))?,
                );
            }
            let rules: Vec<(G::Action, Vec<Value>)> = G::legal_actions(&state, solver)
                .into_iter()
                .filter(|a| !is_talk(&serde_json::to_value(a).unwrap()))
                .filter_map(|a| effect::<G>(&state, solver, &a).map(|e| (a, e)))
                .collect();
            if engine.iter().any(|e| !rules.iter().any(|r| r.1 == *e)) {
                return Err(format!("step {i}: an engine move the rules do not list"));
            }
            let at = engine
                .iter()
                .position(|e| *e == played)
                .ok_or(format!("step {i}: not an engine move"))?;
            let value = search(
                &pos.play(&engine_moves[at]),
                side,
                depth - 1,
                i32::MIN + 1,
                i32::MAX - 1,
            );
            let bound = value - rule.margin;
            // Every other move of the rules' list: an engine move from the
            // engine's position, one the engine never plays (Janggi's
            // pass while a step is left) from the position the rules make.
            for (j, (action, made)) in rules.iter().enumerate().filter(|(_, r)| r.1 != played) {
                let other = match engine.iter().position(|e| e == made) {
                    Some(k) => search(
                        &pos.play(&engine_moves[k]),
                        side,
                        depth - 1,
                        bound,
                        bound + 1,
                    ),
                    None => {
                        let mut after = state.clone();
                        let mut random = SplitMix64::new(0);
                        let mut env = Env {
                            now: 0,
                            random: &mut random,
                        };
                        for event in G::act(&state, solver, action, &mut env).unwrap() {
                            G::apply(&mut after, &event).unwrap();
                        }
                        let child =
                            G::whole(&G::view(&after, Viewer::Seat(solver))).ok_or("not whole")?;
                        search(&child, side, depth - 1, bound, bound + 1)
                    }
                };
                if other > bound {
                    return Err(format!(
                        "step {i}: move {j} is within the margin ({other} against {value})"
                    ));
                }
            }
            last_value = Some(value);
        }
        let mut random = SplitMix64::new(0);
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        for event in G::act(&state, step.seat, &action, &mut env).unwrap() {
            G::apply(&mut state, &event).unwrap();
        }
    }
    let last = last_value.ok_or("no solver move")?;
    match puzzle.goal {
        Goal::Win => match G::outcome(&state) {
            Some(o) if o.winners.contains(&solver) && o.winners.len() < puzzle.seats => Ok(()),
            other => Err(format!("a won line ends in {other:?}")),
        },
        Goal::Gain => {
            // The gain is on the board after the opponents' best replies
            // (the puzzles' pinned engine's, by definition), counted in
            // material.
            let start_material = G::material(&start, side);
            let mut random = SplitMix64::new(52);
            while let [duty] = G::to_act(&state).as_slice() {
                if duty.seat == solver {
                    break;
                }
                let seat = duty.seat;
                let reply = G::decide(
                    &G::view(&state, Viewer::Seat(seat)),
                    seat,
                    Level::Puzzle,
                    &mut random,
                )
                .map_err(|e| e.to_string())?;
                let mut env = Env {
                    now: 0,
                    random: &mut random,
                };
                for event in G::act(&state, seat, &reply, &mut env).map_err(|e| e.to_string())? {
                    G::apply(&mut state, &event).unwrap();
                }
            }
            let held = G::material(
                &G::whole(&G::view(&state, Viewer::Seat(solver))).ok_or("not whole")?,
                side,
            );
            if held >= start_material + rule.decisive && last > start_value {
                Ok(())
            } else {
                Err(format!(
                    "the gain is not decisive: {held} from {start_material}"
                ))
            }
        }
    }
}

fn check_all<G: Puzzles>(file: &str, least: usize, hidden: impl Fn(&G::View) -> usize + Copy) {
    let found = harness::mined(file, least);
    let failures: Vec<String> = found
        .iter()
        .enumerate()
        .filter_map(|(i, p)| check::<G>(p, hidden).err().map(|e| format!("#{i}: {e}")))
        .collect();
    assert!(
        failures.is_empty(),
        "{file}: {} of {} fail: {failures:?}",
        failures.len(),
        found.len()
    );
}

fn whole_games<V>(_: &V) -> usize {
    1
}

#[test]
fn mined_checkers_puzzles_hold_in_a_deeper_search() {
    check_all::<checkers::Checkers>("checkers.jsonl", 200, whole_games);
}

/// A year of American dailies and two months of every other variant's
/// (docs/puzzles.md, "Shipped sets"; the daily is per variant): distinct
/// puzzles, by opening, in the shipped file.
#[test]
fn checkers_ships_a_year_of_american_and_two_months_of_each_variant() {
    let path = format!("{}/puzzles/checkers.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut per: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let variant = v["config"]["variant"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        per.entry(variant)
            .or_default()
            .insert(v["events"][0].to_string());
    }
    for &variant in checkers::Variant::NAMES {
        let held = per.get(variant).map_or(0, |p| p.len());
        let least = if variant == "american" { 365 } else { 60 };
        assert!(
            held >= least,
            "{variant}: {held} distinct, fewer than {least}"
        );
    }
}

#[test]
fn mined_janggi_puzzles_hold_in_a_deeper_search() {
    check_all::<janggi::Janggi>("janggi.jsonl", 200, whole_games);
}

#[test]
fn mined_four_player_chess_puzzles_hold_in_a_deeper_search() {
    check_all::<four_player_chess::FourPlayerChess>("four_player_chess.jsonl", 200, whole_games);
}

/// §H: the hidden states consistent with a Banqi view are the ways to lay
/// the unseen pieces on the face-down squares: with none face down, one.
fn banqi_hidden_states(view: &banqi::View) -> usize {
    let unseen = view.face_down.len();
    (1..=unseen).product()
}

#[test]
fn mined_banqi_puzzles_hold_in_a_deeper_search_in_every_hidden_state_h() {
    check_all::<banqi::Banqi>("banqi.jsonl", 200, banqi_hidden_states);
}

/// The check bites: a toy puzzle the miner found passes, and the same
/// puzzle with another first move, or a wrong goal, fails.
#[test]
fn the_check_refuses_a_line_that_is_not_forced() {
    let config = toy::Config {
        pile: Some(9),
        ..Default::default()
    };
    let found = (1..40)
        .find_map(|seed| {
            let log =
                posthorn_rules::puzzles::self_play::<toy::Pebbles>(&config, 2, 50, seed).unwrap();
            posthorn_rules::puzzles::mine::<toy::Pebbles>(&config, 2, &log).unwrap()
        })
        .expect("a toy puzzle");
    check::<toy::Pebbles>(&found, whole_games).expect("the mined puzzle holds");
    let mut wrong = found.clone();
    let take = wrong.line[0].action["count"].as_u64().unwrap();
    wrong.line[0].action["count"] = (if take == 1 { 2 } else { 1 }).into();
    assert!(
        check::<toy::Pebbles>(&wrong, whole_games).is_err(),
        "another first take is not the forced line"
    );
    let mut short = found.clone();
    short.goal = Goal::Win;
    short.line.truncate(1);
    assert!(
        found.line.len() > 1,
        "the toy's line takes two moves of the solver"
    );
    assert!(
        check::<toy::Pebbles>(&short, whole_games).is_err(),
        "a line cut short is no win"
    );
}
