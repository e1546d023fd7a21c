//! Correspondence deadlines of the duties a match owes (docs/rules/timing.md §T).
//!
//! Each duty the rules report keeps the time it began; its notice comes at
//! half the match's turn time (§T1) and its deadline at the full turn time.
//! A duty that continues from one state to the next (the same seat still
//! owes the same kind of action, e.g. in the middle of a several-step turn,
//! or while a draw offer waits) keeps its times; a new duty starts now.
//!
//! One function derives the clock
//! (docs/decisions/matches-and-deadlines.md): [`derive`], from the time
//! control, the duties the rules report and the service events that move
//! the clock (a recorded notice, a grant of courtesy time). It runs on
//! every append; `Table::set_duties` is the one writer of its result.

use chrono::{DateTime, Duration, Utc};
use posthorn_rules::{Duty, DutyKind, Seat};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A duty with its deadlines, as stored on the match row and shown in
/// `to_act`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TimedDuty {
    #[schema(value_type = u8)]
    pub seat: Seat,
    #[schema(value_type = String, example = "turn")]
    pub kind: DutyKind,
    pub since: DateTime<Utc>,
    /// When the §T2 timeout notice comes, and when the duty is forfeit
    /// (§T3); both absent in an untimed match (one against the computer,
    /// issue #32: no deadline for the person).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_at: Option<DateTime<Utc>>,
    /// End of a short window (FlipChess "last card!", §F8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closes_at: Option<DateTime<Utc>>,
    /// Whether the §T2 timeout notice for this duty has been recorded.
    #[serde(default)]
    pub noticed: bool,
    /// Since when the duty is paused: its seat's player is on vacation
    /// (issue #34). A paused duty's notice and deadline do not come; they
    /// resume with the time that was left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_at: Option<DateTime<Utc>>,
    /// The end date its player gave their vacation, if any: opponents see
    /// "on vacation until …".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub away_until: Option<DateTime<Utc>>,
}

impl TimedDuty {
    /// Whether its notice or deadline may come (it is not paused).
    pub fn running(&self) -> bool {
        self.paused_at.is_none()
    }
}

/// A paused duty resumes with at least this long before its deadline, so
/// that a player back from vacation (or saved by it at the deadline) is
/// not forfeited the moment they return
/// (docs/decisions/matches-and-deadlines.md, "Vacation").
pub const RESUME_AT_LEAST: Duration = Duration::hours(1);

pub fn millis_to_time(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

/// A service event that moves the clock (its seat is the duty's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockEvent {
    /// §T2: the timeout notice of `seat`'s duty of `kind` was recorded.
    Noticed { seat: Seat, kind: DutyKind },
    /// Courtesy time (docs/decisions/matches-and-deadlines.md, "Courtesy
    /// time"): `seat`'s turn gets `hours` more; its notice moves too, and
    /// is due again if it now lies ahead.
    Granted { seat: Seat, hours: i64 },
    /// `seat`'s player is on vacation since `since`
    /// (docs/decisions/matches-and-deadlines.md, "Vacation"): its duties
    /// stop, each from when it began if that is later.
    Paused {
        seat: Seat,
        since: DateTime<Utc>,
        until: Option<DateTime<Utc>>,
    },
    /// `seat`'s player is back: its paused duties go on with the time
    /// they had left (at least [`RESUME_AT_LEAST`]).
    Resumed { seat: Seat },
}

/// The clock after an append: the duties the rules now report (`owed`),
/// timed from `previous` and `turn_seconds` ([`schedule`]), then moved by
/// the appended service events, in order. The one place a deadline is
/// decided.
pub fn derive(
    previous: &[TimedDuty],
    owed: &[Duty],
    events: &[ClockEvent],
    now: DateTime<Utc>,
    turn_seconds: i64,
) -> Vec<TimedDuty> {
    let mut timed = schedule(previous, owed, now, turn_seconds);
    for event in events {
        match *event {
            ClockEvent::Noticed { seat, kind } => timed
                .iter_mut()
                .filter(|d| d.seat == seat && d.kind == kind)
                .for_each(|d| d.noticed = true),
            ClockEvent::Granted { seat, hours } => {
                let extra = Duration::hours(hours);
                for duty in timed
                    .iter_mut()
                    .filter(|d| d.seat == seat && d.kind == DutyKind::Turn)
                {
                    duty.notice_at = duty.notice_at.map(|at| at + extra);
                    duty.deadline_at = duty.deadline_at.map(|at| at + extra);
                    duty.noticed = duty.noticed && duty.notice_at.is_some_and(|at| at <= now);
                }
            }
            ClockEvent::Paused { seat, since, until } => {
                for duty in timed.iter_mut().filter(|d| d.seat == seat && d.running()) {
                    duty.paused_at = Some(since.max(duty.since));
                    duty.away_until = until;
                }
            }
            ClockEvent::Resumed { seat } => {
                for duty in timed.iter_mut().filter(|d| d.seat == seat) {
                    let Some(paused_at) = duty.paused_at.take() else {
                        continue;
                    };
                    duty.away_until = None;
                    let Some(deadline_at) = duty.deadline_at else {
                        continue;
                    };
                    let left = (deadline_at - paused_at).max(RESUME_AT_LEAST);
                    let shift = (now + left) - deadline_at;
                    duty.deadline_at = Some(now + left);
                    duty.notice_at = duty.notice_at.map(|at| at + shift);
                }
            }
        }
    }
    timed
}

