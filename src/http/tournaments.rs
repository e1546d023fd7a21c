//! Tournaments (docs/tournaments.md): thin wrappers over `crate::tournaments`.

use crate::auth::Caller;
use crate::closed::Seeding;
use crate::db;
use crate::error::Error;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::lobby::create::GameChoice;
use crate::state::AppState;
use crate::tournaments::entry::{self, Terms};
use crate::tournaments::read::{self, TournamentSummary, TournamentView};
use crate::tournaments::{start, Format};
use actix_web::{get, post, web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// `POST /v1/tournaments`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTournament {
    /// One line of 1 to 80 visible characters (no control, bidirectional
    /// or invisible ones).
    pub name: String,
    pub format: Format,
    /// A two-player game (`checkers`, `janggi`, `banqi`, `flipchess`),
    /// or `game/variant`.
    #[schema(schema_with = crate::enforced::game_choice)]
    pub game: String,
    #[schema(schema_with = crate::enforced::variant)]
    pub variant: Option<String>,
    #[schema(schema_with = crate::enforced::mode)]
    pub mode: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    /// Time per turn in every match, in hours (default 48).
    pub turn_hours: Option<f64>,
    /// Whether the matches count for ratings (default false).
    pub rated: Option<bool>,
    /// A knockout's seeds: `rating` (default) or `random`.
    #[schema(pattern = "^(rating|random)$")]
    pub seeding: Option<String>,
    /// Players invited by name (more can be invited later, or join by
    /// the invitation link). Not for guests (403). Each counts as a
    /// challenge sent (docs/abuse.md); one who declined is not asked again
    /// (409).
    #[schema(max_items = 31)]
    pub players: Option<Vec<String>>,
    /// When it starts by itself, once enough players have joined;
    /// otherwise its creator starts it.
    pub starts_at: Option<DateTime<Utc>>,
}

type Viewer = dyn Fn(&mut diesel::PgConnection, Uuid) -> Result<TournamentView, Error> + Send;

/// A change of `caller`'s to tournament `id` in one transaction, with the
/// time and the dice, answered with the tournament as they see it after.
async fn change<F>(
    state: &AppState,
    caller: Uuid,
    id: Uuid,
    work: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnOnce(
            &mut diesel::PgConnection,
            DateTime<Utc>,
            &mut dyn posthorn_rules::Random,
        ) -> Result<(), Error>
        + Send
        + 'static,
{
    let (now, mut random) = (state.clock.now(), state.roller());
    let view = viewer(state, caller);
    let answer = db::run(&state.pool, move |c| {
        work(c, now, &mut random)?;
        view(c, id)
    })
    .await?;
    Ok(HttpResponse::Ok().json(answer))
}

/// The answer of every change: the tournament as `user` sees it after.
fn viewer(state: &AppState, user: Uuid) -> Box<Viewer> {
    let public_url = state.config.public_url.clone();
    Box::new(move |c, id| read::view(c, id, user, None, &public_url))
}

#[utoipa::path(post, path = "/v1/tournaments", tag = "tournaments", request_body = NewTournament,
    responses((status = 201, body = TournamentView, description = "open, with its creator in it and the named players invited"),
        (status = 400, description = "a bad name, a game for more than two players, an unknown player"),
        (status = 403, description = "blocked: two of the players are apart; forbidden: a guest naming players"),
        (status = 409, description = "tournament_full: more players than the format takes"),
        (status = 422, description = "unfair_start: an opening no player may choose, or a custom one rated; validation_failed: a name empty or invisible once trimmed, a game for more than two players, a variant or mode of another game, an unknown player"),
        (status = 429, description = "rate_limited: three of mine open already, or too many challenges and invitations")),
    security(("bearer" = [])))]
#[post("/v1/tournaments")]
pub async fn create_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    body: Body<NewTournament>,
) -> Result<HttpResponse, ApiError> {
    let req = body.into_inner();
    let (now, min_turn) = (state.clock.now(), state.config.min_turn_seconds);
    let mut random = state.roller();
    let seeding = match req.seeding.as_deref() {
        None => Some(Seeding::Rating),
        Some(text) => Seeding::parse(text),
    };
    let Some(seeding) = seeding else {
        let other = req.seeding.unwrap_or_default();
        return Err(ApiError::validation(format!(
            "seeding is rating or random, not {other:?}"
        )));
    };
    let seed_by_rating = seeding == Seeding::Rating;
    let user = caller.user_id;
    let view = viewer(&state, user);
    let view = db::run(&state.pool, move |c| {
        let terms = Terms {
            name: &req.name,
            format: req.format,
            choice: GameChoice {
                game: &req.game,
                variant: req.variant.as_deref(),
                mode: req.mode.as_deref(),
                options: req.options.as_ref(),
            },
            turn_hours: req.turn_hours,
            rated: req.rated.unwrap_or(false),
            seed_by_rating,
            starts_at: req.starts_at,
        };
        let invited = req.players.clone().unwrap_or_default();
        let row = entry::create(c, user, terms, &invited, min_turn, now, &mut random)?;
        view(c, row.id)
    })
    .await?;
    Ok(HttpResponse::Created().json(view))
}

