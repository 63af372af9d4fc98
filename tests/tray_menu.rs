//! The tray menu, clicked for real over D-Bus. libayatana-appindicator
//! registers the app's StatusNotifierItem with the session's
//! StatusNotifierWatcher and exports the menu as `com.canonical.dbusmenu`;
//! this test plays the tray host: it is the watcher, reads the menu layout and
//! sends `Event(id, "clicked")` — what a panel does when the user clicks.

use crate::support;

use std::collections::HashMap;
use std::net::{Ipv4Addr, TcpListener};

use support::instance::{App, AppHarness};
use support::{PATIENCE, eventually, port_open, require_desktop_session};
use tokio::sync::mpsc;
use zbus::message::Header;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

/// The StatusNotifierWatcher side of a tray host: records registrations.
struct Watcher {
    registered: mpsc::UnboundedSender<(String, String)>,
}

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl Watcher {
    fn register_status_notifier_item(&self, service: String, #[zbus(header)] header: Header<'_>) {
        let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
        let _ = self.registered.send((sender, service));
    }

    fn register_status_notifier_host(&self, _service: String) {}

    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        Vec::new()
    }

    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }

    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }
}

/// One menu item as dbusmenu describes it.
#[derive(Debug, Clone)]
struct Item {
    id: i32,
    label: String,
    enabled: bool,
    /// `Some(true/false)` for check items.
    checked: Option<bool>,
}

/// The app's menu, reached over the bus.
struct Menu {
    connection: zbus::Connection,
    owner: String,
    path: OwnedObjectPath,
    /// One tray host at a time: the watcher's bus name is unique.
    _host: tokio::sync::MutexGuard<'static, ()>,
}

/// Serializes the tests of this binary, which each play the tray host.
static TRAY_HOST: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl Menu {
    async fn items(&self) -> Vec<Item> {
        let reply = self
            .connection
            .call_method(
                Some(self.owner.as_str()),
                &self.path,
                Some("com.canonical.dbusmenu"),
                "GetLayout",
                &(0i32, -1i32, Vec::<String>::new()),
            )
            .await
            .expect("GetLayout");
        let (_revision, (id, props, children)): (u32, Node) = reply.body().deserialize().unwrap();
        let mut items = Vec::new();
        collect(id, props, &children, &mut items);
        items
    }

    async fn item(&self, label_start: &str) -> Item {
        let items = self.items().await;
        items
            .iter()
            .find(|item| item.label.starts_with(label_start))
            .cloned()
            .unwrap_or_else(|| panic!("no menu item `{label_start}` in {items:?}"))
    }

    async fn click(&self, label: &str) {
        let item = self.item(label).await;
        self.connection
            .call_method(
                Some(self.owner.as_str()),
                &self.path,
                Some("com.canonical.dbusmenu"),
                "Event",
                &(item.id, "clicked", Value::from(""), 0u32),
            )
            .await
            .expect("Event clicked");
    }

    /// Waits until the item starting with `label` satisfies `want`.
    async fn wait_item(&self, label: &str, want: impl Fn(&Item) -> bool) -> Item {
        eventually(&format!("menu item `{label}` to change"), || async {
            let item = self.item(label).await;
            want(&item).then_some(item)
        })
        .await
    }
}

/// A dbusmenu layout node: `(id, properties, children)`, D-Bus `(ia{sv}av)`.
type Node = (i32, HashMap<String, OwnedValue>, Vec<OwnedValue>);

/// Flattens a layout node and its children into `items`.
fn collect(
    id: i32,
    props: HashMap<String, OwnedValue>,
    children: &[OwnedValue],
    items: &mut Vec<Item>,
) {
    let string = |key: &str| {
        props
            .get(key)
            .and_then(|v| String::try_from(v.try_clone().unwrap()).ok())
    };
    let int = |key: &str| props.get(key).and_then(|v| i32::try_from(&**v).ok());
    let flag = |key: &str| props.get(key).and_then(|v| bool::try_from(&**v).ok());
    items.push(Item {
        id,
        // GTK mnemonics come through as `_`.
        label: string("label").unwrap_or_default().replace('_', ""),
        enabled: flag("enabled").unwrap_or(true),
        checked: string("toggle-type").map(|_| int("toggle-state") == Some(1)),
    });
    for child in children {
        let (id, props, children): Node = child.try_clone().unwrap().try_into().unwrap();
        collect(id, props, &children, items);
    }
}

