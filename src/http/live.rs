//! `GET /v1/matches/{id}/live` (docs/architecture.md, "Live match pages"):
//! a match page's live channel, as server-sent events
//! (`text/event-stream`).
//!
//! The stream says only that the match changed and its seq: `event: seq`
//! with `{"seq": N}` at once and after every change (N only grows) (`{"seq": null}` for a
//! rematch asked for or a message at the table, which leave the seq), `event: resync` when changes
//! may have been missed, `event: displaced` as its last word when a
//! newer stream of the same session took its place (a session holds
//! [`crate::live::PER_SESSION`]; the page then polls instead of opening
//! another), and a comment every [`BEAT`] so that a dead connection is
//! noticed. Accounts, addresses and /48s hold a few dozen streams on an
//! instance (429 past them), and the instance no more than its open files
//! allow (503: poll) (docs/operations.md, "Open files and live streams").
//! The page re-reads the match through the API, which shows each viewer
//! what they may see (§H1); no game content is in the stream. It ends after
//! `POSTHORN_LIVE_STREAM_SECONDS` (5 minutes): the page opens another with
//! a fresh access token, so a session ended elsewhere stops hearing within
//! that time. A client that cannot read streams polls
//! (`GET /v1/matches/{id}` with its ETag) as before.

use crate::auth::Caller;
use crate::db;
use crate::live::{Change, Pass, Refusal, Watcher};
use crate::matches::reads;
use crate::state::AppState;
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{get, web, HttpResponse};
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Instant, Interval};
use uuid::Uuid;

/// A comment this often keeps proxies from closing an idle stream, and
/// finds a page that closed its own: actix hears of a closed connection
/// only when writing to it fails, at the second write after it closed
/// (the first still reaches the kernel), so a closed page's watch is
/// released within two beats (`tests/service/live.rs`).
pub const BEAT: std::time::Duration = std::time::Duration::from_secs(15);

/// One server-sent event of a live stream, as an SSE reader parses it:
/// its name and its data (JSON text). Beats are comments, no events.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct LiveEvent {
    /// `seq`, `resync` or `displaced`.
    #[schema(pattern = "^(seq|resync|displaced)$")]
    pub event: String,
    /// JSON: `{"seq": N}` (`{"seq": null}` for a rematch asked for or a
    /// message) after `seq`, `{}` after the others.
    pub data: String,
}

#[utoipa::path(get, path = "/v1/matches/{id}/live", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 200, content_type = "text/event-stream", body = LiveEvent,
        description = "server-sent events: `seq` ({\"seq\": N}) at once and at every change, `resync` when changes may have been missed, `displaced` (then the end) when a newer stream of the same session took its place: poll instead of opening another; ends after 5 minutes"),
        (status = 404),
        (status = 429, description = "the account (8), the address (64) or its IPv6 /48 (256) holds all the live pages it may on this instance: poll"),
        (status = 503, description = "changes are not being read now, or the instance holds all the live pages it can: poll instead")),
    security(("bearer" = [])))]
#[get("/v1/matches/{id}/live")]
pub async fn live_match(
    state: web::Data<AppState>,
    caller: Caller,
    http: actix_web::HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, crate::http::error::ApiError> {
    let id = id.into_inner();
    // Nothing is being read (the database lost, the reader not yet
    // connected): the page polls instead, as a 503 tells it.
    if !state.live.reading() {
        return Err(crate::error::Error::Unavailable(
            "live match pages are not being read now; poll".into(),
        )
        .into());
    }
    // A place among the instance's streams first (given back if anything
    // below refuses).
    let pass = state.live.admit(Watcher {
        session: caller.session,
        user: caller.user_id,
        origin: crate::http::caller::origin(&http),
    });
    let pass = pass.map_err(refused)?;
    // Watching before the seq is read: nothing falls between the two.
    let watching = state.live.watch(id);
    // Closed between the check above and the watch: no stream would hear
    // of it (docs/operations.md, "Stopping and rolling restarts").
    if !state.live.reading() {
        return Err(crate::error::Error::Unavailable(
            "live match pages are not being read now; poll".into(),
        )
        .into());
    }
    let (seq, team) = db::read(&state.pool, move |c| {
        let seq = reads::seq_seen_by(c, id, caller.user_id)?;
        Ok((
            seq,
            crate::talk::messages::channel_of(c, id, caller.user_id)?,
        ))
    })
    .await?;
    // At the table (docs/decisions/notifications.md): the player's notices
    // about this match wait while the stream lasts, for every instance to
    // see.
    let seated = Seated::sit(&state, caller.user_id, id).await?;
    let mut beat = tokio::time::interval_at(Instant::now() + BEAT, BEAT);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let watch = Watch {
        id,
        pass,
        displaced: false,
        watching,
        beat,
        until: Instant::now() + std::time::Duration::from_secs(state.config.live_stream_seconds),
        first: Some(seq),
        said: seq,
        team,
        _seated: seated,
    };
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        // Not compressed: a compressor holds back what it has not filled.
        .insert_header((header::CONTENT_ENCODING, "identity"))
        .insert_header(("x-accel-buffering", "no"))
        .streaming(futures_util::stream::unfold(watch, next)))
}

