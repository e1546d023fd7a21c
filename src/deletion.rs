//! Deleting an account (docs/decisions/accounts-and-sessions.md; what it
//! erases and keeps is docs/decisions/accounts-and-sessions.md "Deleting an
//! account", and the public page `/account-deletion`).
//!
//! One transaction, in the order the account's other parts depend on it:
//! its tournaments are left and its matches resigned first (the results
//! count for opponents, as any resignation does); then it leaves the
//! leaderboards, its personal data is erased, and every session ends. The
//! row itself stays, renamed `deleted-…`, because finished matches and
//! opponents' rating changes point at it: they read as a deleted player.

use crate::accounts;
use crate::error::Error;
use crate::matches::MatchStatus;
use crate::notify::DeliveryStatus;
use crate::schema::{
    app_devices, blocks, challenges, conditional_lines, engine_time, friendships,
    idempotent_answers, identities, notification_settings, notifications, password_resets,
    push_subscriptions, rating_changes, ratings, refresh_tokens, rematch_offers, seeks,
    tournament_players, tournaments, users,
};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::Random;
use serde_json::json;
use std::collections::BTreeMap;
use uuid::Uuid;

/// How long a deleted account's username stays held, so that nobody can
/// take it to pass for the player its opponents knew (issue #47).
pub const NAME_HELD_DAYS: i64 = 365;

/// What a deleted player is shown as, in every language's absence (the
/// apps and the web client write their own words from `deleted: true`).
pub const SHOWN_AS: &str = "Deleted player";

