//! The OpenAPI document, and the routes it names for 405 answers.
//!
//! Every operation's failures are problem documents (docs/api.md §Errors); the
//! handlers declare the failures of their own use case (409 `stale_seq`,
//! 422 for an illegal move, …) and [`Problems`] adds those every route
//! shares, so that a client generated from the document knows every status
//! it can meet: 401 where a token is needed, 400 and 413 where a body or
//! query is read, 404 where a path names something, and `default` (500,
//! 503 when the database is busy).

use super::{
    accounts, coins, computer, conditional, devices, friends, identities, lessons, live, matches,
    moderation, my_data, native_push, notify, ops, puzzles, ratings, seeks, talk, tournaments,
    vacation,
};
use actix_web::http::StatusCode;
use serde::Serialize;
use serde_json::{json, Value};
use utoipa::openapi::path::{Operation, PathItem};
use utoipa::openapi::schema::Ref;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{Content, RefOr, Response};
use utoipa::{Modify, OpenApi, ToSchema};

/// The API's routes, each named once (docs/architecture.md, "Routes"): the
/// OpenAPI document lists them and [`register`] mounts them, in this order.
/// A new route is its handler (with its `#[utoipa::path]`) and one line
/// here.
macro_rules! api_routes {
    ($($module:ident::$handler:ident),* $(,)?) => {
        #[derive(OpenApi)]
        #[openapi(
            info(title = "Posthorn", description = "Correspondence play: accounts, matches as event logs, and the games' rules."),
            paths($($module::$handler),*),
            components(schemas(Problem)),
            modifiers(&BearerAuth, &Problems)
        )]
        pub struct ApiDoc;

        /// Mount every route of the document.
        pub fn register(cfg: &mut actix_web::web::ServiceConfig) {
            $(cfg.service($module::$handler);)*
        }
    };
}

api_routes!(
    ops::healthz,
    ops::readyz,
    ops::metrics,
    ops::games,
    ops::problem_page,
    accounts::register,
    accounts::login,
    accounts::refresh,
    accounts::logout,
    accounts::logout_everywhere,
    accounts::change_password,
    accounts::verify_email,
    accounts::undo_email,
    accounts::ask_password_reset,
    accounts::complete_password_reset,
    accounts::guest,
    puzzles::daily,
    puzzles::next,
    puzzles::show,
    puzzles::play,
    puzzles::give_up,
    puzzles::mine,
    lessons::list,
    lessons::open,
    lessons::attempt,
    accounts::register_guest,
    accounts::me,
    accounts::change_me,
    accounts::summary,
    devices::my_sessions,
    devices::end_session,
    identities::providers,
    identities::nonce,
    identities::sign_in,
    identities::mine,
    identities::link,
    identities::unlink,
    my_data::delete_me,
    my_data::export,
    matches::create_match,
    matches::accept_invite,
    matches::preview_invite,
    matches::invite_picture,
    matches::position_at,
    matches::record,
    matches::share_match,
    matches::unshare_match,
    matches::shared_match,
    matches::shared_position,
    matches::match_picture,
    matches::shared_picture,
    matches::shared_animation,
    matches::list_matches,
    matches::view_match,
    matches::legal_actions,
    matches::post_action,
    matches::event_feed,
    live::live_match,
    matches::accept_challenge,
    matches::decline_challenge,
    matches::withdraw_match,
    matches::ask_rematch,
    computer::list_bots,
    computer::take_back,
    computer::ask_analysis,
    computer::analysis,
    computer::accept_takeback,
    computer::decline_takeback,
    vacation::get_vacation,
    vacation::start_vacation,
    vacation::end_vacation,
    vacation::auto_vacation,
    coins::my_coins,
    coins::my_looks,
    coins::buy,
    coins::wear,
    conditional::get_lines,
    conditional::put_lines,
    conditional::delete_lines,
    conditional::plan,
    talk::list_messages,
    talk::post_message,
    talk::list_tournament_messages,
    talk::post_tournament_message,
    talk::read_messages,
    talk::mute_match,
    talk::get_note,
    talk::put_note,
    talk::get_talk_settings,
    talk::put_talk_settings,
    moderation::report_message,
    moderation::open_reports,
    moderation::dismiss_report,
    moderation::hide_message,
    moderation::mute_player,
    moderation::suspend_player,
    moderation::reinstate_player,
    moderation::audit_log,
    notify::get_settings,
    notify::put_settings,
    notify::unsubscribe,
    notify::unsubscribe_page,
    notify::vapid_public_key,
    notify::subscribe,
    notify::unsubscribe_push,
    native_push::push_platforms,
    native_push::register_device,
    native_push::list_devices,
    native_push::remove_device,
    friends::list_friends,
    friends::send_request,
    friends::accept_request,
    friends::decline_request,
    friends::remove_friend,
    friends::list_blocks,
    friends::block,
    friends::unblock,
    friends::get_challenge_settings,
    friends::put_challenge_settings,
    ratings::leaderboard,
    ratings::user_profile,
    ratings::head_to_head,
    seeks::post_seek,
    seeks::list_seeks,
    seeks::accept_seek,
    seeks::withdraw_seek,
    tournaments::create_tournament,
    tournaments::my_tournaments,
    tournaments::view_tournament,
    tournaments::invite_players,
    tournaments::join_tournament,
    tournaments::decline_tournament,
    tournaments::withdraw_tournament,
    tournaments::start_tournament,
);

