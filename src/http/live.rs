//! `GET /v1/matches/{id}/live` (issue #49 item 8): a match page's live
//! channel, as server-sent events (`text/event-stream`).
//!
//! The stream says only that the match changed and its seq: `event: seq`
//! with `{"seq": N}` at once and after every change (N only grows) (`{"seq": null}` for a
//! rematch asked for or a message at the table, which leave the seq), `event: resync` when changes
//! may have been missed, and a comment every [`BEAT`] so that a dead
//! connection is noticed. The page re-reads the match through the API,
//! which shows each viewer what they may see (§H1); no game content is in
//! the stream. It ends after [`LIFETIME`]: the page opens another with a
//! fresh access token, so a session ended elsewhere stops hearing within
//! that time. A client that cannot read streams polls
//! (`GET /v1/matches/{id}` with its ETag) as before.

use crate::auth::Caller;
use crate::db;
use crate::live::Change;
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
/// How long one stream lasts (the access token's life is 15 min).
const LIFETIME: std::time::Duration = std::time::Duration::from_secs(300);

#[utoipa::path(get, path = "/v1/matches/{id}/live", tag = "matches",
    params(("id" = Uuid, Path)),
    responses((status = 200, content_type = "text/event-stream", body = String,
        description = "server-sent events: `seq` ({\"seq\": N}) at once and at every change, `resync` when changes may have been missed; ends after 5 minutes"),
        (status = 404), (status = 503, description = "changes are not being read now: poll instead")),
    security(("bearer" = [])))]
#[get("/v1/matches/{id}/live")]
pub async fn live_match(
    state: web::Data<AppState>,
    caller: Caller,
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
    // Watching before the seq is read: nothing falls between the two.
    let watching = state.live.watch(id);
    // Closed between the check above and the watch: no stream would hear
    // of it (issue #53).
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
    let mut beat = tokio::time::interval_at(Instant::now() + BEAT, BEAT);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let watch = Watch {
        id,
        watching,
        beat,
        until: Instant::now() + LIFETIME,
        first: Some(seq),
        said: seq,
        team,
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
    /// The match watched while the stream lasts (dropped with it).
    watching: crate::live::Watch,
    beat: Interval,
    until: Instant,
    first: Option<i32>,
    /// The last seq said: a notice of an older one (committed before the
    /// stream opened, heard after) is not said again.
    said: i32,
    /// The team channel this page's player reads, if any (issue #50).
    team: Option<i16>,
}

type Said = Result<Bytes, actix_web::Error>;

async fn next(mut w: Watch) -> Option<(Said, Watch)> {
    if let Some(seq) = w.first.take() {
        return Some((Ok(seq_event(Some(seq))), w));
    }
    loop {
        let said = tokio::select! {
            _ = tokio::time::sleep_until(w.until) => return None,
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

fn seq_event(seq: Option<i32>) -> Bytes {
    let data = serde_json::json!({ "seq": seq });
    Bytes::from(format!("event: seq\ndata: {data}\n\n"))
}
