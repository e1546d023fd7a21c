//! How tables come to be: creating a match, challenges, invitations,
//! seeks and rematches, and taking a seat. Above the match aggregate
//! (`matches`), which imports nothing of this (docs/architecture.md).

pub mod challenge;
pub mod computers;
pub mod create;
pub mod invites;
pub mod rematch;
pub mod seat;
pub mod seek_fallback;
pub mod seeks;
