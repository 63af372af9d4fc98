use chrono::{NaiveDate, NaiveTime};
use proptest::prelude::*;

use super::edit::{Change, change_of, edit_line};
use super::line::{TimeStyle, parse_line};
use super::*;
use almanac_model::fields::EventFields;

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

fn time(text: &str) -> NaiveTime {
    NaiveTime::parse_from_str(text, "%H:%M").unwrap()
}

fn task(line: &str) -> TaskLine {
    parse_line(line, 0).unwrap_or_else(|| panic!("not a task: {line}"))
}

fn spec(line: &str, field: TaskDateField) -> EventSpec {
    task_event(&task(line), field).unwrap().unwrap().spec
}

fn fields(json: serde_json::Value) -> EventFields {
    serde_json::from_value(json).unwrap()
}

#[test]
fn every_field_of_the_emoji_format_is_read_and_kept_out_of_the_title() {
    let line = "- [ ] Pay rent #home 🔺 🔁 every month on the 1st ➕ 2026-10-01 🛫 2026-10-20 \
                ⏳ 2026-10-25 📅 2026-11-01 ⏰ 2026-10-31 09:00 🆔 rent1 ⛔ abc, def_2 #money ^rent";
    let t = task(line);
    assert_eq!(t.title, "Pay rent #home #money");
    assert_eq!(t.status, ' ');
    let f = &t.fields;
    assert_eq!(f.priority, Some('🔺'));
    assert_eq!(f.recurrence.as_deref(), Some("every month on the 1st"));
    assert_eq!(f.created.as_ref().unwrap().date, Some(day("2026-10-01")));
    assert_eq!(f.start.as_ref().unwrap().date, Some(day("2026-10-20")));
    assert_eq!(f.scheduled.as_ref().unwrap().date, Some(day("2026-10-25")));
    assert_eq!(f.due.as_ref().unwrap().date, Some(day("2026-11-01")));
    assert_eq!(f.reminder.as_deref(), Some("2026-10-31 09:00"));
    assert_eq!(f.id.as_deref(), Some("rent1"));
    assert_eq!(f.depends_on, ["abc", "def_2"]);
    // Each date's text is where the range says.
    assert_eq!(&line[f.due.as_ref().unwrap().value.clone()], "2026-11-01");
    assert_eq!(&line[t.fields_end..], " ^rent");

    let done = task("- [x] Filed taxes ✅ 2026-04-01 ❌ 2026-04-02 📆 2026-03-31 ⏬");
    assert_eq!(done.title, "Filed taxes");
    assert_eq!(
        done.fields.done.as_ref().unwrap().date,
        Some(day("2026-04-01"))
    );
    assert_eq!(
        done.fields.cancelled.as_ref().unwrap().date,
        Some(day("2026-04-02"))
    );
    assert_eq!(
        done.fields.due.as_ref().unwrap().date,
        Some(day("2026-03-31"))
    );
    assert_eq!(done.fields.priority, Some('⏬'));
    // The other spellings the plugin accepts, and emoji variation selectors.
    let alt = task("- [ ] Water ⌛ 2026-05-02 🗓\u{FE0F} 2026-05-03 ⏫\u{FE0F}");
    assert_eq!(alt.title, "Water");
    assert_eq!(
        alt.fields.scheduled.as_ref().unwrap().date,
        Some(day("2026-05-02"))
    );
    assert_eq!(
        alt.fields.due.as_ref().unwrap().date,
        Some(day("2026-05-03"))
    );
    assert_eq!(alt.fields.priority, Some('⏫'));
    // A field in the middle of the description is part of the title, as in the plugin.
    assert_eq!(task("- [ ] a 📅 2026-01-01 b").title, "a 📅 2026-01-01 b");
}

