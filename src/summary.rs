//! `GET /v1/me/summary` (docs/decisions/notifications.md): the counts an
//! app shows on its badge.

use crate::error::Error;
use crate::schema::{challenges, friendships};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Summary {
    /// Active matches where I owe an action.
    pub awaiting_me: i64,
    /// Challenges to me not answered yet.
    pub challenges: i64,
    /// Friend requests to me not answered yet.
    pub friend_requests: i64,
}

pub fn summary(conn: &mut PgConnection, me: Uuid) -> Result<Summary, Error> {
    let awaiting_me = crate::matches::reads::awaiting_count(conn, me)?;
    let challenges = challenges::table
        .filter(challenges::user_id.eq(me))
        .count()
        .get_result(conn)?;
    let friend_requests = friendships::table
        .filter(
            friendships::addressee
                .eq(me)
                .and(friendships::accepted.eq(false)),
        )
        .count()
        .get_result(conn)?;
    Ok(Summary {
        awaiting_me,
        challenges,
        friend_requests,
    })
}
