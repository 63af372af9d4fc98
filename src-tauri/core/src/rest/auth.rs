//! Bearer authentication: the middleware that checks the token, and the
//! extractor through which a handler declares the scope it needs.
//!
//! The middleware runs before routing, so the spec's order holds for every
//! path, known or not: no Bearer header → `401`; a secret the token check
//! refuses (invalid, expired, revoked, keyring down) → `403`. Both answer
//! with the Full Calendar plugin's texts, the same for every reason; the
//! reason goes to the log only (see [`crate::tokens::check`]). The check is the
//! in-process API's own ([`CalendarPlugin::authorize`]), in memory and
//! constant-time; it records "last used" in memory and a background task
//! writes it, so the request path never waits for a disk.
//!
//! The secret is never logged: no layer logs request headers, and refusals
//! name the token, not the secret.

use std::marker::PhantomData;
use std::sync::Arc;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::header;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::api::{ApiError, AuthorizedApi, CalendarPlugin};
use crate::loopback_server::error::RestError;
use crate::tokens::{MISSING_AUTHORIZATION, REFUSED_TOKEN, Scope};

/// Middleware: `401` / `403` as the spec orders them; on success the request
/// carries the [`AuthorizedApi`] for the handler.
pub async fn authenticate(
    State(plugin): State<Arc<CalendarPlugin>>,
    mut request: Request,
    next: Next,
) -> Response {
    let api = match bearer_secret(&request).and_then(|secret| authorize(&plugin, secret)) {
        Ok(api) => api,
        Err(refusal) => return refusal.into_response(),
    };
    request.extensions_mut().insert(api);
    next.run(request).await
}

const BEARER: &[u8] = b"Bearer ";

/// The secret of an `Authorization: Bearer <secret>` header.
fn bearer_secret(request: &Request) -> Result<&str, RestError> {
    let value = request
        .headers()
        .get(header::AUTHORIZATION)
        .ok_or(RestError::Unauthorized(MISSING_AUTHORIZATION))?;
    // The scheme name is case-insensitive (RFC 9110 §11.1).
    let rest = match value.as_bytes().split_at_checked(BEARER.len()) {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case(BEARER) => rest,
        _ => return Err(RestError::Unauthorized(MISSING_AUTHORIZATION)),
    };
    // Secrets are ASCII; anything else cannot be a token of ours.
    std::str::from_utf8(rest)
        .map(str::trim)
        .map_err(|_| RestError::Forbidden(REFUSED_TOKEN.to_string()))
}

fn authorize(plugin: &Arc<CalendarPlugin>, secret: &str) -> Result<AuthorizedApi, RestError> {
    // The token check has logged why (naming the token, never the secret).
    plugin
        .authorize(secret)
        .map_err(|_| RestError::Forbidden(REFUSED_TOKEN.to_string()))
}

/// A scope a route requires, as a type, so the handler's signature says it.
///
/// The OpenAPI document states each route's scope from its row in
/// [`crate::tokens::SCOPES`]; the REST tests send every documented operation
/// a token lacking only that scope (refused) and one holding only it (not
/// refused), so the document and the handler's marker cannot drift apart.
pub trait RouteScope {
    const SCOPE: Scope;
}

macro_rules! route_scopes {
    ($($marker:ident => $scope:ident),* $(,)?) => {$(
        #[doc = concat!("Marker for [`Scope::", stringify!($scope), "`].")]
        #[derive(Debug)]
        pub struct $marker;
        impl RouteScope for $marker {
            const SCOPE: Scope = Scope::$scope;
        }
    )*};
}

route_scopes! {
    EventsRead => EventsRead,
    EventsWrite => EventsWrite,
    UiOpenCalendar => UiOpenCalendar,
    UiOpenSidebar => UiOpenSidebar,
    UiChangeView => UiChangeView,
    ProvidersRead => ProvidersRead,
    ProvidersWrite => ProvidersWrite,
    SettingsRead => SettingsRead,
    SettingsWrite => SettingsWrite,
}

/// The caller's API object, provided its token grants `S`'s scope.
///
/// Listed first among a handler's arguments, it runs before the body and
/// query are parsed (axum extracts in argument order and stops at the first
/// rejection), so a token without the scope gets `403` whatever it sent. The API method re-checks the token and scope itself.
pub struct Authorized<S>(pub AuthorizedApi, pub PhantomData<S>);

impl<S: RouteScope, St: Send + Sync> FromRequestParts<St> for Authorized<S> {
    type Rejection = RestError;

    async fn from_request_parts(parts: &mut Parts, _: &St) -> Result<Self, Self::Rejection> {
        let api = parts
            .extensions
            .get::<AuthorizedApi>()
            .cloned()
            .ok_or_else(|| {
                tracing::error!("route reached without authentication; is the auth layer missing?");
                RestError::Internal
            })?;
        if !api.scopes().grants(S::SCOPE) {
            return Err(ApiError::MissingScope(S::SCOPE).into());
        }
        Ok(Self(api, PhantomData))
    }
}
