//! The request bodies of `/sync` and `/snooze`: their wire types, and
//! parsing them into validated values.
//!
//! Two steps. serde reads the derived wire types ([`SyncItem`],
//! [`SnoozeRequest`]; unknown fields refused), keeping the JSON path of the
//! first type error; then one validation pass applies the field rules of
//! [`Rules`] to each value. Either way the first problem is a [`Problem`]
//! naming the element index and the field, which is what a host needs to fix
//! its payload; anything that is not even JSON is [`PayloadError::Malformed`].
//! A type error is said in serde's own words ("invalid type: boolean `true`,
//! expected a string", "missing field `id`", "unknown field `x`, expected one
//! of …"): the place comes from the path, the words are not rewritten.
//! Nothing here panics on any input (a fuzz target holds it to that).

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess};
use serde::{Deserialize, de::Error as _};
use serde_path_to_error::Segment;

use crate::reminder::{Reminder, Rules};

/// Why a payload was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    /// Not JSON, truncated JSON or trailing bytes.
    #[error("malformed JSON: {0}")]
    Malformed(String),
    /// Well-formed JSON that breaks a rule.
    #[error("{0}")]
    Invalid(Problem),
}

/// The first rule a payload broke, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Position in the `/sync` array; `None` for the array itself or `/snooze`.
    pub index: Option<usize>,
    pub field: Option<String>,
    pub reason: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.index, &self.field) {
            (Some(index), Some(field)) => write!(f, "element {index}, field `{field}`: ")?,
            (Some(index), None) => write!(f, "element {index}: ")?,
            (None, Some(field)) => write!(f, "field `{field}`: ")?,
            (None, None) => {}
        }
        f.write_str(&self.reason)
    }
}

/// One element of the `/sync` array (spec B, "Reminder instance"), as sent.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyncItem {
    pub id: String,
    pub title: String,
    pub body: String,
    /// Unix epoch seconds.
    pub trigger_at_epoch: i64,
    pub action_url: String,
}

impl From<SyncItem> for Reminder {
    fn from(item: SyncItem) -> Self {
        Reminder::from_host(
            item.id,
            item.title,
            item.body,
            item.trigger_at_epoch,
            item.action_url,
        )
    }
}

/// The body of `POST /snooze`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnoozeRequest {
    pub id: String,
    pub title: String,
    pub body: String,
    pub action_url: String,
    pub minutes: i64,
}

impl SnoozeRequest {
    /// Every field, as `/snooze` applies the rules.
    pub fn validate(&self, rules: &Rules) -> Result<(), (&'static str, String)> {
        rules.check_id(&self.id).map_err(|e| ("id", e))?;
        rules.check_text(&self.title).map_err(|e| ("title", e))?;
        rules.check_text(&self.body).map_err(|e| ("body", e))?;
        rules
            .check_action_url(&self.action_url)
            .map_err(|e| ("action_url", e))?;
        rules
            .check_minutes(self.minutes)
            .map_err(|e| ("minutes", e))
    }

    /// The reminder this snooze schedules, `minutes` after `now_epoch`.
    pub fn into_reminder(self, now_epoch: i64) -> Reminder {
        Reminder::from_host(self.id, self.title, self.body, now_epoch, self.action_url)
            .snoozed(now_epoch, self.minutes)
    }
}

/// Parses and validates a `/sync` body: a flat JSON array of reminders, each
/// with exactly the fields of [`SyncItem`], the right types, values within
/// [`Rules`], and unique ids. Past triggers are not refused here (see
/// [`Rules`]).
pub fn parse_sync(bytes: &[u8], rules: &Rules) -> Result<Vec<Reminder>, PayloadError> {
    let items = read(
        bytes,
        SyncArray {
            max: rules.limits.max_reminders,
        },
    )?;
    let reminders: Vec<Reminder> = items.into_iter().map(Reminder::from).collect();
    for (index, reminder) in reminders.iter().enumerate() {
        rules
            .check_reminder(reminder)
            .map_err(|(field, reason)| invalid(Some(index), Some(field.into()), reason))?;
    }
    check_unique_ids(reminders)
}

/// Parses and validates a `/snooze` body: `{id, title, body, action_url,
/// minutes}`, minutes in 1..=10080.
pub fn parse_snooze(bytes: &[u8], rules: &Rules) -> Result<SnoozeRequest, PayloadError> {
    let Object(request) = read(bytes, PhantomData::<Object<SnoozeRequest>>)?;
    request
        .validate(rules)
        .map_err(|(field, reason)| invalid(None, Some(field.into()), reason))?;
    Ok(request)
}

