//! A loopback proxy in front of a real CalDAV server, which the sync goes
//! through: it forwards every request as it is, and can run one action (the
//! phone writing) just before it forwards the next `PUT` — so the resource
//! changes between the sync's read and its write, and the write meets a
//! `412`, as when a phone syncs at the same moment. It also counts the
//! requests and the bytes that pass (what a sync costs on the wire).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

type Action = Box<dyn FnOnce() + Send>;

/// What passed through: requests, and bytes both ways (heads and bodies).
#[derive(Default)]
pub struct Traffic {
    pub requests: AtomicUsize,
    pub sent: AtomicUsize,
    pub received: AtomicUsize,
}

pub struct Interposer {
    addr: SocketAddr,
    /// The server's origin (`http://127.0.0.1:PORT`).
    upstream: String,
    before_put: Arc<Mutex<Option<Action>>>,
    pub traffic: Arc<Traffic>,
}

impl Interposer {
    /// A proxy to the server of `collection` (an absolute URL).
    pub fn start(collection: &str) -> Interposer {
        let url = reqwest::Url::parse(collection).unwrap();
        let upstream = url.origin().ascii_serialization();
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let addr = listener.local_addr().unwrap();
        let before_put: Arc<Mutex<Option<Action>>> = Arc::default();
        let traffic: Arc<Traffic> = Arc::default();
        let (origin, armed, counted) = (upstream.clone(), before_put.clone(), traffic.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (origin, armed, counted) = (origin.clone(), armed.clone(), counted.clone());
                std::thread::spawn(move || serve(stream, &origin, &armed, &counted));
            }
        });
        Interposer {
            addr,
            upstream,
            before_put,
            traffic,
        }
    }

    /// `url` (on the server) as reached through the proxy.
    pub fn url(&self, url: &str) -> String {
        url.replacen(&self.upstream, &format!("http://{}", self.addr), 1)
    }

    /// Runs `action` before forwarding the next `PUT`, once.
    pub fn before_next_put(&self, action: impl FnOnce() + Send + 'static) {
        *self.before_put.lock().unwrap() = Some(Box::new(action));
    }
}

/// Forwards the requests of one connection (kept alive) to `origin`.
fn serve(stream: TcpStream, origin: &str, armed: &Mutex<Option<Action>>, traffic: &Traffic) {
    let client = reqwest::blocking::Client::new();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut head = String::new();
        if reader.read_line(&mut head).unwrap_or(0) == 0 {
            return;
        }
        let mut sent = head.len();
        let mut parts = head.split_whitespace();
        let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
            return;
        };
        let (method, path) = (method.to_string(), path.to_string());
        let mut headers = Vec::new();
        let mut length = 0;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            sent += line.len();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            let (name, value) = (name.trim().to_string(), value.trim().to_string());
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse().unwrap();
            }
            headers.push((name, value));
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        traffic.requests.fetch_add(1, Ordering::SeqCst);
        traffic.sent.fetch_add(sent + length, Ordering::SeqCst);
        if method == "PUT" {
            let action = armed.lock().unwrap().take();
            if let Some(action) = action {
                action();
            }
        }
        let mut request = client.request(
            reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
            format!("{origin}{path}"),
        );
        for (name, value) in &headers {
            let skipped = ["host", "content-length", "connection"];
            if !skipped.iter().any(|s| name.eq_ignore_ascii_case(s)) {
                request = request.header(name, value);
            }
        }
        // The server stopped: the connection closes, as the server's would.
        let Ok(response) = request.body(body).send() else {
            return;
        };
        let status = response.status();
        let mut answer = format!(
            "HTTP/1.1 {} {}\r\n",
            status.as_u16(),
            status.canonical_reason().unwrap_or("")
        );
        for (name, value) in response.headers() {
            let skipped = ["transfer-encoding", "content-length", "connection"];
            if !skipped
                .iter()
                .any(|s| name.as_str().eq_ignore_ascii_case(s))
            {
                answer.push_str(&format!("{name}: {}\r\n", value.to_str().unwrap()));
            }
        }
        let bytes = response.bytes().unwrap();
        answer.push_str(&format!("Content-Length: {}\r\n\r\n", bytes.len()));
        traffic
            .received
            .fetch_add(answer.len() + bytes.len(), Ordering::SeqCst);
        writer.write_all(answer.as_bytes()).unwrap();
        writer.write_all(&bytes).unwrap();
    }
}
