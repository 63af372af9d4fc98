//! The request bodies of `/sync` and `/snooze`: their wire types, and
//! parsing them into validated values.
//!
//! Two steps. serde reads the derived wire types ([`SyncItem`],
//! [`SnoozeRequest`]; unknown fields refused), keeping the JSON path of the
//! first type error; then one validation pass applies the field rules of
//! [`Rules`] to each value. Either way the first problem is a [`Problem`]
//! naming the element index and the field, which is what a host needs to fix
//! its payload; anything that is not even JSON is [`PayloadError::Malformed`].
//! Nothing here panics on any input (a fuzz target holds it to that).

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess};
use serde::{Deserialize, de::Error as _};
use serde_json::Value;
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
    #[serde(deserialize_with = "string")]
    pub id: String,
    #[serde(deserialize_with = "string")]
    pub title: String,
    #[serde(deserialize_with = "string")]
    pub body: String,
    /// Unix epoch seconds.
    #[serde(deserialize_with = "integer")]
    pub trigger_at_epoch: i64,
    #[serde(deserialize_with = "string")]
    pub action_url: String,
}

impl WireObject for SyncItem {
    const FIELDS: &'static str = "id, title, body, trigger_at_epoch, action_url";
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
    #[serde(deserialize_with = "string")]
    pub id: String,
    #[serde(deserialize_with = "string")]
    pub title: String,
    #[serde(deserialize_with = "string")]
    pub body: String,
    #[serde(deserialize_with = "string")]
    pub action_url: String,
    #[serde(deserialize_with = "integer")]
    pub minutes: i64,
}

impl WireObject for SnoozeRequest {
    const FIELDS: &'static str = "id, title, body, action_url, minutes";
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
        SyncItem::FIELDS,
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
    let Object(request) = read(
        bytes,
        PhantomData::<Object<SnoozeRequest>>,
        SnoozeRequest::FIELDS,
    )?;
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
/// [`Problem`] at its JSON path; `fields` names the allowed fields of the
/// objects read, for the unknown-field message.
///
/// Tracking the path costs an allocation per object key, which would slow
/// a 100k-element sync down by half; so a well-formed body is read without
/// it, and only a refused one is read again, tracked, to say where.
fn read<'de, S: DeserializeSeed<'de> + Copy>(
    bytes: &'de [u8],
    seed: S,
    fields: &str,
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
            Ok(_) => return Err(locate(bytes, seed, error, fields)),
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
    fields: &str,
) -> PayloadError {
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(&mut json, &mut track);
    let error = seed.deserialize(tracked).err().unwrap_or(first);
    problem(track.path(), error, fields)
}

/// The [`Problem`] a serde error at `path` stands for. The derived wire
/// types report missing, repeated and unknown fields in serde's words; they
/// are said here as the daemon always said them.
fn problem(
    path: serde_path_to_error::Path,
    error: serde_json::Error,
    fields: &str,
) -> PayloadError {
    if !error.is_data() {
        return PayloadError::Malformed(error.to_string());
    }
    let mut index = None;
    let mut field = None;
    for segment in path.iter() {
        match segment {
            Segment::Seq { index: i } => index = Some(*i),
            // Echoed in the error message: keep an unknown name short.
            Segment::Map { key } => field = Some(key.chars().take(64).collect()),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    let message = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    let message = message.strip_suffix(&position).unwrap_or(&message);
    let reason = if let Some(name) = serde_field(message, "missing field `") {
        field = Some(name.into());
        "is missing".to_string()
    } else if let Some(name) = serde_field(message, "duplicate field `") {
        field = Some(name.into());
        "appears twice".to_string()
    } else if message.starts_with("unknown field `") {
        format!("unknown field (exactly these are allowed: {fields})")
    } else {
        message.to_string()
    };
    invalid(index, field, reason)
}

/// The name in serde's "<prefix>name`" messages.
fn serde_field<'m>(message: &'m str, prefix: &str) -> Option<&'m str> {
    message.strip_prefix(prefix)?.strip_suffix('`')
}

/// The `visit_*` methods of the JSON scalars, each refusing through the
/// visitor's `found` with the words error messages use.
macro_rules! refuse_scalars {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Err(self.found("a boolean"))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Err(self.found("a number"))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Err(self.found("a number"))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Err(self.found("a number"))
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Err(self.found("a string"))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(self.found("null"))
        }
    };
}

/// A derived wire object and the list of its fields, as error messages name
/// them (a test ties the list to the derive).
trait WireObject: DeserializeOwned {
    const FIELDS: &'static str;
}

/// Reads `T` from a JSON object only: derived structs would also take an
/// array of values, which the wire format does not allow.
struct Object<T>(T);

impl<'de, T: WireObject> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ObjectVisitor(PhantomData))
    }
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<T: WireObject> ObjectVisitor<T> {
    fn found<E: de::Error>(&self, kind: &str) -> E {
        E::custom(format!(
            "must be an object with the fields {}, found {kind}",
            T::FIELDS
        ))
    }
}

impl<'de, T: WireObject> de::Visitor<'de> for ObjectVisitor<T> {
    type Value = Object<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an object with the fields {}", T::FIELDS)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Object)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(self.found("an array"))
    }

    refuse_scalars!();
}

