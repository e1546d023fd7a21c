//! Who a claimed batch goes to, read in three statements for the whole
//! batch rather than three or four per row
//! (docs/decisions/notifications.md: per-row reads were a sixth of the
//! worker's time per batch).

use super::outbox::Row;
use super::{Channel, Kind, Settings};
use crate::error::Error;
use crate::schema::{app_devices, notification_settings, push_subscriptions as subs, users};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

/// What a message needs of its recipient.
pub(super) struct Recipient {
    pub(super) email: Option<String>,
    pub(super) name: String,
    pub(super) locale: String,
    time_zone: String,
    settings: Settings,
}

impl Recipient {
    pub(super) fn locale(&self) -> super::words::Locale {
        super::words::Locale::of(&self.locale)
    }

    /// The user's own time zone (an unknown one counts as UTC).
    pub(super) fn zone(&self) -> chrono_tz::Tz {
        self.time_zone.parse().unwrap_or(chrono_tz::UTC)
    }

    /// The end of the quiet hours, if `now` falls inside them (in the
    /// user's own time zone).
    pub(super) fn quiet_until(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let quiet = self.settings.quiet_hours.as_ref()?;
        quiet.end_after(now, self.zone())
    }
}

/// A device's Web Push subscription.
pub(super) struct Device {
    pub(super) endpoint: String,
    pub(super) p256dh: String,
    pub(super) auth: String,
}

/// A native app's device (docs/decisions/native-push.md).
pub(super) struct AppDevice {
    pub(super) user_id: Uuid,
    pub(super) platform: super::native::Platform,
    pub(super) token: String,
    /// The phone's language, when the app said it.
    pub(super) locale: Option<String>,
}

/// The recipients and devices of one claimed batch.
pub(super) struct Recipients {
    people: HashMap<Uuid, Recipient>,
    devices: HashMap<Uuid, Device>,
    apps: HashMap<Uuid, AppDevice>,
    /// What waits for each owner of an app device (its badge).
    badges: HashMap<Uuid, i64>,
    /// The players the batch's notices name (a result's, a last move's),
    /// by their names now (`None`: a deleted account).
    names: HashMap<Uuid, Option<String>>,
    /// The boards "your turn" mails show, by outbox row ([`Self::load_boards`]).
    boards: HashMap<i64, Arc<Vec<u8>>>,
}

impl Recipients {
    pub(super) fn load(
        conn: &mut PgConnection,
        rows: &[Row],
        badge: fn(&mut PgConnection, Uuid) -> Result<i64, Error>,
    ) -> Result<Self, Error> {
        let mut ids: Vec<Uuid> = rows.iter().map(|r| r.user_id).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut settings: HashMap<Uuid, Settings> = notification_settings::table
            .filter(notification_settings::user_id.eq_any(&ids))
            .select((
                notification_settings::user_id,
                notification_settings::settings,
            ))
            .load::<(Uuid, serde_json::Value)>(conn)?
            .into_iter()
            .map(|(id, v)| (id, serde_json::from_value(v).unwrap_or_default()))
            .collect();
        let people = users::table
            .filter(users::id.eq_any(&ids))
            .select((
                users::id,
                users::email,
                users::display_name,
                users::locale,
                users::time_zone,
            ))
            .load::<(Uuid, Option<String>, String, String, String)>(conn)?
            .into_iter()
            .map(|(id, email, name, locale, time_zone)| {
                let settings = settings.remove(&id).unwrap_or_default();
                let person = Recipient {
                    email,
                    name,
                    locale,
                    time_zone,
                    settings,
                };
                (id, person)
            })
            .collect();
        let device_ids: Vec<Uuid> = rows
            .iter()
            .filter_map(|r| match Channel::parse(&r.channel) {
                Some(Channel::Push(id)) => Some(id),
                _ => None,
            })
            .collect();
        let devices = if device_ids.is_empty() {
            HashMap::new()
        } else {
            subs::table
                .filter(subs::id.eq_any(&device_ids))
                .select((subs::id, subs::endpoint, subs::p256dh, subs::auth))
                .load::<(Uuid, String, String, String)>(conn)?
                .into_iter()
                .map(|(id, endpoint, p256dh, auth)| {
                    let device = Device {
                        endpoint,
                        p256dh,
                        auth,
                    };
                    (id, device)
                })
                .collect()
        };
        let (apps, badges) = Self::load_apps(conn, rows, badge)?;
        let names = Self::load_names(conn, rows)?;
        Ok(Recipients {
            people,
            devices,
            apps,
            badges,
            names,
            boards: HashMap::new(),
        })
    }

