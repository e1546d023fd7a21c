//! The web client (docs/decisions/web-client.md): a small PWA built into
//! the binary. Every page is the same shell (`index.html`); `app.js` (an ES
//! module, with the modules it imports) draws the page for the path. No
//! inline script or style and no third party: the Content-Security-Policy
//! allows the service's own files only, and the access token is only ever
//! sent to this origin.

use crate::http::error::ApiError;
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{get, web, HttpRequest, HttpResponse};

const INDEX: &str = include_str!("../web/index.html");

/// A script of the client, named once.
macro_rules! script {
    ($name:literal) => {
        (
            $name,
            JS,
            "no-cache",
            include_str!(concat!("../web/", $name)),
        )
    };
}

/// Every file of the client but the shell: (name, content type, cache, body).
/// Scripts and styles are revalidated on each load (`no-cache`) so that a
/// new release is picked up at once; the service worker keeps them offline.
const FILES: &[(&str, &str, &str, &str)] = &[
    script!("app.js"),
    script!("core.js"),
    script!("words.js"),
    script!("pages.js"),
    script!("social.js"),
    script!("match.js"),
    script!("seeks.js"),
    script!("computer.js"),
    script!("vacation.js"),
    script!("guests.js"),
    script!("conditional.js"),
    script!("analysis.js"),
    script!("shared.js"),
    script!("coins.js"),
    script!("tournaments.js"),
    script!("welcome.js"),
    script!("identity.js"),
    script!("account.js"),
    script!("offline.js"),
    script!("live.js"),
    script!("talk.js"),
    script!("moderation.js"),
    script!("zones.js"),
    script!("puzzles.js"),
    script!("lessons.js"),
    script!("tapping.js"),
    // The games: the registry, what their boards share, one module each.
    script!("games.js"),
    script!("boards.js"),
    script!("checkers.js"),
    script!("flipchess.js"),
    script!("janggi.js"),
    script!("banqi.js"),
    script!("four_player_chess.js"),
    (
        "app.css",
        "text/css; charset=utf-8",
        "no-cache",
        include_str!("../web/app.css"),
    ),
    (
        "manifest.webmanifest",
        "application/manifest+json",
        "max-age=3600",
        include_str!("../web/manifest.webmanifest"),
    ),
    (
        "icon.svg",
        "image/svg+xml",
        "max-age=86400",
        include_str!("../web/icon.svg"),
    ),
];
const JS: &str = "text/javascript; charset=utf-8";

/// Only this origin's files; no inline script or style; no framing.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
    connect-src 'self'; worker-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; \
    frame-ancestors 'none'; object-src 'none'";

/// The file's version: a page load revalidates each file (`no-cache`) and
/// gets an empty `304` for the ones it already has.
fn etag(body: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    body.hash(&mut hasher);
    format!("\"{:016x}\"", hasher.finish())
}

fn asset(req: &HttpRequest, body: &'static str, content_type: &str, cache: &str) -> HttpResponse {
    let tag = etag(body);
    let known = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag));
    let mut reply = if known {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    reply
        .content_type(content_type)
        .insert_header((header::ETAG, tag))
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::CACHE_CONTROL, cache));
    if known {
        reply.finish()
    } else {
        reply.body(body)
    }
}

fn shell(req: &HttpRequest) -> HttpResponse {
    asset(req, index(), "text/html; charset=utf-8", "no-cache")
}

/// The shell, preloading every script of [`FILES`] but the one it loads.
fn index() -> &'static str {
    static BUILT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let links: Vec<String> = (FILES.iter())
            .filter(|(name, content_type, ..)| *content_type == JS && *name != "app.js")
            .map(|(name, ..)| format!("<link rel=\"modulepreload\" href=\"/{name}\">"))
            .collect();
        INDEX.replace("<!-- MODULES -->", &links.join("\n"))
    })
}

#[get("/")]
pub async fn home(req: HttpRequest) -> HttpResponse {
    shell(&req)
}

/// The pages the client draws itself: invitations, matches, and the rest
/// (`signin/callback` is where Google and Apple send a browser back;
/// `account-deletion` is public, for the app stores' link).
#[get("/{page:(matches|new|computer|seek|settings|leaderboards|users|friends|signin|verify-email|undo-email|forgot-password|reset-password|tournaments|how-to|account-deletion|moderation|puzzles|learn)(/.*)?}")]
pub async fn page(req: HttpRequest) -> HttpResponse {
    shell(&req)
}

