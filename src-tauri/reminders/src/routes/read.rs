//! `GET /status`, `/events`, `/next`, `/storage`: answered from memory.

use axum::Json;
use serde::Serialize;

use super::Shared;
use crate::answers::{Checked, HistoryItem, PendingItem, StorageInfo};
use crate::clock;
use crate::history::HistoryEntry;

#[derive(Serialize)]
pub struct StatusAnswer {
    #[serde(flatten)]
    checked: Checked,
    active_reminders: usize,
    storage: StorageInfo,
    next_event: Option<PendingItem>,
}

pub async fn status(state: Shared) -> Json<StatusAnswer> {
    let now = clock::now_epoch();
    let (active_reminders, next_event) = state.engine.with_schedule(|schedule| {
        let next = schedule
            .next()
            .map(|slot| PendingItem::new(&slot.reminder, slot.origin, now));
        (schedule.len(), next)
    });
    Json(StatusAnswer {
        checked: Checked::now(now),
        active_reminders,
        storage: state.storage.refreshed(),
        next_event,
    })
}

#[derive(Serialize)]
pub struct EventsAnswer {
    #[serde(flatten)]
    checked: Checked,
    storage: StorageInfo,
    /// Pending reminders in trigger order.
    events: Vec<PendingItem>,
    /// Fired, missed and dropped reminders, newest first.
    recently_fired: Vec<HistoryItem>,
}

pub async fn events(state: Shared) -> Json<EventsAnswer> {
    let now = clock::now_epoch();
    let events = state.engine.with_schedule(|schedule| {
        schedule
            .iter()
            .map(|slot| PendingItem::new(&slot.reminder, slot.origin, now))
            .collect()
    });
    let recent: Vec<HistoryEntry> = state.engine.recently_fired();
    Json(EventsAnswer {
        checked: Checked::now(now),
        storage: state.storage.refreshed(),
        events,
        recently_fired: recent.into_iter().map(HistoryItem::from).collect(),
    })
}

#[derive(Serialize)]
pub struct NextAnswer {
    #[serde(flatten)]
    checked: Checked,
    next_event: Option<PendingItem>,
}

pub async fn next(state: Shared) -> Json<NextAnswer> {
    let now = clock::now_epoch();
    let next_event = state.engine.with_schedule(|schedule| {
        schedule
            .next()
            .map(|slot| PendingItem::new(&slot.reminder, slot.origin, now))
    });
    Json(NextAnswer {
        checked: Checked::now(now),
        next_event,
    })
}

#[derive(Serialize)]
pub struct StorageAnswer {
    #[serde(flatten)]
    checked: Checked,
    storage: StorageInfo,
    stored_reminders: usize,
    snoozed_reminders: usize,
    fired_keys: usize,
}

pub async fn storage(state: Shared) -> Json<StorageAnswer> {
    let (stored_reminders, snoozed_reminders, fired_keys) = state
        .engine
        .with_schedule(|s| (s.len(), s.snoozed_count(), s.fired_count()));
    Json(StorageAnswer {
        checked: Checked::now(clock::now_epoch()),
        storage: state.storage.refreshed(),
        stored_reminders,
        snoozed_reminders,
        fired_keys,
    })
}