#[test]
fn status_characters_list_markers_nesting_and_quotes() {
    for (line, status) in [
        ("- [ ] a 📅 2026-01-01", ' '),
        ("* [x] a 📅 2026-01-01", 'x'),
        ("+ [X] a 📅 2026-01-01", 'X'),
        ("1. [-] a 📅 2026-01-01", '-'),
        ("12. [/] a 📅 2026-01-01", '/'),
        ("    - [ ] nested 📅 2026-01-01", ' '),
        ("\t\t- [>] custom 📅 2026-01-01", '>'),
        ("> - [ ] quoted 📅 2026-01-01", ' '),
        ("> > 1. [x] callout in callout 📅 2026-01-01", 'x'),
        (">- [ ] tight quote 📅 2026-01-01", ' '),
    ] {
        assert_eq!(task(line).status, status, "{line}");
        assert_eq!(&line[task(line).status_at], status.to_string(), "{line}");
    }
    let open = |status| spec(&format!("- [{status}] a 📅 2026-01-01"), TaskDateField::Due);
    assert_eq!(open(' ').completed, Some(Completion::Open));
    assert_eq!(open('/').completed, Some(Completion::Open));
    assert_eq!(open('x').completed, Some(Completion::Done(None)));
    assert_eq!(open('-').completed, Some(Completion::Done(None)));
    assert_eq!(
        spec("- [x] a 📅 2026-01-01 ✅ 2026-01-02", TaskDateField::Due).completed,
        Some(Completion::Done(Some("2026-01-02".into())))
    );
    assert_eq!(
        spec("- [-] a 📅 2026-01-01 ❌ 2026-01-03", TaskDateField::Due).completed,
        Some(Completion::Done(Some("2026-01-03".into())))
    );
}

#[test]
fn lines_that_are_not_tasks_are_none() {
    for line in [
        "",
        "plain text 📅 2026-01-01",
        "- plain item 📅 2026-01-01",
        "-[ ] no space",
        "- [] empty box",
        "- [ no close",
        "1) [ ] paren number",
        "a. [ ] letter",
        "# [ ] heading",
        "- ",
        "- [",
    ] {
        assert_eq!(parse_line(line, 0), None, "{line:?}");
    }
    // The box may be followed by nothing, or text at once.
    assert_eq!(task("- [ ]").title, "");
    assert_eq!(task("- [ ]x").title, "x");
}

#[test]
fn both_time_forms_of_the_full_calendar_plugin() {
    let cases = [
        (
            "- [ ] 09:00 - 10:30 Review ⏳ 2026-11-30",
            "Review",
            "09:00",
            Some("10:30"),
            TimeStyle::Planner,
        ),
        (
            "- [ ] 9:00-10:00 Tight ⏳ 2026-11-30",
            "Tight",
            "09:00",
            Some("10:00"),
            TimeStyle::Planner,
        ),
        (
            "- [ ] 07:15 Run 📅 2026-11-30",
            "Run",
            "07:15",
            None,
            TimeStyle::Planner,
        ),
        (
            "- [ ] Meeting (9:00 AM-10:00 AM) 📅 2026-11-30",
            "Meeting",
            "09:00",
            Some("10:00"),
            TimeStyle::Parens,
        ),
        (
            "- [ ] Standup (9:00AM-5:30pm) 📅 2026-11-30",
            "Standup",
            "09:00",
            Some("17:30"),
            TimeStyle::Parens,
        ),
        (
            "- [ ] Call (18:00-20:00) client 📅 2026-11-30",
            "Call client",
            "18:00",
            Some("20:00"),
            TimeStyle::Parens,
        ),
        (
            "- [ ] Lunch (12:00 PM) 📅 2026-11-30",
            "Lunch",
            "12:00",
            None,
            TimeStyle::Parens,
        ),
        (
            "- [ ] Night (12:30 am) 📅 2026-11-30",
            "Night",
            "00:30",
            None,
            TimeStyle::Parens,
        ),
    ];
    for (line, title, start, end, style) in cases {
        let t = task(line);
        assert_eq!(t.title, title, "{line}");
        let form = t.time.as_ref().unwrap_or_else(|| panic!("no time: {line}"));
        assert_eq!(form.start, time(start), "{line}");
        assert_eq!(form.end, end.map(time), "{line}");
        assert_eq!(form.style, style, "{line}");
        let s = spec(line, TaskDateField::Due);
        assert!(!s.all_day, "{line}");
        assert_eq!(s.start_time, Some(time(start)), "{line}");
    }
    // Not times: a time in the text, a time with no title after it, a
    // word after the time, impossible times.
    for line in [
        "- [ ] Meet at 18:00 for dinner 📅 2026-11-30",
        "- [ ] 09:00 📅 2026-11-30",
        "- [ ] Trip (25:00) 📅 2026-11-30",
        "- [ ] Trip (13:00 PM) 📅 2026-11-30",
    ] {
        assert_eq!(task(line).time, None, "{line}");
        assert!(spec(line, TaskDateField::Due).all_day, "{line}");
    }
    let word = task("- [ ] 10:00 Amsterdam train 📅 2026-11-30");
    assert_eq!(word.title, "Amsterdam train");
    assert_eq!(word.time.unwrap().start, time("10:00"));
}

