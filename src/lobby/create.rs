//! Creating a match and joining one by invitation.

use super::computers::Computers;
use crate::auth;
use crate::enforced::{DEFAULT_TURN_HOURS, MAX_TURN_HOURS};
use crate::error::Error;
use crate::idempotency::Keyed;
use crate::matches::{MatchRow, MatchStatus, MatchView, NewEvent, Table};
use crate::notify::outbox::Enqueue;
use crate::schema::{invites, users};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::PgConnection;
use posthorn_rules::{GameId, MatchState, Random, Start};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;
use uuid::Uuid;

/// How long an invitation stays valid.
pub const INVITE_HOURS: i64 = 24;

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMatch {
    #[schema(schema_with = crate::enforced::game_choice)]
    pub game: String,
    #[schema(schema_with = crate::enforced::variant)]
    pub variant: Option<String>,
    #[schema(schema_with = crate::enforced::mode)]
    pub mode: Option<String>,
    /// Game-specific options (see the game catalogue).
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    #[schema(schema_with = crate::enforced::opponents)]
    pub opponents: Option<Vec<String>>,
    /// Seats to be filled by invitation code (default: as many as the
    /// game's fewest players need). The creator, `opponents` and these
    /// must make a number of players the game takes.
    #[schema(minimum = 0, maximum = 3)]
    pub open_seats: Option<u8>,
    /// Time per turn in hours, fractions allowed (default 48; at least the
    /// service's shortest turn, 1 h unless configured, at most 336).
    pub turn_hours: Option<f64>,
    pub rated: Option<bool>,
    /// Computer opponents who sit down at once (issue #32, `GET
    /// /v1/bots`). A match with one is unrated (leave `rated` out). One
    /// person alone with computers has no time limit (leave `turn_hours`
    /// out); in four-player chess, beside named `opponents` or asked-for
    /// `open_seats`, the table is timed for everyone as between people.
    #[schema(max_items = 3)]
    pub computers: Option<Vec<super::computers::ComputerSeat>>,
    /// The creator's seat, only against the computer (seats are drawn
    /// otherwise). Which side or army plays from a seat is the rules'
    /// draw; to pick a side by its order of play, use `side`.
    #[schema(minimum = 0, maximum = 3)]
    pub seat: Option<u8>,
    /// The creator's side by its order of play, only against the computer
    /// and in games where each seat has a side of its own: 0 moves first
    /// (Black in American checkers, White in its other variants, Janggi's
    /// Cho, whichever seat the rules draw it to), 1 second. Not with
    /// `seat`.
    #[schema(minimum = 0, maximum = 3)]
    pub side: Option<u8>,
}

/// The game a request names: a match's, a seek's or a tournament's.
#[derive(Clone, Copy)]
pub struct GameChoice<'a> {
    pub game: &'a str,
    pub variant: Option<&'a str>,
    pub mode: Option<&'a str>,
    pub options: Option<&'a Value>,
}

impl NewMatch {
    pub fn choice(&self) -> GameChoice<'_> {
        GameChoice {
            game: &self.game,
            variant: self.variant.as_deref(),
            mode: self.mode.as_deref(),
            options: self.options.as_ref(),
        }
    }
}

/// The game and its configuration (`{variant?, mode?, …options}`). `game`
/// may name the variant or mode too (`checkers/american`); the rules
/// crate then checks both strictly, naming the valid ones.
pub(crate) fn game_config(req: GameChoice) -> Result<(GameId, Value), Error> {
    let (family, choice) = match req.game.split_once('/') {
        Some((family, choice)) => (family, Some(choice)),
        None => (req.game, None),
    };
    let game = GameId::parse(family).ok_or_else(|| {
        let ids: Vec<&str> = GameId::ALL.iter().map(|g| g.id()).collect();
        Error::validation(format!(
            "unknown game {:?}; games: {}",
            req.game,
            ids.join(", ")
        ))
    })?;
    let mut config = match req.options {
        None => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return Err(Error::validation("options must be a JSON object")),
    };
    // A game with modes is chosen by mode, the others by variant.
    let named_field = if game.about().modes.is_empty() {
        "variant"
    } else {
        "mode"
    };
    let fields = [
        ("variant", req.variant),
        ("mode", req.mode),
        (named_field, choice),
    ];
    for (field, value) in fields {
        let Some(value) = value else { continue };
        match config.insert(field.into(), Value::String(value.into())) {
            Some(Value::String(earlier)) if earlier != value => {
                return Err(Error::unacceptable(format!(
                    "{field} is given twice, as {earlier:?} and {value:?}"
                )))
            }
            _ => {}
        }
    }
    offered(game, &config)?;
    let config = Value::Object(config);
    // The document lists every game's options in one object, so another
    // game's option, or a value this game refuses, has the documented
    // form: 422 (found by the fuzzer, docs/fuzzing.md).
    MatchState::start(game, &config).map_err(|e| Error::from(e).for_its_meaning())?;
    Ok((game, config))
}

