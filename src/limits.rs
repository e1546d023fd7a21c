//! Abuse limits that hold under concurrency and on any number of instances
//! (docs/abuse.md). Each limit counts hits per key in a sliding window, in the
//! `limit_hits` table. The count and the insert of a hit run under a
//! transaction-scoped advisory lock on the key, so simultaneous requests
//! are counted one after another: 24 simultaneous wrong passwords meet
//! counts 0, 1, …, 23, never 24 times 0. A hit taken inside a transaction
//! that fails is rolled back with it, so what is counted is what was done.
//!
//! The values, and why (docs/abuse.md says the same for operators):
//! - sign-in: 10 failures per account *from one address*, under a ceiling
//!   of 50 per account from anywhere and 100 per address over any
//!   accounts, each per 15 minutes. Someone hammering a victim's account
//!   from one address locks only that address out of it; the victim signs
//!   in from their own devices until a spread-out attack passes the
//!   ceiling, which then guards the password. A failure is counted
//!   *before* the password is checked (a reservation) and forgiven when
//!   the password was right.
//! - challenges: 30 a day per challenger, not counting those accepted
//!   (an accepted challenge was welcome: its count is given back), and at
//!   most 5 unanswered per pair at once. A tournament invitation by name
//!   counts as a challenge (docs/abuse.md), and a creator has at most 3
//!   tournaments open (a count under the lock, `tournaments::entry`).
//! - guests: 10 per address per hour.
//! - invitations: 60 previews and 20 accepts per address per hour; codes
//!   carry ~50 bits, so guessing stays hopeless.
//! - friend requests: 30 sent per day, 3 to the same player per day,
//!   whether or not they were withdrawn since.
//! - seeks: at most 5 open per player (a count, taken under the lock).
//! - matches against the computer: at most 10 going per player (a count
//!   under the lock, `lobby::computers::within_limit`).
//! - verification mails: 5 per account per day, and 5 per recipient
//!   address per day (lower-cased), however many accounts ask
//!   (docs/abuse.md).
//! - vacation starts: 1 per player per day (docs/abuse.md): each start and
//!   end is an event in every match of theirs and a notice to every
//!   opponent, and each vacation costs at least a day anyway.
//! - sign-ups: 5 accounts per address per hour (docs/abuse.md).
//! - password resets (docs/abuse.md): 5 asked per address per hour; 3 a
//!   day for one email address *from one asking address*, under a ceiling
//!   of 20 a day for the email address from anywhere (three
//!   strangers' requests no longer spend the owner's allowance), counted
//!   whether or not the address is anyone's, so a refusal tells nothing.
//! - IPv6 blocks (docs/abuse.md): an address is keyed by its /64; sign-ups,
//!   guests and resets also count per /48 under a higher ceiling (4 times
//!   the /64's), since a /48 holder has 65,536 /64s to hop between.
//! - table talk: 10 messages a minute and 300 a day per player.

use crate::error::Error;
use crate::schema::limit_hits;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel::PgConnection;
use std::sync::atomic::{AtomicU64, Ordering};

/// The closed set of limits: what is counted, how many, over how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    SignInAccountAddress,
    SignInAccount,
    SignInAddress,
    Challenge,
    GuestFromAddress,
    InvitePreview,
    InviteAccept,
    FriendRequest,
    FriendRequestPair,
    VerificationMail,
    VacationStart,
    /// Accounts made from one address (docs/abuse.md: 25 accounts in 3.6 s
    /// once multiplied every per-account limit). 5 an hour: a household or
    /// a classroom behind one address signs up a few people at a time, and
    /// a script gets 120 a day instead of thousands. Guests are limited
    /// apart (`GuestFromAddress`), so a guest is still there for anyone
    /// past it.
    SignUpFromAddress,
    /// Password resets asked from one address (docs/abuse.md, "Forgotten
    /// passwords"): 5 an hour. A person who forgot a password asks once or
    /// twice; a script asking for many addresses' links (to flood their
    /// mailboxes) is stopped.
    PasswordResetFromAddress,
    /// Password reset mails to one email address (docs/abuse.md, "Forgotten
    /// passwords"): 3 a day. Keyed by the address asked for, known or not,
    /// so its 429 says nothing about whether an account has it; a known
    /// address is one account's verified one, so this is the limit per
    /// account.
    PasswordResetForEmail,
    /// Exports of one account's data
    /// (docs/decisions/accounts-and-sessions.md, "Exporting my data"): 5 a
    /// day. Each reads every match of the account; a person downloads
    /// theirs once.
    Export,
    /// Messages at match tables (docs/decisions/table-talk.md): 10 a minute
    /// and 300 a day per player. A conversation of short lines stays under
    /// both; a flood of a table stops within a minute.
    MessagePerMinute,
    MessagePerDay,
    /// Reports of messages a player makes in a day
    /// (docs/decisions/table-talk.md, "Reports and moderators").
    ReportPerDay,
    /// Verification mails to one recipient address, lower-cased
    /// (docs/abuse.md): 5 a day, whichever accounts ask, so nobody can use
    /// the service to mail a stranger over and over.
    VerificationMailTo,
    /// Password reset mails to one email address from anywhere
    /// (docs/abuse.md): the ceiling above the per-asking-address allowance.
    PasswordResetForEmailAll,
    /// The /48 ceilings of the per-address limits (docs/abuse.md).
    SignUpFromBlock,
    GuestFromBlock,
    PasswordResetFromBlock,
}

