//! The notices policy (issue #31: every notice goes through here): what
//! an append to a match's log tells its players (the [`Tell`] reaction),
//! and what the lobby tells them — invited, a rematch offered, a match
//! cancelled. The notices go to the outbox in the same statement as the
//! events (`notify::outbox`), which knows nothing of matches.

use crate::error::Error;
use crate::matches::duties::TimedDuty;
use crate::matches::reactions::{Appended, Reaction};
use crate::matches::{EventRow, MatchStatus, ServiceEvent, Table};
use crate::notify::outbox::Notice;
use crate::notify::Kind;
use diesel::PgConnection;
use posthorn_rules::{DutyKind, Seat};
use serde_json::json;
use uuid::Uuid;

/// A vacation shorter than this ends without telling the opponents
/// (issue #46): its start told them already, and it cost a whole day.
const TOLD_BACK_AFTER: chrono::Duration =
    chrono::Duration::hours(crate::vacation::LEAST_CHARGE_HOURS as i64);

/// The notices reaction: every append is told to the players it
/// concerns, in its transaction.
pub struct Tell;

impl Reaction for Tell {
    fn react(
        &self,
        _conn: &mut PgConnection,
        table: &mut Table,
        appended: &Appended,
    ) -> Result<Vec<Notice>, Error> {
        after_append(
            table,
            appended.duties_before,
            appended.was_finished,
            appended.stored,
        )
    }
}

/// What an append tells the players: a duty newly owed, the end of the
/// match, a timeout notice, an accepted invitation.
pub fn after_append(
    table: &Table,
    duties_before: &[TimedDuty],
    was_finished: bool,
    appended: &[EventRow],
) -> Result<Vec<Notice>, Error> {
    let row = &table.row;
    // The people seated: a computer hears nothing (issue #32).
    let user_at = |seat: Seat| {
        (table.seats.get(seat.index()).copied().flatten())
            .filter(|user| !crate::computer::is_computer(user))
    };
    let people: Vec<Uuid> = (0..table.seats.len() as u8)
        .map(Seat)
        .filter_map(user_at)
        .collect();
    let mut notices = Vec::new();
    let mut notice = |user, seq, kind, payload| {
        notices.push(Notice {
            user,
            seq,
            kind,
            payload,
        })
    };
    if row.status == MatchStatus::Active {
        for duty in table.duties()? {
            let known = duties_before
                .iter()
                .any(|d| d.seat == duty.seat && d.kind == duty.kind);
            let kind = match duty.kind {
                DutyKind::Turn => Kind::YourTurn,
                DutyKind::DrawReply => Kind::DrawOffered,
                DutyKind::FlipDecision => Kind::FlipDecision,
                DutyKind::LastCard => continue,
            };
            // An untimed match (against the computer, issue #32) tells no
            // duty: the computer answers within seconds, and the person
            // has no deadline to be reminded of.
            if duty.deadline_at.is_none() {
                continue;
            }
            if let (false, Some(user)) = (known, user_at(duty.seat)) {
                let payload = json!({"game": row.game, "deadline_at": duty.deadline_at});
                notice(user, row.seq, kind, payload);
            }
        }
    }
    // A stored conditional reply (issue #34), once its turn is played:
    // its player hears that it was played for them.
    if let Some(seat) = table.on_behalf {
        let done = !table.duties()?.iter().any(|d| d.seat == seat);
        if let (true, Some(user)) = (done, user_at(seat)) {
            notice(
                user,
                row.seq,
                Kind::ConditionalPlayed,
                json!({"game": row.game}),
            );
        }
    }
    if row.status == MatchStatus::Finished && !was_finished {
        let payload = json!({"game": row.game, "result": row.result});
        for user in &people {
            notice(*user, row.seq, Kind::MatchFinished, payload.clone());
        }
    }
    // A game that puts a player out of a continuing match says so with an
    // `eliminated` event (contract docs): everyone seated hears of it.
    for event in appended.iter().filter(|e| e.rules) {
        if event.body["type"] == "eliminated" && row.status == MatchStatus::Active {
            let payload = json!({
                "game": row.game,
                "army": event.body["army"],
                "reason": event.body["reason"],
            });
            for user in &people {
                notice(*user, event.seq, Kind::PlayerEliminated, payload.clone());
            }
        }
    }
    for event in appended.iter().filter(|e| !e.rules) {
        let seat = event.seat.map(|s| Seat(s as u8));
        // The players of the other seats (not the event's seat's player).
        let own = seat.and_then(user_at);
        let others: Vec<Uuid> = (0..table.seats.len() as u8)
            .map(Seat)
            .filter(|s| Some(*s) != seat)
            .filter_map(user_at)
            .filter(|u| Some(*u) != own)
            .collect();
        let (seq, game) = (event.seq, &row.game);
        match ServiceEvent::from_body(&event.body) {
            Some(ServiceEvent::TimeoutNotice { deadline_at, .. }) => {
                if let Some(user) = own {
                    let payload = json!({"game": game, "deadline_at": deadline_at});
                    notice(user, seq, Kind::TimeoutNotice, payload);
                }
            }
            Some(ServiceEvent::PlayerJoined) => {
                notice(
                    row.created_by,
                    seq,
                    Kind::InvitationAccepted,
                    json!({"game": game}),
                );
            }
            // Takebacks between people (issue #34): the opponent hears of
            // the request, the asker of the answer.
            Some(ServiceEvent::TakebackRequested { .. }) => {
                for user in others {
                    notice(user, seq, Kind::TakebackRequested, json!({"game": game}));
                }
            }
            Some(ServiceEvent::TakebackDeclined) => {
                let payload = json!({"game": game, "accepted": false});
                for user in others {
                    notice(user, seq, Kind::TakebackAnswered, payload.clone());
                }
            }
            Some(ServiceEvent::TakenBack {
                accepted_by: Some(_),
                ..
            }) => {
                if let Some(user) = own {
                    let payload = json!({"game": game, "accepted": true});
                    notice(user, seq, Kind::TakebackAnswered, payload);
                }
            }
            // Vacation (issue #34): the others hear once that a player went
            // away (a duty paused later, by the sweep, tells nobody; a
            // player starts one vacation a day) and that they are back,
            // only after a vacation of a day or more (issue #46): a start
            // and end toggled within it mails each opponent once.
            Some(ServiceEvent::OnVacation { since, until }) if since == event.at => {
                let payload = json!({"game": game, "until": until});
                for user in others {
                    notice(user, seq, Kind::OpponentOnVacation, payload.clone());
                }
            }
            Some(ServiceEvent::BackFromVacation { since })
                if since.is_none_or(|since| event.at - since >= TOLD_BACK_AFTER) =>
            {
                for user in others {
                    notice(user, seq, Kind::OpponentBack, json!({"game": game}));
                }
            }
            Some(
                ServiceEvent::TimeGranted { .. }
                | ServiceEvent::Cancelled { .. }
                | ServiceEvent::TakenBack { .. }
                | ServiceEvent::OnVacation { .. }
                | ServiceEvent::BackFromVacation { .. },
            )
            | None => {}
        }
    }
    Ok(notices)
}

