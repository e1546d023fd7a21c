//! Account and session endpoints: thin wrappers over `crate::accounts`.

use crate::accounts::{
    self, GuestRequest, Login, Me, MeChanges, PasswordChange, Refresh, Refreshed, Registration,
    Session, Upgrade,
};
use crate::auth::{self, Caller};
use crate::db;
use crate::error::{Error, Rule};
use crate::http::body::Body;
use crate::http::error::ApiError;
use crate::notify::words::Locale;
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{delete, get, patch, post, web, HttpRequest, HttpResponse};

#[utoipa::path(post, path = "/v1/accounts", tag = "accounts", request_body = Registration,
    responses((status = 201, body = Session, description = "an email given waits for its verification link, whether or not it is registered already"), (status = 400), (status = 409, description = "the username is taken"), (status = 422, description = "the username looks like a registered player's or a computer's name"), (status = 429, description = "too many accounts from this address (5 an hour)")))]
#[post("/v1/accounts")]
pub async fn register(
    state: web::Data<AppState>,
    http: HttpRequest,
    body: Body<Registration>,
) -> Result<HttpResponse, ApiError> {
    let req = body.into_inner();
    let origin = crate::http::caller::origin(&http);
    accounts::check_password("password", &req.password)?;
    let hash = auth::gated_hash(req.password.clone()).await?;
    let issuer = state.issuer(crate::http::caller::device(&http));
    let session = db::run(&state.pool, move |c| {
        accounts::register(c, req, hash, &origin, &issuer)
    })
    .await?;
    Ok(HttpResponse::Created().json(session))
}

#[utoipa::path(post, path = "/v1/sessions", tag = "accounts", request_body = Login,
    responses((status = 201, body = Session), (status = 401), (status = 429)))]
#[post("/v1/sessions")]
pub async fn login(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: Body<Login>,
) -> Result<HttpResponse, ApiError> {
    let Login { login, password } = body.into_inner();
    let address = crate::http::caller::client_address(&req);
    let now = state.clock.now();
    let (user, attempt) = db::run(&state.pool, move |c| {
        accounts::start_sign_in(c, &login, &address, now)
    })
    .await?;
    let hash = user.as_ref().and_then(|u| u.password_hash.clone());
    let matches = auth::gated(move || auth::verify_password(&password, hash.as_deref())).await?;
    match user {
        Some(user) if matches => {
            let issuer = state.issuer(crate::http::caller::device(&req));
            let session = db::run(&state.pool, move |c| {
                accounts::login_succeeded(c, &user, &attempt, &issuer)
            })
            .await?;
            Ok(HttpResponse::Created().json(session))
        }
        // The same answer for an unknown user and a wrong password; the
        // attempt stays counted.
        _ => Err(ApiError::unauthorized("wrong username or password")),
    }
}

#[utoipa::path(post, path = "/v1/sessions/refresh", tag = "accounts", request_body = Refresh,
    responses((status = 200, body = Session, description = "the token rotated; the same token presented again within the reuse interval (`POSTHORN_REFRESH_REUSE_SECONDS`, 60 s) gets the same new refresh token"),
        (status = 401, description = "not valid; a rotated token presented after the reuse interval also ends its session")))]
#[post("/v1/sessions/refresh")]
pub async fn refresh(
    state: web::Data<AppState>,
    http: HttpRequest,
    body: Body<Refresh>,
) -> Result<HttpResponse, ApiError> {
    let token = body.into_inner().refresh_token;
    let issuer = state.issuer(crate::http::caller::device(&http));
    let now = issuer.now;
    match db::run(&state.pool, move |c| accounts::refresh(c, &token, &issuer)).await? {
        Refreshed::Session(session) => Ok(HttpResponse::Ok().json(session)),
        Refreshed::Refused { ended } => {
            // A stolen copy's session ends for its access tokens at once.
            state.revoked.add(ended.as_slice(), now);
            Err(ApiError::unauthorized(
                "the refresh token is not valid; sign in again",
            ))
        }
    }
}

#[utoipa::path(delete, path = "/v1/sessions/current", tag = "accounts",
    responses((status = 204), (status = 401)), security(("bearer" = [])))]
#[delete("/v1/sessions/current")]
pub async fn logout(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    db::run(&state.pool, move |c| {
        accounts::revoke_family(c, caller.session, now)
    })
    .await?;
    // Its access tokens stop here at once, on other instances within
    // seconds (`revoked.rs`).
    state.revoked.add(&[caller.session], now);
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(delete, path = "/v1/sessions", tag = "accounts",
    responses((status = 204, description = "every session of the account has ended, this one too"), (status = 401)),
    security(("bearer" = [])))]
