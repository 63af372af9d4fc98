//! Test support shared by Almanac's test crates (a dev-dependency only).
//!
//! Integration tests of different packages cannot share modules, so what
//! more than one test crate needs lives here, once:
//!
//! - [`instance`]: [`InstanceBuilder`], a whole [`almanac_core::app::Core`]
//!   over a vault in a temp dir, with settings, secret store, UI and consent
//!   chosen per test.
//! - [`fakes`]: [`RecordingUi`] (what the API asked of the windows) and
//!   [`ManualClock`] (a clock tests move).
//! - [`keyring`]: the real OS keyring, asserted to be there.
//! - [`leaks`]: where a secret could leak to: captured logs and files.
//! - [`net`]: loopback ports; [`radicale`]: a real CalDAV server on one.
//! - [`wait`]: awaiting a state instead of sleeping.
//! - [`quick_add_table`]: the phrase tables of docs/quick-add.md as test data.

pub mod fakes;
pub mod instance;
pub mod keyring;
pub mod leaks;
pub mod net;
pub mod quick_add_table;
pub mod radicale;
pub mod venv;
pub mod wait;
pub mod webhook_receiver;

pub use fakes::{ManualClock, RecordingUi};
pub use instance::{InstanceBuilder, TestInstance, new_token, paths_in};
pub use keyring::{keyring_lookup, real_keyring};
pub use leaks::{captured_logs, files_containing, logs_text};
pub use net::{HttpStub, free_port, port_open};
pub use venv::venv;
pub use wait::{PATIENCE, eventually, wait_until};
pub use webhook_receiver::WebhookReceiver;
