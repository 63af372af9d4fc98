//! The real Radicale server the CalDAV kind reads.

pub use almanac_testkit::radicale::*;
