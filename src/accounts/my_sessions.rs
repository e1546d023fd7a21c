//! My sessions (docs/decisions/accounts-and-sessions.md): the devices
//! signed in to my account, and ending one of them. A session is a
//! refresh-token family (`accounts::refresh`); it lives while a token of it
//! is neither revoked nor expired. The device is a short label read from
//! the User-Agent the session signed in with (never the address: a list of
//! where I was is not something the service needs to keep).

use crate::error::Error;
use crate::schema::refresh_tokens;
use chrono::{DateTime, Utc};
use diesel::dsl::{max, min};
use diesel::prelude::*;
use diesel::PgConnection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// One signed-in device.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DeviceSession {
    /// The session's id: `DELETE /v1/me/sessions/{id}` ends it.
    pub id: Uuid,
    /// "Chrome · Android", "Posthorn app · iOS"; empty when the device
    /// said nothing we recognise.
    pub device: String,
    pub signed_in_at: DateTime<Utc>,
    /// The last refresh: the device was in use then.
    pub last_active_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// The session this request comes from.
    pub current: bool,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DeviceSessions {
    /// The most recently active first.
    pub sessions: Vec<DeviceSession>,
}

/// The live sessions of `user`; `current` is the caller's.
pub fn list(
    conn: &mut PgConnection,
    user: Uuid,
    current: Uuid,
    now: DateTime<Utc>,
) -> Result<DeviceSessions, Error> {
    type Row = (
        Uuid,
        Option<String>,
        Option<DateTime<Utc>>,
        Option<DateTime<Utc>>,
        Option<DateTime<Utc>>,
    );
    let rows: Vec<Row> = refresh_tokens::table
        .filter(refresh_tokens::user_id.eq(user))
        .filter(refresh_tokens::revoked_at.is_null())
        .filter(refresh_tokens::expires_at.gt(now))
        .group_by(refresh_tokens::family)
        .select((
            refresh_tokens::family,
            min(refresh_tokens::device),
            min(refresh_tokens::created_at),
            max(refresh_tokens::created_at),
            max(refresh_tokens::expires_at),
        ))
        .load(conn)?;
    let mut sessions: Vec<DeviceSession> = rows
        .into_iter()
        .filter_map(|(id, device, first, last, expires)| {
            Some(DeviceSession {
                id,
                device: device.unwrap_or_default(),
                signed_in_at: first?,
                last_active_at: last?,
                expires_at: expires?,
                current: id == current,
            })
        })
        .collect();
    sessions.sort_by(|a, b| {
        b.last_active_at
            .cmp(&a.last_active_at)
            .then(a.id.cmp(&b.id))
    });
    Ok(DeviceSessions { sessions })
}

/// When session `session` signed in: its first refresh token (tokens are
/// never deleted, so the first is there for as long as the family).
pub fn signed_in_at(
    conn: &mut PgConnection,
    session: Uuid,
) -> Result<Option<DateTime<Utc>>, Error> {
    Ok(refresh_tokens::table
        .filter(refresh_tokens::family.eq(session))
        .select(min(refresh_tokens::created_at))
        .first(conn)?)
}

/// End one of my sessions: its refresh tokens stop now (the caller stops
/// its access tokens, `revoked.rs`). Someone else's session, or one
/// already ended, is not found.
pub fn end(
    conn: &mut PgConnection,
    user: Uuid,
    session: Uuid,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let ended = diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::user_id.eq(user))
            .filter(refresh_tokens::family.eq(session))
            .filter(refresh_tokens::revoked_at.is_null())
            .filter(refresh_tokens::expires_at.gt(now)),
    )
    .set(refresh_tokens::revoked_at.eq(now))
    .execute(conn)?;
    if ended == 0 {
        return Err(Error::not_found("session"));
    }
    // Its app's push device goes with it (docs/decisions/native-push.md).
    crate::notify::native::devices::forget_sessions(conn, &[session])?;
    Ok(())
}

/// A short label for the device behind `user_agent`: the browser (or our
/// app) and the system, as a person would name them in a list of their
/// devices. Order matters: Edge and Samsung Internet say "Chrome" too,
/// Chrome says "Safari", and Android says "Linux".
pub fn label(user_agent: &str) -> String {
    let has = |needle: &str| user_agent.contains(needle);
    let app = [
        ("Posthorn", "Posthorn app"),
        ("SamsungBrowser", "Samsung Internet"),
        ("Edg/", "Edge"),
        ("Firefox/", "Firefox"),
        ("Chrome/", "Chrome"),
        ("Chromium/", "Chromium"),
        ("Safari/", "Safari"),
    ]
    .into_iter()
    .find(|(needle, _)| has(needle))
    .map(|(_, name)| name);
    let system = [
        ("Android", "Android"),
        ("iPhone", "iOS"),
        ("iPad", "iPadOS"),
        ("iOS", "iOS"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    ]
    .into_iter()
    .find(|(needle, _)| has(needle))
    .map(|(_, name)| name);
    match (app, system) {
        (Some(a), Some(s)) => format!("{a} · {s}"),
        (Some(one), None) | (None, Some(one)) => one.to_owned(),
        (None, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::label;

    #[test]
    fn devices_are_named_as_people_name_them() {
        let android_chrome = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
        assert_eq!(label(android_chrome), "Chrome · Android");
        let iphone_safari = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
        assert_eq!(label(iphone_safari), "Safari · iOS");
        let edge = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0";
        assert_eq!(label(edge), "Edge · Windows");
        assert_eq!(label("Posthorn/1.4 (iOS 18.1)"), "Posthorn app · iOS");
        assert_eq!(label("curl/8.5.0"), "");
    }
}
