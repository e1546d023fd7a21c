//! The outbox worker: claims due notifications, sends them, records what
//! became of each.
//!
//! A batch is claimed with `FOR UPDATE SKIP LOCKED` (two workers never
//! send one row twice) and handled in three steps within that transaction:
//! everything is read and composed first, then the sends run side by side
//! on a few threads with no database connection in hand, then each outcome
//! is recorded. Side by side because a send mostly waits: an SMTP dialogue
//! takes tens of milliseconds even on loopback (lettre writes the message
//! and its final dot separately, and the second write waits for the
//! server's delayed acknowledgement), and a push waits on its service.

use super::account_mail::{self, AccountMail};
use super::at_table::{self, Verdict};
use super::deliver::{compose, words, SENDERS};
use super::native::{self, Outcome};
use super::outbox::Row;
use super::recipients::Recipients;
use super::Kind;
use super::{Channel, Courier, DeliveryStatus};
use crate::error::Error;
use crate::schema::{notifications, push_subscriptions as subs};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use lettre::Message;
use serde_json::Value;
use uuid::Uuid;

/// Rows claimed per transaction.
const BATCH: i64 = 256;
/// The first retry waits this long; each later one twice as long.
const FIRST_RETRY_SECONDS: i64 = 30;
/// The longest wait between two attempts, a `Retry-After`'s too: a push
/// service asking for more is tried again after an hour (a notice later
/// than that is rarely worth its wait; its attempts still run out).
const MAX_RETRY_SECONDS: i64 = 3600;

/// An error that no retry can mend: recorded as failed at once.
const PERMANENT: &str = "permanent: ";

/// What a run of the worker did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Delivered {
    pub sent: usize,
    pub retried: usize,
    pub failed: usize,
    /// Held back by the user's quiet hours, or while they are at the
    /// table (docs/decisions/notifications.md, "At the table").
    pub waiting: usize,
    /// Dropped unsent: its reader played at the table, a newer notice
    /// replaced it, or a more urgent one went with it.
    pub dropped: usize,
}

/// A claimed notification, read and composed: ready to send with no
/// database connection.
enum Outgoing {
    Mail(Box<Message>),
    Push(Push),
    /// To a native app's device through APNs or FCM
    /// (docs/decisions/native-push.md).
    App(Uuid, Box<native::Push>),
    /// Nothing to send (the user has no address any more).
    Nothing,
    /// It could not be prepared: this is the error to record.
    Broken(String),
}

/// One push, `{type, match_id, title, body, url}`, for one device.
struct Push {
    subscription: Uuid,
    endpoint: String,
    p256dh: String,
    auth: String,
    payload: Vec<u8>,
    urgent: bool,
    /// RFC 8030's `Topic`: what it replaces while it waits at the push
    /// service.
    topic: String,
}

/// What a send came to.
enum Sent {
    Done,
    /// The push service says the subscription or device is gone.
    Gone(Channel),
    Failed(String),
    /// Retried, not before this many seconds when the service said so
    /// (`Retry-After`).
    Later(String, Option<u64>),
    /// The push credential is refused (docs/decisions/native-push.md,
    /// "Sending"): held without spending an attempt, so fixing the key
    /// delivers it, until its time to live.
    Held(String),
}

fn prepare(courier: &Courier, to: &Recipients, row: &Row) -> Outgoing {
    let prepared = match Channel::parse(&row.channel) {
        Some(Channel::Push(subscription)) => {
            prepare_push(courier, to, row, subscription).map(Outgoing::Push)
        }
        Some(Channel::App(device)) => {
            prepare_app(courier, to, row, device).map(|push| Outgoing::App(device, Box::new(push)))
        }
        Some(Channel::Email) => match (AccountMail::parse(&row.kind), to.person(row.user_id)) {
            (Some(mail), Some(person)) => account_mail::compose(
                courier,
                &courier.mailer,
                mail,
                &person.name,
                person.locale(),
                row,
            )
            .map(|m| Outgoing::Mail(Box::new(m))),
            (Some(_), None) => Ok(Outgoing::Nothing),
            (None, _) => compose(courier, &courier.mailer, to, row)
                .map(|m| m.map_or(Outgoing::Nothing, |m| Outgoing::Mail(Box::new(m)))),
        },
        None => Err(format!("{PERMANENT}unknown channel {:?}", row.channel)),
    };
    prepared.unwrap_or_else(Outgoing::Broken)
}

