//! The one way iCalendar text from outside reaches the parser.
//!
//! The `icalendar` crate's parser recurses once per nested component, so
//! `BEGIN:VCALENDAR` followed by 100,000 `BEGIN:X` lines overflows the stack
//! and aborts the process. Every reading of outside text (a CalDAV `PUT`, a
//! feed, an item of a CalDAV account, the on-disk copies of both) therefore
//! goes through this module: one linear pass over the unfolded lines, without
//! recursion, checks nesting depth, components, properties, line length and
//! size against [`Limits`] before the parser sees a byte.
//!
//! Two readings:
//! - [`parse_bounded`]: all or nothing (a CalDAV resource a client sends);
//! - [`parse_items`]: each child of the `VCALENDAR` on its own (feeds and
//!   synced items), so one hostile or broken item is set aside with its
//!   reason and the rest of the calendar still shows. Only limits of the
//!   whole text (size, components, properties) refuse all of it.

use std::ops::Range;

use icalendar::parser::{Calendar, Component};

/// How deep components may nest. Real calendars use three levels
/// (`VCALENDAR` > `VEVENT` > `VALARM`, `VCALENDAR` > `VTIMEZONE` >
/// `STANDARD`); the parser's stack takes far more than eight.
pub const MAX_DEPTH: usize = 8;

/// The longest unfolded content line. A long `DESCRIPTION` (Outlook's HTML
/// included) is tens of kilobytes.
pub const MAX_LINE_BYTES: usize = 256 * 1024;

/// A whole feed: the fetch's own cap (20 MiB), and room for the tens of
/// thousands of events of years of a busy shared calendar.
pub const FEED_MAX_BYTES: usize = 20 * 1024 * 1024;
pub const FEED_MAX_COMPONENTS: usize = 100_000;
pub const FEED_MAX_PROPERTIES: usize = 2_000_000;

/// One CalDAV resource: one event series, its modified occurrences, alarms
/// and zones. The CalDAV server takes bodies of at most 1 MiB; an item of a
/// CalDAV account may be larger (a long series with many overrides).
pub const RESOURCE_MAX_BYTES: usize = 4 * 1024 * 1024;
pub const RESOURCE_MAX_COMPONENTS: usize = 5_000;
pub const RESOURCE_MAX_PROPERTIES: usize = 100_000;

/// What a text may hold before it is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of the text as received (before unfolding).
    pub max_bytes: usize,
    /// Components nested in each other, `VCALENDAR` counting as one.
    pub max_depth: usize,
    /// `BEGIN:` lines in the whole text.
    pub max_components: usize,
    /// Property lines in the whole text.
    pub max_properties: usize,
    /// Bytes of one unfolded line.
    pub max_line_bytes: usize,
}

impl Limits {
    /// A subscribed ICS feed (and its copy on disk).
    pub const FEED: Limits = Limits {
        max_bytes: FEED_MAX_BYTES,
        max_depth: MAX_DEPTH,
        max_components: FEED_MAX_COMPONENTS,
        max_properties: FEED_MAX_PROPERTIES,
        max_line_bytes: MAX_LINE_BYTES,
    };

    /// One CalDAV resource: a client's `PUT`, an item of a CalDAV account
    /// (and the on-disk copy of it).
    pub const RESOURCE: Limits = Limits {
        max_bytes: RESOURCE_MAX_BYTES,
        max_depth: MAX_DEPTH,
        max_components: RESOURCE_MAX_COMPONENTS,
        max_properties: RESOURCE_MAX_PROPERTIES,
        max_line_bytes: MAX_LINE_BYTES,
    };
}

