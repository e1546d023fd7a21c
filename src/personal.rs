//! The personal-data seam (docs/decisions/accounts-and-sessions.md,
//! "Whose data is whose"): every module that owns a table holding a
//! player's data says, in one [`Owner`] beside its code, which tables it
//! answers for, how it forgets a player and where the export holds them.
//! Deleting an account and exporting one's data loop over the owners
//! (`deletion::OWNERS`), so a new personal table joins both by being
//! declared where it is written, and a test reading the database's own
//! catalogue fails on a table that no owner covers.

use crate::error::Error;
use chrono::{DateTime, Utc};
use diesel::PgConnection;
use posthorn_rules::Random;
use uuid::Uuid;

/// When an owner forgets, in this order: the matches and tournaments a
/// player is in are left first, so results and rating changes are written
/// as for any resignation; then the standings they earned go; then the
/// rest is erased, the account row last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    LeavePlay,
    Standings,
    Erase,
}

/// A player leaving: deleted, or (the [`Phase::LeavePlay`] phase alone)
/// suspended.
pub struct Leaving<'a> {
    pub user: Uuid,
    /// A guest's name was never held: it is released at once.
    pub guest: bool,
    pub now: DateTime<Utc>,
    pub random: &'a mut dyn Random,
    /// The sessions ended, whose access tokens the caller stops.
    pub sessions_ended: Vec<Uuid>,
}

/// How the owner forgets a player.
pub type Forget = fn(&mut PgConnection, &mut Leaving<'_>) -> Result<(), Error>;

/// Where a player's export holds an owner's rows.
#[derive(Clone, Copy, Debug)]
pub enum Exported {
    /// The fields of `GET /v1/me/export` that hold them (a `*` stands
    /// for each element of a list).
    In(&'static [&'static str]),
    /// Not exported, and why.
    Not(&'static str),
}

/// One module's answer for the personal data in its tables.
#[derive(Clone, Copy, Debug)]
pub struct Owner {
    /// The owning module, as the layering test names it.
    pub module: &'static str,
    /// The tables holding a player's data that this module writes.
    pub tables: &'static [&'static str],
    pub phase: Phase,
    pub forget: Forget,
    pub exported: Exported,
    /// What stays of the player's rows after forgetting, and why ("" when
    /// nothing does).
    pub kept: &'static str,
}

impl Owner {
    /// An owner whose rows all go with the player.
    pub const fn erasing(
        module: &'static str,
        tables: &'static [&'static str],
        forget: Forget,
        exported: Exported,
    ) -> Owner {
        Owner {
            module,
            tables,
            phase: Phase::Erase,
            forget,
            exported,
            kept: "",
        }
    }
}
