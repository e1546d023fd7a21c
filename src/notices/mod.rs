//! The notices policy (docs/decisions/notifications.md: every notice goes
//! through here): what an append to a match's log tells its players (the
//! [`Tell`] reaction), and what the lobby tells them — invited, a rematch
//! offered, a match cancelled. The notices go to the outbox in the same
//! statement as the events (`notify::outbox`), which knows nothing of
//! matches. And which notices come by the clock ([`TIMED`]).

pub mod digest;

use crate::error::Error;
use crate::matches::duties::TimedDuty;
use crate::matches::reactions::{Appended, Reaction};
use crate::matches::{EventRow, MatchStatus, ServiceEvent, Table};
use crate::notify::outbox::Notice;
use crate::notify::timed::Timed;
use crate::notify::Kind;
use chrono::{DateTime, Utc};
use diesel::PgConnection;
use posthorn_rules::{DutyKind, MatchState, Seat, Told};
use serde_json::json;
use uuid::Uuid;

/// The notices that come by the clock, each queued in its own transaction
/// by the outbox job before it delivers: the daily digest, a table's
/// message notices, the morning puzzle.
pub static TIMED: [Timed; 3] = [
    Timed {
        name: "digest",
        queue_due: digest::enqueue_due,
    },
    Timed {
        name: "message notices",
        queue_due: crate::talk::told::enqueue_due,
    },
    Timed {
        name: "morning puzzle",
        queue_due: crate::puzzles::morning::enqueue_due,
    },
];

/// A vacation shorter than this ends without telling the opponents
/// (docs/decisions/matches-and-deadlines.md, "Vacation"): its start told
/// them already, and it cost a whole day.
const TOLD_BACK_AFTER: chrono::Duration =
    chrono::Duration::hours(crate::vacation::LEAST_CHARGE_HOURS as i64);

/// The notices reaction: every append is told to the players it
/// concerns, in its transaction. It runs after the rating update, whose
/// changes the finished match's notice shows (docs/architecture.md).
pub struct Tell;

impl Reaction for Tell {
    fn react(
        &self,
        _conn: &mut PgConnection,
        table: &mut Table,
        appended: &Appended,
    ) -> Result<Vec<Notice>, Error> {
        after_append(table, appended)
    }
}

/// Who hears of an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Audience {
    /// The player of the event's own seat.
    Own,
    /// The players of the other seats.
    Others,
    /// Everyone seated.
    Everyone,
    /// Who made the match.
    Creator,
}

/// An event as it is heard: by whom, as what kind, with what besides the
/// game.
struct Heard {
    to: Audience,
    kind: Kind,
    payload: serde_json::Value,
}

fn heard(to: Audience, kind: Kind, payload: serde_json::Value) -> Option<Heard> {
    Some(Heard { to, kind, payload })
}

/// What each service event tells, and whom. Takebacks between people
/// (docs/decisions/matches-and-deadlines.md, "Takebacks by consent"): the
/// opponent hears of the request, the asker of the answer. Vacation: the
/// others hear once that a player went away (a duty paused later, by the
/// sweep, tells nobody; a player starts one vacation a day) and that they
/// are back, only after a vacation of a day or more
/// (docs/decisions/matches-and-deadlines.md, "Vacation"): a start and end
/// toggled within it mails each opponent once.
fn heard_of(event: &ServiceEvent, at: DateTime<Utc>) -> Option<Heard> {
    use Audience::*;
    match event {
        ServiceEvent::TimeoutNotice { deadline_at, .. } => heard(
            Own,
            Kind::TimeoutNotice,
            json!({"deadline_at": deadline_at}),
        ),
        ServiceEvent::PlayerJoined => heard(Creator, Kind::InvitationAccepted, json!({})),
        ServiceEvent::TakebackRequested { .. } => heard(Others, Kind::TakebackRequested, json!({})),
        ServiceEvent::TakebackDeclined => {
            heard(Others, Kind::TakebackAnswered, json!({"accepted": false}))
        }
        ServiceEvent::TakenBack {
            accepted_by: Some(_),
            ..
        } => heard(Own, Kind::TakebackAnswered, json!({"accepted": true})),
        ServiceEvent::OnVacation { since, until } if *since == at => {
            heard(Others, Kind::OpponentOnVacation, json!({"until": until}))
        }
        ServiceEvent::BackFromVacation { since }
            if since.is_none_or(|since| at - since >= TOLD_BACK_AFTER) =>
        {
            heard(Others, Kind::OpponentBack, json!({}))
        }
        ServiceEvent::TimeGranted { .. }
        | ServiceEvent::Cancelled { .. }
        | ServiceEvent::TakenBack { .. }
        | ServiceEvent::OnVacation { .. }
        | ServiceEvent::BackFromVacation { .. } => None,
    }
}

