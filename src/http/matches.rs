//! Match endpoints: thin wrappers over `crate::matches`.

use crate::auth::Caller;
use crate::db;
use crate::error::Error;
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::idempotency::{self, Keyed};
use crate::lobby::challenge;
use crate::lobby::create::{self, Ask, NewMatch};
use crate::lobby::rematch::{self, RematchState};
use crate::matches::play::{self, ActionAnswer, ActionRequest, EventFeed, LegalActions, MatchPage};
use crate::matches::MatchView;
use crate::state::AppState;
use crate::vacation;
use actix_web::http::header;
use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

/// Run `work` in one transaction as `caller` asking for a match (creating
/// one, pairing a seek, starting a rematch): the request's [`Ask`] and the
/// service's dice.
pub(super) async fn as_asker<T, F>(state: &AppState, caller: Uuid, work: F) -> Result<T, Error>
where
    T: Send + 'static,
    F: FnOnce(&mut diesel::PgConnection, &Ask, &mut dyn posthorn_rules::Random) -> Result<T, Error>
        + Send
        + 'static,
{
    let (now, min_turn) = (state.clock.now(), state.config.min_turn_seconds);
    let mut random = state.roller();
    let public_url = state.config.public_url.clone();
    db::run(&state.pool, move |c| {
        let ask = Ask::new(caller, min_turn, &public_url, now);
        work(c, &ask, &mut random)
    })
    .await
}

#[utoipa::path(post, path = "/v1/matches", tag = "matches", request_body = NewMatch,
    params(("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,128}$", description = "a retry with the same key and request gets the first answer (the same match); another request with it gets 422 (kept 24 h)")),
    responses((status = 201, body = MatchView), (status = 400), (status = 422, description = "well formed and refused for its meaning: players the game does not take, an unknown player, a variant or mode of another game, `turn_hours` or `rated` against the computer alone, an opening that may not be chosen (`unfair_start`), an `Idempotency-Key` reused"), (status = 429, description = "at most 10 matches against the computer going at once")), security(("bearer" = [])))]
#[post("/v1/matches")]
pub async fn create_match(
    state: web::Data<AppState>,
    caller: Caller,
    request: HttpRequest,
    body: Body<NewMatch>,
) -> Result<HttpResponse, ApiError> {
    let req = body.into_inner();
    let keyed = keyed(&request, &req)?;
    // The computers' engine time counts against this address too
    // (docs/abuse.md, "Engine time").
    let address = (req.computers.as_ref())
        .filter(|c| !c.is_empty())
        .map(|_| crate::http::caller::client_address(&request));
    let view = as_asker(&state, caller.user_id, move |c, ask, random| {
        if let Some(address) = &address {
            crate::computer::budget::seen_from(c, ask.creator, address)?;
        }
        create::create_keyed(c, ask, req, keyed, random)
    })
    .await?;
    Ok(HttpResponse::Created().json(view))
}

#[utoipa::path(post, path = "/v1/invites/{code}/accept", tag = "matches",
    params(("code" = String, Path, description = "the invitation code"),
        ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,128}$", description = "a retry with the same key gets the first answer (kept 24 h)")),
    responses((status = 200, body = MatchView), (status = 404), (status = 410)), security(("bearer" = [])))]
#[post("/v1/invites/{code}/accept")]
pub async fn accept_invite(
    state: web::Data<AppState>,
    caller: Caller,
    request: HttpRequest,
    code: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let code = code.into_inner();
    let keyed = keyed(&request, &serde_json::Value::Null)?;
    // Counted in a transaction of its own: a wrong code must count too.
    let address = crate::http::caller::client_address(&request);
    db::run(&state.pool, move |c| {
        crate::limits::take(c, crate::limits::Limit::InviteAccept, &address, now)
    })
    .await?;
    let mut random = state.roller();
    let view = db::run(&state.pool, move |c| {
        crate::lobby::invites::accept_invite(c, &code, caller.user_id, keyed, now, &mut random)
    })
    .await?;
    Ok(HttpResponse::Ok().json(view))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// `waiting`, `active`, `finished` or `cancelled`.
    #[param(pattern = "^(waiting|active|finished|cancelled)$")]
    status: Option<String>,
    #[param(schema_with = crate::enforced::game_id)]
    game: Option<String>,
    /// Only matches against this username.
    opponent: Option<String>,
    #[param(schema_with = crate::enforced::match_cursor)]
    cursor: Option<String>,
}

