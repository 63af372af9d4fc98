//! The event model: what an event is, as clients see it and as the engine
//! keeps it, and how a series becomes its occurrences — the words every part
//! of Almanac speaks.
//!
//! - [`event`], [`fields`]: the event as queries return it, and what a client
//!   sends to create or update one (the writable fields declared once);
//! - [`id`]: event ids, parsed and formatted in one place;
//! - [`query`]: the query filter, REST range bounds, the range semantics and
//!   the cost ceiling's limits; [`budget`]: what one expansion may still
//!   spend;
//! - [`status`]: what the engine reports about the vault, the notes and
//!   series it left out, and its cache;
//! - [`error`]: the engine's one error type;
//! - [`spec`]: the validated internal form every source converts to, and
//!   [`written`]: the rules a write's fields meet on top of it (no control
//!   characters, no sub-hourly series);
//! - [`series`]: wall-clock times to instants, and a series to its
//!   occurrences.
//!
//! Why a crate of its own: everything above it (the engine, the iCalendar
//! reader and writer, the servers, the settings) imports it, and the
//! compiler forbids it to import any of them, so no import circle can run
//! through the model. It depends on data crates only (serde, chrono,
//! chrono-tz, rrule, utoipa for the API's schemas).
//!
//! Circles inside: `query` ↔ `status`, as a query's answer names the series
//! it left out (`SeriesLeftOut`) and that record names the per-series step
//! limit the query module sets; `spec` ↔ `series`, as validating a spec
//! checks its rule and a series is expanded from a spec; `series` ↔
//! `budget`, as expansion spends from the cost ceiling, whose refusal names
//! the query's limits.

pub mod budget;
pub mod error;
pub mod event;
pub mod fields;
pub mod id;
pub mod query;
mod schema;
pub mod series;
pub mod spec;
pub mod status;
pub mod written;