/// The duties now owed, with times carried over from `previous`; a
/// `turn_seconds` of 0 is an untimed match (no notice, no deadline).
pub fn schedule(
    previous: &[TimedDuty],
    duties: &[Duty],
    now: DateTime<Utc>,
    turn_seconds: i64,
) -> Vec<TimedDuty> {
    duties
        .iter()
        .map(|duty| {
            let closes_at = duty.closes_at.map(millis_to_time);
            match previous
                .iter()
                .find(|p| p.seat == duty.seat && p.kind == duty.kind)
            {
                Some(kept) => TimedDuty {
                    closes_at,
                    ..kept.clone()
                },
                None => TimedDuty {
                    seat: duty.seat,
                    kind: duty.kind,
                    since: now,
                    notice_at: (turn_seconds > 0)
                        .then(|| now + Duration::seconds(turn_seconds / 2)),
                    deadline_at: (turn_seconds > 0).then(|| now + Duration::seconds(turn_seconds)),
                    closes_at,
                    noticed: false,
                    paused_at: None,
                    away_until: None,
                },
            }
        })
        .collect()
}

/// The earliest notice not yet recorded, for the match row's sweep index.
pub fn next_notice(duties: &[TimedDuty]) -> Option<DateTime<Utc>> {
    duties
        .iter()
        .filter(|d| !d.noticed && d.running())
        .filter_map(|d| d.notice_at)
        .min()
}

/// The earliest deadline or short-window end, for the sweep index.
pub fn next_deadline(duties: &[TimedDuty]) -> Option<DateTime<Utc>> {
    duties
        .iter()
        .flat_map(|d| [d.deadline_at.filter(|_| d.running()), d.closes_at])
        .flatten()
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(h: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + h * 3600, 0).unwrap()
    }

    #[test]
    fn t1_a_new_duty_gets_its_notice_at_half_and_deadline_at_the_full_turn() {
        let d = schedule(&[], &[Duty::new(Seat(0), DutyKind::Turn)], at(0), 48 * 3600);
        assert_eq!(
            (d[0].notice_at, d[0].deadline_at),
            (Some(at(24)), Some(at(48)))
        );
        assert_eq!(next_notice(&d), Some(at(24)));
        assert_eq!(next_deadline(&d), Some(at(48)));
    }

    #[test]
    fn a_continuing_duty_keeps_its_times_and_a_new_one_starts_now() {
        let first = schedule(&[], &[Duty::new(Seat(0), DutyKind::Turn)], at(0), 48 * 3600);
        let duties = [
            Duty::new(Seat(0), DutyKind::Turn),
            Duty::new(Seat(1), DutyKind::DrawReply),
        ];
        let next = schedule(&first, &duties, at(5), 48 * 3600);
        assert_eq!(next[0].since, at(0));
        assert_eq!(next[1].since, at(5));
        assert_eq!(next_deadline(&next), Some(at(48)));
    }

    #[test]
    fn t2_a_recorded_notice_marks_its_duty_and_a_grant_moves_both_times() {
        let turn = [Duty::new(Seat(0), DutyKind::Turn)];
        let first = derive(&[], &turn, &[], at(0), 48 * 3600);
        let noticed = ClockEvent::Noticed {
            seat: Seat(0),
            kind: DutyKind::Turn,
        };
        let after = derive(&first, &turn, &[noticed], at(30), 48 * 3600);
        assert!(after[0].noticed);
        assert_eq!(next_notice(&after), None);
        // 24 hours more: the notice (now at 48 h) lies ahead again.
        let granted = ClockEvent::Granted {
            seat: Seat(0),
            hours: 24,
        };
        let later = derive(&after, &turn, &[granted], at(31), 48 * 3600);
        assert_eq!(
            (later[0].notice_at, later[0].deadline_at, later[0].noticed),
            (Some(at(48)), Some(at(72)), false)
        );
        // A grant to a seat that owes nothing moves nothing.
        let other = ClockEvent::Granted {
            seat: Seat(1),
            hours: 24,
        };
        assert_eq!(derive(&first, &turn, &[other], at(1), 48 * 3600), first);
    }

    #[test]
    fn a_paused_duty_keeps_its_time_left_and_resumes_with_it() {
        let turn = [Duty::new(Seat(0), DutyKind::Turn)];
        let first = derive(&[], &turn, &[], at(0), 48 * 3600);
        let paused = ClockEvent::Paused {
            seat: Seat(0),
            since: at(10),
            until: Some(at(200)),
        };
        let away = derive(&first, &turn, &[paused], at(10), 48 * 3600);
        assert_eq!(
            (away[0].paused_at, away[0].away_until),
            (Some(at(10)), Some(at(200)))
        );
        assert_eq!((next_notice(&away), next_deadline(&away)), (None, None));
        // A week later the player is back: 38 hours were left, 14 to the notice.
        let back = ClockEvent::Resumed { seat: Seat(0) };
        let resumed = derive(&away, &turn, &[back], at(178), 48 * 3600);
        assert_eq!(resumed[0].paused_at, None);
        assert_eq!(
            (resumed[0].notice_at, resumed[0].deadline_at),
            (Some(at(192)), Some(at(216)))
        );
        // Paused at its deadline (saved by auto-vacation), a duty resumes
        // with an hour; a duty newly owed while away pauses from its start.
        let at_deadline = ClockEvent::Paused {
            seat: Seat(0),
            since: at(48),
            until: None,
        };
        let saved = derive(&first, &turn, &[at_deadline], at(48), 48 * 3600);
        let resumed = derive(&saved, &turn, &[back], at(100), 48 * 3600);
        assert_eq!(resumed[0].deadline_at, Some(at(101)));
        let early = ClockEvent::Paused {
            seat: Seat(0),
            since: at(-5),
            until: None,
        };
        assert_eq!(
            derive(&first, &turn, &[early], at(3), 48 * 3600)[0].paused_at,
            Some(at(0))
        );
    }
}
