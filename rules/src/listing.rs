//! The legal actions of a position written in a game's own notation (the
//! notation `perft` reads), as the `moves` example prints them: none when
//! the match is over in that position, and then why (docs/operations.md).
//!
//! Each game judges the ending with the same function its `perft` uses to
//! give a finished position no children, so the number of moves listed is
//! always `perft` at depth 1.

use crate::RuleError;
use std::fmt;

/// The games and spellings [`legal_moves`] takes.
pub const GAMES: &str =
    "checkers (or checkers/<variant>), flipchess, janggi, banqi, four_player_chess";

/// Why the match is over in a position: the reason its result would name
/// and the docs/rules/ clause that ends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    pub reason: &'static str,
    pub clause: &'static str,
}

impl fmt::Display for Ending {
    /// `no_pieces (§B6)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.reason, self.clause)
    }
}

/// What a position offers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// The legal actions in the game's notation; empty when [`Self::over`]
    /// is set (and possibly otherwise: a FlipChess board may have no move
    /// while the match goes on).
    pub moves: Vec<String>,
    /// Set when the match is over in this position.
    pub over: Option<Ending>,
    /// What was judged before the moves listed (four-player chess, §Q14:
    /// a skip or an elimination at the start of a turn is not a ply).
    pub notes: Vec<String>,
}

impl Listing {
    fn of<M: fmt::Display>(moves: impl IntoIterator<Item = M>) -> Listing {
        Listing {
            moves: moves.into_iter().map(|m| m.to_string()).collect(),
            ..Listing::default()
        }
    }

    fn over(reason: &'static str, clause: &'static str) -> Listing {
        Listing {
            over: Some(Ending { reason, clause }),
            ..Listing::default()
        }
    }
}

/// The legal actions of `position` (in `game`'s `perft` notation; `None`:
/// the game's start, Banqi's layout shuffled with seed 0) — none when the
/// match is over there, with the reason in [`Listing::over`]. `game` is
/// one of [`GAMES`].
pub fn legal_moves(game: &str, position: Option<&str>) -> Result<Listing, RuleError> {
    match game {
        name if name == "checkers" || name.starts_with("checkers/") => {
            use crate::checkers::{Board, Variant};
            let variant_name = name.strip_prefix("checkers/").unwrap_or("american");
            let variant = Variant::ALL
                .iter()
                .copied()
                .find(|v| v.name() == variant_name)
                .ok_or_else(|| {
                    RuleError::malformed(format!(
                        "no checkers variant {variant_name:?}; variants: {}",
                        Variant::NAMES.join(", ")
                    ))
                })?;
            let board = match position {
                Some(fen) => Board::from_fen(variant, fen)?,
                None => Board::start(variant),
            };
            Ok(match board.ending(variant) {
                Some(reason) => Listing::over(reason, "§C1"),
                None => Listing::of(board.legal_moves(variant)),
            })
        }
        "flipchess" => {
            use crate::flipchess::board::Board;
            let board = Board::from_fen(position.unwrap_or(Board::START))?;
            Ok(match board.ending() {
                Some(reason) => Listing::over(reason, "§F9"),
                None => {
                    let mut moves = Vec::new();
                    board.moves(None, &mut moves);
                    Listing::of(moves)
                }
            })
        }
        "janggi" => {
            use crate::janggi::{start_position, Position};
            let pos = match position {
                Some(fen) => Position::from_fen(fen)?,
                None => start_position(Default::default()),
            };
            Ok(match pos.ending() {
                Some(reason) => {
                    Listing::over(reason, if reason == "bikjang" { "§J6" } else { "§J4" })
                }
                None => {
                    let mut moves = Vec::new();
                    pos.legal_moves(&mut moves);
                    Listing::of(moves)
                }
            })
        }
        "banqi" => {
            use crate::banqi::{shuffled, Position};
            let pos = match position {
                Some(text) => Position::from_notation(text)?,
                None => shuffled(&mut crate::SplitMix64::new(0)),
            };
            Ok(match pos.ending() {
                Some(reason) => Listing::over(
                    reason,
                    if reason == "no_progress" {
                        "§B7"
                    } else {
                        "§B6"
                    },
                ),
                None => {
                    let mut steps = Vec::new();
                    pos.legal_steps(&mut steps);
                    Listing::of(steps)
                }
            })
        }
        "four_player_chess" => {
            use crate::four_player_chess::{Mode, Position};
            let pos = match position {
                Some(text) => Position::from_notation(text)?,
                None => Position::start(Mode::Teams, [true; 4]),
            };
            // §Q13/Q14: the start of the turn is judged first, as perft does.
            match pos.clone().settle_or_end() {
                Err(reason) => {
                    let clause = match pos.mode {
                        Mode::Teams => "§Q6",
                        Mode::Ffa => "§Q7",
                        Mode::Points => "§Q8",
                    };
                    Ok(Listing::over(reason, clause))
                }
                Ok(settled) => {
                    let mut moves = Vec::new();
                    settled.legal_moves(&mut moves);
                    let mut listing = Listing::of(moves);
                    for army in pos.live_armies() {
                        if !settled.live(army) {
                            listing.notes.push(format!(
                                "{army} is eliminated at the start of its turn (§Q7)"
                            ));
                        }
                    }
                    if settled.to_move != pos.to_move {
                        listing.notes.push(format!(
                            "{} to move: {}'s turn was judged first (§Q14)",
                            settled.to_move, pos.to_move
                        ));
                    }
                    Ok(listing)
                }
            }
        }
        other => Err(RuleError::malformed(format!(
            "unknown game {other:?}; games: {GAMES}"
        ))),
    }
}
