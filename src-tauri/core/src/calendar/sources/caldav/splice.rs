//! Putting Almanac's changes into a CalDAV resource without disturbing the
//! rest of it. A resource holds a series (its master `VEVENT`), its modified
//! occurrences (`VEVENT`s with a `RECURRENCE-ID`), the `VTIMEZONE`s they use,
//! and properties Almanac does not model; each change rewrites only the
//! component it is about and keeps the others as they were (line ends
//! made CRLF throughout: a copy read from a `calendar-data` XML element has
//! bare LFs, and one text must not mix both):
//! - [`with_overrides`]: a rewritten master, with the resource's overrides
//!   and zones carried over;
//! - [`put_override`]: one occurrence modified (a new override, or the
//!   override of that occurrence replaced), its unknown properties kept;
//! - [`remove_occurrence`]: one occurrence gone (its override removed, an
//!   `EXDATE` on the master).

use std::ops::Range;

use chrono::NaiveDateTime;

use crate::ics::text;

/// What an edit of a series (or event) does with its alarms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alarms {
    /// The edit set them: the ones written replace the old.
    Written,
    /// The edit left them alone: the old `VALARM`s stay as they were, the
    /// ones Almanac does not read (an e-mail alarm, one relative to the
    /// end) included.
    Kept,
}

/// `new` (a whole `VCALENDAR`) with the modified occurrences of `old`, and
/// the zones `new` lacks, added before its end; its series (or event) keeps
/// the properties of `old`'s that Almanac does not model
/// ([`with_unmodeled_kept`]), and with [`Alarms::Kept`] its alarms.
pub fn with_overrides(new: &str, old: &str, alarms: Alarms) -> String {
    let new = &with_unmodeled_kept(new, old, alarms);
    let kept = blocks(old)
        .into_iter()
        .filter(|block| match block.name.as_str() {
            "VEVENT" => block.property(old, "RECURRENCE-ID").is_some(),
            "VTIMEZONE" => block
                .property(old, "TZID")
                .is_none_or(|id| !defines_zone(new, value(&id))),
            _ => false,
        });
    let inserted: String = kept.map(|block| crlf(&old[block.range])).collect();
    insert_before_end(new, &inserted)
}

/// Properties Almanac reads into an event's fields and writes from them,
/// or leaves out on purpose (a `LAST-MODIFIED` or `SEQUENCE` it would leave
/// stale): when what it writes lacks one, the edit removed it.
const MODELED: &[&str] = &[
    "UID",
    "DTSTAMP",
    "DTSTART",
    "DTEND",
    "DURATION",
    "DUE",
    "RECURRENCE-ID",
    "RRULE",
    "RDATE",
    "EXDATE",
    "EXRULE",
    "SUMMARY",
    "DESCRIPTION",
    "LOCATION",
    "CATEGORIES",
    "CLASS",
    "RELATED-TO",
    "STATUS",
    "URL",
    "COMPLETED",
    "PERCENT-COMPLETE",
    "LAST-MODIFIED",
    "SEQUENCE",
];

/// `new` with the properties of `old`'s version of its event (the `VEVENT`
/// or `VTODO` of the same `UID` without `RECURRENCE-ID`) that Almanac does
/// not model (`X-…`, `ATTENDEE`, `CREATED`, …) put back, before its first
/// sub-component: an edit must not lose what another app wrote. With
/// [`Alarms::Kept`], `old`'s sub-components replace `new`'s.
fn with_unmodeled_kept(new: &str, old: &str, alarms: Alarms) -> String {
    let written_blocks = blocks(new);
    let Some(written) = written_blocks
        .iter()
        .find(|b| b.name == "VEVENT" || b.name == "VTODO")
    else {
        return new.to_string();
    };
    let Some(uid) = written.property(new, "UID") else {
        return new.to_string();
    };
    let uid = value(&uid).trim();
    let old_blocks = blocks(old);
    let Some(before) = old_blocks.iter().find(|b| {
        b.name == written.name
            && b.property(old, "RECURRENCE-ID").is_none()
            && b.property(old, "UID")
                .is_some_and(|line| value(&line).trim() == uid)
    }) else {
        return new.to_string();
    };
    let kept: String = before
        .properties(old)
        .filter(|line| {
            !MODELED.contains(&line.name.as_str())
                && !written.properties(new).any(|w| w.name == line.name)
        })
        .map(|line| crlf(line.text))
        .collect();
    let body = &new[written.range.clone()];
    let end = written.range.start + body.rfind("END:").unwrap_or(body.len());
    let at = written.range.start
        + body
            .find("\nBEGIN:")
            .map(|n| n + 1)
            .unwrap_or(end - written.range.start);
    match alarms {
        Alarms::Written => format!("{}{kept}{}", &new[..at], &new[at..]),
        Alarms::Kept => {
            let children: String = before.children(old).map(crlf).collect();
            format!("{}{kept}{children}{}", &new[..at], &new[end..])
        }
    }
}