/// A rules event as it is heard: only a side put out of a match that
/// goes on, which everyone seated hears of (`Game::put_out`).
fn heard_of_rules(table: &Table, event: &EventRow) -> Result<Option<Heard>, Error> {
    if table.row.status != MatchStatus::Active {
        return Ok(None);
    }
    let out = MatchState::put_out(table.game, &event.body).map_err(Error::internal)?;
    Ok(out.and_then(|out| {
        let payload = json!({"army": out.side, "reason": out.reason});
        heard(Audience::Everyone, Kind::PlayerEliminated, payload)
    }))
}

/// The kind a newly owed duty is heard as; a last-card call is not told
/// (it lasts seconds, §F8).
fn duty_kind(duty: DutyKind) -> Option<Kind> {
    match duty {
        DutyKind::Turn => Some(Kind::YourTurn),
        DutyKind::DrawReply => Some(Kind::DrawOffered),
        DutyKind::FlipDecision => Some(Kind::FlipDecision),
        DutyKind::LastCard => None,
    }
}

/// The people seated at `table`: a computer hears nothing (docs/bots.md,
/// "In the service").
fn person_at(table: &Table, seat: Seat) -> Option<Uuid> {
    (table.seats.get(seat.index()).copied().flatten())
        .filter(|user| !crate::computer::is_computer(user))
}

/// Who of `table` is `to`, for an event of `seat`.
fn audience(table: &Table, to: Audience, seat: Option<Seat>) -> Vec<Uuid> {
    let seats = (0..table.seats.len() as u8).map(Seat);
    let own = seat.and_then(|s| person_at(table, s));
    match to {
        Audience::Own => own.into_iter().collect(),
        // The players of the other seats (not the event's seat's player).
        Audience::Others => (seats.filter(|s| Some(*s) != seat))
            .filter_map(|s| person_at(table, s))
            .filter(|u| Some(*u) != own)
            .collect(),
        Audience::Everyone => seats.filter_map(|s| person_at(table, s)).collect(),
        Audience::Creator => vec![table.row.created_by],
    }
}

/// The duties newly owed, as heard by their seat's player. An untimed
/// match (against the computer; docs/bots.md, "In the service") tells no
/// duty: the computer answers within seconds, and the person has no
/// deadline to be reminded of.
fn newly_owed(duties: &[TimedDuty], before: &[TimedDuty]) -> Vec<(Seat, Heard)> {
    (duties.iter())
        .filter(|duty| !(before.iter()).any(|d| d.seat == duty.seat && d.kind == duty.kind))
        .filter(|duty| duty.deadline_at.is_some())
        .filter_map(|duty| {
            let payload = json!({"deadline_at": duty.deadline_at});
            Some((
                duty.seat,
                heard(Audience::Own, duty_kind(duty.kind)?, payload)?,
            ))
        })
        .collect()
}

