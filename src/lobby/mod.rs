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

use crate::error::Error;
use crate::matches::MatchStatus;
use crate::personal::{Exported, Leaving, Owner, Phase};
use crate::schema::seeks as seek_rows;
use diesel::prelude::*;
use diesel::PgConnection;
use uuid::Uuid;

/// A leaving player's way to new tables: their seeks and rematch offers
/// go, challenges to them are declined and the matches still waiting for
/// players that they sit in are cancelled (the seated others are told).
pub const PERSONAL: Owner = Owner {
    module: "lobby",
    // Challenges and rematch offers are the match's tables
    // (`matches::challenged`, `matches::rematch_offers`), forgotten here
    // through them: leaving declines and withdraws them as the lobby does.
    tables: &["seeks", "challenges", "rematch_offers", "invites"],
    phase: Phase::LeavePlay,
    forget: leave,
    exported: Exported::In(&["matches"]),
    kept: "an invitation link used keeps who used it: it is how they took \
           their seat in a match whose record stays",
};

fn leave(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    let (user, now) = (leaving.user, leaving.now);
    diesel::delete(seek_rows::table.filter(seek_rows::user_id.eq(user))).execute(conn)?;
    crate::matches::rematch_offers::withdraw_all(conn, user)?;
    let challenged: Vec<Uuid> = crate::matches::challenged::matches_of(user).load(conn)?;
    for id in challenged {
        challenge::decline(conn, id, user, now, leaving.random)?;
    }
    // Locked in id order, as a tournament withdrawal locks them.
    for open in crate::matches::reads::lock_open_of(conn, user)? {
        if open.status == MatchStatus::Waiting {
            challenge::abandon(conn, open.id, user, now)?;
        }
    }
    Ok(())
}
