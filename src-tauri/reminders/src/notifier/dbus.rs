//! Native notifications over D-Bus (`org.freedesktop.Notifications`).
//!
//! One task owns the connection: it sends `Notify` calls in the order the
//! scheduler fired them, and listens for `ActionInvoked` to open the
//! reminder's URL or snooze it. The server's name and capabilities are
//! queried once at connect time and cached for `/doctor`.

use std::collections::HashMap;

use futures_util::StreamExt;
use tokio::sync::mpsc;
use zbus::zvariant::Value;

use super::{Notification, Notifier, NotifierInfo, ReminderActions, summary_text};

/// Snooze buttons offered on a reminder (minutes, label).
const SNOOZE_ACTIONS: [(i64, &str); 2] = [(10, "Snooze 10 min"), (60, "Snooze 1 hour")];
/// Notifications whose actions are remembered; older ones are forgotten
/// when servers never report them closed.
const MAX_TRACKED: usize = 512;

#[zbus::proxy(
    interface = "org.freedesktop.Notifications",
    default_service = "org.freedesktop.Notifications",
    default_path = "/org/freedesktop/Notifications"
)]
trait Notifications {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &self,
        app_name: &str,
        replaces_id: u32,
        app_icon: &str,
        summary: &str,
        body: &str,
        actions: &[&str],
        hints: HashMap<&str, Value<'_>>,
        expire_timeout: i32,
    ) -> zbus::Result<u32>;

    fn get_capabilities(&self) -> zbus::Result<Vec<String>>;

    fn get_server_information(&self) -> zbus::Result<(String, String, String, String)>;

    #[zbus(signal)]
    fn action_invoked(&self, id: u32, action_key: String) -> zbus::Result<()>;

    #[zbus(signal)]
    fn notification_closed(&self, id: u32, reason: u32) -> zbus::Result<()>;
}

/// Notifications through the session bus's notification server.
pub struct DbusNotifier {
    queue: mpsc::UnboundedSender<Notification>,
    info: NotifierInfo,
}

impl DbusNotifier {
    /// Connects to the session bus and asks the notification server what it
    /// supports. Fails when there is no session bus or no server; the caller
    /// then falls back to [`super::LogNotifier`]. Must run inside a tokio
    /// runtime (the connection's task lives there).
    pub async fn connect() -> Result<Self, zbus::Error> {
        let connection = zbus::Connection::session().await?;
        let proxy = NotificationsProxy::new(&connection).await?;
        let (name, vendor, version, spec_version) = proxy.get_server_information().await?;
        let capabilities = proxy.get_capabilities().await?;
        let style = Style {
            actions: capabilities.iter().any(|c| c == "actions"),
            markup: capabilities.iter().any(|c| c == "body-markup"),
        };
        let invoked = proxy.receive_action_invoked().await?;
        let closed = proxy.receive_notification_closed().await?;
        let (queue, pending) = mpsc::unbounded_channel();
        tokio::spawn(run(proxy, pending, invoked, closed, style));
        Ok(Self {
            queue,
            info: NotifierInfo {
                backend: "dbus".into(),
                server_name: Some(name),
                server_vendor: Some(vendor),
                server_version: Some(version),
                spec_version: Some(spec_version),
                actions_supported: style.actions,
                capabilities,
                problem: None,
            },
        })
    }
}

impl Notifier for DbusNotifier {
    fn notify(&self, notification: Notification) {
        if self.queue.send(notification).is_err() {
            tracing::warn!("the D-Bus notification task has stopped; a notification was not shown");
        }
    }

    fn info(&self) -> NotifierInfo {
        self.info.clone()
    }
}

#[derive(Debug, Clone, Copy)]
struct Style {
    actions: bool,
    markup: bool,
}

async fn run(
    proxy: NotificationsProxy<'static>,
    mut pending: mpsc::UnboundedReceiver<Notification>,
    mut invoked: ActionInvokedStream,
    mut closed: NotificationClosedStream,
    style: Style,
) {
    let mut shown: HashMap<u32, ReminderActions> = HashMap::new();
    loop {
        tokio::select! {
            next = pending.recv() => {
                let Some(notification) = next else { break };
                match show(&proxy, notification, style).await {
                    Ok(Some((id, actions))) => {
                        if shown.len() >= MAX_TRACKED
                            && let Some(&oldest) = shown.keys().min()
                        {
                            shown.remove(&oldest);
                        }
                        shown.insert(id, actions);
                    }
                    Ok(None) => {}
                    Err(error) => tracing::warn!("cannot show a notification: {error}"),
                }
            }
            Some(signal) = invoked.next() => {
                if let Ok(args) = signal.args()
                    && let Some(actions) = shown.get(&args.id)
                {
                    respond(actions.clone(), args.action_key);
                }
            }
            Some(signal) = closed.next() => {
                if let Ok(args) = signal.args() {
                    shown.remove(&args.id);
                }
            }
        }
    }
}

