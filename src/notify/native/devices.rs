//! The native apps' devices (docs/decisions/native-push.md, "A device is a
//! channel of the outbox"): a push token registered by the signed-in app,
//! listed and removed by its owner. A token belongs to the account that
//! registered it last (one phone, a second account signed in on it); a
//! device goes with the session that registered it, and with its account.

use super::{Native, Platform};
use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::app_devices;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Devices an account keeps: registering one more forgets the one
/// registered longest ago (a phone replaced leaves its token behind, and
/// refusing the new phone would be the wrong one to refuse).
pub const PER_ACCOUNT: i64 = 10;

/// `POST /v1/devices`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewDevice {
    pub platform: Platform,
    /// iOS: the APNs device token in hex (as `Data` prints it, 64
    /// characters today); Android: the FCM registration token.
    #[schema(min_length = 32, max_length = 4096, pattern = "^[A-Za-z0-9_:.-]+$")]
    pub token: String,
    /// The app's bundle id (iOS) or package name (Android). On iOS, when
    /// given, it must be the app this service pushes to.
    #[serde(default)]
    #[schema(max_length = 200)]
    pub app_id: Option<String>,
    /// The phone's language (`ko`, `en-GB`): its notifications are
    /// written in it; unset, in the account's.
    #[serde(default)]
    #[schema(max_length = 35, pattern = "^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")]
    pub locale: Option<String>,
}

/// A registered device, as its owner sees it (never its token).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Device {
    /// `DELETE /v1/devices/{id}` removes it.
    pub id: Uuid,
    pub platform: Platform,
    pub app_id: Option<String>,
    pub locale: Option<String>,
    pub registered_at: DateTime<Utc>,
    /// Registered from the session this request comes from.
    pub current: bool,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Devices {
    /// The most recently registered first.
    pub devices: Vec<Device>,
}

/// `GET /v1/push/platforms`: which native apps this service pushes to.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Platforms {
    pub ios: bool,
    pub android: bool,
    /// Browsers, through Web Push: always.
    pub web: bool,
}

pub fn platforms(native: &Native) -> Platforms {
    Platforms {
        ios: native.enabled(Platform::Ios),
        android: native.enabled(Platform::Android),
        web: true,
    }
}

/// A token as the platform writes it: APNs's is hex (stored lower case);
/// FCM's is URL-safe text.
fn token_of(platform: Platform, token: &str) -> Result<String, Error> {
    let fits = (32..=4096).contains(&token.len());
    match platform {
        Platform::Ios
            if fits
                && token.len().is_multiple_of(2)
                && token.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            Ok(token.to_ascii_lowercase())
        }
        Platform::Android
            if fits
                && token
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_:.-".contains(&b)) =>
        {
            Ok(token.to_owned())
        }
        Platform::Ios => Err(Error::validation(
            "an APNs device token is an even number of hex digits (64 today)",
        )),
        Platform::Android => Err(Error::validation(
            "an FCM registration token is 32 to 4096 characters of A-Z a-z 0-9 _ : . -",
        )),
    }
}

fn locale_of(locale: Option<String>) -> Result<Option<String>, Error> {
    let Some(locale) = locale else {
        return Ok(None);
    };
    let mut parts = locale.split('-');
    let language = parts.next().unwrap_or_default();
    let well_formed = locale.len() <= 35
        && (2..=3).contains(&language.len())
        && language.bytes().all(|b| b.is_ascii_alphabetic())
        && parts
            .all(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()));
    if !well_formed {
        return Err(Error::validation(
            "locale is a language tag such as ko or en-GB",
        ));
    }
    Ok(Some(locale))
}