#[test]
fn the_date_field_picks_the_day_and_the_others_stand_in() {
    let all = "- [ ] a 🛫 2026-01-01 ⏳ 2026-01-02 📅 2026-01-03";
    assert_eq!(spec(all, TaskDateField::Due).date, Some(day("2026-01-03")));
    assert_eq!(
        spec(all, TaskDateField::Scheduled).date,
        Some(day("2026-01-02"))
    );
    assert_eq!(
        spec(all, TaskDateField::Start).date,
        Some(day("2026-01-01"))
    );
    // Only one date: every setting shows the task (plugin issue #239).
    for only in [
        "- [ ] b ⏳ 2026-02-02",
        "- [ ] b 🛫 2026-02-02",
        "- [ ] b 📅 2026-02-02",
    ] {
        for field in [
            TaskDateField::Due,
            TaskDateField::Scheduled,
            TaskDateField::Start,
        ] {
            assert_eq!(
                spec(only, field).date,
                Some(day("2026-02-02")),
                "{only} {field:?}"
            );
        }
    }
    // Due first, then scheduled, when start is asked for and missing.
    let two = "- [ ] c ⏳ 2026-03-02 📅 2026-03-03";
    assert_eq!(
        spec(two, TaskDateField::Start).date,
        Some(day("2026-03-03"))
    );
    // Created and done dates never place a task.
    let none = task("- [x] d ➕ 2026-01-01 ✅ 2026-01-02");
    assert!(task_event(&none, TaskDateField::Due).unwrap().is_none());
}

#[test]
fn a_readable_rule_makes_a_series_and_an_unreadable_one_shows_once() {
    let series = spec(
        "- [ ] Rent 🔁 every month on the 1st 📅 2026-11-01",
        TaskDateField::Due,
    );
    assert_eq!(series.kind, EventType::Rrule);
    assert_eq!(series.rrule.as_deref(), Some("FREQ=MONTHLY;BYMONTHDAY=1"));
    assert_eq!(series.start_date, Some(day("2026-11-01")));
    let kept = task_event(
        &task("- [ ] Mow 🔁 every week when done 📅 2026-11-01"),
        TaskDateField::Due,
    )
    .unwrap()
    .unwrap();
    assert_eq!(kept.spec.kind, EventType::Single);
    assert_eq!(kept.spec.date, Some(day("2026-11-01")));
    assert!(kept.unread_rule.unwrap().contains("when done"));
    // A ticked recurring task is the record of one occurrence.
    let done = spec(
        "- [x] Rent 🔁 every month 📅 2026-10-01 ✅ 2026-10-01",
        TaskDateField::Due,
    );
    assert_eq!(done.kind, EventType::Single);
}

#[test]
fn a_note_is_read_with_fences_and_frontmatter_skipped_and_problems_named() {
    let text = "---\ntags: [x]\nlist:\n- [ ] yaml 📅 2026-01-01\n---\n# Home\r\n\
                - [ ] Pay rent 📅 2026-11-30\r\n\
                ```\n- [ ] code 📅 2026-01-01\n```\n\
                > ~~~\n> - [ ] quoted code 📅 2026-01-01\n> ~~~\n\
                - [ ] No date\n\
                - [ ] Bad day 📅 2026-02-30\n\
                - [ ] 📅 2026-01-05\n\
                - [ ] Mow 🔁 every week when done 📅 2026-11-02\n\
                \t- [x] Nested (9:00 AM) ⏳ 2026-11-03\n";
    let parsed = parse(TaskDateField::Due, "Home.md", text, chrono_tz::UTC);
    let titles: Vec<&str> = parsed
        .entries
        .iter()
        .map(|e| e.spec.title.as_str())
        .collect();
    assert_eq!(titles, ["Pay rent", "Mow", "Nested"]);
    assert_eq!(parsed.entries[0].line_number, 6);
    assert!(
        parsed
            .entries
            .iter()
            .all(|e| e.id.starts_with("task:Home.md::"))
    );
    let skipped: Vec<(&str, &str)> = parsed
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    assert_eq!(skipped[0].0, "Home.md:15");
    assert!(
        skipped[0].1.contains("due date is not a day"),
        "{skipped:?}"
    );
    assert_eq!(skipped[1].0, "Home.md:16");
    assert!(skipped[1].1.contains("title"), "{skipped:?}");
    assert_eq!(skipped[2].0, "Home.md:17");
    assert!(skipped[2].1.starts_with("kept once"), "{skipped:?}");
    let refs: Vec<&SkippedNote> = parsed.skipped.iter().collect();
    let summary = status(&refs).unwrap();
    assert!(summary.starts_with("Home.md:15: ") && summary.ends_with("(and 2 more lines)"));
}

