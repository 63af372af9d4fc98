//! Parsing `/sync` and `/snooze` bodies into validated values.
//!
//! The parser streams: it walks the JSON once with serde visitors, checking
//! every field as it is read, so a 100k-element sync costs one pass and no
//! intermediate `serde_json::Value` tree. The first problem found is kept as
//! a [`Problem`] naming the element index and the field, which is what a host
//! needs to fix its payload; anything that is not even JSON is
//! [`PayloadError::Malformed`]. Nothing here panics on any input (a fuzz
//! target holds it to that).

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::reminder::{Reminder, Rules, SnoozeRequest};

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

/// Parses and validates a `/sync` body: a flat JSON array of reminders, each
/// with exactly the five fields, the right types, a trigger before the year
/// 10000, an allowed `action_url` scheme, sizes within the limits, and unique
/// ids. Past triggers are not refused here (see [`Rules`]).
pub fn parse_sync(bytes: &[u8], rules: &Rules) -> Result<Vec<Reminder>, PayloadError> {
    let ctx = Ctx::new(rules);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed = ArraySeed { ctx: &ctx }
        .deserialize(&mut de)
        .and_then(|reminders| de.end().map(|()| reminders));
    match parsed {
        Ok(reminders) => check_unique_ids(reminders),
        Err(error) => Err(ctx.into_error(error)),
    }
}

/// Parses and validates a `/snooze` body: `{id, title, body, action_url,
/// minutes}`, minutes in 1..=10080.
pub fn parse_snooze(bytes: &[u8], rules: &Rules) -> Result<SnoozeRequest, PayloadError> {
    let ctx = Ctx::new(rules);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed = ObjectSeed {
        ctx: &ctx,
        index: None,
        shape: Shape::Snooze,
    }
    .deserialize(&mut de)
    .and_then(|fields| de.end().map(|()| fields));
    match parsed {
        Ok(fields) => Ok(fields.into_snooze()),
        Err(error) => Err(ctx.into_error(error)),
    }
}

fn check_unique_ids(reminders: Vec<Reminder>) -> Result<Vec<Reminder>, PayloadError> {
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(reminders.len());
    for (index, reminder) in reminders.iter().enumerate() {
        if let Some(first) = seen.insert(&reminder.id, index) {
            return Err(PayloadError::Invalid(Problem {
                index: Some(index),
                field: Some("id".into()),
                reason: format!("duplicate of element {first} ({:?})", reminder.id),
            }));
        }
    }
    Ok(reminders)
}

/// Shared by the visitors of one parse: the rules and the first problem.
struct Ctx<'a> {
    rules: &'a Rules<'a>,
    problem: RefCell<Option<Problem>>,
}

impl<'a> Ctx<'a> {
    fn new(rules: &'a Rules<'a>) -> Self {
        Self {
            rules,
            problem: RefCell::new(None),
        }
    }

    /// Records the problem (the first one wins) and returns the error that
    /// unwinds the parse.
    fn fail<E: de::Error>(&self, index: Option<usize>, field: Option<&str>, reason: String) -> E {
        let problem = Problem {
            index,
            field: field.map(str::to_string),
            reason,
        };
        let message = problem.to_string();
        self.problem.borrow_mut().get_or_insert(problem);
        E::custom(message)
    }

    fn into_error(self, error: serde_json::Error) -> PayloadError {
        match self.problem.into_inner() {
            Some(problem) => PayloadError::Invalid(problem),
            None => PayloadError::Malformed(error.to_string()),
        }
    }
}

/// Implements the `visit_*` methods of JSON types a visitor does not accept,
/// each reporting what it found through the visitor's `wrong_type`.
macro_rules! refuse {
    ($($kind:ident),*) => { $( refuse!(@one $kind); )* };
    (@one bool) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Err(self.wrong_type("a boolean"))
        }
    };
    (@one i64) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Err(self.wrong_type("a number"))
        }
    };
    (@one u64) => {
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Err(self.wrong_type("a number"))
        }
    };
    (@one f64) => {
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Err(self.wrong_type("a number"))
        }
    };
    (@one str) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Err(self.wrong_type("a string"))
        }
    };
    (@one unit) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(self.wrong_type("null"))
        }
    };
    (@one seq) => {
        fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(self.wrong_type("an array"))
        }
    };
    (@one map) => {
        fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(self.wrong_type("an object"))
        }
    };
}

/// The top-level `/sync` array.
struct ArraySeed<'c, 'a> {
    ctx: &'c Ctx<'a>,
}

impl ArraySeed<'_, '_> {
    fn wrong_type<E: de::Error>(&self, found: &str) -> E {
        self.ctx.fail(
            None,
            None,
            format!("the body must be a JSON array of reminders, found {found}"),
        )
    }
}

