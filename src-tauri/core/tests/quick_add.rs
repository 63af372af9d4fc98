//! Every row of docs/quick-add.md's phrase table, read by the core grammar
//! at the doc's fixed moment in its (non-UTC) display zone, around a change
//! of the clocks; and every refused line refused.

use almanac_core::quick_add::{CalendarName, Context, parse};
use almanac_testkit::quick_add_table::{Table, shown, table};
use chrono::{DateTime, Utc};

fn context_parts(table: &Table) -> (DateTime<Utc>, chrono_tz::Tz, Vec<CalendarName>) {
    let now = DateTime::parse_from_rfc3339(&table.now)
        .unwrap()
        .with_timezone(&Utc);
    let zone = table.zone.parse().unwrap();
    let calendars = table
        .calendars
        .iter()
        .map(|(id, name)| CalendarName {
            id: id.clone(),
            name: name.clone(),
        })
        .collect();
    (now, zone, calendars)
}

#[test]
fn every_row_of_the_phrase_table_makes_its_event() {
    let table = table();
    assert_ne!(
        table.zone, "UTC",
        "the table is read in a zone with an offset"
    );
    let (now, zone, calendars) = context_parts(&table);
    let context = Context {
        now,
        zone,
        calendars: &calendars,
    };
    let mut wrong = Vec::new();
    for row in &table.rows {
        match parse(&row.phrase, &context) {
            Ok(parsed) => {
                let fields = serde_json::to_value(&parsed.fields).unwrap();
                let got = shown(&fields, parsed.calendar_id.as_deref());
                if got != row.shown {
                    wrong.push(format!(
                        "{:?}\n  doc: {:?}\n  got: {got:?}",
                        row.phrase, row.shown
                    ));
                }
            }
            Err(error) => wrong.push(format!("{:?}: refused: {error}", row.phrase)),
        }
    }
    assert!(
        wrong.is_empty(),
        "{} rows differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn every_refused_line_is_refused_with_its_reason() {
    let table = table();
    let (now, zone, calendars) = context_parts(&table);
    let context = Context {
        now,
        zone,
        calendars: &calendars,
    };
    for refusal in &table.refusals {
        match parse(&refusal.phrase, &context) {
            Ok(parsed) => panic!("{:?} was read as {parsed:?}", refusal.phrase),
            Err(error) => assert!(
                error.to_string().contains(&refusal.message_part),
                "{:?}: {error}",
                refusal.phrase
            ),
        }
    }
}

#[test]
fn empty_and_blank_lines_ask_for_what_and_when() {
    let (now, zone) = (Utc::now(), chrono_tz::Tz::Europe__Berlin);
    let context = Context {
        now,
        zone,
        calendars: &[],
    };
    for line in ["", "   ", "\t"] {
        let error = parse(line, &context).unwrap_err();
        assert!(error.to_string().contains("Type what and when"), "{error}");
    }
}

#[test]
fn every_short_line_of_grammar_words_is_read_or_refused_without_a_panic() {
    // Every line of up to three of these words: phrases cut short, doubled,
    // out of order and out of range. Each either reads (with a title) or
    // is refused with a reason; none panics.
    const WORDS: [&str; 24] = [
        "x",
        "at",
        "in",
        "every",
        "until",
        "next",
        "tomorrow",
        "friday",
        "3",
        "25",
        "-",
        ",",
        "pm",
        "3pm",
        "12:30",
        "dec",
        "31",
        "2026-02-30",
        "9999",
        "days",
        "weeks",
        "hours",
        "all",
        "day",
    ];
    let calendars = [CalendarName {
        id: "work".into(),
        name: "Work Day".into(),
    }];
    let context = Context {
        now: DateTime::parse_from_rfc3339("2026-10-25T00:30:00Z")
            .unwrap()
            .with_timezone(&Utc),
        zone: chrono_tz::Tz::Europe__Berlin,
        calendars: &calendars,
    };
    let mut read = 0;
    let n = WORDS.len();
    for length in 1..=3u32 {
        for index in 0..n.pow(length) {
            let line: Vec<&str> = (0..length).map(|k| WORDS[index / n.pow(k) % n]).collect();
            let line = line.join(" ");
            match parse(&line, &context) {
                Ok(parsed) => {
                    read += 1;
                    assert!(
                        !parsed
                            .fields
                            .title
                            .as_deref()
                            .unwrap_or_default()
                            .trim()
                            .is_empty(),
                        "{line}: {parsed:?}"
                    );
                }
                Err(error) => assert!(!error.to_string().is_empty(), "{line}"),
            }
        }
    }
    assert!(read > 100, "only {read} lines read");
}
