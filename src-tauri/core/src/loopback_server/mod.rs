//! What both loopback HTTP servers of the core, the REST server
//! (`crate::rest`) and the CalDAV server (`crate::caldav_server`), share:
//!
//! - [`server`]: the listener that follows the settings, started, stopped
//!   and rebound as they change ([`RestServer`], named for the first server
//!   that used it);
//! - [`host`]: the `Host` check against DNS rebinding (`421`);
//! - [`error`]: the spec's JSON error shape ([`RestError`], [`ErrorBody`])
//!   and the body limit (MCP, served on the REST port, words a refused
//!   query as REST does).
//!
//! May import: the API's errors, the engine's error and the settings. It
//! lies below both servers, so that the CalDAV server needs nothing from
//! `crate::rest`, which shows and starts publishing (`crate::publish`),
//! while publishing builds on the CalDAV server.

pub mod error;
pub mod host;
pub mod server;

pub use error::{BODY_LIMIT, ErrorBody, RestError};
pub use host::{OwnPort, check as check_host};
pub use server::{Listening, RestServer, ServerState};
