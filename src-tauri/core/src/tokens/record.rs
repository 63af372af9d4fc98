//! A token's metadata: everything about it except its secret.
//!
//! Records are what `tokens.json` holds and what the settings UI and
//! `getInternalState()` show. They carry no secret material at all, not even a
//! hash: the hash index is rebuilt in memory from the keyring at start.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::scopes::ScopeSet;

/// Longest token name accepted, in characters.
pub const MAX_NAME_CHARS: usize = 100;

/// A token's metadata as stored on disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenRecord {
    pub id: Uuid,
    pub name: String,
    pub scopes: ScopeSet,
    pub created_at: DateTime<Utc>,
    /// `None` means the token never expires.
    pub expires_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// Set once, never cleared: a revoked token stays revoked across restarts.
    pub revoked_at: Option<DateTime<Utc>>,
}

/// The lifetimes the settings UI offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Expiry {
    Never,
    Days30,
    Days90,
    Days365,
}

impl Expiry {
    /// The lifetime for `days` (`None` = never), or `None` when the UI offers no
    /// such choice.
    pub fn from_days(days: Option<u32>) -> Option<Self> {
        match days {
            None => Some(Expiry::Never),
            Some(30) => Some(Expiry::Days30),
            Some(90) => Some(Expiry::Days90),
            Some(365) => Some(Expiry::Days365),
            Some(_) => None,
        }
    }

    /// When a token created at `created` stops working.
    pub fn expires_at(self, created: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let days = match self {
            Expiry::Never => return None,
            Expiry::Days30 => 30,
            Expiry::Days90 => 90,
            Expiry::Days365 => 365,
        };
        Some(created + Duration::days(days))
    }
}

/// Where a token stands at one instant, as the settings UI shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TokenStatus {
    Active,
    Expired,
    Revoked,
    /// The metadata is there but the keyring has no secret for it (removed by
    /// hand in a keyring manager, say): nothing can present it any more.
    SecretMissing,
}

/// A record plus its status, for listings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenInfo {
    #[serde(flatten)]
    pub record: TokenRecord,
    pub status: TokenStatus,
}

impl TokenRecord {
    pub(crate) fn is_expired_at(&self, now: DateTime<Utc>) -> bool {
        self.expires_at.is_some_and(|at| now >= at)
    }
}
