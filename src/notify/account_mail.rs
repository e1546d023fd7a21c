//! Mail about the account itself, not about a match
//! (docs/decisions/accounts-and-sessions.md): the link that verifies an
//! address, the word to an address's owner that someone else tried to use
//! it, and the link that sets a forgotten password
//! (docs/decisions/accounts-and-sessions.md). It goes through the outbox
//! like every notification (delivered or recorded as failed), to the
//! address in its payload rather than the account's verified one, ignores
//! the match switches and quiet hours (someone is waiting for it), and
//! carries no unsubscribe link: it is sent only when its reader asked for
//! it.

use super::deliver::Mailer;
use super::outbox::Row;
use super::words::Locale;
use super::{Channel, Courier};
use crate::error::Error;
use crate::schema::notifications;
use askama::Template;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use lettre::message::Mailbox;
use lettre::Message;
use uuid::Uuid;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccountMail {
    /// A link that makes the address the account's own.
    VerifyEmail,
    /// The address is another account's already: its owner is told,
    /// and whoever typed it learns nothing (no enumeration).
    EmailInUse,
    /// A link that sets a new password, valid an hour, used once.
    PasswordReset,
    /// To the address an account just left for a new one it verified
    /// (docs/decisions/accounts-and-sessions.md, "My sessions and a changed
    /// address"): if that was not its owner, they hear of it there.
    EmailChanged,
    /// To the address an account just removed
    /// (docs/decisions/accounts-and-sessions.md, "My sessions and a changed
    /// address"): the same warning, since mail stops going there.
    EmailRemoved,
    /// To the account's address when a Google or Apple identity is linked
    /// or unlinked (docs/decisions/accounts-and-sessions.md, "Google and
    /// Apple"): a new way in is told where the owner reads.
    IdentityLinked,
    IdentityUnlinked,
}

impl AccountMail {
    pub const ALL: [AccountMail; 7] = [
        AccountMail::VerifyEmail,
        AccountMail::EmailInUse,
        AccountMail::PasswordReset,
        AccountMail::EmailChanged,
        AccountMail::EmailRemoved,
        AccountMail::IdentityLinked,
        AccountMail::IdentityUnlinked,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AccountMail::VerifyEmail => "verify_email",
            AccountMail::EmailInUse => "email_in_use",
            AccountMail::PasswordReset => "password_reset",
            AccountMail::EmailChanged => "email_changed",
            AccountMail::EmailRemoved => "email_removed",
            AccountMail::IdentityLinked => "identity_linked",
            AccountMail::IdentityUnlinked => "identity_unlinked",
        }
    }

    pub fn parse(name: &str) -> Option<AccountMail> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// Queue `mail` about `user`'s account to `address`, in the caller's
/// transaction; `serial` (the request's limit hit) keeps each request's
/// mail apart in the outbox's dedupe key.
pub fn enqueue(
    conn: &mut PgConnection,
    user: Uuid,
    mail: AccountMail,
    address: &str,
    serial: i64,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let payload = serde_json::json!({"address": address});
    enqueue_payload(conn, user, mail, payload, serial, now)
}

/// Queue the link of password reset `reset` to `address` (docs/abuse.md,
/// "Forgotten passwords"): the mail names the reset, and its token is
/// derived from it when the mail is written (`Keys::reset_token`), so the
/// outbox holds no working link.
pub fn enqueue_reset(
    conn: &mut PgConnection,
    user: Uuid,
    address: &str,
    reset: Uuid,
    serial: i64,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let payload = serde_json::json!({"address": address, "reset": reset});
    enqueue_payload(conn, user, AccountMail::PasswordReset, payload, serial, now)
}

/// Queue `mail` (an address changed or removed) to the old address
/// `address`, with the link that puts it back (`email_undos`): its token
/// is derived from `undo` when the mail is written (`Keys::undo_token`).
pub fn enqueue_undo(
    conn: &mut PgConnection,
    user: Uuid,
    mail: AccountMail,
    address: &str,
    undo: Uuid,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let payload = serde_json::json!({"address": address, "undo": undo});
    let serial = i64::from(undo.as_u128() as u32 & 0x7FFF_FFFF);
    enqueue_payload(conn, user, mail, payload, serial, now)
}