/// Sends one notification; returns its server id and actions when the user
/// can act on it.
async fn show(
    proxy: &NotificationsProxy<'static>,
    notification: Notification,
    style: Style,
) -> zbus::Result<Option<(u32, ReminderActions)>> {
    let mut hints = HashMap::new();
    hints.insert("urgency", Value::U8(1));
    match notification {
        Notification::Reminder { actions, .. } => {
            let reminder = actions.reminder();
            let keys = if style.actions {
                action_list(!reminder.action_url.is_empty())
            } else {
                Vec::new()
            };
            let key_refs: Vec<&str> = keys.iter().map(String::as_str).collect();
            let id = proxy
                .notify(
                    "Almanac",
                    0,
                    "appointment-soon",
                    &reminder.title,
                    &body_text(&reminder.body, style),
                    &key_refs,
                    hints,
                    0,
                )
                .await?;
            Ok(style.actions.then_some((id, *actions)))
        }
        Notification::MissedSummary { missed } => {
            let (title, body) = summary_text(&missed);
            proxy
                .notify(
                    "Almanac",
                    0,
                    "appointment-missed",
                    &title,
                    &body_text(&body, style),
                    &[],
                    hints,
                    0,
                )
                .await?;
            Ok(None)
        }
    }
}

/// The `actions` array of `Notify`: key, label, key, label, …
/// "default" is what a click on the notification invokes.
fn action_list(can_open: bool) -> Vec<String> {
    let mut list = Vec::new();
    if can_open {
        list.extend(["default", "Open", "open", "Open"].map(String::from));
    }
    for (minutes, label) in SNOOZE_ACTIONS {
        list.push(format!("snooze-{minutes}"));
        list.push(label.to_string());
    }
    list
}

/// What an action key asks for.
#[derive(Debug, PartialEq, Eq)]
enum Requested {
    Open,
    Snooze(i64),
}

fn parse_action(key: &str) -> Option<Requested> {
    match key {
        "default" | "open" => Some(Requested::Open),
        _ => key
            .strip_prefix("snooze-")
            .and_then(|minutes| minutes.parse().ok())
            .map(Requested::Snooze),
    }
}

fn respond(actions: ReminderActions, key: String) {
    let Some(requested) = parse_action(&key) else {
        tracing::debug!("ignoring unknown notification action {key:?}");
        return;
    };
    tokio::spawn(async move {
        let result = match requested {
            Requested::Open => actions.open(),
            Requested::Snooze(minutes) => actions.snooze(minutes).await.map(drop),
        };
        if let Err(error) = result {
            tracing::warn!(id = %actions.reminder().id, "notification action {key:?} failed: {error}");
        }
    });
}

/// Servers with `body-markup` parse the body as a small HTML subset, so a
/// reminder's text is escaped to show literally.
fn body_text(body: &str, style: Style) -> String {
    if style.markup {
        body.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    } else {
        body.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_keys_map_to_requests() {
        assert_eq!(parse_action("default"), Some(Requested::Open));
        assert_eq!(parse_action("open"), Some(Requested::Open));
        assert_eq!(parse_action("snooze-10"), Some(Requested::Snooze(10)));
        assert_eq!(parse_action("snooze-x"), None);
        assert_eq!(parse_action("other"), None);
        let list = action_list(true);
        assert_eq!(list.len() % 2, 0);
        assert!(list.chunks(2).all(|pair| parse_action(&pair[0]).is_some()));
        assert!(!action_list(false).contains(&"default".to_string()));
    }

    #[test]
    fn markup_is_escaped_only_for_markup_servers() {
        let markup = Style {
            actions: true,
            markup: true,
        };
        let plain = Style {
            actions: true,
            markup: false,
        };
        assert_eq!(body_text("<b>&", markup), "&lt;b&gt;&amp;");
        assert_eq!(body_text("<b>&", plain), "<b>&");
    }
}