/// Delete `user`'s account. Returns the sessions ended, whose access
/// tokens the caller stops (`revoked.rs`).
pub fn delete_account(
    conn: &mut PgConnection,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<Vec<Uuid>, Error> {
    let guest: bool = users::table
        .find(user)
        .filter(users::deleted_at.is_null())
        .select(users::guest)
        .for_update()
        .first(conn)
        .optional()?
        .ok_or_else(|| Error::unauthorized("this account no longer exists"))?;
    leave_play(conn, user, now, random)?;
    leave_boards(conn, user)?;
    erase(conn, user, guest, now)?;
    crate::matches::roster_changed(conn, user)?;
    accounts::end_sessions(conn, user, None, now)
}

/// Tournaments left, waiting matches cancelled or declined, seeks gone,
/// matches in play resigned: a deleted account's, and a suspended one's
/// (`moderation::acts::suspend`).
pub fn leave_play(
    conn: &mut PgConnection,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn Random,
) -> Result<(), Error> {
    let entered: Vec<Uuid> = tournament_players::table
        .inner_join(tournaments::table)
        .filter(tournament_players::user_id.eq(user))
        .filter(tournaments::status.ne(crate::tournaments::FINISHED))
        .order(tournaments::id)
        .select(tournaments::id)
        .load(conn)?;
    for id in entered {
        crate::tournaments::entry::leave(conn, id, user, now, random)?;
    }
    diesel::delete(seeks::table.filter(seeks::user_id.eq(user))).execute(conn)?;
    let challenged: Vec<Uuid> = challenges::table
        .filter(challenges::user_id.eq(user))
        .select(challenges::match_id)
        .load(conn)?;
    for id in challenged {
        crate::lobby::challenge::decline(conn, id, user, now, random)?;
    }
    // Locked in id order, as a tournament withdrawal locks them.
    let open = crate::matches::reads::lock_open_of(conn, user)?;
    for (id, status, seq) in open {
        if status == MatchStatus::Waiting {
            crate::lobby::challenge::abandon(conn, id, user, now)?;
            continue;
        }
        // Each seat of mine still playing resigns (one already out of a
        // four-player match has nothing to resign).
        let Some(table) = crate::matches::Table::load(conn, id, true)? else {
            continue;
        };
        let playing: Vec<u8> = (table.seats_of(user).into_iter())
            .filter(|s| {
                table
                    .state
                    .legal_actions(*s)
                    .iter()
                    .any(|a| a["type"] == "resign")
            })
            .map(|s| s.0)
            .collect();
        let mut seq = seq;
        for seat in playing {
            let resign = crate::matches::play::ActionRequest {
                seq,
                seat: Some(seat),
                action: json!({"type": "resign"}),
            };
            let acted = crate::matches::play::act(conn, id, user, resign, None, now, random)?;
            seq = acted.answer.match_view.seq;
        }
    }
    Ok(())
}

/// Off every leaderboard; the account's own ratings and their history go.
/// Opponents' rating changes are theirs and stay.
fn leave_boards(conn: &mut PgConnection, user: Uuid) -> Result<(), Error> {
    let rated: Vec<(String, Option<i32>)> =
        diesel::delete(ratings::table.filter(ratings::user_id.eq(user)))
            .returning((ratings::perf, ratings::board_rating))
            .get_results(conn)?;
    for (perf, board) in rated {
        if let Some(rating) = board {
            let gone = BTreeMap::from([(rating, -1)]);
            crate::ratings::update::shift_counts(conn, &perf, &gone)?;
        }
    }
    diesel::delete(rating_changes::table.filter(rating_changes::user_id.eq(user))).execute(conn)?;
    Ok(())
}

/// Every personal field and row: the row keeps only what finished
/// matches need to point at, under a name that says nothing. A registered
/// player's username stays held (its look-alike skeletons kept) for
/// [`NAME_HELD_DAYS`]; a guest's nickname was never held.
fn erase(
    conn: &mut PgConnection,
    user: Uuid,
    guest: bool,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let tombstone = format!("deleted-{}", &user.simple().to_string()[..16]);
    let held = (!guest).then(|| now + Duration::days(NAME_HELD_DAYS));
    diesel::update(users::table.find(user))
        .set((
            users::username.eq(&tombstone),
            users::display_name.eq(SHOWN_AS),
            users::email.eq(None::<String>),
            users::email_pending.eq(None::<String>),
            users::password_hash.eq(None::<String>),
            users::locale.eq("en"),
            users::time_zone.eq("UTC"),
            users::auto_accept_friends.eq(false),
            users::auto_vacation.eq(false),
            users::vacation_since.eq(None::<DateTime<Utc>>),
            users::vacation_until.eq(None::<DateTime<Utc>>),
            users::vacation_paying_since.eq(None::<DateTime<Utc>>),
            users::address.eq(None::<String>),
            users::display_skeleton.eq(None::<String>),
            users::display_skeleton_cased.eq(None::<String>),
            users::deleted_at.eq(now),
            users::name_held_until.eq(held),
            users::moderator.eq(false),
        ))
        .execute(conn)?;
    if guest {
        release_name(conn, user, &tombstone)?;
    }
    diesel::delete(push_subscriptions::table.filter(push_subscriptions::user_id.eq(user)))
        .execute(conn)?;
    diesel::delete(app_devices::table.filter(app_devices::user_id.eq(user))).execute(conn)?;
    diesel::delete(identities::table.filter(identities::user_id.eq(user))).execute(conn)?;
    diesel::delete(notification_settings::table.filter(notification_settings::user_id.eq(user)))
        .execute(conn)?;
    diesel::delete(
        friendships::table.filter(
            friendships::requester
                .eq(user)
                .or(friendships::addressee.eq(user)),
        ),
    )
    .execute(conn)?;
    diesel::delete(blocks::table.filter(blocks::blocker.eq(user).or(blocks::blocked.eq(user))))
        .execute(conn)?;
    diesel::delete(conditional_lines::table.filter(conditional_lines::user_id.eq(user)))
        .execute(conn)?;
    crate::talk::forget(conn, user)?;
    crate::email_undos::forget(conn, user)?;
    crate::notify::at_table::forget(conn, user)?;
    diesel::delete(rematch_offers::table.filter(rematch_offers::user_id.eq(user))).execute(conn)?;
    diesel::delete(idempotent_answers::table.filter(idempotent_answers::user_id.eq(user)))
        .execute(conn)?;
    diesel::delete(password_resets::table.filter(password_resets::user_id.eq(user)))
        .execute(conn)?;
    diesel::delete(engine_time::table.filter(engine_time::owner.eq(user))).execute(conn)?;
    // Nothing queued is lost without a record: what was still to be sent
    // is recorded as failed; every notice's payload (an address, a
    // match's words), sent or not, is erased.
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
        .set(notifications::payload.eq(json!({})))
        .execute(conn)?;
    // The sessions were ended by the caller; what device each was is
    // personal too.
    diesel::update(refresh_tokens::table.filter(refresh_tokens::user_id.eq(user)))
        .set(refresh_tokens::device.eq(""))
        .execute(conn)?;
    Ok(())
}

/// The name's look-alike skeletons become the tombstone's: the name is
/// free for anyone.
fn release_name(conn: &mut PgConnection, user: Uuid, tombstone: &str) -> Result<(), Error> {
    diesel::update(users::table.find(user))
        .set((
            users::skeleton.eq(crate::names::skeleton(tombstone)),
            users::skeleton_cased.eq(crate::names::skeleton_cased(tombstone)),
            users::name_held_until.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)?;
    Ok(())
}

/// Free the usernames held past [`NAME_HELD_DAYS`] (the daily sweep);
/// how many.
pub fn release_held_names(conn: &mut PgConnection, now: DateTime<Utc>) -> Result<usize, Error> {
    let due: Vec<(Uuid, String)> = users::table
        .filter(users::name_held_until.le(now))
        .select((users::id, users::username))
        .limit(1_000)
        .load(conn)?;
    for (user, tombstone) in &due {
        release_name(conn, *user, tombstone)?;
    }
    Ok(due.len())
}
