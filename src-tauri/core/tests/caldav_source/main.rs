//! The CalDAV calendar source against a real Radicale server.

mod discovery;
mod radicale;