struct Watch {
    id: Uuid,
    /// Its place among the instance's streams (dropped with it).
    pass: Pass,
    /// Told it was displaced: the stream ends after saying so.
    displaced: bool,
    /// The match watched while the stream lasts (dropped with it).
    watching: crate::live::Watch,
    beat: Interval,
    until: Instant,
    first: Option<i32>,
    /// The last seq said: a notice of an older one (committed before the
    /// stream opened, heard after) is not said again.
    said: i32,
    /// The team channel this page's player reads, if any
    /// (docs/decisions/table-talk.md).
    team: Option<i16>,
    /// The player is at the table while the stream lasts.
    _seated: Seated,
}

/// A stream's row among the watchers (`notify::at_table`), deleted when
/// the stream ends; if this instance dies first, the row lapses at the
/// stream's own end.
struct Seated {
    stream: Uuid,
    state: web::Data<AppState>,
}

impl Seated {
    async fn sit(
        state: &web::Data<AppState>,
        user: Uuid,
        id: Uuid,
    ) -> Result<Seated, crate::error::Error> {
        let stream = Uuid::new_v4();
        let lasts = state
            .config
            .live_stream_seconds
            .saturating_add(BEAT.as_secs());
        let until = state.clock.now() + chrono::Duration::seconds(lasts as i64);
        db::run(&state.pool, move |c| {
            crate::notify::at_table::sit(c, stream, user, id, until)
        })
        .await?;
        let state = state.clone();
        Ok(Seated { stream, state })
    }
}

impl Drop for Seated {
    fn drop(&mut self) {
        // Off the stream's thread; nothing to do once the runtime is gone
        // (the row lapses by itself).
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (stream, state) = (self.stream, self.state.clone());
        runtime.spawn(async move {
            let now = state.clock.now();
            let rose = db::run(&state.pool, move |c| {
                crate::notify::at_table::rise(c, stream, now)
            });
            if let Err(e) = rose.await {
                log::warn!("a closed live stream stays among the watchers until it lapses: {e}");
            }
        });
    }
}

type Said = Result<Bytes, actix_web::Error>;

async fn next(mut w: Watch) -> Option<(Said, Watch)> {
    if let Some(seq) = w.first.take() {
        return Some((Ok(seq_event(Some(seq))), w));
    }
    if w.displaced {
        return None;
    }
    loop {
        let said = tokio::select! {
            _ = tokio::time::sleep_until(w.until) => return None,
            // A newer stream of this session took its place: the page
            // polls from now on instead of opening another
            // (docs/operations.md, "Open files and live streams").
            _ = &mut w.pass.displaced => {
                w.displaced = true;
                Bytes::from_static(b"event: displaced\ndata: {}\n\n")
            }
            _ = w.beat.tick() => Bytes::from_static(b": beat\n\n"),
            got = w.watching.changes.recv() => match got {
                Ok(Change::Moved { match_id, seq }) if match_id == w.id => match seq {
                    Some(seq) if seq <= w.said => continue,
                    Some(seq) => {
                        w.said = seq;
                        seq_event(Some(seq))
                    }
                    None => seq_event(None),
                },
                Ok(Change::Moved { .. }) => continue,
                Ok(Change::Talked { match_id, team })
                    if match_id == w.id && (team.is_none() || team == w.team) =>
                {
                    seq_event(None)
                }
                Ok(Change::Talked { .. }) => continue,
                Ok(Change::Resync) | Err(RecvError::Lagged(_)) => {
                    Bytes::from_static(b"event: resync\ndata: {}\n\n")
                }
                Ok(Change::Closing) | Err(RecvError::Closed) => return None,
            },
        };
        return Some((Ok(said), w));
    }
}

/// What a refused stream is told: 429 past a holder's cap, 503 (poll)
/// when the instance holds all it can.
fn refused(refusal: Refusal) -> crate::error::Error {
    use crate::live::{PER_ACCOUNT, PER_ADDRESS, PER_BLOCK};
    crate::error::Error::rate_limited(match refusal {
        Refusal::Account => format!("an account holds at most {PER_ACCOUNT} live pages here; poll"),
        Refusal::Address => format!("an address holds at most {PER_ADDRESS} live pages here; poll"),
        Refusal::Block => format!("a network holds at most {PER_BLOCK} live pages here; poll"),
        Refusal::Instance => {
            return crate::error::Error::Unavailable(
                "this instance holds all the live pages it can; poll".into(),
            )
        }
    })
}

fn seq_event(seq: Option<i32>) -> Bytes {
    let data = serde_json::json!({ "seq": seq });
    Bytes::from(format!("event: seq\ndata: {data}\n\n"))
}
