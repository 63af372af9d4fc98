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
