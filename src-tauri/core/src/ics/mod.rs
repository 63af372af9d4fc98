//! iCalendar (RFC 5545) for the events Almanac serves: writing them as
//! `VCALENDAR` text (the CalDAV server's resources and the subscription
//! feed), and reading a client's `VEVENT` back into [`EventFields`] for the
//! calendar engine's ordinary create / update path.
//!
//! - [`write`]: events → `VCALENDAR` (with `VTIMEZONE`s for the zones used,
//!   `DTSTAMP`, `UID`, `RRULE` / `EXDATE` for series, `VALARM`s);
//! - [`bounds`]: the checks every iCalendar text from outside passes
//!   before the (recursive) parser sees it;
//! - [`values`] (property values: DATE, DATE-TIME, DURATION, PERIOD) and
//!   [`zone`] (`TZID`s and `VTIMEZONE`s to IANA zones), with which the
//!   engine's `calendar::sources::vcalendar` reads a whole `VCALENDAR` (a
//!   feed, a CalDAV calendar, a vault `.ics` file, the holidays) into its
//!   cache;
//! - [`read`]: a client's `VCALENDAR` → the fields of one event;
//! - [`todo`]: tasks as `VTODO`s, served and read back;
//! - [`series`]: the same for a series with modified or cancelled
//!   occurrences (`RECURRENCE-ID`);
//! - `rule`: a series' `RRULE` and its first occurrence;
//! - `vtimezone`: `VTIMEZONE` definitions from the IANA database;
//! - `text`: content lines (escaping, folding).
//!
//! The engine's reader takes whatever a calendar contains into its cache,
//! while [`read`] maps one client edit onto the writable fields of a note;
//! both resolve zones through [`zone`]. Nothing here imports the engine:
//! the event model it reads into and writes from is `almanac_model`'s. Fetching a feed is the `ical` source
//! kind's (`calendar::sources::ical`).
//!
//! [`EventFields`]: almanac_model::fields::EventFields

pub mod bounds;
pub mod read;
mod rule;
pub mod series;
pub(crate) mod text;
pub mod todo;
pub mod values;
mod vtimezone;
pub mod write;
pub(crate) mod zone;