/// A `variant` or `mode` of another game has the form the document
/// states, which lists every game's, and is refused for its meaning: 422
/// (docs/decisions/api-and-schemas.md, "400 for form, 422 for meaning"). A
/// name no game offers breaks the document's pattern: 400. What is not a
/// string is left to the rules crate (400).
fn offered(game: GameId, config: &Map<String, Value>) -> Result<(), Error> {
    let about = game.about();
    for (field, offered) in [("variant", about.variants), ("mode", about.modes)] {
        let Some(Value::String(name)) = config.get(field) else {
            continue;
        };
        if offered.contains(&name.as_str()) {
            continue;
        }
        let anyones = GameId::ALL.iter().any(|g| {
            let about = g.about();
            let theirs = if field == "variant" {
                about.variants
            } else {
                about.modes
            };
            theirs.contains(&name.as_str())
        });
        let refuse = if anyones {
            Error::unacceptable
        } else {
            Error::validation
        };
        return Err(refuse(if offered.is_empty() {
            format!("{} has no {field}s; leave {field} out", game.id())
        } else {
            format!(
                "unknown {field} {name:?} for {}; {field}s: {}",
                game.id(),
                offered.join(", ")
            )
        }));
    }
    Ok(())
}

/// The variant (or mode) a match is played in: the one chosen, else the
/// game's default, the first it lists.
pub(crate) fn chosen(config: &Value, field: &str, offered: &[&str]) -> Option<String> {
    config
        .get(field)
        .and_then(Value::as_str)
        .or(offered.first().copied())
        .map(str::to_owned)
}

pub(crate) fn turn_seconds(hours: Option<f64>, min_seconds: i64) -> Result<i32, Error> {
    let hours = hours.unwrap_or(DEFAULT_TURN_HOURS);
    let seconds = (hours * 3600.0).round();
    if !seconds.is_finite() || seconds < min_seconds as f64 || hours > MAX_TURN_HOURS {
        return Err(Error::validation(format!(
            "turn_hours must be between {} and {MAX_TURN_HOURS}",
            min_seconds as f64 / 3600.0
        )));
    }
    Ok(seconds as i32)
}

pub(crate) fn invite_code() -> String {
    // 10 characters of an alphabet without look-alikes (no 0/O, 1/I/L).
    const ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
    auth::random_bytes::<10>()
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect()
}

pub fn invite_url(public_url: &str, code: &str) -> String {
    format!("{}/invite/{code}", public_url.trim_end_matches('/'))
}

/// Who sits at which seat, given the opening (`None`: draw them).
pub type Arrange<'a> = &'a dyn Fn(&MatchState) -> Option<Vec<Uuid>>;

/// Who asks for a match, and the service's settings that bound it.
pub struct Ask<'a> {
    pub creator: Uuid,
    pub min_turn_seconds: i64,
    pub public_url: &'a str,
    pub now: DateTime<Utc>,
    /// Players who sit down at once, without a challenge: they asked for
    /// this match themselves (paired seeks, `seeks.rs`; rematches).
    pub seated: &'a [Uuid],
    /// Who sits where, from the opening (a rematch rotates the sides);
    /// otherwise the seats are drawn.
    pub arrange: Option<Arrange<'a>>,
    /// The finished match this one is the rematch of.
    pub rematch_of: Option<Uuid>,
    /// The tournament this match is a pairing of.
    pub tournament: Option<Uuid>,
}

