//! The model: what an event is, as clients see it and as the engine keeps
//! it, and the words every room speaks.
//!
//! - [`event`], [`fields`]: the event as queries return it, and what a client
//!   sends to create or update one;
//! - [`id`]: event ids, parsed and formatted in one place;
//! - [`query`]: the query filter, REST range bounds and the range semantics;
//! - [`status`]: what the engine reports about itself;
//! - [`error`]: the engine's one error type;
//! - `spec`: the validated internal form every source converts to, and
//!   `written`: the rules a write's fields meet on top of it (no control
//!   characters, no sub-hourly series).
//!
//! May import: `series` (a spec's rule is checked, a written rule's text
//! read) and the source registry (`kinds`: a status names its kind).
//! Nothing here knows the engine, the index or a source's reader.
//!
//! One circle inside: `query` ↔ `status`, as a query's answer names the
//! series it left out (`SeriesLeftOut`) and that record names the per-series
//! step limit the query module sets.

pub mod error;
pub mod event;
pub mod fields;
pub mod id;
pub mod query;
pub(crate) mod spec;
pub mod status;
pub(in crate::calendar) mod written;
