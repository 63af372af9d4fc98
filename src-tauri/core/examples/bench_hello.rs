//! The REST benchmark's baseline: a bare hyper HTTP/1.1 server answering
//! every request with `hello`, on the same runtime set-up as the REST server
//! (tokio multi-thread, one task per connection, `TCP_NODELAY`).
//!
//! `cargo run -p almanac-core --release --example bench_hello -- PORT`
//! (see `scripts/bench-rest.sh`).

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

async fn hello(_: Request<hyper::body::Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(b"hello"))))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(8541);
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
    println!("listening on {}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(hello))
                .await;
        });
    }
}
