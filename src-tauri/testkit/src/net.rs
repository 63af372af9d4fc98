//! Loopback ports for servers under test.

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::time::Duration;

/// A loopback port nobody listens on right now.
///
/// Never one of Almanac's default ports: a test instance keeps some of them
/// in its settings (unbound), and the settings refuse two servers on one
/// port, so a free port that happens to be a default would fail the test.
pub fn free_port() -> u16 {
    let defaults = almanac_core::settings::Settings::default();
    let taken = [
        defaults.local_server_port,
        defaults.reminders.daemon_port,
        defaults.caldav_server.port,
    ];
    loop {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|listener| listener.local_addr())
            .expect("a free loopback port")
            .port();
        if !taken.contains(&port) {
            return port;
        }
    }
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

/// Checks that a server on `addr` drops a slowloris client after its
/// ten-second header-read timeout (and not much later): every port serves
/// within the same connection bounds (`almanac_loopback::connections`).
pub async fn assert_trickled_headers_dropped_after_ten_seconds(addr: std::net::SocketAddr) {
    let lasted = tokio::task::spawn_blocking(move || trickled_headers_last(addr))
        .await
        .expect("the slow client ran");
    assert!(lasted >= Duration::from_secs(10), "{lasted:?}");
    assert!(lasted < Duration::from_secs(20), "{lasted:?}");
}

/// A slowloris client: connects to `addr`, starts a request and then sends
/// one more header byte every 200 ms, never finishing the head. Returns how
/// long the server kept the connection open (until it closed or reset it).
/// Blocking; gives up after 60 s.
fn trickled_headers_last(addr: std::net::SocketAddr) -> Duration {
    use std::io::{Read, Write};
    let started = std::time::Instant::now();
    let mut stream = TcpStream::connect(addr).expect("the server accepts");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("a read timeout");
    let mut writer = stream.try_clone().expect("a second handle");
    std::thread::spawn(move || {
        let head = format!("GET / HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ");
        if writer.write_all(head.as_bytes()).is_err() {
            return;
        }
        while writer.write_all(b"x").is_ok() {
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    let mut buf = [0; 1024];
    while let Ok(1..) = stream.read(&mut buf) {}
    started.elapsed()
}
