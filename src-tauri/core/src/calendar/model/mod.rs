//! The model: what an event is, as clients see it and as the engine keeps
//! it, and the words every room speaks.
//!
//! - [`event`], [`fields`]: the event as queries return it, and what a client
//!   sends to create or update one;
//! - [`id`]: event ids, parsed and formatted in one place;
//! - [`query`]: the query filter, REST range bounds and the range semantics;
//! - [`status`]: what the engine reports about itself;
//! - [`error`]: the engine's one error type;
//! - `spec`: the validated internal form every source converts to.
//!
//! May import: `series` (a spec's span and rule text), `write::written`
//! (the rules a client's fields meet) and the source registry (`kinds`).
//! Nothing here knows the engine, the index or a source's reader.

pub mod error;
pub mod event;
pub mod fields;
pub mod id;
pub mod query;
pub(crate) mod spec;
pub mod status;
