//! `/mcp`: the MCP server's Streamable HTTP transport ([`crate::mcp`]) on the
//! REST port, behind the same layers as every route (loopback `Host`, the
//! bearer check, the body limit), for tokens with `events:read`. It answers
//! only while the user has switched it on (`mcpServer.enabled`); otherwise
//! `404`, saying how.

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use tower::ServiceExt;

use super::RestState;
use super::auth::{Authorized, EventsRead};
use super::error::RestError;

pub fn routes() -> Router<RestState> {
    Router::new().route("/mcp", any(serve))
}

/// Hands the request to the MCP service. Every MCP request, `initialize`
/// first, needs `events:read`: a session holds memory and a worker, and a
/// token that may read nothing has no use for one. Sessions are counted per
/// token and in all ([`super::mcp_sessions`]).
async fn serve(
    Authorized(api, ..): Authorized<EventsRead>,
    State(state): State<RestState>,
    request: Request,
) -> Response {
    let Some(mcp) = state.mcp.as_ref().filter(|mcp| mcp.context.enabled()) else {
        return RestError::NotFound(
            "the MCP server is off; the user can turn it on in Settings > API & Security \
             (mcpServer.enabled)"
                .to_string(),
        )
        .into_response();
    };
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|id| id.to_str().ok())
        .map(str::to_string);
    let ends = request.method() == Method::DELETE;
    match &session {
        Some(id) => mcp.sessions.used(id),
        // Without a session, a request can only open one.
        None => {
            if let Err(refused) = mcp.sessions.admit(api.token_id()) {
                return refused.into_response();
            }
        }
    }
    let response = match mcp.service.clone().oneshot(request).await {
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
    };
    match (&session, response.headers().get(SESSION_HEADER)) {
        (None, Some(opened)) => {
            if let Ok(id) = opened.to_str() {
                mcp.sessions.opened(id, api.token_id());
            }
        }
        (Some(id), _) if ends => mcp.sessions.closed(id),
        _ => {}
    }
    response
}

/// The header naming a Streamable HTTP session.
const SESSION_HEADER: &str = "mcp-session-id";
