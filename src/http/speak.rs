//! Problem documents in the player's language
//! (docs/decisions/api-and-schemas.md). A request that prefers Korean — its
//! `Accept-Language`, or when it sends none the signed-in account's
//! `locale` — gets every problem document with its `detail` in Korean: the
//! sentence its `code` has for players ([`Code::korean`]). The `code`,
//! `status`, `type` and extension members (the current `seq` …) stay as
//! they are, since programs read those; the English `detail`, which for a
//! refused move names the rule, is kept in `detail_en` for the developer
//! reading a log.
//!
//! One layer rewrites the answer rather than every error knowing the
//! request: an error is made far from its request (in a use case, in an
//! extractor), and only an error answer is touched, so the cost falls on
//! refusals alone (the account's locale is read only then, only when a
//! connection is idle, and never for a 5xx or a 429, which must not wait
//! for one). The few problems written below the application — a request
//! head too slow or too large (`edge.rs`), a NUL in the address — are
//! English only: they answer requests no client of ours sends.

use super::error::Code;
use crate::auth::Caller;
use crate::db;
use crate::notify::words::Locale;
use crate::schema::users;
use crate::state::AppState;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Service, ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::{web, FromRequest};
use diesel::prelude::*;
use serde_json::Value;
use std::future::Future;

const PROBLEM: &str = "application/problem+json";

pub fn speak<S, B>(
    req: ServiceRequest,
    srv: &S,
) -> impl Future<Output = Result<ServiceResponse<BoxBody>, actix_web::Error>> + use<S, B>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody + 'static,
{
    let asked = asked_locale(req.headers().get(header::ACCEPT_LANGUAGE));
    let answer = srv.call(req);
    async move {
        let mut res = answer.await?.map_into_boxed_body();
        let problem = (res.headers().get(header::CONTENT_TYPE))
            .is_some_and(|v| v.as_bytes().starts_with(PROBLEM.as_bytes()));
        if !problem {
            return Ok(res);
        }
        (res.headers_mut()).append(header::VARY, HeaderValue::from_static("accept-language"));
        // The account is read only for a refusal of the request itself: a
        // 5xx or a 429 says the service is short of time or connections,
        // and its answer must not wait for one (English, unless asked).
        let busy = res.status().is_server_error() || res.status().as_u16() == 429;
        let locale = match asked {
            Some(locale) => locale,
            None if busy => Locale::English,
            None => account_locale(res.request()).await,
        };
        if locale != Locale::Korean {
            return Ok(res);
        }
        Ok(in_korean(res).await)
    }
}

/// The language the request prefers among those Posthorn speaks, by
/// `q`-value (RFC 9110 §12.5.4); `None` when it names neither. A new
/// guest's account takes it too (`accounts::guest`).
pub(crate) fn asked_locale(header: Option<&HeaderValue>) -> Option<Locale> {
    let text = header?.to_str().ok()?;
    let mut best: Option<(f32, Locale)> = None;
    for part in text.split(',') {
        let mut pieces = part.trim().split(';');
        let tag = pieces.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = pieces
            .find_map(|p| p.trim().strip_prefix("q="))
            .and_then(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        let locale = if tag.starts_with("ko") {
            Locale::Korean
        } else if tag.starts_with("en") {
            Locale::English
        } else {
            continue;
        };
        if q > 0.0 && best.is_none_or(|(b, _)| q > b) {
            best = Some((q, locale));
        }
    }
    best.map(|(_, locale)| locale)
}

/// The signed-in caller's `locale`; English for anyone else, or when it
/// cannot be read (a problem is answered either way).
async fn account_locale(req: &actix_web::HttpRequest) -> Locale {
    let Ok(caller) = Caller::extract(req).await else {
        return Locale::English;
    };
    let Some(state) = req.app_data::<web::Data<AppState>>() else {
        return Locale::English;
    };
    // A refusal never waits for a connection to say it in Korean.
    if state.pool.state().idle_connections == 0 {
        return Locale::English;
    }
    let locale = db::read(&state.pool, move |c| {
        Ok(users::table
            .find(caller.user_id)
            .select(users::locale)
            .first::<String>(c)?)
    })
    .await;
    locale.map_or(Locale::English, |l| Locale::of(&l))
}

/// The same answer with its `detail` in Korean.
async fn in_korean(res: ServiceResponse<BoxBody>) -> ServiceResponse<BoxBody> {
    let (req, res) = res.into_parts();
    let (mut head, body) = res.into_parts();
    let bytes = actix_web::body::to_bytes(body).await.unwrap_or_default();
    let translated = serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|mut doc| {
            let code = doc.get("code")?.as_str().and_then(Code::parse)?;
            let english = doc.get("detail").cloned().unwrap_or(Value::Null);
            doc["detail_en"] = english;
            doc["detail"] = Value::from(code.korean());
            Some(doc.to_string())
        });
    let body = match translated {
        Some(text) => {
            let headers = head.headers_mut();
            headers.insert(header::CONTENT_LANGUAGE, HeaderValue::from_static("ko"));
            headers.remove(header::CONTENT_LENGTH);
            BoxBody::new(text)
        }
        None => BoxBody::new(bytes),
    };
    ServiceResponse::new(req, head.set_body(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(text: &str) -> Option<Locale> {
        asked_locale(Some(&HeaderValue::from_str(text).unwrap()))
    }

    #[test]
    fn the_preferred_language_wins_by_q_value() {
        assert_eq!(asked("ko-KR,ko;q=0.9,en-US;q=0.8"), Some(Locale::Korean));
        assert_eq!(asked("en-US,en;q=0.9,ko;q=0.8"), Some(Locale::English));
        assert_eq!(asked("fr;q=1, ko;q=0.5"), Some(Locale::Korean));
        assert_eq!(asked("en;q=0.3, ko;q=0.7"), Some(Locale::Korean));
        assert_eq!(asked("ko;q=0, en"), Some(Locale::English));
        assert_eq!(asked("fr, de"), None);
        assert_eq!(asked_locale(None), None);
    }

    #[test]
    fn every_code_has_korean_words_for_players() {
        for code in Code::ALL {
            let korean = code.korean();
            assert!(
                korean.chars().any(|c| ('가'..='힣').contains(&c)),
                "{code:?}"
            );
            assert!(!korean.chars().any(|c| c.is_ascii_alphabetic()), "{code:?}");
        }
    }
}
