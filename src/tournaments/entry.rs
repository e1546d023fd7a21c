//! Who takes part: creating a tournament, inviting, joining, declining
//! and withdrawing (docs/tournaments.md). Every change locks the tournament's row
//! first (`super::load`), so entries and the start never cross.
//!
//! Invitations are mail to people who did not ask for it, so they are
//! limited as challenges are (docs/tournaments.md, docs/abuse.md): each invited
//! player is counted against `Limit::Challenge` and the per-pair rule
//! (`lobby::challenge::count_sent`), a creator has at most
//! [`OPEN_PER_CREATOR`] tournaments open, guests name nobody, and a player
//! who said no is never asked again.

use super::{EntrantState, Format, Seeding, Status, TournamentRow};
use crate::error::Error;
use crate::limits::Limit;
use crate::lobby::create::{game_config, invite_code, turn_seconds, GameChoice};
use crate::notices::TournamentNews;
use crate::schema::tournament_players;
use crate::schema::tournaments;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::MatchState;
use serde_json::json;
use uuid::Uuid;

/// A new tournament's terms, checked by [`create`].
pub struct Terms<'a> {
    pub name: &'a str,
    pub format: Format,
    pub choice: GameChoice<'a>,
    pub turn_hours: Option<f64>,
    pub rated: bool,
    /// Knockout seeds by rating (`true`) or at random.
    pub seed_by_rating: bool,
    pub starts_at: Option<DateTime<Utc>>,
}

/// Tournaments one creator may have open (taking players) at once.
/// Three lets an organiser run a club's weekly event beside a one-off and
/// a knockout; more is a way to keep many invitations waiting at once
/// (each open tournament holds up to 31), not a way to play more.
pub const OPEN_PER_CREATOR: i64 = 3;

/// The longest tournament name, in characters.
pub const NAME_MOST: usize = 80;

/// A tournament's `options` is a free object in its document (each
/// game's options are listed by `GET /v1/games`), so what the game
/// refuses in it is refused for its meaning: 422
/// (docs/decisions/api-and-schemas.md, "400 for form, 422 for meaning").
fn for_its_meaning(refused: impl Into<Error>) -> Error {
    refused.into().for_its_meaning()
}

/// Create a tournament with its creator in it and `invited` asked; the
/// row. A start time queues the start job. The game is checked as
/// `POST /v1/matches` checks it, down to a trial deal (`random`), so a
/// tournament never fails at its start for its options.
pub fn create(
    conn: &mut PgConnection,
    creator: Uuid,
    terms: Terms,
    invited: &[String],
    min_turn_seconds: i64,
    now: DateTime<Utc>,
    random: &mut dyn posthorn_rules::Random,
) -> Result<TournamentRow, Error> {
    // The name reaches people who did not ask for it: checked as a
    // nickname is (one line, nothing invisible or reordering).
    // What the document cannot say (trimmed, nothing invisible) is 422.
    let name = crate::names::display_text(terms.name, NAME_MOST).ok_or_else(|| {
        Error::unacceptable(format!(
            "a tournament's name is one line of 1 to {NAME_MOST} visible characters, \
             with no control or invisible ones"
        ))
    })?;
    let (game, config) = game_config(terms.choice)?;
    let seats = MatchState::seat_range(game, &config).map_err(for_its_meaning)?;
    // Four-player chess (even its two-person teams) is left out: its
    // groups-of-four round robin is optional and not built
    // (docs/tournaments.md, "Formats").
    if seats != (2..=2) {
        return Err(Error::unacceptable(format!(
            "tournaments are for two-player games; {} takes {} to {} players",
            game.id(),
            seats.start(),
            seats.end()
        )));
    }
    if matches!(terms.starts_at, Some(at) if at <= now) {
        return Err(Error::unacceptable("starts_at must be in the future"));
    }
    crate::lobby::create::fair_start(game, &config, terms.rated)?;
    MatchState::setup(game, &config, 2, random).map_err(for_its_meaning)?;
    ensure_few_open(conn, creator)?;
    let row = TournamentRow {
        id: Uuid::new_v4(),
        name,
        format: terms.format.id().to_owned(),
        game: game.id().to_owned(),
        variant: crate::lobby::create::chosen(&config, "variant", game.about().variants),
        mode: crate::lobby::create::chosen(&config, "mode", game.about().modes),
        options: config,
        turn_seconds: turn_seconds(terms.turn_hours, min_turn_seconds)?,
        rated: terms.rated,
        seeding: if terms.seed_by_rating {
            Seeding::Rating
        } else {
            Seeding::Random
        },
        status: Status::Open,
        invite_code: invite_code(),
        created_by: creator,
        created_at: now,
        starts_at: terms.starts_at,
        started_at: None,
        finished_at: None,
    };
    diesel::insert_into(crate::schema::tournaments::table)
        .values(&row)
        .execute(conn)?;
    set_state(conn, row.id, creator, EntrantState::Joined, now)?;
    invite(conn, &row, creator, invited, now)?;
    if let Some(at) = row.starts_at {
        super::queue_start(conn, row.id, at, now)?;
    }
    Ok(row)
}