/// What the series (or event) `uid` of `ics` holds that a note cannot, by
/// name, each once: its properties Almanac does not model (`ATTENDEE`,
/// `ORGANIZER`, `ATTACH`, `X-…`), its sub-components other than alarms,
/// and `VALARM` when it has more alarms than the `alarms_read` Almanac reads
/// (one relative to the end, or at a fixed time). `CREATED` is left out: it
/// dates the resource, not the user's event, and the note has its own.
pub fn unmodeled(ics: &str, uid: &str, alarms_read: usize) -> Vec<String> {
    let all = blocks(ics);
    let Some(master) = all.iter().find(|b| {
        (b.name == "VEVENT" || b.name == "VTODO")
            && b.property(ics, "RECURRENCE-ID").is_none()
            && b.property(ics, "UID")
                .is_some_and(|line| value(&line).trim() == uid)
    }) else {
        return Vec::new();
    };
    let mut names: Vec<String> = master
        .properties(ics)
        .map(|line| line.name)
        .filter(|name| !MODELED.contains(&name.as_str()) && name != "CREATED")
        .collect();
    let children: Vec<String> = master
        .children(ics)
        .map(|child| {
            let first = child.lines().next().unwrap_or_default();
            first
                .trim_start_matches("BEGIN:")
                .trim()
                .to_ascii_uppercase()
        })
        .collect();
    let alarms = children.iter().filter(|name| *name == "VALARM").count();
    if alarms > alarms_read {
        names.push("VALARM".into());
    }
    names.extend(children.into_iter().filter(|name| name != "VALARM"));
    let mut once = Vec::new();
    for name in names {
        if !once.contains(&name) {
            once.push(name);
        }
    }
    once
}

/// One occurrence of the series of `uid`: `key` as [`override_keys`] gives
/// it (`YYYYMMDDTHHMMSS`), `at` the same local start.
///
/// [`override_keys`]: crate::calendar::sources::ical::override_keys
pub struct Occurrence<'a> {
    pub uid: &'a str,
    pub key: &'a str,
    pub at: NaiveDateTime,
}

/// Properties Almanac writes into an override, so the old override's (or
/// the master's) are not carried over beside them.
const WRITTEN: &[&str] = &[
    "UID",
    "DTSTAMP",
    "DTSTART",
    "DTEND",
    "DURATION",
    "RECURRENCE-ID",
    "RRULE",
    "RDATE",
    "EXDATE",
    "EXRULE",
];

