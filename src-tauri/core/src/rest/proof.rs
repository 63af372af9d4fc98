//! The instance's proof on every answer to a request that asks for it
//! ([`crate::instance_proof`]): a client checks it before sending a token.
//! It is added whatever the answer (a `401` for the token-less probe
//! included), so it needs no route of its own.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

use crate::instance_proof::{CHALLENGE_HEADER, InstanceKey, PROOF_HEADER};

pub async fn answer(
    State(key): State<Option<Arc<InstanceKey>>>,
    request: Request,
    next: Next,
) -> Response {
    let proof = key.as_ref().and_then(|key| {
        let challenge = request.headers().get(CHALLENGE_HEADER)?.to_str().ok()?;
        key.prove(challenge)
    });
    let mut response = next.run(request).await;
    if let Some(proof) = proof.and_then(|proof| HeaderValue::from_str(&proof).ok()) {
        response.headers_mut().insert(PROOF_HEADER, proof);
    }
    response
}