#[test]
fn ids_survive_lines_added_above_and_ticks_elsewhere() {
    let ids_of = |text: &str| ids("n.md", &task_lines(text));
    let before = ids_of("- [ ] a 📅 2026-01-01\n- [ ] b 📅 2026-01-02\n- [ ] a 📅 2026-01-01\n");
    assert_eq!(before[0], "task:n.md::".to_string() + &before[0][11..]);
    assert!(before[2].ends_with("-2"));
    let after = ids_of(
        "# new heading\n\ntext\n- [x] a 📅 2026-01-01 ✅ 2026-01-01\n  - [ ] b 📅 2026-01-02\n- [ ] a 📅 2026-01-01\n",
    );
    assert_eq!(before, after, "ticked, indented and moved down");
    // The task's own tick keeps its id too.
    assert_eq!(
        ids_of("- [ ] c 📅 2026-01-01")[0],
        ids_of("- [x] c 📅 2026-01-01 ✅ 2026-02-02")[0]
    );
    // A 🆔 names the task whatever its text.
    let named = ids_of("- [ ] x 🆔 abc\n- [ ] y 🆔 abc\n");
    assert_eq!(named, ["task:n.md::id-abc", "task:n.md::id-abc.2"]);
    assert_eq!(ids_of("- [ ] changed 📅 2027-01-01 🆔 abc")[0], named[0]);
}

#[test]
fn ticking_writes_the_status_and_done_date_and_nothing_else() {
    let line = "  - [ ] Pay rent #home 📅 2026-11-30 ^rent";
    let t = task(line);
    let today = day("2026-11-28");
    let tick = change_of(
        &spec(line, TaskDateField::Due),
        &fields(serde_json::json!({"completed": true})),
        today,
    )
    .unwrap();
    assert_eq!(
        tick,
        Change {
            completed: Some(Some(today)),
            ..Change::default()
        }
    );
    let ticked = edit_line(line, &t, TaskDateField::Due, &tick).unwrap();
    assert_eq!(
        ticked,
        "  - [x] Pay rent #home 📅 2026-11-30 ✅ 2026-11-28 ^rent"
    );
    // And back.
    let t2 = task(&ticked);
    let untick = change_of(
        &spec(&ticked, TaskDateField::Due),
        &fields(serde_json::json!({"completed": false})),
        today,
    )
    .unwrap();
    assert_eq!(
        edit_line(&ticked, &t2, TaskDateField::Due, &untick).unwrap(),
        line
    );
    // A date sent as `completed` is the done date.
    let dated = change_of(
        &spec(line, TaskDateField::Due),
        &fields(serde_json::json!({"completed": "2026-12-01T10:00:00Z"})),
        today,
    )
    .unwrap();
    assert_eq!(dated.completed, Some(Some(day("2026-12-01"))));
}

/// An open task that still holds a ✅ date (ticked and unticked by hand)
/// is done on the day it is ticked, not on the stale date (found by the
/// `tasks_line` fuzz target: `fuzz/crashes/tasks_line/`).
#[test]
fn ticking_an_open_task_with_a_stale_done_date_sets_that_date() {
    let line = "- [ ] a 📅 2026-01-01 ✅ 2025-12-31 ^b";
    let today = day("2026-01-02");
    let tick = change_of(
        &spec(line, TaskDateField::Due),
        &fields(serde_json::json!({"completed": true})),
        today,
    )
    .unwrap();
    let ticked = edit_line(line, &task(line), TaskDateField::Due, &tick).unwrap();
    assert_eq!(ticked, "- [x] a 📅 2026-01-01 ✅ 2026-01-02 ^b");
    assert_eq!(
        spec(&ticked, TaskDateField::Due).completed,
        Some(Completion::Done(Some("2026-01-02".into())))
    );
}