#[utoipa::path(get, path = "/v1/matches", tag = "matches", params(ListQuery),
    responses((status = 200, body = MatchPage)), security(("bearer" = [])))]
#[get("/v1/matches")]
pub async fn list_matches(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let ListQuery {
        status,
        game,
        opponent,
        cursor,
    } = query.into_inner();
    let filters = play::Filters {
        status,
        game,
        opponent,
    };
    let page = db::read(&state.pool, move |c| {
        let mut page = play::list(c, caller.user_id, filters, cursor)?;
        crate::talk::messages::mark_unread(c, caller.user_id, &mut page.items)?;
        Ok(page)
    })
    .await?;
    Ok(HttpResponse::Ok().json(page))
}

/// A match view's version: its seq, and a hash of everything it shows, so
/// that what changes without an event (a rematch asked for, a challenge
/// answered, a vacation, a takeback asked) is seen by a client that
/// revalidates (docs/decisions/web-client.md, "Never stale"). The hash is
/// the same on every instance running one build (SipHash with fixed keys
/// over the same bytes); across builds a client may get one needless 200.
fn etag(view: &MatchView) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_vec(view)
        .unwrap_or_default()
        .hash(&mut hasher);
    format!("\"{}-{:016x}\"", view.seq, hasher.finish())
}

#[utoipa::path(get, path = "/v1/matches/{id}", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = MatchView), (status = 304), (status = 404)), security(("bearer" = [])))]
#[get("/v1/matches/{id}")]
pub async fn view_match(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, now) = (id.into_inner(), state.clock.now());
    let mut random = state.roller();
    let view = db::read(&state.pool, move |c| {
        let mut view = play::view(c, id, caller.user_id, now, &mut random)?;
        crate::talk::messages::mark_unread(c, caller.user_id, std::slice::from_mut(&mut view))?;
        Ok(view)
    })
    .await?;
    let tag = etag(&view);
    let unchanged = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim().trim_start_matches("W/") == tag)
        });
    // The viewer's own data, kept by their client only and revalidated
    // by its ETag on each use.
    let cache = (header::CACHE_CONTROL, "private, no-cache");
    if unchanged {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, tag))
            .insert_header(cache)
            .finish());
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, tag))
        .insert_header(cache)
        .json(view))
}

#[utoipa::path(get, path = "/v1/matches/{id}/legal-actions", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = LegalActions), (status = 404)), security(("bearer" = [])))]
#[get("/v1/matches/{id}/legal-actions")]
pub async fn legal_actions(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (id, now) = (id.into_inner(), state.clock.now());
    let mut random = state.roller();
    let actions = db::read(&state.pool, move |c| {
        play::legal_actions(c, id, caller.user_id, now, &mut random)
    })
    .await?;
    Ok(HttpResponse::Ok().json(actions))
}

/// The request's `Idempotency-Key`, with what it asks for (method, path
/// and body) as the key's fingerprint (`crate::idempotency`).
pub fn keyed(req: &HttpRequest, body: &impl serde::Serialize) -> Result<Option<Keyed>, ApiError> {
    let Some(value) = req.headers().get("Idempotency-Key") else {
        return Ok(None);
    };
    let key = idempotency::check_key(value.as_bytes())?;
    let body = serde_json::to_value(body).map_err(Error::internal)?;
    let operation = format!("{} {}", req.method(), req.path());
    Ok(Some(Keyed::new(key, &operation, &body)))
}

#[utoipa::path(post, path = "/v1/matches/{id}/actions", tag = "matches",
    params(("id" = Uuid, Path), ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]{1,128}$", description = "a retry with the same key and request gets the first answer; the same key with another request gets 422 idempotency_key_reused (kept 24 h)")),
    request_body = ActionRequest,
    responses((status = 200, body = ActionAnswer), (status = 409), (status = 422), (status = 404)), security(("bearer" = [])))]