/// `old` with `occurrence` modified as `written` says (a `VCALENDAR` with
/// one `VEVENT` as Almanac writes it, without `RECURRENCE-ID`), and the
/// `VTIMEZONE`s of `written` that `old` lacks. The override of that
/// occurrence, if any, is replaced; else one is added. Properties Almanac
/// does not write (nor was asked to remove: `removed`) stay from the override
/// replaced, or are taken from the master for a new one, as are its alarms
/// when `written` has none. `keys` are `old`'s
/// [`override_keys`](crate::calendar::sources::ical::override_keys).
pub fn put_override(
    old: &str,
    keys: &[Option<String>],
    occurrence: &Occurrence<'_>,
    written: &str,
    removed: &[&str],
) -> Result<String, String> {
    let all = blocks(old);
    let events = vevents(&all);
    let master = master(old, &events, keys, occurrence.uid)?;
    let existing = events
        .iter()
        .zip(keys)
        .find(|(_, key)| key.as_deref() == Some(occurrence.key))
        .map(|(block, _)| *block);
    let recurrence_id = occurrence_line("RECURRENCE-ID", old, master, occurrence.at)?;
    let base = existing.unwrap_or(master);
    let new_blocks = blocks(written);
    let vevent = new_blocks
        .iter()
        .find(|b| b.name == "VEVENT")
        .ok_or("nothing was written")?;
    let mut out = String::from("BEGIN:VEVENT\r\n");
    for line in vevent.properties(written) {
        out.push_str(&crlf(line.text));
        if line.name == "UID" {
            out.push_str(&recurrence_id);
        }
    }
    let owned = |name: &str| {
        WRITTEN.contains(&name)
            || removed.contains(&name)
            || vevent.properties(written).any(|l| l.name == name)
    };
    for line in base.properties(old).filter(|l| !owned(&l.name)) {
        out.push_str(&crlf(line.text));
    }
    let alarms: Vec<&str> = vevent.children(written).collect();
    let children: Vec<&str> = if alarms.is_empty() {
        base.children(old).collect()
    } else {
        alarms
    };
    for child in children {
        out.push_str(&crlf(child));
    }
    out.push_str("END:VEVENT\r\n");
    let missing: String = new_blocks
        .iter()
        .filter(|zone| {
            zone.name == "VTIMEZONE"
                && zone
                    .property(written, "TZID")
                    .is_none_or(|id| !defines_zone(old, value(&id)))
        })
        .map(|zone| crlf(&written[zone.range.clone()]))
        .collect();
    let spliced = match existing {
        Some(block) => {
            let replaced = format!(
                "{}{out}{}",
                &old[..block.range.start],
                &old[block.range.end..]
            );
            insert_before_end(&replaced, &missing)
        }
        None => insert_before_end(old, &format!("{missing}{out}")),
    };
    Ok(crlf(&spliced))
}

/// `old` without `occurrence`: its override (if any) removed and an
/// `EXDATE` for it added to the master, in the form of the master's
/// `DTSTART` (zone, date or UTC).
pub fn remove_occurrence(
    old: &str,
    keys: &[Option<String>],
    occurrence: &Occurrence<'_>,
) -> Result<String, String> {
    let all = blocks(old);
    let events = vevents(&all);
    let master = master(old, &events, keys, occurrence.uid)?;
    let exdate = occurrence_line("EXDATE", old, master, occurrence.at)?;
    // Cut from the end, so the earlier ranges stay right.
    let mut cuts: Vec<(Range<usize>, String)> = events
        .iter()
        .zip(keys)
        .filter(|(_, key)| key.as_deref() == Some(occurrence.key))
        .map(|(block, _)| (block.range.clone(), String::new()))
        .collect();
    let end_line = old[master.range.clone()]
        .rfind("END:VEVENT")
        .map(|at| master.range.start + at)
        .ok_or("the series has no END:VEVENT")?;
    cuts.push((end_line..end_line, exdate));
    cuts.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
    let mut out = old.to_string();
    for (range, text) in cuts {
        out.replace_range(range, &text);
    }
    Ok(crlf(&out))
}

/// One component directly inside the `VCALENDAR`.
struct Block {
    range: Range<usize>,
    name: String,
}

/// One property line of a component, unfolded for its name.
struct Line<'t> {
    name: String,
    /// As written (folded continuation lines included).
    text: &'t str,
}