fn prepare_push(courier: &Courier, to: &Recipients, row: &Row, id: Uuid) -> Result<Push, String> {
    let Some(device) = to.device(id) else {
        return Err(PERMANENT.to_owned() + "the subscription was removed");
    };
    let Some(person) = to.person(row.user_id) else {
        return Err(PERMANENT.to_owned() + "the account was removed");
    };
    let kind = Kind::parse(&row.kind).ok_or("unknown notification kind")?;
    let reading = to.reading(row, person.locale(), courier.clock.now());
    let words = words(kind, &reading, &row.payload);
    let url = kind.link(&courier.public_url, row.match_id);
    let payload = web_push_payload(kind, row.match_id, &words, &url);
    Ok(Push {
        subscription: id,
        endpoint: device.endpoint.clone(),
        p256dh: device.p256dh.clone(),
        auth: device.auth.clone(),
        payload: payload.to_string().into_bytes(),
        urgent: kind.urgent(),
        topic: super::push_topic(row.match_id, kind),
    })
}

/// What a browser's service worker is sent (`src/web/sw.js` shows it).
pub(super) fn web_push_payload(
    kind: Kind,
    about: Uuid,
    words: &super::deliver::Words,
    url: &str,
) -> Value {
    serde_json::json!({
        "type": kind.name(),
        "match_id": about,
        "title": words.subject,
        "body": format!("{}\n{}", words.headline, words.detail),
        "url": url,
        // The notification's tag in the service worker: what it replaces.
        "tag": super::collapse_id(about, kind),
    })
}

/// A notice for a native app: the same words as a browser's, in the
/// phone's language when the app said it, with the player's badge.
fn prepare_app(
    courier: &Courier,
    to: &Recipients,
    row: &Row,
    id: Uuid,
) -> Result<native::Push, String> {
    let device = to
        .app(id)
        .filter(|d| d.user_id == row.user_id)
        .ok_or(PERMANENT.to_owned() + "the device was removed or moved to another account")?;
    let Some(person) = to.person(row.user_id) else {
        return Err(PERMANENT.to_owned() + "the account was removed");
    };
    let kind = Kind::parse(&row.kind).ok_or("unknown notification kind")?;
    // The phone's language when there are words for it, else the account's.
    let locale = device
        .locale
        .as_deref()
        .and_then(super::words::Locale::known)
        .unwrap_or(person.locale());
    let words = words(
        kind,
        &to.reading(row, locale, courier.clock.now()),
        &row.payload,
    );
    Ok(native::Push {
        platform: device.platform,
        token: device.token.clone(),
        kind,
        about: row.match_id,
        notification: courier.keys.push_id(row.id),
        title: words.subject,
        body: format!("{}\n{}", words.headline, words.detail),
        url: kind.link(&courier.public_url, row.match_id),
        badge: to.badge(row.user_id),
        expires: courier.clock.now() + Duration::seconds(native::TTL_SECONDS),
    })
}

