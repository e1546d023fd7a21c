//! Coins (issue #70, docs/rules/rewards.md): earned by finishing games,
//! solving the daily puzzle and placing in tournaments, spent on looks
//! that change nothing in a game. This module is the one writer of the
//! ledger (`coins`) and of the balance beside it (`purses`): [`credit`]
//! writes an entry and its balance together, once per cause, in the
//! transaction that earns it, so nothing is ever paid twice; spending
//! ([`looks::buy`]) is an entry too, refused below zero.

pub mod award;
pub mod looks;
pub mod pay;

use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::{coins, purses};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Int4, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::PgConnection;
use pay::{Source, Why};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// One entry to write: `cause` is unique per player (docs/rules/rewards.md
/// §R8), so a second write of the same cause changes nothing.
pub struct Entry {
    pub user: Uuid,
    pub cause: String,
    pub amount: i32,
    pub source: Source,
    pub why: Why,
    pub match_id: Option<Uuid>,
    pub at: DateTime<Utc>,
}

/// Write `entry` and move the balance by its amount, in one statement;
/// whether it was written (false: its cause was paid already).
pub fn credit(conn: &mut PgConnection, entry: &Entry) -> Result<bool, Error> {
    let written = diesel::sql_query(
        "WITH entry AS (INSERT INTO coins (user_id, cause, amount, source, why, match_id, at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (user_id, cause) DO NOTHING \
         RETURNING user_id, amount) \
         INSERT INTO purses (user_id, balance) SELECT user_id, amount FROM entry \
         ON CONFLICT (user_id) DO UPDATE SET balance = purses.balance + EXCLUDED.balance",
    )
    .bind::<SqlUuid, _>(entry.user)
    .bind::<Text, _>(&entry.cause)
    .bind::<Int4, _>(entry.amount)
    .bind::<Text, _>(entry.source.as_str())
    .bind::<Text, _>(entry.why.as_str())
    .bind::<Nullable<SqlUuid>, _>(entry.match_id)
    .bind::<Timestamptz, _>(entry.at)
    .execute(conn)?;
    Ok(written == 1)
}

/// Lock the purses of `users` (made at 0 where there is none yet), in
/// user order: the one order in which a transaction that pays several
/// players takes them, and what makes the day's totals read after it
/// (§R5) this transaction's alone. A deadline sweep that settles many
/// matches takes each match's in turn; a deadlock with another
/// transaction is then possible, rare, and passes (it is transient:
/// the sweep and the client retry).
pub fn lock_purses(conn: &mut PgConnection, users: &[Uuid]) -> Result<(), Error> {
    let mut users = users.to_vec();
    users.sort();
    users.dedup();
    if users.is_empty() {
        return Ok(());
    }
    let rows: Vec<_> = (users.iter())
        .map(|u| (purses::user_id.eq(*u), purses::balance.eq(0)))
        .collect();
    diesel::insert_into(purses::table)
        .values(rows)
        .on_conflict_do_nothing()
        .execute(conn)?;
    purses::table
        .filter(purses::user_id.eq_any(&users))
        .order(purses::user_id)
        .select(purses::user_id)
        .for_update()
        .load::<Uuid>(conn)?;
    Ok(())
}

/// A player's balance (0 before the first entry).
pub fn balance(conn: &mut PgConnection, user: Uuid) -> Result<i32, Error> {
    Ok(purses::table
        .find(user)
        .select(purses::balance)
        .first(conn)
        .optional()?
        .unwrap_or(0))
}

/// One line of the ledger, as the player reads it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Queryable, Selectable)]
#[diesel(table_name = coins)]
pub struct LedgerLine {
    pub id: i64,
    /// Coins earned (positive), spent (negative), or none, with why.
    pub amount: i32,
    /// `rated`, `casual`, `tournament`, `computer`, `puzzle`, `streak`,
    /// `place` or `shop`.
    pub source: String,
    /// `win`, `draw`, `loss`, `resigned_early`, `abandoned`, `guest`,
    /// `aborted`, `took_back`, `pairing`, `daily_cap`, `solved`, `streak`,
    /// `place` or `bought`.
    pub why: String,
    /// What paid or was bought: `match:<id>:<seat>`, `puzzle:<game>:<day>`,
    /// `streak:<game>:<day>`, `tournament:<id>`, `look:<item>`.
    pub cause: String,
    pub match_id: Option<Uuid>,
    pub at: DateTime<Utc>,
}

/// `GET /v1/me/coins`: the balance and the ledger, newest first.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Ledger {
    pub balance: i32,
    pub lines: Vec<LedgerLine>,
    /// Pass as `before` for the older lines; absent at the first entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_before: Option<i64>,
}

/// Up to `limit` lines of `user`'s ledger older than line `before`.
pub fn ledger(
    conn: &mut PgConnection,
    user: Uuid,
    before: Option<i64>,
    limit: i64,
) -> Result<Ledger, Error> {
    let mut query = coins::table
        .filter(coins::user_id.eq(user))
        .order(coins::id.desc())
        .limit(limit + 1)
        .select(LedgerLine::as_select())
        .into_boxed();
    if let Some(before) = before {
        query = query.filter(coins::id.lt(before));
    }
    let mut lines: Vec<LedgerLine> = query.load(conn)?;
    let more = lines.len() as i64 > limit;
    lines.truncate(limit as usize);
    Ok(Ledger {
        balance: balance(conn, user)?,
        next_before: more.then(|| lines.last().map(|l| l.id)).flatten(),
        lines,
    })
}

/// The ledger goes with the account; the export holds all of it.
pub const PERSONAL: Owner = Owner::erasing(
    "coins",
    &["coins", "purses"],
    forget,
    Exported::In(&["coins/balance", "coins/lines"]),
);

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    let user = leaving.user;
    diesel::delete(purses::table.find(user)).execute(conn)?;
    diesel::delete(coins::table.filter(coins::user_id.eq(user))).execute(conn)?;
    Ok(())
}

/// The whole ledger, for the export.
pub fn exported(conn: &mut PgConnection, user: Uuid) -> Result<Ledger, Error> {
    ledger(conn, user, None, i64::MAX - 1)
}
