//! Shared harness of the black-box tests: a real daemon on 127.0.0.1:0 with
//! a real sled store in a temp dir, reached over real HTTP. The notifier and
//! opener record into channels so tests await events instead of sleeping.

#![allow(dead_code)] // not every part of the harness is used by a test today

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use almanac_reminders::{
    Daemon, DaemonConfig, DaemonHandle, Notification, Notifier, NotifierInfo, OpenError, Opener,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

/// Generous: a loaded 2-core machine can be slow, and no assertion is about
/// speed.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// Records every notification.
pub struct ChannelNotifier(pub mpsc::UnboundedSender<Notification>);

impl Notifier for ChannelNotifier {
    fn notify(&self, notification: Notification) {
        let _ = self.0.send(notification);
    }

    fn info(&self) -> NotifierInfo {
        NotifierInfo {
            backend: "test".into(),
            actions_supported: true,
            ..NotifierInfo::default()
        }
    }
}

/// Records every opened URL.
pub struct ChannelOpener(pub mpsc::UnboundedSender<String>);

impl Opener for ChannelOpener {
    fn open(&self, url: &str) -> Result<(), OpenError> {
        let _ = self.0.send(url.to_string());
        Ok(())
    }
}

pub fn now_epoch() -> i64 {
    almanac_reminders::clock::now_epoch()
}

/// A reminder element as a host sends it.
pub fn reminder(id: &str, trigger_at_epoch: i64) -> Value {
    json!({
        "id": id,
        "title": format!("Title {id}"),
        "body": format!("Body {id}"),
        "trigger_at_epoch": trigger_at_epoch,
        "action_url": format!("obsidian://open?file={id}"),
    })
}

/// One element as the plugin's host builds it for a Full Note event.
pub fn plugin_item(day: &str, time: &str, title: &str, trigger_at_epoch: i64) -> Value {
    let file = format!("events/{day} {title}.md");
    json!({
        "id": format!("fullnote:{file}::{day}T{time}"),
        "title": title,
        "body": format!("{day} {time}"),
        "trigger_at_epoch": trigger_at_epoch,
        "action_url": format!(
            "obsidian://open?vault=My%20Vault&file={}",
            file.replace('/', "%2F").replace(' ', "%20")
        ),
    })
}

/// One running daemon plus what it notified and opened.
pub struct TestDaemon {
    pub handle: Option<DaemonHandle>,
    pub base: String,
    pub client: reqwest::Client,
    pub notifications: mpsc::UnboundedReceiver<Notification>,
    pub opened: mpsc::UnboundedReceiver<String>,
    pub db_path: PathBuf,
}

pub fn config(db_path: &Path) -> DaemonConfig {
    DaemonConfig {
        port: 0,
        ..DaemonConfig::new(db_path)
    }
}

impl TestDaemon {
    pub async fn start(dir: &Path) -> Self {
        Self::start_with(config(&dir.join("reminders.sled"))).await
    }

    pub async fn start_with(config: DaemonConfig) -> Self {
        let (notify_tx, notifications) = mpsc::unbounded_channel();
        let (open_tx, opened) = mpsc::unbounded_channel();
        let db_path = config.db_path.clone();
        let diagnostics: almanac_reminders::DiagnosticsProvider =
            Arc::new(|| json!({"keyring": "unlocked", "rest_server": "disabled"}));
        let handle = Daemon::start(
            config,
            Arc::new(ChannelNotifier(notify_tx)),
            Arc::new(ChannelOpener(open_tx)),
            Some(diagnostics),
        )
        .await
        .expect("daemon starts");
        Self {
            base: format!("http://{}", handle.addr()),
            handle: Some(handle),
            client: reqwest::Client::new(),
            notifications,
            opened,
            db_path,
        }
    }

    pub fn handle(&self) -> &DaemonHandle {
        self.handle.as_ref().expect("running")
    }

    pub async fn stop(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.shutdown().await;
        }
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let response = self
            .client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("request");
        read(response).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        self.post_raw(path, "application/json", body.to_string())
            .await
    }

    pub async fn post_raw(
        &self,
        path: &str,
        content_type: &str,
        body: impl Into<reqwest::Body>,
    ) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}{path}", self.base))
            .header("content-type", content_type)
            .body(body)
            .send()
            .await
            .expect("request");
        read(response).await
    }

    pub async fn sync(&self, reminders: &[Value]) -> Value {
        let (status, body) = self.post("/sync", &Value::from(reminders.to_vec())).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// The ids of `/events`, in order.
    pub async fn event_ids(&self) -> Vec<String> {
        let (_, body) = self.get("/events").await;
        body["events"]
            .as_array()
            .expect("events array")
            .iter()
            .map(|e| e["id"].as_str().unwrap().to_string())
            .collect()
    }

    pub async fn next_notification(&mut self) -> Notification {
        tokio::time::timeout(TIMEOUT, self.notifications.recv())
            .await
            .expect("a notification in time")
            .expect("notifier alive")
    }

    pub async fn next_opened(&mut self) -> String {
        tokio::time::timeout(TIMEOUT, self.opened.recv())
            .await
            .expect("an opened URL in time")
            .expect("opener alive")
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        self.handle().addr()
    }
}

async fn read(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    let body =
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("non-JSON body ({status}): {text}"));
    (status, body)
}

/// Sends `request` as raw bytes (for headers a client library would not
/// send) and returns the status and the JSON body.
pub async fn raw_request(addr: std::net::SocketAddr, request: &str) -> (u16, Value, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut response = Vec::new();
    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut response))
        .await
        .expect("response in time")
        .expect("read");
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let body = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(body).unwrap_or_else(|_| panic!("non-JSON body: {body:?}"))
    };
    (status, body, head.to_string())
}
