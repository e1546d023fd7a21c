//! Forgotten passwords (docs/decisions/accounts-and-sessions.md;
//! docs/api.md §Accounts, docs/abuse.md "Forgotten passwords"): a link
//! mailed to the account's verified address sets a new password, once,
//! within an hour.
//!
//! **No enumeration, in the answer and in its timing.** Asking for a link
//! does the same work whatever the address: it takes the same two limits
//! and queues the same one job (`job_queue`), then answers 202. Whether
//! the address is anyone's is looked up only by that job, later and off
//! the request ([`Mailer`]); so the request's statements, and its time,
//! are those of every other request. The job keeps the address asked for
//! only until it has run.

use crate::accounts::{self, Issuer, Session};
use crate::auth::{self, Keys};
use crate::error::Error;
use crate::job_queue::{self, Job, Work};
use crate::limits::{self, Limit, Origin};
use crate::names;
use crate::notify::account_mail;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::{password_resets, users};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;
use uuid::Uuid;

/// The job that mails a link, if the address is an account's.
pub const MAIL_JOB: &str = "password_reset.mail";

/// How long a link works.
pub const VALID_MINUTES: i64 = 60;

/// `POST /v1/password-resets`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetRequest {
    /// The account's verified address; any other receives nothing.
    #[schema(format = Email, max_length = 254)]
    pub email: String,
}

/// `POST /v1/password-resets/complete`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetCompletion {
    /// The part of the link after `#`.
    #[schema(min_length = 1, max_length = 2048)]
    pub token: String,
    /// The new password (the rules of sign-up).
    #[schema(min_length = 8, max_length = 256)]
    pub password: String,
}

/// What the job is given: the address asked for, the id its link will
/// have (chosen now, so a job run twice makes one link), the request's
/// limit hit (the mail's dedupe key) and when it was asked.
#[derive(Debug, Serialize, Deserialize)]
struct Asked {
    address: String,
    reset: Uuid,
    serial: i64,
    asked_at: DateTime<Utc>,
}

/// Ask for a link to `email`, from the client `origin`: the same work
/// and the same answer whether or not `email` is anyone's (see the
/// module's comment). Refused (429) past the limits, which count every
/// address alike: per asking address (and its /48), per email address
/// *from that asking address*, and per email address from anywhere under
/// a higher ceiling (docs/abuse.md, "Limits that hold"), so strangers
/// asking for my address do not spend my own allowance.
pub fn ask(
    conn: &mut PgConnection,
    email: &str,
    origin: &Origin,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let email = names::email(email)?;
    let key = email.to_lowercase();
    limits::take_from(conn, Limit::PasswordResetFromAddress, origin, now)?;
    let hits = limits::take_all(
        conn,
        &[
            (
                Limit::PasswordResetForEmail,
                &format!("{}|{key}", origin.address),
            ),
            (Limit::PasswordResetForEmailAll, &key),
        ],
        now,
    )?;
    let serial = hits[0].serial();
    let asked = Asked {
        address: email,
        reset: Uuid::new_v4(),
        serial,
        asked_at: now,
    };
    let payload = serde_json::to_value(&asked).map_err(Error::internal)?;
    job_queue::enqueue(
        conn,
        MAIL_JOB,
        &format!("password-reset:{serial}"),
        payload,
        now,
        now,
    )?;
    Ok(())
}

/// Runs [`MAIL_JOB`]: makes the link and queues its mail when the
/// address is an account's verified one, and nothing otherwise.
pub struct Mailer {
    pub keys: Arc<Keys>,
}

impl Work for Mailer {
    fn kind(&self) -> &'static str {
        MAIL_JOB
    }

    fn run(&self, pool: &crate::db::Pool, job: &Job, _now: DateTime<Utc>) -> Result<(), String> {
        // A payload already emptied is a job that ran and was cut off
        // before it was marked done: nothing is left to do.
        let Ok(asked) = serde_json::from_value::<Asked>(job.payload.clone()) else {
            return Ok(());
        };
        crate::db::transaction(pool, |c| mail_link(c, &self.keys, job.id, &asked))
            .map_err(|e| e.to_string())
    }
}

/// Store the link of `asked` (its token hashed) and queue its mail, if
/// its address is a registered account's verified one (never a guest's:
/// a guest has no password to reset, docs/abuse.md, "Email addresses") and
/// no link putting back an address changed lately is open (whoever changed
/// it must not reset the password through the new one); then forget the
/// address. A link still open is mailed again rather than a new one made:
/// asking twice never makes two.
fn mail_link(conn: &mut PgConnection, keys: &Keys, job: i64, asked: &Asked) -> Result<(), Error> {
    let owner = accounts::verified_owner(conn, &asked.address)?;
    let registered = match owner {
        Some(user) => !accounts::is_guest(conn, user)?,
        None => false,
    };
    if let Some(user) = owner.filter(|_| registered) {
        if !crate::accounts::email_undos::open_for(conn, user, asked.asked_at)? {
            link_for(conn, keys, user, asked)?;
        }
    }
    crate::job_queue::forget_payload(conn, job)
}

