//! A settings patch (`PATCH /api/v1/settings`, the settings window)
//! applied: merged, unknown keys refused, the result validated whole.

use serde_json::{Map, Value};

use super::{Settings, SettingsError};

impl Settings {
    /// Returns these settings with `patch` applied. The patch is a partial
    /// settings object: top-level keys replace whole values, except nested
    /// objects (`reminders`), which merge one level. Unknown keys, wrong types
    /// and invalid values reject the whole patch.
    pub fn patched(&self, patch: &Value) -> Result<Settings, SettingsError> {
        let Value::Object(patch) = patch else {
            return Err(SettingsError::NotAnObject);
        };
        let Value::Object(mut merged) =
            serde_json::to_value(self).expect("settings always serialize")
        else {
            unreachable!("settings serialize to an object")
        };
        for (key, value) in patch {
            let Some(current) = merged.get_mut(key) else {
                return Err(SettingsError::UnknownKey(key.clone()));
            };
            match (current, value) {
                (Value::Object(current), Value::Object(update)) => {
                    merge_known(current, update, key)?
                }
                (current, value) => *current = value.clone(),
            }
        }
        let settings: Settings =
            serde_json::from_value(Value::Object(merged)).map_err(|e| SettingsError::Invalid {
                key: patch.keys().cloned().collect::<Vec<_>>().join(", "),
                reason: e.to_string(),
            })?;
        // Serde ignores keys it does not know inside nested values (a calendar
        // source, say); whatever does not survive the round trip was unknown.
        let kept = serde_json::to_value(&settings).expect("settings always serialize");
        if let Some(path) = first_dropped_key(&Value::Object(patch.clone()), &kept, "") {
            return Err(SettingsError::UnknownKey(path));
        }
        // A value on file the shipped data no longer knows may stay, but
        // not be set again (see `shipped_data`).
        settings.validate_change(self, &|key| patch.contains_key(key))?;
        Ok(settings)
    }
}

/// The path (`calendarSources[0].colour`) of the first key of `input` that is
/// missing from `kept`.
fn first_dropped_key(input: &Value, kept: &Value, path: &str) -> Option<String> {
    match (input, kept) {
        (Value::Object(input), Value::Object(kept)) => input.iter().find_map(|(key, value)| {
            let path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            match kept.get(key) {
                None => Some(path),
                Some(kept) => first_dropped_key(value, kept, &path),
            }
        }),
        (Value::Array(input), Value::Array(kept)) => input
            .iter()
            .zip(kept)
            .enumerate()
            .find_map(|(i, (value, kept))| first_dropped_key(value, kept, &format!("{path}[{i}]"))),
        _ => None,
    }
}

fn merge_known(
    current: &mut Map<String, Value>,
    update: &Map<String, Value>,
    parent: &str,
) -> Result<(), SettingsError> {
    for (key, value) in update {
        let Some(slot) = current.get_mut(key) else {
            return Err(SettingsError::UnknownKey(format!("{parent}.{key}")));
        };
        *slot = value.clone();
    }
    Ok(())
}