/// Why a text (or one item of it) was not parsed. Line numbers count the
/// unfolded lines, from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IcsError {
    #[error("iCalendar text larger than {max} bytes")]
    TooLarge { max: usize },
    #[error("iCalendar nesting deeper than {max} components at line {line}")]
    TooDeep { max: usize, line: usize },
    #[error("iCalendar text with more than {max} components at line {line}")]
    TooManyComponents { max: usize, line: usize },
    #[error("iCalendar text with more than {max} properties at line {line}")]
    TooManyProperties { max: usize, line: usize },
    #[error("iCalendar line {line} longer than {max} bytes")]
    LineTooLong { max: usize, line: usize },
    #[error("iCalendar END:{found} at line {line} does not close BEGIN:{open}")]
    MismatchedEnd {
        found: String,
        open: String,
        line: usize,
    },
    #[error("iCalendar END:{found} at line {line} closes no component")]
    EndWithoutBegin { found: String, line: usize },
    #[error("iCalendar BEGIN:{name} at line {line} is never closed")]
    Unclosed { name: String, line: usize },
    #[error("not iCalendar: no BEGIN:VCALENDAR")]
    NoCalendar,
    #[error("not iCalendar: {0}")]
    Syntax(String),
}

/// Unfolds `text` (RFC 5545 §3.1), refusing it first when it is larger than
/// `limits` allow.
pub fn unfold_bounded(text: &str, limits: &Limits) -> Result<String, IcsError> {
    if text.len() > limits.max_bytes {
        return Err(IcsError::TooLarge {
            max: limits.max_bytes,
        });
    }
    Ok(icalendar::parser::unfold(text))
}

/// Checks the unfolded text against `limits`, then parses all of it: any
/// problem refuses the whole text.
pub fn parse_bounded<'a>(unfolded: &'a str, limits: &Limits) -> Result<Calendar<'a>, IcsError> {
    outline(unfolded, limits, Mode::Strict)?;
    icalendar::parser::read_calendar(unfolded).map_err(|e| syntax(&e))
}

/// Unfolds, checks and parses `text` whole, keeping nothing: what a fuzz
/// target or a caller that only asks "would this be read?" needs.
pub fn check(text: &str, limits: &Limits) -> Result<(), IcsError> {
    let unfolded = unfold_bounded(text, limits)?;
    parse_bounded(&unfolded, limits).map(drop)
}

/// The items of a calendar read one by one.
#[derive(Debug, Default)]
pub struct Items<'a> {
    /// The items that were read, in text order.
    pub components: Vec<Component<'a>>,
    /// The items that were not, in text order.
    pub set_aside: Vec<SetAside>,
}

/// An item left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    /// Its component name (`VEVENT`, …), shortened.
    pub name: String,
    /// The line of its `BEGIN:`.
    pub line: usize,
    pub error: IcsError,
}

/// Checks the unfolded text against `limits` and parses each child of its
/// `VCALENDAR` (a component outside one counts as an item too) on its own.
/// Fails only for limits of the whole text, when it holds no component, or
/// when it is cut off (a component never closed) or has an `END` outside
/// any item.
pub fn parse_items<'a>(unfolded: &'a str, limits: &Limits) -> Result<Items<'a>, IcsError> {
    let mut items = Items::default();
    for item in outline(unfolded, limits, Mode::PerItem)? {
        let parsed = match item.problem {
            Some(problem) => Err(problem),
            None => Component::try_from(&unfolded[item.range]).map_err(|e| syntax(&e)),
        };
        match parsed {
            Ok(component) => items.components.push(component),
            Err(error) => items.set_aside.push(SetAside {
                name: item.name,
                line: item.line,
                error,
            }),
        }
    }
    Ok(items)
}

fn syntax(parser_error: &str) -> IcsError {
    let first = parser_error.lines().next().unwrap_or_default();
    IcsError::Syntax(shorten(first.trim_start_matches("error: "), 200))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The first problem refuses the text.
    Strict,
    /// A problem inside an item is that item's.
    PerItem,
}

/// One item: a child of a `VCALENDAR`, or a component outside one.
struct Item {
    name: String,
    line: usize,
    range: Range<usize>,
    problem: Option<IcsError>,
}

