//! Seats held for the challenged (docs/decisions/challenges-and-lobby.md):
//! a challenge holds a seat of a waiting match, so it is the match's, and
//! this file is the one place that names the `challenges` table. A held
//! seat shows in the view and lets the challenged player see the match;
//! when a challenge is made, answered or expires is `lobby::challenge`'s
//! decision, written through the use cases here.

use super::Ids;
use crate::error::Error;
use crate::players::Player;
use crate::schema::{challenges, users};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// A seat held for a challenged player, as the match shows it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ChallengeView {
    pub seat: u8,
    pub user: Player,
    pub expires_at: DateTime<Utc>,
}

/// Who is challenged to the match and has not answered.
pub fn challenged_users(conn: &mut PgConnection, match_id: Uuid) -> Result<Vec<Uuid>, Error> {
    Ok(challenges::table
        .filter(challenges::match_id.eq(match_id))
        .select(challenges::user_id)
        .load(conn)?)
}

/// The match's unanswered challenges.
pub fn pending(conn: &mut PgConnection, match_id: Uuid) -> Result<Vec<ChallengeView>, Error> {
    let rows: Vec<(i16, DateTime<Utc>, Player)> = challenges::table
        .inner_join(users::table)
        .filter(challenges::match_id.eq(match_id))
        .order(challenges::seat)
        .select((
            challenges::seat,
            challenges::expires_at,
            Player::as_select(),
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(seat, expires_at, user)| ChallengeView {
            seat: seat as u8,
            user,
            expires_at,
        })
        .collect())
}

/// Whether `user` is challenged to the match.
pub fn is_challenged(conn: &mut PgConnection, match_id: Uuid, user: Uuid) -> Result<bool, Error> {
    let n: i64 = challenges::table
        .filter(
            challenges::match_id
                .eq(match_id)
                .and(challenges::user_id.eq(user)),
        )
        .count()
        .get_result(conn)?;
    Ok(n > 0)
}

/// The ids of the matches `user` is challenged to.
pub fn matches_of(
    user: Uuid,
) -> challenges::BoxedQuery<'static, diesel::pg::Pg, diesel::sql_types::Uuid> {
    challenges::table
        .filter(challenges::user_id.eq(user))
        .select(challenges::match_id)
        .into_boxed()
}

/// Hold `seat` of a new match for `user` until `days` have passed.
pub fn hold(
    conn: &mut PgConnection,
    (match_id, seat): (Uuid, usize),
    user: Uuid,
    now: DateTime<Utc>,
    days: i64,
) -> Result<(), Error> {
    diesel::insert_into(challenges::table)
        .values((
            challenges::match_id.eq(match_id),
            challenges::seat.eq(seat as i16),
            challenges::user_id.eq(user),
            challenges::created_at.eq(now),
            challenges::expires_at.eq(now + Duration::days(days)),
        ))
        .execute(conn)?;
    Ok(())
}

/// The seat of the match held for `user`, if any.
pub fn seat_held_for(
    conn: &mut PgConnection,
    match_id: Uuid,
    user: Uuid,
) -> Result<Option<i16>, Error> {
    Ok(challenges::table
        .filter(
            challenges::match_id
                .eq(match_id)
                .and(challenges::user_id.eq(user)),
        )
        .select(challenges::seat)
        .first(conn)
        .optional()?)
}

/// The held seat is taken or given up.
pub fn release(conn: &mut PgConnection, match_id: Uuid, seat: i16) -> Result<(), Error> {
    diesel::delete(challenges::table.find((match_id, seat))).execute(conn)?;
    Ok(())
}

/// Every held seat of the match goes (it is cancelled); who held them.
pub fn release_all(conn: &mut PgConnection, match_id: Uuid) -> Result<Vec<Uuid>, Error> {
    Ok(
        diesel::delete(challenges::table.filter(challenges::match_id.eq(match_id)))
            .returning(challenges::user_id)
            .get_results(conn)?,
    )
}

/// Unanswered challenges to `to` in the matches `made` (the waiting
/// matches their sender made: `reads::waiting_made_by`).
pub fn waiting_in(conn: &mut PgConnection, made: Ids, to: Uuid) -> Result<i64, Error> {
    Ok(challenges::table
        .filter(challenges::match_id.eq_any(made))
        .filter(challenges::user_id.eq(to))
        .count()
        .get_result(conn)?)
}

/// How many challenges wait for `user`'s answer (the summary's count).
pub fn waiting_for(conn: &mut PgConnection, user: Uuid) -> Result<i64, Error> {
    Ok(challenges::table
        .filter(challenges::user_id.eq(user))
        .count()
        .get_result(conn)?)
}

/// The matches of `waiting` (`reads::waiting`) whose challenges went
/// unanswered until `now`.
pub fn expired(
    conn: &mut PgConnection,
    waiting: Ids,
    now: DateTime<Utc>,
) -> Result<Vec<Uuid>, Error> {
    Ok(challenges::table
        .filter(challenges::expires_at.le(now))
        .filter(challenges::match_id.eq_any(waiting))
        .select(challenges::match_id)
        .distinct()
        .load(conn)?)
}
