//! Writing the outbox: the statement that puts notices in `notices` with an
//! action, and the worker's fan-out of them into `notifications`, one row
//! per channel and device (what an append tells whom is match policy:
//! [`crate::notices`]).
//!
//! The insert is a prepared statement of fixed text whatever the number of
//! notices (they are bound as arrays and unnested), so PostgreSQL plans it
//! once per connection; [`crate::matches::append`] embeds it in the same
//! statement as the events and the match row, one round trip per action.

use super::Kind;
use crate::error::Error;
use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{
    Array, BigInt, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid,
};
use diesel::{PgConnection, QueryResult, QueryableByName, RunQueryDsl};
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
    /// The request they come from ([`crate::cause`]).
    request_id: Option<String>,
}

impl NoticeColumns {
    pub fn new(notices: Vec<Notice>) -> NoticeColumns {
        let mut columns = NoticeColumns {
            users: Vec::with_capacity(notices.len()),
            seqs: Vec::with_capacity(notices.len()),
            kinds: Vec::with_capacity(notices.len()),
            payloads: Vec::with_capacity(notices.len()),
            request_id: crate::cause::current(),
        };
        for n in notices {
            columns.users.push(n.user);
            columns.seqs.push(n.seq);
            columns.kinds.push(n.kind.name().to_owned());
            columns.payloads.push(n.payload);
        }
        columns
    }

    /// `INSERT INTO notices …`: one plain row per notice, no joins
    /// (docs/decisions/notifications.md: the channel fan-out once cost the
    /// action a fifth of PostgreSQL's time). [`fan_out`] turns them into
    /// deliveries.
    pub fn walk_insert<'b>(
        &'b self,
        match_id: &'b Uuid,
        at: &'b DateTime<Utc>,
        mut out: AstPass<'_, 'b, Pg>,
    ) -> QueryResult<()> {
        out.push_sql(
            "INSERT INTO notices (user_id, match_id, seq, kind, payload, created_at, request_id) \
             SELECT n.user_id, ",
        );
        out.push_bind_param::<SqlUuid, _>(match_id)?;
        out.push_sql(", n.seq, n.kind, n.payload, ");
        out.push_bind_param::<Timestamptz, _>(at)?;
        out.push_sql(", ");
        out.push_bind_param::<Nullable<Text>, _>(&self.request_id)?;
        out.push_sql(" FROM unnest(");
        self.walk_arrays(&mut out)?;
        out.push_sql(") AS n (user_id, seq, kind, payload)");
        Ok(())
    }

    /// The notices' four arrays, as `unnest` takes them.
    fn walk_arrays<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_bind_param::<Array<SqlUuid>, _>(&self.users)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Integer>, _>(&self.seqs)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Text>, _>(&self.kinds)?;
        out.push_sql(", ");
        out.push_bind_param::<Array<Jsonb>, _>(&self.payloads)
    }
}

/// Notices about many matches at once, as the columns a statement's tail
/// unnests: the deadline sweep's held appends (`matches::held`) write them
/// in the statement that writes their events and match rows.
pub struct ManyNotices {
    /// The match of each notice, beside the notices' own columns.
    matches: Vec<Uuid>,
    rows: NoticeColumns,
}

impl Default for ManyNotices {
    fn default() -> ManyNotices {
        ManyNotices {
            matches: Vec::new(),
            // The sweep is nobody's request.
            rows: NoticeColumns {
                request_id: None,
                ..NoticeColumns::new(Vec::new())
            },
        }
    }
}

impl ManyNotices {
    /// Add the `notices` about one match.
    pub fn add(&mut self, match_id: Uuid, notices: Vec<Notice>) {
        for n in notices {
            self.matches.push(match_id);
            self.rows.users.push(n.user);
            self.rows.seqs.push(n.seq);
            self.rows.kinds.push(n.kind.name().to_owned());
            self.rows.payloads.push(n.payload);
        }
    }

