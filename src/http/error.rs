//! One API error type, one RFC 9457 problem document with a stable `code`
//! (docs/api.md §Errors). Use cases fail with [`crate::error::Error`]; the
//! mapping to a status and a code is one exhaustive `match` here. Internal
//! causes are logged once, here, and never sent.

use crate::error::Error;
use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use posthorn_rules::RuleCode;
use serde_json::{json, Map, Value};
use std::fmt;

/// The closed set of problem codes, each with its status and the page
/// served at `/problems/{code}` (the problem document's `type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    ValidationFailed,
    Unauthorized,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    Conflict,
    StaleSeq,
    IllegalAction,
    NotYourTurn,
    MatchFinished,
    InviteExpired,
    PayloadTooLarge,
    RequestTimeout,
    HeadersTooLarge,
    RateLimited,
    IdempotencyKeyReused,
    Blocked,
    AlreadyFriends,
    OwnSeek,
    NotEnoughCoins,
    UnfairStart,
    TournamentFull,
    TournamentStarted,
    NotInvited,
    ResetLinkExpired,
    IdentityUnknown,
    IdentityTaken,
    Suspended,
    PlatformUnavailable,
    Unavailable,
    Internal,
}

impl Code {
    pub const ALL: &'static [Code] = &[
        Code::ValidationFailed,
        Code::Unauthorized,
        Code::Forbidden,
        Code::NotFound,
        Code::MethodNotAllowed,
        Code::Conflict,
        Code::StaleSeq,
        Code::IllegalAction,
        Code::NotYourTurn,
        Code::MatchFinished,
        Code::InviteExpired,
        Code::PayloadTooLarge,
        Code::RequestTimeout,
        Code::HeadersTooLarge,
        Code::RateLimited,
        Code::IdempotencyKeyReused,
        Code::Blocked,
        Code::AlreadyFriends,
        Code::OwnSeek,
        Code::NotEnoughCoins,
        Code::UnfairStart,
        Code::TournamentFull,
        Code::TournamentStarted,
        Code::NotInvited,
        Code::ResetLinkExpired,
        Code::IdentityUnknown,
        Code::IdentityTaken,
        Code::Suspended,
        Code::PlatformUnavailable,
        Code::Unavailable,
        Code::Internal,
    ];

    /// `(code, status, what it means and what to do, the same for a player
    /// in Korean)`. The Korean sentence is the `detail` of a problem
    /// document asked for in Korean (`super::speak`).
    fn describe(self) -> (&'static str, StatusCode, &'static str, &'static str) {
        use StatusCode as S;
        match self {
            Code::ValidationFailed => ("validation_failed", S::BAD_REQUEST, "The request could not be read or a value is not acceptable; `detail` says which. With 400 it breaks the API document (its form); with 422 it has the documented form and is refused for what it means (a name like another's, an option of another game). Correct the request; sending it again unchanged will fail again.", "요청을 읽을 수 없거나 값이 올바르지 않아요. 입력을 고쳐서 다시 보내 주세요."),
            Code::Unauthorized => ("unauthorized", S::UNAUTHORIZED, "No valid credentials: sign in, or refresh the access token.", "로그인이 필요해요. 다시 로그인해 주세요."),
            Code::Forbidden => ("forbidden", S::FORBIDDEN, "Signed in, but not allowed to do this.", "이 일을 할 권한이 없어요."),
            Code::NotFound => ("not_found", S::NOT_FOUND, "No such thing, or not yours to see: a match of others answers the same as one that does not exist.", "찾을 수 없어요. 없거나 볼 수 없는 것이에요."),
            Code::MethodNotAllowed => ("method_not_allowed", S::METHOD_NOT_ALLOWED, "The path exists but not with this method; the Allow header lists those it takes.", "이 주소에서는 그 요청을 받지 않아요."),
            Code::Conflict => ("conflict", S::CONFLICT, "The request conflicts with the current state (a seat already taken, a key used for another match).", "이미 있거나 이미 처리된 것과 겹쳐요. 이름이나 선택을 바꿔 보세요."),
            Code::StaleSeq => ("stale_seq", S::CONFLICT, "The match has moved on since the client's `seq`; the problem carries the current `seq`. Reload the match and decide again.", "그사이 대국이 진행됐어요. 새로 고친 뒤 다시 두세요."),
            Code::IllegalAction => ("illegal_action", S::UNPROCESSABLE_ENTITY, "The rules do not allow that action now; `detail` names the rule.", "규칙상 지금 둘 수 없는 수예요."),
            Code::NotYourTurn => ("not_your_turn", S::CONFLICT, "Another seat owes the next action.", "지금은 내 차례가 아니에요."),
            Code::MatchFinished => ("match_finished", S::CONFLICT, "The match is over.", "이미 끝난 대국이에요."),
            Code::InviteExpired => ("invite_expired", S::GONE, "The invitation was used, expired, or its match is over: ask for a new one.", "쓸 수 없는 초대예요. 이미 쓰였거나 기한이 지났어요. 새 초대를 받아 주세요."),
            Code::PayloadTooLarge => ("payload_too_large", S::PAYLOAD_TOO_LARGE, "The request body is larger than the service accepts.", "보낸 내용이 너무 커요."),
            Code::RequestTimeout => ("request_timeout", S::REQUEST_TIMEOUT, "The request did not arrive in time (its head within 5 s, its body within a few seconds of the head); send it again.", "요청이 제시간에 도착하지 않았어요. 다시 보내 주세요."),
            Code::HeadersTooLarge => ("headers_too_large", S::REQUEST_HEADER_FIELDS_TOO_LARGE, "The request's head (its line and headers) is larger than the service reads; send fewer or shorter headers.", "요청 머리글이 너무 커요."),
            Code::RateLimited => ("rate_limited", S::TOO_MANY_REQUESTS, "Too many attempts; wait before trying again.", "시도가 너무 많아요. 잠시 뒤에 다시 해 보세요."),
            Code::IdempotencyKeyReused => ("idempotency_key_reused", S::UNPROCESSABLE_ENTITY, "This Idempotency-Key was used for a different request. Use a new key for a new request; resend the same request to get its first answer.", "이 요청 키는 다른 요청에 이미 쓰였어요."),
            Code::Blocked => ("blocked", S::FORBIDDEN, "One of the two people has blocked the other: no challenge, friend request or shared table between them.", "두 사람 중 한 명이 상대를 차단했어요."),
            Code::AlreadyFriends => ("already_friends", S::CONFLICT, "You are friends already.", "이미 친구예요."),
            Code::OwnSeek => ("own_seek", S::CONFLICT, "That seek is your own: wait for an opponent, or withdraw it.", "내가 올린 상대 찾기예요. 상대를 기다리거나 취소하세요."),
            Code::NotEnoughCoins => ("not_enough_coins", S::CONFLICT, "The look costs more coins than you have: `detail` says both. Coins come from finishing games and solving the daily puzzle.", "코인이 모자라요. 대국을 마치거나 오늘의 퍼즐을 풀면 코인을 받아요."),
            Code::UnfairStart => ("unfair_start", S::UNPROCESSABLE_ENTITY, "That opening cannot be chosen: a position that fixes what some player may not see (a Banqi layout naming face-down pieces) is never a player's choice, and a custom position is never rated. Let the service deal, or play the custom position unrated.", "그 시작 국면은 고를 수 없어요. 숨겨진 말을 정하는 배치는 고를 수 없고, 정해진 국면은 등급전이 될 수 없어요."),
            Code::TournamentFull => ("tournament_full", S::CONFLICT, "The tournament has all the players its format takes (16 in a round robin, 32 in a knockout).", "토너먼트 자리가 다 찼어요."),
            Code::TournamentStarted => ("tournament_started", S::CONFLICT, "The tournament has started or finished: players can no longer be invited, join or decline, and it cannot be started again.", "이미 시작했거나 끝난 토너먼트예요."),
            Code::NotInvited => ("not_invited", S::FORBIDDEN, "You are not invited to that tournament: ask its creator for an invitation, or open its invitation link.", "이 토너먼트에 초대받지 않았어요. 만든 사람에게 초대를 부탁하세요."),
            Code::ResetLinkExpired => ("reset_link_expired", S::GONE, "The password reset link was used already, is more than an hour old, or is not one this service sent (or the account's address changed since): ask for a new link.", "쓸 수 없는 비밀번호 재설정 링크예요. 이미 쓰였거나 한 시간이 지났어요. 새 링크를 받아 주세요."),
            Code::IdentityUnknown => ("identity_unknown", S::NOT_FOUND, "No account signs in with this Google or Apple identity yet: send the same token again with a username to create one, or sign in another way and link it in settings.", "이 구글 또는 애플 계정으로 로그인하는 계정이 아직 없어요. 사용자 이름을 정해 새 계정을 만들거나, 다른 방법으로 로그인한 뒤 설정에서 연결하세요."),
            Code::IdentityTaken => ("identity_taken", S::CONFLICT, "This Google or Apple identity signs in to another account already: sign in with it there, or use another identity.", "이 구글 또는 애플 계정은 이미 다른 계정에 연결되어 있어요. 그 계정으로 로그인하거나 다른 계정을 쓰세요."),
            Code::Suspended => ("suspended", S::FORBIDDEN, "A moderator suspended this account: it cannot sign in or refresh a session, and its matches in play were resigned. Only a moderator lifts it.", "운영자가 이 계정을 정지했어요. 로그인할 수 없어요."),
            Code::PlatformUnavailable => ("platform_unavailable", S::UNPROCESSABLE_ENTITY, "This service is not set up to push to that platform's app (APNs for iOS, FCM for Android): the device cannot be registered. `GET /v1/push/platforms` says which are; the app still works, without notifications.", "이 서비스는 아직 이 기기의 앱으로 알림을 보낼 수 없어요. 알림 없이도 게임은 할 수 있어요."),
            Code::Unavailable => ("unavailable", S::SERVICE_UNAVAILABLE, "The service is busy or its database is restarting; try again shortly.", "서비스가 바쁘거나 다시 시작하는 중이에요. 잠시 뒤에 다시 해 보세요."),
            Code::Internal => ("internal", S::INTERNAL_SERVER_ERROR, "Something failed on the service's side; it has been logged.", "서비스에 문제가 생겼어요. 기록해 두었어요."),
        }
    }

    pub fn as_str(self) -> &'static str {
        self.describe().0
    }

    pub fn status(self) -> StatusCode {
        self.describe().1
    }

    pub fn meaning(self) -> &'static str {
        self.describe().2
    }

    /// What a Korean-speaking player is told (`detail` in Korean).
    pub fn korean(self) -> &'static str {
        self.describe().3
    }

    pub fn parse(code: &str) -> Option<Code> {
        Self::ALL.iter().copied().find(|c| c.as_str() == code)
    }

    /// The problem `type`: a page this service serves.
    pub fn type_uri(self) -> String {
        format!("/problems/{}", self.as_str())
    }
}

