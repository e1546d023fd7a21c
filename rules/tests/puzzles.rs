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
//!   with the solver's view is enumerated by this file's own count of the
//!   unseen pieces, and the whole check holds in each (each searched as
//!   it lies, `Puzzles::world`); along the line the solver's view is the
//!   same in all of them and nothing hidden comes out (no turn-up, by
//!   anyone); and the hidden pieces matter: with them taken off the
//!   board, the line's first move is illegal or no longer the only one.
//!
//! `PUZZLES_CHECKED=n` checks every puzzle whose index is a multiple of
//! `len / n` (CI's small data); unset, all of them. Every file holds 365
//! distinct puzzles at least: a year of dailies (docs/puzzles.md).

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

/// The hidden states a solver's view allows, as openings, and the
/// opening with what is hidden taken off the board (none if nothing is).
struct Hidden {
    deals: Vec<Vec<Value>>,
    bare: Option<Vec<Value>>,
}

fn replay<G: Game>(events: &[Value]) -> Result<G::State, String> {
    let mut state = G::State::default();
    for e in events {
        let event: G::Event = serde_json::from_value(e.clone()).map_err(|e| e.to_string())?;
        G::apply(&mut state, &event).map_err(|e| e.to_string())?;
    }
    Ok(state)
}

/// What is wrong with `puzzle`, if anything: the line checked in every
/// hidden state `hidden` finds consistent with the solver's view.
fn check<G: Puzzles>(
    puzzle: &Found,
    hidden: impl Fn(&[Value], &G::View) -> Result<Hidden, String>,
) -> Result<(), String> {
    let state = replay::<G>(&puzzle.events)?;
    let solver = puzzle.solver;
    let Hidden { deals, bare } = hidden(&puzzle.events, &G::view(&state, Viewer::Seat(solver)))?;
    if !deals.contains(&puzzle.events) {
        return Err("the puzzle's own deal is not among those its view allows".into());
    }
    let secrets = G::secrets(&state, Viewer::Seat(solver)).len();
    let mut seen = None;
    for (k, deal) in deals.iter().enumerate() {
        let views = check_line::<G>(puzzle, deal, secrets).map_err(|e| format!("deal {k}: {e}"))?;
        if seen.get_or_insert_with(|| views.clone()) != &views {
            return Err(format!("deal {k}: the solver sees the line otherwise"));
        }
    }
    match bare {
        Some(bare) if !matters::<G>(puzzle, &bare)? => {
            Err("with the hidden pieces off the board the first move is still the only one".into())
        }
        _ => Ok(()),
    }
}

/// With what is hidden taken off the board (`bare`), the line's first
/// move is illegal, or another legal move comes within the margin of it
/// at the rule's depth.
fn matters<G: Puzzles>(puzzle: &Found, bare: &[Value]) -> Result<bool, String> {
    let rule = G::RULE;
    let state = replay::<G>(bare)?;
    let solver = puzzle.solver;
    let first: G::Action =
        serde_json::from_value(puzzle.line[0].action.clone()).map_err(|e| e.to_string())?;
    let Some(played) = effect::<G>(&state, solver, &first) else {
        return Ok(true);
    };
    let pos = G::world(&state, solver).ok_or("the bare start is not whole")?;
    let side = pos.mover();
    let mut moves = Vec::new();
    pos.moves(&mut moves);
    let made: Vec<Vec<Value>> = (moves.iter())
        .map(|m| {
            effect::<G>(&state, solver, &G::action(m)).ok_or("an engine move the rules refuse")
        })
        .collect::<Result<_, _>>()?;
    let at = made
        .iter()
        .position(|e| *e == played)
        .ok_or("the first move is no engine move")?;
    let value = search(
        &pos.play(&moves[at]),
        side,
        rule.depth - 1,
        i32::MIN + 1,
        i32::MAX - 1,
    );
    let bound = value - rule.margin;
    Ok((moves.iter().enumerate())
        .filter(|(k, _)| *k != at)
        .any(|(_, m)| search(&pos.play(m), side, rule.depth - 1, bound, bound + 1) > bound))
}

