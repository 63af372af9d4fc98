//! Publishing a vault calendar to a CalDAV account (`almanac_core::publish`)
//! against real servers, with the Python `caldav` library as the phone.

mod bench;
mod busy;
mod collection;
mod core_loop;
mod interpose;
mod kinds;
mod radicale;
mod support;
mod worker;
mod xandikos;