#[derive(Debug)]
pub struct ApiError {
    pub code: Code,
    pub detail: String,
    /// The code's status, or 422 for a `validation_failed` refused for its
    /// meaning rather than its form ([`ApiError::unacceptable`]).
    status: StatusCode,
    /// Extension members of the problem document (e.g. the current `seq`).
    pub extra: Map<String, Value>,
}

impl ApiError {
    pub fn new(code: Code, detail: impl Into<String>) -> Self {
        ApiError {
            code,
            detail: detail.into(),
            status: code.status(),
            extra: Map::new(),
        }
    }

    pub fn with(mut self, key: &str, value: Value) -> Self {
        self.extra.insert(key.to_owned(), value);
        self
    }

    pub fn validation(detail: impl Into<String>) -> Self {
        Self::new(Code::ValidationFailed, detail)
    }
    /// `validation_failed` with 422: the request has the form the API
    /// document states, and its meaning is refused (docs/api.md: 400 is
    /// for form, so a client that follows the document never meets it).
    pub fn unacceptable(detail: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            ..Self::new(Code::ValidationFailed, detail)
        }
    }
    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Self::new(Code::Unauthorized, detail)
    }
    pub fn not_found(what: &str) -> Self {
        Self::new(Code::NotFound, format!("no such {what}"))
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub fn body(&self) -> Value {
        let mut doc = Map::new();
        doc.insert("type".into(), json!(self.code.type_uri()));
        doc.insert(
            "title".into(),
            json!(self.status().canonical_reason().unwrap_or("Error")),
        );
        doc.insert("status".into(), json!(self.status().as_u16()));
        doc.insert("detail".into(), json!(self.detail));
        doc.insert("code".into(), json!(self.code.as_str()));
        doc.extend(self.extra.clone());
        Value::Object(doc)
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status().as_u16(),
            self.code.as_str(),
            self.detail
        )
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status()
    }
    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status());
        response.insert_header((header::CONTENT_TYPE, "application/problem+json"));
        if self.code == Code::Unavailable {
            // A passing condition: say when to come back (RFC 9110 §10.2.3).
            response.insert_header((header::RETRY_AFTER, "1"));
        }
        response.body(self.body().to_string())
    }
}