#[delete("/v1/sessions")]
pub async fn logout_everywhere(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let ended = db::run(&state.pool, move |c| {
        accounts::end_sessions(c, caller.user_id, None, now)
    })
    .await?;
    state.revoked.add(&ended, now);
    state.revoked.add(&[caller.session], now);
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(post, path = "/v1/me/password", tag = "accounts", request_body = PasswordChange,
    responses((status = 204, description = "changed; every other session has ended"), (status = 400), (status = 401), (status = 403), (status = 429)),
    security(("bearer" = [])))]
#[post("/v1/me/password")]
pub async fn change_password(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    body: Body<PasswordChange>,
) -> Result<HttpResponse, ApiError> {
    let PasswordChange {
        current_password,
        new_password,
    } = body.into_inner();
    accounts::check_password("new_password", &new_password)?;
    // A wrong current password counts as a failed sign-in.
    let right =
        crate::http::reauth::password_is_right(&state, &caller, &req, current_password).await?;
    if !right {
        let wrong = Error::unauthorized("the current password is wrong");
        return Err(wrong.in_field("current_password", Rule::Wrong).into());
    }
    let now = state.clock.now();
    let new_hash = auth::gated_hash(new_password).await?;
    let ended = db::run(&state.pool, move |c| {
        accounts::change_password(c, caller.user_id, new_hash, caller.session, now)
    })
    .await?;
    state.revoked.add(&ended, now);
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /v1/email-verifications`: the token from a verification link.
#[derive(Debug, serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailVerification {
    /// The part of the link after `#`.
    #[schema(min_length = 1, max_length = 2048)]
    pub token: String,
}

/// The address verified.
#[derive(Debug, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct VerifiedEmail {
    pub email: String,
}

#[utoipa::path(post, path = "/v1/email-verifications", tag = "accounts", request_body = EmailVerification,
    responses((status = 200, body = VerifiedEmail), (status = 400), (status = 404, description = "the link is not valid, has expired, or was replaced by a newer one"), (status = 409)))]
#[post("/v1/email-verifications")]
pub async fn verify_email(
    state: web::Data<AppState>,
    body: Body<EmailVerification>,
) -> Result<HttpResponse, ApiError> {
    let token = body.into_inner().token;
    // Public: whoever opens the link proves they read the address's mail.
    let now = state.clock.now();
    let (user, address) = state.keys.verify_email(token.trim(), now)?;
    let email = db::run(&state.pool, move |c| {
        accounts::verify_email(c, user, &address, now)
    })
    .await?;
    Ok(HttpResponse::Ok().json(VerifiedEmail { email }))
}

/// `POST /v1/email-undos`: the token from the link mailed to an address
/// that left an account.
#[derive(Debug, serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailUndo {
    /// The part of the link after `#`.
    #[schema(min_length = 1, max_length = 2048)]
    pub token: String,
}

#[utoipa::path(post, path = "/v1/email-undos", tag = "accounts", request_body = EmailUndo,
    responses((status = 200, body = VerifiedEmail, description = "the address is the account's again and every session has ended: sign in, or ask for a password reset to this address"),
        (status = 400), (status = 404, description = "the link is not valid, was used, or is more than 7 days old"),
        (status = 409, description = "another account has verified that address since")))]
#[post("/v1/email-undos")]
pub async fn undo_email(
    state: web::Data<AppState>,
    body: Body<EmailUndo>,
) -> Result<HttpResponse, ApiError> {
    // Public: whoever opens the link proves they read the old address's mail.
    let now = state.clock.now();
    let undo = (state.keys.undo_id(&body.into_inner().token))
        .ok_or_else(|| Error::not_found("address link (it is not one the service sent)"))?;
    let (email, ended) = db::run(&state.pool, move |c| {
        accounts::put_address_back(c, undo, now)
    })
    .await?;
    state.revoked.add(&ended, now);
    Ok(HttpResponse::Ok().json(VerifiedEmail { email }))
}