/// The line checked in one deal: the solver's views along it (which must
/// match every other deal's), each with as much hidden as at the start.
fn check_line<G: Puzzles>(
    puzzle: &Found,
    events: &[Value],
    secrets: usize,
) -> Result<Vec<Value>, String> {
    let rule = G::RULE;
    let depth = rule.depth;
    let mut state = replay::<G>(events)?;
    let solver = puzzle.solver;
    let mut views = vec![serde_json::to_value(G::view(&state, Viewer::Seat(solver))).unwrap()];
    let start = G::world(&state, solver).ok_or("the start is not searched whole")?;
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
            let pos = G::world(&state, solver).ok_or("not whole")?;
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
                        let child = G::world(&after, solver).ok_or("not whole")?;
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
        if G::secrets(&state, Viewer::Seat(solver)).len() != secrets {
            return Err(format!("step {i}: something hidden came out"));
        }
        views.push(serde_json::to_value(G::view(&state, Viewer::Seat(solver))).unwrap());
    }
    let last = last_value.ok_or("no solver move")?;
    match puzzle.goal {
        Goal::Win => match G::outcome(&state) {
            Some(o) if o.winners.contains(&solver) && o.winners.len() < puzzle.seats => Ok(views),
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
            let held = G::material(&G::world(&state, solver).ok_or("not whole")?, side);
            if held >= start_material + rule.decisive && last > start_value {
                Ok(views)
            } else {
                Err(format!(
                    "the gain is not decisive: {held} from {start_material}"
                ))
            }
        }
    }
}

fn check_all<G: Puzzles>(
    file: &str,
    least: usize,
    hidden: impl Fn(&[Value], &G::View) -> Result<Hidden, String> + Copy,
) {
    check_these::<G>(file, harness::mined(file, least), hidden);
}

fn check_these<G: Puzzles>(
    file: &str,
    found: Vec<Found>,
    hidden: impl Fn(&[Value], &G::View) -> Result<Hidden, String> + Copy,
) {
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

/// A game that hides nothing: the one deal, the opening itself.
fn whole_games<V>(events: &[Value], _: &V) -> Result<Hidden, String> {
    Ok(Hidden {
        deals: vec![events.to_vec()],
        bare: None,
    })
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
    check_all::<janggi::Janggi>("janggi.jsonl", 365, whole_games);
}

#[test]
fn mined_four_player_chess_puzzles_hold_in_a_deeper_search() {
    check_all::<four_player_chess::FourPlayerChess>("four_player_chess.jsonl", 365, whole_games);
}

/// §H, §B9: the hidden states consistent with a Banqi view: the pieces
/// not seen (the set less the face-up and the captured ones) laid on the
/// face-down squares in every distinct way; with none face down, one.
fn banqi_hidden(events: &[Value], view: &banqi::View) -> Result<Hidden, String> {
    let letter = |colour: banqi::Colour, kind: banqi::Kind| {
        let c = KINDS.iter().find(|(_, k)| *k == kind).unwrap().0;
        if colour == banqi::Colour::Red {
            c
        } else {
            c.to_ascii_lowercase()
        }
    };
    // The set, counted here (§B1): 1, 2, 2, 2, 2, 2, 5 of each colour.
    let mut unseen: Vec<char> = "KAAEERRNNCCPPPPPkaaeerrnnccppppp".chars().collect();
    let mut take = |c: char| -> Result<(), String> {
        let i = unseen
            .iter()
            .position(|u| *u == c)
            .ok_or("more of a piece than the set holds")?;
        unseen.remove(i);
        Ok(())
    };
    for p in &view.pieces {
        take(letter(p.colour, p.kind))?;
    }
    for (colour, kinds) in [
        (banqi::Colour::Red, &view.captured.red),
        (banqi::Colour::Black, &view.captured.black),
    ] {
        for &kind in kinds {
            take(letter(colour, kind))?;
        }
    }
    if unseen.len() != view.face_down.len() {
        return Err(format!(
            "{} unseen pieces for {} face-down squares",
            unseen.len(),
            view.face_down.len()
        ));
    }
    let text = events[0]["position"].as_str().ok_or("no position")?;
    let position = banqi::Position::from_notation(text).map_err(|e| e.to_string())?;
    let squares: Vec<usize> = (view.face_down.iter())
        .map(|name| {
            let b = name.as_bytes();
            usize::from(b[0] - b'a') + 8 * usize::from(b[1] - b'1')
        })
        .collect();
    let mut orders = std::collections::BTreeSet::new();
    permutations(&mut unseen, 0, &mut orders);
    let opening = |cells: &dyn Fn(&mut banqi::Position)| {
        let mut p = position;
        cells(&mut p);
        let mut events = events.to_vec();
        events[0]["position"] = p.to_notation().into();
        events[0]["face_down"] = serde_json::to_value(
            (0..32)
                .filter(|sq| matches!(p.cells[*sq], banqi::Cell::Down(_)))
                .map(|sq| format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1))
                .collect::<Vec<_>>(),
        )
        .unwrap();
        events
    };
    let deals = (orders.iter())
        .map(|order: &Vec<char>| {
            opening(&|p: &mut banqi::Position| {
                for (sq, c) in squares.iter().zip(order) {
                    p.cells[*sq] = banqi::Cell::Down(piece_of(*c));
                }
            })
        })
        .collect();
    let bare = (!squares.is_empty()).then(|| {
        opening(&|p: &mut banqi::Position| {
            for sq in &squares {
                p.cells[*sq] = banqi::Cell::Empty;
            }
        })
    });
    Ok(Hidden { deals, bare })
}

