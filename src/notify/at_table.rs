//! Silence while at the table: who is watching which match, so that a
//! notice about a match its reader has open on a screen waits instead of
//! ringing the phone beside it.
//!
//! This module owns the `watchers` table: a row per open live stream of a
//! match page (`GET /v1/matches/{id}/live`), written when the stream opens
//! and deleted when it closes, shared by every instance through the
//! database (a stream's own map is per instance and knows no user). A
//! row's `until` is its stream's own end, so a row left behind by an
//! instance that died lapses by itself within one stream's length.
//!
//! Decisions (docs/decisions/notifications.md, "At the table"):
//! - watching is having the match's live page open; a client that polls
//!   instead is not counted (it would hear the notice anyway);
//! - a per-match notice for a watcher is held at claim time, as quiet
//!   hours hold: its next attempt moved, no attempt spent, `held_at`
//!   noted the first time;
//! - it is dropped if its reader acts on the match after the event it is
//!   about, or a newer notice of the same urgency about the same match for
//!   the same channel replaces it;
//! - otherwise it goes once its reader stops watching, or ten minutes
//!   after it was first held ([`LONGEST_HOLD`]): a desktop tab left open
//!   must not silence a player for days.

use super::outbox::Row;
use super::{Channel, Kind};
use crate::error::Error;
use crate::personal::{Exported, Leaving, Owner};
use crate::schema::{notifications, watchers};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use uuid::Uuid;

/// The longest a notice waits for a reader who watches without acting.
pub const LONGEST_HOLD: Duration = Duration::minutes(10);
/// A held notice looks again this often: a page closed is heard of at
/// once (its row goes), so the notice follows within this.
const LOOK_AGAIN: Duration = Duration::seconds(30);

/// What becomes of a claimed notice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    Send,
    /// Its reader is at the table: it waits until then, no attempt spent.
    Hold(DateTime<Utc>),
    /// Not sent, and why.
    Drop(&'static str),
}

/// What each of `rows` comes to at `now`, in their order: held while
/// its reader watches its match, dropped once they play there or a newer
/// notice replaced it, dropped too when a more urgent push about the
/// same match goes to the same device in this batch
/// (docs/decisions/notifications.md, "Never replaced by something
/// quieter").
pub(super) fn judge(
    conn: &mut PgConnection,
    rows: &[&Row],
    now: DateTime<Utc>,
    acted: super::Acted,
) -> Result<Vec<Verdict>, Error> {
    let per_match = |row: &Row| Kind::parse(&row.kind).is_some_and(Kind::about_a_match);
    let pairs: Vec<(Uuid, Uuid)> = (rows.iter().filter(|r| per_match(r)))
        .map(|r| (r.user_id, r.match_id))
        .collect();
    let watched = watched(conn, &pairs, now)?;
    // Only a notice held or watched now can be dropped for what its
    // reader did at the table.
    let at_table = |r: &Row| {
        per_match(r) && (r.held_at.is_some() || watched.contains_key(&(r.user_id, r.match_id)))
    };
    let at_table: Vec<&Row> = rows.iter().copied().filter(|r| at_table(r)).collect();
    let asked: Vec<(Uuid, Uuid, i32)> = at_table
        .iter()
        .map(|r| (r.user_id, r.match_id, r.seq))
        .collect();
    let acted = acted(conn, &asked)?;
    let newer = replaced(conn, &at_table)?;
    let judged: HashMap<i64, Verdict> = at_table
        .iter()
        .map(|row| {
            let verdict = if acted.contains(&(row.user_id, row.match_id, row.seq)) {
                Verdict::Drop("its reader played at the table")
            } else if newer.contains(&row.id) {
                Verdict::Drop("a newer notice about the match replaced it")
            } else {
                let last = row.held_at.unwrap_or(now) + LONGEST_HOLD;
                match watched.get(&(row.user_id, row.match_id)) {
                    Some(until) if now < last => {
                        Verdict::Hold((*until).min(last).min(now + LOOK_AGAIN))
                    }
                    _ => Verdict::Send,
                }
            };
            (row.id, verdict)
        })
        .collect();
    let mut verdicts: Vec<Verdict> = (rows.iter())
        .map(|row| judged.get(&row.id).copied().unwrap_or(Verdict::Send))
        .collect();
    quieter_dropped(rows, &mut verdicts);
    Ok(verdicts)
}

/// Whether `row` goes to a browser or a phone, where a newer notice takes
/// an older one's place (a mail never does).
fn pushed(row: &Row) -> bool {
    matches!(
        Channel::parse(&row.channel),
        Some(Channel::Push(_) | Channel::App(_))
    )
}

