//! Almanac's core: everything that is not the desktop shell.
//!
//! Nothing here depends on a GUI toolkit, so the whole crate is testable
//! headless. The desktop shell (`src-tauri`) only wires these parts to the OS.
//!
//! Layout, one module per concept:
//!
//! - [`paths`]: where config and data live (XDG dirs, overridable per instance).
//! - [`fsutil`]: crash-safe file writes (temp file, fsync, rename), and
//!   owner-only files and folders.
//! - [`data_lock`]: the lock a running instance holds on its data folder.
//! - [`allocator`]: large buffers given back to the system when freed.
//! - [`instance_proof`]: how a client knows the REST port is this user's
//!   Almanac before it sends a token.
//! - [`settings`]: the one settings object, its JSON file and change notifications.
//! - [`events`]: the application event bus — settings, tokens, calendar and
//!   reminders changed — that every component subscribes to once.
//! - [`calendar`]: the calendar engine — notes and ICS feeds cached in memory,
//!   queries, writes, and the file watcher.
//! - [`onboarding`]: the import plan from a Full Calendar plugin's settings
//!   in a vault (`almanac --vault`, Settings › Vault), and the vaults in
//!   Obsidian's own list for a first start; reads `.obsidian` and Obsidian's
//!   configuration, never writes them.
//! - [`vault_reminders`]: the reminders derived from every calendar's
//!   events (their own alarm, default minutes), kept fresh incrementally.
//! - [`reminder_fired`]: what a reminder firing does besides its notification
//!   (a change-feed entry, the user's reminder hook).
//! - [`history`]: every change made to the vault, with the files' bytes
//!   before and after and who made it, so that any can be undone.
//! - [`changes`]: the change feed (`GET /api/v1/changes`): what changed in
//!   the calendar, numbered, whatever changed it.
//! - [`webhooks`]: the change feed's entries POSTed to the user's hooks in
//!   the Standard Webhooks format (signed, retried, logged).
//! - [`client`]: the command line's client (`almanac events …`): the
//!   running instance over REST, or the vault in-process when none runs.
//! - [`clock`]: "now" behind a trait, so expiry is testable.
//! - [`view`]: the calendar view ids (settings' `initialView`, `changeView`).
//! - [`ics`]: events written as iCalendar, and a client's event read back.
//! - [`kinds`]: the registry of calendar source kinds (one `match` per
//!   capability) and a kind's settings as Settings write them; below both
//!   the settings, which hold a source's kind, and the engine, which asks
//!   it what each source can do. [`holiday_data`]: the public holidays
//!   Almanac ships, which a `holidays` source reads and its settings are
//!   checked against.
//! - [`scopes`]: what a token may do — the contract's scopes and the class
//!   of settings each may change; below the settings, which check against
//!   them, and the token store.
//! - [`tokens`]: personal access tokens — secrets in the OS keyring,
//!   metadata on disk, and the one token check.
//! - [`api`]: the in-process API (spec C) — the plugin registry, the
//!   `full-calendar` plugin's `with_token` / `request_access`, and
//!   `AuthorizedApi` with one scope-checked method per REST route.
//! - [`rest`]: the calendar REST server (spec A) — a thin axum layer over
//!   `AuthorizedApi`: bearer auth, CORS, the `Host` check, JSON errors, the
//!   listener that follows `restServerEnabled` / `localServerPort`, and the
//!   OpenAPI document (`docs/openapi.json`).
//! - [`quick_add`]: one line such as "Lunch tomorrow 12:30" read as a new
//!   event's fields, in the display zone (REST, the sidebar, the CLI, MCP).
//! - [`loopback_server`]: what the REST and CalDAV servers share: the
//!   listener that follows the settings, the `Host` check, the JSON error
//!   shape.
//! - [`caldav_server`]: the CalDAV server for calendar apps, and subscription
//!   feeds; both off until the user turns `caldavServer` on.
//! - [`publish`]: a vault calendar kept, both ways, in a collection of the
//!   user's CalDAV account, which their phone syncs.
//! - [`mcp`]: the MCP server for AI assistants (`/mcp` on the REST port,
//!   and stdio), off until the user turns `mcpServer` on.
//! - [`app`]: [`app::Core`], the wired instance. Start here:
//!
//! ```no_run
//! # async fn start() -> Result<(), almanac_core::app::CoreError> {
//! use std::sync::Arc;
//! use std::time::Duration;
//! use almanac_core::{api, app::Core, data_lock::DataLock, paths::Paths};
//! use almanac_core::tokens::KeyringSecretStore;
//!
//! let paths = Paths::platform();
//! // One engine per data folder: whoever else has it is asked to hand over.
//! let lock = DataLock::take_over(&paths, Duration::from_secs(30))?;
//! let core = Arc::new(
//!     Core::open(
//!         paths,
//!         lock,
//!         Arc::new(KeyringSecretStore::new()),
//!         Arc::new(api::HeadlessUi),   // the desktop shell passes its windows
//!         Arc::new(api::DeclineAll),   // …and its consent dialog
//!     )
//!     .await?,
//! );
//! // The REST server, listening while the settings say so.
//! let rest = almanac_core::rest::RestServer::start(&core);
//! let _state = rest.subscribe(); // Disabled | Listening(addr) | Failed(reason)
//! # Ok(()) }
//! ```

pub mod allocator;
pub mod api;
pub mod app;
pub mod caldav_server;
pub mod calendar;
pub mod changes;
pub mod client;
pub mod clock;
pub mod data_lock;
pub mod events;
pub mod fsutil;
#[doc(hidden)]
pub mod fuzzing;
pub mod history;
pub mod holiday_data;
pub mod ics;
pub mod instance_proof;
pub mod kinds;
pub mod loopback_server;
pub mod mcp;
pub mod onboarding;
pub mod os_registration;
pub mod paths;
pub mod publish;
pub mod quick_add;
pub mod reminder_fired;
pub mod rest;
pub mod scopes;
pub mod settings;
pub mod tokens;
pub mod vault_reminders;
pub mod view;
pub mod webdav;
pub mod webhooks;
