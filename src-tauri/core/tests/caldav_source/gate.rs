//! A loopback relay in front of a server that can hold requests: once
//! closed, the next `REPORT` (a sync asking what changed) waits in the
//! relay until it is opened again, so a test can change things while a
//! sync is in flight, at a moment it knows.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};

use almanac_testkit::wait::PATIENCE;

#[derive(Default)]
struct State {
    closed: bool,
    /// Requests held so far.
    held: usize,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

pub struct Gate {
    pub port: u16,
    shared: Arc<Shared>,
}

impl Gate {
    /// Relays every connection to `127.0.0.1:upstream`, until the test
    /// process ends.
    pub fn start(upstream: u16) -> Gate {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared::default());
        let relays = shared.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let shared = relays.clone();
                std::thread::spawn(move || relay(client, upstream, &shared));
            }
        });
        Gate { port, shared }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Holds the next `REPORT`s until [`Gate::open`].
    pub fn close(&self) {
        self.shared.state.lock().unwrap().closed = true;
    }

    /// Waits until a `REPORT` is held.
    pub fn wait_held(&self) {
        let state = self.shared.state.lock().unwrap();
        let (state, _) = self
            .shared
            .changed
            .wait_timeout_while(state, PATIENCE, |state| state.held == 0)
            .unwrap();
        assert!(state.held > 0, "timed out waiting for a sync's REPORT");
    }

    /// Lets the held requests, and every later one, through.
    pub fn open(&self) {
        self.shared.state.lock().unwrap().closed = false;
        self.shared.changed.notify_all();
    }
}

/// Copies one connection both ways, holding a request that starts with
/// `REPORT` while the gate is closed. A client sends its next request only
/// once it has the last answer, so each request starts a read.
fn relay(mut client: TcpStream, upstream: u16, shared: &Shared) {
    let Ok(mut server) = TcpStream::connect((Ipv4Addr::LOCALHOST, upstream)) else {
        return;
    };
    let (Ok(mut answers), Ok(mut to_client)) = (server.try_clone(), client.try_clone()) else {
        return;
    };
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut answers, &mut to_client);
        let _ = to_client.shutdown(Shutdown::Write);
    });
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = match client.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        if buffer[..read].starts_with(b"REPORT ") {
            let mut state = shared.state.lock().unwrap();
            if state.closed {
                state.held += 1;
                shared.changed.notify_all();
                drop(
                    shared
                        .changed
                        .wait_while(state, |state| state.closed)
                        .unwrap(),
                );
            }
        }
        if server.write_all(&buffer[..read]).is_err() {
            break;
        }
    }
    let _ = server.shutdown(Shutdown::Write);
}