/// A share link's page (issue #69, docs/pictures.md): the shell with the
/// link preview's Open Graph tags — the game and who played, the result,
/// and the board as it ended, a spectator's picture — so that a link
/// pasted into KakaoTalk, iMessage or a mail shows them. Only here and on
/// nothing a family keeps to itself: `/matches/{id}` has none. In the
/// language the reader's client asks for; an unknown link gets the bare
/// shell, whose page says the game is no longer shared.
#[get("/shared/{token}")]
pub async fn shared(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> HttpResponse {
    let token = token.into_inner();
    let locale = reader_locale(&req);
    let asked = token.clone();
    let card = (state.reads)
        .read(move |c| crate::sharing::card(c, &asked, locale))
        .await;
    let Ok((title, description)) = card else {
        return shell(&req);
    };
    let site = state.config.public_url.trim_end_matches('/');
    let image = format!("{site}/v1/shared/{token}/picture");
    previewed(
        &title,
        &description,
        &format!("{site}/shared/{token}"),
        &image,
    )
}

/// An invitation's page (issue #69, docs/pictures.md): the shell with a
/// link preview — who invites to which game, and the game's start as
/// anyone sees it (§H4: nothing is dealt before the seats are taken; a
/// hidden start is drawn face down). Looked up under the same limit per
/// address as `GET /v1/invites/{code}`, so the page tells no more about
/// codes than the API does; an unknown or closed code gets the bare
/// shell, whose page says so.
#[get("/invite/{code}")]
pub async fn invitation(
    req: HttpRequest,
    state: web::Data<AppState>,
    code: web::Path<String>,
) -> HttpResponse {
    let (code, now) = (code.into_inner(), state.clock.now());
    let locale = reader_locale(&req);
    let address = crate::http::caller::client_address(&req);
    let asked = code.clone();
    let card = crate::db::run(&state.pool, move |c| {
        crate::limits::take(c, crate::limits::Limit::InvitePreview, &address, now)?;
        crate::lobby::invites::card(c, &asked, now, locale)
    })
    .await;
    let Ok((title, description)) = card else {
        return shell(&req);
    };
    let site = state.config.public_url.trim_end_matches('/');
    let image = format!("{site}/v1/invites/{code}/picture");
    previewed(
        &title,
        &description,
        &format!("{site}/invite/{code}"),
        &image,
    )
}

/// The language a link preview is written in: the reader's client's
/// (`Accept-Language`), else English.
fn reader_locale(req: &HttpRequest) -> crate::notify::words::Locale {
    (req.headers().get(header::ACCEPT_LANGUAGE))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.split([',', ';'])
                .find_map(crate::notify::words::Locale::known)
        })
        .unwrap_or(crate::notify::words::Locale::English)
}

/// The shell with a link preview's Open Graph tags.
fn previewed(title: &str, description: &str, url: &str, image: &str) -> HttpResponse {
    let tags = [
        ("og:title", title),
        ("og:description", description),
        ("og:type", "website"),
        ("og:url", url),
        ("og:image", image),
        ("og:image:width", "1200"),
        ("og:image:height", "630"),
        ("twitter:card", "summary_large_image"),
    ];
    let meta: Vec<String> = (tags.iter())
        .map(|(p, v)| format!("<meta property=\"{p}\" content=\"{}\">", escape(v)))
        .collect();
    let body = index().replace("</head>", &(meta.join("\n") + "\n</head>"));
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, CSP))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body)
}

/// `text` safe inside an HTML attribute.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The client's scripts, style, service worker, manifest and icon.
#[get("/{file:[a-z_]+\\.(js|css|webmanifest|svg)}")]
pub async fn file(req: HttpRequest, name: web::Path<String>) -> Result<HttpResponse, ApiError> {
    if name.as_str() == "sw.js" {
        return Ok(asset(&req, service_worker(), JS, "no-cache"));
    }
    let (_, content_type, cache, body) = FILES
        .iter()
        .find(|(file, ..)| *file == name.as_str())
        .ok_or_else(|| ApiError::not_found("file"))?;
    Ok(asset(&req, body, content_type, cache))
}

/// The service worker (served from the root so that it controls every
/// page), with what it keeps offline derived from [`FILES`], the one list
/// of the client's files: the shell and every file, under a cache named
/// by a hash of them all, so a release that changes any file replaces the
/// offline copy (no hand-bumped version).
fn service_worker() -> &'static str {
    static BUILT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let source = include_str!("../web/sw.js");
        let mut all = String::from(index());
        let mut paths = vec!["\"/\"".to_owned()];
        for (name, _, _, body) in FILES {
            all.push_str(body);
            paths.push(format!("\"/{name}\""));
        }
        let version = etag(&all).trim_matches('"').to_owned();
        source
            .replace(
                "posthorn-shell-VERSION",
                &format!("posthorn-shell-{version}"),
            )
            .replace("\"FILES\"", &paths.join(", "))
    })
}
