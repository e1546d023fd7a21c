//! Challenges (docs/decisions/challenges-and-lobby.md): a player named as
//! an opponent is challenged, not seated. Their seat stays empty, held by a
//! challenge, until they accept; the match starts when every seat is taken.
//! A decline cancels the match for everyone, as does a challenge unanswered
//! for [`CHALLENGE_DAYS`]; the creator may withdraw while it waits.
//!
//! Nobody is ever in an active match, its deadlines running against them,
//! that they did not accept — rated or not.

use crate::error::Error;
use crate::matches::{challenged, reads, MatchStatus, NewEvent, ServiceEvent, Table};
use crate::notify::outbox::Enqueue;
use crate::schema::invites;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::Random;
use uuid::Uuid;

/// How long a challenge waits for its answer.
pub const CHALLENGE_DAYS: i64 = 7;

/// Hold `seat` of a new match for `user`.
pub fn create(
    conn: &mut PgConnection,
    match_id: Uuid,
    seat: usize,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    challenged::hold(conn, (match_id, seat), user, now, CHALLENGE_DAYS)
}

/// Tournament invitations `from` has waiting for `to`: in their open
/// tournaments, not yet joined nor declined. Read from the tables here,
/// since the lobby sits below the tournaments (`tournaments::OPEN` and
/// `tournaments::INVITED` are these words; tests/service/tournament_limits.rs
/// counts invitations against this rule).
fn invitations_waiting(conn: &mut PgConnection, from: Uuid, to: Uuid) -> Result<i64, Error> {
    use crate::schema::{tournament_players, tournaments};
    Ok(tournament_players::table
        .inner_join(tournaments::table)
        .filter(tournaments::created_by.eq(from))
        .filter(tournaments::status.eq(crate::closed::TournamentStatus::Open))
        .filter(tournament_players::user_id.eq(to))
        .filter(tournament_players::state.eq(crate::closed::EntrantState::Invited))
        .count()
        .get_result(conn)?)
}

/// Unanswered challenges one player may have out to another at once.
pub const PENDING_PER_PAIR: i64 = 5;

/// Count a challenge `from` sends `to` against the limits (docs/abuse.md,
/// "Limits that hold": 40 challenges in a row once sent 40 emails):
/// unaccepted ones per day, and unanswered ones per pair at once, counted
/// under the pair's lock. A tournament invitation is counted here too
/// (docs/abuse.md, "Limits that hold"): it is one more mail asking `to` to
/// play, and waits as a challenge does.
pub fn count_sent(
    conn: &mut PgConnection,
    from: Uuid,
    to: Uuid,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    use crate::limits::{take, Limit};
    take(conn, Limit::Challenge, &from.to_string(), now)?;
    crate::limits::serialize(conn, &format!("challenge-pair:{from}>{to}"))?;
    let pending = challenged::waiting_in(conn, reads::waiting_made_by(from), to)?;
    let pending = pending + invitations_waiting(conn, from, to)?;
    if pending >= PENDING_PER_PAIR {
        return Err(Error::rate_limited(format!(
            "at most {PENDING_PER_PAIR} of your challenges and tournament invitations \
             may wait for the same player"
        )));
    }
    Ok(())
}

/// The seat held for `user`, with the match locked.
fn held_seat(conn: &mut PgConnection, match_id: Uuid, user: Uuid) -> Result<(Table, i16), Error> {
    let table = Table::load(conn, match_id, true)?.ok_or(Error::not_found("challenge"))?;
    match challenged::seat_held_for(conn, match_id, user)? {
        Some(seat) => Ok((table, seat)),
        // One's own match holds no challenge to answer: it exists, so 409
        // rather than a 404 that would say it does not (docs/fuzzing.md).
        None if !table.seats_of(user).is_empty() => Err(Error::conflict(
            "you sit in this match already: there is no challenge to you to answer",
        )),
        None => Err(Error::not_found("challenge")),
    }
}

/// Take the seat held for `user`; the match starts once every seat is.
pub fn accept(
    conn: &mut PgConnection,
    match_id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Table, Error> {
    let (mut table, seat) = held_seat(conn, match_id, user)?;
    challenged::release(conn, match_id, seat)?;
    super::seat::take_seat(conn, &mut table, seat, user, now, random)?;
    // A welcome challenge is not spam: its sender gets the count back.
    let sender = table.row.created_by.to_string();
    crate::limits::refund(conn, crate::limits::Limit::Challenge, &sender, now)?;
    Ok(table)
}

/// A challenged player says no: the match is cancelled for everyone.
pub fn decline(
    conn: &mut PgConnection,
    match_id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
    _: &mut dyn Random,
) -> Result<Table, Error> {
    let (mut table, _) = held_seat(conn, match_id, user)?;
    cancel(conn, &mut table, "declined", Some(user), now)?;
    Ok(table)
}

/// The creator withdraws a match nobody has started.
pub fn withdraw(
    conn: &mut PgConnection,
    match_id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
    _: &mut dyn Random,
) -> Result<Table, Error> {
    let mut table = Table::load_mine(conn, match_id, user, true)?;
    if table.row.created_by != user {
        return Err(Error::forbidden("only the match's creator may withdraw it"));
    }
    if table.row.status != MatchStatus::Waiting {
        return Err(Error::conflict(
            "only a match that has not started can be withdrawn",
        ));
    }
    cancel(conn, &mut table, "withdrawn", Some(user), now)?;
    Ok(table)
}

/// A player seated in a match nobody has started leaves for good (an
/// account deleted: docs/decisions/accounts-and-sessions.md, "Deleting an
/// account"): the match is cancelled, as if its creator had withdrawn it.
pub fn abandon(
    conn: &mut PgConnection,
    match_id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let mut table = Table::load_mine(conn, match_id, user, true)?;
    if table.row.status == MatchStatus::Waiting {
        cancel(conn, &mut table, "withdrawn", Some(user), now)?;
    }
    Ok(())
}

/// Cancel a waiting match: its challenges and invitations go, its log
/// says why, and everyone seated or challenged but `actor` is told.
fn cancel(
    conn: &mut PgConnection,
    table: &mut Table,
    reason: &str,
    actor: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let id = table.row.id;
    let challenged = challenged::release_all(conn, id)?;
    diesel::update(invites::table.filter(invites::match_id.eq(id).and(invites::used_by.is_null())))
        .set(invites::expires_at.eq(now))
        .execute(conn)?;
    table.row.status = MatchStatus::Cancelled;
    let cancelled = NewEvent {
        seat: None,
        rules: false,
        body: ServiceEvent::Cancelled {
            reason: reason.into(),
        }
        .to_body(),
    };
    table.append(conn, vec![cancelled], now)?;
    let told: Vec<Uuid> = (table.seats.iter().flatten())
        .chain(&challenged)
        .filter(|u| Some(**u) != actor)
        .copied()
        .collect();
    let told = crate::notices::cancelled(&told, table, reason);
    Enqueue::new(id, told, now).execute(conn)?;
    Ok(())
}

/// Cancel the matches whose challenges went unanswered (the sweep); how
/// many.
pub fn expire(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    let mut done = 0;
    for id in challenged::expired(conn, reads::waiting(), now)? {
        if let Some(mut table) = Table::load(conn, id, true)? {
            if table.row.status == MatchStatus::Waiting {
                cancel(conn, &mut table, "expired", None, now)?;
                done += 1;
            }
        }
    }
    Ok(done)
}
