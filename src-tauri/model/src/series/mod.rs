//! Series: from dates and wall-clock times to instants, and from a
//! recurring event to its occurrences.
//!
//! - `recurrence`: time spans and series expansion;
//! - `recurrence_set`: the iCalendar series (several rules, RDATE, EXDATE,
//!   EXRULE);
//! - `rule_parse`: the one door to the `rrule` crate; `rule_text`: RRULE
//!   text shared with the iCalendar writer;
//! - `memo`: the bounded, engine-wide memo of expanded series years.
//!
//! May import: the rest of the model and its cost ceiling (`budget`), which
//! every expansion spends from. Nothing here knows the engine or a source.
//!
//! One circle inside: `recurrence` ↔ `recurrence_set`, as a series is
//! expanded by `recurrence`, which hands iCalendar sets to `recurrence_set`,
//! and a set's occurrences are `recurrence`'s (`Occurrence`, `Window`).

pub mod memo;
pub mod recurrence;
pub mod recurrence_set;
pub mod rule_parse;
pub mod rule_text;