impl<'a> Ask<'a> {
    /// `creator`'s request, with nobody seated without a challenge.
    pub fn new(
        creator: Uuid,
        min_turn_seconds: i64,
        public_url: &'a str,
        now: DateTime<Utc>,
    ) -> Self {
        Ask {
            creator,
            min_turn_seconds,
            public_url,
            now,
            seated: &[],
            arrange: None,
            rematch_of: None,
            tournament: None,
        }
    }
}

/// [`create`], honouring an `Idempotency-Key`: a retry gets the match the
/// first request made, not a second one.
pub fn create_keyed(
    conn: &mut PgConnection,
    ask: &Ask,
    req: NewMatch,
    keyed: Option<Keyed>,
    random: &mut dyn Random,
) -> Result<MatchView, Error> {
    let Some(keyed) = keyed else {
        return create(conn, ask, req, random);
    };
    if let Some(answer) = keyed.replay(conn, ask.creator, ask.now)? {
        return serde_json::from_value(answer).map_err(Error::internal);
    }
    let view = create(conn, ask, req, random)?;
    let stored = serde_json::to_value(&view).map_err(Error::internal)?;
    keyed.remember(conn, ask.creator, view.id, stored, ask.now)?;
    Ok(view)
}

pub fn create(
    conn: &mut PgConnection,
    ask: &Ask,
    req: NewMatch,
    random: &mut dyn Random,
) -> Result<MatchView, Error> {
    let (creator, now) = (ask.creator, ask.now);
    let (game, config) = game_config(req.choice())?;
    let computers = Computers::of(
        req.computers.as_deref().unwrap_or_default(),
        req.seat,
        req.side,
        req.rated,
        req.turn_hours.is_some(),
        !ask.seated.is_empty()
            || req.opponents.as_ref().is_some_and(|o| !o.is_empty())
            || req.open_seats.is_some_and(|n| n > 0),
    )?;
    if computers.is_some() {
        super::computers::within_limit(conn, creator)?;
    }
    let turn_seconds = match &computers {
        Some(c) if !c.with_people => 0,
        _ => turn_seconds(req.turn_hours, ask.min_turn_seconds)?,
    };
    let range = MatchState::seat_range(game, &config)?;
    let rated = req.rated.unwrap_or(false);
    fair_start(game, &config, rated)?;
    let (mut people, auto_accepted) = who_sits(conn, ask, &req, game, range, computers.as_ref())?;
    // What the rules refuse in a well-formed setup (an empty position,
    // a seat count the mode does not take) is refused for its meaning.
    let opening = draw_seats(&mut people, game, &config, ask, computers.as_ref(), random)
        .map_err(Error::for_its_meaning)?;

    let seated_now = |u: &Uuid| {
        *u == creator
            || ask.seated.contains(u)
            || auto_accepted.contains(u)
            || computers.as_ref().is_some_and(|c| c.contains(u))
    };
    let laid = Laid {
        game,
        config,
        rated,
        turn_seconds,
        opening,
    };
    let (mut table, challenged, invites_made) =
        lay_table(conn, ask, laid, &mut people, seated_now)?;
    let named: Vec<Uuid> = challenged.iter().chain(&auto_accepted).copied().collect();
    let invited = crate::notices::invited(&named, &table);
    Enqueue::new(table.row.id, invited, now).execute(conn)?;
    let mut view = table.view_for(conn, creator)?;
    view.invite = invites_made.first().cloned();
    if invites_made.len() > 1 {
        view.invites = invites_made;
    }
    Ok(view)
}

/// A match about to be laid out: its game, terms and opening.
pub struct Laid {
    pub game: GameId,
    pub config: Value,
    pub rated: bool,
    pub turn_seconds: i32,
    /// The opening the seats were drawn for ([`draw_seats`]).
    pub opening: Vec<Value>,
}

