//! Writing the outbox: the one statement that puts notices in
//! `notifications` (what an append tells whom is match policy:
//! [`crate::matches::notices`]).
//!
//! The insert is a prepared statement of fixed text whatever the number of
//! notices (they are bound as arrays and unnested), so PostgreSQL plans it
//! once per connection; [`crate::matches::append`] embeds it in the same
//! statement as the events and the match row, one round trip per action.

use super::Kind;
use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{Array, Integer, Jsonb, Text, Timestamptz, Uuid as SqlUuid};
use diesel::{QueryResult, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

/// One notification for one user, before the channels they want it on are
/// known (the statement reads their address, devices and switches).
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub user: Uuid,
    /// The seq of the event it is about: with the kind and channel, the
    /// dedupe key.
    pub seq: i32,
    pub kind: Kind,
    /// Public facts only: the game, a deadline, a result.
    pub payload: Value,
}

/// Notices as the columns the statement unnests.
pub struct NoticeColumns {
    users: Vec<Uuid>,
    seqs: Vec<i32>,
    kinds: Vec<String>,
    payloads: Vec<Value>,
}

impl NoticeColumns {
    pub fn new(notices: Vec<Notice>) -> NoticeColumns {
        let mut columns = NoticeColumns {
            users: Vec::with_capacity(notices.len()),
            seqs: Vec::with_capacity(notices.len()),
            kinds: Vec::with_capacity(notices.len()),
            payloads: Vec::with_capacity(notices.len()),
        };
        for n in notices {
            columns.users.push(n.user);
            columns.seqs.push(n.seq);
            columns.kinds.push(n.kind.name().to_owned());
            columns.payloads.push(n.payload);
        }
        columns
    }

    /// `INSERT INTO notifications …`: one email row (when the user has an
    /// address, wants this kind by email and takes no digest) and one push
    /// row per device (when they want it pushed). A duplicate of the dedupe
    /// key is skipped.
    pub fn walk_insert<'b>(
        &'b self,
        match_id: &'b Uuid,
        at: &'b DateTime<Utc>,
        mut out: AstPass<'_, 'b, Pg>,
    ) -> QueryResult<()> {
        out.push_sql(
            "INSERT INTO notifications (user_id, match_id, seq, kind, channel, payload, \
             next_attempt_at, created_at) SELECT u.id, ",
        );
        out.push_bind_param::<SqlUuid, _>(match_id)?;
        out.push_sql(", n.seq, n.kind, c.channel, n.payload, ");
        out.push_bind_param::<Timestamptz, _>(at)?;
        out.push_sql(", ");
        out.push_bind_param::<Timestamptz, _>(at)?;
        out.push_sql(" FROM unnest(");
        out.push_bind_param::<Array<SqlUuid>, _>(&self.users)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Integer>, _>(&self.seqs)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.kinds)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Jsonb>, _>(&self.payloads)?;
        out.push_sql(
            ") AS n (user_id, seq, kind, payload) \
             JOIN users u ON u.id = n.user_id \
             LEFT JOIN notification_settings s ON s.user_id = u.id \
             CROSS JOIN LATERAL ( \
               SELECT 'email' AS channel \
                WHERE u.email IS NOT NULL \
                  AND COALESCE((s.settings -> 'email' ->> n.kind)::boolean, true) \
                  AND NOT COALESCE((s.settings ->> 'digest')::boolean, false) \
               UNION ALL \
               SELECT 'push:' || p.id FROM push_subscriptions p \
                WHERE p.user_id = u.id \
                  AND COALESCE((s.settings -> 'push' ->> n.kind)::boolean, true) \
             ) c \
             ON CONFLICT DO NOTHING",
        );
        Ok(())
    }
}

/// The outbox insert alone, for notices that come with no append (a new
/// match's invitations). Part of the caller's transaction.
pub struct Enqueue {
    match_id: Uuid,
    at: DateTime<Utc>,
    columns: NoticeColumns,
}

impl Enqueue {
    pub fn new(match_id: Uuid, notices: Vec<Notice>, at: DateTime<Utc>) -> Enqueue {
        Enqueue {
            match_id,
            at,
            columns: NoticeColumns::new(notices),
        }
    }
}

impl QueryFragment<Pg> for Enqueue {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.columns.walk_insert(&self.match_id, &self.at, out)
    }
}

/// Keyed by its text in the statement cache: prepared once per connection.
impl QueryId for Enqueue {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl RunQueryDsl<diesel::PgConnection> for Enqueue {}