/// Becomes the session's tray host, starts the app and returns its menu.
async fn start_app_with_tray(instance: &AppHarness) -> (App, Menu, zbus::Connection) {
    require_desktop_session();
    let host_turn = TRAY_HOST.lock().await;
    let (registered, mut registrations) = mpsc::unbounded_channel();
    let host = zbus::connection::Builder::session()
        .unwrap()
        .name("org.kde.StatusNotifierWatcher")
        .unwrap()
        .serve_at("/StatusNotifierWatcher", Watcher { registered })
        .unwrap()
        .build()
        .await
        .expect("own org.kde.StatusNotifierWatcher (is another tray host running?)");
    let app = instance.spawn(&[]);
    let (sender, service) = tokio::time::timeout(PATIENCE, registrations.recv())
        .await
        .unwrap_or_else(|_| panic!("the app registered no tray item:\n{}", instance.log()))
        .unwrap();
    // Ayatana registers an object path; other implementations a bus name.
    let (owner, item_path) = if service.starts_with('/') {
        (sender, service)
    } else {
        (service, "/StatusNotifierItem".to_string())
    };
    let properties = zbus::fdo::PropertiesProxy::builder(&host)
        .destination(owner.clone())
        .unwrap()
        .path(item_path)
        .unwrap()
        .build()
        .await
        .unwrap();
    let menu_path = properties
        .get("org.kde.StatusNotifierItem".try_into().unwrap(), "Menu")
        .await
        .expect("the item's Menu property");
    let path = OwnedObjectPath::try_from(menu_path).unwrap();
    let menu = Menu {
        connection: host.clone(),
        owner,
        path,
        _host: host_turn,
    };
    (app, menu, host)
}

