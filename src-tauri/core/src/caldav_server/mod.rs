//! Almanac as a CalDAV server (RFC 4791) on loopback, for calendar apps
//! (Thunderbird, GNOME Calendar, Apple Calendar, vdirsyncer), and the
//! read-only subscription feeds on the same listener.
//!
//! Off by default; it listens on `caldavServer.port` while
//! `caldavServer.enabled` is on, following the settings live like the REST
//! server (the same manager, [`RestServer::spawn_following`]). Each calendar
//! source is a calendar collection of `.ics` resources, mapped onto the same
//! engine and the same [`AuthorizedApi`] operations as the REST API.
//!
//! Every request passes, in order:
//! 1. a panic becomes the JSON `500`;
//! 2. the `Host` check shared with REST (`421` for any authority but a loopback
//!    name with this port: DNS rebinding);
//! 3. `auth::refuse_browsers`: a request with an `Origin` is refused (`403`),
//!    and no CORS header is ever sent, so no web page can use the server;
//! 4. `OPTIONS` is answered (`DAV` capabilities), `/.well-known/caldav`
//!    redirected, `/feeds/<secret>.ics` served (the secret is the key);
//! 5. `auth`: HTTP Basic with a token as the password (`401` and a challenge
//!    otherwise); `events:read` for reads, `events:write` for writes (`403`);
//! 6. the method: `PROPFIND` (`propfind`), `REPORT` (`report`), `GET` /
//!    `HEAD` / `PUT` / `DELETE` (`resource`). Bodies over their method's
//!    limit (1 MiB for `PUT` and `REPORT`, 64 KiB otherwise) are `413`;
//! 7. the work itself waits for one of [`limits::CONCURRENT_REQUESTS`] turns
//!    (`503` with `Retry-After` when none frees up in time), and its answer
//!    is bounded (`limits`: property names, hrefs, answer bytes).
//!
//! Modules: `href` (the URL space), `xml` and `multistatus` (the XML bodies),
//! `collection` (resources, ETags, sync tokens), `relist` (a listing made
//! again after a change, from the one before), `props`, `feeds` (the feed
//! records) and `feed` (serving one), `error`.
//!
//! May import: the API, the engine, the settings, `ics`, `webdav`, and what
//! it shares with the REST server (`crate::loopback_server`: the listener
//! manager, the `Host` check, the JSON error shape). Never `crate::rest` nor
//! `crate::app`: publishing builds on this server (`crate::publish`), and
//! REST shows it, `app::Core` starts it. So the server is made from the
//! parts it serves ([`start`]), which the composition root passes.

mod auth;
mod collection;
mod components;
pub(crate) mod error;
mod expand;
mod feed;
pub mod feeds;
mod free_busy;
mod href;
mod kept;
mod limits;
mod manage;
mod multistatus;
mod overrides;
mod principal_search;
mod propfind;
mod props;
mod relist;
mod report;
pub(crate) mod resource;
pub(crate) mod xml;

// What publishing (`crate::publish`) serves and applies as this server does.
pub(crate) use collection::{Listings, ServedResource, resource_name};

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use tokio::sync::{OwnedSemaphorePermit, watch};

use self::error::DavRefusal;
use self::feeds::FeedStore;
use self::href::Target;
use self::limits::Gate;
use crate::api::{AuthorizedApi, CalendarPlugin};
use crate::calendar::Calendar;
use crate::loopback_server::{OwnPort, RestError, RestServer, check_host};
use crate::paths::Paths;
use crate::settings::Settings;
use crate::tokens::Scope;

/// What every request works with.
#[derive(Clone)]
pub struct CaldavServerState {
    plugin: Arc<CalendarPlugin>,
    calendar: Calendar,
    listings: Arc<Listings>,
    feeds: FeedStore,
    /// Shared by every listener the server has over its life.
    gate: Gate,
}

