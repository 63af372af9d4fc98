//! Black-box tests of the CalDAV server and the subscription feeds: a real
//! instance (vault, engine, tokens in the real OS keyring) with the server
//! switched on through its setting, spoken to over real HTTP on loopback —
//! by reqwest for the protocol's edges, and by real clients from PyPI (the
//! `caldav` library, vdirsyncer, the `icalendar` parser) installed by
//! `scripts/caldav-venv.sh` into a cached virtualenv. Run with
//! `scripts/session.sh cargo nextest run -p almanac-core -E 'test(/^caldav::/)'`.

mod support;

mod class_related;
mod clients;
mod conformance;
mod connections;
mod feeds;
mod fuzz_crashes;
mod history;
mod ics_bounds;
mod injection;
mod limits;
mod manage;
mod occurrences;
mod privileges;
mod protocol;
mod repeated;
mod searches;
mod tasks;
mod thunderbird;