#[tokio::test]
async fn tray_menu_switches_the_rest_server_and_quits_cleanly() {
    let instance = AppHarness::new();
    let (mut app, menu, _host) = start_app_with_tray(&instance).await;

    let labels: Vec<String> = menu.items().await.into_iter().map(|i| i.label).collect();
    for expected in [
        "Enable REST Server",
        "Open Calendar",
        "Open Sidebar",
        "Reminders",
        "Settings…",
        "Quit",
    ] {
        assert!(
            labels.iter().any(|l| l == expected),
            "{expected} missing from {labels:?}"
        );
    }
    let toggle = menu.item("Enable REST Server").await;
    assert_eq!(toggle.checked, Some(false));
    assert!(!port_open(instance.rest_port));

    // On: the port opens, the check mark and the status line follow.
    menu.click("Enable REST Server").await;
    eventually("the REST port to open", || async {
        port_open(instance.rest_port).then_some(())
    })
    .await;
    menu.wait_item("Enable REST Server", |i| i.checked == Some(true))
        .await;
    let status = menu
        .wait_item("REST server:", |i| i.label.contains("listening"))
        .await;
    assert!(
        status
            .label
            .contains(&format!("127.0.0.1:{}", instance.rest_port)),
        "{status:?}"
    );
    assert!(!status.enabled, "the status line is not clickable");

    // Off: the port closes.
    menu.click("Enable REST Server").await;
    menu.wait_item("Enable REST Server", |i| i.checked == Some(false))
        .await;
    eventually("the REST port to close", || async {
        (!port_open(instance.rest_port)).then_some(())
    })
    .await;

    // Port taken: the menu says why the server is not running.
    let squatter = TcpListener::bind((Ipv4Addr::LOCALHOST, instance.rest_port)).unwrap();
    menu.click("Enable REST Server").await;
    let status = menu
        .wait_item("REST server:", |i| i.label.contains("cannot listen"))
        .await;
    assert!(
        status.label.contains(&instance.rest_port.to_string()),
        "{status:?}"
    );
    drop(squatter);
    menu.click("Enable REST Server").await;
    // The status line follows the saved setting (GTK flips the check mark
    // itself on click, before the setting is written).
    menu.wait_item("REST server:", |i| i.label.ends_with("off"))
        .await;
    menu.wait_item("Enable REST Server", |i| i.checked == Some(false))
        .await;

    // The setting itself was flipped and saved.
    let saved: serde_json::Value = serde_json::from_slice(
        &std::fs::read(instance.config_home().join("almanac/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(saved["restServerEnabled"], false);

    // Quit: both servers stop and the process exits 0.
    menu.click("Enable REST Server").await;
    eventually("the REST port to open", || async {
        port_open(instance.rest_port).then_some(())
    })
    .await;
    assert!(port_open(instance.daemon_port));
    menu.click("Quit").await;
    let status = app.exited().await;
    assert!(
        status.success(),
        "exit status {status}:\n{}",
        instance.log()
    );
    assert!(!port_open(instance.rest_port) && !port_open(instance.daemon_port));
}

/// A vault path that is a regular file: the app starts all the same, the
/// reminder daemon runs, and the tray's status line says why the vault cannot
/// be used, until the path is a folder (no restart).
#[tokio::test]
async fn tray_status_line_names_an_unusable_vault_until_it_is_fixed() {
    let instance = AppHarness::new();
    std::fs::remove_dir_all(instance.vault()).unwrap();
    std::fs::write(instance.vault(), "not a folder").unwrap();
    let (mut app, menu, _host) = start_app_with_tray(&instance).await;
    let line = menu
        .wait_item("Vault:", |i| i.label.contains("unavailable"))
        .await;
    assert!(
        line.label
            .contains(&instance.vault().display().to_string().replace('_', "")),
        "{line:?}"
    );
    assert!(!line.enabled, "the status line is not clickable");
    eventually("the reminder daemon's port", || async {
        port_open(instance.daemon_port).then_some(())
    })
    .await;

    std::fs::remove_file(instance.vault()).unwrap();
    std::fs::create_dir_all(instance.vault()).unwrap();
    menu.wait_item("Vault:", |i| i.label == "Vault: ready")
        .await;
    assert!(app.is_running(), "{}", instance.log());
}

/// The menu names the next reminder and its time in the display zone, and
/// follows the daemon's changes (a sync, a fire) without polling.
#[tokio::test]
async fn tray_names_the_next_reminder_in_the_display_timezone() {
    let instance =
        AppHarness::with_settings(serde_json::json!({ "displayTimezone": "Asia/Kolkata" }));
    let (mut app, menu, _host) = start_app_with_tray(&instance).await;
    let line = menu.item("Next reminder:").await;
    assert_eq!(line.label, "Next reminder: none");
    assert!(!line.enabled, "the line is not clickable");
    eventually("the reminder daemon's port", || async {
        port_open(instance.daemon_port).then_some(())
    })
    .await;

    let (soon, later) = (support::epoch_now() + 2, support::epoch_now() + 3 * 86_400);
    // Kolkata is UTC+5:30 all year: the half hour tells the zones apart.
    let due = chrono::DateTime::from_timestamp(later, 0)
        .unwrap()
        .with_timezone(&chrono_tz::Asia::Kolkata)
        .format("%a %-d %b %H:%M");
    instance
        .sync_reminders(serde_json::json!([
            { "id": "soon", "title": "Water the plants", "body": "",
              "trigger_at_epoch": soon, "action_url": "" },
            { "id": "later", "title": "Call Ann", "body": "",
              "trigger_at_epoch": later, "action_url": "" },
        ]))
        .await;
    menu.wait_item("Next reminder:", |i| {
        i.label.starts_with("Next reminder: Water the plants — ")
    })
    .await;
    // Once "soon" has fired, "later" is next.
    let line = menu
        .wait_item("Next reminder:", |i| i.label.contains("Call Ann"))
        .await;
    assert_eq!(line.label, format!("Next reminder: Call Ann — {due}"));
    assert!(app.is_running(), "{}", instance.log());
    support::dismiss_notifications();
}
