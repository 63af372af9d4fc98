//! The real Radicale server the tests start (shared with the window tests).

pub use almanac_testkit::radicale::*;
