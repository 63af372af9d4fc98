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
use crate::loopback_server::error::RestError;

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
    let admission = match &session {
        Some(id) => {
            mcp.sessions.used(id);
            None
        }
        // Without a session, a request can only open one: it takes a place
        // before it is served, so `initialize`s sent at once count at once.
        None => match mcp.sessions.admit(api.token_id()) {
            Ok(admission) => Some(admission),
            Err(refused) => return refused.into_response(),
        },
    };
    let response = match mcp.service.clone().oneshot(request).await {
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
    };
    match (admission, response.headers().get(SESSION_HEADER)) {
        (Some(admission), Some(opened)) => {
            if let Ok(id) = opened.to_str() {
                admission.opened(id);
            }
        }
        (None, _) if ends => {
            if let Some(id) = &session {
                mcp.sessions.closed(id);
            }
        }
        _ => {}
    }
    response
}

/// The header naming a Streamable HTTP session.
const SESSION_HEADER: &str = "mcp-session-id";
