//! iCalendar (RFC 5545) for the events Almanac serves: writing them as
//! `VCALENDAR` text (the CalDAV server's resources and the subscription
//! feed), and reading a client's `VEVENT` back into [`EventFields`] for the
//! calendar engine's ordinary create / update path.
//!
//! - [`write`]: events → `VCALENDAR` (with `VTIMEZONE`s for the zones used,
//!   `DTSTAMP`, `UID`, `RRULE` / `EXDATE` for series, `VALARM`s);
//! - [`bounds`]: the checks every iCalendar text from outside passes
//!   before the (recursive) parser sees it;
//! - [`events`]: a whole `VCALENDAR` (a feed, a CalDAV calendar's
//!   resources, a vault `.ics` file, the shipped holidays) → the cache's
//!   events, with [`values`] (property values: DATE, DATE-TIME, DURATION,
//!   PERIOD) and [`zone`] (`TZID`s and `VTIMEZONE`s to IANA zones);
//! - [`read`]: a client's `VCALENDAR` → the fields of one event;
//! - [`todo`]: tasks as `VTODO`s, served and read back;
//! - [`series`]: the same for a series with modified or cancelled
//!   occurrences (`RECURRENCE-ID`);
//! - `rule`: a series' `RRULE` and its first occurrence;
//! - `vtimezone`: `VTIMEZONE` definitions from the IANA database;
//! - `text`: content lines (escaping, folding).
//!
//! [`events`] reads whatever a calendar contains into the cache, while
//! [`read`] maps one client edit onto the writable fields of a note; both
//! resolve zones through [`zone`]. Fetching a feed is the `ical` source
//! kind's (`calendar::sources::ical`).
//!
//! [`EventFields`]: crate::calendar::EventFields

pub mod bounds;
pub mod events;
pub mod read;
mod rule;
pub mod series;
pub(crate) mod text;
pub mod todo;
pub mod values;
mod vtimezone;
pub mod write;
pub(crate) mod zone;
