//! Times as their reader writes them (docs/decisions/notifications.md, "The
//! lock screen"): in the reader's own time zone and language, to the
//! minute, with the weekday, because a deadline is read on a lock screen
//! and acted on: "12월 9일 (수) 오전 1:00", "Wed 9 Dec, 1:00 AM", and how long
//! is left ("23시간", "23 hours"). The one place a notice's time is written.

use super::words::Locale;
use chrono::{DateTime, Datelike, Timelike, Utc};
use chrono_tz::Tz;

const KO_WEEKDAYS: [&str; 7] = ["월", "화", "수", "목", "금", "토", "일"];
const EN_WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const EN_MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `at` on the reader's clock.
pub fn moment(locale: Locale, zone: Tz, at: DateTime<Utc>) -> String {
    let local = at.with_timezone(&zone);
    let weekday = local.weekday().num_days_from_monday() as usize;
    let (pm, hour) = local.hour12();
    let minute = local.minute();
    match locale {
        Locale::Korean => format!(
            "{}월 {}일 ({}) {} {hour}:{minute:02}",
            local.month(),
            local.day(),
            KO_WEEKDAYS[weekday],
            if pm { "오후" } else { "오전" },
        ),
        Locale::English => format!(
            "{} {} {}, {hour}:{minute:02} {}",
            EN_WEEKDAYS[weekday],
            local.day(),
            EN_MONTHS[local.month0() as usize],
            if pm { "PM" } else { "AM" },
        ),
    }
}

/// How long is left from `now` until `at`: minutes under an hour, hours
/// under two days, days beyond; never less than a minute (a deadline a
/// notice speaks of has not passed).
pub fn left(locale: Locale, now: DateTime<Utc>, at: DateTime<Utc>) -> String {
    let minutes = (at - now).num_minutes().max(1);
    let (key, n) = match minutes {
        1 => ("when.minute", 1),
        m if m < 60 => ("when.minutes", m),
        m if m < 120 => ("when.hour", 1),
        m if m < 48 * 60 => ("when.hours", m / 60),
        m => ("when.days", m / (24 * 60)),
    };
    locale.say(key, &[("n", &n.to_string())])
}

/// An RFC 3339 time of a payload, if it is one.
pub fn read(value: &serde_json::Value) -> Option<DateTime<Utc>> {
    value
        .as_str()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    /// The issue's own example: a deadline of 16:00 UTC on Tuesday 8
    /// December is 1 AM on Wednesday in Seoul.
    #[test]
    fn a_deadline_is_written_on_the_readers_clock_in_their_words() {
        let at = Utc.with_ymd_and_hms(2026, 12, 8, 16, 0, 2).unwrap();
        let seoul: Tz = "Asia/Seoul".parse().unwrap();
        assert_eq!(moment(Locale::Korean, seoul, at), "12월 9일 (수) 오전 1:00");
        assert_eq!(moment(Locale::English, seoul, at), "Wed 9 Dec, 1:00 AM");
        let vancouver: Tz = "America/Vancouver".parse().unwrap();
        assert_eq!(moment(Locale::English, vancouver, at), "Tue 8 Dec, 8:00 AM");
        // Across the change to daylight saving time (8 March 2026):
        // the same UTC hour is an hour later on the wall.
        let before = Utc.with_ymd_and_hms(2026, 3, 7, 20, 30, 0).unwrap();
        let after = Utc.with_ymd_and_hms(2026, 3, 9, 20, 30, 0).unwrap();
        assert_eq!(
            moment(Locale::English, vancouver, before),
            "Sat 7 Mar, 12:30 PM"
        );
        assert_eq!(
            moment(Locale::English, vancouver, after),
            "Mon 9 Mar, 1:30 PM"
        );
        let noon = Utc.with_ymd_and_hms(2026, 12, 9, 3, 5, 0).unwrap();
        assert_eq!(
            moment(Locale::Korean, seoul, noon),
            "12월 9일 (수) 오후 12:05"
        );
    }

    #[test]
    fn what_is_left_is_said_in_the_unit_that_helps() {
        let now = Utc.with_ymd_and_hms(2026, 12, 8, 0, 0, 0).unwrap();
        let say =
            |minutes: i64, locale| left(locale, now, now + chrono::Duration::minutes(minutes));
        assert_eq!(say(23 * 60 + 59, Locale::English), "23 hours");
        assert_eq!(say(23 * 60 + 59, Locale::Korean), "23시간");
        assert_eq!(say(90, Locale::English), "1 hour");
        assert_eq!(say(45, Locale::Korean), "45분");
        assert_eq!(say(-5, Locale::English), "1 minute");
        assert_eq!(say(72 * 60, Locale::English), "3 days");
    }
}
