//! Game records (issue #69, docs/records.md): a match written in the
//! format its players' other tools read — PDN for checkers, PGN for
//! Janggi (Fairy-Stockfish's FEN), PGN4 for four-player chess (as
//! chess.com writes it), and a documented text record for Banqi and
//! FlipChess — and read back into the actions that replay it through the
//! rules.
//!
//! A record holds what its reader may see (§H3, §H4): a finished match's
//! players get it whole (`Header::whole`), anyone else the spectator's
//! view of it: each event is redacted for a spectator before its word is
//! written, and a game's tags name a secret (Banqi's layout) only in a
//! whole record.
//! The generic part here folds the events, asks the game for each
//! action's word ([`Records::word`]) and the tags, and lays out the
//! movetext; reading splits the movetext into words and asks the game
//! for each one's action ([`Records::action`]).

use crate::{Game, Outcome, OutcomeKind, RuleError, Seat, Viewer};

/// What the service knows of a match that its record names.
#[derive(Clone, Debug, Default)]
pub struct Header {
    /// Where it was played: the service's address.
    pub site: String,
    /// The day it began, `YYYY.MM.DD`.
    pub date: String,
    /// Each seat's name, by seat.
    pub names: Vec<String>,
    /// Whether the reader may see the whole log, hidden cards and pieces
    /// included (a finished match's player, §H3); else the spectator's.
    pub whole: bool,
}

impl Header {
    /// The tags every record opens with: PGN's event, site and date.
    pub fn common(&self) -> Vec<(&'static str, String)> {
        vec![
            ("Event", "Posthorn correspondence".into()),
            ("Site", self.site.clone()),
            ("Date", self.date.clone()),
        ]
    }

    /// The name of whoever sat at `seat`.
    pub fn name(&self, seat: Seat) -> String {
        self.names
            .get(seat.index())
            .cloned()
            .unwrap_or_else(|| "?".into())
    }
}

/// A record read back: its tags, and its actions in order.
#[derive(Clone, Debug)]
pub struct Read<A> {
    pub tags: Vec<(String, String)>,
    pub actions: Vec<A>,
}

impl<A> Read<A> {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A game whose matches are written as records.
pub trait Records: Game {
    /// The file's extension: `pdn`, `pgn`, `pgn4`, `txt`.
    const EXTENSION: &'static str;

    /// The game's own tags, from the state at the start (after the
    /// opening events) and at the end: variant, start position, which
    /// name plays which side, the result.
    fn tags(start: &Self::State, end: &Self::State, header: &Header)
        -> Vec<(&'static str, String)>;

    /// `event`'s word in the movetext and the side that played it (an
    /// index in the game's order of sides, or of armies), read against
    /// the state before it (a move's piece, a turned-up piece), when it
    /// is an action that plays on: a move, a pass, a card, a turn-up.
    fn word(before: &Self::State, event: &Self::Event) -> Option<(usize, String)>;

    /// The action a word of the movetext names.
    fn action(word: &str) -> Option<Self::Action>;

    /// The result as the format writes it, from the end (only called
    /// once the match is over). By default PGN's, where the side of
    /// index 1 (White in checkers, FlipChess's White) is written first.
    fn result(end: &Self::State, outcome: &Outcome) -> String {
        pgn_result(outcome, |s| Self::side(end, s), 1)
    }

    /// The movetext from each turn's words (a turn: one side's actions
    /// in a row): by default two turns to a number, `1. 11-15 23-19`.
    fn movetext(turns: &[(usize, Vec<String>)]) -> String {
        let mut out = String::new();
        for (i, (_, words)) in turns.iter().enumerate() {
            if i % 2 == 0 {
                out.push_str(&format!("{}. ", i / 2 + 1));
            }
            out.push_str(&words.join(" "));
            out.push(' ');
        }
        out
    }
}

/// The record of a match's whole log `events`, as `header`'s reader may
/// see it.
pub fn write<G: Records>(events: &[G::Event], header: &Header) -> Result<String, RuleError> {
    let mut state = G::State::default();
    let mut start = None;
    let mut turns: Vec<(usize, Vec<String>)> = Vec::new();
    for event in events {
        let seen = match header.whole {
            true => event.clone(),
            false => G::redact(event, Viewer::Spectator),
        };
        if let Some((side, word)) = G::word(&state, &seen) {
            // The start: the board as the first action found it.
            start.get_or_insert_with(|| state.clone());
            match turns.last_mut() {
                Some((s, words)) if *s == side => words.push(word),
                _ => turns.push((side, vec![word])),
            }
        }
        G::apply(&mut state, event)?;
    }
    let start = start.unwrap_or_else(|| state.clone());
    let mut out = String::new();
    for (name, value) in G::tags(&start, &state, header) {
        let value = value.replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("[{name} \"{value}\"]\n"));
    }
    out.push('\n');
    let result = G::outcome(&state).map_or("*".to_owned(), |o| G::result(&state, &o));
    let movetext = G::movetext(&turns) + &result;
    out.push_str(&wrap(&movetext, 79));
    out.push('\n');
    Ok(out)
}

/// The action `word` names, its comment left out (what a players' record
/// adds in braces: FlipChess's card drawn, `draw {blue-4}`).
pub fn action_of<G: Records>(word: &str) -> Option<G::Action> {
    G::action(word.split(" {").next().unwrap_or(word).trim())
}

/// A record read back into its tags and actions.
pub fn read<G: Records>(text: &str) -> Result<Read<G::Action>, RuleError> {
    let bad = |why: String| RuleError::malformed(format!("record: {why}"));
    let mut tags = Vec::new();
    let mut movetext = String::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let (name, value) = inner
                .split_once(' ')
                .ok_or_else(|| bad(format!("a tag without a value: {line}")))?;
            let value = value.trim();
            let value = (value.strip_prefix('"').and_then(|v| v.strip_suffix('"')))
                .ok_or_else(|| bad(format!("a tag's value not in quotes: {line}")))?;
            tags.push((
                name.to_owned(),
                value.replace("\\\"", "\"").replace("\\\\", "\\"),
            ));
        } else {
            movetext.push_str(line);
            movetext.push(' ');
        }
    }
    // Comments in braces are not moves.
    let mut plain = String::new();
    let mut depth = 0u32;
    for c in movetext.chars() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| bad("a comment closed that was never opened".into()))?;
            }
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let mut actions = Vec::new();
    for word in plain.split_whitespace() {
        let numbering = word
            .trim_end_matches('.')
            .chars()
            .all(|c| c.is_ascii_digit())
            || word.chars().all(|c| c == '.');
        let result = matches!(
            word,
            "1-0" | "0-1" | "1/2-1/2" | "*" | "2-0" | "0-2" | "1-1"
        );
        if numbering || result || word.ends_with(':') {
            continue;
        }
        actions.push(G::action(word).ok_or_else(|| bad(format!("not a move: {word}")))?);
    }
    Ok(Read { tags, actions })
}

/// PGN's result: `1-0` when the side of index `white` (written first)
/// won, `0-1` when the other did, `1/2-1/2` for a draw.
pub fn pgn_result(outcome: &Outcome, side: impl Fn(Seat) -> usize, white: usize) -> String {
    match outcome.outcome {
        OutcomeKind::Draw => "1/2-1/2".into(),
        _ => match outcome.winners.first().map(|s| side(*s)) {
            Some(s) if s == white => "1-0".into(),
            Some(_) => "0-1".into(),
            None => "*".into(),
        },
    }
}

/// Lines of at most `width` characters (PGN's export format asks 79 and
/// breaks at spaces).
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out
}
