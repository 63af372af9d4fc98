//! The validated internal form of an event's fields.
//!
//! Every source converts what it reads (frontmatter, a daily-note line, a
//! VEVENT) into an [`EventSpec`], and every write builds one from the client's
//! [`EventFields`] before anything touches the disk, so reads and writes share
//! one set of rules.

use chrono::{Datelike, NaiveDate, NaiveTime, Timelike};
use chrono_tz::Tz;

use super::error::CalendarError;
use super::event::{
    Alarm, Completion, DayOfWeek, DisplayMode, Event, EventType, Relation, RepeatOn,
};
use super::fields::{EventFields, NOTE_TEXT};

/// Longest accepted title, in bytes (titles become file names and lines).
pub const MAX_TITLE_BYTES: usize = 500;

/// Declares [`EventSpec`] with the note text fields among its own, called
/// back with them by [`note_text_fields!`](super::fields::note_text_fields).
macro_rules! declare_event_spec {
    ({} $($(#[doc = $doc:literal])* $name:ident $wire:tt;)*) => {
        /// An event's fields, parsed and checked.
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct EventSpec {
            pub title: String,
            pub kind: EventType,
            pub all_day: bool,
            pub date: Option<NaiveDate>,
            pub end_date: Option<NaiveDate>,
            pub start_time: Option<NaiveTime>,
            pub end_time: Option<NaiveTime>,
            pub days_of_week: Vec<DayOfWeek>,
            /// Monthly (and with `month` yearly) series: the day of the month.
            pub day_of_month: Option<i64>,
            pub month: Option<i64>,
            /// Monthly series on the n-th (or last) weekday of the month.
            pub repeat_on: Option<RepeatOn>,
            /// Every n-th week / month / year of a `recurring` series.
            pub repeat_interval: Option<i64>,
            pub start_recur: Option<NaiveDate>,
            pub end_recur: Option<NaiveDate>,
            pub rrule: Option<String>,
            pub start_date: Option<NaiveDate>,
            pub skip_dates: Vec<NaiveDate>,
            pub completed: Option<Completion>,
            pub timezone: Option<Tz>,
            pub category: Option<String>,
            pub description: Option<String>,
            pub url: Option<String>,
            pub notify: Option<serde_json::Value>,
            $($(#[doc = $doc])* pub $name: Option<String>,)*
            pub location: Option<String>,
            pub uid: Option<String>,
            pub display: Option<DisplayMode>,
            pub alarms: Option<Vec<Alarm>>,
            pub end_reminder: Option<bool>,
            /// A note that stands for one occurrence of a series (detached from it,
            /// e.g. by a CalDAV client's `RECURRENCE-ID` override): the date of the
            /// occurrence it replaces. The series is the note with the same `uid`.
            pub recurrence_id: Option<NaiveDate>,
            /// iCalendar `CLASS`, upper case (see [`Event::class`]).
            pub class: Option<String>,
            pub related_to: Option<Vec<Relation>>,
        }
    };
}

super::fields::note_text_fields!(declare_event_spec! {});

/// Longest `notify` lead time Full Calendar accepts, in minutes (one day).
const MAX_NOTIFY_MINUTES: f64 = 1440.0;
/// Longest alarm lead time Full Calendar accepts, in minutes (one week).
pub const MAX_ALARM_MINUTES: i64 = 10080;

/// Parses a strict `YYYY-MM-DD` date.
pub fn parse_date(field: &str, value: &str) -> Result<NaiveDate, CalendarError> {
    let value = value.trim();
    let shaped = value.len() == 10
        && value.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
    shaped
        .then(|| NaiveDate::parse_from_str(value, "%Y-%m-%d").ok())
        .flatten()
        .ok_or_else(|| CalendarError::invalid(field, format!("`{value}` is not a YYYY-MM-DD date")))
}

/// Parses `HH:mm` (also `H:mm` and `HH:mm:ss`; seconds are dropped).
pub fn parse_time(field: &str, value: &str) -> Result<NaiveTime, CalendarError> {
    let value = value.trim();
    ["%H:%M", "%H:%M:%S"]
        .iter()
        .find_map(|f| NaiveTime::parse_from_str(value, f).ok())
        .map(|t| t.with_second(0).unwrap_or(t))
        .ok_or_else(|| CalendarError::invalid(field, format!("`{value}` is not an HH:mm time")))
}

/// `YYYY-MM-DD` (hand-formatted: this runs for every date of every query
/// result, and chrono's `format` re-reads its pattern each time).
pub fn format_date(date: NaiveDate) -> String {
    format!("{:04}-{:02}-{:02}", date.year(), date.month(), date.day())
}

/// `HH:mm`.
pub fn format_time(time: NaiveTime) -> String {
    format!("{:02}:{:02}", time.hour(), time.minute())
}

/// Parses an IANA time zone name.
pub fn parse_timezone(value: &str) -> Result<Tz, CalendarError> {
    value.trim().parse::<Tz>().map_err(|_| {
        CalendarError::invalid("timezone", format!("`{value}` is not an IANA time zone"))
    })
}

/// A done task's timestamp must be a date or a date-time.
fn check_completion(completion: &Completion) -> Result<(), CalendarError> {
    if let Completion::Done(Some(at)) = completion {
        let at = at.trim();
        let ok = parse_date("completed", at).is_ok()
            || chrono::DateTime::parse_from_rfc3339(at).is_ok()
            || chrono::NaiveDateTime::parse_from_str(at, "%Y-%m-%dT%H:%M:%S%.f").is_ok()
            || chrono::NaiveDateTime::parse_from_str(at, "%Y-%m-%dT%H:%M").is_ok();
        if !ok {
            return Err(CalendarError::invalid(
                "completed",
                format!("`{at}` is neither false, true, a date nor a date-time"),
            ));
        }
    }
    Ok(())
}

/// An iCalendar token (`CLASS`, `RELTYPE`): letters, digits and `-`, as
/// RFC 5545's iana-token and x-name are.
fn check_token(field: &str, value: &str) -> Result<(), CalendarError> {
    const MAX_TOKEN_BYTES: usize = 64;
    if value.is_empty()
        || value.len() > MAX_TOKEN_BYTES
        || !value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Err(CalendarError::invalid(
            field,
            format!("`{value}` is not a token of letters, digits and `-`"),
        ));
    }
    Ok(())
}

/// `relatedTo`: each a non-empty `uid`, with an optional `relType` token.
fn check_relations(relations: &[Relation]) -> Result<(), CalendarError> {
    for relation in relations {
        if relation.uid.trim().is_empty() {
            return Err(CalendarError::invalid(
                "relatedTo",
                "a uid must not be empty",
            ));
        }
        check_text("relatedTo", &relation.uid)?;
        if let Some(kind) = &relation.rel_type {
            check_token("relatedTo", kind)?;
        }
    }
    Ok(())
}

/// `CLASS` and `RELTYPE` values are case-insensitive; they are kept in upper
/// case, as clients write them.
pub fn upper_token(value: &str) -> String {
    value.trim().to_ascii_uppercase()
}

/// [`upper_token`] on every `relType`.
fn normalized_relations(relations: &[Relation]) -> Vec<Relation> {
    relations
        .iter()
        .map(|r| Relation {
            uid: r.uid.clone(),
            rel_type: r.rel_type.as_deref().map(upper_token),
        })
        .collect()
}

/// A free-text field must not smuggle a NUL byte into a note.
fn check_text(field: &str, value: &str) -> Result<(), CalendarError> {
    if value.contains('\0') {
        return Err(CalendarError::invalid(field, "contains a NUL byte"));
    }
    Ok(())
}

/// `notify` must be `{value: minutes}` with 0 <= minutes <= 1440 (other
/// keys are ignored, as Full Calendar's schema ignores them).
fn check_notify(notify: &serde_json::Value) -> Result<(), CalendarError> {
    let minutes = notify.get("value").and_then(serde_json::Value::as_f64);
    match minutes {
        Some(m) if (0.0..=MAX_NOTIFY_MINUTES).contains(&m) => Ok(()),
        _ => Err(CalendarError::invalid(
            "notify",
            format!("must be {{value: minutes before the start}}, 0 to {MAX_NOTIFY_MINUTES}"),
        )),
    }
}

fn check_alarms(alarms: &[Alarm]) -> Result<(), CalendarError> {
    match alarms
        .iter()
        .find(|a| !(0..=MAX_ALARM_MINUTES).contains(&a.minutes_before))
    {
        Some(bad) => Err(CalendarError::invalid(
            "alarms",
            format!(
                "minutesBefore {} is outside 0 to {MAX_ALARM_MINUTES}",
                bad.minutes_before
            ),
        )),
        None => Ok(()),
    }
}

/// The rules of Full Calendar's `recurring` schema: exactly one of weekly
/// (`daysOfWeek`), by day of the month (`dayOfMonth`, with `month` yearly) or
/// by numbered weekday (`repeatOn`); each number in its range.
fn check_recurring(spec: &EventSpec) -> Result<(), CalendarError> {
    let weekly = !spec.days_of_week.is_empty();
    let in_range =
        |field: &str, value: Option<i64>, range: std::ops::RangeInclusive<i64>| match value {
            Some(v) if !range.contains(&v) => Err(CalendarError::invalid(
                field,
                format!("{v} is outside {} to {}", range.start(), range.end()),
            )),
            _ => Ok(()),
        };
    in_range("month", spec.month, 1..=12)?;
    in_range("dayOfMonth", spec.day_of_month, 1..=31)?;
    in_range(
        "repeatInterval",
        spec.repeat_interval,
        1..=i64::from(u16::MAX),
    )?;
    if let Some(on) = spec.repeat_on {
        // Full Calendar turns `week` into BYSETPOS, where 0 means nothing.
        if !(on.week == -1 || (1..=4).contains(&on.week)) {
            return Err(CalendarError::invalid(
                "repeatOn",
                format!("week {} is not 1 to 4 or -1 (last)", on.week),
            ));
        }
        in_range("repeatOn", Some(on.weekday), 0..=6).map_err(|_| {
            CalendarError::invalid(
                "repeatOn",
                format!("weekday {} is not 0 (Sunday) to 6 (Saturday)", on.weekday),
            )
        })?;
    }
    if weekly && spec.day_of_month.is_some() {
        return Err(CalendarError::invalid(
            "daysOfWeek",
            "a recurring event cannot be both weekly (daysOfWeek) and monthly/yearly (dayOfMonth)",
        ));
    }
    if !weekly && spec.day_of_month.is_none() && spec.repeat_on.is_none() {
        return Err(CalendarError::invalid(
            "daysOfWeek",
            "a recurring event needs daysOfWeek (U M T W R F S), dayOfMonth or repeatOn",
        ));
    }
    if spec.month.is_some() && spec.day_of_month.is_none() {
        return Err(CalendarError::invalid(
            "month",
            "a yearly event (with month) also needs dayOfMonth",
        ));
    }
    if spec.day_of_month.is_some() && spec.repeat_on.is_some() {
        return Err(CalendarError::invalid(
            "repeatOn",
            "a monthly event repeats on a dayOfMonth or on a numbered weekday (repeatOn), not both",
        ));
    }
    if let (Some(start), Some(end)) = (spec.start_recur, spec.end_recur)
        && end < start
    {
        return Err(CalendarError::invalid("endRecur", "is before `startRecur`"));
    }
    Ok(())
}

impl EventSpec {
    /// The day the event (or series) starts, for file names and `date`.
    pub fn first_day(&self) -> Option<NaiveDate> {
        match self.kind {
            EventType::Single => self.date,
            EventType::Recurring => self.start_recur.or(self.date),
            EventType::Rrule => self.start_date.or(self.date),
        }
    }

    /// Checks the rules every event must satisfy, naming the first bad field.
    pub fn validate(&self) -> Result<(), CalendarError> {
        let title = self.title.trim();
        if title.is_empty() {
            return Err(CalendarError::invalid("title", "must not be empty"));
        }
        if self.title.len() > MAX_TITLE_BYTES {
            return Err(CalendarError::invalid(
                "title",
                format!("is longer than {MAX_TITLE_BYTES} bytes"),
            ));
        }
        if self.title.contains(['\0', '\n', '\r']) {
            return Err(CalendarError::invalid(
                "title",
                "must not contain NUL or line breaks",
            ));
        }
        let note_text = NOTE_TEXT
            .iter()
            .map(|field| (field.wire, (field.spec)(self)));
        for (field, value) in [
            ("category", &self.category),
            ("description", &self.description),
            ("url", &self.url),
            ("location", &self.location),
            ("uid", &self.uid),
        ]
        .into_iter()
        .chain(note_text)
        {
            if let Some(value) = value {
                check_text(field, value)?;
            }
        }
        if let Some(class) = &self.class {
            check_token("class", class)?;
        }
        if let Some(relations) = &self.related_to {
            check_relations(relations)?;
        }
        match self.kind {
            EventType::Single => {
                let date = self
                    .date
                    .ok_or_else(|| CalendarError::invalid("date", "a single event needs a date"))?;
                if let Some(end) = self.end_date
                    && end < date
                {
                    return Err(CalendarError::invalid("endDate", "is before `date`"));
                }
            }
            EventType::Recurring => check_recurring(self)?,
            EventType::Rrule => {
                if self.start_date.is_none() {
                    return Err(CalendarError::invalid(
                        "startDate",
                        "an rrule event needs a startDate",
                    ));
                }
                let rule = self.rrule.as_deref().ok_or_else(|| {
                    CalendarError::invalid("rrule", "an rrule event needs an rrule")
                })?;
                crate::series::recurrence::check_rrule(rule)?;
            }
        }
        if !self.all_day && self.start_time.is_none() {
            return Err(CalendarError::invalid(
                "startTime",
                "a timed event (allDay: false) needs a startTime",
            ));
        }
        if let Some(completion) = &self.completed {
            check_completion(completion)?;
        }
        if let Some(notify) = &self.notify {
            check_notify(notify)?;
        }
        if let Some(alarms) = &self.alarms {
            check_alarms(alarms)?;
        }
        Ok(())
    }

    /// Applies a client's merge patch (see [`EventFields`]) and validates the
    /// result. `self` is the current event (or the default for a create).
    pub fn patched(&self, fields: &EventFields) -> Result<EventSpec, CalendarError> {
        fn date(
            field: &str,
            v: &Option<Option<String>>,
            cur: Option<NaiveDate>,
        ) -> Result<Option<NaiveDate>, CalendarError> {
            match v {
                None => Ok(cur),
                Some(None) => Ok(None),
                Some(Some(s)) => parse_date(field, s).map(Some),
            }
        }
        fn time(
            field: &str,
            v: &Option<Option<String>>,
            cur: Option<NaiveTime>,
        ) -> Result<Option<NaiveTime>, CalendarError> {
            match v {
                None => Ok(cur),
                Some(None) => Ok(None),
                Some(Some(s)) => parse_time(field, s).map(Some),
            }
        }
        fn patch<T: Clone>(v: &Option<Option<T>>, cur: &Option<T>) -> Option<T> {
            match v {
                None => cur.clone(),
                Some(v) => v.clone(),
            }
        }
        crate::written::check_written(fields)?;
        let text = patch::<String>;
        let mut next = self.clone();
        if let Some(title) = &fields.title {
            next.title = title.trim().to_string();
        }
        if let Some(kind) = fields.kind {
            next.kind = kind;
        }
        next.date = date("date", &fields.date, self.date)?;
        next.end_date = date("endDate", &fields.end_date, self.end_date)?;
        next.start_time = time("startTime", &fields.start_time, self.start_time)?;
        next.end_time = time("endTime", &fields.end_time, self.end_time)?;
        next.all_day = match fields.all_day {
            Some(all_day) => all_day,
            // Sending only times makes an all-day event timed.
            None if fields.start_time.as_ref().is_some_and(Option::is_some) => false,
            None => self.all_day,
        };
        if next.all_day {
            next.start_time = None;
            next.end_time = None;
        }
        if let Some(days) = &fields.days_of_week {
            let mut days = days.clone().unwrap_or_default();
            days.sort();
            days.dedup();
            next.days_of_week = days;
        }
        next.start_recur = date("startRecur", &fields.start_recur, self.start_recur)?;
        next.end_recur = date("endRecur", &fields.end_recur, self.end_recur)?;
        next.rrule = text(&fields.rrule, &self.rrule);
        next.start_date = date("startDate", &fields.start_date, self.start_date)?;
        if let Some(skips) = &fields.skip_dates {
            let mut dates = skips
                .iter()
                .flatten()
                .map(|d| parse_date("skipDates", d))
                .collect::<Result<Vec<_>, _>>()?;
            dates.sort();
            dates.dedup();
            next.skip_dates = dates;
        }
        next.completed = match (&fields.completed, fields.is_task) {
            (Some(Completion::Done(None)), _) => Some(Completion::Done(Some(
                chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            ))),
            (Some(c), _) => Some(c.clone()),
            (None, Some(false)) => None,
            (None, Some(true)) => self.completed.clone().or(Some(Completion::Open)),
            (None, None) => self.completed.clone(),
        };
        next.timezone = match &fields.timezone {
            None => self.timezone,
            Some(None) => None,
            Some(Some(tz)) => Some(parse_timezone(tz)?),
        };
        next.category = text(&fields.category, &self.category);
        next.description = text(&fields.description, &self.description);
        next.url = text(&fields.url, &self.url);
        next.notify = patch(&fields.notify, &self.notify);
        next.day_of_month = patch(&fields.day_of_month, &self.day_of_month);
        next.month = patch(&fields.month, &self.month);
        next.repeat_on = patch(&fields.repeat_on, &self.repeat_on);
        next.repeat_interval = patch(&fields.repeat_interval, &self.repeat_interval);
        next.location = patch(&fields.location, &self.location);
        next.uid = patch(&fields.uid, &self.uid);
        next.display = patch(&fields.display, &self.display);
        next.alarms = patch(&fields.alarms, &self.alarms);
        next.end_reminder = patch(&fields.end_reminder, &self.end_reminder);
        next.recurrence_id = date("recurrenceId", &fields.recurrence_id, self.recurrence_id)?;
        next.class = patch(&fields.class, &self.class)
            .map(|c| upper_token(&c))
            .filter(|c| !c.is_empty());
        next.related_to = patch(&fields.related_to, &self.related_to)
            .map(|r| normalized_relations(&r))
            .filter(|r| !r.is_empty());
        for field in NOTE_TEXT {
            *(field.spec_mut)(&mut next) = patch((field.sent)(fields), (field.spec)(self));
        }
        // A series created with just a `date` starts on that date.
        if next.kind == EventType::Recurring && next.start_recur.is_none() {
            next.start_recur = next.date;
        }
        if next.kind == EventType::Rrule && next.start_date.is_none() {
            next.start_date = next.date;
        }
        // Fields of other event types are dropped when the type changes, so a
        // note never carries contradicting recurrence data.
        match next.kind {
            EventType::Single | EventType::Rrule => {
                next.day_of_month = None;
                next.month = None;
                next.repeat_on = None;
                next.repeat_interval = None;
            }
            EventType::Recurring => {}
        }
        match next.kind {
            EventType::Single => {
                next.days_of_week.clear();
                next.start_recur = None;
                next.end_recur = None;
                next.rrule = None;
                next.start_date = None;
                next.skip_dates.clear();
            }
            EventType::Recurring => {
                next.rrule = None;
                next.start_date = None;
                next.end_date = None;
            }
            EventType::Rrule => {
                next.days_of_week.clear();
                next.start_recur = None;
                next.end_recur = None;
                next.end_date = None;
            }
        }
        if next.kind != EventType::Single {
            next.date = None;
        }
        next.validate()?;
        Ok(next)
    }

    /// The client-facing event (unexpanded; times not yet resolved).
    pub fn to_event(&self, id: String, calendar_id: &str, calendar_name: &str) -> Event {
        let mut event = Event {
            id,
            title: self.title.clone(),
            date: self.first_day().map(format_date).unwrap_or_default(),
            end_date: self.end_date.map(format_date),
            start_time: self.start_time.map(format_time),
            end_time: self.end_time.map(format_time),
            all_day: self.all_day,
            calendar_id: calendar_id.to_string(),
            calendar_name: calendar_name.to_string(),
            file_path: None,
            start_millis: None,
            end_millis: None,
            kind: self.kind,
            days_of_week: (!self.days_of_week.is_empty()).then(|| self.days_of_week.clone()),
            day_of_month: self.day_of_month,
            month: self.month,
            repeat_on: self.repeat_on,
            repeat_interval: self.repeat_interval,
            start_recur: self.start_recur.map(format_date),
            end_recur: self.end_recur.map(format_date),
            rrule: self.rrule.clone(),
            start_date: self.start_date.map(format_date),
            skip_dates: self.skip_dates.iter().copied().map(format_date).collect(),
            completed: self.completed.clone(),
            timezone: self.timezone.map(|tz| tz.name().to_string()),
            category: self.category.clone(),
            description: self.description.clone(),
            url: self.url.clone(),
            location: self.location.clone(),
            uid: self.uid.clone(),
            display: self.display,
            notify: self.notify.clone(),
            alarms: self.alarms.clone(),
            end_reminder: self.end_reminder,
            recurrence_id: self.recurrence_id.map(format_date),
            class: self.class.clone(),
            related_to: self.related_to.clone(),
            instance_date: None,
            // The note text fields, set below.
            ..Event::default()
        };
        for field in NOTE_TEXT {
            *(field.event_mut)(&mut event) = (field.spec)(self).clone();
        }
        event
    }
}
