//! The security headers every answer carries (docs/decisions/hardening.md), set in
//! one place so that no route can forget them:
//!
//! - `X-Content-Type-Options: nosniff` on everything, errors included: a
//!   browser must never run a JSON body or a problem document as a page or
//!   a script.
//! - Every HTML page (the web client, `/docs`, `/problems/{code}`, the
//!   unsubscribe page) gets the web client's Content-Security-Policy —
//!   this origin's files only, no inline script or style, no framing — and
//!   `X-Frame-Options: DENY` for browsers that predate `frame-ancestors`,
//!   and `Referrer-Policy: no-referrer` (the unsubscribe page's address
//!   holds its token). Swagger UI needs no more than that policy: its page
//!   loads three scripts and two style sheets of its own and no inline
//!   code; React sets styles through the DOM, which a policy does not
//!   govern; the CSS draws its icons from `data:` images. (In Chromium the
//!   one thing refused is the `<style>` inside Swagger's logo: it loses
//!   its colours, not worth a hole in the policy.)
//! - `Cache-Control: no-store` on every answer to a request that carries
//!   `Authorization` (personal data) and on every answer to a write (the
//!   sessions' tokens among them), unless the handler chose its own
//!   (a match's view is `private, no-cache`: revalidated by its `ETag`).
//!   Public pages and files keep what their handlers set.
//!
//! It is the outermost layer, so it also covers what the layers inside it
//! refuse (the NUL check in `observe`).

use super::client::CSP;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderMap, HeaderValue};
use actix_web::http::Method;
use actix_web::{HttpResponse, ResponseError};
use std::future::Future;

pub fn protect<S, B>(
    req: ServiceRequest,
    srv: &S,
) -> impl Future<Output = Result<ServiceResponse<B>, actix_web::Error>> + use<S, B>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>,
{
    let personal = req.headers().contains_key(header::AUTHORIZATION)
        || !matches!(*req.method(), Method::GET | Method::HEAD);
    let answer = srv.call(req);
    async move {
        match answer.await {
            Ok(mut res) => {
                secure(res.headers_mut(), personal);
                Ok(res)
            }
            // A layer inside refused the request (it is answered from the
            // error, with no request left to answer it by): the headers
            // go on when the answer is made.
            Err(e) => Err(Secured(e, personal).into()),
        }
    }
}

/// An error answered with the headers.
#[derive(Debug)]
struct Secured(actix_web::Error, bool);

impl std::fmt::Display for Secured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl ResponseError for Secured {
    fn status_code(&self) -> actix_web::http::StatusCode {
        self.0.as_response_error().status_code()
    }

    fn error_response(&self) -> HttpResponse {
        let mut res = self.0.error_response();
        secure(res.headers_mut(), self.1);
        res
    }
}

/// Add what `headers` lacks. `personal`: the answer is to a request
/// with credentials, or to a write.
pub fn secure(headers: &mut HeaderMap, personal: bool) {
    let html = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/html"));
    let mut default = |name: header::HeaderName, value: &'static str| {
        if !headers.contains_key(&name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    };
    default(header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    if html {
        default(header::CONTENT_SECURITY_POLICY, CSP);
        default(header::X_FRAME_OPTIONS, "DENY");
        default(header::REFERRER_POLICY, "no-referrer");
    }
    if personal {
        default(header::CACHE_CONTROL, "no-store");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(map: &HeaderMap, name: header::HeaderName) -> &str {
        map.get(name).unwrap().to_str().unwrap()
    }

    fn with(pairs: &[(header::HeaderName, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(name.clone(), HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn html_gets_the_policy_and_everything_gets_nosniff() {
        let mut page = with(&[(header::CONTENT_TYPE, "text/html; charset=utf-8")]);
        secure(&mut page, false);
        assert_eq!(value(&page, header::X_CONTENT_TYPE_OPTIONS), "nosniff");
        assert_eq!(value(&page, header::X_FRAME_OPTIONS), "DENY");
        assert!(value(&page, header::CONTENT_SECURITY_POLICY).contains("frame-ancestors 'none'"));
        assert!(!page.contains_key(header::CACHE_CONTROL), "public pages");

        let mut json = with(&[(header::CONTENT_TYPE, "application/json")]);
        secure(&mut json, true);
        assert_eq!(value(&json, header::X_CONTENT_TYPE_OPTIONS), "nosniff");
        assert_eq!(value(&json, header::CACHE_CONTROL), "no-store");
        assert!(!json.contains_key(header::X_FRAME_OPTIONS));
    }

    #[test]
    fn what_a_handler_chose_is_kept() {
        let mut view = with(&[
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "private, no-cache"),
        ]);
        secure(&mut view, true);
        assert_eq!(value(&view, header::CACHE_CONTROL), "private, no-cache");
        let mut client = with(&[
            (header::CONTENT_TYPE, "text/html"),
            (header::CONTENT_SECURITY_POLICY, "default-src 'none'"),
        ]);
        secure(&mut client, false);
        assert_eq!(
            value(&client, header::CONTENT_SECURITY_POLICY),
            "default-src 'none'"
        );
    }
}
