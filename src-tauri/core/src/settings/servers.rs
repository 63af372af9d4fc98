//! The `caldavServer` and `mcpServer` sections: the servers besides REST,
//! each off until the user turns it on.

use serde::{Deserialize, Serialize};

/// The loopback CalDAV server (`crate::caldav_server`). Only the user may change
/// it ([`class`](super::class)): it opens the calendars to any app holding a token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CaldavServerSettings {
    /// The server listens only while this is true.
    pub enabled: bool,
    /// Its loopback port.
    pub port: u16,
}

impl Default for CaldavServerSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            port: 8541,
        }
    }
}

/// The MCP server at `/mcp` on the REST port. Only the user may change it
/// ([`class`](super::class)): it lets an assistant holding a token act on the calendar.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct McpServerSettings {
    /// `/mcp` answers only while this (and the REST server) is on.
    pub enabled: bool,
}