impl Block {
    /// The component's own property lines (not its sub-components').
    fn properties<'t>(&self, text: &'t str) -> impl Iterator<Item = Line<'t>> + 't {
        let mut depth = 0usize;
        let mut at = self.range.start;
        // Name and byte range of each line, continuation lines included.
        let mut lines: Vec<(String, Range<usize>)> = Vec::new();
        for raw in text[self.range.clone()].split_inclusive('\n') {
            let line = raw.trim_end_matches(['\r', '\n']);
            let range = at..at + raw.len();
            at = range.end;
            if line.starts_with([' ', '\t']) {
                if let Some((_, last)) = lines.last_mut().filter(|(_, r)| r.end == range.start) {
                    last.end = range.end;
                }
            } else if line.starts_with("BEGIN:") {
                depth += 1;
            } else if line.starts_with("END:") {
                depth = depth.saturating_sub(1);
            } else if depth == 1 {
                let name = line.split([':', ';']).next().unwrap_or_default();
                lines.push((name.to_ascii_uppercase(), range));
            }
        }
        lines.into_iter().map(|(name, range)| Line {
            name,
            text: &text[range],
        })
    }

    /// The unfolded line of property `name`, if the component has one.
    fn property(&self, text: &str, name: &str) -> Option<String> {
        self.properties(text)
            .find(|l| l.name == name)
            .map(|l| unfold(l.text))
    }

    /// The component's sub-components (e.g. `VALARM`s), each whole.
    fn children<'t>(&self, text: &'t str) -> impl Iterator<Item = &'t str> + 't {
        let body = &text[self.range.clone()];
        let offset = self.range.start;
        let (mut depth, mut start, mut at) = (0usize, 0usize, 0usize);
        let mut found = Vec::new();
        for raw in body.split_inclusive('\n') {
            if raw.starts_with("BEGIN:") {
                depth += 1;
                if depth == 2 {
                    start = at;
                }
            } else if raw.starts_with("END:") {
                if depth == 2 {
                    found.push(&text[offset + start..offset + at + raw.len()]);
                }
                depth = depth.saturating_sub(1);
            }
            at += raw.len();
        }
        found.into_iter()
    }
}

/// The components directly inside the `VCALENDAR`.
fn blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let (mut depth, mut start, mut at) = (0usize, 0usize, 0usize);
    let mut name = String::new();
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\r', '\n']);
        if let Some(component) = line.strip_prefix("BEGIN:") {
            depth += 1;
            if depth == 2 {
                start = at;
                name = component.trim().to_ascii_uppercase();
            }
        } else if line.starts_with("END:") {
            if depth == 2 {
                blocks.push(Block {
                    range: start..at + raw.len(),
                    name: std::mem::take(&mut name),
                });
            }
            depth = depth.saturating_sub(1);
        }
        at += raw.len();
    }
    blocks
}

fn vevents(blocks: &[Block]) -> Vec<&Block> {
    blocks.iter().filter(|b| b.name == "VEVENT").collect()
}

/// The series' own `VEVENT` (of `uid`, without `RECURRENCE-ID`).
fn master<'b>(
    text: &str,
    events: &[&'b Block],
    keys: &[Option<String>],
    uid: &str,
) -> Result<&'b Block, String> {
    events
        .iter()
        .zip(keys.iter().map(Some).chain(std::iter::repeat(None)))
        .find(|(block, key)| {
            key.is_none_or(|k| k.is_none())
                && block.property(text, "RECURRENCE-ID").is_none()
                && block
                    .property(text, "UID")
                    .is_some_and(|l| value(&l).trim() == uid)
        })
        .map(|(block, _)| *block)
        .ok_or_else(|| format!("the resource has no series `{uid}`"))
}