/// §B9's letters of the kinds (red's; black's in lower case).
const KINDS: [(char, banqi::Kind); 7] = [
    ('K', banqi::Kind::General),
    ('A', banqi::Kind::Advisor),
    ('E', banqi::Kind::Elephant),
    ('R', banqi::Kind::Chariot),
    ('N', banqi::Kind::Horse),
    ('C', banqi::Kind::Cannon),
    ('P', banqi::Kind::Soldier),
];

fn piece_of(c: char) -> banqi::Piece {
    let kind = KINDS
        .iter()
        .find(|(l, _)| *l == c.to_ascii_uppercase())
        .unwrap()
        .1;
    let colour = if c.is_ascii_uppercase() {
        banqi::Colour::Red
    } else {
        banqi::Colour::Black
    };
    banqi::Piece { colour, kind }
}

/// Every order of `items[k..]` after `items[..k]`, as a set (alike
/// pieces make one order).
fn permutations(items: &mut Vec<char>, k: usize, out: &mut std::collections::BTreeSet<Vec<char>>) {
    if k == items.len() {
        out.insert(items.clone());
        return;
    }
    for i in k..items.len() {
        items.swap(k, i);
        permutations(items, k + 1, out);
        items.swap(k, i);
    }
}

/// A Banqi puzzle with pieces face down.
fn hides(p: &Found) -> bool {
    p.events[0]["face_down"]
        .as_array()
        .is_some_and(|d| !d.is_empty())
}

/// The puzzles with nothing face down (those with some have the test
/// below: each is checked once per deal, a few seconds each).
#[test]
fn mined_banqi_puzzles_hold_in_a_deeper_search_in_every_hidden_state_h() {
    let open = harness::mined("banqi.jsonl", 365)
        .into_iter()
        .filter(|p| !hides(p))
        .collect();
    check_these::<banqi::Banqi>("banqi.jsonl", open, banqi_hidden);
}

/// Issue #68: fifty puzzles at least with pieces face down (four at most,
/// §H), each checked in every way to lay them, whatever
/// `PUZZLES_CHECKED` samples of the whole file.
#[test]
fn banqi_ships_fifty_hidden_piece_puzzles_proved_in_every_deal_h() {
    let face_down = |p: &Found| p.events[0]["face_down"].as_array().map_or(0, Vec::len);
    let hidden: Vec<Found> = harness::mined_all("banqi.jsonl")
        .into_iter()
        .filter(hides)
        .collect();
    assert!(
        hidden.iter().all(|p| face_down(p) <= 4),
        "four face down at most"
    );
    let distinct: std::collections::BTreeSet<String> =
        hidden.iter().map(|p| p.events[0].to_string()).collect();
    assert!(
        distinct.len() >= 50,
        "{} hidden-piece puzzles, fewer than 50",
        distinct.len()
    );
    // CI's small data: a tenth of what it checks of each file (each is
    // checked once per deal: seconds with three face down, 24 deals with
    // four; docs/puzzles.md gives the whole run's time).
    let checked = harness::sampled_by(hidden, |n| n / 10);
    check_these::<banqi::Banqi>("banqi.jsonl (hidden pieces)", checked, banqi_hidden);
}

