//! Who can hold a seat: a registered player or a guest (next: a computer
//! opponent), as others see them, and how to find them. The floor under
//! matches, the lobby, friends, ratings and accounts: it imports nothing
//! of theirs (docs/architecture.md).

use crate::error::Error;
use crate::schema::users;
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use utoipa::ToSchema;
use uuid::Uuid;

/// A player as others see them.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, Queryable, Selectable)]
#[diesel(table_name = users)]
pub struct Player {
    pub id: Uuid,
    pub username: String,
    pub display_name: String,
    pub guest: bool,
    /// The level (`easy`, `normal`, `hard`) when this player is a
    /// computer opponent (`GET /v1/bots`); absent for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<String>,
    /// A deleted account (issue #47): shown as "deleted player", never
    /// linked; its name and every personal field are gone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[diesel(select_expression = users::deleted_at.is_not_null())]
    #[diesel(select_expression_type = diesel::dsl::IsNotNull<users::deleted_at>)]
    pub deleted: bool,
}

/// The players among `ids` (those that exist), by id.
pub fn load(conn: &mut PgConnection, ids: Vec<Uuid>) -> Result<HashMap<Uuid, Player>, Error> {
    let found: Vec<Player> = users::table
        .filter(users::id.eq_any(ids))
        .select(Player::as_select())
        .load(conn)?;
    Ok(found.into_iter().map(|p| (p.id, p)).collect())
}

/// The registered player named `name` (any case); never a computer
/// opponent, whom nobody challenges, befriends or blocks by name.
pub fn named(conn: &mut PgConnection, name: &str) -> Result<Player, Error> {
    users::table
        .filter(users::computer.is_null())
        .filter(users::deleted_at.is_null())
        .filter(
            diesel::dsl::sql::<diesel::sql_types::Text>("lower(username)").eq(name.to_lowercase()),
        )
        .select(Player::as_select())
        .first(conn)
        .optional()?
        .ok_or(Error::not_found("player"))
}