#[post("/v1/matches/{id}/actions")]
pub async fn post_action(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    req: HttpRequest,
    body: Body<ActionRequest>,
) -> Result<HttpResponse, ApiError> {
    let request = body.into_inner();
    let keyed = keyed(&req, &request)?;
    let (id, now) = (id.into_inner(), state.clock.now());
    let mut random = state.roller();
    let user = caller.user_id;
    let play::Acted {
        answer,
        snapshot,
        away,
    } = db::run(&state.pool, move |c| {
        let actor = play::Actor {
            user,
            away: vacation::OnVacation,
        };
        play::act(c, id, actor, request, keyed, now, &mut random)
    })
    .await?;
    // Committed: the next action on this match can skip the fold.
    snapshot.remember();
    // Acting in any match ends a vacation
    // (docs/decisions/matches-and-deadlines.md, "Vacation"), once the
    // action stands; a failure here leaves it to the next action or the
    // sweep.
    if away {
        if let Err(e) = db::run(&state.pool, move |c| vacation::end(c, user, now)).await {
            log::warn!("ending {user}'s vacation after an action: {e}");
        }
    }
    state
        .metrics
        .actions_applied
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag(&answer.match_view)))
        .json(answer))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Only events after this seq (default 0: all).
    after: Option<i32>,
}

#[utoipa::path(get, path = "/v1/matches/{id}/events", tag = "matches",
    params(("id" = Uuid, Path), EventsQuery),
    responses((status = 200, body = EventFeed), (status = 404)), security(("bearer" = [])))]
#[get("/v1/matches/{id}/events")]
pub async fn event_feed(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    query: web::Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let (id, now, after) = (id.into_inner(), state.clock.now(), query.after.unwrap_or(0));
    let mut random = state.roller();
    let feed = db::read(&state.pool, move |c| {
        play::events(c, id, caller.user_id, after, now, &mut random)
    })
    .await?;
    Ok(HttpResponse::Ok().json(feed))
}

/// One answer to a challenge (accept, decline, withdraw): the match, the
/// user, the time and the dice for a deal the answer may complete.
type ChallengeStep = fn(
    &mut diesel::PgConnection,
    Uuid,
    Uuid,
    chrono::DateTime<chrono::Utc>,
    &mut dyn posthorn_rules::Random,
) -> Result<crate::matches::Table, Error>;

/// Answer a challenge, or withdraw an unstarted match
/// (docs/decisions/challenges-and-lobby.md, "Challenges").
async fn challenge_step(
    state: web::Data<AppState>,
    caller: Caller,
    id: Uuid,
    step: ChallengeStep,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let mut random = state.roller();
    let view = db::run(&state.pool, move |c| {
        let mut table = step(c, id, caller.user_id, now, &mut random)?;
        table.view_for(c, caller.user_id)
    })
    .await?;
    Ok(HttpResponse::Ok().json(view))
}

#[utoipa::path(post, path = "/v1/matches/{id}/accept", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = MatchView), (status = 404, description = "no challenge for me"), (status = 409, description = "my own match: I sit in it already")),
    security(("bearer" = [])))]
#[post("/v1/matches/{id}/accept")]
pub async fn accept_challenge(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    challenge_step(state, caller, id.into_inner(), challenge::accept).await
}

#[utoipa::path(post, path = "/v1/matches/{id}/decline", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = MatchView), (status = 404, description = "no challenge for me"), (status = 409, description = "my own match: I sit in it already")),
    security(("bearer" = [])))]
#[post("/v1/matches/{id}/decline")]
pub async fn decline_challenge(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    challenge_step(state, caller, id.into_inner(), challenge::decline).await
}

#[utoipa::path(post, path = "/v1/matches/{id}/cancel", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = MatchView), (status = 403), (status = 404), (status = 409)),
    security(("bearer" = [])))]
#[post("/v1/matches/{id}/cancel")]
pub async fn withdraw_match(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    challenge_step(state, caller, id.into_inner(), challenge::withdraw).await
}

#[utoipa::path(post, path = "/v1/matches/{id}/rematch", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = RematchState, description = "asked; `rematch` is the new match once every player has asked"),
        (status = 403, description = "not a player, or blocked"), (status = 404),
        (status = 409, description = "the match is not finished, or its rematch has started")),
    security(("bearer" = [])))]
#[post("/v1/matches/{id}/rematch")]
pub async fn ask_rematch(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let answer = as_asker(&state, caller.user_id, move |c, ask, random| {
        rematch::ask_for(c, ask, id, random)
    })
    .await?;
    Ok(HttpResponse::Ok().json(answer))
}

#[utoipa::path(get, path = "/v1/invites/{code}", tag = "matches",
    params(("code" = String, Path, description = "the invitation code")),
    responses((status = 200, body = crate::lobby::invites::InvitePreview), (status = 404)))]