fn enqueue_payload(
    conn: &mut PgConnection,
    user: Uuid,
    mail: AccountMail,
    payload: serde_json::Value,
    serial: i64,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    diesel::insert_into(notifications::table)
        .values((
            notifications::user_id.eq(user),
            notifications::match_id.eq(Uuid::nil()),
            notifications::seq.eq((serial % i64::from(i32::MAX)) as i32),
            notifications::kind.eq(mail.name()),
            notifications::channel.eq(Channel::Email.to_string()),
            notifications::payload.eq(payload),
            notifications::next_attempt_at.eq(now),
            notifications::created_at.eq(now),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(())
}

#[derive(Template)]
#[template(path = "email/account.txt")]
struct TextBody<'a> {
    greeting: &'a str,
    headline: &'a str,
    detail: &'a str,
    link_label: &'a str,
    link: &'a str,
    footer: &'a str,
}

#[derive(Template)]
#[template(path = "email/account.html")]
struct HtmlBody<'a> {
    lang: &'a str,
    subject: &'a str,
    greeting: &'a str,
    headline: &'a str,
    detail: &'a str,
    link_label: &'a str,
    link: &'a str,
    footer: &'a str,
}

/// `(subject, headline, detail, link label, footer)` in the reader's words.
fn words(mail: AccountMail, locale: Locale) -> [&'static str; 5] {
    let key = mail.name();
    ["subject", "headline", "detail", "link_label", "footer"]
        .map(|part| locale.word(&format!("{key}.{part}")))
}

/// The plain-text body of `mail` to `name` in `locale` with its `link`
/// (also the golden table's, `notify::golden`).
pub(super) fn plain_text(
    mail: AccountMail,
    locale: Locale,
    name: &str,
    link: &str,
) -> Result<String, String> {
    let [_, headline, detail, link_label, footer] = words(mail, locale);
    let greeting = locale.say("mail.greeting", &[("name", name)]);
    TextBody {
        greeting: &greeting,
        headline,
        detail,
        link_label,
        link,
        footer,
    }
    .render()
    .map_err(|e| e.to_string())
}

/// The message for a claimed account mail; `name` and `korean` are its
/// account's.
pub(super) fn compose(
    courier: &Courier,
    mailer: &Mailer,
    mail: AccountMail,
    name: &str,
    locale: Locale,
    row: &Row,
) -> Result<Message, String> {
    let address = row.payload["address"]
        .as_str()
        .ok_or("an account mail without its address")?;
    let [subject, headline, detail, link_label, footer] = words(mail, locale);
    let link = match mail {
        AccountMail::VerifyEmail => format!(
            "{}/verify-email#{}",
            courier.public_url.trim_end_matches('/'),
            courier
                .keys
                .sign_verify_email(row.user_id, address, courier.clock.now())
        ),
        AccountMail::EmailChanged | AccountMail::EmailRemoved => {
            match serde_json::from_value::<Uuid>(row.payload["undo"].clone()) {
                Ok(undo) => format!(
                    "{}/undo-email#{}",
                    courier.public_url.trim_end_matches('/'),
                    courier.keys.undo_token(undo)
                ),
                Err(_) => String::new(),
            }
        }
        AccountMail::EmailInUse | AccountMail::IdentityLinked | AccountMail::IdentityUnlinked => {
            String::new()
        }
        AccountMail::PasswordReset => {
            let reset: Uuid = serde_json::from_value(row.payload["reset"].clone())
                .map_err(|e| format!("a reset mail without its reset: {e}"))?;
            format!(
                "{}/reset-password#{}",
                courier.public_url.trim_end_matches('/'),
                courier.keys.reset_token(reset)
            )
        }
    };
    let greeting = locale.say("mail.greeting", &[("name", name)]);
    let text = plain_text(mail, locale, name, &link)?;
    let html = HtmlBody {
        lang: locale.tag(),
        subject,
        greeting: &greeting,
        headline,
        detail,
        link_label,
        link: &link,
        footer,
    }
    .render()
    .map_err(|e| e.to_string())?;
    let to: Mailbox = address.parse().map_err(|e| format!("address: {e}"))?;
    Message::builder()
        .from(mailer.from.clone())
        .to(to)
        .subject(subject)
        .multipart(super::deliver::text_and_html(text, html, None))
        .map_err(|e| e.to_string())
}
