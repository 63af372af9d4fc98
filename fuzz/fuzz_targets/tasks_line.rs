//! Fuzzes the Obsidian Tasks reader and its rewrite: a note's task lines
//! must read without panic, and every write Almanac makes to a task line
//! (tick, untick, a new date, new times: `tasks::edit`, as `update` makes
//! them) must read back as the event asked for, keep the task's id and
//! leave the text it does not own (indentation, list marker, block link)
//! as it was. The whole event sent back unchanged changes nothing.
#![no_main]

use almanac_core::calendar::EventFields;
use almanac_core::calendar::{Completion, EventType};
use almanac_core::calendar::sources::tasks::edit::{Change, change_of, edit_line};
use almanac_core::calendar::sources::tasks::line::{TaskLine, parse_line};
use almanac_core::calendar::sources::tasks::{self, task_event, task_lines};
use almanac_core::settings::TaskDateField;
use chrono::{NaiveDate, NaiveTime};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

/// The most task lines of one input given every rewrite.
const MAX_TASKS: usize = 64;

const FIELDS: [TaskDateField; 3] = [
    TaskDateField::Due,
    TaskDateField::Scheduled,
    TaskDateField::Start,
];

fn fields(value: serde_json::Value) -> EventFields {
    serde_json::from_value(value).expect("valid event fields")
}

/// `rewritten` (a write to `line`) kept what comes before the status box
/// and the trailing block link, and reads back as a task.
fn reread(line: &str, task: &TaskLine, rewritten: &str) -> TaskLine {
    assert!(
        rewritten.starts_with(&line[..task.status_at.start]),
        "the prefix is kept: {line:?} -> {rewritten:?}"
    );
    assert!(
        rewritten.ends_with(&line[task.fields_end..]),
        "the block link is kept: {line:?} -> {rewritten:?}"
    );
    parse_line(rewritten, task.line)
        .unwrap_or_else(|| panic!("a rewrite is a task: {line:?} -> {rewritten:?}"))
}

fn check(line: &str, task: &TaskLine, field: TaskDateField) {
    let today = NaiveDate::from_ymd_opt(2026, 1, 2).unwrap();
    let Ok(Some(event)) = task_event(task, field) else {
        return;
    };
    let spec = event.spec;
    let spec_of = |line: &str, again: &TaskLine| {
        task_event(again, field)
            .unwrap_or_else(|e| panic!("{line:?} reads back: {e}"))
            .unwrap_or_else(|| panic!("{line:?} keeps its date"))
            .spec
    };

    // The event sent back as it was read changes nothing (a title holding
    // a control character, which no write takes, is refused by name).
    let same = serde_json::to_value(spec.to_event("task:n.md::x".into(), "tasks", "Tasks"))
        .expect("an event is JSON");
    match change_of(&spec, &fields(same), today) {
        Ok(change) => assert_eq!(change, Change::default(), "sent back: {line:?}"),
        Err(e) => assert!(
            e.to_string().contains("`title`") && spec.title.contains(|c: char| c.is_control()),
            "the event sent back unchanged is refused: {line:?}: {e}"
        ),
    }
    if spec.kind != EventType::Single {
        return;
    }

    // Ticked: done today; unticked: the line as it was, when it was `[ ]`
    // and held no done or cancelled date (`[/]` and the like untick to
    // `[ ]`).
    if !task.is_finished() {
        let tick = change_of(&spec, &fields(json!({"completed": true})), today)
            .unwrap_or_else(|e| panic!("an open task can be ticked: {line:?}: {e}"));
        let ticked = edit_line(line, task, field, &tick).expect("a tick is written");
        let again = reread(line, task, &ticked);
        assert_eq!(
            again.identity, task.identity,
            "a tick keeps the id: {ticked:?}"
        );
        let mut done = spec.clone();
        done.completed = Some(Completion::Done(Some("2026-01-02".into())));
        assert_eq!(
            spec_of(&ticked, &again),
            done,
            "{line:?} ticked: {ticked:?}"
        );
        let untick = change_of(&done, &fields(json!({"completed": false})), today)
            .unwrap_or_else(|e| panic!("a done task can be unticked: {ticked:?}: {e}"));
        let unticked = edit_line(&ticked, &again, field, &untick).expect("an untick is written");
        if task.status == ' ' && task.fields.done.is_none() && task.fields.cancelled.is_none() {
            assert_eq!(unticked, line, "ticked and unticked: {ticked:?}");
        }
    }

    // A new date: that date, all else as it was.
    let day = match spec.date {
        Some(d) if d == NaiveDate::from_ymd_opt(2030, 6, 15).unwrap() => "2030-06-16",
        _ => "2030-06-15",
    };
    let moved = change_of(&spec, &fields(json!({"date": day})), today)
        .unwrap_or_else(|e| panic!("a task can move: {line:?}: {e}"));
    let rewritten = edit_line(line, task, field, &moved).expect("a move is written");
    let again = reread(line, task, &rewritten);
    let mut want = spec.clone();
    want.date = day.parse().ok();
    assert_eq!(
        spec_of(&rewritten, &again),
        want,
        "{line:?} moved: {rewritten:?}"
    );
    assert_eq!(again.title, task.title, "{line:?} moved: {rewritten:?}");

    let Some(start) = spec.start_time else {
        return;
    };
    // The times written again as they are: the same event and title.
    let same = Change {
        time: Some((start, spec.end_time)),
        ..Change::default()
    };
    let rewritten = edit_line(line, task, field, &same).expect("times are written");
    let again = reread(line, task, &rewritten);
    assert_eq!(
        spec_of(&rewritten, &again),
        spec,
        "{line:?} retimed: {rewritten:?}"
    );
    assert_eq!(again.title, task.title, "{line:?} retimed: {rewritten:?}");
    // New times: those times.
    let retime = change_of(
        &spec,
        &fields(json!({"startTime": "14:00", "endTime": "15:30"})),
        today,
    )
    .unwrap_or_else(|e| panic!("a timed task can move: {line:?}: {e}"));
    let rewritten = edit_line(line, task, field, &retime).expect("times are written");
    let again = reread(line, task, &rewritten);
    let mut want = spec.clone();
    want.start_time = NaiveTime::from_hms_opt(14, 0, 0);
    want.end_time = NaiveTime::from_hms_opt(15, 30, 0);
    assert_eq!(
        spec_of(&rewritten, &again),
        want,
        "{line:?} retimed: {rewritten:?}"
    );
    assert_eq!(again.title, task.title, "{line:?} retimed: {rewritten:?}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = tasks::parse(
        TaskDateField::Due,
        "Tasks.md",
        text,
        chrono_tz::Tz::Europe__Berlin,
    );
    let found = task_lines(text);
    let ids = tasks::ids("Tasks.md", &found);
    assert_eq!(ids.len(), found.len());
    let lines: Vec<&str> = text.split('\n').collect();
    for task in found.iter().take(MAX_TASKS) {
        // As `edit::update` takes the line: without its `\r`.
        let raw = lines[task.line];
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        assert_eq!(parse_line(line, task.line).as_ref(), Some(task));
        check(line, task, FIELDS[task.line % FIELDS.len()]);
    }
});
