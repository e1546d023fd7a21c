//! `cargo run --release -p posthorn-rules --example fairy -- <level> <games> [<depth>] [<first>]`
//!
//! Janggi's computer at `<level>` (`hard`, or `puzzle`: hard as it was
//! before the stronger search) against Fairy-Stockfish (Debian's
//! `fairy-stockfish`, one thread, variant `janggi`) searching `<depth>`
//! plies (6 unless given), over `<games>` matches numbered from `<first>`
//! (0 unless given), for docs/bots.md (issue #69 item 4). Measured
//! outside CI: it needs the engine installed and takes about a minute a
//! match.
//!
//! Every match goes through the rules (`MatchState`): our side decides
//! from its own view, Fairy-Stockfish from the position's FEN (§J1, the
//! notation it shares with ours; its pass, the king's square twice, is
//! §J5's pass), and the rules judge the end: checkmate, bikjang, or
//! §J6's 200-ply limit on §J7 points. Colours alternate (match `k`: ours
//! plays Cho when `k` is even) and the first two plies are drawn at
//! random per match (seeded by its number). One line per match, then the
//! score.

use posthorn_rules::engine::{decide, fallback, Level};
use posthorn_rules::{Env, GameId, MatchState, SplitMix64, Viewer};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};

const ENGINE: &str = "/usr/games/fairy-stockfish";