/// Refuse a creator's fourth open tournament (429), counted under the
/// creator's lock so twenty creations at once make no more than three.
fn ensure_few_open(conn: &mut PgConnection, creator: Uuid) -> Result<(), Error> {
    crate::limits::serialize(conn, &format!("tournaments-open:{creator}"))?;
    let open: i64 = tournaments::table
        .filter(tournaments::created_by.eq(creator))
        .filter(tournaments::status.eq(Status::Open))
        .count()
        .get_result(conn)?;
    if open >= OPEN_PER_CREATOR {
        return Err(Error::rate_limited(format!(
            "at most {OPEN_PER_CREATOR} of your tournaments may take players at once: \
             start one first"
        )));
    }
    Ok(())
}

/// Invite players by name (the creator, while the tournament is open):
/// each must exist, be new to it, never have said no to it, and be on
/// good terms with everyone in it; the tournament must have room; each
/// counts as a challenge sent. They are told, with the terms.
pub fn invite(
    conn: &mut PgConnection,
    row: &TournamentRow,
    by: Uuid,
    names: &[String],
    now: DateTime<Utc>,
) -> Result<(), Error> {
    if by != row.created_by {
        return Err(Error::forbidden("only the tournament's creator invites"));
    }
    ensure_open(row)?;
    if !names.is_empty() && crate::lobby::create::is_guest(conn, by)? {
        return Err(Error::forbidden(
            "guests cannot invite players by name; share the tournament's invitation link instead",
        ));
    }
    let mut present = in_it(conn, row.id)?;
    let mut told = Vec::new();
    for name in names {
        let player = crate::players::named(conn, name).map_err(|e| match e {
            Error::NotFound(_) => Error::unacceptable(format!("there is no player named {name:?}")),
            e => e,
        })?;
        if present.contains(&player.id) {
            return Err(Error::validation(format!(
                "{name:?} is already in the tournament"
            )));
        }
        // Refused, not skipped: the creator learns why nobody was asked,
        // and the player is never mailed about it twice. They may still
        // come back by themselves (`join`).
        if matches!(
            state_of(conn, row.id, player.id)?,
            Some(EntrantState::Declined | EntrantState::Withdrawn)
        ) {
            return Err(Error::conflict(format!(
                "{name:?} said no to this tournament and is not asked again; \
                 they can still join it themselves"
            )));
        }
        ensure_room(row, present.len() + 1)?;
        crate::friends::ensure_apart(conn, player.id, &present)?;
        crate::lobby::challenge::count_sent(conn, by, player.id, now)?;
        set_state(conn, row.id, player.id, EntrantState::Invited, now)?;
        present.push(player.id);
        told.push(player.id);
    }
    // One notice per invitation: a player is invited to a tournament once.
    let terms = json!({
        "variant": row.variant.as_ref().or(row.mode.as_ref()),
        "turn_hours": row.turn_seconds as f64 / 3600.0,
        "rated": row.rated,
    });
    super::tell(conn, row, &told, TournamentNews::Invited { terms }, now)
}

