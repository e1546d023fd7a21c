//! Friends and blocks (docs/decisions/friends-and-blocks.md).
//!
//! A friend request waits until the other accepts (or declines); two people
//! who ask each other are friends at once. A block ends any friendship or
//! request between the two and holds on every path where one could reach
//! the other: a friend request, naming them as an opponent, taking a seat
//! at their table by invitation. Requests are rate-limited per sender.

use crate::error::Error;
use crate::limits::Limit;
use crate::personal::{Exported, Leaving, Owner};
use crate::players::{self, Player};
use crate::schema::{blocks, friend_settings, friendships};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Friend requests one person may send in a day.

#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Named {
    #[schema(schema_with = crate::enforced::username)]
    pub username: String,
}

/// Where a friend request stands after it is sent.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RequestState {
    /// `pending`, or `friends` when they had asked me first.
    pub status: String,
    pub user: Player,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Friend {
    pub user: Player,
    pub since: DateTime<Utc>,
    /// Our active matches where it is my turn.
    pub awaiting_me: Vec<Uuid>,
    /// Our active matches where it is theirs.
    pub awaiting_them: Vec<Uuid>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PendingRequest {
    pub user: Player,
    pub sent_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Friends {
    pub friends: Vec<Friend>,
    /// Requests to me, to accept or decline.
    pub incoming: Vec<PendingRequest>,
    /// My requests not answered yet.
    pub outgoing: Vec<PendingRequest>,
}

/// Whether either of `a` and `b` has blocked the other.
pub fn blocked_between(conn: &mut PgConnection, a: Uuid, b: Uuid) -> Result<bool, Error> {
    let found: i64 = blocks::table
        .filter(
            (blocks::blocker.eq(a).and(blocks::blocked.eq(b)))
                .or(blocks::blocker.eq(b).and(blocks::blocked.eq(a))),
        )
        .count()
        .get_result(conn)?;
    Ok(found > 0)
}

/// Refuse when `a` and `b` block each other (either way).
pub fn ensure_not_blocked(
    conn: &mut PgConnection,
    a: Uuid,
    b: Uuid,
    name: &str,
) -> Result<(), Error> {
    if blocked_between(conn, a, b)? {
        return Err(Error::Blocked(format!(
            "you and {name} cannot play or befriend each other: one has blocked the other"
        )));
    }
    Ok(())
}

/// Refuse to seat `user` beside any of `others` while a block stands
/// between them, either way (docs/abuse.md, "Blocks"). The answer names
/// nobody: which player blocked whom is theirs to know.
pub fn ensure_apart(conn: &mut PgConnection, user: Uuid, others: &[Uuid]) -> Result<(), Error> {
    let others: Vec<Uuid> = others.iter().copied().filter(|o| *o != user).collect();
    if others.is_empty() {
        return Ok(());
    }
    let found: i64 = blocks::table
        .filter(
            (blocks::blocker
                .eq(user)
                .and(blocks::blocked.eq_any(&others)))
            .or(blocks::blocked
                .eq(user)
                .and(blocks::blocker.eq_any(&others))),
        )
        .count()
        .get_result(conn)?;
    if found > 0 {
        return Err(Error::Blocked(
            "a block stands between you and someone at this table".into(),
        ));
    }
    Ok(())
}

/// Whether `a` and `b` are friends (a request accepted), read without a
/// lock.
pub fn are_friends(conn: &mut PgConnection, a: Uuid, b: Uuid) -> Result<bool, Error> {
    let pair = (friendships::requester
        .eq(a)
        .and(friendships::addressee.eq(b)))
    .or(friendships::requester
        .eq(b)
        .and(friendships::addressee.eq(a)));
    let accepted = friendships::table
        .filter(pair)
        .filter(friendships::accepted)
        .select(friendships::requester);
    Ok(diesel::select(diesel::dsl::exists(accepted)).get_result(conn)?)
}

/// The row between two people, whoever asked: (requester, accepted).
fn between(conn: &mut PgConnection, a: Uuid, b: Uuid) -> Result<Option<(Uuid, bool)>, Error> {
    Ok(friendships::table
        .filter(
            (friendships::requester
                .eq(a)
                .and(friendships::addressee.eq(b)))
            .or(friendships::requester
                .eq(b)
                .and(friendships::addressee.eq(a))),
        )
        .select((friendships::requester, friendships::accepted))
        .for_update()
        .first(conn)
        .optional()?)
}

pub fn request(
    conn: &mut PgConnection,
    me: Uuid,
    name: &str,
    now: DateTime<Utc>,
) -> Result<RequestState, Error> {
    let them = players::named(conn, name)?;
    if them.id == me {
        return Err(Error::unacceptable("you cannot befriend yourself"));
    }
    ensure_not_blocked(conn, me, them.id, &them.username)?;
    // Sends are counted, not pending requests: withdrawing and sending
    // again spends the allowance too
    // (docs/decisions/friends-and-blocks.md). A refused request below rolls
    // its count back with the transaction.
    crate::limits::take(conn, Limit::FriendRequest, &me.to_string(), now)?;
    let pair = format!("{me}>{}", them.id);
    crate::limits::take(conn, Limit::FriendRequestPair, &pair, now)?;
    let status = match between(conn, me, them.id)? {
        Some((_, true)) => {
            return Err(Error::AlreadyFriends(format!(
                "you and {} are friends already",
                them.username
            )))
        }
        Some((requester, false)) if requester == me => {
            return Err(Error::conflict(format!(
                "you have asked {} already",
                them.username
            )))
        }
        // They asked first: asking back is accepting.
        Some(_) => {
            accept_row(conn, them.id, me, now)?;
            "friends"
        }
        None => {
            diesel::insert_into(friendships::table)
                .values((
                    friendships::requester.eq(me),
                    friendships::addressee.eq(them.id),
                    friendships::created_at.eq(now),
                ))
                .execute(conn)?;
            "pending"
        }
    };
    Ok(RequestState {
        status: status.into(),
        user: them,
    })
}

fn accept_row(
    conn: &mut PgConnection,
    requester: Uuid,
    addressee: Uuid,
    now: DateTime<Utc>,
) -> Result<usize, Error> {
    Ok(
        diesel::update(friendships::table.find((requester, addressee)))
            .filter(friendships::accepted.eq(false))
            .set((
                friendships::accepted.eq(true),
                friendships::accepted_at.eq(now),
            ))
            .execute(conn)?,
    )
}

/// Accept (or decline) the request `name` sent me.
pub fn answer(
    conn: &mut PgConnection,
    me: Uuid,
    name: &str,
    accept: bool,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let them = players::named(conn, name)?;
    let changed = if accept {
        accept_row(conn, them.id, me, now)?
    } else {
        diesel::delete(friendships::table.find((them.id, me)))
            .filter(friendships::accepted.eq(false))
            .execute(conn)?
    };
    if changed == 0 {
        return Err(Error::not_found("friend request"));
    }
    Ok(())
}

/// End a friendship, or withdraw a request, with `name`.
pub fn remove(conn: &mut PgConnection, me: Uuid, name: &str) -> Result<(), Error> {
    let them = players::named(conn, name)?;
    let removed = delete_between(conn, me, them.id)?;
    if removed == 0 {
        return Err(Error::not_found("friend"));
    }
    Ok(())
}

fn delete_between(conn: &mut PgConnection, a: Uuid, b: Uuid) -> Result<usize, Error> {
    Ok(diesel::delete(
        friendships::table.filter(
            (friendships::requester
                .eq(a)
                .and(friendships::addressee.eq(b)))
            .or(friendships::requester
                .eq(b)
                .and(friendships::addressee.eq(a))),
        ),
    )
    .execute(conn)?)
}

/// An active match I share with someone: its id, who owes an action,
/// and the other player (read by `matches::reads::shared_active`: the
/// match tables are the matches module's).
#[derive(Clone, Debug)]
pub struct SharedMatch {
    pub id: Uuid,
    pub other: Uuid,
    pub awaiting: Vec<Uuid>,
}

/// A friendship row: requester, addressee, accepted, sent, accepted at.
type Row = (Uuid, Uuid, bool, DateTime<Utc>, Option<DateTime<Utc>>);

/// My friends (with the matches in `shared` each of us owes an action
/// in), and the requests both ways.
pub fn list(conn: &mut PgConnection, me: Uuid, shared: &[SharedMatch]) -> Result<Friends, Error> {
    let rows: Vec<Row> = friendships::table
        .filter(
            friendships::requester
                .eq(me)
                .or(friendships::addressee.eq(me)),
        )
        .select((
            friendships::requester,
            friendships::addressee,
            friendships::accepted,
            friendships::created_at,
            friendships::accepted_at,
        ))
        .order(friendships::created_at.desc())
        .load(conn)?;
    let other = |r: Uuid, a: Uuid| if r == me { a } else { r };
    let mut players = players::load(conn, rows.iter().map(|r| other(r.0, r.1)).collect())?;
    let mut out = Friends {
        friends: Vec::new(),
        incoming: Vec::new(),
        outgoing: Vec::new(),
    };
    for (requester, addressee, accepted, created_at, accepted_at) in rows {
        let Some(user) = players.remove(&other(requester, addressee)) else {
            continue;
        };
        if accepted {
            let ours = shared.iter().filter(|m| m.other == user.id);
            let awaiting = |who: Uuid| {
                ours.clone()
                    .filter(|m| m.awaiting.contains(&who))
                    .map(|m| m.id)
                    .collect()
            };
            out.friends.push(Friend {
                since: accepted_at.unwrap_or(created_at),
                awaiting_me: awaiting(me),
                awaiting_them: awaiting(user.id),
                user,
            });
        } else if requester == me {
            out.outgoing.push(PendingRequest {
                user,
                sent_at: created_at,
            });
        } else {
            out.incoming.push(PendingRequest {
                user,
                sent_at: created_at,
            });
        }
    }
    out.friends
        .sort_by(|a, b| a.user.username.cmp(&b.user.username));
    Ok(out)
}

/// Block `name`: any friendship or request between us ends.
pub fn block(
    conn: &mut PgConnection,
    me: Uuid,
    name: &str,
    now: DateTime<Utc>,
) -> Result<Player, Error> {
    let them = players::named(conn, name)?;
    if them.id == me {
        return Err(Error::unacceptable("you cannot block yourself"));
    }
    diesel::insert_into(blocks::table)
        .values((
            blocks::blocker.eq(me),
            blocks::blocked.eq(them.id),
            blocks::created_at.eq(now),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    delete_between(conn, me, them.id)?;
    Ok(them)
}

pub fn unblock(conn: &mut PgConnection, me: Uuid, name: &str) -> Result<(), Error> {
    let them = players::named(conn, name)?;
    let removed = diesel::delete(blocks::table.find((me, them.id))).execute(conn)?;
    if removed == 0 {
        return Err(Error::not_found("block"));
    }
    Ok(())
}

/// The people I block.
pub fn blocked(conn: &mut PgConnection, me: Uuid) -> Result<Vec<Player>, Error> {
    let ids: Vec<Uuid> = blocks::table
        .filter(blocks::blocker.eq(me))
        .select(blocks::blocked)
        .load(conn)?;
    let mut players: Vec<Player> = players::load(conn, ids)?.into_values().collect();
    players.sort_by(|a, b| a.username.cmp(&b.username));
    Ok(players)
}

/// A player's challenge settings (issue #20).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChallengeSettings {
    /// Friends' challenges start at once, without an answer (default off).
    pub auto_accept_friends: bool,
}

pub fn challenge_settings(conn: &mut PgConnection, me: Uuid) -> Result<ChallengeSettings, Error> {
    // No row: the default, off.
    let auto_accept_friends = friend_settings::table
        .find(me)
        .select(friend_settings::auto_accept)
        .first(conn)
        .optional()?
        .unwrap_or(false);
    Ok(ChallengeSettings {
        auto_accept_friends,
    })
}

pub fn set_challenge_settings(
    conn: &mut PgConnection,
    me: Uuid,
    settings: ChallengeSettings,
) -> Result<ChallengeSettings, Error> {
    let on = friend_settings::auto_accept.eq(settings.auto_accept_friends);
    diesel::insert_into(friend_settings::table)
        .values((friend_settings::user_id.eq(me), on))
        .on_conflict(friend_settings::user_id)
        .do_update()
        .set(on)
        .execute(conn)?;
    Ok(settings)
}

/// Whether `from`'s challenge to `user` starts at once: `user` allows it
/// and the two are friends.
pub fn auto_accepts(conn: &mut PgConnection, user: Uuid, from: Uuid) -> Result<bool, Error> {
    Ok(challenge_settings(conn, user)?.auto_accept_friends
        && between(conn, user, from)?.is_some_and(|(_, accepted)| accepted))
}

/// A player's friendships, blocks and challenge settings go with the
/// account, both ways: the other side's list loses a deleted player.
pub const PERSONAL: Owner = Owner::erasing(
    "friends",
    &["friendships", "blocks", "friend_settings"],
    forget,
    Exported::In(&["friends", "blocks", "settings/challenges"]),
);

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    let user = leaving.user;
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
    diesel::delete(friend_settings::table.find(user)).execute(conn)?;
    Ok(())
}

/// The ids of `me`'s friends (accepted, either way).
pub fn friends_of(conn: &mut PgConnection, me: Uuid) -> Result<Vec<Uuid>, Error> {
    let mut ids: Vec<Uuid> = friendships::table
        .filter(friendships::accepted.eq(true))
        .filter(friendships::requester.eq(me))
        .select(friendships::addressee)
        .load(conn)?;
    ids.extend(
        friendships::table
            .filter(friendships::accepted.eq(true))
            .filter(friendships::addressee.eq(me))
            .select(friendships::requester)
            .load::<Uuid>(conn)?,
    );
    Ok(ids)
}

/// How many friend requests wait for `me`'s answer.
pub fn requests_to(conn: &mut PgConnection, me: Uuid) -> Result<i64, Error> {
    Ok(friendships::table
        .filter(friendships::addressee.eq(me))
        .filter(friendships::accepted.eq(false))
        .count()
        .get_result(conn)?)
}
