//! The core loop against Xandikos, a second CalDAV server implementation
//! (from PyPI through scripts/xandikos-venv.sh), so the sync is not tuned to
//! Radicale's quirks. Xandikos serves without authentication on plain http
//! (its Basic auth needs TLS): the credentials the sync sends are ignored.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use almanac_testkit::{free_port, port_open};

use crate::publish::support::Server;

struct Xandikos {
    dir: tempfile::TempDir,
    port: u16,
    child: Option<Child>,
}

impl Xandikos {
    /// A running server with its default calendar.
    fn start() -> Xandikos {
        let mut server = Xandikos {
            dir: tempfile::tempdir().unwrap(),
            port: free_port(),
            child: None,
        };
        server.resume();
        server
    }
}

impl Server for Xandikos {
    fn collection(&self) -> String {
        format!("http://127.0.0.1:{}/user/calendars/calendar/", self.port)
    }
    fn user(&self) -> &str {
        "user"
    }
    fn password(&self) -> &str {
        "unused"
    }
    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
    fn resume(&mut self) {
        let root = self.dir.path();
        let child = Command::new(almanac_testkit::venv("xandikos-venv.sh").join("bin/xandikos"))
            .args(["serve", "--defaults", "-l", "127.0.0.1", "-p"])
            .arg(self.port.to_string())
            .arg("-d")
            .arg(root.join("dav"))
            .arg("--state-dir")
            .arg(root.join("state"))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("xandikos starts");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        while !port_open(self.port) {
            assert!(
                Instant::now() < deadline,
                "Xandikos did not start listening"
            );
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("Xandikos exited: {status}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Xandikos {
    fn drop(&mut self) {
        self.stop();
    }
}

#[test]
fn a_calendar_is_kept_both_ways_with_xandikos() {
    crate::publish::core_loop::runs_against(&mut Xandikos::start());
}

#[test]
fn a_collection_is_made_named_and_coloured_on_xandikos() {
    crate::publish::collection::is_made_named_and_coloured(&Xandikos::start());
}