/// Write a new match with `people` in its seats (those not `seated_now`
/// are challenged, empty seats get invitations) and deal its opening once
/// every seat is taken: the match, the challenged, the invitations.
pub(crate) fn lay_table(
    conn: &mut PgConnection,
    ask: &Ask,
    laid: Laid,
    people: &mut [Option<Uuid>],
    seated_now: impl Fn(&Uuid) -> bool,
) -> Result<(Table, Vec<Uuid>, Vec<crate::matches::Invite>), Error> {
    let (creator, now, game, config) = (ask.creator, ask.now, laid.game, laid.config);
    let id = Uuid::new_v4();
    let row = MatchRow {
        id,
        game: game.id().into(),
        variant: chosen(&config, "variant", game.about().variants),
        mode: chosen(&config, "mode", game.about().modes),
        options: config,
        status: MatchStatus::Waiting,
        seq: 0,
        rated: laid.rated,
        turn_seconds: laid.turn_seconds,
        created_by: creator,
        created_at: now,
        updated_at: now,
        to_act: Value::Array(Vec::new()),
        awaiting: Vec::new(),
        notice_at: None,
        deadline_at: None,
        result: None,
        rematch_of: ask.rematch_of,
        rematch_id: None,
        tournament_id: ask.tournament,
        roster: 0,
        planning: Vec::new(),
    };
    // The named who do not sit down now are challenged: their seats
    // wait empty until they accept (`challenge.rs`;
    // docs/decisions/challenges-and-lobby.md, "Challenges").
    let challenged: Vec<(usize, Uuid)> = (people.iter_mut().enumerate())
        .filter_map(|(seat, person)| {
            let opponent = person.filter(|u| !seated_now(u))?;
            *person = None;
            Some((seat, opponent))
        })
        .collect();
    let mut table = Table::create(conn, row, people.to_vec())?;
    let (challenged, invites_made) = hold_seats(conn, ask, id, people, &challenged)?;
    // Nothing hidden is dealt, and no colour drawn, while a seat is open
    // (docs/abuse.md, "Openings a player may not choose"): a creator who
    // could see their hand could cancel and create again until they liked
    // it.
    if table.seats.iter().all(Option::is_some) {
        table.append(conn, NewEvent::from_rules(None, laid.opening), now)?;
    }
    Ok((table, challenged, invites_made))
}

/// Who sits down, in order: the creator, those already seated (a seek's
/// or a rematch's players), the named opponents (each checked: a player,
/// not blocked, not twice; a challenge counted unless they let friends'
/// challenges start at once), the computers, and open seats; with the
/// named who sit down at once. Refuses a table the game does not take.
fn who_sits(
    conn: &mut PgConnection,
    ask: &Ask,
    req: &NewMatch,
    game: GameId,
    range: std::ops::RangeInclusive<usize>,
    computers: Option<&Computers>,
) -> Result<(Vec<Option<Uuid>>, Vec<Uuid>), Error> {
    let (creator, now) = (ask.creator, ask.now);
    let mut people: Vec<Option<Uuid>> = vec![Some(creator)];
    people.extend(ask.seated.iter().copied().map(Some));
    let named = req.opponents.as_deref().unwrap_or_default();
    if !named.is_empty() && is_guest(conn, creator)? {
        return Err(Error::forbidden(
            "guests cannot challenge players by name; share an invitation link instead",
        ));
    }
    // Friends who let friends' challenges start at once sit down at once.
    let mut auto_accepted = Vec::new();
    for name in named {
        let id = match crate::players::named(conn, name) {
            Ok(player) => player.id,
            Err(Error::NotFound(_)) => {
                return Err(Error::unacceptable(format!(
                    "there is no player named {name:?}"
                )))
            }
            Err(e) => return Err(e),
        };
        if people.contains(&Some(id)) {
            return Err(Error::unacceptable(format!(
                "{name:?} is already at the table"
            )));
        }
        crate::friends::ensure_not_blocked(conn, creator, id, name)?;
        if crate::friends::auto_accepts(conn, id, creator)? {
            auto_accepted.push(id);
        } else {
            super::challenge::count_sent(conn, creator, id, now)?;
        }
        people.push(Some(id));
    }
    // Everyone named or seated must be free of blocks among themselves
    // too, not only with the creator (docs/abuse.md, "Blocks").
    let named_ids: Vec<Uuid> = people.iter().flatten().copied().collect();
    for (i, user) in named_ids.iter().enumerate() {
        crate::friends::ensure_apart(conn, *user, &named_ids[i + 1..])?;
    }
    people.extend(computers.into_iter().flat_map(|c| c.players()).map(Some));
    let open = match req.open_seats {
        Some(n) => n as usize,
        None => range.start().saturating_sub(people.len()),
    };
    // Open seats beside computers only when asked for (friends joining
    // by invitation), never as the default filling of a table.
    if computers.is_some() && open > 0 && req.open_seats.is_none() {
        return Err(Error::unacceptable(format!(
            "{} takes at least {} players: name that many computers",
            game.id(),
            range.start()
        )));
    }
    people.extend(std::iter::repeat_n(None, open));
    // Players per game span fields (`game`, `opponents`, `open_seats`,
    // `computers`): the document describes the rule, the answer is 422.
    if !range.contains(&people.len()) {
        return Err(Error::unacceptable(format!(
            "{} takes {} to {} players; this match would seat {}",
            game.id(),
            range.start(),
            range.end(),
            people.len()
        )));
    }
    Ok((people, auto_accepted))
}