impl CaldavServerState {
    /// Serves `calendar` (the one `plugin` was built on) and the feeds of `feeds`.
    pub fn new(plugin: Arc<CalendarPlugin>, calendar: Calendar, feeds: FeedStore) -> Self {
        Self {
            plugin,
            calendar,
            listings: Arc::default(),
            feeds,
            gate: Gate::default(),
        }
    }
}

/// The CalDAV server of one instance, made from its parts by whoever
/// composes the instance (the shell's wiring, tests): `plugin`, whose token
/// check and API it serves, `calendar`, the one the plugin was built on,
/// and the subscription feeds kept in `paths`. It follows `caldavServer`
/// in `settings`. (Not made from `app::Core`, which starts publishing:
/// publishing builds on this server's paths.)
pub fn start(
    plugin: Arc<CalendarPlugin>,
    calendar: Calendar,
    paths: &Paths,
    settings: watch::Receiver<Arc<Settings>>,
) -> RestServer {
    let state = CaldavServerState::new(plugin, calendar, FeedStore::new(paths.feeds_file()));
    let wanted = |s: &Settings| s.caldav_server.enabled.then_some(s.caldav_server.port);
    RestServer::spawn_following(settings, "CalDAV server", wanted, move |port| {
        router(state.clone(), port)
    })
}

/// The whole server for a listener on `port`.
pub fn router(state: CaldavServerState, port: u16) -> Router {
    Router::new()
        .fallback(serve)
        .layer(middleware::from_fn_with_state(OwnPort(port), check_host))
        .layer(PANIC_ANSWER.layer())
        .with_state(state)
}

const PANIC_ANSWER: almanac_loopback::PanicAnswer = almanac_loopback::PanicAnswer {
    server: "CalDAV",
    internal_error: || RestError::Internal.into_response(),
};

/// The methods the server answers.
const ALLOW: &str = "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, REPORT, MKCALENDAR";

async fn serve(State(state): State<CaldavServerState>, request: Request) -> Response {
    match handle(state, request).await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    }
}

async fn handle(state: CaldavServerState, request: Request) -> Result<Response, DavRefusal> {
    auth::refuse_browsers(request.headers())?;
    let target = href::parse(request.uri().path())
        .ok_or_else(|| DavRefusal::not_found(request.uri().path()))?;
    let method = request.method().clone();
    if method == Method::OPTIONS {
        return Ok((
            StatusCode::OK,
            [
                (header::ALLOW, ALLOW),
                (
                    header::HeaderName::from_static("dav"),
                    "1, 3, calendar-access",
                ),
            ],
        )
            .into_response());
    }
    match &target {
        Target::WellKnown => {
            return Ok((StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, "/")]).into_response());
        }
        Target::Feed(secret) if method == Method::GET || method == Method::HEAD => {
            let secret = secret.clone();
            let head = method == Method::HEAD;
            let turn = state.gate.enter().await?;
            return off_thread(turn, move || {
                feed::serve(
                    &state.feeds,
                    &state.calendar,
                    &state.listings,
                    &secret,
                    head,
                )
            })
            .await;
        }
        Target::Feed(_) => return Err(method_not_allowed(&method, "GET, HEAD")),
        _ => {}
    }
    let api = auth::authenticate(&state.plugin, request.headers())?;
    let depth_one = request
        .headers()
        .get("depth")
        .and_then(|d| d.to_str().ok())
        .is_none_or(|d| d.trim() != "0");
    let headers = request.headers().clone();
    let body = body_text(request.into_body(), limits::body_limit(&method)).await?;
    // MKCALENDAR and PROPPATCH need `settings:write` too, which the core
    // checks (`api::client_calendars`).
    let write = matches!(
        method.as_str(),
        "PUT" | "DELETE" | "MKCALENDAR" | "PROPPATCH"
    );
    auth::require(
        &api,
        if write {
            Scope::EventsWrite
        } else {
            Scope::EventsRead
        },
    )?;
    let turn = state.gate.enter().await?;
    off_thread(turn, move || {
        dispatch(&state, &api, &method, &target, depth_one, &headers, &body)
    })
    .await
}

