//! `GET /v1/me/summary` (docs/decisions/notifications.md): the counts an
//! app shows on its badge, each asked of the owner of what it counts. It
//! sits above the lobby and the tournaments, whose invitations it counts.

use crate::error::Error;
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
    /// Of `awaiting_me`, those where another player at the table is a
    /// person: a match against computers only waits on nobody but me
    /// (issue #49 item 7).
    pub awaiting_me_people: i64,
    /// Invitations to tournaments still open, not answered yet.
    pub tournament_invitations: i64,
    /// What an app's badge shows: moves owed to people, challenges,
    /// friend requests and tournament invitations.
    pub badge: i64,
    /// Messages at my tables not read yet, muted tables left out (issue
    /// #50): shown on the talk, not in `badge`, which counts what waits
    /// for an answer.
    pub unread_messages: i64,
}

pub fn summary(conn: &mut PgConnection, me: Uuid) -> Result<Summary, Error> {
    let awaiting_me = crate::matches::reads::awaiting_count(conn, me)?;
    let challenges = crate::matches::challenged::waiting_for(conn, me)?;
    let friend_requests = crate::friends::requests_to(conn, me)?;
    let awaiting_me_people = crate::matches::reads::awaiting_people_count(conn, me)?;
    let tournament_invitations = crate::tournaments::entry::invitations_waiting_for(conn, me)?;
    Ok(Summary {
        awaiting_me,
        challenges,
        friend_requests,
        awaiting_me_people,
        tournament_invitations,
        badge: awaiting_me_people + challenges + friend_requests + tournament_invitations,
        unread_messages: crate::talk::messages::unread_total(conn, me)?,
    })
}
