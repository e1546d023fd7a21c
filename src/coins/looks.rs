//! What coins buy (docs/rules/rewards.md §R7): looks that change nothing
//! in a game or a rating — a board theme for one's own boards, per game,
//! and an emblem others see beside one's name. Bought once, kept, worn by
//! choice. The high-contrast theme is every player's, never sold. Each
//! look is drawn by the web client's stylesheet (`.theme-<name>`,
//! `.emblem-<name>`); a test holds the two lists together.

use super::pay::{Source, Why};
use crate::error::Error;
use crate::players::{self, Worn};
use crate::schema::{coins, purses};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// §R7: the themes sold, each for every game (bought per game).
pub const THEMES: &[&str] = &["walnut", "marble", "ocean", "night"];
/// §R7: the high-contrast theme, free in every game.
pub const FREE_THEME: &str = "contrast";
/// §R7: the emblems.
pub const EMBLEMS: &[&str] = &[
    "star", "crown", "knight", "moon", "sun", "plum", "crane", "dragon",
];
/// §R7: every look costs the same (about a week of honest play, §R5's
/// worked figures in docs/abuse.md).
pub const PRICE: i32 = 200;

/// One look on offer.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Look {
    /// `theme.<game>.<name>` or `emblem.<name>`.
    pub id: String,
    /// `theme` or `emblem`.
    pub kind: String,
    /// The theme's or emblem's name (`walnut`, `horn`).
    pub name: String,
    /// A theme's game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    pub price: i32,
    /// Whether it is mine (the free theme always is).
    pub owned: bool,
}

/// `GET /v1/me/looks`.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Looks {
    pub balance: i32,
    pub items: Vec<Look>,
    pub worn: Worn,
}

/// The answer to a purchase.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct Bought {
    pub item: String,
    pub price: i32,
    pub balance: i32,
}

/// Every look, free theme included: (id, kind, name, game, price).
fn catalogue() -> Vec<(
    String,
    &'static str,
    &'static str,
    Option<&'static str>,
    i32,
)> {
    let mut out = Vec::new();
    for game in posthorn_rules::GameId::ALL.iter().map(|g| g.id()) {
        out.push((
            format!("theme.{game}.{FREE_THEME}"),
            "theme",
            FREE_THEME,
            Some(game),
            0,
        ));
        for name in THEMES {
            out.push((
                format!("theme.{game}.{name}"),
                "theme",
                *name,
                Some(game),
                PRICE,
            ));
        }
    }
    for name in EMBLEMS {
        out.push((format!("emblem.{name}"), "emblem", *name, None, PRICE));
    }
    out
}

fn cause(item: &str) -> String {
    format!("look:{item}")
}

/// The looks `user` bought.
fn owned(conn: &mut PgConnection, user: Uuid) -> Result<Vec<String>, Error> {
    let causes: Vec<String> = coins::table
        .filter(coins::user_id.eq(user))
        .filter(coins::cause.like("look:%"))
        .select(coins::cause)
        .load(conn)?;
    Ok(causes
        .into_iter()
        .map(|c| c["look:".len()..].to_owned())
        .collect())
}

/// `GET /v1/me/looks`: the shop as I see it, and what I wear.
pub fn mine(conn: &mut PgConnection, user: Uuid) -> Result<Looks, Error> {
    let bought = owned(conn, user)?;
    let items = (catalogue().into_iter())
        .map(|(id, kind, name, game, price)| Look {
            owned: price == 0 || bought.contains(&id),
            id,
            kind: kind.into(),
            name: name.into(),
            game: game.map(Into::into),
            price,
        })
        .collect();
    Ok(Looks {
        balance: super::balance(conn, user)?,
        items,
        worn: players::worn(conn, user)?,
    })
}

/// `POST /v1/me/looks/purchases`: buy `item` with coins, once; a retry
/// with the same `key` is answered as the first time (§R8).
pub fn buy(
    conn: &mut PgConnection,
    user: Uuid,
    item: &str,
    key: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Bought, Error> {
    let Some((id, _, _, _, price)) = catalogue().into_iter().find(|l| l.0 == item) else {
        return Err(Error::not_found("look"));
    };
    conn.transaction(|conn| {
        // The purse's lock orders every spend of this player.
        let balance: Option<i32> = purses::table
            .find(user)
            .select(purses::balance)
            .for_update()
            .first(conn)
            .optional()?;
        let balance = balance.unwrap_or(0);
        if let Some(key) = key {
            let earlier: Option<String> = coins::table
                .filter(coins::user_id.eq(user))
                .filter(coins::key.eq(key))
                .select(coins::cause)
                .first(conn)
                .optional()?;
            match earlier {
                Some(c) if c == cause(&id) => {
                    return Ok(Bought {
                        item: id,
                        price,
                        balance,
                    })
                }
                Some(_) => return Err(Error::IdempotencyKeyReused),
                None => {}
            }
        }
        if price == 0 {
            return Err(Error::conflict(
                "the high-contrast theme is everyone's already: choose it",
            ));
        }
        if owned(conn, user)?.contains(&id) {
            return Err(Error::conflict("that look is yours already"));
        }
        if balance < price {
            return Err(Error::NotEnoughCoins(format!(
                "that look costs {price} coins and you have {balance}"
            )));
        }
        diesel::insert_into(coins::table)
            .values((
                coins::user_id.eq(user),
                coins::cause.eq(cause(&id)),
                coins::amount.eq(-price),
                coins::source.eq(Source::Shop.as_str()),
                coins::why.eq(Why::Bought.as_str()),
                coins::key.eq(key),
                coins::at.eq(now),
            ))
            .execute(conn)?;
        let balance: i32 = diesel::update(purses::table.find(user))
            .set(purses::balance.eq(purses::balance - price))
            .returning(purses::balance)
            .get_result(conn)?;
        Ok(Bought {
            item: id,
            price,
            balance,
        })
    })
}

/// `PUT /v1/me/looks`: wear what I own (the emblem others see, a theme
/// per game); everything named must be mine.
pub fn wear(conn: &mut PgConnection, user: Uuid, worn: Worn) -> Result<Worn, Error> {
    conn.transaction(|conn| {
        let looks = mine(conn, user)?;
        let mine = |id: String| -> Result<(), Error> {
            match looks.items.iter().find(|l| l.id == id) {
                Some(look) if look.owned => Ok(()),
                Some(_) => Err(Error::conflict(format!("{id} is not yours: buy it first"))),
                None => Err(Error::unacceptable(format!("no look {id}"))),
            }
        };
        if let Some(emblem) = &worn.emblem {
            mine(format!("emblem.{emblem}"))?;
        }
        for (game, theme) in &worn.themes {
            mine(format!("theme.{game}.{theme}"))?;
        }
        players::put_on(conn, user, &worn)?;
        if looks.worn.emblem != worn.emblem {
            // Others see the emblem beside my name: no cached table keeps
            // the old one.
            crate::matches::roster_changed(conn, user)?;
        }
        Ok(worn)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every game has every theme and the free one; enough looks of one
    /// price for the twenty purchases at once.
    #[test]
    fn every_game_has_the_themes_and_the_free_one() {
        let all = catalogue();
        let games = posthorn_rules::GameId::ALL.len();
        assert_eq!(all.iter().filter(|l| l.4 == 0).count(), games);
        assert_eq!(
            all.iter().filter(|l| l.1 == "theme").count(),
            games * (THEMES.len() + 1)
        );
        assert!(all.iter().filter(|l| l.4 == PRICE).count() >= 20);
    }
}
