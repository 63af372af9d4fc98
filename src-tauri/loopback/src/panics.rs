//! A panic while answering a request is a bug: it is logged, the client gets
//! the server's own JSON `500`, and the server keeps serving. Both servers
//! put [`PanicAnswer::layer`] around their routes; panics in blocking work
//! they await come back through [`crate::blocking`].

use std::any::Any;

use axum::body::Body;
use axum::response::Response;
use tower_http::catch_panic::{CatchPanicLayer, ResponseForPanic};

use crate::blocking::panic_message;

/// How one server answers a panic.
#[derive(Debug, Clone, Copy)]
pub struct PanicAnswer {
    /// Whose handler panicked, for the log.
    pub server: &'static str,
    /// The server's `500`, in its error shape; never the panic's details.
    pub internal_error: fn() -> Response,
}

impl PanicAnswer {
    /// The layer that catches panics in the handlers (and layers) inside it.
    pub fn layer(self) -> CatchPanicLayer<Self> {
        CatchPanicLayer::custom(self)
    }

    /// Logs the panic and answers it.
    pub fn answer(&self, panic: Box<dyn Any + Send + 'static>) -> Response {
        let what = panic_message(panic.as_ref());
        tracing::error!(panic = what, "{} handler panicked", self.server);
        (self.internal_error)()
    }
}

impl ResponseForPanic for PanicAnswer {
    type ResponseBody = Body;

    fn response_for_panic(&mut self, panic: Box<dyn Any + Send + 'static>) -> Response {
        self.answer(panic)
    }
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    use axum::routing::get;

    use super::*;
    use crate::Listening;

    const ANSWER: PanicAnswer = PanicAnswer {
        server: "test",
        internal_error: || (StatusCode::INTERNAL_SERVER_ERROR, "our own 500").into_response(),
    };

    async fn boom() -> &'static str {
        panic!("secret detail")
    }

    #[tokio::test]
    async fn a_panicking_handler_gets_the_servers_500_and_the_server_lives_on() {
        let server = Listening::bind(0, |_| {
            Router::new()
                .route("/boom", get(boom))
                .route("/fine", get(|| async { "fine" }))
                .layer(ANSWER.layer())
        })
        .await
        .unwrap();
        let base = format!("http://{}", server.local_addr());
        let response = reqwest::get(format!("{base}/boom")).await.unwrap();
        assert_eq!(response.status(), 500);
        assert_eq!(response.text().await.unwrap(), "our own 500");
        let response = reqwest::get(format!("{base}/fine")).await.unwrap();
        assert_eq!(response.text().await.unwrap(), "fine");
        server.shutdown().await;
    }
}