fn send(courier: &Courier, outgoing: &Outgoing) -> Sent {
    let outcome = match outgoing {
        Outgoing::Mail(message) => courier.mailer.send(message).map(|()| Sent::Done),
        Outgoing::Push(p) => super::push::send(
            &courier.vapid,
            &p.endpoint,
            &p.p256dh,
            &p.auth,
            &p.payload,
            p.urgent,
            &p.topic,
        )
        .map(|sent| match sent {
            super::push::Sent::Delivered => Sent::Done,
            super::push::Sent::Gone => Sent::Gone(Channel::Push(p.subscription)),
            // A private destination stays refused: no retry.
            super::push::Sent::Refused(why) => Sent::Failed(PERMANENT.to_owned() + &why),
        }),
        Outgoing::App(device, push) => Ok(match courier.native.send(push, courier.clock.now()) {
            Outcome::Delivered => Sent::Done,
            Outcome::Gone(why) => {
                log::info!("device {device} removed: {why}");
                Sent::Gone(Channel::App(*device))
            }
            Outcome::Retry { why, after } => Sent::Later(why, after),
            Outcome::Renew(why) => Sent::Later(why, None),
            Outcome::Held(why) => Sent::Held(why),
            Outcome::Failed(why) => Sent::Failed(PERMANENT.to_owned() + &why),
        }),
        Outgoing::Nothing => Ok(Sent::Done),
        Outgoing::Broken(why) => Err(why.clone()),
    };
    outcome.unwrap_or_else(Sent::Failed)
}

/// The span of one delivery, named by the request that caused it, on
/// whichever instance and tick it goes out (docs/operations.md,
/// "Following one move").
fn delivery_span(row: &Row) -> tracing::Span {
    tracing::debug_span!(
        "delivery",
        request_id = %crate::cause::shown(&row.request_id),
        notification = row.id,
        kind = %row.kind,
        channel = %row.channel
    )
}

/// Send them all, up to `SENDERS` at once, each in its delivery's span;
/// the outcomes in the same order.
fn send_all(courier: &Courier, ready: &[(tracing::Span, Outgoing)]) -> Vec<Sent> {
    let per_sender = ready.len().div_ceil(SENDERS).max(1);
    std::thread::scope(|scope| {
        let senders: Vec<_> = ready
            .chunks(per_sender)
            .map(|chunk| {
                let sender = scope.spawn(move || {
                    (chunk.iter())
                        .map(|(span, o)| span.in_scope(|| send(courier, o)))
                        .collect::<Vec<_>>()
                });
                (chunk.len(), sender)
            })
            .collect();
        senders
            .into_iter()
            .flat_map(|(count, sender)| {
                sender.join().unwrap_or_else(|_| {
                    let why = "the sender stopped unexpectedly";
                    (0..count).map(|_| Sent::Failed(why.into())).collect()
                })
            })
            .collect()
    })
}

fn claim(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<Vec<Row>, Error> {
    type Claimed = (
        (i64, Uuid, Uuid, i32, String, String),
        (
            Value,
            i32,
            DateTime<Utc>,
            Option<DateTime<Utc>>,
            Option<String>,
        ),
    );
    let rows: Vec<Claimed> = notifications::table
        .filter(notifications::status.eq(DeliveryStatus::Pending.as_str()))
        .filter(notifications::next_attempt_at.le(now))
        .order(notifications::next_attempt_at)
        .select((
            (
                notifications::id,
                notifications::user_id,
                notifications::match_id,
                notifications::seq,
                notifications::kind,
                notifications::channel,
            ),
            (
                notifications::payload,
                notifications::attempts,
                notifications::created_at,
                notifications::held_at,
                notifications::request_id,
            ),
        ))
        .limit(BATCH)
        .for_update()
        .skip_locked()
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(
            |(
                (id, user_id, match_id, seq, kind, channel),
                (payload, attempts, created_at, held_at, request_id),
            )| Row {
                id,
                user_id,
                match_id,
                seq,
                kind,
                channel,
                payload,
                attempts,
                created_at,
                held_at,
                request_id,
            },
        )
        .collect())
}

