//! The `caldavServer` section.

use serde::{Deserialize, Serialize};

/// The loopback CalDAV server (`crate::caldav_server`). Only the user may change
/// it ([`class`]): it opens the calendars to any app holding a token.
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