impl Limit {
    /// Every limit, once.
    pub const ALL: [Limit; 23] = [
        Limit::SignInAccountAddress,
        Limit::SignInAccount,
        Limit::SignInAddress,
        Limit::Challenge,
        Limit::GuestFromAddress,
        Limit::InvitePreview,
        Limit::InviteAccept,
        Limit::FriendRequest,
        Limit::FriendRequestPair,
        Limit::VerificationMail,
        Limit::VacationStart,
        Limit::SignUpFromAddress,
        Limit::PasswordResetFromAddress,
        Limit::PasswordResetForEmail,
        Limit::Export,
        Limit::MessagePerMinute,
        Limit::MessagePerDay,
        Limit::ReportPerDay,
        Limit::VerificationMailTo,
        Limit::PasswordResetForEmailAll,
        Limit::SignUpFromBlock,
        Limit::GuestFromBlock,
        Limit::PasswordResetFromBlock,
    ];

    /// `(key prefix, hits allowed, window in minutes, what the refusal says)`.
    fn rule(self) -> (&'static str, i64, i64, &'static str) {
        use Limit::*;
        match self {
            SignInAccountAddress => ("sign-in", 10, 15, "too many failed sign-ins"),
            SignInAccount => ("sign-in-account", 50, 15, "too many failed sign-ins"),
            SignInAddress => ("sign-in-address", 100, 15, "too many failed sign-ins"),
            Challenge => (
                "challenge",
                30,
                24 * 60,
                "at most 30 unaccepted challenges a day",
            ),
            GuestFromAddress => ("guest", 10, 60, "too many guests from this address"),
            InvitePreview => ("invite-preview", 60, 60, "too many invitations looked up"),
            InviteAccept => ("invite-accept", 20, 60, "too many invitations tried"),
            FriendRequest => (
                "friend-request",
                30,
                24 * 60,
                "at most 30 friend requests a day",
            ),
            FriendRequestPair => (
                "friend-request-pair",
                3,
                24 * 60,
                "at most 3 friend requests a day to the same player",
            ),
            VerificationMail => (
                "verify-mail",
                5,
                24 * 60,
                "at most 5 verification mails a day",
            ),
            VacationStart => ("vacation-start", 1, 24 * 60, "one vacation may start a day"),
            Export => (
                "export",
                5,
                24 * 60,
                "at most 5 exports of an account a day",
            ),
            SignUpFromAddress => ("sign-up", 5, 60, "too many accounts from this address"),
            PasswordResetFromAddress => (
                "reset-address",
                5,
                60,
                "too many password resets asked from this address",
            ),
            PasswordResetForEmail => (
                "reset-email",
                3,
                24 * 60,
                "at most 3 password reset mails a day to one address from here",
            ),
            PasswordResetForEmailAll => (
                "reset-email-all",
                20,
                24 * 60,
                "at most 20 password reset mails a day to one address",
            ),
            VerificationMailTo => (
                "verify-mail-to",
                5,
                24 * 60,
                "at most 5 verification mails a day to one address",
            ),
            SignUpFromBlock => ("sign-up-48", 20, 60, "too many accounts from this network"),
            GuestFromBlock => ("guest-48", 40, 60, "too many guests from this network"),
            PasswordResetFromBlock => (
                "reset-48",
                20,
                60,
                "too many password resets asked from this network",
            ),
            MessagePerMinute => ("messages-minute", 10, 1, "at most 10 messages a minute"),
            MessagePerDay => ("messages-day", 300, 24 * 60, "at most 300 messages a day"),
            ReportPerDay => ("reports-day", 20, 24 * 60, "at most 20 reports a day"),
        }
    }