/// Of `rows`, the pushes a newer notice of the same urgency about the
/// same match to the same device has followed (it takes their place on
/// the phone; a mail replaces nothing).
fn replaced(conn: &mut PgConnection, rows: &[&Row]) -> Result<HashSet<i64>, Error> {
    let rows: Vec<&Row> = rows.iter().copied().filter(|r| pushed(r)).collect();
    let Some(oldest) = rows.iter().map(|r| r.id).min() else {
        return Ok(HashSet::new());
    };
    let users: Vec<Uuid> = rows.iter().map(|r| r.user_id).collect();
    let matches: Vec<Uuid> = rows.iter().map(|r| r.match_id).collect();
    let later: Vec<(i64, Uuid, Uuid, String, String)> = notifications::table
        .filter(notifications::id.gt(oldest))
        .filter(notifications::user_id.eq_any(&users))
        .filter(notifications::match_id.eq_any(&matches))
        .select((
            notifications::id,
            notifications::user_id,
            notifications::match_id,
            notifications::channel,
            notifications::kind,
        ))
        .load(conn)?;
    let urgent = |kind: &str| Kind::parse(kind).is_some_and(Kind::urgent);
    Ok(rows
        .iter()
        .filter(|r| {
            later.iter().any(|(id, user, m, channel, kind)| {
                *id > r.id
                    && (*user, *m) == (r.user_id, r.match_id)
                    && *channel == r.channel
                    && urgent(kind) == urgent(&r.kind)
            })
        })
        .map(|r| r.id)
        .collect())
}

/// Two pushes about one match to one device in one batch: the push
/// services promise no order, so the one that arrives last could take
/// the other's place. A quieter notice is dropped when a more urgent one
/// about the same moment or later goes with it ("accepted" beside "your
/// turn" of the same append); a notice asking for a move is dropped when
/// the match has ended since (a held "your turn" beside the result). A
/// result or an elimination is never dropped, and a mail replaces nothing.
fn quieter_dropped(rows: &[&Row], verdicts: &mut [Verdict]) {
    let kind = |row: &Row| Kind::parse(&row.kind);
    // The latest seq of each sort going to each device about each match.
    let latest = |wanted: &dyn Fn(Kind) -> bool, verdicts: &[Verdict]| {
        let mut latest: HashMap<(Uuid, Uuid, &str), i32> = HashMap::new();
        let going = (rows.iter().zip(verdicts.iter())).filter(|(_, v)| **v == Verdict::Send);
        for (r, _) in going.filter(|(r, _)| pushed(r) && kind(r).is_some_and(wanted)) {
            let seq = latest
                .entry((r.user_id, r.match_id, r.channel.as_str()))
                .or_insert(r.seq);
            *seq = r.seq.max(*seq);
        }
        latest
    };
    let turns = latest(&|k| k.urgent(), verdicts);
    let ends = latest(&|k| k == Kind::MatchFinished, verdicts);
    for (row, verdict) in rows.iter().zip(verdicts.iter_mut()) {
        let (Some(k), true, Verdict::Send) = (kind(row), pushed(row), *verdict) else {
            continue;
        };
        let with = (row.user_id, row.match_id, row.channel.as_str());
        let lasting = matches!(k, Kind::MatchFinished | Kind::PlayerEliminated);
        if k.urgent() && ends.get(&with).is_some_and(|end| *end > row.seq) {
            *verdict = Verdict::Drop("the match ended since");
        } else if k.about_a_match()
            && !k.urgent()
            && !lasting
            && turns.get(&with).is_some_and(|turn| *turn >= row.seq)
        {
            *verdict = Verdict::Drop("a more urgent notice about the match went with it");
        }
    }
}

/// Notices held, dropped and sent after a hold, by kind.
static COUNTS: [[AtomicU64; 3]; Kind::ALL.len()] =
    [const { [const { AtomicU64::new(0) }; 3] }; Kind::ALL.len()];
const COUNTED: [&str; 3] = ["held", "dropped", "sent_after_hold"];

/// Counts what became of `row` for `/metrics`: 0 held (the first time
/// only), 1 dropped, 2 sent after a hold.
pub(super) fn count(row: &Row, verdict: Verdict) {
    let slot = match verdict {
        Verdict::Hold(_) if row.held_at.is_none() => 0,
        Verdict::Drop(_) => 1,
        Verdict::Send if row.held_at.is_some() => 2,
        _ => return,
    };
    if let Some(kind) = Kind::ALL.iter().position(|k| k.name() == row.kind) {
        COUNTS[kind][slot].fetch_add(1, Relaxed);
    }
}

/// The counters in Prometheus's text format.
pub fn metrics() -> String {
    use std::fmt::Write;
    let mut out = String::from("# TYPE posthorn_notices_at_table_total counter\n");
    for (kind, counts) in Kind::ALL.iter().zip(COUNTS.iter()) {
        for (what, n) in COUNTED.iter().zip(counts) {
            let _ = writeln!(
                out,
                "posthorn_notices_at_table_total{{kind=\"{}\",outcome=\"{what}\"}} {}",
                kind.name(),
                n.load(Relaxed)
            );
        }
    }
    out
}

