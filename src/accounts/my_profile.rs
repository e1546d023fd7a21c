//! `PATCH /v1/me`: a player's name, language, time zone and settings.

use super::addresses::*;
use super::guests::guest_address;
use super::registration::set_display_skeletons;
use super::rows::*;
use super::sessions::*;
use crate::error::{Error, Rule};
use crate::names;
use crate::notify::account_mail::AccountMail;
use crate::schema::users;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// `PATCH /v1/me`: the settings a user may change about their own account.
/// A field left out stays as it is; `email: null` removes the address.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MeChanges {
    #[schema(pattern = "^[A-Za-z0-9-]{1,16}$", example = "ko-KR")]
    pub locale: Option<String>,
    #[schema(value_type = Option<crate::enforced::TimeZone>)]
    pub time_zone: Option<String>,
    /// A new address, or `null` to remove it: a registered account only
    /// (a guest gives one when registering), proven with `password` or
    /// `identity` (issue #65).
    #[serde(default, deserialize_with = "present")]
    #[schema(format = Email, nullable)]
    pub email: Option<Option<String>>,
    pub takebacks: Option<Takebacks>,
    /// The name others see (닉네임), for a registered player; judged as at
    /// sign-up (docs/decisions/accounts-and-sessions.md, "Everyone's clock,
    /// everyone's name").
    #[schema(schema_with = crate::enforced::nickname_optional)]
    pub display_name: Option<String>,
    /// With `email`: the account's password. An account with neither a
    /// password nor a linked identity may instead have signed in within
    /// the last 10 minutes.
    #[schema(max_length = 256)]
    pub password: Option<String>,
    /// With `email`: a fresh sign-in with a Google or Apple identity
    /// linked to the account, instead of the password.
    pub identity: Option<IdentityProof>,
}

/// Tells `"email": null` (remove it) from a missing field (keep it).
pub(super) fn present<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

pub fn change_me(
    conn: &mut PgConnection,
    user_id: Uuid,
    changes: MeChanges,
    now: DateTime<Utc>,
) -> Result<Me, Error> {
    let current = me(conn, user_id)?;
    if current.user.guest && changes.email.is_some() {
        return Err(guest_address());
    }
    let locale = changes.locale.unwrap_or(current.user.locale);
    let time_zone = changes.time_zone.unwrap_or(current.user.time_zone);
    check_settings(&locale, &time_zone)?;
    let takebacks = changes.takebacks.unwrap_or(current.takebacks);
    if let Some(given) = &changes.display_name {
        if current.user.guest {
            return Err(Error::forbidden(
                "a guest's name is its nickname: it is kept, or changed, when registering",
            )
            .in_field("display_name", Rule::Reserved));
        }
        let name =
            names::display_name(given).map_err(|e| e.in_field("display_name", Rule::Form))?;
        names::check_not_confusable(conn, &name, "display_name", Some(user_id))?;
        set_display_skeletons(conn, user_id, &current.user.username, &name)?;
    }
    diesel::update(users::table.find(user_id))
        .set((
            users::locale.eq(&locale),
            users::time_zone.eq(&time_zone),
            users::takebacks.eq(takebacks.name()),
        ))
        .execute(conn)?;
    match changes.email {
        // A new address waits for its link (docs/abuse.md, "Email
        // addresses"); the verified one keeps working until then. The
        // answer is the same whether or not the address is someone else's.
        Some(Some(address)) => {
            let address = names::email(&address)?;
            let already =
                (current.email.as_deref()).is_some_and(|e| e.eq_ignore_ascii_case(&address));
            if !already {
                diesel::update(users::table.find(user_id))
                    .set(users::email_pending.eq(&address))
                    .execute(conn)?;
                ask_to_verify(conn, user_id, &address, now)?;
            }
        }
        Some(None) => {
            diesel::update(users::table.find(user_id))
                .set((
                    users::email.eq(None::<String>),
                    users::email_pending.eq(None::<String>),
                ))
                .execute(conn)?;
            // The address that loses the account is told, as a replaced
            // one is (`verify_email`): whoever removed it may not be the
            // account's owner, who can put it back.
            if let Some(old) = current.email {
                left_address(conn, user_id, &old, AccountMail::EmailRemoved, now)?;
            }
        }
        None => {}
    }
    me(conn, user_id)
}