#[utoipa::path(post, path = "/v1/password-resets", tag = "accounts", request_body = crate::accounts::password_resets::ResetRequest,
    responses((status = 202, description = "the same answer, after the same work, whether or not the address is an account's: if it is that account's verified address, a link to `/reset-password#TOKEN` is mailed to it, valid an hour"),
        (status = 400, description = "not an email address"),
        (status = 429, description = "too many asked from this address (5 an hour), or for this email address (3 a day, counted whether or not it is anyone's)")))]
#[post("/v1/password-resets")]
pub async fn ask_password_reset(
    state: web::Data<AppState>,
    http: HttpRequest,
    body: Body<crate::accounts::password_resets::ResetRequest>,
) -> Result<HttpResponse, ApiError> {
    let email = body.into_inner().email;
    let (origin, now) = (crate::http::caller::origin(&http), state.clock.now());
    db::run(&state.pool, move |c| {
        crate::accounts::password_resets::ask(c, &email, &origin, now)
    })
    .await?;
    Ok(HttpResponse::Accepted().finish())
}

#[utoipa::path(post, path = "/v1/password-resets/complete", tag = "accounts", request_body = crate::accounts::password_resets::ResetCompletion,
    responses((status = 201, body = Session, description = "the new password is set; every session of the account has ended and this new one is open"),
        (status = 400, description = "the password breaks the rules of sign-up (8–256 characters)"),
        (status = 410, description = "`reset_link_expired`: the link was used already, is more than an hour old, or is not one the service sent: ask for a new one")))]
#[post("/v1/password-resets/complete")]
pub async fn complete_password_reset(
    state: web::Data<AppState>,
    http: HttpRequest,
    body: Body<crate::accounts::password_resets::ResetCompletion>,
) -> Result<HttpResponse, ApiError> {
    let crate::accounts::password_resets::ResetCompletion { token, password } = body.into_inner();
    // The document's form: an empty token is malformed, not a spent link.
    if token.is_empty() || token.chars().count() > 2048 {
        let empty = Error::validation("the token is the part of the link after #");
        return Err(empty.in_field("token", Rule::Form).into());
    }
    accounts::check_password("password", &password)?;
    let (check, now) = (token.clone(), state.clock.now());
    // A spent link costs no hash.
    db::run(&state.pool, move |c| {
        crate::accounts::password_resets::check_link(c, &check, now)
    })
    .await?;
    let hash = auth::gated_hash(password).await?;
    let issuer = state.issuer(crate::http::caller::device(&http));
    let (session, ended) = db::run(&state.pool, move |c| {
        crate::accounts::password_resets::complete(c, &token, hash, &issuer)
    })
    .await?;
    // Whoever held the old password is out at once on this instance, on
    // the others within seconds (`revoked.rs`).
    state.revoked.add(&ended, now);
    Ok(HttpResponse::Created().json(session))
}

#[utoipa::path(post, path = "/v1/guests", tag = "accounts", request_body = GuestRequest,
    params(("Accept-Language" = Option<String>, Header, description = "with no `locale` in the body, the guest's language: `ko` when Korean is preferred, else `en`")),
    responses((status = 201, body = Session), (status = 400), (status = 422, description = "the nickname looks like a registered player's or a computer's name"), (status = 429)))]
#[post("/v1/guests")]
pub async fn guest(
    state: web::Data<AppState>,
    http: HttpRequest,
    body: Body<GuestRequest>,
) -> Result<HttpResponse, ApiError> {
    let req = body.into_inner();
    let origin = crate::http::caller::origin(&http);
    let asked = crate::http::speak::asked_locale(http.headers().get(header::ACCEPT_LANGUAGE));
    let browser_locale = asked.unwrap_or(Locale::English).tag();
    let issuer = state.issuer(crate::http::caller::device(&http));
    let session = db::run(&state.pool, move |c| {
        accounts::create_guest(c, req, browser_locale, &origin, &issuer)
    })
    .await?;
    Ok(HttpResponse::Created().json(session))
}

#[utoipa::path(post, path = "/v1/me/registration", tag = "accounts", request_body = Upgrade,
    responses((status = 201, body = Session, description = "the guest account is registered, the same account with every match, rating and friend; every guest session has ended and this is the account's new session (`user.guest` false). It signs in from now on with the password, or the Google or Apple identity, given. An email given waits for its verification link"),
        (status = 400), (status = 401, description = "not signed in"),
        (status = 403, description = "the identity token was refused"),
        (status = 409, description = "the account is registered already or the username is taken (`conflict`); the identity is another account's (`identity_taken`)"),
        (status = 422, description = "the username, or the nickname kept, looks like a registered player's or a computer's name; neither or both of `password` and `identity`; a provider not offered here"),
        (status = 429, description = "too many accounts from this address (5 an hour)")),
    security(("bearer" = [])))]
