//! Appends held back and written together: the deadline sweep settles a
//! batch of matches and writes all their events, match rows and notices in
//! one statement (docs/decisions/matches-and-deadlines.md: one round trip
//! per match was most of a sweep's time). The statement runs in the sweep's
//! transaction, which holds every one of those match rows locked, so
//! nothing about the lock-fold-apply-append order changes but the number of
//! round trips.

use super::{EventRow, MatchRow, MatchStatus};
use crate::notify::outbox::{ManyNotices, Notice};
use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{
    Array, Bool, Integer, Jsonb, Nullable, SmallInt, Text, Timestamptz, Uuid as SqlUuid,
};
use diesel::{QueryResult, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

/// What one match appended while its writes were held.
#[derive(Default)]
pub struct Held {
    pub events: Vec<EventRow>,
    pub notices: Vec<Notice>,
}

/// The held appends of many matches, as the columns the statement unnests.
/// Every append of a sweep is stamped with the same `at`.
#[derive(Default)]
pub struct HeldWrites {
    at: DateTime<Utc>,
    // match_events
    event_match: Vec<Uuid>,
    event_seq: Vec<i32>,
    event_at: Vec<DateTime<Utc>>,
    event_seat: Vec<Option<i16>>,
    event_rules: Vec<bool>,
    event_body: Vec<Value>,
    // matches: each match's row after its last append
    id: Vec<Uuid>,
    status: Vec<MatchStatus>,
    seq: Vec<i32>,
    updated_at: Vec<DateTime<Utc>>,
    to_act: Vec<Value>,
    /// uuid[] per match: arrays of arrays cannot be unnested ragged.
    awaiting: Vec<Value>,
    notice_at: Vec<Option<DateTime<Utc>>>,
    deadline_at: Vec<Option<DateTime<Utc>>>,
    result: Vec<Option<Value>>,
    notices: ManyNotices,
}

impl HeldWrites {
    pub fn new(at: DateTime<Utc>) -> HeldWrites {
        HeldWrites {
            at,
            ..HeldWrites::default()
        }
    }

    /// Add one match: `row` as it stands after everything it `held`.
    pub fn add(&mut self, row: &MatchRow, held: Held) {
        if held.events.is_empty() {
            return;
        }
        for e in held.events {
            self.event_match.push(row.id);
            self.event_seq.push(e.seq);
            self.event_at.push(e.at);
            self.event_seat.push(e.seat);
            self.event_rules.push(e.rules);
            self.event_body.push(e.body);
        }
        self.id.push(row.id);
        self.status.push(row.status);
        self.seq.push(row.seq);
        self.updated_at.push(row.updated_at);
        self.to_act.push(row.to_act.clone());
        self.awaiting.push(serde_json::json!(row.awaiting));
        self.notice_at.push(row.notice_at);
        self.deadline_at.push(row.deadline_at);
        self.result.push(row.result.clone());
        self.notices.add(row.id, held.notices);
    }

    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }
}

impl QueryFragment<Pg> for HeldWrites {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "WITH appended AS (INSERT INTO match_events (match_id, seq, at, seat, rules, body) \
             SELECT * FROM unnest(",
        );
        out.push_bind_param::<Array<SqlUuid>, _>(&self.event_match)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Integer>, _>(&self.event_seq)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Timestamptz>, _>(&self.event_at)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<SmallInt>>, _>(&self.event_seat)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Bool>, _>(&self.event_rules)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Jsonb>, _>(&self.event_body)?;
        out.push_sql(
            ")), saved AS (UPDATE matches m SET status = u.status, seq = u.seq, \
             updated_at = u.updated_at, to_act = u.to_act, \
             awaiting = ARRAY(SELECT jsonb_array_elements_text(u.awaiting)::uuid), \
             notice_at = u.notice_at, deadline_at = u.deadline_at, result = u.result \
             FROM unnest(",
        );
        out.push_bind_param::<Array<SqlUuid>, _>(&self.id)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.status)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Integer>, _>(&self.seq)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Timestamptz>, _>(&self.updated_at)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Jsonb>, _>(&self.to_act)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Jsonb>, _>(&self.awaiting)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<Timestamptz>>, _>(&self.notice_at)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<Timestamptz>>, _>(&self.deadline_at)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<Jsonb>>, _>(&self.result)?;
        out.push_sql(
            ") AS u (id, status, seq, updated_at, to_act, awaiting, notice_at, deadline_at, result) \
             WHERE m.id = u.id) ",
        );
        self.notices.walk_insert(&self.at, out)
    }
}

/// Keyed by its text in the statement cache: prepared once per connection.
impl QueryId for HeldWrites {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl RunQueryDsl<diesel::PgConnection> for HeldWrites {}
