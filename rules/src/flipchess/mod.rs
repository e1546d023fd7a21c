//! FlipChess (RULES.md §F). In progress: the board (§F3) and the cards
//! (§F2–F4) are here; the turn flow, effects, flips, "last card!" and the
//! game contract are not yet (see the README's status).

pub mod board;
pub mod cards;
