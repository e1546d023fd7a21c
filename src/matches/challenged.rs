//! Who is challenged to a match: the reads the match aggregate needs of
//! the lobby's challenges (a held seat shows in the view and lets the
//! challenged player see the match). Challenges are written by
//! `lobby::challenge`.

use crate::error::Error;
use crate::players::Player;
use crate::schema::{challenges, users};
use chrono::{DateTime, Utc};
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
