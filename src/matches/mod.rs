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
pub mod leaving;
pub mod play;
pub mod reactions;
pub mod reads;
pub mod replay;
pub mod seating;
pub mod snapshots;
pub mod stale;
pub mod status;
pub mod takeback;

pub use status::{MatchStatus, ServiceEvent};

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
    /// rematch once started (issue #20).
    pub rematch_of: Option<Uuid>,
    pub rematch_id: Option<Uuid>,
    /// The tournament this match is a pairing of (issue #35).
    pub tournament_id: Option<Uuid>,
    /// Moves when a seated player's name changes ([`roster_changed`]): a
    /// cached table's players hold while it stands still (issue #48).
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
    /// to date (issue #48: a view reads no log for it).
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
/// an account was deleted, issue #47): every match they sit in moves its
/// `roster`, so no cached table shows the old name.
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
    /// Load a match; with `lock`, hold its row until the transaction ends.
    pub fn load(conn: &mut PgConnection, id: Uuid, lock: bool) -> Result<Option<Table>, Error> {
        let query = matches::table.find(id).select(MatchRow::as_select());
        let row = if lock {
            query.for_update().first(conn).optional()?
        } else {
            query.first(conn).optional()?
        };
        row.map(|row| Table::of_row(conn, row)).transpose()
    }

    /// Load a match to act in as `user` (one of its players), its row
    /// locked; and whether `user` is on vacation, read in the same
    /// statement (issue #48: an action costs no round trip of its own
    /// for it). Acting ends a vacation (`vacation::end`).
    pub fn load_to_act(
        conn: &mut PgConnection,
        id: Uuid,
        user: Uuid,
    ) -> Result<(Table, bool), Error> {
        let away = diesel::dsl::exists(
            users::table
                .filter(users::id.eq(user))
                .filter(users::vacation_since.is_not_null()),
        );
        let found: Option<(MatchRow, bool)> = matches::table
            .find(id)
            .select((MatchRow::as_select(), away))
            .for_update()
            .first(conn)
            .optional()?;
        let Some((row, away)) = found else {
            return Err(Error::not_found("match"));
        };
        let table = Table::of_row(conn, row)?;
        Ok((Table::mine(conn, Some(table), user)?, away))
    }

    /// The table of `row` from its snapshot (same seq and roster).
    fn of_snapshot(row: MatchRow, snap: snapshots::Snapshot) -> Result<Table, Error> {
        Ok(Table {
            game: game_of(&row)?,
            row,
            seats: snap.seats,
            players: snap.players,
            state: snap.state,
            held: None,
            takeback: snap.takeback,
        })
    }

    /// The table of `row`: from the snapshot at its seq and roster, else
    /// read and folded.
    fn of_row(conn: &mut PgConnection, row: MatchRow) -> Result<Table, Error> {
        let id = row.id;
        if let Some(snap) = snapshots::get(id, row.seq, row.roster) {
            return Table::of_snapshot(row, snap);
        }
        let seat_rows: Vec<SeatRow> = match_seats::table
            .left_join(users::table)
            .filter(match_seats::match_id.eq(id))
            .order(match_seats::seat)
            .select((
                match_seats::match_id,
                match_seats::user_id,
                Option::<Player>::as_select(),
            ))
            .load(conn)?;
        // Only the events the row's seq covers, so the two agree.
        let bodies = fold::folded(conn, &HashMap::from([(id, row.seq)]))?
            .remove(&id)
            .unwrap_or_default();
        Table::assemble(conn, row, seat_rows, &bodies)
    }

    /// Tables for rows the caller has locked (the sweep's claimed batch):
    /// the seats and the rules' events of all of them in two queries, not
    /// two per match.
    pub fn load_claimed(conn: &mut PgConnection, rows: Vec<MatchRow>) -> Result<Vec<Table>, Error> {
        let mut tables = Vec::with_capacity(rows.len());
        let mut unknown = Vec::new();
        for row in rows {
            match snapshots::get(row.id, row.seq, row.roster) {
                Some(snap) => tables.push(Table::of_snapshot(row, snap)?),
                None => unknown.push(row),
            }
        }
        if unknown.is_empty() {
            return Ok(tables);
        }
        let ids: Vec<Uuid> = unknown.iter().map(|r| r.id).collect();
        let mut seats: HashMap<Uuid, Vec<SeatRow>> = HashMap::new();
        let seat_rows: Vec<SeatRow> = match_seats::table
            .left_join(users::table)
            .filter(match_seats::match_id.eq_any(&ids))
            .order((match_seats::match_id, match_seats::seat))
            .select((
                match_seats::match_id,
                match_seats::user_id,
                Option::<Player>::as_select(),
            ))
            .load(conn)?;
        for seat in seat_rows {
            seats.entry(seat.0).or_default().push(seat);
        }
        let upto: HashMap<Uuid, i32> = unknown.iter().map(|r| (r.id, r.seq)).collect();
        let mut bodies = fold::folded(conn, &upto)?;
        for row in unknown {
            let events = bodies.remove(&row.id).unwrap_or_default();
            let seat_rows = seats.remove(&row.id).unwrap_or_default();
            tables.push(Table::assemble(conn, row, seat_rows, &events)?);
        }
        Ok(tables)
    }

    /// A table from its row, its seats in order and its rules' events.
    fn assemble(
        conn: &mut PgConnection,
        row: MatchRow,
        seat_rows: Vec<SeatRow>,
        bodies: &[Value],
    ) -> Result<Table, Error> {
        let game = game_of(&row)?;
        let state = MatchState::replay(game, bodies).map_err(Error::internal)?;
        let players = seat_rows
            .iter()
            .filter_map(|(_, _, p)| p.clone())
            .map(|p| (p.id, p))
            .collect();
        let table = Table {
            row,
            game,
            seats: seat_rows.into_iter().map(|(_, u, _)| u).collect(),
            players,
            state,
            held: None,
            takeback: None,
        };
        // Read outside a transaction, from committed rows: safe to
        // remember now. Inside one, what was read may be this
        // transaction's own writes (a deletion moves the roster, then
        // resigns), which a rollback would make a phantom; the caller
        // remembers once it committed (`play::act`'s snapshot).
        if !in_transaction(conn) {
            table.snapshot().remember();
        }
        Ok(table)
    }

    /// This table's state, to remember once its transaction committed.
    pub fn snapshot(&self) -> snapshots::Snapshot {
        snapshots::Snapshot {
            id: self.row.id,
            seq: self.row.seq,
            roster: self.row.roster,
            state: self.state.clone(),
            seats: self.seats.clone(),
            players: self.players.clone(),
            takeback: self.takeback,
        }
    }

    /// Load a match `user` plays in. Others get 404 whether or not it
    /// exists, so ids leak nothing.
    pub fn load_mine(
        conn: &mut PgConnection,
        id: Uuid,
        user: Uuid,
        lock: bool,
    ) -> Result<Table, Error> {
        let table = Self::load(conn, id, lock)?;
        Self::mine(conn, table, user)
    }

    /// `table`, if `user` may read it.
    fn mine(conn: &mut PgConnection, table: Option<Table>, user: Uuid) -> Result<Table, Error> {
        match table {
            Some(t) if may_read(conn, t.row.id, user, t.seats.contains(&Some(user)))? => Ok(t),
            _ => Err(Error::not_found("match")),
        }
    }

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

    /// The one writer of the match's clock columns (issue #31): `to_act`
    /// and, derived from it, who is awaited and the sweep's next notice and
    /// deadline. Only the append calls it, with what [`duties::derive`]
    /// makes of the appended events: a new duty, a grant, a notice
    /// recorded are all events.
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

    /// Load the seated players not yet in `players`.
    pub fn seat_players(&mut self, conn: &mut PgConnection) -> Result<(), Error> {
        let missing: Vec<Uuid> = self
            .seats
            .iter()
            .flatten()
            .filter(|u| !self.players.contains_key(u))
            .copied()
            .collect();
        if !missing.is_empty() {
            let found = crate::players::load(conn, missing)?;
            self.players.extend(found);
        }
        Ok(())
    }

    /// How `user` sees this match.
    pub fn view_for(&mut self, conn: &mut PgConnection, user: Uuid) -> Result<MatchView, Error> {
        self.seat_players(conn)?;
        let mut view = self.view_with(&self.players, user)?;
        if self.row.status == MatchStatus::Waiting {
            view.challenges = challenged::pending(conn, self.row.id)?;
        }
        if self.row.status == MatchStatus::Active {
            view.takeback_asked_by = self.takeback_asked(conn)?.map(|(seat, _)| seat.0);
        }
        if self.row.status == MatchStatus::Finished && self.row.rematch_id.is_none() {
            view.rematch_asked_by = self.rematch_asked_by(conn)?;
        }
        Ok(view)
    }

    /// The takeback asked and not yet answered, if any: `(seat that
    /// asked, to_seq)`; read from the log once, then kept.
    pub fn takeback_asked(
        &mut self,
        conn: &mut PgConnection,
    ) -> Result<Option<(Seat, i32)>, Error> {
        if let Some(known) = self.takeback {
            return Ok(known);
        }
        let asked = takeback::pending(conn, self)?;
        self.takeback = Some(asked);
        Ok(asked)
    }

    /// The seats of the players who asked for a rematch (`lobby::rematch`).
    fn rematch_asked_by(&self, conn: &mut PgConnection) -> Result<Vec<u8>, Error> {
        use crate::schema::rematch_offers;
        let asked: Vec<Uuid> = rematch_offers::table
            .filter(rematch_offers::match_id.eq(self.row.id))
            .select(rematch_offers::user_id)
            .load(conn)?;
        let seats = self.seats.iter().enumerate();
        Ok(seats
            .filter(|(_, user)| user.is_some_and(|u| asked.contains(&u)))
            .map(|(seat, _)| seat as u8)
            .collect())
    }

    pub fn viewer(&self, user: Uuid) -> Viewer {
        self.seats_of(user)
            .first()
            .map_or(Viewer::Spectator, |s| Viewer::Seat(*s))
    }

    pub fn view_with(
        &self,
        players: &HashMap<Uuid, Player>,
        user: Uuid,
    ) -> Result<MatchView, Error> {
        let r = &self.row;
        Ok(MatchView {
            id: r.id,
            game: r.game.clone(),
            variant: r.variant.clone(),
            mode: r.mode.clone(),
            status: r.status,
            seq: r.seq,
            rated: r.rated,
            options: r.options.clone(),
            turn_hours: r.turn_seconds as f64 / 3600.0,
            seats: (0..self.seats.len())
                .map(|i| SeatView {
                    seat: i as u8,
                    user: self.seats[i].and_then(|u| players.get(&u).cloned()),
                })
                .collect(),
            my_seats: self.seats_of(user).iter().map(|s| s.0).collect(),
            to_act: self.duties()?,
            view: self.state.view(self.viewer(user)),
            result: r.result.clone(),
            created_at: r.created_at,
            updated_at: r.updated_at,
            invite: None,
            invites: Vec::new(),
            challenges: Vec::new(),
            rematch_of: r.rematch_of,
            rematch: r.rematch_id,
            tournament: r.tournament_id,
            takeback_asked_by: None,
            rematch_asked_by: Vec::new(),
            unread_messages: 0,
        })
    }

    /// A stored event as `user` may see it.
    pub fn event_view(&self, event: &EventRow, user: Uuid) -> Result<EventView, Error> {
        event_view(self.game, event, self.viewer(user)).map_err(Error::internal)
    }
}

/// A stored event of a `game` match as `viewer` may see it: the rules'
/// facts redacted, with the event's place in the log.
pub fn event_view(
    game: GameId,
    event: &EventRow,
    viewer: Viewer,
) -> Result<EventView, posthorn_rules::RuleError> {
    let body = if event.rules {
        MatchState::redact(game, &event.body, viewer)?
    } else {
        event.body.clone()
    };
    // The game's own fields first: its `seat` says whom the fact is
    // about (the drawer of a draw), which the acting seat stored with
    // the row only stands in for when the fact names none.
    let mut out = match body {
        Value::Object(fields) => fields,
        _ => Map::new(),
    };
    out.insert("seq".into(), event.seq.into());
    out.insert(
        "at".into(),
        serde_json::to_value(event.at).unwrap_or_default(),
    );
    if let Some(seat) = event.seat {
        out.entry("seat").or_insert(seat.into());
    }
    Ok(Value::Object(out))
}
