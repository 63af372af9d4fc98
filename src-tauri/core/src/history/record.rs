//! What the history holds about one change: [`Change`], as listed, and the
//! journal's lines ([`Line`]) that carry the files' bytes.

use std::path::PathBuf;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

use super::author::Author;

/// One recorded change: every file one write of the engine touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// Its number, increasing; `POST /history/{id}/undo` takes it.
    pub id: u64,
    /// When it was made (UTC).
    pub at: DateTime<Utc>,
    /// Who made it.
    pub author: Author,
    /// The change this one undid, when it is an undo.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undoes: Option<u64>,
    /// The files it touched, vault-relative, in the order it touched them.
    pub files: Vec<FileChange>,
}

/// What a change did to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    /// The note, vault-relative.
    pub path: String,
    /// `created`, `edited` or `deleted`.
    pub action: FileAction,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum FileAction {
    Created,
    Edited,
    Deleted,
}

impl FileAction {
    pub(super) fn of(before: bool, after: bool) -> FileAction {
        match (before, after) {
            (false, _) => FileAction::Created,
            (true, true) => FileAction::Edited,
            (true, false) => FileAction::Deleted,
        }
    }
}

/// One line of the journal.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "line", rename_all = "camelCase")]
pub(super) enum Line {
    /// A file about to be written, with its bytes before and after; fsynced
    /// before the write.
    Op(Op),
    /// Op `seq` of `change` failed: nothing was written.
    Failed { change: u64, seq: usize },
    /// Every op of `change` was written.
    Done { change: u64 },
}

/// One file of a change.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Op {
    pub change: u64,
    /// Its place among the change's ops.
    pub seq: usize,
    pub at: DateTime<Utc>,
    pub author: Author,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<u64>,
    /// The vault it was made in (canonical).
    pub vault: PathBuf,
    pub path: String,
    /// The file's bytes before (`None`: there was no file).
    pub before: Option<Bytes>,
    /// The file's bytes after (`None`: the file was removed).
    pub after: Option<Bytes>,
}

/// A file's bytes, as base64 in the journal (a note may hold anything).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Bytes(pub Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&STANDARD.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        STANDARD
            .decode(text)
            .map(Bytes)
            .map_err(serde::de::Error::custom)
    }
}
