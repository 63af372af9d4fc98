//! `GET /doctor`: which instance is answering, and whether storage,
//! notifications and the host app are healthy, in one response.

use axum::Json;
use serde::Serialize;

use super::Shared;
use crate::clock;
use crate::engine::Settled;
use crate::history::Outcome;
use crate::notifier::NotifierInfo;
use crate::view::{Checked, ReminderView, StorageView};

#[derive(Serialize)]
pub struct DoctorAnswer {
    #[serde(flatten)]
    checked: Checked,
    instance: InstanceView,
    storage: StorageView,
    storage_size_bytes: Option<u64>,
    active_reminders: usize,
    next_event: Option<ReminderView>,
    checks: Vec<Check>,
    notifications: NotifierInfo,
    missed_at_start: Settled,
    history: HistoryCounts,
    /// Supplied by the host app (keyring, REST server, …); null if none.
    host: serde_json::Value,
}

#[derive(Serialize)]
struct InstanceView {
    pid: u32,
    version: &'static str,
    executable_path: String,
    running_from_path: String,
    server_url: String,
    bound_address: String,
    started_at_epoch: i64,
    started_at_rfc3339: String,
}

#[derive(Serialize)]
struct Check {
    name: &'static str,
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

#[derive(Serialize)]
struct HistoryCounts {
    fired: usize,
    missed: usize,
    dropped: usize,
}

pub async fn doctor(state: Shared) -> Json<DoctorAnswer> {
    let now = clock::now_epoch();
    let engine = &state.engine;
    let storage = StorageView::of(engine.store().path());
    let size = engine.store().size_on_disk();
    let notifications = engine.notifier().info();
    let storage_error = engine.storage_error();
    let executable = std::env::current_exe()
        .map(|path| path.display().to_string())
        .unwrap_or_default();
    let (active_reminders, next_event) = engine.with_schedule(|schedule| {
        let next = schedule
            .next()
            .map(|slot| ReminderView::new(&slot.reminder, slot.origin, now));
        (schedule.len(), next)
    });
    let checks = vec![
        Check {
            name: "storage_file_present",
            ok: storage.storage_exists,
            detail: None,
        },
        Check {
            name: "storage_writable",
            ok: storage_error.is_none() && size.is_ok(),
            detail: storage_error.or_else(|| size.as_ref().err().map(ToString::to_string)),
        },
        Check {
            name: "notification_server_available",
            ok: notifications.problem.is_none(),
            detail: notifications.problem.clone(),
        },
        Check {
            name: "notification_actions_supported",
            ok: notifications.actions_supported,
            detail: None,
        },
        Check {
            name: "loopback_server_bound",
            ok: true,
            detail: Some(state.instance.addr.to_string()),
        },
    ];
    let started_at_epoch = state.instance.started_at_ms.div_euclid(1000);
    Json(DoctorAnswer {
        checked: Checked::now(now),
        instance: InstanceView {
            pid: state.instance.pid,
            version: state.instance.version,
            running_from_path: executable.clone(),
            executable_path: executable,
            server_url: format!("http://{}", state.instance.addr),
            bound_address: state.instance.addr.to_string(),
            started_at_epoch,
            started_at_rfc3339: clock::rfc3339_ms(state.instance.started_at_ms),
        },
        storage,
        storage_size_bytes: size.ok(),
        active_reminders,
        next_event,
        checks,
        notifications,
        missed_at_start: state.at_start,
        history: HistoryCounts {
            fired: engine.history_count(Outcome::Fired),
            missed: engine.history_count(Outcome::Missed),
            dropped: engine.history_count(Outcome::Dropped),
        },
        host: state
            .diagnostics
            .as_ref()
            .map_or(serde_json::Value::Null, |provide| provide()),
    })
}