/// The items of `unfolded`, found in one pass without recursion: only a
/// stack of the open components' names, at most `max_depth` long, is kept.
fn outline(unfolded: &str, limits: &Limits, mode: Mode) -> Result<Vec<Item>, IcsError> {
    let mut items: Vec<Item> = Vec::new();
    // Open components, outermost first; past `max_depth` only counted.
    let mut open: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let (mut components, mut properties) = (0usize, 0usize);
    // The `BEGIN:VCALENDAR` lines seen, and where the last one is.
    let (mut calendars, mut calendar_line) = (0usize, 0usize);
    let mut offset = 0usize;
    for (index, raw) in unfolded.split('\n').enumerate() {
        let line_no = index + 1;
        let start = offset;
        offset += raw.len() + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            continue;
        }
        // A problem of the item being read (strict: of the text).
        let mut problem = None;
        if line.len() > limits.max_line_bytes {
            problem = Some(IcsError::LineTooLong {
                max: limits.max_line_bytes,
                line: line_no,
            });
        }
        let item_depth = if open.first().is_some_and(|n| n == "VCALENDAR") {
            2
        } else {
            1
        };
        let end = strip_prefix_ci(line.trim_start(), "END:");
        if let Some(name) = strip_prefix_ci(line.trim_start(), "BEGIN:") {
            components += 1;
            if components > limits.max_components {
                return Err(IcsError::TooManyComponents {
                    max: limits.max_components,
                    line: line_no,
                });
            }
            let name = component_name(name);
            depth += 1;
            if depth == 1 && name == "VCALENDAR" {
                calendars += 1;
                calendar_line = line_no;
            } else if depth == item_depth {
                items.push(Item {
                    name: name.clone(),
                    line: line_no,
                    range: start..start,
                    problem: None,
                });
            }
            if depth > limits.max_depth {
                problem = problem.or(Some(IcsError::TooDeep {
                    max: limits.max_depth,
                    line: line_no,
                }));
            } else {
                open.push(name);
            }
        } else if let Some(name) = end {
            let name = component_name(name);
            if depth == 0 {
                problem = problem.or(Some(IcsError::EndWithoutBegin {
                    found: name,
                    line: line_no,
                }));
            } else {
                if depth <= limits.max_depth {
                    let opened = open.pop().unwrap_or_default();
                    if opened != name {
                        problem = problem.or(Some(IcsError::MismatchedEnd {
                            found: name,
                            open: opened,
                            line: line_no,
                        }));
                    }
                }
                if depth == item_depth
                    && let Some(item) = items.last_mut()
                {
                    item.range.end = start + line.len();
                }
                depth -= 1;
            }
        } else {
            properties += 1;
            if properties > limits.max_properties {
                return Err(IcsError::TooManyProperties {
                    max: limits.max_properties,
                    line: line_no,
                });
            }
        }
        if let Some(problem) = problem {
            // Outside any item (the VCALENDAR's own lines) a problem is
            // the whole text's.
            let inside = depth >= item_depth || (depth + 1 == item_depth && end.is_some());
            match items.last_mut() {
                Some(item) if mode == Mode::PerItem && inside => {
                    item.problem.get_or_insert(problem);
                }
                _ => return Err(problem),
            }
        }
    }
    if depth > 0 {
        let (name, line) = match items.last() {
            Some(item) if item.range.is_empty() => (item.name.clone(), item.line),
            _ => (open.first().cloned().unwrap_or_default(), calendar_line),
        };
        // A text cut off is refused whole: what is missing is unknown.
        return Err(IcsError::Unclosed { name, line });
    }
    if calendars == 0 && items.is_empty() {
        return Err(IcsError::NoCalendar);
    }
    Ok(items)
}

/// A component name as the messages show it: trimmed, upper case, at most
/// 40 characters (a name may be a whole line long).
fn component_name(name: &str) -> String {
    shorten(name.trim(), 40).to_ascii_uppercase()
}

fn shorten(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

fn strip_prefix_ci<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let head = line.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &line[prefix.len()..])
}

#[cfg(test)]
#[path = "bounds_tests.rs"]
mod tests;
