//! `Connection: close` on an answer given before the request body was read.
//!
//! A server that refuses a request early (401 before the credentials' body
//! is needed, 413 over the body limit, 421, 403) answers without reading
//! the body. hyper then cannot reuse the connection: it drains what has
//! already arrived and, if the rest is still on its way, closes the
//! connection after the answer, which says nothing about it. The client
//! puts the connection back in its pool and its next request on it fails
//! ("connection closed before message completed", "Remote end closed
//! connection without response"); whether it does depends on how far the
//! body had got when the answer went out. CalDAV clients hit this on every
//! sign-in: they send a request without credentials, get 401, and retry on
//! the same connection. Saying `Connection: close` on such answers makes
//! the client open a new connection instead.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Frame, SizeHint};

/// Middleware (`axum::middleware::from_fn`): marks an answer
/// `Connection: close` when the request's body was not read to its end.
pub async fn close_if_body_unread(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    if body.is_end_stream() {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let read = Arc::new(AtomicBool::new(false));
    let tracked = Body::new(Tracked {
        inner: body,
        read: read.clone(),
    });
    let mut response = next.run(Request::from_parts(parts, tracked)).await;
    if !read.load(Ordering::Acquire) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// A request body that records when it has been read to its end.
struct Tracked {
    inner: Body,
    read: Arc<AtomicBool>,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
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

    use super::*;
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
    async fn an_answer_before_the_body_is_read_closes_the_connection() {
        let server = Listening::bind(0, |_| {
            Router::new()
                .route("/refuse", post(|| async { "refused unread" }))
                .route(
                    "/read",
                    post(|body: String| async move { body.len().to_string() }),
                )
                .layer(axum::middleware::from_fn(close_if_body_unread))
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