/// Draw the seats at random (so nobody always gets the first move), then
/// honour a seat or side chosen against the computer and a rematch's
/// arrangement; the opening the seats are drawn for. The configuration
/// is judged now, so a refusal is the creator's; the opening is dealt
/// only once every seat is taken (`seat::take_seat`).
pub(crate) fn draw_seats(
    people: &mut Vec<Option<Uuid>>,
    game: GameId,
    config: &Value,
    ask: &Ask,
    computers: Option<&Computers>,
    random: &mut dyn Random,
) -> Result<Vec<Value>, Error> {
    for i in (1..people.len()).rev() {
        people.swap(i, random.below(i as u64 + 1) as usize);
    }
    let opening = MatchState::setup(game, config, people.len(), random)?;
    if let Some(computers) = computers {
        let dealt = MatchState::replay(game, &opening).map_err(Error::internal)?;
        let ranks = super::computers::side_ranks(&dealt, people.len());
        *people = computers.place(std::mem::take(people), ask.creator, &ranks)?;
    }
    if let Some(arrange) = ask.arrange {
        let state = MatchState::replay(game, &opening).map_err(Error::internal)?;
        if let Some(arranged) = arrange(&state) {
            *people = arranged.into_iter().map(Some).collect();
        }
    }
    Ok(opening)
}

/// Hold the empty seats of match `id`: each challenged player's waits
/// for their answer, every other gets an invitation. The challenged, and
/// the invitations made.
fn hold_seats(
    conn: &mut PgConnection,
    ask: &Ask,
    id: Uuid,
    people: &[Option<Uuid>],
    challenged: &[(usize, Uuid)],
) -> Result<(Vec<Uuid>, Vec<crate::matches::Invite>), Error> {
    let now = ask.now;
    let mut invites_made = Vec::new();
    for (seat, opponent) in challenged {
        super::challenge::create(conn, id, *seat, *opponent, now)?;
    }
    let open = (people.iter().enumerate())
        .filter(|(seat, person)| person.is_none() && !challenged.iter().any(|c| c.0 == *seat));
    for (seat, _) in open {
        let invite = crate::matches::Invite {
            code: invite_code(),
            url: String::new(),
            expires_at: now + Duration::hours(INVITE_HOURS),
        };
        diesel::insert_into(invites::table)
            .values((
                invites::code.eq(&invite.code),
                invites::match_id.eq(id),
                invites::seat.eq(seat as i16),
                invites::created_at.eq(now),
                invites::expires_at.eq(invite.expires_at),
            ))
            .execute(conn)?;
        invites_made.push(crate::matches::Invite {
            url: invite_url(ask.public_url, &invite.code),
            ..invite
        });
    }
    Ok((challenged.iter().map(|c| c.1).collect(), invites_made))
}

/// Refuse what a player may not choose as an opening (docs/abuse.md,
/// "Openings a player may not choose"): a position fixing hidden
/// information ever, a custom position rated.
pub(crate) fn fair_start(game: GameId, config: &Value, rated: bool) -> Result<(), Error> {
    match MatchState::start(game, config)? {
        Start::FixesHidden => Err(Error::UnfairStart(
            "that opening fixes what a player may not see (face-down pieces, dealt hands), \
             which no player may choose: start with every piece face up, or let the service deal"
                .into(),
        )),
        Start::Custom if rated => Err(Error::UnfairStart(
            "a match from a custom position is never rated; ask for it unrated".into(),
        )),
        _ => Ok(()),
    }
}

/// Whether `user` is a guest (one who is gone counts as one).
pub(crate) fn is_guest(conn: &mut PgConnection, user: Uuid) -> Result<bool, Error> {
    Ok(users::table
        .find(user)
        .select(users::guest)
        .first(conn)
        .optional()?
        .unwrap_or(true))
}