    /// `INSERT INTO notices …`, every row stamped `at`.
    pub fn walk_insert<'b>(
        &'b self,
        at: &'b DateTime<Utc>,
        mut out: AstPass<'_, 'b, Pg>,
    ) -> QueryResult<()> {
        out.push_sql(
            "INSERT INTO notices (user_id, match_id, seq, kind, payload, created_at) \
             SELECT n.user_id, n.match_id, n.seq, n.kind, n.payload, ",
        );
        out.push_bind_param::<Timestamptz, _>(at)?;
        out.push_sql(" FROM unnest(");
        out.push_bind_param::<Array<SqlUuid>, _>(&self.matches)?;
        out.push_sql(", ");
        self.rows.walk_arrays(&mut out)?;
        out.push_sql(") AS n (match_id, user_id, seq, kind, payload)");
        Ok(())
    }
}

/// Notices fanned out per statement.
pub const FAN_OUT_BATCH: i64 = 1000;

/// Whether a turn notice for the seat `s` (`s.user_id`, `s.match_id`) is
/// queued and not yet fanned out: talk leaves such a table's unread count
/// for the turn notice to carry (`talk::told`).
pub const TURN_QUEUED: &str = "EXISTS (SELECT 1 FROM notices n WHERE n.user_id = s.user_id \
    AND n.match_id = s.match_id AND n.kind = 'your_turn')";

/// Move up to [`FAN_OUT_BATCH`] notices into the outbox, as one email row
/// (when the user has an address, wants this kind by email and takes no
/// digest, which does not stand in for the daily puzzle's morning
/// notice) and one push row per browser and per native app's device
/// (when they want it pushed: one switch for both,
/// docs/decisions/native-push.md); a deleted account
/// (docs/decisions/accounts-and-sessions.md, "Deleting an account") gets
/// none, though an eliminated four-player seat of one still hears of its
/// match's end. The notices are taken with `SKIP LOCKED` and deleted in the
/// statement that writes their rows, so workers fanning out together take
/// each once; a duplicate of a delivery's key is skipped. A turn notice
/// carries the table's unread messages, which it tells instead of a message
/// notice (docs/decisions/table-talk.md, "Hearing of a message") — where it
/// goes out at all: one the player gets on no channel folds nothing. The
/// talk's part of the statement is handed down by talk, which owns it
/// ([`TurnTalk`]). Returns (notices, rows).
pub fn fan_out(conn: &mut PgConnection, talk: &TurnTalk) -> Result<(i64, i64), Error> {
    #[derive(QueryableByName)]
    struct Counts {
        #[diesel(sql_type = BigInt)]
        taken: i64,
        #[diesel(sql_type = BigInt)]
        fanned: i64,
    }
    let counts: Counts = diesel::sql_query(format!(
        "WITH taken AS ( \
           DELETE FROM notices WHERE id IN ( \
             SELECT id FROM notices ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) \
           RETURNING user_id, match_id, seq, kind, payload, created_at, request_id), \
         fanned AS ( \
           INSERT INTO notifications (user_id, match_id, seq, kind, channel, payload, \
             next_attempt_at, created_at, request_id) \
           SELECT u.id, n.match_id, n.seq, n.kind, c.channel, \
             CASE WHEN ts.unread IS NULL THEN n.payload \
               ELSE n.payload || jsonb_build_object('unread_messages', ts.unread) END, \
             n.created_at, n.created_at, n.request_id \
             FROM taken n \
             JOIN users u ON u.id = n.user_id AND u.deleted_at IS NULL \
             {unread} \
             LEFT JOIN notification_settings s ON s.user_id = u.id \
             CROSS JOIN LATERAL ( \
               SELECT 'email' AS channel \
                WHERE u.email IS NOT NULL \
                  AND COALESCE((s.settings -> 'email' ->> n.kind)::boolean, true) \
                  AND (n.kind = 'daily_puzzle' \
                       OR NOT COALESCE((s.settings ->> 'digest')::boolean, false)) \
               UNION ALL \
               SELECT 'push:' || p.id FROM push_subscriptions p \
                WHERE p.user_id = u.id \
                  AND COALESCE((s.settings -> 'push' ->> n.kind)::boolean, true) \
               UNION ALL \
               SELECT 'app:' || d.id FROM app_devices d \
                WHERE d.user_id = u.id \
                  AND COALESCE((s.settings -> 'push' ->> n.kind)::boolean, true) \
             ) c \
           ON CONFLICT DO NOTHING RETURNING user_id, match_id, kind, created_at), \
         folded AS ({told}) \
         SELECT (SELECT count(*) FROM taken) AS taken, (SELECT count(*) FROM fanned) AS fanned",
        unread = talk.unread,
        told = talk.told,
    ))
    .bind::<BigInt, _>(FAN_OUT_BATCH)
    .get_result(conn)?;
    Ok((counts.taken, counts.fanned))
}

