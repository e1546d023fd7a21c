//! The write half of an action (docs/design.md §3) as one statement: the new
//! events, the match row brought up to date and the outbox rows they cause.
//!
//! Why one statement: each round trip costs both processes a wake-up and
//! the parse of a message, which on a small machine is most of an action's
//! database time. The text is fixed whatever the number of events and
//! notices (they are bound as arrays and unnested), so it is prepared once
//! per connection. It runs inside the caller's transaction, after the match
//! row was locked, so the lock-fold-apply-append order is unchanged.

use super::{EventRow, MatchRow};
use crate::notify::outbox::{Notice, NoticeColumns};
use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{
    Array, Bool, Integer, Jsonb, Nullable, SmallInt, Text, Timestamptz, Uuid as SqlUuid,
};
use diesel::{QueryResult, RunQueryDsl};
use serde_json::Value;

pub struct Append<'a> {
    row: &'a MatchRow,
    at: DateTime<Utc>,
    seqs: Vec<i32>,
    seats: Vec<Option<i16>>,
    rules: Vec<bool>,
    bodies: Vec<&'a Value>,
    notices: NoticeColumns,
}

impl<'a> Append<'a> {
    /// `events` were stamped `at`; `row` is the match row after them.
    pub fn new(
        row: &'a MatchRow,
        events: &'a [EventRow],
        notices: Vec<Notice>,
        at: DateTime<Utc>,
    ) -> Append<'a> {
        Append {
            row,
            at,
            seqs: events.iter().map(|e| e.seq).collect(),
            seats: events.iter().map(|e| e.seat).collect(),
            rules: events.iter().map(|e| e.rules).collect(),
            bodies: events.iter().map(|e| &e.body).collect(),
            notices: NoticeColumns::new(notices),
        }
    }
}

impl QueryFragment<Pg> for Append<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let r = self.row;
        out.push_sql(
            "WITH appended AS (INSERT INTO match_events (match_id, seq, at, seat, rules, body) \
             SELECT ",
        );
        out.push_bind_param::<SqlUuid, _>(&r.id)?;
        out.push_sql(", e.seq, ");
        out.push_bind_param::<Timestamptz, _>(&self.at)?;
        out.push_sql(", e.seat, e.rules, e.body FROM unnest(");
        out.push_bind_param::<Array<Integer>, _>(&self.seqs)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Nullable<SmallInt>>, _>(&self.seats)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Bool>, _>(&self.rules)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Jsonb>, _>(&self.bodies)?;
        out.push_sql(") AS e (seq, seat, rules, body)), saved AS (UPDATE matches SET status = ");
        out.push_bind_param::<Text, _>(&r.status)?;
        out.push_sql(", seq = ");
        out.push_bind_param::<Integer, _>(&r.seq)?;
        out.push_sql(", updated_at = ");
        out.push_bind_param::<Timestamptz, _>(&r.updated_at)?;
        out.push_sql(", to_act = ");
        out.push_bind_param::<Jsonb, _>(&r.to_act)?;
        out.push_sql(", awaiting = ");
        out.push_bind_param::<Array<SqlUuid>, _>(&r.awaiting)?;
        out.push_sql(", notice_at = ");
        out.push_bind_param::<Nullable<Timestamptz>, _>(&r.notice_at)?;
        out.push_sql(", deadline_at = ");
        out.push_bind_param::<Nullable<Timestamptz>, _>(&r.deadline_at)?;
        out.push_sql(", result = ");
        out.push_bind_param::<Nullable<Jsonb>, _>(&r.result)?;
        out.push_sql(" WHERE id = ");
        out.push_bind_param::<SqlUuid, _>(&r.id)?;
        out.push_sql(") ");
        self.notices.walk_insert(&r.id, &self.at, out.reborrow())
    }
}

/// Keyed by its text in the statement cache: prepared once per connection.
impl QueryId for Append<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl RunQueryDsl<diesel::PgConnection> for Append<'_> {}
