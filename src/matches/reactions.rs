//! The reactions seam (docs/decisions/matches-and-deadlines.md): what
//! follows an append to a match's log in the same transaction — the rating
//! update at a rated end, the notices to the players, a computer opponent's
//! move, a tournament's next round. The list is built once at start-up
//! (`crate::app_state`) and called by `Table::append`, which names none of
//! them: the aggregate stays below the features that react to it. They run
//! in the list's order, and the order matters once: the rating update comes
//! before the notices, whose "match finished" shows its changes.

use super::duties::TimedDuty;
use super::{EventRow, Table};
use crate::error::Error;
use crate::notify::outbox::Notice;
use chrono::{DateTime, Utc};
use diesel::PgConnection;
use std::sync::OnceLock;

/// One append, as a reaction is shown it.
pub struct Appended<'a> {
    /// The events this append stored.
    pub stored: &'a [EventRow],
    /// The events of this match held back by this transaction's batch
    /// (`held.rs`), written after it: see [`Appended::unwritten`].
    pub held: &'a [EventRow],
    /// The duties the match owed before the append.
    pub duties_before: &'a [TimedDuty],
    /// Whether the match was already over before the append.
    pub was_finished: bool,
    /// The seat whose stored conditional line these events play
    /// (`conditional::answer`), if they are one.
    pub on_behalf: Option<posthorn_rules::Seat>,
    pub now: DateTime<Utc>,
}

impl Appended<'_> {
    /// The held events and then `stored`: what a reader of the log must
    /// add to what it finds (docs/decisions/ratings.md: the rating update
    /// of a held batch is shown the held events). Built only for the
    /// reaction that reads the log.
    pub fn unwritten(&self) -> Vec<EventRow> {
        self.held.iter().chain(self.stored).cloned().collect()
    }

    /// Whether this append ended `row`'s match: the rating update, the
    /// result's notices, a tournament's advance and mining follow it once.
    pub fn ended(&self, row: &super::MatchRow) -> bool {
        !self.was_finished && row.status == super::MatchStatus::Finished
    }
}

/// Something that follows every append, in its transaction. It may write
/// (its writes commit or roll back with the events), may annotate the
/// match row that is written after it (the rating changes in the result),
/// and may return
/// notices, which are written with the events.
pub trait Reaction: Send + Sync {
    fn react(
        &self,
        conn: &mut PgConnection,
        table: &mut Table,
        appended: &Appended,
    ) -> Result<Vec<Notice>, Error>;
}

static REACTIONS: OnceLock<Vec<Box<dyn Reaction>>> = OnceLock::new();

/// Set the list, once per process; later calls keep the first list (every
/// instance of the service in a process builds the same one).
pub fn install(list: impl FnOnce() -> Vec<Box<dyn Reaction>>) {
    REACTIONS.get_or_init(list);
}

/// The list; an append before start-up built it is refused, loudly,
/// rather than stored without its rating update or notices.
pub(super) fn installed() -> Result<&'static [Box<dyn Reaction>], Error> {
    REACTIONS
        .get()
        .map(Vec::as_slice)
        .ok_or_else(|| Error::internal("an append before the reactions were installed"))
}
