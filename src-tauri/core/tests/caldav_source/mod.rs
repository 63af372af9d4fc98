//! The CalDAV calendar source against a real Radicale server.

mod account;
use crate::common;
mod discovery;
mod gate;
mod in_flight;
mod moves;
mod occurrences;
mod offline_moves;
mod origin;
mod radicale;
mod read;
mod refused;
mod setup;
mod write;