struct Fairy {
    _child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Fairy {
    fn start() -> std::io::Result<Fairy> {
        let mut child = Command::new(ENGINE)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let input = child.stdin.take().expect("piped");
        let output = BufReader::new(child.stdout.take().expect("piped"));
        let mut fairy = Fairy {
            _child: child,
            input,
            output,
        };
        fairy.say("uci")?;
        fairy.wait_for("uciok")?;
        fairy.say("setoption name UCI_Variant value janggi")?;
        fairy.say("setoption name Threads value 1")?;
        fairy.say("isready")?;
        fairy.wait_for("readyok")?;
        Ok(fairy)
    }

    fn say(&mut self, line: &str) -> std::io::Result<()> {
        writeln!(self.input, "{line}")?;
        self.input.flush()
    }

    /// Lines until one starting with `word`; that line.
    fn wait_for(&mut self, word: &str) -> std::io::Result<String> {
        let mut line = String::new();
        loop {
            line.clear();
            if self.output.read_line(&mut line)? == 0 {
                return Err(std::io::Error::other("fairy-stockfish stopped"));
            }
            if line.starts_with(word) {
                return Ok(line.trim().to_owned());
            }
        }
    }

    /// Its move after `moves` from `start` at `depth`, as FSF writes it.
    /// The moves, not only the position, so it knows the repetitions
    /// (ours sees none: a view has no history).
    fn best(&mut self, start: &str, moves: &[String], depth: u32) -> std::io::Result<String> {
        let line = match moves.len() {
            0 => format!("position fen {start}"),
            _ => format!("position fen {start} moves {}", moves.join(" ")),
        };
        self.say(&line)?;
        self.say(&format!("go depth {depth}"))?;
        let line = self.wait_for("bestmove")?;
        Ok(line
            .split_whitespace()
            .nth(1)
            .unwrap_or("(none)")
            .to_owned())
    }
}

/// FSF's move as our action: the king's square twice is a pass (§J5).
fn action_of(fsf: &str) -> Value {
    let (from, to) = fsf.split_at(fsf.len() / 2);
    if fsf.len() >= 4 && fsf.len().is_multiple_of(2) && from == to {
        json!({"type": "pass"})
    } else {
        json!({"type": "move", "move": fsf})
    }
}

/// `action` as FSF writes it in `fen` (§J1): a pass is the mover's
/// king's square twice.
fn fsf_word(action: &Value, fen: &str) -> Option<String> {
    if let Some(step) = action["move"].as_str() {
        return Some(step.to_owned());
    }
    let mut fields = fen.split_whitespace();
    let (board, turn) = (fields.next()?, fields.next()?);
    let king = if turn == "w" { 'K' } else { 'k' };
    for (row, rank) in board.split('/').enumerate() {
        let mut file = 0u8;
        for c in rank.chars() {
            if let Some(d) = c.to_digit(10) {
                file += d as u8;
            } else if c == king {
                let square = format!("{}{}", (b'a' + file) as char, 10 - row);
                return Some(format!("{square}{square}"));
            } else {
                file += 1;
            }
        }
    }
    None
}

/// One match: our points (1 a win, 0 a loss; §J6 has no draw), the
/// ending's reason and the plies played.
fn play(level: Level, fairy: &mut Fairy, depth: u32, k: u64) -> Result<(f64, String, u32), String> {
    let game = GameId::Janggi;
    let mut random = SplitMix64::new(0xfa1_0000 + k);
    let events = MatchState::setup(game, &json!({}), 2, &mut random).map_err(|e| e.message)?;
    let mut state = MatchState::replay(game, &events).map_err(|e| e.message)?;
    // Side 0 is Cho: ours is Cho in even matches.
    let ours = (k % 2) as usize;
    let mut plies = 0;
    let start = state.view(Viewer::Spectator)["position"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let mut moves: Vec<String> = Vec::new();
    fairy.say("ucinewgame").map_err(|e| e.to_string())?;
    while let Some(duty) = state.to_act().first() {
        let seat = duty.seat;
        let view = state.view(Viewer::Seat(seat));
        let fen = view["position"]
            .as_str()
            .ok_or("a view without its FEN")?
            .to_owned();
        let action = if plies < 2 {
            fallback(&state.legal_actions(seat), &mut random).ok_or("no legal action")?
        } else if state.side(seat) == ours {
            decide(game, &view, seat, level, &mut random).map_err(|e| e.message)?
        } else {
            let best = (fairy.best(&start, &moves, depth)).map_err(|e| e.to_string())?;
            action_of(&best)
        };
        moves.push(fsf_word(&action, &fen).ok_or("a pass with no king")?);
        let mut env = Env {
            now: 0,
            random: &mut random,
        };
        let new = (state.act(seat, &action, &mut env))
            .map_err(|e| format!("ply {plies}: {action} refused: {}", e.message))?;
        for event in &new {
            state.apply(event).map_err(|e| e.message)?;
        }
        plies += 1;
    }
    let outcome = state.outcome().ok_or("the match did not end")?;
    let won = (outcome.winners.iter()).any(|w| state.side(*w) == ours);
    Ok((f64::from(u8::from(won)), outcome.reason, plies))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let level = match args.first().map(String::as_str) {
        Some("puzzle") => Level::Puzzle,
        Some(other) => match Level::parse(other) {
            Some(level) => level,
            None => {
                eprintln!("unknown level {other:?}");
                return ExitCode::from(2);
            }
        },
        None => {
            eprintln!("usage: fairy <level> <games> [<depth>] [<first>]");
            return ExitCode::from(2);
        }
    };
    let number = |i: usize, default: u64| args.get(i).map_or(Some(default), |a| a.parse().ok());
    let (Some(games), Some(depth), Some(first)) = (number(1, 40), number(2, 6), number(3, 0))
    else {
        eprintln!("games, depth and first are numbers");
        return ExitCode::from(2);
    };
    let mut fairy = match Fairy::start() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{ENGINE}: {e} (apt-get install fairy-stockfish)");
            return ExitCode::from(2);
        }
    };
    let mut score = 0.0;
    for k in first..first + games {
        let started = std::time::Instant::now();
        match play(level, &mut fairy, depth as u32, k) {
            Ok((points, reason, plies)) => {
                score += points;
                let colour = if k % 2 == 0 { "cho" } else { "han" };
                println!(
                    "match {k}: ours as {colour}: {points} ({reason}, {plies} plies, {:.0} s)",
                    started.elapsed().as_secs_f64()
                );
            }
            Err(e) => println!("match {k}: not played to its end: {e}"),
        }
    }
    println!(
        "{} at janggi against fairy-stockfish depth {depth}: {score} of {games}",
        level.id()
    );
    ExitCode::SUCCESS
}
