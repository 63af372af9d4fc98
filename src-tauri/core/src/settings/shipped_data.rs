//! The settings checks that depend on data shipped in the binary rather than
//! on the file: a holiday calendar's country or subdivision (the holiday
//! data), `displayTimezone` (chrono-tz's zones) and `initialView` (the
//! views the UI has). An update may drop a subdivision, rename a zone or
//! retire a view; a settings file written before it is then still whole and
//! meant, so it loads (everything else kept, the file untouched) and each
//! reader falls back where it shows the problem: the holiday calendar's
//! `lastError`, UTC for display, the first view. A change naming such a
//! value is still refused, with the field named.

use super::{Settings, SettingsError, calendars};
use crate::view::CalendarView;

/// One value the shipped data does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataProblem {
    /// The key as in the file (`calendarSources[2].subdivision`).
    pub key: String,
    /// What it is about, stable across edits of other settings (a source's
    /// id rather than its index): a change may keep a problem the current
    /// settings already have, but not make a new one.
    subject: String,
    /// Why, naming the value.
    pub reason: String,
}

impl DataProblem {
    pub(super) fn new(key: String, subject: String, reason: String) -> Self {
        DataProblem {
            key,
            subject,
            reason,
        }
    }

    fn into_error(self) -> SettingsError {
        SettingsError::Invalid {
            key: self.key,
            reason: self.reason,
        }
    }
}

/// Every value of `settings` the shipped data does not know, in file order.
pub(super) fn problems(settings: &Settings) -> Vec<DataProblem> {
    let mut found = Vec::new();
    if settings.display_timezone.parse::<chrono_tz::Tz>().is_err() {
        found.push(DataProblem::new(
            "displayTimezone".into(),
            "displayTimezone".into(),
            format!("`{}` is not an IANA time zone", settings.display_timezone),
        ));
    }
    if CalendarView::from_id(&settings.initial_view).is_none() {
        found.push(DataProblem::new(
            "initialView".into(),
            "initialView".into(),
            format!(
                "`{}` is not a view; known views: {}",
                settings.initial_view,
                CalendarView::known_ids()
            ),
        ));
    }
    found.extend(calendars::shipped_data_problems(&settings.calendar_sources));
    found
}

/// The first problem of `next` a change from `current` brings in: one
/// `current` does not have, or one under a key the change `names` itself
/// (`displayTimezone` set again to the unknown zone). A problem already on
/// file that the change leaves alone passes, so a user can still change
/// every other setting, other calendars included.
pub(super) fn new_problem(
    current: &Settings,
    next: &Settings,
    names: &dyn Fn(&str) -> bool,
) -> Result<(), SettingsError> {
    let before = problems(current);
    match problems(next).into_iter().find(|problem| {
        names(&problem.key)
            || !before
                .iter()
                .any(|old| old.subject == problem.subject && old.reason == problem.reason)
    }) {
        Some(problem) => Err(problem.into_error()),
        None => Ok(()),
    }
}

/// The first problem of `settings`, as the error a change gets.
pub(super) fn first_problem(settings: &Settings) -> Result<(), SettingsError> {
    match problems(settings).into_iter().next() {
        Some(problem) => Err(problem.into_error()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{CalendarSource, KindSettings};
    use super::*;

    fn holidays(id: &str, country: &str, subdivision: &str) -> CalendarSource {
        CalendarSource {
            id: id.into(),
            name: id.into(),
            color: "#3366cc".into(),
            kind: KindSettings::Holidays {
                country: country.into(),
                subdivision: subdivision.into(),
            },
            order: None,
            components: None,
        }
    }

    /// Settings as a file from before an update: a lost zone and place.
    fn on_file() -> Settings {
        Settings {
            display_timezone: "Mars/Olympus_Mons".into(),
            calendar_sources: vec![holidays("h", "XX", "")],
            ..Settings::default()
        }
    }

    #[test]
    fn a_lost_value_is_a_problem_but_not_a_shape_error() {
        let settings = on_file();
        assert!(settings.validate_shape().is_ok());
        let keys: Vec<String> = problems(&settings).into_iter().map(|p| p.key).collect();
        assert_eq!(keys, ["displayTimezone", "calendarSources[0].country"]);
        assert!(settings.validate().is_err(), "validate stays whole");
    }

    #[test]
    fn a_change_may_keep_a_lost_value_but_not_bring_or_name_one() {
        let current = on_file();
        let kept = current.patched(&json!({"firstDay": 3})).unwrap();
        assert_eq!(kept.display_timezone, "Mars/Olympus_Mons");

        // Another calendar before it: its index moves, its id does not.
        let mut sources = serde_json::to_value(&current.calendar_sources).unwrap();
        let us = serde_json::to_value(holidays("us", "US", "")).unwrap();
        sources.as_array_mut().unwrap().insert(0, us);
        let moved = current.patched(&json!({"calendarSources": sources}));
        assert_eq!(moved.unwrap().calendar_sources.len(), 2);

        let error = |patch| current.patched(&patch).unwrap_err().to_string();
        let again = error(json!({"displayTimezone": "Mars/Olympus_Mons"}));
        assert!(again.contains("`displayTimezone`"), "{again}");
        let other = error(json!({"displayTimezone": "Mars/Valles"}));
        assert!(other.contains("Mars/Valles"), "{other}");
        let sources = json!([{"id": "h", "name": "h", "type": "holidays",
            "country": "YY", "subdivision": ""}]);
        let place = error(json!({"calendarSources": sources}));
        assert!(
            place.contains("calendarSources[0].country") && place.contains("`YY`"),
            "{place}"
        );
        let second = json!([
            {"id": "h", "name": "h", "type": "holidays", "country": "XX", "subdivision": ""},
            {"id": "g", "name": "g", "type": "holidays", "country": "XX", "subdivision": ""}]);
        let added = error(json!({"calendarSources": second}));
        assert!(added.contains("calendarSources[1].country"), "{added}");
    }
}
