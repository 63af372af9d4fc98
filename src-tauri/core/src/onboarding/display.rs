//! The plugin's display settings, taken over with its calendars: the first
//! day of the week (`firstDay`), the 24-hour clock (`timeFormat24h`) and
//! the view the calendar opens in (`initialView.desktop`; Almanac has no
//! mobile view). Almanac's settings of the same names take them; a value
//! Almanac cannot take (a view it does not have, such as the mobile-only
//! `timeGrid3Days`) is listed as found, not applied.

use serde::Serialize;
use serde_json::{Map, Value};

use super::FoundSetting;
use crate::view::CalendarView;

/// The plugin's display settings as Almanac's keys; a key absent from the
/// plugin's file (or not taken) leaves Almanac's value.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportedDisplay {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_day: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_format_24h: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_view: Option<String>,
}

/// Reads the display settings from the plugin's `settings`; what Almanac
/// cannot take goes to `not_applied`. `None` when there is none to take.
pub(super) fn imported_display(
    settings: &Map<String, Value>,
    not_applied: &mut Vec<FoundSetting>,
) -> Option<ImportedDisplay> {
    let mut refuse = |key: &str, value: &Value| {
        not_applied.push(FoundSetting {
            key: key.to_string(),
            value: value.clone(),
        })
    };
    let first_day = settings.get("firstDay").and_then(|value| {
        let day = value.as_u64().filter(|day| *day <= 6).map(|day| day as u8);
        if day.is_none() {
            refuse("firstDay", value);
        }
        day
    });
    let time_format_24h = settings.get("timeFormat24h").and_then(|value| {
        if value.is_boolean() {
            value.as_bool()
        } else {
            refuse("timeFormat24h", value);
            None
        }
    });
    // The plugin keeps one view per device; older versions kept one string.
    let (key, view) = match settings.get("initialView") {
        Some(Value::Object(views)) => ("initialView.desktop", views.get("desktop")),
        other => ("initialView", other),
    };
    let initial_view = view.and_then(|value| {
        let known = value
            .as_str()
            .and_then(CalendarView::from_id)
            .map(|view| view.id().to_string());
        if known.is_none() {
            refuse(key, value);
        }
        known
    });
    let display = ImportedDisplay {
        first_day,
        time_format_24h,
        initial_view,
    };
    (display != ImportedDisplay::default()).then_some(display)
}