fn check_unique_ids(reminders: Vec<Reminder>) -> Result<Vec<Reminder>, PayloadError> {
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(reminders.len());
    for (index, reminder) in reminders.iter().enumerate() {
        if let Some(first) = seen.insert(&reminder.id, index) {
            return Err(invalid(
                Some(index),
                Some("id".into()),
                format!("duplicate of element {first} ({:?})", reminder.id),
            ));
        }
    }
    Ok(reminders)
}

fn invalid(index: Option<usize>, field: Option<String>, reason: String) -> PayloadError {
    PayloadError::Invalid(Problem {
        index,
        field,
        reason,
    })
}

/// Deserializes all of `bytes` with `seed`, turning a failure into the
/// [`Problem`] at its JSON path.
///
/// Tracking the path costs an allocation per object key, which would slow
/// a 100k-element sync down by half; so a well-formed body is read without
/// it, and only a refused one is read again, tracked, to say where.
fn read<'de, S: DeserializeSeed<'de> + Copy>(
    bytes: &'de [u8],
    seed: S,
) -> Result<S::Value, PayloadError> {
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let value = match seed.deserialize(&mut json) {
        Ok(value) => value,
        Err(error) if !error.is_data() => return Err(PayloadError::Malformed(error.to_string())),
        // Reading stops at the first element that breaks a rule, before
        // the bytes after it are seen; a body that is not JSON at all is
        // malformed, whatever its first element holds.
        Err(error) => match serde_json::from_slice::<de::IgnoredAny>(bytes) {
            Err(syntax) => return Err(PayloadError::Malformed(syntax.to_string())),
            Ok(_) => return Err(locate(bytes, seed, error)),
        },
    };
    json.end()
        .map_err(|error| PayloadError::Malformed(error.to_string()))?;
    Ok(value)
}

/// Reads `bytes` again, tracking the JSON path, to the problem `first`
/// (the same bytes fail the same way; were it not so, `first` is reported
/// without a place rather than nothing).
fn locate<'de, S: DeserializeSeed<'de>>(
    bytes: &'de [u8],
    seed: S,
    first: serde_json::Error,
) -> PayloadError {
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(&mut json, &mut track);
    let error = seed.deserialize(tracked).err().unwrap_or(first);
    let mut index = None;
    let mut field = None;
    for segment in track.path().iter() {
        match segment {
            Segment::Seq { index: i } => index = Some(*i),
            Segment::Map { key } => field = Some(echoed(key)),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    invalid(index, field, echoed(&error.to_string()))
}

/// Text of the client's own (a key, serde's message quoting one) echoed in
/// an error, kept short: a megabyte-long key is not sent back whole.
fn echoed(text: &str) -> String {
    const MAX_CHARS: usize = 200;
    match text.char_indices().nth(MAX_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// Reads `T` from a JSON object only: derived structs would also take an
/// array of values, which the wire format does not allow.
struct Object<T>(T);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ObjectVisitor(PhantomData))
    }
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: DeserializeOwned> de::Visitor<'de> for ObjectVisitor<T> {
    type Value = Object<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Object)
    }
}

/// The top-level `/sync` array, at most `max` elements (reading stops at
/// the first one over).
#[derive(Clone, Copy)]
struct SyncArray {
    max: usize,
}

impl<'de> DeserializeSeed<'de> for SyncArray {
    type Value = Vec<SyncItem>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> de::Visitor<'de> for SyncArray {
    type Value = Vec<SyncItem>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON array of reminders")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Object(item)) = seq.next_element()? {
            if items.len() == self.max {
                let max = self.max;
                return Err(A::Error::custom(format!(
                    "the array has more than {max} elements"
                )));
            }
            items.push(item);
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Limits;

    fn with_rules<T>(run: impl FnOnce(&Rules) -> T) -> T {
        let limits = Limits {
            max_reminders: 3,
            ..Limits::default()
        };
        let schemes = ["obsidian", "https"].map(String::from).to_vec();
        run(&Rules {
            limits: &limits,
            allowed_schemes: &schemes,
        })
    }

    fn sync(json: &str) -> Result<Vec<Reminder>, PayloadError> {
        with_rules(|rules| parse_sync(json.as_bytes(), rules))
    }

    fn problem(json: &str) -> Problem {
        match sync(json) {
            Err(PayloadError::Invalid(problem)) => problem,
            other => panic!("expected a problem for {json}, got {other:?}"),
        }
    }

    fn element(fields: &str) -> String {
        format!("[{{{fields}}}]")
    }

    const GOOD: &str = r#""id":"a","title":"T","body":"B","trigger_at_epoch":1700000100,"action_url":"obsidian://open?file=x""#;

