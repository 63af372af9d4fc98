//! Black-box tests of the REST server: a real instance (vault, engine, tokens
//! in the real OS keyring) serving real HTTP on loopback. Run with
//! `scripts/session.sh cargo nextest run -p almanac-core -E 'test(/^rest::/)'`.

mod support;

mod auth;
mod bounds;
mod changes;
mod connections;
mod feeds;
mod fuzz_crashes;
mod history;
mod hostile;
mod idempotency;
mod ids;
mod lifecycle;
mod openapi;
mod quick_add;
mod readonly_kinds;
mod routes;
mod runaway;
mod scopes;
mod settings_classes;
mod shapes;
mod times;