#[post("/v1/me/registration")]
pub async fn register_guest(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    body: Body<Upgrade>,
) -> Result<HttpResponse, ApiError> {
    let req = body.into_inner();
    let origin = crate::http::caller::origin(&http);
    let issuer = state.issuer(crate::http::caller::device(&http));
    let now = issuer.now;
    let (session, ended) = match (&req.password, &req.identity) {
        (Some(password), None) => {
            accounts::check_password("password", password)?;
            let hash = auth::gated_hash(password.clone()).await?;
            db::run(&state.pool, move |c| {
                let upgraded =
                    accounts::upgrade(c, caller.user_id, req, Some(hash), &origin, &issuer)?;
                // Its matches show the new name at once.
                crate::matches::roster_changed(c, caller.user_id)?;
                Ok(upgraded)
            })
            .await?
        }
        (None, Some(proof)) => {
            let proven = crate::http::reauth::verified(&state, proof).await?;
            db::run(&state.pool, move |c| {
                let upgraded = crate::accounts::identities::register_guest(
                    c,
                    caller.user_id,
                    req,
                    proven,
                    &origin,
                    &issuer,
                )?;
                crate::matches::roster_changed(c, caller.user_id)?;
                Ok(upgraded)
            })
            .await?
        }
        _ => {
            return Err(crate::error::Error::unacceptable(
                "give a password or an identity to sign in with (one of them)",
            )
            .into())
        }
    };
    // The guest's access tokens stop at once: they still say `guest`.
    state.revoked.add(&ended, now);
    Ok(HttpResponse::Created().json(session))
}

#[utoipa::path(get, path = "/v1/me", tag = "accounts",
    responses((status = 200, body = Me), (status = 401)), security(("bearer" = [])))]
#[get("/v1/me")]
pub async fn me(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let me = db::run(&state.pool, move |c| accounts::me(c, caller.user_id)).await?;
    Ok(HttpResponse::Ok().json(me))
}

#[utoipa::path(patch, path = "/v1/me", tag = "accounts", request_body = MeChanges,
    responses((status = 200, body = Me, description = "a new email address waits in `email_pending` until the link mailed to it is opened; the address it replaces (or one removed) is mailed a link that puts it back within 7 days"),
        (status = 400), (status = 401),
        (status = 403, description = "an `email` without the password (or a fresh identity sign-in), or with a wrong one; a guest gives an address when registering"),
        (status = 422, description = "both a password and an identity"),
        (status = 429, description = "too many wrong passwords; too many verification mails (5 a day per account and per address)"),
        (status = 503, description = "the identity provider's keys could not be read")),
    security(("bearer" = [])))]
#[patch("/v1/me")]
pub async fn change_me(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    body: Body<MeChanges>,
) -> Result<HttpResponse, ApiError> {
    let (mut changes, now) = (body.into_inner(), state.clock.now());
    let proof = crate::http::reauth::Proof {
        password: changes.password.take(),
        identity: changes.identity.take(),
    };
    if changes.email.is_none() && (proof.password.is_some() || proof.identity.is_some()) {
        return Err(Error::unacceptable(
            "a password or an identity confirms a new email address: send it with `email`",
        )
        .into());
    }
    if let Some(email) = &changes.email {
        // The address's form first: a typo is 400 whoever asks.
        if let Some(address) = email {
            crate::names::email(address)?;
        }
        crate::http::reauth::may_change_address(&state, &caller, &http, proof).await?;
    }
    let renamed = changes.display_name.is_some();
    let changed = db::run(&state.pool, move |c| {
        let changed = accounts::change_me(c, caller.user_id, changes, now)?;
        // Its matches show the new name at once.
        if renamed {
            crate::matches::roster_changed(c, caller.user_id)?;
        }
        Ok(changed)
    })
    .await?;
    Ok(HttpResponse::Ok().json(changed))
}

#[utoipa::path(get, path = "/v1/me/summary", tag = "accounts",
    responses((status = 200, body = crate::summary::Summary)), security(("bearer" = [])))]
#[get("/v1/me/summary")]
pub async fn summary(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let counts = db::run(&state.pool, move |c| {
        crate::summary::summary(c, caller.user_id)
    })
    .await?;
    Ok(HttpResponse::Ok().json(counts))
}
