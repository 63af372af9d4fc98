//! What every port does with a request body: a deadline for it to arrive,
//! and `Connection: close` on an answer given before it was read.
//!
//! **The deadline.** A body must arrive whole within
//! [`ConnectionLimits::body_read`](crate::ConnectionLimits) of the handler
//! starting to read it; past that, reading fails, the handler refuses the
//! request (`400`) and the connection closes. The clock is total, not per
//! chunk (tower-http's `RequestBodyTimeout` restarts at each chunk, which a
//! client sending a byte at a time never lets expire). Without it, such a
//! client holds a connection, and on the CalDAV port one of its few request
//! slots, for as long as it likes.
//!
//! **`Connection: close`.** A server that refuses a request early (401
//! before the credentials' body is needed, 413 over the body limit, 421,
//! 403) answers without reading the body. hyper then cannot reuse the
//! connection: it drains what has already arrived and, if the rest is still
//! on its way, closes the connection after the answer, which says nothing
//! about it. The client puts the connection back in its pool and its next
//! request on it fails ("connection closed before message completed",
//! "Remote end closed connection without response"); whether it does
//! depends on how far the body had got when the answer went out. CalDAV
//! clients hit this on every sign-in: they send a request without
//! credentials, get 401, and retry on the same connection. Saying
//! `Connection: close` on such answers makes the client open a new
//! connection instead.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Frame, SizeHint};
use tokio::time::Sleep;

/// Middleware (`axum::middleware::from_fn_with_state`, with the body
/// deadline): bounds the time the request's body may take, and marks the
/// answer `Connection: close` when the body was not read to its end.
pub(crate) async fn guard_body(
    State(deadline): State<Duration>,
    request: Request,
    next: Next,
) -> Response {
    let (parts, body) = request.into_parts();
    if body.is_end_stream() {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let read = Arc::new(AtomicBool::new(false));
    let tracked = Body::new(Tracked {
        inner: body,
        read: read.clone(),
        deadline,
        clock: None,
    });
    let mut response = next.run(Request::from_parts(parts, tracked)).await;
    if !read.load(Ordering::Acquire) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// A request body that records when it has been read to its end, and fails
/// once it has taken longer than its deadline.
struct Tracked {
    inner: Body,
    read: Arc<AtomicBool>,
    deadline: Duration,
    /// Started at the first read.
    clock: Option<Pin<Box<Sleep>>>,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let deadline = self.deadline;
        let clock = self
            .clock
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(deadline)));
        if clock.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(axum::Error::new(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("the request body took longer than {deadline:?} to arrive"),
            )))));
        }
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) || self.inner.is_end_stream() {
            self.read.store(true, Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::routing::post;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use crate::Listening;

    /// The answer head to `POST path` with a body, over raw TCP (so the
    /// test sees the headers exactly as sent).
    async fn head_of(server: &Listening, path: &str) -> String {
        let mut stream = tokio::net::TcpStream::connect(server.local_addr())
            .await
            .unwrap();
        let body = "x".repeat(1000);
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n\r\n{body}",
            server.local_addr(),
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut reply = Vec::new();
        let mut buf = [0; 4096];
        while !reply.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "no answer");
            reply.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&reply).to_lowercase()
    }

    #[tokio::test]
    async fn every_served_router_closes_after_answering_an_unread_body() {
        let server = Listening::bind(0, |_| {
            Router::new()
                .route("/refuse", post(|| async { "refused unread" }))
                .route(
                    "/read",
                    post(|body: String| async move { body.len().to_string() }),
                )
        })
        .await
        .unwrap();
        assert!(
            head_of(&server, "/refuse")
                .await
                .contains("connection: close")
        );
        assert!(
            !head_of(&server, "/read")
                .await
                .contains("connection: close")
        );
        server.shutdown().await;
    }
}