/// The hidden-piece check bites (§H): a puzzle whose face-down piece could
/// not be there (every piece of its kind is face up) is refused, and so is one
/// whose face-down piece changes nothing (a far piece of an open puzzle
/// turned face down: with it off the board the first move is still the
/// only one).
#[test]
fn the_hidden_piece_check_refuses_an_impossible_or_idle_face_down_piece_h() {
    let all = harness::mined_all("banqi.jsonl");
    let hidden = all
        .iter()
        .find(|p| hides(p))
        .expect("a hidden-piece puzzle");
    check::<banqi::Banqi>(hidden, banqi_hidden).expect("the shipped puzzle holds");
    // A face-down piece of a kind whose every piece is on the board
    // already: the rules refuse the position.
    let mut impossible = hidden.clone();
    let text = impossible.events[0]["position"]
        .as_str()
        .unwrap()
        .to_owned();
    let board = text.split(' ').next().unwrap();
    let counts = "KAAEERRNNCCPPPPPkaaeerrnnccppppp";
    let whole = (counts.chars())
        .find(|c| board.matches(*c).count() == counts.matches(*c).count())
        .expect("a kind all on the board");
    let at = text.find('?').unwrap();
    let mut changed = text.clone();
    changed.replace_range(at + 1..at + 2, &whole.to_string());
    impossible.events[0]["position"] = changed.into();
    let refused = check::<banqi::Banqi>(&impossible, banqi_hidden).unwrap_err();
    assert!(refused.contains("more pieces of a kind"), "{refused}");
    // This file's own count of the unseen pieces: a view showing one
    // more piece taken than its face-down squares allow is refused.
    let state = replay::<banqi::Banqi>(&hidden.events).unwrap();
    let mut view = banqi::Banqi::view(&state, Viewer::Seat(hidden.solver));
    let counted = banqi_hidden(&hidden.events, &view).expect("the shipped view counts");
    assert!(counted.deals.len() > 1 && counted.bare.is_some());
    let down = piece_of(board.chars().nth(board.find('?').unwrap() + 1).unwrap());
    view.captured.red.push(down.kind);
    view.captured.black.push(down.kind);
    let refused = banqi_hidden(&hidden.events, &view)
        .err()
        .expect("a view that does not add up");
    assert!(
        refused.contains("unseen pieces for") || refused.contains("more of a piece"),
        "{refused}"
    );
    // An open one-move puzzle with its farthest piece turned face down.
    let idle = (all.iter())
        .filter(|p| !hides(p) && p.line.len() == 1)
        .take(20)
        .find_map(|p| {
            let mut position =
                banqi::Position::from_notation(p.events[0]["position"].as_str()?).ok()?;
            let mv = p.line[0].action["move"].as_str()?;
            // How far a square is from the move's nearer end.
            let near = |sq: usize| {
                (mv.split(['-', 'x']).map(|end| {
                    let b = end.as_bytes();
                    let (f, r) = (i32::from(b[0] - b'a'), i32::from(b[1] - b'1'));
                    (f - (sq % 8) as i32).abs() + (r - (sq / 8) as i32).abs()
                }))
                .min()
                .unwrap_or(0)
            };
            let far = (0..32)
                .filter(|sq| matches!(position.cells[*sq], banqi::Cell::Up(_)))
                .max_by_key(|sq| near(*sq))?;
            let banqi::Cell::Up(piece) = position.cells[far] else {
                return None;
            };
            position.cells[far] = banqi::Cell::Down(piece);
            let mut puzzle = p.clone();
            puzzle.events[0]["position"] = position.to_notation().into();
            puzzle.events[0]["face_down"] = vec![format!(
                "{}{}",
                (b'a' + (far % 8) as u8) as char,
                far / 8 + 1
            )]
            .into();
            check::<banqi::Banqi>(&puzzle, banqi_hidden)
                .err()
                .filter(|e| e.contains("still the only one"))
        })
        .expect("an idle face-down piece refused as idle");
    assert!(idle.contains("still the only one"), "{idle}");
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
