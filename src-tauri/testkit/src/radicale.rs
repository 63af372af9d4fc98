//! A real Radicale CalDAV server on a free loopback port: htpasswd plain
//! auth, filesystem storage in a temporary folder, installed from PyPI into a
//! cached venv by scripts/radicale-venv.sh (a failed install fails the test).
//! For the CalDAV source tests of the core and the window tests.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{free_port, port_open};

pub const USER: &str = "alice";
pub const PASSWORD: &str = "correct horse";

const MKCALENDAR: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:a="http://apple.com/ns/ical/">
<d:set><d:prop><d:displayname>Work</d:displayname><a:calendar-color>#3366ccff</a:calendar-color></d:prop></d:set>
</c:mkcalendar>"#;

/// Rights (Radicale's `from_file` form, first match wins) that let a user
/// find and read their calendars (`R`: the root and their principal, `r`:
/// a calendar and its events) and write nothing.
const READ_ONLY_RIGHTS: &str = "[principal]\nuser: .+\ncollection: {user}\npermissions: R\n\
[calendars]\nuser: .+\ncollection: {user}/[^/]+\npermissions: r\n\
[root]\nuser: .+\ncollection:\npermissions: R\n";

pub struct Radicale {
    pub dir: tempfile::TempDir,
    pub port: u16,
    child: Option<Child>,
}

impl Radicale {
    /// A running server holding user `alice`'s empty calendar `work`.
    pub fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("users"), format!("{USER}:{PASSWORD}\n")).unwrap();
        let mut server = Radicale {
            port: free_port(),
            dir,
            child: None,
        };
        // Another test's server can take the port between `free_port` and
        // Radicale's bind: ours then exits, and the port answers for the
        // other one, whose `work` calendar already exists (409). A fresh
        // storage never holds it, so start again on another port.
        for _ in 0..5 {
            server.resume();
            if server.try_mkcalendar("work", "Work") == 201 {
                return server;
            }
            server.stop();
            server.port = free_port();
        }
        panic!("Radicale found no port of its own in five tries");
    }

    /// Makes user `alice`'s calendar `/alice/<name>/`, shown as `display`.
    pub fn mkcalendar(&self, name: &str, display: &str) {
        assert_eq!(self.try_mkcalendar(name, display), 201, "MKCALENDAR");
    }

    /// [`Radicale::mkcalendar`], answering the status.
    fn try_mkcalendar(&self, name: &str, display: &str) -> u16 {
        reqwest::blocking::Client::new()
            .request(
                reqwest::Method::from_bytes(b"MKCALENDAR").unwrap(),
                self.url(&format!("/alice/{name}/")),
            )
            .basic_auth(USER, Some(self.password()))
            .body(MKCALENDAR.replace("Work", display))
            .send()
            .unwrap()
            .status()
            .as_u16()
    }

    /// Changes `alice`'s password on the server (Radicale rereads the file).
    pub fn set_password(&self, password: &str) {
        std::fs::write(
            self.dir.path().join("users"),
            format!("{USER}:{password}\n"),
        )
        .unwrap();
    }

    /// `alice`'s current password.
    fn password(&self) -> String {
        let users = std::fs::read_to_string(self.dir.path().join("users")).unwrap();
        users.trim_end().split_once(':').unwrap().1.to_string()
    }

    /// Starts (again) on the same port and storage; returns once it listens.
    pub fn resume(&mut self) {
        self.resume_with("[rights]\ntype = owner_only\n");
    }

    /// [`Radicale::resume`], with `alice` allowed to read her calendars
    /// but not to write them: every PUT and DELETE is answered `403`.
    pub fn resume_read_only(&mut self) {
        let rights = self.dir.path().join("rights");
        std::fs::write(&rights, READ_ONLY_RIGHTS).unwrap();
        self.resume_with(&format!(
            "[rights]\ntype = from_file\nfile = {}\n",
            rights.display()
        ));
    }

    /// Starts on the port and storage with the `[rights]` section `rights`.
    fn resume_with(&mut self, rights: &str) {
        let root = self.dir.path();
        let config = root.join("config");
        std::fs::write(
            &config,
            format!(
                "[server]\nhosts = 127.0.0.1:{port}\n\
                 [auth]\ntype = htpasswd\nhtpasswd_filename = {users}\nhtpasswd_encryption = plain\n\
                 [storage]\nfilesystem_folder = {storage}\n\
                 {rights}\
                 [logging]\nlevel = warning\n",
                port = self.port,
                users = root.join("users").display(),
                storage = root.join("collections").display(),
            ),
        )
        .unwrap();
        let child = Command::new(crate::venv("radicale-venv.sh").join("bin/radicale"))
            .arg("--config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("radicale starts");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        while !port_open(self.port) {
            assert!(
                Instant::now() < deadline,
                "Radicale did not start listening"
            );
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("Radicale exited: {status}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the server (the storage stays).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// The calendar's URL.
    pub fn calendar(&self) -> String {
        self.url("/alice/work/")
    }

    /// PUTs an event resource as another client would; returns its ETag.
    pub fn put(&self, name: &str, ics: &str) -> String {
        let response = reqwest::blocking::Client::new()
            .put(self.url(&format!("/alice/work/{name}")))
            .basic_auth(USER, Some(PASSWORD))
            .header("Content-Type", "text/calendar")
            .body(ics.to_string())
            .send()
            .unwrap();
        assert!(
            response.status().is_success(),
            "PUT {name}: {}",
            response.status()
        );
        response.headers()["etag"].to_str().unwrap().to_string()
    }

    /// The PROPFIND (depth 1) answer of the collection at `url`: its own
    /// name and colour, and an entry (`….ics`) per event resource in it.
    pub fn listing(&self, url: &str) -> String {
        let response = reqwest::blocking::Client::new()
            .request(reqwest::Method::from_bytes(b"PROPFIND").unwrap(), url)
            .basic_auth(USER, Some(PASSWORD))
            .header("Depth", "1")
            .body(
                r#"<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:a="http://apple.com/ns/ical/"><d:prop><d:displayname/><a:calendar-color/><d:getetag/></d:prop></d:propfind>"#,
            )
            .send()
            .unwrap();
        assert_eq!(response.status().as_u16(), 207, "PROPFIND {url}");
        response.text().unwrap()
    }

    /// GETs an event resource: `None` when it is gone.
    pub fn get(&self, name: &str) -> Option<String> {
        let response = reqwest::blocking::Client::new()
            .get(self.url(&format!("/alice/work/{name}")))
            .basic_auth(USER, Some(PASSWORD))
            .send()
            .unwrap();
        (response.status() != 404).then(|| response.text().unwrap())
    }

    /// DELETEs an event resource as another client would.
    pub fn delete(&self, name: &str) {
        let response = reqwest::blocking::Client::new()
            .delete(self.url(&format!("/alice/work/{name}")))
            .basic_auth(USER, Some(PASSWORD))
            .send()
            .unwrap();
        assert!(
            response.status().is_success(),
            "DELETE {name}: {}",
            response.status()
        );
    }
}

impl Drop for Radicale {
    fn drop(&mut self) {
        self.stop();
    }
}
