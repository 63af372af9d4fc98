//! Loopback serving, written once for Almanac's HTTP servers: the REST and
//! CalDAV servers in `almanac-core` and the reminder daemon in
//! `almanac-reminders`; and the owner-only folders both keep their data in.
//!
//! - [`host`] — the `Host` check against DNS rebinding: the `Host` header and
//!   an absolute-form request target must both name a loopback host with the
//!   server's own port. Each server turns a refusal into its own error shape.
//! - [`listener`] — bind `127.0.0.1:port`, serve a router until stopped; stop
//!   either as soon as the port is free (to rebind it) or after the requests
//!   in flight are done (to close a store behind them).
//! - [`connections`] — the bounds every port serves within: a header-read
//!   (and idle keep-alive) timeout and a cap on connections served at once.
//! - [`blocking`], [`panics`] — run blocking work off the async workers, and
//!   catch panics in handlers: a panic is logged and answered with the
//!   server's own JSON `500`; it never takes a server down.
//! - [`signal`] — the SIGINT/SIGTERM shutdown signal of the app and of the
//!   standalone daemon.
//! - [`request_body`] — a total deadline for a request's body, and
//!   `Connection: close` on an answer given before the body was read, so a
//!   client never reuses a connection the server is closing. [`connections`]
//!   adds both to every router it serves.
//! - [`private_dir`] — owner-only folders and files (0700/0600), for
//!   Almanac's own folders and the reminder database alike.
//! - [`defaults`] — the reminder daemon's defaults, which Almanac's settings
//!   and the daemon's own configuration both start from.
//!
//! What stays out: the notifier with its log fallback lives in
//! `almanac-reminders` (`notifier::system_notifier`), next to the `Notifier`
//! trait and the D-Bus client it wraps. Moving it here would pull zbus into
//! this crate and so into `almanac-core`, which never shows a notification.
//! The shell and the standalone daemon binary both depend on
//! `almanac-reminders` already, so one function there serves both.
//!
//! This crate depends on neither server crate; both depend on it.

pub mod blocking;
pub mod connections;
pub mod defaults;
pub mod host;
pub mod listener;
pub mod panics;
pub mod private_dir;
pub mod request_body;
pub mod signal;

pub use blocking::{Panicked, blocking};
pub use connections::ConnectionLimits;
pub use listener::{BindError, Bound, Listening};
pub use panics::PanicAnswer;
pub use signal::{ShutdownSignal, shutdown_signal};
