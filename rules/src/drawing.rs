//! A board as a picture draws it (issue #69 item 5, docs/pictures.md):
//! squares and the pieces on them, read from a *view* and nothing else.
//! The service's renderer rasterises a [`Drawing`]; since a drawing is
//! made from the view a reader may have (§H4), two states that differ
//! only in what that reader may not see draw the same, byte for byte.
//! The look follows the web client's boards (`src/web/<game>.js`): the
//! same glyphs, the same inks, rank 1 at the bottom.

use crate::banqi::Banqi;
use crate::checkers::Checkers;
use crate::flipchess::FlipChess;
use crate::four_player_chess::FourPlayerChess;
use crate::janggi::Janggi;
use crate::Game;
use serde::Serialize;

/// A board to draw: `cols` × `rows` cells, row 0 at the top.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Drawing {
    pub cols: u8,
    pub rows: u8,
    pub cells: Vec<Cell>,
}

/// One cell: its ground and what stands on it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Cell {
    pub col: u8,
    pub row: u8,
    pub ground: Ground,
    pub piece: Option<Piece>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ground {
    Light,
    Dark,
    /// Janggi's and Banqi's one-coloured boards.
    Plain,
}

/// A piece as drawn: a disc (checkers' men, every Janggi and Banqi
/// piece), a glyph on it or alone, in an ink named as the web client's
/// classes are (`white`, `black`, `red`, `cho`, `han`, `green`, `blue`,
/// `gray`); a face-down Banqi piece is a blank disc.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Piece {
    pub glyph: &'static str,
    pub ink: &'static str,
    pub disc: bool,
}

/// A game whose views are drawn.
pub trait Drawn: Game + crate::records::Records {
    fn drawing(view: &Self::View) -> Drawing;
}

/// A finished match's frames for an animation: the board at the start of
/// play, then after each play (each word of its record), as `viewer`
/// sees it.
pub fn frames<G: Drawn>(
    events: &[G::Event],
    viewer: crate::Viewer,
) -> Result<Vec<Drawing>, crate::RuleError> {
    let mut state = G::State::default();
    let mut frames = Vec::new();
    for event in events {
        let play = G::word(&state, event).is_some();
        if play && frames.is_empty() {
            frames.push(G::drawing(&G::view(&state, viewer)));
        }
        G::apply(&mut state, event)?;
        if play {
            frames.push(G::drawing(&G::view(&state, viewer)));
        }
    }
    Ok(frames)
}

/// The name serde gives a unit enum value (`"chariot"`).
fn name<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A square named by file letter and rank number (`c10`), as `(file,
/// rank)` from 0.
fn square(name: &str) -> Option<(u8, u8)> {
    let mut chars = name.chars();
    let file = (chars.next()? as u8).checked_sub(b'a')?;
    let rank: u8 = chars.as_str().parse().ok()?;
    Some((file, rank.checked_sub(1)?))
}

/// Every cell of a `cols` × `rows` board with rank 1 at the bottom, its
/// ground by `ground(file, rank)` (`None`: no cell), pieces from
/// `pieces` by square name.
fn board(
    cols: u8,
    rows: u8,
    ground: impl Fn(u8, u8) -> Option<Ground>,
    pieces: &[(String, Piece)],
) -> Drawing {
    let placed: std::collections::HashMap<(u8, u8), &Piece> = (pieces.iter())
        .filter_map(|(sq, p)| Some((square(sq)?, p)))
        .collect();
    let mut cells = Vec::new();
    for rank in (0..rows).rev() {
        for file in 0..cols {
            let Some(ground) = ground(file, rank) else {
                continue;
            };
            let piece = placed.get(&(file, rank)).map(|p| (*p).clone());
            cells.push(Cell {
                col: file,
                row: rows - 1 - rank,
                ground,
                piece,
            });
        }
    }
    Drawing { cols, rows, cells }
}

/// A piece on a disc at `square`, as Janggi and Banqi draw theirs.
fn on_disc(square: &str, glyph: &'static str, ink: &'static str) -> (String, Piece) {
    let disc = true;
    (square.to_owned(), Piece { glyph, ink, disc })
}

fn chess_glyph(kind: &str) -> &'static str {
    match kind {
        "k" | "king" => "♚",
        "q" | "queen" => "♛",
        "r" | "rook" => "♜",
        "b" | "bishop" => "♝",
        "n" | "knight" => "♞",
        _ => "♟",
    }
}