#[get("/v1/invites/{code}")]
pub async fn preview_invite(
    state: web::Data<AppState>,
    request: HttpRequest,
    code: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (code, now) = (code.into_inner(), state.clock.now());
    // Codes carry ~50 bits; counting lookups per address keeps guessing
    // hopeless (docs/abuse.md, "Limits that hold"), the unknown codes
    // included.
    let address = crate::http::caller::client_address(&request);
    db::run(&state.pool, move |c| {
        crate::limits::take(c, crate::limits::Limit::InvitePreview, &address, now)
    })
    .await?;
    let found = db::read(&state.pool, move |c| {
        crate::lobby::invites::preview(c, &code, now)
    })
    .await?;
    // Asked without a token, but the code in the address is a secret.
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(found))
}

#[utoipa::path(get, path = "/v1/invites/{code}/picture", tag = "matches",
    params(("code" = String, Path, description = "the invitation code")),
    responses((status = 200, description = "the invitation's game as it starts, as anyone sees it: its link preview's picture, 1200×630", content_type = "image/png"), (status = 404)))]
#[get("/v1/invites/{code}/picture")]
pub async fn invite_picture(
    state: web::Data<AppState>,
    request: HttpRequest,
    code: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (code, now) = (code.into_inner(), state.clock.now());
    // Counted as a preview: the code in the address is a secret.
    let address = crate::http::caller::client_address(&request);
    let png = db::run(&state.pool, move |c| {
        crate::limits::take(c, crate::limits::Limit::InvitePreview, &address, now)?;
        crate::lobby::invites::picture(c, &code, now)
    })
    .await?;
    Ok(picture("image/png", "no-store", &png))
}

/// A finished match's record (issue #69, docs/records.md), as a file:
/// PDN, PGN, PGN4 or Posthorn's text record. Its players get it whole
/// (§H3), anyone else who may read the match the spectator's (§H4).
#[utoipa::path(get, path = "/v1/matches/{id}/record", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 200, description = "the record, as text", content_type = "text/plain"),
        (status = 404), (status = 409, description = "the match is not over yet")),
    security(("bearer" = [])))]
#[get("/v1/matches/{id}/record")]
pub async fn record(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (id, site) = (id.into_inner(), state.config.public_url.clone());
    let found = (state.reads)
        .read(move |c| crate::matches::record::of(c, id, caller.user_id, &site))
        .await?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{}\"", found.filename),
        ))
        .insert_header((header::CACHE_CONTROL, "private, no-store"))
        .body(found.text))
}

#[utoipa::path(get, path = "/v1/matches/{id}/positions/{seq}", tag = "matches",
    params(("id" = Uuid, Path), ("seq" = i32, Path, minimum = 0, description = "an event's seq, from 1 to the match's (422 otherwise)")),
    responses((status = 200, body = crate::matches::replay::Position), (status = 400), (status = 404), (status = 422, description = "a seq of no event: 0, or past the match's last")),
    security(("bearer" = [])))]
#[get("/v1/matches/{id}/positions/{seq}")]
pub async fn position_at(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(Uuid, i32)>,
) -> Result<HttpResponse, ApiError> {
    let (id, seq) = path.into_inner();
    // Replays read a replica when one is configured (docs/operations.md,
    // "The database: failover, replicas, backups").
    let found = (state.reads)
        .read(move |c| crate::matches::replay::position_at(c, id, caller.user_id, seq))
        .await?;
    Ok(HttpResponse::Ok().json(found))
}

#[utoipa::path(post, path = "/v1/matches/{id}/share", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 201, body = crate::sharing::ShareLink, description = "made: an unlisted address that opens the replay and the analysis in the spectator's view, without an account (docs/analysis.md, \"Share links\")"),
        (status = 200, body = crate::sharing::ShareLink, description = "the match's live link, made before (one a match)"),
        (status = 403, description = "the caller is not one of the match's players"),
        (status = 404), (status = 409, description = "the match is not over yet")),
    security(("bearer" = [])))]
#[post("/v1/matches/{id}/share")]
pub async fn share_match(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (id, now, site) = (
        id.into_inner(),
        state.clock.now(),
        state.config.public_url.clone(),
    );
    let (made, link) = db::run(&state.pool, move |c| {
        crate::sharing::share(c, id, caller.user_id, now, &site)
    })
    .await?;
    Ok(match made {
        true => HttpResponse::Created().json(link),
        false => HttpResponse::Ok().json(link),
    })
}