impl<'de> DeserializeSeed<'de> for ArraySeed<'_, '_> {
    type Value = Vec<Reminder>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ArraySeed<'_, '_> {
    type Value = Vec<Reminder>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON array of reminders")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let max = self.ctx.rules.limits.max_reminders;
        let mut reminders = Vec::new();
        loop {
            let seed = ObjectSeed {
                ctx: self.ctx,
                index: Some(reminders.len()),
                shape: Shape::Reminder,
            };
            let Some(fields) = seq.next_element_seed(seed)? else {
                return Ok(reminders);
            };
            if reminders.len() == max {
                return Err(self.ctx.fail(
                    None,
                    None,
                    format!("the array has more than {max} elements"),
                ));
            }
            reminders.push(fields.into_reminder());
        }
    }

    refuse!(bool, i64, u64, f64, str, unit, map);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Reminder,
    Snooze,
}

impl Shape {
    fn field_list(self) -> &'static str {
        match self {
            Shape::Reminder => "id, title, body, trigger_at_epoch, action_url",
            Shape::Snooze => "id, title, body, action_url, minutes",
        }
    }
}

/// What one object carried; `number` is `trigger_at_epoch` or `minutes`.
struct Fields {
    id: String,
    title: String,
    body: String,
    action_url: String,
    number: i64,
}

impl Fields {
    fn into_reminder(self) -> Reminder {
        Reminder {
            id: self.id,
            title: self.title,
            body: self.body,
            trigger_at_epoch: self.number,
            action_url: self.action_url,
        }
    }

    fn into_snooze(self) -> SnoozeRequest {
        SnoozeRequest {
            id: self.id,
            title: self.title,
            body: self.body,
            action_url: self.action_url,
            minutes: self.number,
        }
    }
}

/// One reminder object (or the snooze body).
struct ObjectSeed<'c, 'a> {
    ctx: &'c Ctx<'a>,
    index: Option<usize>,
    shape: Shape,
}

impl ObjectSeed<'_, '_> {
    fn wrong_type<E: de::Error>(&self, found: &str) -> E {
        let reason = format!(
            "must be an object with the fields {}, found {found}",
            self.shape.field_list()
        );
        self.ctx.fail(self.index, None, reason)
    }

    fn fail<E: de::Error>(&self, field: &str, reason: impl Into<String>) -> E {
        self.ctx.fail(self.index, Some(field), reason.into())
    }

    fn text<'de, A: MapAccess<'de>>(
        &self,
        map: &mut A,
        slot: &mut Option<String>,
        field: &'static str,
        max_bytes: usize,
    ) -> Result<(), A::Error> {
        if slot.is_some() {
            return Err(self.fail(field, "appears twice"));
        }
        *slot = Some(map.next_value_seed(StringValue {
            ctx: self.ctx,
            index: self.index,
            field,
            max_bytes,
        })?);
        Ok(())
    }

    fn integer<'de, A: MapAccess<'de>>(
        &self,
        map: &mut A,
        slot: &mut Option<i64>,
        field: &'static str,
    ) -> Result<(), A::Error> {
        if slot.is_some() {
            return Err(self.fail(field, "appears twice"));
        }
        *slot = Some(map.next_value_seed(IntegerValue {
            ctx: self.ctx,
            index: self.index,
            field,
        })?);
        Ok(())
    }

    /// The checks that need the whole value: presence, then the rules that
    /// are not about size (those ran while reading).
    fn finish<E: de::Error>(&self, found: Found) -> Result<Fields, E> {
        let rules = self.ctx.rules;
        let number_field = match self.shape {
            Shape::Reminder => "trigger_at_epoch",
            Shape::Snooze => "minutes",
        };
        let missing = |field: &str| self.fail::<E>(field, "is missing");
        let id = found.id.ok_or_else(|| missing("id"))?;
        let title = found.title.ok_or_else(|| missing("title"))?;
        let body = found.body.ok_or_else(|| missing("body"))?;
        let number = found.number.ok_or_else(|| missing(number_field))?;
        let action_url = found.action_url.ok_or_else(|| missing("action_url"))?;
        rules.check_id(&id).map_err(|e| self.fail("id", e))?;
        rules
            .check_action_url(&action_url)
            .map_err(|e| self.fail("action_url", e))?;
        match self.shape {
            Shape::Reminder => rules.check_trigger(number),
            Shape::Snooze => rules.check_minutes(number),
        }
        .map_err(|e| self.fail(number_field, e))?;
        Ok(Fields {
            id,
            title,
            body,
            action_url,
            number,
        })
    }
}

#[derive(Default)]
struct Found {
    id: Option<String>,
    title: Option<String>,
    body: Option<String>,
    action_url: Option<String>,
    number: Option<i64>,
}