/// An RFC 9457 problem document, as every failure is answered
/// (`application/problem+json`). Some codes add members: `stale_seq`
/// carries the match's current `seq`.
#[derive(Serialize, ToSchema)]
pub struct Problem {
    /// `/problems/{code}`: a page of this service saying what the code means.
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    /// For people, in their language: Korean when the request's
    /// `Accept-Language` prefers it, or (naming neither English nor
    /// Korean) the signed-in account's `locale` is Korean. Never carries
    /// hidden information.
    pub detail: String,
    /// The English `detail` when `detail` was told in Korean (it may name
    /// the rule in more words); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail_en: Option<String>,
    /// Stable, for programs: `validation_failed`, `unauthorized`,
    /// `not_found`, `stale_seq`, `not_your_turn`, `rate_limited`, …
    pub code: String,
    /// The request member refused, where one value of a form is (issue
    /// #49 item 9): `username`, `password`, `email`, `text`, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Why `field` is refused: `form`, `reserved`, `taken`, `look_alike`
    /// or `wrong` (docs/api.md, "Errors").
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "taken")]
    pub rule: Option<String>,
}

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
    }
}

struct Problems;

impl Modify for Problems {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            let names_something = path.contains('{');
            for op in operations(item)
                .into_iter()
                .filter_map(|(_, op)| op.as_mut())
            {
                let mut shared = vec!["default"];
                if op.security.as_ref().is_some_and(|s| !s.is_empty()) {
                    shared.push("401");
                }
                if op.request_body.is_some() {
                    shared.extend(["400", "413"]);
                }
                if op
                    .parameters
                    .iter()
                    .flatten()
                    .any(|p| matches!(p.parameter_in, utoipa::openapi::path::ParameterIn::Query))
                {
                    shared.push("400");
                }
                if names_something {
                    shared.push("404");
                }
                let responses = &mut op.responses.responses;
                for status in shared {
                    responses
                        .entry(status.to_owned())
                        .or_insert_with(|| RefOr::T(Response::new("")));
                }
                for (status, response) in responses.iter_mut() {
                    if let RefOr::T(response) = response {
                        describe_failure(status, response);
                    }
                }
            }
        }
    }
}

/// A link's target operation, and each of its parameters with where the
/// value comes from in the answer.
type Target = (&'static str, &'static [(&'static str, &'static str)]);

/// The operations on a match, with where each parameter comes from in a
/// `MatchView` answer.
const ON_A_MATCH: &[Target] = &[
    ("view_match", &[("id", "$response.body#/id")]),
    ("legal_actions", &[("id", "$response.body#/id")]),
    ("event_feed", &[("id", "$response.body#/id")]),
    ("record", &[("id", "$response.body#/id")]),
    ("analysis", &[("id", "$response.body#/id")]),
    ("live_match", &[("id", "$response.body#/id")]),
    (
        "position_at",
        &[("id", "$response.body#/id"), ("seq", "$response.body#/seq")],
    ),
    ("post_action", &[("id", "$response.body#/id")]),
    ("withdraw_match", &[("id", "$response.body#/id")]),
    ("ask_rematch", &[("id", "$response.body#/id")]),
    ("preview_invite", &[("code", "$response.body#/invite/code")]),
    ("accept_invite", &[("code", "$response.body#/invite/code")]),
];

/// OpenAPI links from the answers that name a match, a seek or a push
/// subscription to the operations on it, so that a client (and a stateful
/// fuzzer, docs/fuzzing.md) can follow them: operation, status, targets.
const LINKS: &[(&str, &str, &[Target])] = &[
    ("create_match", "201", ON_A_MATCH),
    ("accept_invite", "200", ON_A_MATCH),
    ("accept_challenge", "200", ON_A_MATCH),
    (
        "post_seek",
        "201",
        &[
            ("accept_seek", &[("id", "$response.body#/seek/id")]),
            ("withdraw_seek", &[("id", "$response.body#/seek/id")]),
        ],
    ),
    (
        "subscribe",
        "201",
        &[("unsubscribe_push", &[("id", "$response.body#/id")])],
    ),
    (
        "register_device",
        "201",
        &[("remove_device", &[("id", "$response.body#/id")])],
    ),
];