#[utoipa::path(delete, path = "/v1/matches/{id}/share", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 204, description = "the match's live link, if any, opens nothing any more"),
        (status = 403, description = "the caller is not one of the match's players"),
        (status = 404), (status = 409, description = "the match is not over yet")),
    security(("bearer" = [])))]
#[delete("/v1/matches/{id}/share")]
pub async fn unshare_match(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    db::run(&state.pool, move |c| {
        crate::sharing::revoke(c, id, caller.user_id)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(get, path = "/v1/shared/{token}", tag = "matches",
    params(("token" = String, Path, description = "a share link's token")),
    responses((status = 200, body = crate::sharing::SharedMatch, description = "the match, its log and its analysis as a spectator sees them (§H4)"),
        (status = 404, description = "no such link, or revoked")))]
#[get("/v1/shared/{token}")]
pub async fn shared_match(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let token = token.into_inner();
    let found = (state.reads)
        .read(move |c| crate::sharing::shared(c, &token))
        .await?;
    // Asked without a token, but the link is the secret; revoked, it
    // must stop at once.
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(found))
}

#[utoipa::path(get, path = "/v1/shared/{token}/positions/{seq}", tag = "matches",
    params(("token" = String, Path, description = "a share link's token"), ("seq" = i32, Path, minimum = 0, description = "an event's seq, from 1 to the match's (422 otherwise)")),
    responses((status = 200, body = crate::matches::replay::Position, description = "the view after event `seq`, a spectator's"), (status = 400), (status = 404), (status = 422, description = "a seq of no event")))]
#[get("/v1/shared/{token}/positions/{seq}")]
pub async fn shared_position(
    state: web::Data<AppState>,
    path: web::Path<(String, i32)>,
) -> Result<HttpResponse, ApiError> {
    let (token, seq) = path.into_inner();
    let found = (state.reads)
        .read(move |c| crate::sharing::position(c, &token, seq))
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(found))
}

/// `?seq=`: the board after that event; the last when absent.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
pub struct PictureQuery {
    /// An event's seq, from 1 to the match's (422 otherwise).
    pub seq: Option<i32>,
}

#[utoipa::path(get, path = "/v1/matches/{id}/picture", tag = "matches",
    params(("id" = Uuid, Path), PictureQuery),
    responses((status = 200, description = "the board as the caller may see it (§H4), 640×640", content_type = "image/png"),
        (status = 404), (status = 422, description = "a seq of no event")),
    security(("bearer" = [])))]
#[get("/v1/matches/{id}/picture")]
pub async fn match_picture(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    query: web::Query<PictureQuery>,
) -> Result<HttpResponse, ApiError> {
    let (id, seq) = (id.into_inner(), query.into_inner().seq);
    let png = (state.reads)
        .read(move |c| crate::matches::replay::picture_at(c, id, caller.user_id, seq))
        .await?;
    Ok(picture("image/png", "private, no-store", &png))
}

#[utoipa::path(get, path = "/v1/shared/{token}/game.gif", tag = "matches",
    params(("token" = String, Path, description = "a share link's token")),
    responses((status = 200, description = "the shared match as an animated GIF, a spectator's frames (640×640, a second a play)", content_type = "image/gif"),
        (status = 404, description = "no such link, or revoked")))]
#[get("/v1/shared/{token}/game.gif")]
pub async fn shared_animation(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let token = token.into_inner();
    let gif = (state.reads)
        .read(move |c| crate::sharing::animation(c, &token))
        .await?;
    Ok(picture("image/gif", "no-store", &gif))
}

#[utoipa::path(get, path = "/v1/shared/{token}/picture", tag = "matches",
    params(("token" = String, Path, description = "a share link's token")),
    responses((status = 200, description = "the shared match's board as it ended, as a spectator sees it: a link preview's picture, 1200×630", content_type = "image/png"),
        (status = 404, description = "no such link, or revoked")))]
#[get("/v1/shared/{token}/picture")]
pub async fn shared_picture(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let token = token.into_inner();
    let png = (state.reads)
        .read(move |c| crate::sharing::preview(c, &token))
        .await?;
    Ok(picture("image/png", "no-store", &png))
}

/// A picture's answer: its bytes, their type, how it may be kept (a
/// share link's and an invitation's: not at all, as revoking must work;
/// a player's own: privately).
fn picture(content_type: &'static str, cache: &'static str, bytes: &[u8]) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, cache))
        .body(bytes.to_vec())
}
