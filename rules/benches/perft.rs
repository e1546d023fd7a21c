//! `cargo bench -p posthorn-rules --bench perft`: checkers perft depth 10,
//! each §C2 variant's perft, Janggi perft depth 5 from the start, and the
//! cost of validating one move of checkers and Janggi. Results are recorded in docs/benchmarks.md.

use posthorn_rules::checkers::{perft, Action, Checkers, Config, Position, State};
use posthorn_rules::{Env, Game, SplitMix64};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let mut buffers = (0..10).map(|_| Vec::with_capacity(32)).collect::<Vec<_>>();
    let started = Instant::now();
    let nodes = perft(black_box(&Position::start()), 10, &mut buffers);
    let secs = started.elapsed().as_secs_f64();
    assert_eq!(nodes, 18_391_564);
    println!(
        "checkers perft 10: {nodes} nodes in {secs:.3} s = {:.1} M nodes/s",
        nodes as f64 / secs / 1e6
    );

    let mut state = State::default();
    for e in Checkers::setup(&Config::default(), 2, &mut SplitMix64::new(0)).unwrap() {
        Checkers::apply(&mut state, &e).unwrap();
    }
    let action: Action = "11-15".parse().unwrap();
    let rounds = 200_000;
    let mut random = SplitMix64::new(1);
    let started = Instant::now();
    for _ in 0..rounds {
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        black_box(
            Checkers::act(
                black_box(&state),
                posthorn_rules::Seat(0),
                &action,
                &mut env,
            )
            .unwrap(),
        );
    }
    let per = started.elapsed().as_secs_f64() / rounds as f64;
    println!(
        "checkers act (validate 11-15 and judge the result): {:.2} µs per move",
        per * 1e6
    );

    janggi();
    variants();
}

/// docs/rules/checkers.md §C2: each variant's perft from its start on the draughts board
/// (8×8 to depth 9, 10×10 to depth 8), against the published counts.
fn variants() {
    use posthorn_rules::checkers::{Board, Variant};
    for (variant, depth, expected) in [
        (Variant::Brazilian, 9, 4_431_766),
        (Variant::Russian, 9, 4_570_586),
        (Variant::Pool, 9, 4_570_534),
        (Variant::Spanish, 9, 3_860_866),
        (Variant::International, 8, 6_483_961),
    ] {
        let start = Board::start(variant);
        let started = Instant::now();
        let nodes = black_box(&start).perft(variant, depth);
        let secs = started.elapsed().as_secs_f64();
        assert_eq!(nodes, expected, "{variant:?}");
        println!(
            "checkers/{} perft {depth}: {nodes} nodes in {secs:.3} s = {:.1} M nodes/s",
            variant.name(),
            nodes as f64 / secs / 1e6
        );
    }
    let thai = Board::from_fen(Variant::Thai, "W:W21-32:B1-12").unwrap();
    let started = Instant::now();
    let nodes = thai.perft(Variant::Thai, 9);
    let secs = started.elapsed().as_secs_f64();
    assert_eq!(nodes, 3_963_648);
    println!(
        "checkers/thai perft 9 (12 men each): {nodes} nodes in {secs:.3} s = {:.1} M nodes/s",
        nodes as f64 / secs / 1e6
    );
}

/// docs/rules/janggi.md §J: perft 5 from SMSM against SMSM (passes counted), and one
/// move validated and judged (check, bikjang, repetition, points).
fn janggi() {
    use posthorn_rules::janggi::{perft, start_position, Action, Config, Janggi, State};
    let start = start_position(Default::default());
    let started = Instant::now();
    let nodes = perft(black_box(&start), 5, false);
    let secs = started.elapsed().as_secs_f64();
    assert_eq!(nodes, 35_779_148);
    println!(
        "janggi perft 5: {nodes} nodes in {secs:.3} s = {:.1} M nodes/s",
        nodes as f64 / secs / 1e6
    );
    let mut state = State::default();
    let mut random = SplitMix64::new(0);
    for e in Janggi::setup(&Config::default(), 2, &mut random).unwrap() {
        Janggi::apply(&mut state, &e).unwrap();
    }
    let action = Action::Move {
        notation: "c1d3".into(),
    };
    let rounds = 200_000;
    let started = Instant::now();
    for _ in 0..rounds {
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        black_box(Janggi::act(black_box(&state), state.on_move(), &action, &mut env).unwrap());
    }
    let per = started.elapsed().as_secs_f64() / rounds as f64;
    println!(
        "janggi act (validate c1d3 and judge the result): {:.2} µs per move",
        per * 1e6
    );
}
