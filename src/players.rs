//! Who can hold a seat: a registered player or a guest (next: a computer
//! opponent), as others see them, and how to find them. The floor under
//! matches, the lobby, friends, ratings and accounts: it imports nothing
//! of theirs (docs/architecture.md).

use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::{looks_worn, users};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
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
    /// The emblem the player wears beside their name (issue #70, bought
    /// with coins: `coins::looks`), by name (`star`); absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[diesel(select_expression = emblem())]
    #[diesel(select_expression_type = Emblem)]
    pub emblem: Option<String>,
}

type Emblem =
    diesel::dsl::AsExprOf<Option<String>, diesel::sql_types::Nullable<diesel::sql_types::Text>>;

/// No emblem from the row itself: [`load`], [`named`] and a match's
/// seats put the worn ones on beside it ([`dress`]), one query prepared
/// once.
fn emblem() -> Emblem {
    use diesel::IntoSql;
    None::<String>.into_sql::<diesel::sql_types::Nullable<diesel::sql_types::Text>>()
}

/// Put on `players` the emblems they wear (one query for all).
pub fn dress<'a>(
    conn: &mut PgConnection,
    players: impl IntoIterator<Item = &'a mut Player>,
) -> Result<(), Error> {
    let mut players: Vec<&mut Player> = players.into_iter().collect();
    if players.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = players.iter().map(|p| p.id).collect();
    let worn: HashMap<Uuid, Option<String>> = looks_worn::table
        .filter(looks_worn::user_id.eq_any(&ids))
        .select((looks_worn::user_id, looks_worn::emblem))
        .load::<(Uuid, Option<String>)>(conn)?
        .into_iter()
        .collect();
    for player in &mut players {
        player.emblem = worn.get(&player.id).cloned().flatten();
    }
    Ok(())
}

/// The players among `ids` (those that exist), by id.
pub fn load(conn: &mut PgConnection, ids: Vec<Uuid>) -> Result<HashMap<Uuid, Player>, Error> {
    let found: Vec<Player> = users::table
        .filter(users::id.eq_any(ids))
        .select(Player::as_select())
        .load(conn)?;
    let mut found = found;
    dress(conn, &mut found)?;
    Ok(found.into_iter().map(|p| (p.id, p)).collect())
}

/// The registered player named `name` (any case); never a computer
/// opponent, whom nobody challenges, befriends or blocks by name.
pub fn named(conn: &mut PgConnection, name: &str) -> Result<Player, Error> {
    let player = users::table
        .filter(users::computer.is_null())
        .filter(users::deleted_at.is_null())
        .filter(
            diesel::dsl::sql::<diesel::sql_types::Text>("lower(username)").eq(name.to_lowercase()),
        )
        .select(Player::as_select())
        .first(conn)
        .optional()?
        .ok_or(Error::not_found("player"))?;
    let mut player = player;
    dress(conn, [&mut player])?;
    Ok(player)
}

/// What a player wears (issue #70, docs/rules/rewards.md §R7): the
/// emblem others see beside the name, and a theme per game for the
/// player's own boards. Bought with coins (`coins::looks`, which checks
/// what is owned); kept here, with the player as others see them.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Worn {
    pub emblem: Option<String>,
    /// The theme of each game's boards, by game; absent: the usual board.
    #[serde(default)]
    pub themes: BTreeMap<String, String>,
}

/// What `user` wears.
pub fn worn(conn: &mut PgConnection, user: Uuid) -> Result<Worn, Error> {
    let row: Option<(Option<String>, serde_json::Value)> = looks_worn::table
        .find(user)
        .select((looks_worn::emblem, looks_worn::themes))
        .first(conn)
        .optional()?;
    Ok(match row {
        Some((emblem, themes)) => Worn {
            emblem,
            themes: serde_json::from_value(themes).unwrap_or_default(),
        },
        None => Worn::default(),
    })
}

/// `user` wears `worn` from now (its looks checked by the caller).
pub fn put_on(conn: &mut PgConnection, user: Uuid, worn: &Worn) -> Result<(), Error> {
    let themes = serde_json::to_value(&worn.themes).map_err(Error::internal)?;
    diesel::insert_into(looks_worn::table)
        .values((
            looks_worn::user_id.eq(user),
            looks_worn::emblem.eq(&worn.emblem),
            looks_worn::themes.eq(&themes),
        ))
        .on_conflict(looks_worn::user_id)
        .do_update()
        .set((
            looks_worn::emblem.eq(&worn.emblem),
            looks_worn::themes.eq(&themes),
        ))
        .execute(conn)?;
    Ok(())
}

/// What a player wears goes with the account; the export holds it.
pub const PERSONAL: Owner =
    Owner::erasing("players", &["looks_worn"], forget, Exported::In(&["looks"]));

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(looks_worn::table.find(leaving.user)).execute(conn)?;
    Ok(())
}
