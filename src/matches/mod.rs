//! Matches as event logs (docs/design.md §3). The `matches` row caches what
//! queries need; the truth is `match_events`, folded through the rules
//! crate. Every change goes through [`Table::append`] inside the caller's
//! transaction, with the match row locked.

pub mod append;
pub mod challenged;
pub mod conditional;
pub mod courtesy;
pub mod duties;
pub mod fold;
pub mod held;
pub mod load;
pub mod play;
pub mod reactions;
pub mod reads;
pub mod record;
pub mod rematch_offers;
pub mod replay;
pub mod resignations;
pub mod seating;
pub mod snapshots;
pub mod stale;
pub mod status;
pub mod takeback;
pub mod view;

pub use status::{MatchStatus, ServiceEvent};

/// A subquery of match ids, for a caller's `eq_any` (`reads::waiting`).
pub type Ids = matches::BoxedQuery<'static, diesel::pg::Pg, diesel::sql_types::Uuid>;

use crate::error::Error;
use crate::players::Player;
use crate::schema::{match_events, match_seats, matches, users};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use duties::TimedDuty;
use posthorn_rules::{GameId, MatchState, Seat, Viewer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Clone, Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = matches)]
pub struct MatchRow {
    pub id: Uuid,
    pub game: String,
    pub variant: Option<String>,
    pub mode: Option<String>,
    pub options: Value,
    pub status: MatchStatus,
    pub seq: i32,
    pub rated: bool,
    pub turn_seconds: i32,
    pub created_by: Uuid,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub to_act: Value,
    pub awaiting: Vec<Uuid>,
    pub notice_at: Option<DateTime<Utc>>,
    pub deadline_at: Option<DateTime<Utc>>,
    pub result: Option<Value>,
    /// The finished match this one is the rematch of, and its own
    /// rematch once started (docs/decisions/challenges-and-lobby.md,
    /// "Rematches").
    pub rematch_of: Option<Uuid>,
    pub rematch_id: Option<Uuid>,
    /// The tournament this match is a pairing of (docs/tournaments.md).
    pub tournament_id: Option<Uuid>,
    /// Moves when a seated player's name changes ([`roster_changed`]): a
    /// cached table's players hold while it stands still
    /// (docs/benchmarks.md, "Winning back the action path").
    pub roster: i32,
    /// The players who may keep conditional moves here (a superset, kept
    /// by `conditional`): nobody else's lines are read after a move.
    pub planning: Vec<Uuid>,
}