/// Register (or move here) the device of `session`.
pub fn register(
    conn: &mut PgConnection,
    native: &Native,
    user: Uuid,
    session: Uuid,
    new: NewDevice,
    now: DateTime<Utc>,
) -> Result<Device, Error> {
    let service = new.platform.service();
    if !native.enabled(new.platform) {
        return Err(Error::PlatformUnavailable(format!(
            "this service is not set up to push through {service}; GET /v1/push/platforms says which platforms are"
        )));
    }
    let token = token_of(new.platform, &new.token)?;
    let locale = locale_of(new.locale)?;
    if new.app_id.as_ref().is_some_and(|a| a.len() > 200) {
        return Err(Error::validation("app_id is at most 200 characters"));
    }
    if let (Platform::Ios, Some(app), Some(topic)) =
        (new.platform, &new.app_id, native.apns_topic())
    {
        if app != topic {
            return Err(Error::unacceptable(format!(
                "this service pushes to the iOS app {topic}, not {app}"
            )));
        }
    }
    use app_devices as d;
    // The insert and the trim stand or fall together.
    let id = conn.transaction::<Uuid, Error, _>(|conn| {
        // A token moving to another account becomes a new device: what
        // was queued for the old one is not the new owner's to see.
        let id: Uuid = diesel::insert_into(d::table)
            .values((
                d::id.eq(Uuid::new_v4()),
                d::user_id.eq(user),
                d::session_id.eq(session),
                d::platform.eq(new.platform.name()),
                d::token.eq(&token),
                d::app_id.eq(&new.app_id),
                d::locale.eq(&locale),
                d::created_at.eq(now),
                d::registered_at.eq(now),
            ))
            .on_conflict((d::platform, d::token))
            .do_update()
            .set((
                d::id.eq(diesel::dsl::sql::<diesel::sql_types::Uuid>(
                    "CASE WHEN app_devices.user_id = excluded.user_id THEN app_devices.id ELSE excluded.id END",
                )),
                d::user_id.eq(user),
                d::session_id.eq(session),
                d::app_id.eq(&new.app_id),
                d::locale.eq(&locale),
                d::registered_at.eq(now),
            ))
            .returning(d::id)
            .get_result(conn)?;
        // Beyond the limit, the devices registered longest ago go; never the
        // one registered now (another may bear the same instant).
        let mut keep: Vec<Uuid> = d::table
            .filter(d::user_id.eq(user).and(d::id.ne(id)))
            .order((d::registered_at.desc(), d::id))
            .limit(PER_ACCOUNT - 1)
            .select(d::id)
            .load(conn)?;
        keep.push(id);
        diesel::delete(
            d::table
                .filter(d::user_id.eq(user))
                .filter(d::id.ne_all(&keep)),
        )
        .execute(conn)?;
        Ok(id)
    })?;
    Ok(Device {
        id,
        platform: new.platform,
        app_id: new.app_id,
        locale,
        registered_at: now,
        current: true,
    })
}

pub fn list(conn: &mut PgConnection, user: Uuid, session: Uuid) -> Result<Devices, Error> {
    use app_devices as d;
    #[derive(Queryable)]
    struct Row {
        id: Uuid,
        platform: String,
        app_id: Option<String>,
        locale: Option<String>,
        registered_at: DateTime<Utc>,
        session_id: Option<Uuid>,
    }
    let rows: Vec<Row> = d::table
        .filter(d::user_id.eq(user))
        .order((d::registered_at.desc(), d::id))
        .select((
            d::id,
            d::platform,
            d::app_id,
            d::locale,
            d::registered_at,
            d::session_id,
        ))
        .load(conn)?;
    let devices = rows
        .into_iter()
        .filter_map(|r| {
            Some(Device {
                id: r.id,
                platform: Platform::parse(&r.platform)?,
                app_id: r.app_id,
                locale: r.locale,
                registered_at: r.registered_at,
                current: r.session_id == Some(session),
            })
        })
        .collect();
    Ok(Devices { devices })
}

pub fn remove(conn: &mut PgConnection, user: Uuid, id: Uuid) -> Result<(), Error> {
    let gone = diesel::delete(
        app_devices::table
            .find(id)
            .filter(app_devices::user_id.eq(user)),
    )
    .execute(conn)?;
    if gone == 0 {
        return Err(Error::not_found("device"));
    }
    Ok(())
}

/// The devices registered from `sessions` go with them (sign-out, a
/// session ended from the list, every session ended).
pub fn forget_sessions(conn: &mut PgConnection, sessions: &[Uuid]) -> Result<usize, Error> {
    Ok(
        diesel::delete(app_devices::table.filter(app_devices::session_id.eq_any(sessions)))
            .execute(conn)?,
    )
}

/// A device the push service no longer knows.
pub fn forget(conn: &mut PgConnection, id: Uuid) -> Result<(), Error> {
    diesel::delete(app_devices::table.find(id)).execute(conn)?;
    Ok(())
}

/// A player's phones go with the account.
pub const PERSONAL: Owner = Owner::erasing(
    "notify::native::devices",
    &["app_devices"],
    forget_player,
    Exported::In(&["app_devices"]),
);

fn forget_player(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(app_devices::table.filter(app_devices::user_id.eq(leaving.user)))
        .execute(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_read_as_each_platform_writes_them() {
        let apns = "A1".repeat(32);
        assert_eq!(token_of(Platform::Ios, &apns).unwrap(), apns.to_lowercase());
        for refused in ["a1".repeat(15), "a1b".repeat(21), "zz".repeat(32)] {
            assert!(token_of(Platform::Ios, &refused).is_err(), "{refused}");
        }
        let fcm = "dQw4w9WgXcQ:APA91bH-x_y.z".to_owned() + &"k".repeat(100);
        assert_eq!(token_of(Platform::Android, &fcm).unwrap(), fcm);
        for refused in [
            "short",
            "has space in it and is long enough to count",
            "ü".repeat(40).as_str(),
        ] {
            assert!(token_of(Platform::Android, refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn locales_are_language_tags() {
        for ok in ["ko", "en-GB", "zh-Hant-TW"] {
            assert_eq!(locale_of(Some(ok.into())).unwrap().as_deref(), Some(ok));
        }
        for refused in ["", "k", "english", "ko_KR", "en--GB"] {
            assert!(locale_of(Some(refused.into())).is_err(), "{refused}");
        }
        assert_eq!(locale_of(None).unwrap(), None);
    }
}