/// A table's talk in a turn notice, as its owner (`talk::told::TURN_TALK`)
/// words it for the fan-out's one statement.
pub struct TurnTalk {
    /// A `LEFT JOIN` giving `ts.unread` for the notice `n` being fanned
    /// out: the table's unread messages a turn notice carries, or NULL.
    pub unread: &'static str,
    /// A statement marking those unread messages told, for the deliveries
    /// written (`fanned`: user_id, match_id, kind, created_at).
    pub told: &'static str,
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

/// A claimed row of the outbox.
pub(super) struct Row {
    pub(super) id: i64,
    pub(super) user_id: Uuid,
    pub(super) match_id: Uuid,
    /// The seq of the event it is about.
    pub(super) seq: i32,
    pub(super) kind: String,
    pub(super) channel: String,
    pub(super) payload: Value,
    pub(super) attempts: i32,
    /// When it was queued: a notice held while a push credential is
    /// refused gives up once its time to live has passed.
    pub(super) created_at: DateTime<Utc>,
    /// When it was first held because its reader was at the table.
    pub(super) held_at: Option<DateTime<Utc>>,
    /// The request that caused it ([`crate::cause`]).
    pub(super) request_id: Option<String>,
}

/// A deleted player's notices: nothing queued is lost without a record,
/// so what was still to be sent is recorded as failed; every delivery's
/// payload (an address, a match's words), sent or not, is erased, and
/// notices not yet fanned out go.
pub const PERSONAL: crate::personal::Owner = crate::personal::Owner {
    module: "notify::outbox",
    tables: &["notices", "notifications"],
    phase: crate::personal::Phase::Erase,
    forget,
    exported: crate::personal::Exported::Not(
        "the record of deliveries of notices about what the export holds \
         (the matches, the account); their payloads are erased with the account",
    ),
    kept: "each delivery's kind, channel, time and outcome, for the record \
           that nothing acknowledged was lost",
};

fn forget(
    conn: &mut PgConnection,
    leaving: &mut crate::personal::Leaving<'_>,
) -> Result<(), Error> {
    use super::DeliveryStatus;
    use crate::schema::notifications;
    use diesel::prelude::*;
    let user = leaving.user;
    // `notices` is written by raw SQL only (its statement is above).
    diesel::sql_query("DELETE FROM notices WHERE user_id = $1")
        .bind::<SqlUuid, _>(user)
        .execute(conn)?;
    diesel::update(
        notifications::table
            .filter(notifications::user_id.eq(user))
            .filter(notifications::status.eq(DeliveryStatus::Pending.as_str())),
    )
    .set((
        notifications::status.eq(DeliveryStatus::Failed.as_str()),
        notifications::last_error.eq("the account was deleted"),
    ))
    .execute(conn)?;
    diesel::update(notifications::table.filter(notifications::user_id.eq(user)))
        .set(notifications::payload.eq(serde_json::json!({})))
        .execute(conn)?;
    Ok(())
}
