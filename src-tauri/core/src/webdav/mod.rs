//! WebDAV, the protocol under CalDAV, as both of Almanac's CalDAV sides
//! speak it: the server (`crate::caldav_server`) and the client of a CalDAV
//! calendar source (`crate::calendar::sources::caldav`).
//!
//! - [`xml`]: bodies read into a namespace-resolved tree, and the namespaces.

pub mod xml;
