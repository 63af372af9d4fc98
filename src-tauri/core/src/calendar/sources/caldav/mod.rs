//! A calendar on a CalDAV server (RFC 4791), read and written both ways.
//!
//! - `dav`: the WebDAV requests (PROPFIND, REPORT, GET, PUT, DELETE) with
//!   HTTP Basic authentication, and their multistatus answers;
//! - [`discover`]: from a server address to its calendars, through
//!   `/.well-known/caldav`, the current user principal and the calendar home
//!   set (RFC 6764);
//! - [`mirror`]: the local copy of the calendar (resources, ETags, sync
//!   token), on disk for offline use; [`sync`] brings it up to date;
//! - [`queue`]: writes made offline, kept durably and replayed;
//!   [`splice`]: an edited series put back beside its overrides;
//! - [`password`]: the password or app password, kept in the OS keyring
//!   under the source id, never in settings or logs;
//! - [`account`]: setting an account's calendar up from Settings;
//! - [`state`]: what the engine keeps for its CalDAV calendars (mirrors,
//!   queues, their lock, passwords);
//! - `worker`: their mirrors loaded and synced on the engine's feed worker;
//!   `writes`: an event written to a CalDAV calendar (or queued);
//!   `moves`: an event moved into or out of one. These three are
//!   `impl Calendar` blocks, the engine's side of this source kind.
//!
//! Everything the CalDAV client does is in this folder. May import the
//! engine, `model`, `series`, `index` (a write's cached entry) and the other
//! sources (a move's note side); the WebDAV XML tree is shared with the
//! server through `crate::webdav`.
//!
//! No maintained Rust crate speaks CalDAV's client side over a blocking
//! reqwest client, so the few requests needed are written here; quick-xml
//! parses the answers (through the WebDAV XML tree it shares with the server, `crate::webdav::xml`).

pub mod account;
pub(crate) mod dav;
pub mod discover;
pub mod mirror;
mod moves;
pub mod password;
pub mod queue;
pub mod splice;
pub mod state;
pub mod sync;
mod worker;
mod writes;

pub use dav::{
    DavClient, DavError, MAX_ANSWER_BYTES, MAX_RESOURCE_BYTES, MAX_RESOURCES,
    is_plain_http_off_machine,
};

/// The file of source `source_id` in `dir`: named by a hash of the id (ids
/// are the user's, any text), ending in `suffix`.
fn source_file(dir: &std::path::Path, source_id: &str, suffix: &str) -> std::path::PathBuf {
    use sha2::Digest;
    let stem: String = sha2::Sha256::digest(source_id.as_bytes())
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect();
    dir.join(format!("{stem}{suffix}"))
}