/// Record what a send came to: a delivery joins `delivered`, marked sent
/// with the rest of the batch ([`mark_sent`]); a failure is retried later
/// or, when permanent or out of attempts, recorded as failed.
fn record(
    conn: &mut PgConnection,
    row: &Row,
    outcome: Sent,
    max_attempts: i32,
    now: DateTime<Utc>,
    done: &mut Delivered,
    delivered: &mut Vec<i64>,
) -> Result<(), Error> {
    let attempts = row.attempts + 1;
    let mut not_before = 0;
    tracing::debug!(
        target: "posthorn::delivery",
        attempt = attempts,
        sent = matches!(outcome, Sent::Done),
        "recorded"
    );
    let outcome = match outcome {
        Sent::Done => Ok(()),
        Sent::Failed(why) => Err(why),
        Sent::Held(why) => Err(HELD.to_owned() + &why),
        Sent::Later(why, after) => {
            not_before = after.unwrap_or(0).min(MAX_RETRY_SECONDS as u64) as i64;
            Err(why)
        }
        Sent::Gone(Channel::App(device)) => {
            native::devices::forget(conn, device)?;
            Err(PERMANENT.to_owned() + "the push service says the device is gone; removed")
        }
        Sent::Gone(channel) => {
            if let Channel::Push(subscription) = channel {
                diesel::delete(subs::table.find(subscription)).execute(conn)?;
            }
            Err(PERMANENT.to_owned()
                + "the push service says the subscription is gone (404/410); removed")
        }
    };
    let target = notifications::table.find(row.id);
    if let Err(why) = &outcome {
        if let Some(why) = why.strip_prefix(HELD) {
            return hold(conn, row, why, now, done);
        }
    }
    match outcome {
        Ok(()) => delivered.push(row.id),
        Err(why) if attempts >= max_attempts || why.starts_with(PERMANENT) => {
            log::warn!("notification {} failed for good: {why}", row.id);
            diesel::update(target)
                .set((
                    notifications::status.eq(DeliveryStatus::Failed.as_str()),
                    notifications::attempts.eq(attempts),
                    notifications::last_error.eq(why),
                ))
                .execute(conn)?;
            done.failed += 1;
        }
        Err(why) => {
            let backoff = (FIRST_RETRY_SECONDS << (attempts - 1).min(16)).min(MAX_RETRY_SECONDS);
            let wait = backoff.max(not_before);
            diesel::update(target)
                .set((
                    notifications::attempts.eq(attempts),
                    notifications::last_error.eq(why),
                    notifications::next_attempt_at.eq(now + Duration::seconds(wait)),
                ))
                .execute(conn)?;
            done.retried += 1;
        }
    }
    Ok(())
}

/// Marks a refusal of the push credential in [`record`]'s error text.
const HELD: &str = "held: ";
/// How long a notice waits while the push credential is refused: an
/// operator fixing a key is minutes away, not seconds.
const HOLD_SECONDS: i64 = 300;

/// A notice whose push credential was refused: tried again in
/// [`HOLD_SECONDS`] with no attempt spent, or failed once its time to
/// live has passed (the push service would drop it by then anyway).
fn hold(
    conn: &mut PgConnection,
    row: &Row,
    why: &str,
    now: DateTime<Utc>,
    done: &mut Delivered,
) -> Result<(), Error> {
    let target = notifications::table.find(row.id);
    let lived = now - row.created_at >= Duration::seconds(native::TTL_SECONDS);
    if lived {
        diesel::update(target)
            .set((
                notifications::status.eq(DeliveryStatus::Failed.as_str()),
                notifications::last_error.eq(format!("expired while held: {why}")),
            ))
            .execute(conn)?;
        done.failed += 1;
    } else {
        diesel::update(target)
            .set((
                notifications::last_error.eq(format!("held: {why}")),
                notifications::next_attempt_at.eq(now + Duration::seconds(HOLD_SECONDS)),
            ))
            .execute(conn)?;
        done.retried += 1;
    }
    Ok(())
}