/// The top-level `/sync` array, at most `max` elements (reading stops at
/// the first one over).
#[derive(Clone, Copy)]
struct SyncArray {
    max: usize,
}

impl SyncArray {
    fn found<E: de::Error>(&self, kind: &str) -> E {
        E::custom(format!(
            "the body must be a JSON array of reminders, found {kind}"
        ))
    }
}

impl<'de> DeserializeSeed<'de> for SyncArray {
    type Value = Vec<SyncItem>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
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

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(self.found("an object"))
    }

    refuse_scalars!();
}

/// A string field; any other JSON value is named in the error.
fn string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::String(text) => Ok(text),
        other => Err(D::Error::custom(format!(
            "must be a string, found {}",
            kind(&other)
        ))),
    }
}

/// A signed 64-bit integer field; fractions and strings are refused rather
/// than guessed at.
fn integer<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    let found = match Value::deserialize(deserializer)? {
        Value::Number(number) => match number.as_i64() {
            Some(integer) => return Ok(integer),
            None if number.is_u64() => "a number above the signed 64-bit range",
            None => "a fractional or exponent number",
        },
        other => kind(&other),
    };
    Err(D::Error::custom(format!(
        "must be an integer, found {found}"
    )))
}

/// What a JSON value is, in the words of the error messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
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
                r#""title":"T","body":"B","trigger_at_epoch":1700000100,"action_url":"""#,
                "id",
                "is missing",
            ),
            (
                r#""id":1,"title":"T","body":"B","trigger_at_epoch":1700000100,"action_url":"""#,
                "id",
                "must be a string, found a number",
            ),
            (
                r#""id":"a","title":null,"body":"B","trigger_at_epoch":1700000100,"action_url":"""#,
                "title",
                "found null",
            ),
            (
                r#""id":"a","title":"T","body":["x"],"trigger_at_epoch":1700000100,"action_url":"""#,
                "body",
                "found an array",
            ),
            (
                r#""id":"a","title":"T","body":"B","trigger_at_epoch":"1700000100","action_url":"""#,
                "trigger_at_epoch",
                "must be an integer, found a string",
            ),
            (
                r#""id":"a","title":"T","body":"B","trigger_at_epoch":1.7e9,"action_url":"""#,
                "trigger_at_epoch",
                "fractional",
            ),
            (
                r#""id":"a","title":"T","body":"B","trigger_at_epoch":18446744073709551615,"action_url":"""#,
                "trigger_at_epoch",
                "above the signed",
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
                r#""id":"a","id":"b","title":"T","body":"B","trigger_at_epoch":1700000100,"action_url":"""#,
                "id",
                "appears twice",
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
        assert!(p.reason.contains("must be a JSON array"), "{}", p.reason);
        let p = problem(&format!("[{{{GOOD}}}, 5]"));
        assert_eq!(p.index, Some(1));
        assert!(p.reason.contains("must be an object"));
        let p = problem(&format!("[[{{{GOOD}}}]]"));
        assert_eq!(p.index, Some(0));
        assert!(p.reason.contains("found an array"));
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

    /// The messages name a fault as the daemon always has, whatever words
    /// serde uses for it.
    #[test]
    fn messages_keep_their_wording() {
        let all = "id, title, body, trigger_at_epoch, action_url";
        for (fields, message) in [
            (
                GOOD.replace(r#""id":"a","#, ""),
                "element 1, field `id`: is missing".to_string(),
            ),
            (
                format!(r#""title":"U",{GOOD}"#),
                "element 1, field `title`: appears twice".to_string(),
            ),
            (
                format!(r#"{GOOD},"{}":1"#, "k".repeat(100)),
                format!(
                    "element 1, field `{}`: unknown field (exactly these are allowed: {all})",
                    "k".repeat(64)
                ),
            ),
            (
                GOOD.replace(r#""T""#, "true"),
                "element 1, field `title`: must be a string, found a boolean".to_string(),
            ),
            (
                GOOD.replace("1700000100", "{}"),
                "element 1, field `trigger_at_epoch`: must be an integer, found an object"
                    .to_string(),
            ),
        ] {
            let json = format!("[{{{GOOD}}}, {{{fields}}}]").replacen(r#""a""#, r#""z""#, 1);
            assert_eq!(problem(&json).to_string(), message, "{json}");
        }
        for (json, message) in [
            (
                "[null]".to_string(),
                format!("element 0: must be an object with the fields {all}, found null"),
            ),
            (
                "true".to_string(),
                "the body must be a JSON array of reminders, found a boolean".to_string(),
            ),
        ] {
            assert_eq!(problem(&json).to_string(), message, "{json}");
        }
    }

    /// The field lists of the messages are the derived structs' own.
    #[test]
    fn field_lists_match_the_wire_types() {
        fn derived<T: WireObject>() -> String {
            let Err(error) = serde_json::from_str::<T>(r#"{"?":0}"#) else {
                panic!("an unknown field was accepted")
            };
            let message = error.to_string();
            let list = message.split("expected one of ").nth(1).unwrap();
            list.split(" at line").next().unwrap().replace('`', "")
        }
        assert_eq!(derived::<SyncItem>(), SyncItem::FIELDS);
        assert_eq!(derived::<SnoozeRequest>(), SnoozeRequest::FIELDS);
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
                r#"{"id":"a","title":"T","body":"B","action_url":"https://x"}"#,
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
