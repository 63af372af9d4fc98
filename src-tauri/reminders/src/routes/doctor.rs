//! `GET /doctor`: which instance is answering, and whether storage,
//! notifications and the host app are healthy, in one response.

use axum::Json;
use serde::Serialize;

use super::Shared;
use crate::answers::{Checked, PendingItem, StorageInfo};
use crate::clock;
use crate::engine::Settled;
use crate::history::Outcome;
use crate::notifier::NotifierInfo;
use crate::store::Quarantined;

#[derive(Serialize)]
pub struct DoctorAnswer {
    #[serde(flatten)]
    checked: Checked,
    instance: InstanceInfo,
    storage: StorageInfo,
    storage_size_bytes: Option<u64>,
    active_reminders: usize,
    next_event: Option<PendingItem>,
    checks: Vec<Check>,
    notifications: NotifierInfo,
    missed_at_start: Settled,
    history: HistoryCounts,
    /// Records the store could not read and kept aside (see `store`).
    quarantine: QuarantineInfo,
    /// Supplied by the host app (keyring, REST server, …); null if none.
    host: serde_json::Value,
}

#[derive(Serialize)]
struct InstanceInfo {
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
struct QuarantineInfo {
    count: usize,
    /// The most recent [`QUARANTINE_SHOWN`], oldest first.
    records: Vec<QuarantinedItem>,
}

/// At most this many quarantined records are listed (all are counted).
const QUARANTINE_SHOWN: usize = 50;

#[derive(Serialize)]
struct QuarantinedItem {
    record: String,
    reason: String,
    quarantined_at_rfc3339: String,
    value_bytes: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    moved_to: Option<String>,
}

impl From<Quarantined> for QuarantinedItem {
    fn from(quarantined: Quarantined) -> Self {
        Self {
            quarantined_at_rfc3339: clock::rfc3339_ms(quarantined.quarantined_at_ms),
            value_bytes: quarantined.value.len(),
            moved_to: quarantined.moved_to.map(|path| path.display().to_string()),
            record: quarantined.record,
            reason: quarantined.reason,
        }
    }
}

#[derive(Serialize)]
struct HistoryCounts {
    fired: usize,
    missed: usize,
    dropped: usize,
}

pub async fn doctor(state: Shared) -> Json<DoctorAnswer> {
    // The host's part starts processes and reads files: off the async
    // workers, so a burst of `/doctor` requests never stalls the others.
    let host = match state.diagnostics.clone() {
        Some(provide) => almanac_loopback::blocking(move || provide())
            .await
            .unwrap_or(serde_json::Value::Null),
        None => serde_json::Value::Null,
    };
    let now = clock::now_epoch();
    let engine = &state.engine;
    let storage = state.storage.refreshed();
    let size = engine.store().size_on_disk();
    let notifications = engine.notifier().info();
    let storage_error = engine.storage_error();
    let quarantined = engine.store().quarantined();
    let listen = state.listen();
    let executable = std::env::current_exe()
        .map(|path| path.display().to_string())
        .unwrap_or_default();
    let (active_reminders, next_event) = engine.with_schedule(|schedule| {
        let next = schedule
            .next()
            .map(|slot| PendingItem::new(&slot.reminder, slot.origin, now));
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
            name: "storage_records_readable",
            ok: quarantined.as_ref().is_ok_and(Vec::is_empty),
            detail: match &quarantined {
                Ok(records) if records.is_empty() => None,
                Ok(records) => Some(format!(
                    "{} unreadable records were quarantined (see `quarantine`)",
                    records.len()
                )),
                Err(error) => Some(error.to_string()),
            },
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
            ok: listen.problem.is_none(),
            detail: Some(match &listen.problem {
                None => listen.addr.to_string(),
                Some(problem) => format!("still serving on {}; {problem}", listen.addr),
            }),
        },
    ];
    let started_at_epoch = state.instance.started_at_ms.div_euclid(1000);
    Json(DoctorAnswer {
        checked: Checked::now(now),
        instance: InstanceInfo {
            pid: state.instance.pid,
            version: state.instance.version,
            running_from_path: executable.clone(),
            executable_path: executable,
            server_url: format!("http://{}", listen.addr),
            bound_address: listen.addr.to_string(),
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
        quarantine: {
            let records = quarantined.unwrap_or_default();
            let older = records.len().saturating_sub(QUARANTINE_SHOWN);
            QuarantineInfo {
                count: records.len(),
                records: records
                    .into_iter()
                    .skip(older)
                    .map(QuarantinedItem::from)
                    .collect(),
            }
        },
        host,
    })
}
