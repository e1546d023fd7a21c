//! What a use case can fail with, in its own words
//! (docs/decisions/api-and-schemas.md). The HTTP layer turns it into a
//! problem document (`http::error`); the sweep, the outbox worker and
//! start-up log it with their context. Nothing here logs: an error is
//! reported once, where it is handled.

use posthorn_rules::RuleError;
use std::fmt;

#[derive(Debug)]
pub enum Error {
    /// The input is not acceptable; the text says why.
    Validation(String),
    /// The input has the form the API document states but is refused for
    /// what it means (a look-alike name, an option of another game): 422,
    /// where `Validation` is 400 (docs/api.md, "Errors").
    Unacceptable(String),
    /// No valid credentials.
    Unauthorized(String),
    Forbidden(String),
    /// The named thing does not exist (or is not the caller's to see).
    NotFound(&'static str),
    Conflict(String),
    /// The client's seq is behind the match's, which is carried.
    StaleSeq(i32),
    /// The rules refused an action.
    Rule(RuleError),
    /// An invitation used, expired, or for a match that is over.
    InviteExpired(String),
    RateLimited(String),
    /// One of two people has blocked the other
    /// (docs/decisions/friends-and-blocks.md).
    Blocked(String),
    AlreadyFriends(String),
    /// One's own seek cannot be accepted
    /// (docs/decisions/challenges-and-lobby.md, "Seeks: a random
    /// opponent").
    OwnSeek(String),
    /// A look costs more coins than the balance holds (issue #70).
    NotEnoughCoins(String),
    /// A match's opening a player may not choose: one fixing hidden
    /// information, or a custom one asked to be rated (docs/abuse.md,
    /// "Openings a player may not choose").
    UnfairStart(String),
    /// A tournament has all the players it takes (docs/tournaments.md).
    TournamentFull(String),
    /// A tournament has started or finished: too late for that.
    TournamentStarted(String),
    /// Not invited to that tournament, and no valid invitation code.
    NotInvited(String),
    /// A password reset link used already, over its hour, or never sent
    /// (docs/abuse.md, "Forgotten passwords"): ask for a new one.
    ResetLinkExpired(String),
    /// A Google or Apple identity no account has
    /// (docs/decisions/accounts-and-sessions.md, "Google and Apple"): the
    /// app asks for a username and creates one.
    IdentityUnknown(String),
    /// A Google or Apple identity that signs in to another account
    /// already: it cannot be linked or registered with here.
    IdentityTaken(String),
    /// The account is suspended by a moderator
    /// (docs/decisions/table-talk.md, "Reports and moderators"): no
    /// sign-in.
    Suspended(String),
    /// A native app's platform (APNs, FCM) this service is not set up to
    /// push to (docs/decisions/native-push.md): its devices cannot be
    /// registered.
    PlatformUnavailable(String),
    /// An `Idempotency-Key` already used for a different request.
    IdempotencyKeyReused,
    /// `cause`, for the request's `field` and by its `rule` (docs/api.md,
    /// "Errors"): the problem document names both, so that a client says
    /// which box is wrong, and why, in its player's language.
    InField {
        field: &'static str,
        rule: Rule,
        cause: Box<Error>,
    },
    /// Try again soon: no database connection came free.
    Unavailable(String),
    /// A passing database failure ([`is_transient`]); the cause is for
    /// the log, the client is told to retry.
    Transient(String),
    /// A defect or a broken dependency; the cause is for the log only.
    Internal(String),
}

impl Error {
    pub fn validation(detail: impl Into<String>) -> Self {
        Error::Validation(detail.into())
    }
    /// A well-formed value refused for its meaning (422).
    pub fn unacceptable(detail: impl Into<String>) -> Self {
        Error::Unacceptable(detail.into())
    }
    /// What the rules refuse in a value the document leaves free (an
    /// action of a game it does not name, a game's options in a field
    /// that lists every game's): the request has the documented form, so
    /// it is refused for its meaning, 422
    /// (docs/decisions/api-and-schemas.md, "400 for form, 422 for
    /// meaning").
    pub fn for_its_meaning(self) -> Self {
        match self {
            Error::Rule(rule) => Error::unacceptable(rule.to_string()),
            Error::Validation(detail) => Error::unacceptable(detail),
            other => other,
        }
    }
    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Error::Unauthorized(detail.into())
    }
    pub fn forbidden(detail: impl Into<String>) -> Self {
        Error::Forbidden(detail.into())
    }
    pub fn not_found(what: &'static str) -> Self {
        Error::NotFound(what)
    }
    pub fn conflict(detail: impl Into<String>) -> Self {
        Error::Conflict(detail.into())
    }
    pub fn stale_seq(current: i32) -> Self {
        Error::StaleSeq(current)
    }
    pub fn invite_expired(detail: impl Into<String>) -> Self {
        Error::InviteExpired(detail.into())
    }
    pub fn rate_limited(detail: impl Into<String>) -> Self {
        Error::RateLimited(detail.into())
    }
    /// No database connection came free in time.
    pub fn busy() -> Self {
        Error::Unavailable("the service is busy; try again in a moment".into())
    }
    /// Records the cause; whoever handles the error logs it.
    pub fn internal(cause: impl fmt::Display) -> Self {
        Error::Internal(cause.to_string())
    }