/// `NAME…:value` naming local start `at` as the master's `DTSTART` names its
/// own: with its `TZID`, as a date, or in UTC.
fn occurrence_line(
    name: &str,
    text: &str,
    master: &Block,
    at: NaiveDateTime,
) -> Result<String, String> {
    let start = master
        .property(text, "DTSTART")
        .ok_or("the series has no DTSTART")?;
    let (head, current) = start.split_once(':').ok_or("a malformed DTSTART")?;
    let params: Vec<&str> = head
        .split(';')
        .skip(1)
        .filter(|p| {
            let key = p.split('=').next().unwrap_or_default();
            key.eq_ignore_ascii_case("TZID") || key.eq_ignore_ascii_case("VALUE")
        })
        .collect();
    let current = current.trim();
    let date_only =
        current.len() == 8 || params.iter().any(|p| p.eq_ignore_ascii_case("VALUE=DATE"));
    let value = if date_only {
        at.format("%Y%m%d").to_string()
    } else if current.ends_with(['Z', 'z']) {
        at.format("%Y%m%dT%H%M%SZ").to_string()
    } else {
        at.format("%Y%m%dT%H%M%S").to_string()
    };
    let params: String = params
        .iter()
        .filter_map(|p| p.split_once('='))
        .map(|(key, v)| text::param(key, v.trim_matches('"')))
        .collect();
    let mut line = String::new();
    text::raw_line(&mut line, &format!("{name}{params}"), &value);
    Ok(line)
}

/// The value of an unfolded property line.
fn value(line: &str) -> &str {
    line.split_once(':').map_or("", |(_, v)| v)
}

fn unfold(text: &str) -> String {
    text.replace("\r\n ", "")
        .replace("\r\n\t", "")
        .replace("\n ", "")
        .replace("\n\t", "")
        .trim_end_matches(['\r', '\n'])
        .to_string()
}

/// Whether `text` has a `VTIMEZONE` of `id`.
fn defines_zone(text: &str, id: &str) -> bool {
    blocks(text).iter().any(|block| {
        block.name == "VTIMEZONE"
            && block
                .property(text, "TZID")
                .is_some_and(|l| value(&l).trim() == id.trim())
    })
}

/// `text` with CRLF line ends (XML answers turn them into bare LFs).
fn crlf(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| format!("{}\r\n", line.trim_end_matches(['\r', '\n'])))
        .collect()
}