/// Checkers: the dark squares numbered as §C1 (1 at Black's far left,
/// Black at the top), discs, a king crowned.
impl Drawn for Checkers {
    fn drawing(view: &Self::View) -> Drawing {
        let size = view.size.max(2);
        let per_row = size / 2;
        let mut cells = Vec::new();
        for row in 0..size {
            for col in 0..size {
                let dark = !(row + col).is_multiple_of(2);
                let n = u16::from(row) * u16::from(per_row) + u16::from(col / 2) + 1;
                let piece = (view.pieces.iter())
                    .find(|p| dark && u16::from(p.square) == n)
                    .map(|p| Piece {
                        glyph: if p.king { "♛" } else { "" },
                        ink: if p.colour == "white" {
                            "white"
                        } else {
                            "black"
                        },
                        disc: true,
                    });
                let ground = if dark { Ground::Dark } else { Ground::Light };
                cells.push(Cell {
                    col,
                    row,
                    ground,
                    piece,
                });
            }
        }
        Drawing {
            cols: size,
            rows: size,
            cells,
        }
    }
}

/// Janggi: nine files, ten ranks, Cho's green and Han's red characters.
impl Drawn for Janggi {
    fn drawing(view: &Self::View) -> Drawing {
        let pieces: Vec<(String, Piece)> = (view.pieces.iter())
            .map(|p| {
                let side = name(&p.side);
                let glyph = match (name(&p.kind).as_str(), side.as_str()) {
                    ("king", "cho") => "楚",
                    ("king", _) => "漢",
                    ("guard", _) => "士",
                    ("chariot", _) => "車",
                    ("cannon", _) => "包",
                    ("horse", _) => "馬",
                    ("elephant", _) => "象",
                    (_, "cho") => "卒",
                    _ => "兵",
                };
                let ink = if side == "cho" { "cho" } else { "han" };
                on_disc(&p.square, glyph, ink)
            })
            .collect();
        board(9, 10, |_, _| Some(Ground::Plain), &pieces)
    }
}

/// Banqi: eight by four, face-down pieces as blank discs (§B8: nobody
/// sees them, so no view names them).
impl Drawn for Banqi {
    fn drawing(view: &Self::View) -> Drawing {
        let mut pieces: Vec<(String, Piece)> = (view.pieces.iter())
            .map(|p| {
                let red = name(&p.colour) == "red";
                let glyph = match (name(&p.kind).as_str(), red) {
                    ("general", true) => "帥",
                    ("general", false) => "將",
                    ("advisor", true) => "仕",
                    ("advisor", false) => "士",
                    ("elephant", true) => "相",
                    ("elephant", false) => "象",
                    ("chariot", true) => "俥",
                    ("chariot", false) => "車",
                    ("horse", true) => "傌",
                    ("horse", false) => "馬",
                    ("cannon", true) => "炮",
                    ("cannon", false) => "包",
                    (_, true) => "兵",
                    _ => "卒",
                };
                on_disc(&p.square, glyph, if red { "red" } else { "black" })
            })
            .collect();
        pieces.extend((view.face_down.iter()).map(|sq| on_disc(sq, "", "face_down")));
        board(8, 4, |_, _| Some(Ground::Plain), &pieces)
    }
}

/// FlipChess: the chess board of its FEN, White at the bottom.
impl Drawn for FlipChess {
    fn drawing(view: &Self::View) -> Drawing {
        let mut pieces = Vec::new();
        let placement = view.position.split(' ').next().unwrap_or("");
        for (i, rank) in placement.split('/').enumerate() {
            let mut file = 0u8;
            for c in rank.chars() {
                if let Some(skip) = c.to_digit(10) {
                    file += skip as u8;
                    continue;
                }
                let square = format!("{}{}", (b'a' + file) as char, 8 - i);
                let ink = if c.is_ascii_uppercase() {
                    "white"
                } else {
                    "black"
                };
                let lower = c.to_ascii_lowercase().to_string();
                let glyph = chess_glyph(&lower);
                let piece = Piece {
                    glyph,
                    ink,
                    disc: false,
                };
                pieces.push((square, piece));
                file += 1;
            }
        }
        board(8, 8, chequered, &pieces)
    }
}

fn chequered(file: u8, rank: u8) -> Option<Ground> {
    Some(if (file + rank).is_multiple_of(2) {
        Ground::Dark
    } else {
        Ground::Light
    })
}

/// Four-player chess: fourteen by fourteen less the three-by-three
/// corners, each army in its colour.
impl Drawn for FourPlayerChess {
    fn drawing(view: &Self::View) -> Drawing {
        let pieces: Vec<(String, Piece)> = (view.pieces.iter())
            .map(|p| {
                let ink = match name(&p.owner).as_str() {
                    "red" => "red",
                    "blue" => "blue",
                    "green" => "green",
                    "gray" => "gray",
                    _ => "black",
                };
                let piece = Piece {
                    glyph: chess_glyph(&name(&p.kind)),
                    ink,
                    disc: false,
                };
                (p.square.clone(), piece)
            })
            .collect();
        let corner = |x: u8| !(3..11).contains(&x);
        board(
            14,
            14,
            |file, rank| {
                (!(corner(file) && corner(rank)))
                    .then(|| chequered(file, rank))
                    .flatten()
            },
            &pieces,
        )
    }
}