/// Join: an invited player, one who said no and changed their mind, or
/// anyone holding the invitation `code`.
pub fn join(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    code: Option<&str>,
    now: DateTime<Utc>,
    random: &mut dyn posthorn_rules::Random,
) -> Result<(), Error> {
    let row = super::load(conn, id, true)?;
    ensure_open(&row)?;
    let state = state_of(conn, id, user)?;
    match state {
        Some(EntrantState::Joined) => return Ok(()),
        Some(EntrantState::Invited) => {}
        Some(EntrantState::Declined | EntrantState::Withdrawn) => {}
        _ if code == Some(row.invite_code.as_str()) => {}
        _ => {
            return Err(Error::NotInvited(
                "you are not invited to this tournament; open its invitation link".into(),
            ))
        }
    }
    let present = in_it(conn, id)?;
    if state != Some(EntrantState::Invited) {
        ensure_room(&row, present.len() + 1)?;
    }
    crate::friends::ensure_apart(conn, user, &present)?;
    set_state(conn, id, user, EntrantState::Joined, now)?;
    // A welcome invitation is not spam: its sender gets the count back,
    // as for an accepted challenge.
    if state == Some(EntrantState::Invited) {
        let creator = row.created_by.to_string();
        crate::limits::refund(conn, Limit::Challenge, &creator, now)?;
    }
    // Past its start time, it starts as soon as enough have joined.
    if row.starts_at.is_some_and(|at| at <= now) && super::start::ready(conn, &row)? {
        super::start::start_if_apart(conn, &row, now, random)?;
    }
    Ok(())
}

/// Decline an invitation (before the start).
pub fn decline(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    let row = super::load(conn, id, true)?;
    ensure_open(&row)?;
    match state_of(conn, id, user)? {
        Some(EntrantState::Invited) | Some(EntrantState::Joined) if user != row.created_by => {
            set_state(conn, id, user, EntrantState::Declined, now)
        }
        Some(EntrantState::Invited) | Some(EntrantState::Joined) => Err(Error::conflict(
            "the creator plays in their own tournament and cannot decline it",
        )),
        _ => Err(Error::NotInvited(
            "you are not invited to this tournament".into(),
        )),
    }
}

/// Withdraw: before the start, leave; after it, every unfinished match of
/// mine in the tournament is resigned (the results so far stand) and no
/// later pairing includes me.
pub fn withdraw(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn posthorn_rules::Random,
) -> Result<(), Error> {
    let row = super::load(conn, id, true)?;
    if row.status == super::Status::Finished {
        return Err(Error::TournamentStarted("the tournament is over".into()));
    }
    if state_of(conn, id, user)? != Some(EntrantState::Joined) {
        return Err(Error::conflict("you are not playing in this tournament"));
    }
    if row.status == Status::Open && user == row.created_by {
        return Err(Error::conflict(
            "the creator plays in their own tournament: start it, or leave it unstarted",
        ));
    }
    leave(conn, id, user, now, random)
}