#[test]
fn moving_rewrites_the_placing_date_and_the_time_in_its_form() {
    let today = day("2026-01-01");
    let line = "- [ ] Review (9:00 AM-10:00 AM) 🛫 2026-11-01 ⏳ 2026-11-30 #work";
    let current = spec(line, TaskDateField::Scheduled);
    let moved = change_of(
        &current,
        &fields(serde_json::json!({"date": "2026-12-02", "startTime": "14:00", "endTime": "15:30", "allDay": false})),
        today,
    )
    .unwrap();
    let out = edit_line(line, &task(line), TaskDateField::Scheduled, &moved).unwrap();
    assert_eq!(
        out,
        "- [ ] Review (2:00 PM-3:30 PM) 🛫 2026-11-01 ⏳ 2026-12-02 #work"
    );
    let planner = "1. [ ] 09:00 - 10:00 Standup 📅 2026-11-30";
    let change = Change {
        time: Some((time("08:30"), None)),
        ..Change::default()
    };
    assert_eq!(
        edit_line(planner, &task(planner), TaskDateField::Due, &change).unwrap(),
        "1. [ ] 08:30 Standup 📅 2026-11-30"
    );
    // The fallback date is the one moved when the chosen one is missing.
    let only_start = "- [ ] x 🛫 2026-11-01";
    let change = Change {
        date: Some(day("2026-11-05")),
        ..Change::default()
    };
    assert_eq!(
        edit_line(only_start, &task(only_start), TaskDateField::Due, &change).unwrap(),
        "- [ ] x 🛫 2026-11-05"
    );
}

#[test]
fn what_a_task_line_cannot_hold_is_refused() {
    let today = day("2026-01-01");
    let line = "- [ ] Pay rent 📅 2026-11-30";
    let current = spec(line, TaskDateField::Due);
    for patch in [
        serde_json::json!({"title": "Other"}),
        serde_json::json!({"location": "Home"}),
        serde_json::json!({"allDay": false, "startTime": "09:00"}),
        serde_json::json!({"endDate": "2026-12-02"}),
        serde_json::json!({"isTask": false}),
    ] {
        let refused = change_of(&current, &fields(patch.clone()), today).unwrap_err();
        assert!(refused.to_string().contains("task"), "{patch}: {refused}");
    }
    // The whole event sent back unchanged changes nothing.
    let same = serde_json::to_value(current.to_event("x".into(), "c", "C")).unwrap();
    assert_eq!(
        change_of(&current, &fields(same), today).unwrap(),
        Change::default()
    );
    let series = spec(
        "- [ ] Rent 🔁 every month 📅 2026-11-01",
        TaskDateField::Due,
    );
    let refused = change_of(
        &series,
        &fields(serde_json::json!({"completed": true})),
        today,
    )
    .unwrap_err();
    assert!(refused.to_string().contains("recurring"), "{refused}");
}

proptest! {
    /// Whatever a note holds, reading it does not panic, every task's
    /// ranges fall on character boundaries of its line, and ticking then
    /// unticking an open task gives the line back.
    #[test]
    fn any_text_reads_without_panic(text in "(\\PC|[\\[\\]\\-\\*>x ✅📅⏳🛫🔁🆔⛔()#:0-9APM\\n])*") {
        let _ = parse(TaskDateField::Due, "p.md", &text, chrono_tz::UTC);
        for (number, line) in text.split('\n').enumerate() {
            let Some(t) = parse_line(line, number) else { continue };
            prop_assert!(line.get(t.status_at.clone()).is_some());
            prop_assert!(line.get(t.fields_end..).is_some());
            if t.status == ' ' && t.fields.done.is_none() && t.fields.cancelled.is_none() {
                let tick = Change { completed: Some(Some(day("2026-01-01"))), ..Change::default() };
                let ticked = edit_line(line, &t, TaskDateField::Due, &tick).unwrap();
                let again = parse_line(&ticked, number).unwrap();
                let untick = Change { completed: Some(None), ..Change::default() };
                prop_assert_eq!(edit_line(&ticked, &again, TaskDateField::Due, &untick).unwrap(), line);
            }
        }
    }
}

/// A note of 100,000 task lines: ids come in one look-up each (the duplicate
/// counter still counts), the first 10,000 tasks are read and the note is
/// named in what was left out, with the cap.
#[test]
fn a_note_of_a_hundred_thousand_tasks_is_read_up_to_its_cap() {
    let mut text = String::new();
    for n in 0..100_000 {
        text.push_str(&format!("- [ ] Task {n} 📅 2026-03-02\n"));
    }
    text.push_str("- [ ] Task 0 📅 2026-03-02\n");
    let all = task_lines(&text);
    let ids = ids("Tasks.md", &all);
    assert_eq!(ids.len(), 100_001);
    assert_eq!(ids[100_000], format!("{}-2", ids[0]));

    let parsed = parse(TaskDateField::Due, "Tasks.md", &text, chrono_tz::UTC);
    assert_eq!(parsed.entries.len(), MAX_TASKS_PER_NOTE);
    let left_out: Vec<_> = parsed.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert_eq!(
        left_out,
        ["holds 100001 tasks; only its first 10000 are read"],
        "{left_out:?}"
    );
}