#[utoipa::path(get, path = "/v1/tournaments", tag = "tournaments",
    responses((status = 200, body = Vec<TournamentSummary>, description = "the tournaments I am or was in, newest first")),
    security(("bearer" = [])))]
#[get("/v1/tournaments")]
pub async fn my_tournaments(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let mine = db::read(&state.pool, move |c| read::mine(c, caller.user_id)).await?;
    Ok(HttpResponse::Ok().json(mine))
}

#[derive(Debug, Deserialize, IntoParams, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CodeQuery {
    /// The invitation code from the link: shows the tournament to someone
    /// not yet in it.
    code: Option<String>,
}

#[utoipa::path(get, path = "/v1/tournaments/{id}", tag = "tournaments",
    params(("id" = Uuid, Path), CodeQuery),
    responses((status = 200, body = TournamentView, description = "standings and crosstable (round robin) or bracket (knockout), and every match"),
        (status = 404, description = "no such tournament, or not yours to see")),
    security(("bearer" = [])))]
#[get("/v1/tournaments/{id}")]
pub async fn view_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    query: web::Query<CodeQuery>,
) -> Result<HttpResponse, ApiError> {
    let (id, code) = (id.into_inner(), query.into_inner().code);
    let public_url = state.config.public_url.clone();
    let view = db::read(&state.pool, move |c| {
        read::view(c, id, caller.user_id, code.as_deref(), &public_url)
    })
    .await?;
    Ok(HttpResponse::Ok().json(view))
}

/// `POST /v1/tournaments/{id}/invite`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Invitees {
    #[schema(max_items = 31)]
    pub players: Vec<String>,
}

#[utoipa::path(post, path = "/v1/tournaments/{id}/invite", tag = "tournaments",
    params(("id" = Uuid, Path)), request_body = Invitees,
    responses((status = 200, body = TournamentView),
        (status = 403, description = "not its creator, a guest, or blocked"),
        (status = 409, description = "tournament_full or tournament_started; conflict: a player who declined is not asked again"),
        (status = 422, description = "no player has that name"),
        (status = 429, description = "rate_limited: too many challenges and invitations")),
    security(("bearer" = [])))]
#[post("/v1/tournaments/{id}/invite")]
pub async fn invite_players(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: Body<Invitees>,
) -> Result<HttpResponse, ApiError> {
    let (id, user, names) = (id.into_inner(), caller.user_id, body.into_inner().players);
    change(&state, user, id, move |c, now, _| {
        let row = crate::tournaments::load(c, id, true)?;
        entry::invite(c, &row, user, &names, now)
    })
    .await
}

/// `POST /v1/tournaments/{id}/join`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinRequest {
    /// The invitation link's code, for a player not invited by name.
    pub code: Option<String>,
}

#[utoipa::path(post, path = "/v1/tournaments/{id}/join", tag = "tournaments",
    params(("id" = Uuid, Path)), request_body = JoinRequest,
    responses((status = 200, body = TournamentView, description = "in it (joining twice is the same)"),
        (status = 403, description = "not_invited, or blocked with a player in it"),
        (status = 409, description = "tournament_full or tournament_started")),
    security(("bearer" = [])))]
#[post("/v1/tournaments/{id}/join")]
pub async fn join_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: Body<JoinRequest>,
) -> Result<HttpResponse, ApiError> {
    let (id, user, code) = (id.into_inner(), caller.user_id, body.into_inner().code);
    change(&state, user, id, move |c, now, random| {
        entry::join(c, id, user, code.as_deref(), now, random)
    })
    .await
}

#[utoipa::path(post, path = "/v1/tournaments/{id}/decline", tag = "tournaments",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = TournamentView),
        (status = 403, description = "not_invited"),
        (status = 409, description = "tournament_started, or its creator")),
    security(("bearer" = [])))]
#[post("/v1/tournaments/{id}/decline")]
pub async fn decline_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (id, user) = (id.into_inner(), caller.user_id);
    change(&state, user, id, move |c, now, _| {
        entry::decline(c, id, user, now)
    })
    .await
}

#[utoipa::path(post, path = "/v1/tournaments/{id}/withdraw", tag = "tournaments",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = TournamentView, description = "out: my unfinished matches in it are resigned, my finished results stand"),
        (status = 409, description = "not playing in it, or it is over")),
    security(("bearer" = [])))]
#[post("/v1/tournaments/{id}/withdraw")]
pub async fn withdraw_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (id, user) = (id.into_inner(), caller.user_id);
    change(&state, user, id, move |c, now, random| {
        entry::withdraw(c, id, user, now, random)
    })
    .await
}

#[utoipa::path(post, path = "/v1/tournaments/{id}/start", tag = "tournaments",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = TournamentView, description = "started: every round-robin match, or the knockout's first pairings, are on"),
        (status = 403, description = "not its creator, or blocked: two players in it are apart"),
        (status = 409, description = "tournament_started, or too few players have joined")),
    security(("bearer" = [])))]
#[post("/v1/tournaments/{id}/start")]
pub async fn start_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (id, user) = (id.into_inner(), caller.user_id);
    change(&state, user, id, move |c, now, random| {
        start::start_by(c, id, user, now, random)
    })
    .await
}