/// A live stream of `match_id` opened by `user`, lasting until `until`.
pub fn sit(
    conn: &mut PgConnection,
    stream: Uuid,
    user: Uuid,
    match_id: Uuid,
    until: DateTime<Utc>,
) -> Result<(), Error> {
    diesel::insert_into(watchers::table)
        .values((
            watchers::stream.eq(stream),
            watchers::user_id.eq(user),
            watchers::match_id.eq(match_id),
            watchers::until.eq(until),
        ))
        .on_conflict(watchers::stream)
        .do_update()
        .set(watchers::until.eq(until))
        .execute(conn)?;
    Ok(())
}

/// The stream closed. Lapsed rows of others go with it: the table holds
/// only what may still be watched.
pub fn rise(conn: &mut PgConnection, stream: Uuid, now: DateTime<Utc>) -> Result<(), Error> {
    diesel::delete(watchers::table.filter(watchers::stream.eq(stream).or(watchers::until.lt(now))))
        .execute(conn)?;
    Ok(())
}

/// Of `pairs` (user, match), those watched at `now`, with when the last of
/// their streams ends.
pub(super) fn watched(
    conn: &mut PgConnection,
    pairs: &[(Uuid, Uuid)],
    now: DateTime<Utc>,
) -> Result<HashMap<(Uuid, Uuid), DateTime<Utc>>, Error> {
    if pairs.is_empty() {
        return Ok(HashMap::new());
    }
    let users: Vec<Uuid> = pairs.iter().map(|p| p.0).collect();
    let rows: Vec<(Uuid, Uuid, DateTime<Utc>)> = watchers::table
        .filter(watchers::user_id.eq_any(&users))
        .filter(watchers::until.gt(now))
        .select((watchers::user_id, watchers::match_id, watchers::until))
        .load(conn)?;
    let mut watched = HashMap::new();
    for (user, match_id, until) in rows {
        if pairs.contains(&(user, match_id)) {
            let last = watched.entry((user, match_id)).or_insert(until);
            *last = until.max(*last);
        }
    }
    Ok(watched)
}

/// A player's watching rows go with the account.
pub const PERSONAL: Owner = Owner::erasing(
    "notify::at_table",
    &["watchers"],
    forget,
    Exported::Not("which match pages are open this minute: a row lasts as long as its page"),
);

fn forget(conn: &mut PgConnection, leaving: &mut Leaving<'_>) -> Result<(), Error> {
    diesel::delete(watchers::table.filter(watchers::user_id.eq(leaving.user))).execute(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, kind: Kind, seq: i32, channel: &str) -> Row {
        Row {
            id,
            user_id: Uuid::nil(),
            match_id: Uuid::nil(),
            seq,
            kind: kind.name().into(),
            channel: channel.into(),
            payload: serde_json::Value::Null,
            attempts: 0,
            created_at: DateTime::<Utc>::MIN_UTC,
            held_at: None,
            request_id: None,
        }
    }

    fn verdicts(rows: &[Row]) -> Vec<Verdict> {
        let rows: Vec<&Row> = rows.iter().collect();
        let mut verdicts = vec![Verdict::Send; rows.len()];
        quieter_dropped(&rows, &mut verdicts);
        verdicts
    }

    /// Never replaced by something quieter
    /// (docs/decisions/notifications.md), and the review's case: a result
    /// is never lost to a stale turn; "accepted" never rides beside the
    /// turn of its append.
    #[test]
    fn the_quieter_or_stale_push_of_a_batch_is_dropped_and_a_result_never() {
        let phone = format!("push:{}", Uuid::nil());
        let dropped = |v: &Verdict| matches!(v, Verdict::Drop(_));
        let accepted = [
            row(1, Kind::YourTurn, 3, &phone),
            row(2, Kind::InvitationAccepted, 3, &phone),
        ];
        assert_eq!(
            verdicts(&accepted).iter().map(dropped).collect::<Vec<_>>(),
            [false, true]
        );
        let ended = [
            row(1, Kind::YourTurn, 10, &phone),
            row(2, Kind::MatchFinished, 11, &phone),
        ];
        assert_eq!(
            verdicts(&ended).iter().map(dropped).collect::<Vec<_>>(),
            [true, false]
        );
        // News after the turn is newer: it goes.
        let later = [
            row(1, Kind::YourTurn, 10, &phone),
            row(2, Kind::Message, 11, &phone),
        ];
        assert!(!verdicts(&later).iter().any(dropped));
        // A mail replaces nothing.
        let mails = [
            row(1, Kind::YourTurn, 3, "email"),
            row(2, Kind::InvitationAccepted, 3, "email"),
        ];
        assert!(!verdicts(&mails).iter().any(dropped));
    }
}
