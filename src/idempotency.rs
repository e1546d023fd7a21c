//! `Idempotency-Key` (docs/decisions/hardening.md, after the IETF
//! idempotency-key draft): a retry of a POST with the same key gets the
//! first answer and changes nothing; the same key with a different request
//! is refused with 422 `idempotency_key_reused`. A key is the caller's own
//! (keys of two users never meet), is remembered with a fingerprint of the
//! operation and its body, and is kept for [`KEEP_HOURS`]; a concurrent
//! first use of the same key waits for the first to finish, then replays
//! it.
//!
//! Honoured by `POST /v1/matches`, `POST /v1/matches/{id}/actions`,
//! `POST /v1/invites/{code}/accept` — the POSTs that create or change a
//! match — and `POST /v1/matches/{id}/messages`
//! (docs/decisions/table-talk.md). The answer is stored in the transaction
//! that did the work, so a crash leaves either both or neither.

use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::idempotent_answers;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde_json::Value;
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// How long a key is remembered.
pub const KEEP_HOURS: i64 = 24;

/// One keyed request: the key and what it asked for.
#[derive(Clone, Debug)]
pub struct Keyed {
    pub key: String,
    fingerprint: Vec<u8>,
}

/// A key as documented: 1–128 visible ASCII characters (`^[!-~]{1,128}$`),
/// nothing trimmed, no inner space.
pub fn check_key(raw: &[u8]) -> Result<String, Error> {
    let visible = |b: &u8| (b'!'..=b'~').contains(b);
    if raw.is_empty() || raw.len() > 128 || !raw.iter().all(visible) {
        return Err(Error::validation(
            "Idempotency-Key must be 1–128 visible ASCII characters (no spaces)",
        ));
    }
    Ok(String::from_utf8_lossy(raw).into_owned())
}

impl Keyed {
    /// `operation` names what is asked (`POST /v1/matches/{id}/actions`,
    /// with the id); `body` is the request as received.
    pub fn new(key: String, operation: &str, body: &Value) -> Keyed {
        let mut hash = Sha256::new();
        hash.update(operation.as_bytes());
        hash.update([0]);
        // serde_json's maps are ordered by key: one text per request.
        hash.update(body.to_string().as_bytes());
        Keyed {
            key,
            fingerprint: hash.finalize().to_vec(),
        }
    }

    /// The first answer to this key, if it was used for this same request;
    /// refused if it was used for another.
    pub fn replay(
        &self,
        conn: &mut PgConnection,
        user: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<Value>, Error> {
        // Two first uses at once: the second waits for the first to commit.
        diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
            .bind::<diesel::sql_types::Text, _>(format!("{user}/{}", self.key))
            .execute(conn)?;
        let earlier: Option<(Value, Vec<u8>)> = idempotent_answers::table
            .find((user, &self.key))
            .filter(idempotent_answers::created_at.gt(now - Duration::hours(KEEP_HOURS)))
            .select((idempotent_answers::answer, idempotent_answers::fingerprint))
            .first(conn)
            .optional()?;
        match earlier {
            None => Ok(None),
            Some((_, fingerprint)) if fingerprint != self.fingerprint => {
                Err(Error::IdempotencyKeyReused)
            }
            Some((answer, _)) => Ok(Some(answer)),
        }
    }

    /// Remember the answer, in the transaction that produced it.
    pub fn remember(
        &self,
        conn: &mut PgConnection,
        user: Uuid,
        match_id: Uuid,
        answer: Value,
        now: DateTime<Utc>,
    ) -> Result<(), Error> {
        let row = (
            idempotent_answers::user_id.eq(user),
            idempotent_answers::key.eq(&self.key),
            idempotent_answers::match_id.eq(match_id),
            idempotent_answers::answer.eq(&answer),
            idempotent_answers::created_at.eq(now),
            idempotent_answers::fingerprint.eq(&self.fingerprint),
        );
        // An expired row of the same key gives way to the new use.
        diesel::insert_into(idempotent_answers::table)
            .values(row)
            .on_conflict((idempotent_answers::user_id, idempotent_answers::key))
            .do_update()
            .set(row)
            .execute(conn)?;
        Ok(())
    }
}

/// The first answer to a keyed request's key, if any; none without a key.
pub fn replay(
    keyed: Option<&Keyed>,
    conn: &mut PgConnection,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<Option<Value>, Error> {
    match keyed {
        Some(keyed) => keyed.replay(conn, user, now),
        None => Ok(None),
    }
}

/// Forget keys older than [`KEEP_HOURS`] (the sweep calls it).
pub fn forget_expired(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    Ok(diesel::delete(
        idempotent_answers::table
            .filter(idempotent_answers::created_at.le(now - Duration::hours(KEEP_HOURS))),
    )
    .execute(conn)?)
}

/// The answers stored for retried requests go with the account.
pub const PERSONAL: Owner = Owner::erasing(
    "idempotency",
    &["idempotent_answers"],
    forget,
    Exported::Not("answers kept a day so that a retried request is answered alike: each is an answer the player was given"),
);

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(idempotent_answers::table.filter(idempotent_answers::user_id.eq(leaving.user)))
        .execute(conn)?;
    Ok(())
}
