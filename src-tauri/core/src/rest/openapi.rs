//! The OpenAPI 3.1 description of the REST API, generated from the handlers'
//! `#[utoipa::path]` annotations and the payload types' `ToSchema` derives.
//!
//! `docs/openapi.json` is this document, committed; a test regenerates it and
//! fails on any difference (`ALMANAC_BLESS=1` rewrites the file instead).
//! Responses every route can give (401, 403, 413, 421, 500) are added here once
//! rather than on each handler, and so is each route's `security`: the scope
//! [`crate::tokens::SCOPES`] lists the route under.

use utoipa::openapi::schema::Schema;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{ComponentsBuilder, Ref, RefOr, Response};
use utoipa::{Modify, OpenApi};

use super::error::ErrorBody;
use super::{calendars, changes, events, history, quick_add, settings, ui};
use crate::tokens::Scope;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Almanac calendar REST API",
        description = "Loopback-only, token-gated access to the Almanac calendar: \
query, create, update and delete events, list calendar sources, trigger \
revalidation, drive the calendar window, read and update settings. Every \
request needs `Authorization: Bearer <token>`; tokens are created in Settings › \
API & Security and carry scopes. Every response carries \
`Access-Control-Allow-Origin: *`; `OPTIONS` on any path answers 204.",
    ),
    servers((url = "http://127.0.0.1:8540", description = "The default port (`localServerPort`)")),
    paths(
        events::list, events::create, quick_add::quick_add, events::details, events::update,
        events::delete, changes::changes,
        history::list, history::undo, history::undo_all,
        calendars::list, calendars::revalidate,
        ui::open_calendar, ui::open_sidebar, ui::change_view,
        settings::read, settings::update,
    ),
    components(schemas(ErrorBody)),
    modifiers(&CommonResponses),
    tags(
        (name = "events", description = "Events of the calendar sources"),
        (name = "history", description = "Changes made to the vault, and undoing them"),
        (name = "calendars", description = "Calendar sources and remote refresh"),
        (name = "ui", description = "The calendar window"),
        (name = "settings", description = "Application settings"),
    ),
)]
pub struct ApiDoc;

/// The document as pretty JSON with a trailing newline (the committed form).
pub fn json() -> String {
    let mut json = ApiDoc::openapi()
        .to_pretty_json()
        .expect("the OpenAPI document serializes");
    json.push('\n');
    json
}

/// Adds the bearer scheme and the error responses shared by every route, and
/// keeps the document independent of the machine generating it.
struct CommonResponses;

const COMMON: [(&str, &str); 5] = [
    ("401", "No `Authorization: Bearer` header"),
    (
        "403",
        "The token is invalid, expired or revoked, or lacks the route's scope",
    ),
    ("413", "The body is larger than 1 MiB"),
    (
        "421",
        "The `Host` header is not a loopback name with this server's port",
    ),
    ("500", "Unexpected failure"),
];

impl Modify for CommonResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let mut components = openapi
            .components
            .take()
            .unwrap_or_else(|| ComponentsBuilder::new().build());
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A personal access token (`ofc_pat_…`); the scopes a route needs are listed with it",
                    ))
                    .build(),
            ),
        );
        for (status, description) in COMMON {
            components.responses.insert(
                format!("Error{status}"),
                RefOr::T(
                    Response::builder()
                        .description(description)
                        .content(
                            "application/json",
                            utoipa::openapi::content::ContentBuilder::new()
                                .schema(Some(Ref::from_schema_name("ErrorBody")))
                                .build(),
                        )
                        .build(),
                ),
            );
        }
        // These defaults depend on the machine generating the document (home
        // directory, system time zone, the locale's clock); the committed
        // file must not.
        if let Some(RefOr::T(Schema::Object(settings))) = components.schemas.get_mut("Settings") {
            for machine_dependent in ["vaultPath", "displayTimezone", "timeFormat24h"] {
                if let Some(RefOr::T(Schema::Object(property))) =
                    settings.properties.get_mut(machine_dependent)
                {
                    property.default = None;
                }
            }
        }
        openapi.components = Some(components);
        for (path, item) in openapi.paths.paths.iter_mut() {
            for (method, operation) in [
                ("GET", &mut item.get),
                ("POST", &mut item.post),
                ("PUT", &mut item.put),
                ("DELETE", &mut item.delete),
            ] {
                let Some(operation) = operation else {
                    continue;
                };
                operation.security = Some(vec![security_of(&format!("{method} {path}"))]);
                for (status, _) in COMMON {
                    operation.responses.responses.insert(
                        status.to_string(),
                        RefOr::Ref(Ref::new(format!("#/components/responses/Error{status}"))),
                    );
                }
            }
        }
    }
}

/// The security requirement of the operation `route` (`METHOD /path`): the
/// bearer scheme with the scope whose row in [`crate::tokens::SCOPES`] lists
/// the route. The REST tests check that each handler demands that scope.
fn security_of(route: &str) -> SecurityRequirement {
    let scope = Scope::guarding(route)
        .unwrap_or_else(|| panic!("`{route}` is documented but no scope in SCOPES lists it"));
    SecurityRequirement::new("bearer", [scope.as_str()])
}