/// Take `user` out of tournament `id` for good (a withdrawal, or an
/// account deleted: docs/decisions/accounts-and-sessions.md, "Deleting an
/// account"): an invitation is declined; a player withdraws (even its
/// creator, before the start: the others play on) and every unfinished
/// match of theirs in it is resigned.
pub fn leave(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
    random: &mut dyn posthorn_rules::Random,
) -> Result<(), Error> {
    let row = super::load(conn, id, true)?;
    match state_of(conn, id, user)? {
        _ if row.status == super::Status::Finished => return Ok(()),
        Some(EntrantState::Invited) => {
            return set_state(conn, id, user, EntrantState::Declined, now)
        }
        Some(EntrantState::Joined) => {}
        _ => return Ok(()),
    }
    set_state(conn, id, user, EntrantState::Withdrawn, now)?;
    if row.status == Status::Open && user == row.created_by {
        // Nobody is left to start it: it starts as soon as enough have
        // joined (at its start time if it has one; the starter waits
        // for enough players). Without a start time it gets one now, so
        // a join after this starts it (`join`).
        let at = row.starts_at.unwrap_or(now);
        if row.starts_at.is_none() {
            use crate::schema::tournaments;
            diesel::update(tournaments::table.find(id))
                .set(tournaments::starts_at.eq(at))
                .execute(conn)?;
        }
        super::queue_start(conn, id, at, now)?;
    }
    // Every match to resign is locked first, in id order, and its seq read
    // under the lock: an opponent's move cannot make a resignation stale,
    // and a match finishing beside us cannot hold one of them while
    // waiting for a rating row a resignation here already holds.
    use crate::schema::tournament_matches as pairing;
    let mine: Vec<Uuid> = pairing::table
        .filter(pairing::tournament_id.eq(id))
        .filter(
            pairing::first_player
                .eq(user)
                .or(pairing::second_player.eq(user)),
        )
        .select(pairing::match_id)
        .load(conn)?;
    let locked = crate::matches::reads::lock_active(conn, &mine)?;
    for (match_id, seq) in locked {
        let resign = crate::matches::play::ActionRequest {
            seq,
            seat: None,
            action: json!({"type": "resign"}),
        };
        let actor = crate::matches::play::Actor::not_asking(user);
        crate::matches::play::act(conn, match_id, actor, resign, None, now, random)?;
    }
    // A knockout may have a walkover to give now.
    super::queue_advance(
        conn,
        id,
        &format!("withdrawn:{user}:{}", now.timestamp_millis()),
        now,
    )?;
    Ok(())
}

fn ensure_open(row: &TournamentRow) -> Result<(), Error> {
    if row.status != Status::Open {
        return Err(Error::TournamentStarted(
            "the tournament has started; entries are closed".into(),
        ));
    }
    Ok(())
}

fn ensure_room(row: &TournamentRow, wanted: usize) -> Result<(), Error> {
    let most = *row.format()?.players().end();
    if wanted > most {
        return Err(Error::TournamentFull(format!(
            "a {} takes at most {most} players",
            row.format()?.id().replace('_', " ")
        )));
    }
    Ok(())
}

/// The invitations waiting for `user`'s answer, in open tournaments (the
/// home summary's count).
pub fn invitations_waiting_for(conn: &mut PgConnection, user: Uuid) -> Result<i64, Error> {
    Ok(tournament_players::table
        .inner_join(tournaments::table)
        .filter(tournament_players::user_id.eq(user))
        .filter(tournament_players::state.eq(EntrantState::Invited))
        .filter(tournaments::status.eq(Status::Open))
        .count()
        .get_result(conn)?)
}

/// The players invited or joined.
pub fn in_it(conn: &mut PgConnection, id: Uuid) -> Result<Vec<Uuid>, Error> {
    Ok(tournament_players::table
        .filter(tournament_players::tournament_id.eq(id))
        .filter(tournament_players::state.eq_any([EntrantState::Invited, EntrantState::Joined]))
        .select(tournament_players::user_id)
        .load(conn)?)
}

fn state_of(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<Option<EntrantState>, Error> {
    Ok(tournament_players::table
        .find((id, user))
        .select(tournament_players::state)
        .first(conn)
        .optional()?)
}

fn set_state(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    state: EntrantState,
    now: DateTime<Utc>,
) -> Result<(), Error> {
    diesel::insert_into(tournament_players::table)
        .values((
            tournament_players::tournament_id.eq(id),
            tournament_players::user_id.eq(user),
            tournament_players::state.eq(state),
            tournament_players::updated_at.eq(now),
        ))
        .on_conflict((
            tournament_players::tournament_id,
            tournament_players::user_id,
        ))
        .do_update()
        .set((
            tournament_players::state.eq(state),
            tournament_players::updated_at.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}
