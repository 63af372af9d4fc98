//! One attempt: the signed POST and what came of it.
//!
//! No network guard on the address: only the user sets a hook (no token
//! can), and pointing one at a script on this machine or a home server on
//! the LAN is the common case, which the feeds' guard exists to refuse for
//! URLs a script could choose. What stays refused: redirects (a 3xx is a
//! failed attempt, so a signed body only ever goes to the URL the user
//! typed) and proxies (a delivery to loopback must not leave the machine).

use std::time::Duration;

use chrono::Utc;

use super::signing::signature;

/// What a delivery is: its stable id and the exact body signed.
pub struct Outgoing<'a> {
    pub webhook_id: &'a str,
    pub body: &'a [u8],
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The receiver answered 2xx.
    Delivered(u16),
    /// Another status, or no answer; `error` says what, for the log.
    Failed { status: Option<u16>, error: String },
}

/// The client every attempt uses.
pub fn client(timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout)
        .user_agent(concat!("Almanac-Webhooks/", env!("CARGO_PKG_VERSION")))
        .build()
        .expect("a client without TLS roots or proxy settings to load builds")
}

/// POSTs `outgoing` to `url`, signed with `key` at the current second.
pub async fn attempt(
    client: &reqwest::Client,
    url: &str,
    key: &[u8],
    outgoing: &Outgoing<'_>,
) -> Outcome {
    let timestamp = Utc::now().timestamp();
    let signed = signature(key, outgoing.webhook_id, timestamp, outgoing.body);
    let sent = client
        .post(url)
        .header("content-type", "application/json")
        .header("webhook-id", outgoing.webhook_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signed)
        .body(outgoing.body.to_vec())
        .send()
        .await;
    match sent {
        Ok(answer) if answer.status().is_success() => Outcome::Delivered(answer.status().as_u16()),
        Ok(answer) => {
            let status = answer.status();
            let error = if status.is_redirection() {
                format!("HTTP {status}: redirects are not followed")
            } else {
                format!("HTTP {status}")
            };
            Outcome::Failed {
                status: Some(status.as_u16()),
                error,
            }
        }
        Err(error) => Outcome::Failed {
            status: None,
            error: describe(&error),
        },
    }
}

/// A transport error in a few words (reqwest's own text names the URL,
/// which the log already has).
fn describe(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        "no answer in time".into()
    } else if error.is_connect() {
        "could not connect".into()
    } else {
        let mut text = error.to_string();
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            text = format!("{text}: {cause}");
            source = cause.source();
        }
        text
    }
}