    pub fn allowed(self) -> i64 {
        self.rule().1
    }

    pub fn window(self) -> Duration {
        Duration::minutes(self.rule().2)
    }

    fn key(self, subject: &str) -> String {
        format!("{}:{subject}", self.rule().0)
    }

    /// The rule's name, as `/metrics` labels its refusals.
    pub fn name(self) -> &'static str {
        self.rule().0
    }

    /// The /48 ceiling counted beside a per-address limit, if any.
    fn block(self) -> Option<Limit> {
        match self {
            Limit::SignUpFromAddress => Some(Limit::SignUpFromBlock),
            Limit::GuestFromAddress => Some(Limit::GuestFromBlock),
            Limit::PasswordResetFromAddress => Some(Limit::PasswordResetFromBlock),
            _ => None,
        }
    }

    fn index(self) -> usize {
        Limit::ALL.iter().position(|l| *l == self).unwrap_or(0)
    }
}

/// Refusals by limit since the start, for `/metrics`.
static REFUSED: [AtomicU64; Limit::ALL.len()] = [const { AtomicU64::new(0) }; Limit::ALL.len()];

/// Each limit's name and how many requests it refused on this instance.
pub fn refusals() -> impl Iterator<Item = (&'static str, u64)> {
    Limit::ALL
        .iter()
        .map(|l| (l.name(), REFUSED[l.index()].load(Ordering::Relaxed)))
}

/// Where a request comes from, as per-address limits count it
/// (`http::caller::origin`): the address's key (an IPv4 address, an
/// IPv6 /64, or what a trusted proxy wrote when it does not parse) and,
/// for IPv6, the /48 it lies in, which a few limits count too.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Origin {
    pub address: String,
    pub block: Option<String>,
}

impl Origin {
    /// An origin known only by its address key (no /48).
    pub fn of(address: impl Into<String>) -> Origin {
        Origin {
            address: address.into(),
            block: None,
        }
    }

    /// The /48 of an address key that is an IPv6 /64, as
    /// `http::caller::address_key` writes it.
    pub fn block_of(address: &str) -> Option<String> {
        let prefix = address.strip_suffix("/64")?;
        let v6: std::net::Ipv6Addr = prefix.parse().ok()?;
        let wide = u128::from(v6) & !((1u128 << 80) - 1);
        Some(format!("{}/48", std::net::Ipv6Addr::from(wide)))
    }
}

/// Take `limit` for `origin`'s address and, where the limit has one, its
/// /48 ceiling for the origin's block: all or none.
pub fn take_from(
    conn: &mut PgConnection,
    limit: Limit,
    origin: &Origin,
    now: DateTime<Utc>,
) -> Result<Hit, Error> {
    let hit = take(conn, limit, &origin.address, now)?;
    if let (Some(wider), Some(block)) = (limit.block(), &origin.block) {
        take(conn, wider, block, now)?;
    }
    Ok(hit)
}

/// Engine time (docs/abuse.md, "Engine time"), spent by computers for a
/// person: the budgets `job_queue::claim` holds and `computer::budget`
/// charges.
pub mod engine {
    use chrono::Duration;

    /// The window a budget is counted over.
    pub const WINDOW: Duration = Duration::hours(1);
    /// Engine time one person may spend per [`WINDOW`].
    pub const PER_PLAYER: Duration = Duration::minutes(10);
    /// Engine time one address may spend per [`WINDOW`], over all its
    /// players (guests are 10 an hour from an address).
    pub const PER_ADDRESS: Duration = Duration::minutes(20);
    /// Engine time one IPv6 /48 may spend per [`WINDOW`] (docs/abuse.md):
    /// three addresses' worth, so hopping /64s gains little.
    pub const PER_BLOCK: Duration = Duration::minutes(60);
}

/// The longest window: hits older than it count for nothing.
const LONGEST: Duration = Duration::days(1);

/// A hit taken: forgiven with [`forgive`] when what it counted went well
/// (a right password).
#[derive(Clone, Copy, Debug)]
pub struct Hit(i64);

impl Hit {
    /// A number no other hit has: a dedupe key for what it counted.
    pub fn serial(self) -> i64 {
        self.0
    }
}