    /// The players the notices name: the seats of a finished match and
    /// the mover of a turn's last move. Names are stored as ids, never as
    /// text, so a name changed or erased since is said as it is now.
    fn load_names(
        conn: &mut PgConnection,
        rows: &[Row],
    ) -> Result<HashMap<Uuid, Option<String>>, Error> {
        let named = rows.iter().flat_map(|r| {
            let players = r.payload["players"].as_array().cloned().unwrap_or_default();
            players.into_iter().chain([r.payload["last"]["by"].clone()])
        });
        let ids: Vec<Uuid> = named
            .filter_map(|v| v.as_str().and_then(|s| s.parse().ok()))
            .collect();
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        Ok(users::table
            .filter(users::id.eq_any(&ids))
            .select((users::id, users::display_name, users::deleted_at.is_null()))
            .load::<(Uuid, String, bool)>(conn)?
            .into_iter()
            .map(|(id, name, kept)| (id, kept.then_some(name)))
            .collect())
    }

    /// The board each due "your turn" mail shows (issue #69 item 5): the
    /// match after the event the mail is about, drawn from its reader's
    /// own view then (§H4), so never what that reader could not see. Read
    /// for the rows about to be sent only (not those quiet hours hold).
    /// A board that cannot be drawn (the match gone since) leaves its mail
    /// without one rather than unsent.
    pub(super) fn load_boards(
        &mut self,
        conn: &mut PgConnection,
        due: &[&Row],
        board: super::Board,
    ) {
        let your_turn = Kind::YourTurn.name();
        let mails = (due.iter()).filter(|r| {
            r.kind == your_turn && matches!(Channel::parse(&r.channel), Some(Channel::Email))
        });
        for row in mails {
            match board(conn, row.match_id, row.user_id, row.seq) {
                Ok(png) => {
                    self.boards.insert(row.id, png);
                }
                Err(e) => tracing::warn!(notification = row.id, "no board for the mail: {e}"),
            }
        }
    }

    /// The board row `id`'s mail shows, if it shows one.
    pub(super) fn board(&self, id: i64) -> Option<&[u8]> {
        self.boards.get(&id).map(|png| png.as_slice())
    }

    /// Who reads `row` in `locale`, at `now`.
    pub(super) fn reading(
        &self,
        row: &Row,
        locale: super::words::Locale,
        now: DateTime<Utc>,
    ) -> super::reading::Reading<'_> {
        super::reading::Reading {
            locale,
            zone: self
                .person(row.user_id)
                .map_or(chrono_tz::UTC, Recipient::zone),
            now,
            user: row.user_id,
            names: &self.names,
        }
    }

    /// The batch's native app devices, and their owners' badges (one read
    /// per owner, not per notification).
    #[allow(clippy::type_complexity)]
    fn load_apps(
        conn: &mut PgConnection,
        rows: &[Row],
        badge: fn(&mut PgConnection, Uuid) -> Result<i64, Error>,
    ) -> Result<(HashMap<Uuid, AppDevice>, HashMap<Uuid, i64>), Error> {
        let ids: Vec<Uuid> = rows
            .iter()
            .filter_map(|r| match Channel::parse(&r.channel) {
                Some(Channel::App(id)) => Some(id),
                _ => None,
            })
            .collect();
        if ids.is_empty() {
            return Ok(Default::default());
        }
        use app_devices as d;
        let apps: HashMap<Uuid, AppDevice> = d::table
            .filter(d::id.eq_any(&ids))
            .select((d::id, d::user_id, d::platform, d::token, d::locale))
            .load::<(Uuid, Uuid, String, String, Option<String>)>(conn)?
            .into_iter()
            .filter_map(|(id, user_id, platform, token, locale)| {
                let platform = super::native::Platform::parse(&platform)?;
                let device = AppDevice {
                    user_id,
                    platform,
                    token,
                    locale,
                };
                Some((id, device))
            })
            .collect();
        let mut owners: Vec<Uuid> = apps.values().map(|d| d.user_id).collect();
        owners.sort_unstable();
        owners.dedup();
        let badges = owners
            .into_iter()
            .map(|user| Ok((user, badge(conn, user)?)))
            .collect::<Result<_, Error>>()?;
        Ok((apps, badges))
    }

    /// None if the device was removed.
    pub(super) fn app(&self, id: Uuid) -> Option<&AppDevice> {
        self.apps.get(&id)
    }

    pub(super) fn badge(&self, user: Uuid) -> i64 {
        self.badges.get(&user).copied().unwrap_or(0)
    }

    /// None if the account is gone.
    pub(super) fn person(&self, user: Uuid) -> Option<&Recipient> {
        self.people.get(&user)
    }

    /// None if the subscription was removed.
    pub(super) fn device(&self, id: Uuid) -> Option<&Device> {
        self.devices.get(&id)
    }
}