/// Record the batch's deliveries in one statement, not one per row.
fn mark_sent(conn: &mut PgConnection, ids: &[i64], now: DateTime<Utc>) -> Result<usize, Error> {
    if ids.is_empty() {
        return Ok(0);
    }
    Ok(
        diesel::update(notifications::table.filter(notifications::id.eq_any(ids)))
            .set((
                notifications::status.eq(DeliveryStatus::Sent.as_str()),
                notifications::attempts.eq(notifications::attempts + 1),
                notifications::sent_at.eq(now),
            ))
            .execute(conn)?,
    )
}

/// What of `due` goes now: the rest is held while its reader is at the
/// table, or dropped ([`at_table::judge`]); no attempt is spent on either.
fn at_the_table<'r>(
    conn: &mut PgConnection,
    due: Vec<&'r Row>,
    now: DateTime<Utc>,
    acted: super::Acted,
    done: &mut Delivered,
) -> Result<Vec<&'r Row>, Error> {
    let verdicts = at_table::judge(conn, &due, now, acted)?;
    let mut going = Vec::with_capacity(due.len());
    for (row, verdict) in due.into_iter().zip(verdicts) {
        at_table::count(row, verdict);
        let target = notifications::table.find(row.id);
        match verdict {
            Verdict::Send => going.push(row),
            Verdict::Hold(until) => {
                diesel::update(target)
                    .set((
                        notifications::next_attempt_at.eq(until),
                        notifications::held_at.eq(row.held_at.unwrap_or(now)),
                    ))
                    .execute(conn)?;
                done.waiting += 1;
            }
            Verdict::Drop(why) => {
                diesel::update(target)
                    .set((
                        notifications::status.eq(DeliveryStatus::Dropped.as_str()),
                        notifications::last_error.eq(why),
                    ))
                    .execute(conn)?;
                done.dropped += 1;
            }
        }
    }
    Ok(going)
}

/// Deliver every due notification (blocking; run it off the executor).
pub fn deliver_due(courier: &Courier) -> Result<Delivered, Error> {
    let now = courier.clock.now();
    let mut done = Delivered::default();
    // The actions' notices become deliveries first
    // (docs/decisions/notifications.md).
    let fan_out = |c: &mut PgConnection| super::outbox::fan_out(c, courier.turn_talk);
    while crate::db::transaction(&courier.pool, fan_out)?.0 == super::outbox::FAN_OUT_BATCH {}
    loop {
        let claimed = crate::db::transaction(&courier.pool, |c| {
            let rows = claim(c, now)?;
            let mut to = Recipients::load(c, &rows, courier.badge)?;
            let mut due = Vec::with_capacity(rows.len());
            for row in rows.iter() {
                // Account mail is awaited by its reader: never held.
                let quiet = to
                    .person(row.user_id)
                    .filter(|_| AccountMail::parse(&row.kind).is_none())
                    .and_then(|p| p.quiet_until(now));
                if let Some(until) = quiet {
                    // Quiet hours: the notification waits for their end,
                    // and no attempt is spent.
                    diesel::update(notifications::table.find(row.id))
                        .set(notifications::next_attempt_at.eq(until))
                        .execute(c)?;
                    done.waiting += 1;
                } else {
                    due.push(row);
                }
            }
            let due = at_the_table(c, due, now, courier.acted, &mut done)?;
            to.load_boards(c, &due, courier.board);
            let ready: Vec<(tracing::Span, Outgoing)> = (due.iter())
                .map(|row| (delivery_span(row), prepare(courier, &to, row)))
                .collect();
            let max_attempts = courier.max_attempts;
            let mut delivered = Vec::with_capacity(due.len());
            let sent = send_all(courier, &ready);
            for ((row, outcome), (span, _)) in due.into_iter().zip(sent).zip(&ready) {
                let _in_delivery = span.enter();
                record(
                    c,
                    row,
                    outcome,
                    max_attempts,
                    now,
                    &mut done,
                    &mut delivered,
                )?;
            }
            done.sent += mark_sent(c, &delivered, now)?;
            Ok::<_, Error>(rows.len())
        })?;
        if claimed < BATCH as usize {
            return Ok(done);
        }
    }
}