impl<'de> DeserializeSeed<'de> for ObjectSeed<'_, '_> {
    type Value = Fields;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ObjectSeed<'_, '_> {
    type Value = Fields;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an object with the fields {}", self.shape.field_list())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let limits = self.ctx.rules.limits;
        let mut found = Found::default();
        while let Some(name) = map.next_key::<FieldName>()? {
            match (name, self.shape) {
                (FieldName::Id, _) => {
                    self.text(&mut map, &mut found.id, "id", limits.max_id_bytes)?
                }
                (FieldName::Title, _) => {
                    self.text(&mut map, &mut found.title, "title", limits.max_text_bytes)?
                }
                (FieldName::Body, _) => {
                    self.text(&mut map, &mut found.body, "body", limits.max_text_bytes)?
                }
                (FieldName::ActionUrl, _) => self.text(
                    &mut map,
                    &mut found.action_url,
                    "action_url",
                    limits.max_url_bytes,
                )?,
                (FieldName::TriggerAtEpoch, Shape::Reminder) => {
                    self.integer(&mut map, &mut found.number, "trigger_at_epoch")?
                }
                (FieldName::Minutes, Shape::Snooze) => {
                    self.integer(&mut map, &mut found.number, "minutes")?
                }
                (other, shape) => {
                    return Err(self.fail(
                        other.as_str(),
                        format!(
                            "unknown field (exactly these are allowed: {})",
                            shape.field_list()
                        ),
                    ));
                }
            }
        }
        self.finish(found)
    }

    refuse!(bool, i64, u64, f64, str, unit, seq);
}

/// An object key, read without allocating for the known names.
enum FieldName {
    Id,
    Title,
    Body,
    TriggerAtEpoch,
    ActionUrl,
    Minutes,
    Other(String),
}

impl FieldName {
    fn as_str(&self) -> &str {
        match self {
            FieldName::Id => "id",
            FieldName::Title => "title",
            FieldName::Body => "body",
            FieldName::TriggerAtEpoch => "trigger_at_epoch",
            FieldName::ActionUrl => "action_url",
            FieldName::Minutes => "minutes",
            FieldName::Other(name) => name,
        }
    }
}

impl<'de> de::Deserialize<'de> for FieldName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(FieldNameVisitor)
    }
}

struct FieldNameVisitor;

impl Visitor<'_> for FieldNameVisitor {
    type Value = FieldName;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<FieldName, E> {
        Ok(match name {
            "id" => FieldName::Id,
            "title" => FieldName::Title,
            "body" => FieldName::Body,
            "trigger_at_epoch" => FieldName::TriggerAtEpoch,
            "action_url" => FieldName::ActionUrl,
            "minutes" => FieldName::Minutes,
            // Echoed in the error message: keep it short.
            other => FieldName::Other(other.chars().take(64).collect()),
        })
    }
}

/// A string field, size- and NUL-checked as it is read.
struct StringValue<'c, 'a> {
    ctx: &'c Ctx<'a>,
    index: Option<usize>,
    field: &'static str,
    max_bytes: usize,
}

impl StringValue<'_, '_> {
    fn wrong_type<E: de::Error>(&self, found: &str) -> E {
        self.ctx.fail(
            self.index,
            Some(self.field),
            format!("must be a string, found {found}"),
        )
    }

    fn check<E: de::Error>(&self, value: &str) -> Result<(), E> {
        let rules = self.ctx.rules;
        let result = if self.field == "id" {
            rules.check_id(value)
        } else {
            rules.check_string(value, self.max_bytes)
        };
        result.map_err(|reason| self.ctx.fail(self.index, Some(self.field), reason))
    }
}

impl<'de> DeserializeSeed<'de> for StringValue<'_, '_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StringValue<'_, '_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a string for `{}`", self.field)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<String, E> {
        self.check(value)?;
        Ok(value.to_owned())
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<String, E> {
        self.check(&value)?;
        Ok(value)
    }

    refuse!(bool, i64, u64, f64, unit, seq, map);
}

/// A signed 64-bit integer field; fractions and strings are refused rather
/// than guessed at.
struct IntegerValue<'c, 'a> {
    ctx: &'c Ctx<'a>,
    index: Option<usize>,
    field: &'static str,
}

impl IntegerValue<'_, '_> {
    fn wrong_type<E: de::Error>(&self, found: &str) -> E {
        self.ctx.fail(
            self.index,
            Some(self.field),
            format!("must be an integer, found {found}"),
        )
    }
}

impl<'de> DeserializeSeed<'de> for IntegerValue<'_, '_> {
    type Value = i64;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for IntegerValue<'_, '_> {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an integer for `{}`", self.field)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<i64, E> {
        Ok(value)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<i64, E> {
        i64::try_from(value).map_err(|_| self.wrong_type("a number above the signed 64-bit range"))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<i64, E> {
        Err(self.wrong_type("a fractional or exponent number"))
    }

    refuse!(bool, str, unit, seq, map);
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
            match sync(json) {
                Err(PayloadError::Malformed(_)) | Err(PayloadError::Invalid(_)) => {}
                Ok(v) => panic!("{json:?} parsed as {v:?}"),
            }
        }
        assert!(matches!(
            sync("[1,]"),
            Err(PayloadError::Malformed(_)) | Err(PayloadError::Invalid(_))
        ));
        assert!(matches!(sync("[{"), Err(PayloadError::Malformed(_))));
        assert!(matches!(sync("[] x"), Err(PayloadError::Malformed(_))));
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