/// Hold the lock on `key` until the transaction ends: use cases that check
/// a count of their own (open seeks, pending challenges) take it first.
pub fn serialize(conn: &mut PgConnection, key: &str) -> Result<(), Error> {
    diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
        .bind::<Text, _>(key)
        .execute(conn)?;
    Ok(())
}

/// Count one hit of `limit` for `subject`, or refuse with 429 when the
/// window holds its allowance already. Must run inside a transaction.
pub fn take(
    conn: &mut PgConnection,
    limit: Limit,
    subject: &str,
    now: DateTime<Utc>,
) -> Result<Hit, Error> {
    let key = limit.key(subject);
    serialize(conn, &key)?;
    let since = now - limit.window();
    let counted: i64 = limit_hits::table
        .filter(limit_hits::key.eq(&key))
        .filter(limit_hits::at.gt(since))
        .count()
        .get_result(conn)?;
    if counted >= limit.allowed() {
        REFUSED[limit.index()].fetch_add(1, Ordering::Relaxed);
        let minutes = limit.rule().2;
        let wait = if minutes >= 60 {
            format!("{} hours", minutes / 60)
        } else {
            format!("{minutes} minutes")
        };
        return Err(Error::rate_limited(format!(
            "{}; try again within {wait}",
            limit.rule().3
        )));
    }
    let id = diesel::insert_into(limit_hits::table)
        .values((limit_hits::key.eq(&key), limit_hits::at.eq(now)))
        .returning(limit_hits::id)
        .get_result(conn)?;
    Ok(Hit(id))
}

/// Take every limit in `limits`, each for its subject, all or none.
pub fn take_all(
    conn: &mut PgConnection,
    limits: &[(Limit, &str)],
    now: DateTime<Utc>,
) -> Result<Vec<Hit>, Error> {
    limits
        .iter()
        .map(|(limit, subject)| take(conn, *limit, subject, now))
        .collect()
}

/// Forget hits that turned out not to count (a sign-in that succeeded).
pub fn forgive(conn: &mut PgConnection, hits: &[Hit]) -> Result<(), Error> {
    let ids: Vec<i64> = hits.iter().map(|h| h.0).collect();
    diesel::delete(limit_hits::table.filter(limit_hits::id.eq_any(ids))).execute(conn)?;
    Ok(())
}

/// Give back the newest hit of `limit` for `subject` (a challenge that
/// was accepted, so welcome, not spam).
pub fn refund(
    conn: &mut PgConnection,
    limit: Limit,
    subject: &str,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let newest: Option<i64> = limit_hits::table
        .filter(limit_hits::key.eq(limit.key(subject)))
        .filter(limit_hits::at.gt(now - limit.window()))
        .order(limit_hits::at.desc())
        .select(limit_hits::id)
        .first(conn)
        .optional()?;
    if let Some(id) = newest {
        diesel::delete(limit_hits::table.find(id)).execute(conn)?;
    }
    Ok(())
}

/// Drop hits older than every window (the sweep calls this).
pub fn forget_old(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    Ok(diesel::delete(limit_hits::table.filter(limit_hits::at.lt(now - LONGEST))).execute(conn)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_window_fits_in_the_longest() {
        use Limit::*;
        for limit in Limit::ALL {
            assert!(limit.window() <= LONGEST, "{limit:?}");
            assert!(limit.allowed() > 0);
        }
        // The per-address sign-in limit sits under the account's ceiling,
        // so one hammering address cannot lock the owner out.
        assert!(SignInAccountAddress.allowed() < SignInAccount.allowed());
        // A /48's ceiling is above its /64's allowance.
        for limit in Limit::ALL {
            if let Some(wider) = limit.block() {
                assert!(wider.allowed() > limit.allowed(), "{limit:?}");
                assert_eq!(wider.window(), limit.window());
            }
        }
        assert!(PasswordResetForEmailAll.allowed() > PasswordResetForEmail.allowed());
    }

    #[test]
    fn an_ipv6_key_lies_in_its_48_and_an_ipv4_one_in_none() {
        assert_eq!(
            Origin::block_of("2001:db8:1:2::/64").as_deref(),
            Some("2001:db8:1::/48")
        );
        assert_eq!(
            Origin::block_of("2001:db8:1:ffff::/64"),
            Origin::block_of("2001:db8:1:2::/64")
        );
        assert_ne!(
            Origin::block_of("2001:db8:2:2::/64"),
            Origin::block_of("2001:db8:1:2::/64")
        );
        assert_eq!(Origin::block_of("203.0.113.7"), None);
        assert_eq!(Origin::block_of("?garbage/64"), None);
    }
}
