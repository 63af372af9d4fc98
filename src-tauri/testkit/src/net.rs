//! Loopback ports for servers under test.

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::time::Duration;

/// A loopback port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Whether something accepts connections on `127.0.0.1:port`.
pub fn port_open(port: u16) -> bool {
    TcpStream::connect_timeout(&(Ipv4Addr::LOCALHOST, port).into(), Duration::from_secs(2)).is_ok()
}

/// A minimal HTTP server on loopback, for feeds and other remote ends: for
/// each connection it reads the request head, counts the request, and lets
/// `respond` write the whole answer. Runs until the test process ends.
pub struct HttpStub {
    pub addr: std::net::SocketAddr,
    requests: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl HttpStub {
    pub fn start(respond: impl Fn(&mut TcpStream) + Send + 'static) -> HttpStub {
        use std::io::{BufRead, BufReader};
        use std::sync::atomic::Ordering;
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("a loopback port");
        let addr = listener.local_addr().expect("a bound address");
        let requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let Ok(read_half) = stream.try_clone() else {
                    continue;
                };
                let mut reader = BufReader::new(read_half);
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                    line.clear();
                }
                seen.fetch_add(1, Ordering::SeqCst);
                respond(&mut stream);
            }
        });
        HttpStub { addr, requests }
    }

    /// How many requests arrived so far.
    pub fn requests(&self) -> usize {
        self.requests.load(std::sync::atomic::Ordering::SeqCst)
    }
}
