//! The web client (issue #18): a small PWA built into the binary. Every
//! page is the same shell (`index.html`); `app.js` draws the page for the
//! path. No inline script or style and no third party: the
//! Content-Security-Policy allows the service's own files only, and the
//! access token is only ever sent to this origin.

use actix_web::http::header;
use actix_web::{get, HttpResponse};

const INDEX: &str = include_str!("../web/index.html");
const APP_JS: &str = include_str!("../web/app.js");
const BOARDS_JS: &str = include_str!("../web/boards.js");
const APP_CSS: &str = include_str!("../web/app.css");
const SW_JS: &str = include_str!("../web/sw.js");
const MANIFEST: &str = include_str!("../web/manifest.webmanifest");
const ICON: &str = include_str!("../web/icon.svg");

/// Only this origin's files; no inline script or style; no framing.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
    connect-src 'self'; worker-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; \
    frame-ancestors 'none'; object-src 'none'";

fn asset(body: &'static str, content_type: &str, cache: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::CACHE_CONTROL, cache))
        .body(body)
}

fn shell() -> HttpResponse {
    asset(INDEX, "text/html; charset=utf-8", "no-cache")
}

#[get("/")]
pub async fn home() -> HttpResponse {
    shell()
}

/// The pages the client draws itself: invitations, matches, and the rest.
#[get("/{page:(invite|matches|new|settings|leaderboards|signin)(/.*)?}")]
pub async fn page() -> HttpResponse {
    shell()
}

#[get("/app.js")]
pub async fn app_js() -> HttpResponse {
    asset(APP_JS, "text/javascript; charset=utf-8", "no-cache")
}

#[get("/boards.js")]
pub async fn boards_js() -> HttpResponse {
    asset(BOARDS_JS, "text/javascript; charset=utf-8", "no-cache")
}

#[get("/app.css")]
pub async fn app_css() -> HttpResponse {
    asset(APP_CSS, "text/css; charset=utf-8", "no-cache")
}

/// Served from the root so that it controls every page.
#[get("/sw.js")]
pub async fn service_worker() -> HttpResponse {
    asset(SW_JS, "text/javascript; charset=utf-8", "no-cache")
}

#[get("/manifest.webmanifest")]
pub async fn manifest() -> HttpResponse {
    asset(MANIFEST, "application/manifest+json", "max-age=3600")
}

#[get("/icon.svg")]
pub async fn icon() -> HttpResponse {
    asset(ICON, "image/svg+xml", "max-age=86400")
}