/// The challenged (and those seated at once by their friend settings)
/// hear of the match they were named for.
pub fn invited(users: &[Uuid], table: &Table) -> Vec<Notice> {
    let payload = json!({"game": table.row.game});
    to_each(users, table.row.seq, Kind::Invitation, payload)
}

/// The players who have not asked yet hear that a rematch is offered.
pub fn rematch_offered(users: &[Uuid], table: &Table) -> Vec<Notice> {
    let payload = json!({"game": table.row.game, "rematch_of": table.row.id});
    to_each(users, table.row.seq, Kind::Invitation, payload)
}

/// A seek that found nobody is played against the computer (issue #32):
/// its match is untimed, so no "your turn" tells the seeker, who may have
/// walked away; this does, as an accepted invitation ("your opponent is
/// here"), naming the computer's level.
pub fn seek_met_computer(seeker: Uuid, seq: i32, game: &str, level: &str) -> Notice {
    Notice {
        user: seeker,
        seq,
        kind: Kind::InvitationAccepted,
        payload: json!({"game": game, "computer": level}),
    }
}

/// The players and the challenged hear that the match will not be played.
pub fn cancelled(users: &[Uuid], table: &Table, reason: &str) -> Vec<Notice> {
    let payload = json!({"game": table.row.game, "reason": reason});
    to_each(users, table.row.seq, Kind::MatchCancelled, payload)
}

fn to_each(users: &[Uuid], seq: i32, kind: Kind, payload: serde_json::Value) -> Vec<Notice> {
    (users.iter())
        .map(|user| Notice {
            user: *user,
            seq,
            kind,
            payload: payload.clone(),
        })
        .collect()
}
