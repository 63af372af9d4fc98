//! `getInternalState()`'s answer: the raw state of the plugin, for debugging
//! and power users. Token metadata only; secrets are never part of it.

use std::sync::Arc;

use serde::Serialize;

use crate::calendar::{CacheStats, SourceInfo, VaultStatus};
use crate::settings::Settings;
use crate::tokens::{KeyringStatus, TokenInfo};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InternalState {
    pub settings: Arc<Settings>,
    pub sources: Vec<SourceInfo>,
    pub vault: VaultStatus,
    pub cache: CacheStats,
    pub tokens: Vec<TokenInfo>,
    pub keyring: KeyringStatus,
}