/// A use case's failure as the client sees it. A rule refusal keeps its
/// code; its message is written for players and carries no hidden
/// information (the rules crate guarantees it). An internal cause is logged
/// here and replaced by a generic sentence.
impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        match e {
            Error::Validation(s) => ApiError::new(Code::ValidationFailed, s),
            Error::Unacceptable(s) => ApiError::unacceptable(s),
            Error::Unauthorized(s) => ApiError::new(Code::Unauthorized, s),
            Error::Forbidden(s) => ApiError::new(Code::Forbidden, s),
            Error::NotFound(what) => ApiError::not_found(what),
            Error::Conflict(s) => ApiError::new(Code::Conflict, s),
            Error::StaleSeq(current) => ApiError::new(
                Code::StaleSeq,
                format!("the match has moved on: its seq is now {current}; reload and try again"),
            )
            .with("seq", json!(current)),
            Error::InField { field, rule, cause } => ApiError::from(*cause)
                .with("field", json!(field))
                .with("rule", json!(rule.as_str())),
            Error::Rule(rule) => {
                let code = match rule.code {
                    RuleCode::ValidationFailed => Code::ValidationFailed,
                    RuleCode::IllegalAction => Code::IllegalAction,
                    RuleCode::NotYourTurn => Code::NotYourTurn,
                    RuleCode::MatchFinished => Code::MatchFinished,
                };
                ApiError::new(code, rule.message)
            }
            Error::InviteExpired(s) => ApiError::new(Code::InviteExpired, s),
            Error::RateLimited(s) => ApiError::new(Code::RateLimited, s),
            Error::Blocked(s) => ApiError::new(Code::Blocked, s),
            Error::AlreadyFriends(s) => ApiError::new(Code::AlreadyFriends, s),
            Error::OwnSeek(s) => ApiError::new(Code::OwnSeek, s),
            Error::NotEnoughCoins(s) => ApiError::new(Code::NotEnoughCoins, s),
            Error::UnfairStart(s) => ApiError::new(Code::UnfairStart, s),
            Error::TournamentFull(s) => ApiError::new(Code::TournamentFull, s),
            Error::TournamentStarted(s) => ApiError::new(Code::TournamentStarted, s),
            Error::NotInvited(s) => ApiError::new(Code::NotInvited, s),
            Error::ResetLinkExpired(s) => ApiError::new(Code::ResetLinkExpired, s),
            Error::IdentityUnknown(s) => ApiError::new(Code::IdentityUnknown, s),
            Error::IdentityTaken(s) => ApiError::new(Code::IdentityTaken, s),
            Error::Suspended(s) => ApiError::new(Code::Suspended, s),
            Error::PlatformUnavailable(s) => ApiError::new(Code::PlatformUnavailable, s),
            Error::IdempotencyKeyReused => ApiError::new(
                Code::IdempotencyKeyReused,
                "this Idempotency-Key was used for a different request",
            ),
            Error::Unavailable(s) => ApiError::new(Code::Unavailable, s),
            Error::Transient(cause) => {
                log::warn!("request answered 503: {cause}");
                ApiError::new(
                    Code::Unavailable,
                    "the database is restarting or busy; try again in a moment",
                )
            }
            Error::Internal(cause) => {
                log::error!("request failed: {cause}");
                ApiError::new(Code::Internal, "something went wrong on our side")
            }
        }
    }
}

impl From<posthorn_rules::RuleError> for ApiError {
    fn from(e: posthorn_rules::RuleError) -> Self {
        Error::Rule(e).into()
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(e: actix_web::error::BlockingError) -> Self {
        Error::internal(format!("blocking pool: {e}")).into()
    }
}