/// `text` with `inserted` before its `END:VCALENDAR`.
fn insert_before_end(text: &str, inserted: &str) -> String {
    match text.rfind("END:VCALENDAR") {
        Some(end) => format!("{}{inserted}{}", &text[..end], &text[end..]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_note_cannot_hold_is_named_once() {
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\n\
                   DTSTART:20260105T090000Z\r\nSUMMARY:Plan\r\nCREATED:20260101T000000Z\r\n\
                   ATTENDEE:mailto:ann@example.com\r\nATTENDEE:mailto:bob@example.com\r\n\
                   X-APP-COLOR:red\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\n\
                   END:VALARM\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:a\r\n\
                   RECURRENCE-ID:20260112T090000Z\r\nORGANIZER:mailto:c@example.com\r\n\
                   END:VEVENT\r\nEND:VCALENDAR\r\n";
        assert_eq!(unmodeled(ics, "a", 1), ["ATTENDEE", "X-APP-COLOR"]);
        assert_eq!(
            unmodeled(ics, "a", 0),
            ["ATTENDEE", "X-APP-COLOR", "VALARM"]
        );
        assert!(unmodeled(ics, "other", 0).is_empty());
    }

    #[test]
    fn an_edit_keeps_what_almanac_does_not_model_and_drops_what_it_removed() {
        let old = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\n\
                   DTSTART:20260105T090000Z\r\nSUMMARY:Old\r\nLOCATION:Room 1\r\n\
                   X-APP-COLOR:red\r\nATTENDEE;CN=Ann:mailto:ann@example.com\r\n\
                   SEQUENCE:3\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let new = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\n\
                   DTSTART:20260105T100000Z\r\nSUMMARY:New\r\nBEGIN:VALARM\r\n\
                   ACTION:DISPLAY\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT\r\n\
                   END:VCALENDAR\r\n";
        let kept = with_overrides(new, old, Alarms::Written);
        assert!(
            kept.contains(
                "SUMMARY:New\r\nX-APP-COLOR:red\r\n\
                               ATTENDEE;CN=Ann:mailto:ann@example.com\r\nBEGIN:VALARM"
            ),
            "{kept}"
        );
        // Removed by the edit (Almanac models it) or left out on purpose.
        assert!(
            !kept.contains("LOCATION") && !kept.contains("SEQUENCE"),
            "{kept}"
        );
        assert!(!kept.contains("SUMMARY:Old"), "{kept}");
    }

    #[test]
    fn alarms_an_edit_left_alone_stay_as_the_server_had_them() {
        let old = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nSUMMARY:Old\r\n\
                   BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-PT1H\r\nEND:VALARM\r\n\
                   BEGIN:VALARM\r\nACTION:EMAIL\r\nTRIGGER;RELATED=END:PT0S\r\nEND:VALARM\r\n\
                   END:VEVENT\r\nEND:VCALENDAR\r\n";
        let new = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nSUMMARY:New\r\n\
                   BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT60M\r\nEND:VALARM\r\n\
                   END:VEVENT\r\nEND:VCALENDAR\r\n";
        let kept = with_overrides(new, old, Alarms::Kept);
        assert_eq!(
            kept,
            old.replace("SUMMARY:Old", "SUMMARY:New"),
            "the old alarms, byte for byte"
        );
        let written = with_overrides(new, old, Alarms::Written);
        assert_eq!(written, new);
        // An event without alarms gets none from a new one's edit.
        let bare = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nSUMMARY:Old\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        assert_eq!(
            with_overrides(new, bare, Alarms::Kept),
            bare.replace("SUMMARY:Old", "SUMMARY:New")
        );
    }

    #[test]
    fn overrides_and_missing_zones_carry_over_and_the_old_master_does_not() {
        let old = "BEGIN:VCALENDAR\nBEGIN:VTIMEZONE\nTZID:Europe/Paris\nEND:VTIMEZONE\n\
                   BEGIN:VEVENT\nUID:s\nSUMMARY:Old\nBEGIN:VALARM\nEND:VALARM\nEND:VEVENT\n\
                   BEGIN:VEVENT\nUID:s\nRECURRENCE-ID;TZID=Europe/Paris:20260105T090000\nSUMMARY:Moved\nEND:VEVENT\n\
                   END:VCALENDAR\n";
        let new = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:s\r\nSUMMARY:New\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let out = with_overrides(new, old, Alarms::Written);
        assert!(
            out.contains("SUMMARY:New") && out.contains("SUMMARY:Moved"),
            "{out}"
        );
        assert!(!out.contains("SUMMARY:Old"), "{out}");
        assert!(out.contains("TZID:Europe/Paris\r\n"), "{out}");
        assert!(out.ends_with("END:VEVENT\r\nEND:VCALENDAR\r\n"), "{out}");
    }

    const SERIES: &str = "BEGIN:VCALENDAR\r\nPRODID:-//other//EN\r\nX-WR-CALNAME:Keep\r\n\
        BEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\nEND:VTIMEZONE\r\n\
        BEGIN:VEVENT\r\nUID:s\r\nDTSTART;TZID=Europe/Paris:20260105T090000\r\nRRULE:FREQ=WEEKLY\r\n\
        SUMMARY:Weekly\r\nX-ODD:kept\r\nLOCATION:Room 1\r\nBEGIN:VALARM\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT\r\n\
        BEGIN:VEVENT\r\nUID:s\r\nRECURRENCE-ID;TZID=Europe/Paris:20260112T090000\r\n\
        DTSTART;TZID=Europe/Paris:20260112T140000\r\nSUMMARY:Moved\r\nX-ODD:override\r\n\
        DESCRIPTION:a long text that was fol\r\n ded\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

    fn at(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y%m%dT%H%M%S").unwrap()
    }

    fn keys() -> Vec<Option<String>> {
        vec![None, Some("20260112T090000".into())]
    }

    const WRITTEN_BY_ALMANAC: &str = "BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\n\
        END:VTIMEZONE\r\nBEGIN:VTIMEZONE\r\nTZID:Asia/Tokyo\r\nEND:VTIMEZONE\r\n\
        BEGIN:VEVENT\r\nUID:s\r\nDTSTAMP:20260101T000000Z\r\n\
        DTSTART;TZID=Europe/Paris:20260119T100000\r\nDTEND;TZID=Europe/Paris:20260119T110000\r\n\
        SUMMARY:Later\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

    #[test]
    fn a_new_override_keeps_everything_else_and_takes_the_masters_unknowns() {
        let occurrence = Occurrence {
            uid: "s",
            key: "20260119T090000",
            at: at("20260119T090000"),
        };
        let out = put_override(SERIES, &keys(), &occurrence, WRITTEN_BY_ALMANAC, &[]).unwrap();
        // Everything before the end is as it was, byte for byte.
        let end = SERIES.rfind("END:VCALENDAR").unwrap();
        assert!(out.starts_with(&SERIES[..end]), "{out}");
        let added = &out[end..];
        assert!(
            added.contains("UID:s\r\nRECURRENCE-ID;TZID=Europe/Paris:20260119T090000\r\n"),
            "{added}"
        );
        assert!(added.contains("SUMMARY:Later\r\n"), "{added}");
        assert!(
            added.contains("X-ODD:kept\r\nLOCATION:Room 1\r\n"),
            "{added}"
        );
        assert!(added.contains("BEGIN:VALARM\r\nTRIGGER:-PT5M"), "{added}");
        assert!(
            !added.contains("RRULE") && !added.contains("Weekly"),
            "{added}"
        );
        // Only the zone the resource lacked is added.
        assert_eq!(out.matches("TZID:Europe/Paris\r\n").count(), 1, "{out}");
        assert!(added.contains("TZID:Asia/Tokyo\r\n"), "{added}");
    }

    #[test]
    fn an_existing_override_is_replaced_in_place_with_its_unknowns() {
        let occurrence = Occurrence {
            uid: "s",
            key: "20260112T090000",
            at: at("20260112T090000"),
        };
        let out = put_override(
            SERIES,
            &keys(),
            &occurrence,
            WRITTEN_BY_ALMANAC,
            &["LOCATION"],
        )
        .unwrap();
        assert_eq!(out.matches("RECURRENCE-ID").count(), 1, "{out}");
        assert!(!out.contains("SUMMARY:Moved"), "{out}");
        assert!(out.contains("X-ODD:override\r\n"), "{out}");
        assert!(out.contains("fol\r\n ded\r\n"), "{out}");
        assert!(
            out.contains("RRULE:FREQ=WEEKLY\r\nSUMMARY:Weekly\r\n"),
            "{out}"
        );
        assert!(
            out.ends_with("TZID:Asia/Tokyo\r\nEND:VTIMEZONE\r\nEND:VCALENDAR\r\n"),
            "{out}"
        );
    }

    #[test]
    fn removing_an_occurrence_drops_its_override_and_adds_an_exdate_like_dtstart() {
        let occurrence = Occurrence {
            uid: "s",
            key: "20260112T090000",
            at: at("20260112T090000"),
        };
        let out = remove_occurrence(SERIES, &keys(), &occurrence).unwrap();
        assert!(
            !out.contains("RECURRENCE-ID") && !out.contains("Moved"),
            "{out}"
        );
        assert!(
            out.contains(
                "END:VALARM\r\nEXDATE;TZID=Europe/Paris:20260112T090000\r\nEND:VEVENT\r\n"
            ),
            "{out}"
        );
        let all_day = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:d\r\nDTSTART;VALUE=DATE:20260105\r\n\
            RRULE:FREQ=DAILY\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let day = Occurrence {
            uid: "d",
            key: "20260107T000000",
            at: at("20260107T000000"),
        };
        let out = remove_occurrence(all_day, &[None], &day).unwrap();
        assert!(out.contains("EXDATE;VALUE=DATE:20260107\r\n"), "{out}");
        assert_eq!(
            remove_occurrence(all_day, &[None], &Occurrence { uid: "x", ..day }).err(),
            Some("the resource has no series `x`".into())
        );
    }
}
