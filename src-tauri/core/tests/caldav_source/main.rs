//! The CalDAV calendar source against a real Radicale server.

#[path = "../common/mod.rs"]
mod common;
mod account;
mod discovery;
mod radicale;
mod read;
mod setup;
mod write;
