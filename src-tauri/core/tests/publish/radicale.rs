//! The core loop against Radicale.

use almanac_testkit::radicale::{PASSWORD, Radicale, USER};

use crate::publish::support::Server;

impl Server for Radicale {
    fn collection(&self) -> String {
        self.calendar()
    }
    fn user(&self) -> &str {
        USER
    }
    fn password(&self) -> &str {
        PASSWORD
    }
    fn stop(&mut self) {
        Radicale::stop(self)
    }
    fn resume(&mut self) {
        Radicale::resume(self)
    }
}

#[test]
fn a_calendar_is_kept_both_ways_with_radicale() {
    crate::publish::core_loop::runs_against(&mut Radicale::start());
}