/// What an append tells the players: each duty newly owed, a conditional
/// reply played, the end of the match, then each event as [`heard_of`]
/// and [`heard_of_rules`] say.
fn after_append(table: &Table, appended: &Appended) -> Result<Vec<Notice>, Error> {
    let row = &table.row;
    let duties = table.duties()?;
    // (the seat it concerns, what is heard, at which seq)
    let mut heard_all: Vec<(Option<Seat>, Heard, i32)> = Vec::new();
    if row.status == MatchStatus::Active {
        let owed = newly_owed(&duties, appended.duties_before).into_iter();
        heard_all.extend(owed.map(|(seat, h)| (Some(seat), h, row.seq)));
    }
    // A stored conditional reply (docs/decisions/matches-and-deadlines.md,
    // "Conditional moves"), once its turn is played: its player hears that
    // it was played for them.
    if let Some(seat) = appended
        .on_behalf
        .filter(|s| !duties.iter().any(|d| d.seat == *s))
    {
        let played = heard(Audience::Own, Kind::ConditionalPlayed, json!({}));
        heard_all.extend(played.map(|h| (Some(seat), h, row.seq)));
    }
    if appended.ended(row) {
        let over = heard(
            Audience::Everyone,
            Kind::MatchFinished,
            json!({"result": row.result}),
        );
        heard_all.extend(over.map(|h| (None, h, row.seq)));
    }
    for event in appended.stored {
        let heard = match event.rules {
            true => heard_of_rules(table, event)?,
            false => ServiceEvent::from_body(&event.body).and_then(|e| heard_of(&e, event.at)),
        };
        let seat = event.seat.map(|s| Seat(s as u8));
        heard_all.extend(heard.map(|h| (seat, h, event.seq)));
    }
    let mut told = Vec::new();
    for (seat, mut heard, seq) in heard_all {
        heard.payload["game"] = json!(row.game);
        if let Some(variant) = &row.variant {
            heard.payload["variant"] = json!(variant);
        }
        match (heard.kind, seat) {
            // Ids, never names: a name is read when the notice is sent.
            (Kind::MatchFinished, _) => heard.payload["players"] = json!(table.seats),
            (Kind::YourTurn, Some(seat)) => {
                if let Some(last) = last_move(table, appended, seat) {
                    heard.payload["last"] = last;
                }
            }
            _ => {}
        }
        for user in audience(table, heard.to, seat) {
            let (kind, payload) = (heard.kind, heard.payload.clone());
            told.push(Notice {
                user,
                seq,
                kind,
                payload,
            });
        }
    }
    Ok(told)
}

/// The last move of another seat in this append, as a turn notice tells
/// it (docs/decisions/notifications.md, "The lock screen"): who made it,
/// the piece and its squares, only what every seat sees (`Game::told`).
fn last_move(table: &Table, appended: &Appended, to: Seat) -> Option<serde_json::Value> {
    let (mover, told) = (appended.stored.iter().rev())
        .filter(|e| e.rules && e.seat.is_some_and(|s| s != i16::from(to.0)))
        .find_map(|e| Some((e.seat?, table.state.told(&e.body).ok()??)))?;
    let by = table.seats.get(mover as usize).copied().flatten();
    Some(match told {
        Told::Moved { piece, from, to } => {
            json!({"by": by, "piece": piece, "from": from, "to": to})
        }
        Told::TurnedUp { piece, at } => json!({"by": by, "piece": piece, "at": at}),
    })
}

/// What a tournament tells its players (docs/tournaments.md).
pub enum TournamentNews {
    /// Invited, with the terms they would play on.
    Invited {
        terms: serde_json::Value,
    },
    Started,
    /// A knockout's new round (its number tells one round's notice from
    /// another's).
    Round(i32),
    /// Over, with the final standings in a line.
    Finished {
        standings: String,
    },
}

/// `users` hear `news` of the tournament `name` of `game`.
pub fn tournament(users: &[Uuid], game: &str, name: &str, news: TournamentNews) -> Vec<Notice> {
    let mut payload = json!({"game": game, "tournament": name});
    let (kind, seq) = match news {
        TournamentNews::Invited { terms } => {
            if let (Some(p), serde_json::Value::Object(terms)) = (payload.as_object_mut(), terms) {
                p.extend(terms);
            }
            (Kind::TournamentInvited, 0)
        }
        TournamentNews::Started => (Kind::TournamentStarted, 0),
        TournamentNews::Round(round) => (Kind::TournamentRound, round),
        TournamentNews::Finished { standings } => {
            payload["standings"] = json!(standings);
            (Kind::TournamentFinished, 0)
        }
    };
    to_each(users, seq, kind, payload)
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

/// A seek that found nobody is played against the computer (docs/bots.md,
/// "In the service"): its match is untimed, so no "your turn" tells the
/// seeker, who may have walked away; this does, as an accepted invitation
/// ("your opponent is here"), naming the computer's level.
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