/// Routes an authenticated request by method (on a blocking thread: large
/// calendars and writes take milliseconds of CPU and disk).
fn dispatch(
    state: &CaldavServerState,
    api: &AuthorizedApi,
    method: &Method,
    target: &Target,
    depth_one: bool,
    headers: &axum::http::HeaderMap,
    body: &str,
) -> Result<Response, DavRefusal> {
    let calendar = &state.calendar;
    let place = match target {
        Target::ServedResource { calendar: id, name } => Some(resource::Place {
            calendar,
            listings: &state.listings,
            id,
            name,
        }),
        _ => None,
    };
    match (method.as_str(), &place) {
        ("PROPFIND", _) => {
            let body = propfind::answer(calendar, &state.listings, target, depth_one, body)?;
            Ok(multistatus(body))
        }
        ("REPORT", _) => report::respond(calendar, &state.listings, target, body),
        ("MKCALENDAR", None) | ("PROPPATCH" | "DELETE", None) => {
            manage_collection(state, api, method, target, body)
        }
        ("GET" | "HEAD", Some(place)) => resource::get(place, method == Method::HEAD),
        ("PUT", Some(place)) => resource::put(api, place, headers, body),
        ("DELETE", Some(place)) => resource::delete(api, place, headers),
        (_, None) if matches!(method.as_str(), "GET" | "HEAD" | "PUT" | "DELETE") => {
            Err(method_not_allowed(method, "OPTIONS, PROPFIND, REPORT"))
        }
        _ => Err(method_not_allowed(method, ALLOW)),
    }
}

/// `MKCALENDAR`, `PROPPATCH` and `DELETE` of a calendar collection.
fn manage_collection(
    state: &CaldavServerState,
    api: &AuthorizedApi,
    method: &Method,
    target: &Target,
    body: &str,
) -> Result<Response, DavRefusal> {
    let Target::Collection(id) = target else {
        return Err(method_not_allowed(method, "OPTIONS, PROPFIND, REPORT"));
    };
    let exists = state.calendar.sources().iter().any(|s| &s.id == id);
    match method.as_str() {
        "MKCALENDAR" => manage::mkcalendar(api, id, exists, body),
        _ if !exists => Err(DavRefusal::not_found(&href::collection(id))),
        "PROPPATCH" => manage::proppatch(api, id, body),
        _ => Err(manage::refuse_delete(id)),
    }
}

fn multistatus(body: String) -> Response {
    (
        StatusCode::MULTI_STATUS,
        [(header::CONTENT_TYPE, "application/xml; charset=utf-8")],
        body,
    )
        .into_response()
}

fn method_not_allowed(method: &Method, allow: &'static str) -> DavRefusal {
    DavRefusal::MethodNotAllowed {
        message: format!("{method} is not allowed here (allowed: {allow})"),
        allow,
    }
}

/// The body as text, refused (`413`) past `limit` bytes, before more than
/// that is read.
async fn body_text(body: Body, limit: usize) -> Result<String, DavRefusal> {
    let bytes = to_bytes(body, limit)
        .await
        .map_err(|_| DavRefusal::body_too_large(limit))?;
    String::from_utf8(bytes.to_vec()).map_err(|_| DavRefusal::bad_request("the body is not UTF-8"))
}

/// Runs `work` on a blocking thread, holding `turn` until it ends (even if
/// the client has gone: the thread keeps working); a panic there is logged
/// and answered `500`.
async fn off_thread<F>(turn: OwnedSemaphorePermit, work: F) -> Result<Response, DavRefusal>
where
    F: FnOnce() -> Result<Response, DavRefusal> + Send + 'static,
{
    let work = move || {
        let outcome = work();
        drop(turn);
        outcome
    };
    match almanac_loopback::blocking(work).await {
        Ok(outcome) => outcome,
        Err(_logged) => Ok(RestError::Internal.into_response()),
    }
}