    /// This refusal is of the request's `field`, by `rule`. A failure of
    /// the service's own (a database lost, a defect) stays as it is: it
    /// is no refusal of anything the player typed.
    pub fn in_field(self, field: &'static str, rule: Rule) -> Self {
        if matches!(
            self,
            Error::Transient(_) | Error::Internal(_) | Error::Unavailable(_)
        ) {
            return self;
        }
        Error::InField {
            field,
            rule,
            cause: Box::new(self),
        }
    }

    /// Say where an internal failure happened (`match 3f…`), for the log.
    pub fn context(self, what: impl fmt::Display) -> Self {
        match self {
            Error::Internal(cause) => Error::Internal(format!("{what}: {cause}")),
            other => other,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Validation(s)
            | Error::Unacceptable(s)
            | Error::Unauthorized(s)
            | Error::Forbidden(s)
            | Error::Conflict(s)
            | Error::InviteExpired(s)
            | Error::RateLimited(s)
            | Error::Blocked(s)
            | Error::AlreadyFriends(s)
            | Error::OwnSeek(s)
            | Error::NotEnoughCoins(s)
            | Error::UnfairStart(s)
            | Error::TournamentFull(s)
            | Error::TournamentStarted(s)
            | Error::NotInvited(s)
            | Error::ResetLinkExpired(s)
            | Error::IdentityUnknown(s)
            | Error::IdentityTaken(s)
            | Error::Suspended(s)
            | Error::PlatformUnavailable(s)
            | Error::Unavailable(s) => f.write_str(s),
            Error::NotFound(what) => write!(f, "no such {what}"),
            Error::StaleSeq(seq) => write!(f, "stale seq; the match is at {seq}"),
            Error::IdempotencyKeyReused => f.write_str("Idempotency-Key reused"),
            Error::Rule(e) => write!(f, "{e}"),
            Error::Internal(cause) => write!(f, "internal: {cause}"),
            Error::Transient(cause) => write!(f, "database unavailable: {cause}"),
            Error::InField { field, cause, .. } => write!(f, "{field}: {cause}"),
        }
    }
}

impl std::error::Error for Error {}

/// Why a field's value is refused: one closed list, named in problem
/// documents as `rule` (docs/api.md, "Errors").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Its length or characters: the form states the rule.
    Form,
    /// Kept for guests, deleted accounts or computers.
    Reserved,
    /// Another account holds it.
    Taken,
    /// It looks like a registered player's name.
    LookAlike,
    /// It is not what is stored (the current password).
    Wrong,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Form => "form",
            Rule::Reserved => "reserved",
            Rule::Taken => "taken",
            Rule::LookAlike => "look_alike",
            Rule::Wrong => "wrong",
        }
    }
}

impl From<RuleError> for Error {
    fn from(e: RuleError) -> Self {
        Error::Rule(e)
    }
}

impl From<diesel::result::Error> for Error {
    fn from(e: diesel::result::Error) -> Self {
        match e {
            diesel::result::Error::NotFound => Error::NotFound("resource"),
            passing if is_transient(&passing) => Error::Transient(passing.to_string()),
            other => Error::Internal(format!("database: {other}")),
        }
    }
}

impl From<diesel::r2d2::PoolError> for Error {
    fn from(_: diesel::r2d2::PoolError) -> Self {
        Error::busy()
    }
}

/// A database error that passes by itself (docs/decisions/hardening.md,
/// "The database going away"): the connection was lost or the server is
/// restarting or shutting down, or PostgreSQL gave up a transaction
/// (serialization failure, deadlock). Answered 503 with `Retry-After`,
/// never 500.
pub fn is_transient(e: &diesel::result::Error) -> bool {
    use diesel::result::{DatabaseErrorKind as Kind, Error as E};
    match e {
        E::DatabaseError(Kind::ClosedConnection | Kind::UnableToSendCommand, _)
        | E::DatabaseError(Kind::SerializationFailure, _)
        // A connection that landed on a standby (a failover under way, or
        // a URL without `target_session_attrs=read-write`): the failover
        // drill saw 500s here (docs/failover.md). Passing: a new connection
        // finds the writable server.
        | E::DatabaseError(Kind::ReadOnlyTransaction, _)
        | E::BrokenTransactionManager => true,
        E::DatabaseError(_, info) => {
            const PASSING: [&str; 7] = [
                "deadlock detected",
                "terminating connection",
                "the database system is",
                "server closed the connection",
                "connection to server",
                "could not connect",
                "no connection to the server",
            ];
            let message = info.message();
            PASSING.iter().any(|p| message.contains(p))
        }
        _ => false,
    }
}