#[derive(Clone, Debug, Queryable, Selectable)]
#[diesel(table_name = match_events)]
pub struct EventRow {
    pub seq: i32,
    pub at: DateTime<Utc>,
    pub seat: Option<i16>,
    pub rules: bool,
    pub body: Value,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct SeatView {
    #[schema(minimum = 0, maximum = 3)]
    pub seat: u8,
    /// Empty while the seat is open.
    pub user: Option<Player>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Invite {
    pub code: String,
    pub url: String,
    pub expires_at: DateTime<Utc>,
}

/// A match as one viewer may see it (docs/api.md §Matches).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct MatchView {
    pub id: Uuid,
    pub game: String,
    pub variant: Option<String>,
    pub mode: Option<String>,
    /// `waiting` (seats open), `active` or `finished`.
    pub status: MatchStatus,
    /// The last event's seq (the `ETag` carries it, with a hash of the view).
    pub seq: i32,
    pub rated: bool,
    /// The match's configuration: variant or mode, setups, and a custom
    /// `position` if one was given, which every player sees before they
    /// accept (issue #30).
    #[schema(value_type = Object)]
    pub options: Value,
    /// Time per turn; the notice comes at half of it (§T1).
    pub turn_hours: f64,
    pub seats: Vec<SeatView>,
    pub my_seats: Vec<u8>,
    pub to_act: Vec<TimedDuty>,
    /// The round the match is in, from 1: one turn of every side in
    /// play (FlipChess's own round, §F5; docs/rules/rewards.md §R3: a
    /// resignation before round 3 pays no loss coins).
    pub round: u32,
    /// The game state as this viewer may see it; its shape depends on the game.
    #[schema(value_type = Object)]
    pub view: Value,
    /// `{outcome, winners, reason, scores?}` once finished.
    #[schema(value_type = Option<Object>)]
    pub result: Option<Value>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The invitation to the first open seat (present when the creator views it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite: Option<Invite>,
    /// Every open seat's invitation, when there are several.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invites: Vec<Invite>,
    /// Seats held for challenged players who have not answered yet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub challenges: Vec<challenged::ChallengeView>,
    /// The match this one is the rematch of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch_of: Option<Uuid>,
    /// This match's rematch, once started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<Uuid>,
    /// The tournament this match is a pairing of (`GET /v1/tournaments/{id}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<Uuid>,
    /// The seat that asked its opponent to take back its last move, while
    /// the request waits for an answer (issue #34; in the match's own
    /// view, not in lists).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub takeback_asked_by: Option<u8>,
    /// The seats whose players asked for a rematch of this finished match,
    /// while it waits for the others (issue #33: shown as an offer; in
    /// the match's own view, not in lists).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rematch_asked_by: Vec<u8>,
    /// Messages at the table I have not read (issue #50; `crate::talk`
    /// sets it in lists and in the match's own view; absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unread_messages: i32,
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}

/// `{seq, at, seat?, type, …}`, redacted for its viewer.
pub type EventView = Value;

/// A seat as loaded: its match, its user and how others see them.
type SeatRow = (Uuid, Option<Uuid>, Option<Player>);

/// One match loaded for reading or changing.
pub struct Table {
    pub row: MatchRow,
    pub game: GameId,
    /// `seats[i]` is the user at seat `i`, if taken.
    pub seats: Vec<Option<Uuid>>,
    /// The seated players, as others see them.
    pub players: HashMap<Uuid, Player>,
    pub state: MatchState,
    /// Appends not yet written: the sweep holds them to write a whole
    /// batch in one statement ([`held`]); `None` writes each at once.
    pub held: Option<held::Held>,
    /// The takeback asked and not yet answered, `(seat that asked,
    /// to_seq)`, once known (`None`: not read yet). A function of the log
    /// up to `seq`, so a snapshot keeps it and every append brings it up
    /// to date (docs/benchmarks.md, "Winning back the action path": a view
    /// reads no log for it).
    pub takeback: Option<Option<(Seat, i32)>>,
}

/// A new event about to be appended.
pub struct NewEvent {
    pub seat: Option<Seat>,
    /// Folded by the rules crate (else a service fact such as a notice).
    pub rules: bool,
    pub body: Value,
}

impl NewEvent {
    /// Facts the rules crate produced, acted by `seat` (none: by time or setup).
    pub fn from_rules(seat: Option<Seat>, bodies: Vec<Value>) -> Vec<NewEvent> {
        bodies
            .into_iter()
            .map(|body| NewEvent {
                seat,
                rules: true,
                body,
            })
            .collect()
    }
}

/// A seated player's name changed without an event (a guest registered,
/// an account was deleted: docs/decisions/accounts-and-sessions.md,
/// "Deleting an account"): every match they sit in moves its `roster`, so
/// no cached table shows the old name.
pub fn roster_changed(conn: &mut PgConnection, user: Uuid) -> Result<(), Error> {
    let seated = match_seats::table
        .filter(match_seats::user_id.eq(user))
        .select(match_seats::match_id);
    diesel::update(matches::table.filter(matches::id.eq_any(seated)))
        .set(matches::roster.eq(matches::roster + 1))
        .execute(conn)?;
    Ok(())
}

/// Whether `conn` is inside a transaction (diesel's own count of them).
fn in_transaction(conn: &mut PgConnection) -> bool {
    use diesel::connection::{AnsiTransactionManager, TransactionManager};
    let status = AnsiTransactionManager::transaction_manager_status_mut(conn);
    status.transaction_depth().ok().flatten().is_some()
}

pub fn game_of(row: &MatchRow) -> Result<GameId, Error> {
    GameId::parse(&row.game).ok_or_else(|| Error::internal(format!("unknown game {}", row.game)))
}

/// Whether `user`, `seated` or not, may read match `id` (what they then
/// see is the view's business, §H1): a player, or challenged to play it
/// (they may see what they are asked to play). One rule for every read of
/// a match: the table, its live stream.
pub fn may_read(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    seated: bool,
) -> Result<bool, Error> {
    Ok(seated || challenged::is_challenged(conn, id, user)?)
}

impl Table {
    /// Whether the game hides anything from `seat`, now or at some point
    /// (§H): no move is undone and no line played out where it does. What
    /// is hidden now (`secrets`) may be nothing late in FlipChess while a
    /// hand of one or two cards still is, so the game's word counts too.
    pub fn hides_from(&self, seat: Seat) -> bool {
        self.game.about().hides || !self.state.secrets(Viewer::Seat(seat)).is_empty()
    }

    pub fn seats_of(&self, user: Uuid) -> Vec<Seat> {
        (0..self.seats.len())
            .filter(|&i| self.seats[i] == Some(user))
            .map(|i| Seat(i as u8))
            .collect()
    }

    /// The duties the match owes, with their times (`to_act`). A row
    /// whose `to_act` cannot be read is an error, never "nobody owes".
    pub fn duties(&self) -> Result<Vec<TimedDuty>, Error> {
        serde_json::from_value(self.row.to_act.clone()).map_err(|e| {
            Error::internal(format!("match {}: to_act is unreadable: {e}", self.row.id))
        })
    }

    /// The one writer of the match's clock columns (docs/architecture.md,
    /// "The clock"): `to_act` and, derived from it, who is awaited and the
    /// sweep's next notice and deadline. Only the append calls it, with
    /// what [`duties::derive`] makes of the appended events: a new duty, a
    /// grant, a notice recorded are all events.
    fn set_duties(&mut self, timed: &[TimedDuty]) -> Result<(), Error> {
        let row = &mut self.row;
        row.awaiting = timed
            .iter()
            .filter_map(|d| self.seats[d.seat.index()])
            .collect();
        row.awaiting.sort_unstable();
        row.awaiting.dedup();
        row.notice_at = duties::next_notice(timed);
        row.deadline_at = duties::next_deadline(timed);
        row.to_act = serde_json::to_value(timed).map_err(Error::internal)?;
        Ok(())
    }

    /// Append events (folding the rules' ones), bring the match row up to
    /// date (seq, status, duties and their deadlines, result) and enqueue
    /// the notifications they cause, in one statement.
    pub fn append(
        &mut self,
        conn: &mut PgConnection,
        events: Vec<NewEvent>,
        now: DateTime<Utc>,
    ) -> Result<Vec<EventRow>, Error> {
        self.append_for(conn, events, now, None)
    }

    /// [`Table::append`], of events that play `on_behalf`'s stored
    /// conditional line (`conditional::answer`): the reactions are told.
    pub fn append_for(
        &mut self,
        conn: &mut PgConnection,
        events: Vec<NewEvent>,
        now: DateTime<Utc>,
        on_behalf: Option<Seat>,
    ) -> Result<Vec<EventRow>, Error> {
        let mut stored = Vec::with_capacity(events.len());
        for event in events {
            if event.rules {
                self.state.apply(&event.body).map_err(Error::internal)?;
            }
            self.row.seq += 1;
            stored.push(EventRow {
                seq: self.row.seq,
                at: now,
                seat: event.seat.map(|s| s.0 as i16),
                rules: event.rules,
                body: event.body,
            });
        }
        for event in &stored {
            if let Some(settled) = takeback::settled_by(event) {
                self.takeback = Some(settled);
            }
        }
        let (duties_before, was_finished) =
            (self.duties()?, self.row.status == MatchStatus::Finished);
        self.refresh_row(&duties_before, &stored, now)?;
        // The held batch's events, lent to the reactions (not copied)
        // while they hold the table.
        let held = (self.held.as_mut())
            .map(|h| std::mem::take(&mut h.events))
            .unwrap_or_default();
        let appended = reactions::Appended {
            stored: &stored,
            held: &held,
            duties_before: &duties_before,
            was_finished,
            on_behalf,
            now,
        };
        let reacted = self.react(conn, &appended);
        if let Some(batch) = self.held.as_mut() {
            batch.events = held;
        }
        let notices = reacted?;
        tracing::debug!(
            target: "posthorn::append",
            match_id = %self.row.id,
            seq = self.row.seq,
            events = stored.len(),
            notices = notices.len(),
            "appended"
        );
        match self.held.as_mut() {
            Some(held) => {
                held.events.extend(stored.iter().cloned());
                held.notices.extend(notices);
            }
            None => {
                append::Append::new(&self.row, &stored, notices, now).execute(conn)?;
            }
        }
        crate::metrics::EVENTS_APPENDED
            .fetch_add(stored.len() as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(stored)
    }

    /// Every reaction to `appended`, in order; the notices they give.
    fn react(
        &mut self,
        conn: &mut PgConnection,
        appended: &reactions::Appended,
    ) -> Result<Vec<crate::notify::outbox::Notice>, Error> {
        let mut notices = Vec::new();
        for reaction in reactions::installed()? {
            notices.extend(reaction.react(conn, self, appended)?);
        }
        Ok(notices)
    }

    /// Recompute the cached columns from the state; `previous` are the
    /// duties the row held before `appended`.
    fn refresh_row(
        &mut self,
        previous: &[TimedDuty],
        appended: &[EventRow],
        now: DateTime<Utc>,
    ) -> Result<(), Error> {
        let row = &mut self.row;
        row.updated_at = now;
        if let Some(outcome) = self.state.outcome() {
            row.status = MatchStatus::Finished;
            row.result = serde_json::to_value(outcome).ok();
        } else if self.seats.iter().all(Option::is_some) {
            row.status = MatchStatus::Active;
        }
        let timed = if row.status == MatchStatus::Active {
            let clock: Vec<duties::ClockEvent> = (appended.iter())
                .filter(|e| !e.rules)
                .filter_map(|e| {
                    let seat = e.seat.map(|s| Seat(s as u8));
                    ServiceEvent::from_body(&e.body)?.clock(seat)
                })
                .collect();
            let (owed, turn) = (self.state.to_act(), row.turn_seconds as i64);
            duties::derive(previous, &owed, &clock, now, turn)
        } else {
            Vec::new()
        };
        self.set_duties(&timed)
    }
}