    #[test]
    fn a_valid_array_parses_with_escapes() {
        let json = format!(
            r#"[{{{GOOD}}}, {{"id":"b\u00e9","title":"line\nbreak","body":"","trigger_at_epoch":1700000001,"action_url":""}}]"#
        );
        let parsed = sync(&json).unwrap();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[1].id, "bé");
        assert_eq!(parsed[1].title, "line\nbreak");
        assert_eq!(sync("[]").unwrap(), vec![]);
        // Whether a trigger is past is for the sync plan to decide, not the parser.
        let past = GOOD.replace("1700000100", "-5");
        assert_eq!(sync(&element(&past)).unwrap()[0].trigger_at_epoch, -5);
    }

    #[test]
    fn each_rule_names_element_and_field() {
        let cases = [
            (
                r#""id":1,"title":"T","body":"B","trigger_at_epoch":1700000100,"action_url":"""#,
                "id",
                "invalid type: integer `1`, expected a string",
            ),
            (
                r#""id":"a","title":null,"body":"B","trigger_at_epoch":1700000100,"action_url":"""#,
                "title",
                "invalid type: null",
            ),
            (
                r#""id":"a","title":"T","body":["x"],"trigger_at_epoch":1700000100,"action_url":"""#,
                "body",
                "invalid type: sequence",
            ),
            (
                r#""id":"a","title":"T","body":"B","trigger_at_epoch":"1700000100","action_url":"""#,
                "trigger_at_epoch",
                "invalid type: string \"1700000100\", expected i64",
            ),
            (
                r#""id":"a","title":"T","body":"B","trigger_at_epoch":1.7e9,"action_url":"""#,
                "trigger_at_epoch",
                "invalid type: floating point",
            ),
            (
                r#""id":"a","title":"T","body":"B","trigger_at_epoch":18446744073709551615,"action_url":"""#,
                "trigger_at_epoch",
                "invalid value: integer `18446744073709551615`, expected i64",
            ),
            (
                r#""id":"a","title":"T","body":"B","trigger_at_epoch":253402300800,"action_url":"""#,
                "trigger_at_epoch",
                "after the year 9999",
            ),
            (
                r#""id":"a","title":"T","body":"B","trigger_at_epoch":1700000100,"action_url":"file:///etc/passwd""#,
                "action_url",
                "not allowed",
            ),
            (
                r#""id":"a","title":"T","body":"B","trigger_at_epoch":1700000100,"action_url":"","extra":1"#,
                "extra",
                "unknown field",
            ),
            (
                r#""id":"","title":"T","body":"B","trigger_at_epoch":1700000100,"action_url":"""#,
                "id",
                "must not be empty",
            ),
            (
                r#""id":"a\u0000","title":"T","body":"B","trigger_at_epoch":1700000100,"action_url":"""#,
                "id",
                "NUL",
            ),
        ];
        for (fields, field, reason) in cases {
            let json = format!("[{{{GOOD}}}, {{{fields}}}]");
            let p = problem(&json);
            assert_eq!(p.index, Some(1), "{json}");
            assert_eq!(p.field.as_deref(), Some(field), "{json}");
            assert!(p.reason.contains(reason), "{json}: {}", p.reason);
        }
    }

    #[test]
    fn oversized_fields_are_refused() {
        let long_title = "x".repeat(8 * 1024 + 1);
        let p = problem(&element(&format!(
            r#""id":"a","title":"{long_title}","body":"B","trigger_at_epoch":1700000100,"action_url":"""#
        )));
        assert_eq!(p.field.as_deref(), Some("title"));
        assert!(p.reason.contains("at most 8192"));
        let long_id = "i".repeat(257);
        let p = problem(&element(&format!(
            r#""id":"{long_id}","title":"T","body":"B","trigger_at_epoch":1700000100,"action_url":"""#
        )));
        assert_eq!(p.field.as_deref(), Some("id"));
    }

    #[test]
    fn shape_errors() {
        let p = problem(r#"{"id":"a"}"#);
        assert_eq!((p.index, p.field.clone()), (None, None));
        assert!(p.reason.contains("expected a JSON array"), "{}", p.reason);
        let p = problem(&format!("[{{{GOOD}}}, 5]"));
        assert_eq!(p.index, Some(1));
        assert!(p.reason.contains("expected an object"), "{}", p.reason);
        let p = problem(&format!("[[{{{GOOD}}}]]"));
        assert_eq!(p.index, Some(0));
        assert!(p.reason.contains("invalid type: sequence"), "{}", p.reason);
        let five = format!("[{{{GOOD}}},{{{GOOD}}},{{{GOOD}}},{{{GOOD}}}]")
            .replace(r#""id":"a""#, r#""id":"u""#);
        assert!(problem(&five).reason.contains("more than 3"));
    }

    #[test]
    fn duplicate_ids_name_both_elements() {
        let json = format!(
            "[{{{GOOD}}}, {{{}}}, {{{GOOD}}}]",
            GOOD.replace(r#""a""#, r#""b""#)
        );
        let p = problem(&json);
        assert_eq!(p.index, Some(2));
        assert!(p.reason.contains("duplicate of element 0"));
    }

    /// A type error is said in serde's words, at the place the JSON path
    /// names; a client's own long key is not echoed back whole.
    #[test]
    fn type_errors_are_serdes_words_at_their_place() {
        for (fields, field, message) in [
            (GOOD.replace(r#""id":"a","#, ""), None, "missing field `id`"),
            (
                format!(r#""title":"U",{GOOD}"#),
                None,
                "duplicate field `title`",
            ),
            (
                GOOD.replace(r#""T""#, "true"),
                Some("title"),
                "invalid type: boolean `true`, expected a string",
            ),
            (
                GOOD.replace("1700000100", "{}"),
                Some("trigger_at_epoch"),
                "invalid type: map, expected i64",
            ),
        ] {
            let json = format!("[{{{GOOD}}}, {{{fields}}}]").replacen(r#""a""#, r#""z""#, 1);
            let p = problem(&json);
            assert_eq!((p.index, p.field.as_deref()), (Some(1), field), "{json}");
            assert!(p.reason.starts_with(message), "{json}: {}", p.reason);
        }
        let long = "k".repeat(100_000);
        let p = problem(&format!(r#"[{{{GOOD},"{long}":1}}]"#));
        assert_eq!(p.field.as_deref(), Some(&*format!("{}…", "k".repeat(200))));
        assert!(p.reason.starts_with("unknown field `kkk"), "{}", p.reason);
        assert!(p.reason.len() < 300, "{}", p.reason);
        for (json, message) in [
            ("[null]", "invalid type: null, expected an object"),
            (
                "true",
                "invalid type: boolean `true`, expected a JSON array of reminders",
            ),
        ] {
            assert!(problem(json).to_string().contains(message), "{json}");
        }
    }

    #[test]
    fn malformed_json_is_its_own_error() {
        for json in [
            "",
            "[",
            "[{\"id\":",
            "[1,]",
            "nope",
            "[] []",
            "[\"\\ud800\"]",
        ] {
            // Not JSON, whatever comes first in it: never a rule's refusal.
            match sync(json) {
                Err(PayloadError::Malformed(_)) => {}
                other => panic!("{json:?} is not JSON, but gave {other:?}"),
            }
        }
        assert!(matches!(sync("[{"), Err(PayloadError::Malformed(_))));
        assert!(matches!(sync("[] x"), Err(PayloadError::Malformed(_))));
        // JSON that breaks a rule is the rule's refusal.
        assert!(matches!(sync("[1]"), Err(PayloadError::Invalid(_))));
    }

    #[test]
    fn snooze_body() {
        let ok = with_rules(|rules| {
            parse_snooze(
                br#"{"id":"a","title":"T","body":"B","action_url":"https://x","minutes":10}"#,
                rules,
            )
        })
        .unwrap();
        assert_eq!(ok.minutes, 10);
        let missing = with_rules(|rules| {
            parse_snooze(
                br#"{"id":"a","title":"T","body":"B","action_url":"https://x"}"#,
                rules,
            )
        });
        match missing {
            Err(PayloadError::Invalid(p)) => {
                assert!(p.reason.starts_with("missing field `minutes`"), "{p}")
            }
            other => panic!("{other:?}"),
        }
        for (json, field) in [
            (
                r#"{"id":"a","title":"T","body":"B","action_url":"https://x","minutes":0}"#,
                "minutes",
            ),
            (
                r#"{"id":"a","title":"T","body":"B","action_url":"https://x","minutes":10081}"#,
                "minutes",
            ),
            (
                r#"{"id":"a","title":"T","body":"B","action_url":"https://x","minutes":5,"trigger_at_epoch":1}"#,
                "trigger_at_epoch",
            ),
            (
                r#"{"id":"a","title":"T","body":"B","action_url":"ftp://x","minutes":5}"#,
                "action_url",
            ),
        ] {
            match with_rules(|rules| parse_snooze(json.as_bytes(), rules)) {
                Err(PayloadError::Invalid(p)) => {
                    assert_eq!(p.field.as_deref(), Some(field), "{json}")
                }
                other => panic!("{json}: {other:?}"),
            }
        }
    }
}