/// Mail `user` the link `asked` makes, or the one still open.
fn link_for(conn: &mut PgConnection, keys: &Keys, user: Uuid, asked: &Asked) -> Result<(), Error> {
    // The address as the account has it, which the link is bound to.
    let email: Option<String> = users::table.find(user).select(users::email).first(conn)?;
    let email = email.ok_or_else(|| Error::internal("a verified owner without its address"))?;
    let open: Option<Uuid> = password_resets::table
        .filter(password_resets::user_id.eq(user))
        .filter(password_resets::email.eq(&email))
        .filter(password_resets::used_at.is_null())
        .filter(password_resets::expires_at.gt(asked.asked_at))
        .filter(password_resets::id.ne(asked.reset))
        .order(password_resets::created_at.desc())
        .select(password_resets::id)
        .first(conn)
        .optional()?;
    let reset = match open {
        Some(open) => open,
        None => {
            diesel::insert_into(password_resets::table)
                .values((
                    password_resets::id.eq(asked.reset),
                    password_resets::token_hash
                        .eq(auth::hash_token(&keys.reset_token(asked.reset))),
                    password_resets::user_id.eq(user),
                    password_resets::email.eq(&email),
                    password_resets::created_at.eq(asked.asked_at),
                    password_resets::expires_at
                        .eq(asked.asked_at + Duration::minutes(VALID_MINUTES)),
                ))
                .on_conflict_do_nothing()
                .execute(conn)?;
            asked.reset
        }
    };
    account_mail::enqueue_reset(conn, user, &email, reset, asked.serial, asked.asked_at)
}

/// What every refused link is told: used, expired and never sent alike.
fn spent() -> Error {
    Error::ResetLinkExpired(
        "this password reset link was used already or is more than an hour old; ask for a new one"
            .into(),
    )
}

/// The account a link may still reset, or why not. With `lock`, the
/// account's row is held until the transaction ends, so two uses of its
/// links (the same one twice, or two of them) are one after the other
/// and the second finds its link used.
fn usable(
    conn: &mut PgConnection,
    token: &str,
    now: DateTime<Utc>,
    lock: bool,
) -> Result<Uuid, Error> {
    let hash = auth::hash_token(token.trim());
    let link = password_resets::table.filter(password_resets::token_hash.eq(&hash));
    let user: Option<Uuid> = link
        .select(password_resets::user_id)
        .first(conn)
        .optional()?;
    let Some(user) = user else {
        return Err(spent());
    };
    if lock {
        users::table
            .find(user)
            .select(users::id)
            .for_update()
            .first::<Uuid>(conn)?;
    }
    let (sent_to, expires_at, used_at): (String, DateTime<Utc>, Option<DateTime<Utc>>) = link
        .select((
            password_resets::email,
            password_resets::expires_at,
            password_resets::used_at,
        ))
        .first(conn)?;
    // A link works for the address it went to: once the account's
    // verified address changed, the old mailbox no longer resets it.
    let email: Option<String> = users::table.find(user).select(users::email).first(conn)?;
    let same_address = email.is_some_and(|e| e.eq_ignore_ascii_case(&sent_to));
    if used_at.is_some() || expires_at <= now || !same_address {
        return Err(spent());
    }
    Ok(user)
}

/// Before the (slow) password hash: refuse a link that cannot work.
pub fn check_link(conn: &mut PgConnection, token: &str, now: DateTime<Utc>) -> Result<(), Error> {
    usable(conn, token, now, false).map(|_| ())
}

/// Use the link `token`: the new password (`new_hash`) is set, every
/// open link of the account ends with it, every session ends, and a new
/// one is opened. Returns it and the sessions ended.
pub fn complete(
    conn: &mut PgConnection,
    token: &str,
    new_hash: String,
    issuer: &Issuer,
) -> Result<(Session, Vec<Uuid>), Error> {
    let user = usable(conn, token, issuer.now, true)?;
    diesel::update(password_resets::table)
        .filter(password_resets::user_id.eq(user))
        .filter(password_resets::used_at.is_null())
        .set(password_resets::used_at.eq(issuer.now))
        .execute(conn)?;
    accounts::reset_password(conn, user, new_hash, issuer)
}

/// Forget links an hour past their end (the sweep calls this).
pub fn forget_old(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    Ok(diesel::delete(
        password_resets::table.filter(password_resets::expires_at.lt(now - Duration::hours(1))),
    )
    .execute(conn)?)
}

/// Password reset links go with the account.
pub const PERSONAL: Owner = Owner::erasing(
    "password_resets",
    &["password_resets"],
    forget,
    Exported::Not(
        "a reset link's hash and when it was asked, kept an hour: a secret, not the player's words",
    ),
);

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(password_resets::table.filter(password_resets::user_id.eq(leaving.user)))
        .execute(conn)?;
    Ok(())
}
