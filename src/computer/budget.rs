//! Engine time, shared fairly (docs/bots.md). Every search a computer makes
//! is timed and charged to the person it plays (the job's owner) and to
//! the address that person last made a computer match from. The job
//! runner claims the move of whoever spent least in the last hour first
//! (`job_queue::claim`), so one player's backlog never delays another's
//! reply, and a person or address over budget waits until its hour
//! frees up: engine *time* is bounded, whatever the number of matches
//! or accounts behind it.
//!
//! The budgets are far above what a person playing by hand spends: a
//! hard Janggi reply takes about 1.2 s, so 10 minutes an hour is some 500
//! hard replies an hour; only a script (a takeback loop, dozens of
//! matches played at once) meets it. Its replies then wait, the match
//! page saying the computer is thinking; nothing is refused or lost.

use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::{engine_addresses, engine_time};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use uuid::Uuid;

pub use crate::limits::engine::{PER_ADDRESS, PER_PLAYER, WINDOW};

/// What each job's owner spent in the window, for the job runner's claim
/// (`job_queue::claim`): by the owner, by the address they last made a
/// computer match from, and by that address's IPv6 /48 (`engine_time.block`).
pub const SPENT: crate::job_queue::Spent = crate::job_queue::Spent(
    "LEFT JOIN LATERAL (SELECT coalesce(sum(t.millis), 0) AS spent FROM engine_time t \
        WHERE t.owner = j.owner AND t.at > $4) mine ON true \
    LEFT JOIN LATERAL (SELECT coalesce(sum(t.millis), 0) AS spent FROM engine_time t \
        WHERE t.address = (SELECT a.address FROM engine_addresses a WHERE a.user_id = j.owner) AND t.at > $4) here ON true \
    LEFT JOIN LATERAL (SELECT coalesce(sum(t.millis), 0) AS spent FROM engine_time t \
        WHERE t.block = (SELECT address_block(a.address) FROM engine_addresses a WHERE a.user_id = j.owner) \
        AND t.at > $4) wide ON true",
);

/// `player` makes a computer match from `address`: their engine time
/// counts against it from now on.
pub fn seen_from(conn: &mut PgConnection, player: Uuid, address: &str) -> Result<(), Error> {
    // Written only when it changed: most matches come from the same place.
    diesel::sql_query(
        "INSERT INTO engine_addresses (user_id, address) VALUES ($1, $2) \
         ON CONFLICT (user_id) DO UPDATE SET address = EXCLUDED.address \
         WHERE engine_addresses.address <> EXCLUDED.address",
    )
    .bind::<diesel::sql_types::Uuid, _>(player)
    .bind::<diesel::sql_types::Text, _>(address)
    .execute(conn)?;
    Ok(())
}

/// Charge `spent` of engine time to `owner` (and their address) at `now`.
pub fn charge(
    conn: &mut PgConnection,
    owner: Uuid,
    spent: std::time::Duration,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let address: Option<String> = engine_addresses::table
        .find(owner)
        .select(engine_addresses::address)
        .first(conn)
        .optional()?;
    diesel::insert_into(engine_time::table)
        .values((
            engine_time::owner.eq(owner),
            engine_time::address.eq(address),
            engine_time::at.eq(now),
            engine_time::millis.eq(spent.as_millis().min(i32::MAX as u128) as i32),
        ))
        .execute(conn)?;
    Ok(())
}

/// Charge the time since `started` to `owner` (if anyone) at `now`, in a
/// transaction of its own: the time was spent whatever became of the
/// work; a charge that fails is logged, never the work's failure.
pub fn charge_since(
    pool: &crate::db::Pool,
    owner: Option<Uuid>,
    started: std::time::Instant,
    now: DateTime<Utc>,
) {
    let Some(owner) = owner else { return };
    let spent = started.elapsed();
    if let Err(e) = crate::db::transaction(pool, |c| charge(c, owner, spent, now)) {
        log::warn!("engine time of {owner} not charged: {e}");
    }
}

/// Whether any of `players` has spent their engine budget of the window
/// ending `now` (the miner skips a match of theirs rather than wait).
pub fn any_over(
    conn: &mut PgConnection,
    players: &[Uuid],
    now: DateTime<Utc>,
) -> Result<bool, Error> {
    let spent: Vec<Option<i64>> = engine_time::table
        .filter(engine_time::owner.eq_any(players))
        .filter(engine_time::at.gt(now - WINDOW))
        .group_by(engine_time::owner)
        .select(diesel::dsl::sum(engine_time::millis))
        .load(conn)?;
    let budget = PER_PLAYER.num_milliseconds();
    Ok(spent.into_iter().any(|s| s.unwrap_or(0) >= budget))
}

/// Forget charges older than a window (once per run of the job runner).
pub fn forget_old(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    Ok(
        diesel::delete(engine_time::table.filter(engine_time::at.lt(now - WINDOW)))
            .execute(conn)?,
    )
}

/// The computer's time spent for the player goes with the account.
pub const PERSONAL: Owner = Owner::erasing(
    "computer::budget",
    &["engine_time", "engine_addresses"],
    forget,
    Exported::Not(
        "the computer's thinking time spent for the player, kept a day to share the engines fairly, \
         and the address it was last asked from",
    ),
);

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(engine_time::table.filter(engine_time::owner.eq(leaving.user))).execute(conn)?;
    diesel::delete(engine_addresses::table.find(leaving.user)).execute(conn)?;
    Ok(())
}