/// Put [`LINKS`] into the document (as JSON: utoipa 5.5's `Link`
/// serializes `operation_id`, not OpenAPI's `operationId`).
pub fn with_links(doc: &mut Value) {
    let Some(Value::Object(paths)) = doc.get_mut("paths") else {
        return;
    };
    for op in paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
    {
        for (source, status, targets) in LINKS {
            if op.get("operationId").and_then(Value::as_str) != Some(*source) {
                continue;
            }
            let Some(Value::Object(response)) = op.pointer_mut(&format!("/responses/{status}"))
            else {
                continue;
            };
            let links = response
                .entry("links")
                .or_insert_with(|| Value::Object(Default::default()));
            for (target, parameters) in *targets {
                let parameters: serde_json::Map<String, Value> = parameters
                    .iter()
                    .map(|(name, at)| ((*name).to_owned(), json!(at)))
                    .collect();
                links[*target] = json!({"operationId": target, "parameters": parameters});
            }
        }
    }
}

/// Give a failure status its reason and the problem document as its body.
fn describe_failure(status: &str, response: &mut Response) {
    let reason = match status {
        "default" => "Any other failure: 500 internal, 503 when the service is busy",
        _ => match status
            .parse()
            .ok()
            .and_then(|c| StatusCode::from_u16(c).ok())
        {
            Some(failure) if failure.as_u16() >= 400 => {
                failure.canonical_reason().unwrap_or("Error")
            }
            _ => return,
        },
    };
    if response.description.is_empty() {
        response.description = reason.into();
    }
    if response.content.is_empty() {
        response.content.insert(
            "application/problem+json".into(),
            Content::new(Some(Ref::from_schema_name("Problem"))),
        );
    }
}

/// A path's operation slots by method, in the order `Allow` lists them.
fn operations(item: &mut PathItem) -> [(&'static str, &mut Option<Operation>); 5] {
    [
        ("GET", &mut item.get),
        ("PUT", &mut item.put),
        ("POST", &mut item.post),
        ("DELETE", &mut item.delete),
        ("PATCH", &mut item.patch),
    ]
}

/// The documented paths and the methods each answers, for the `Allow`
/// header of a 405.
pub struct KnownPaths(Vec<(String, String)>);

impl KnownPaths {
    /// Read once at start-up (the paths are copied to be walked).
    pub fn from_doc(doc: &utoipa::openapi::OpenApi) -> KnownPaths {
        let paths = doc
            .paths
            .paths
            .clone()
            .into_iter()
            .map(|(template, mut item)| {
                let allow: Vec<&str> = operations(&mut item)
                    .into_iter()
                    .filter(|(_, op)| op.is_some())
                    .map(|(method, _)| method)
                    .collect();
                (template, allow.join(", "))
            });
        KnownPaths(paths.collect())
    }

    /// The methods `path` answers, if it is a documented path.
    pub fn allowed(&self, path: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(template, _)| template_matches(template, path))
            .map(|(_, allow)| allow.as_str())
    }
}

/// `/v1/matches/{id}` matches `/v1/matches/abc`: a `{…}` segment stands
/// for any one non-empty segment.
fn template_matches(template: &str, path: &str) -> bool {
    let (mut wanted, mut given) = (template.split('/'), path.split('/'));
    loop {
        match (wanted.next(), given.next()) {
            (None, None) => return true,
            (Some(w), Some(g)) if w == g || (w.starts_with('{') && !g.is_empty()) => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_matches_paths_with_any_one_segment_for_each_parameter() {
        assert!(template_matches("/v1/matches/{id}", "/v1/matches/abc"));
        assert!(template_matches("/v1/matches", "/v1/matches"));
        assert!(!template_matches("/v1/matches/{id}", "/v1/matches/"));
        assert!(!template_matches("/v1/matches/{id}", "/v1/matches/a/b"));
        assert!(!template_matches(
            "/v1/matches/{id}/events",
            "/v1/matches/a"
        ));
        assert!(!template_matches("/v1/me", "/v1/matches"));
    }

    #[test]
    fn every_link_names_an_operation_and_is_attached() {
        let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        with_links(&mut doc);
        let ids: Vec<&str> = doc["paths"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|item| item.as_object().unwrap().values())
            .filter_map(|op| op["operationId"].as_str())
            .collect();
        for (source, status, targets) in LINKS {
            assert!(ids.contains(source), "{source}");
            let attached = doc["paths"]
                .as_object()
                .unwrap()
                .values()
                .flat_map(|item| item.as_object().unwrap().values())
                .find(|op| op["operationId"] == *source)
                .map(|op| op["responses"][status]["links"].clone())
                .unwrap();
            for (target, _) in *targets {
                assert!(ids.contains(target), "{target}");
                assert_eq!(
                    attached[target]["operationId"], *target,
                    "{source} → {target}"
                );
            }
        }
    }

    #[test]
    fn known_paths_list_every_method_a_path_answers() {
        let known = KnownPaths::from_doc(&ApiDoc::openapi());
        assert_eq!(known.allowed("/v1/matches"), Some("GET, POST"));
        assert_eq!(known.allowed("/v1/matches/x/actions"), Some("POST"));
        assert_eq!(known.allowed("/v1/nothing"), None);
    }
}
