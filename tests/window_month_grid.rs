//! The month view, the window's own grid (`ui/src/js/month_grid.js`): an
//! event of several days spans exactly its days, the events of a week never
//! overlap, and FullCalendar's interactions find the days through it. A drag
//! to another day moves the note, the end's handle lengthens it, and a drag
//! over empty days opens a new all-day event over them. Opened, an event of
//! several days shows its last day (the dialog once left it blank, and a save
//! then cut the event to one day). A title that reads as markup is shown as
//! text.

use crate::support;
use crate::window_editing::{
    dialog_closed, dialog_open, note, note_changed, note_gone, note_path, rect, start, value,
    with_lines,
};

use chrono::{Datelike, Duration, NaiveDate};
use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

const ESCAPE: &str = "\u{E00C}";
/// A title that reads as markup; the grid must show it as it is.
const MARKUP: &str = "<img src=x onerror=alert(1)> <b>bold</b> & more";

/// The day frame of `date`: the box behind the whole day in its week.
fn frame(date: NaiveDate) -> String {
    format!(".fc-daygrid-day[data-date='{date}'] .fc-daygrid-day-frame")
}

fn event(title: &str) -> String {
    format!(".fc-event[data-title='{title}']")
}

/// The centre of `css`'s box, in viewport pixels.
async fn centre(session: &Session, css: &str) -> (f64, f64) {
    let [x, y, width, height] = rect(session, css).await;
    (x + width / 2.0, y + height / 2.0)
}

/// Whether any two events drawn in the week holding `date` overlap.
async fn overlapping(session: &Session, date: NaiveDate) -> Vec<String> {
    let found = session
        .execute(
            "const week = document.querySelector(arguments[0]).closest('.almanac-week');
             const boxes = [...week.querySelectorAll('.fc-event')]
               .map((e) => [e.dataset.title, e.getBoundingClientRect()]);
             const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
             return boxes.flatMap(([t, a], i) => boxes.slice(i + 1)
               .filter(([, b]) => meet(a, b)).map(([u]) => `${t} / ${u}`));",
            json!([frame(date)]),
        )
        .await;
    serde_json::from_value(found).unwrap()
}

#[tokio::test]
async fn events_span_their_days_and_move_lengthen_and_select_by_day() {
    let instance = AppHarness::with_settings(json!({
        "initialView": "dayGridMonth",
        "displayTimezone": "UTC",
    }));
    // The week holding the 15th is in the month shown, whatever the month.
    let mid = chrono::Utc::now().date_naive().with_day(15).unwrap();
    let sunday = mid - Duration::days(mid.weekday().num_days_from_sunday().into());
    let day = |n: i64| sunday + Duration::days(n);
    let conference = format!(
        "---\ntitle: Conference\nallDay: true\ndate: {}\nendDate: {}\n---\n",
        day(1),
        day(3)
    );
    let lunch = format!("---\ntitle: Lunch\nallDay: true\ndate: {}\n---\n", day(2));
    let call = format!(
        "---\ntitle: Call\nallDay: false\ndate: {}\nstartTime: \"10:00\"\nendTime: \"11:00\"\n---\n",
        day(3)
    );
    // Outside text is drawn as text: a title that reads as markup.
    let markup = format!(
        "---\ntitle: \"{MARKUP}\"\nallDay: false\ndate: {}\nstartTime: \"09:00\"\n---\n",
        day(6)
    );
    for (date, title, text) in [
        (day(1), "Conference", &conference),
        (day(2), "Lunch", &lunch),
        (day(3), "Call", &call),
        (day(6), "Markup", &markup),
    ] {
        std::fs::write(note_path(&instance, &format!("{date} {title}.md")), text).unwrap();
    }
    let session = start(&instance, Theme::Light).await;
    for title in ["Conference", "Lunch", "Call"] {
        session
            .wait_for(&format!("document.querySelector(\"{}\")", event(title)))
            .await;
    }
    let markup_day = format!(".fc-daygrid-day[data-date='{}']", day(6));
    session
        .wait_for(&format!(
            "document.querySelector(\"{markup_day} .fc-event\")"
        ))
        .await;
    let shown = session
        .execute(
            "const e = document.querySelector(arguments[0] + ' .fc-event');
             return [e.querySelector('.fc-event-title').textContent, e.querySelectorAll('img, b').length];",
            json!([markup_day]),
        )
        .await;
    assert_eq!(shown, json!([MARKUP, 0]));

    // Monday to Wednesday: from Monday's left edge to Wednesday's right one
    // (FullCalendar's 2 px inset at each end), above the others.
    let [left, _, _, _] = rect(&session, &frame(day(1))).await;
    let [wed_x, _, wed_width, _] = rect(&session, &frame(day(3))).await;
    let [x, y, width, height] = rect(&session, &event("Conference")).await;
    assert!(
        (left..=left + 4.0).contains(&x),
        "starts at Monday: {x} vs {left}"
    );
    let right = wed_x + wed_width;
    assert!(
        (right - 4.0..=right).contains(&(x + width)),
        "ends with Wednesday: {} vs {right}",
        x + width
    );
    for title in ["Lunch", "Call"] {
        let [_, top, _, _] = rect(&session, &event(title)).await;
        assert!(top >= y + height - 0.5, "{title} under the Conference");
    }
    assert_eq!(overlapping(&session, day(1)).await, Vec::<String>::new());

    // Lunch dragged from Tuesday to Friday (real mouse input).
    let grab = centre(&session, &event("Lunch")).await;
    let friday = centre(&session, &frame(day(5))).await;
    session.drag(grab, (friday.0, grab.1)).await;
    let moved = note(&instance, &format!("{} Lunch.md", day(5))).await;
    assert_eq!(
        moved,
        with_lines(&lunch, &[("date", &format!("date: {}", day(5)))])
    );
    note_gone(&instance, &format!("{} Lunch.md", day(2))).await;
    session
        .wait_for(&format!(
            "document.querySelector(\".fc-daygrid-day[data-date='{}'] {}\")",
            day(5),
            event("Lunch")
        ))
        .await;

    // The Conference's end pulled from Wednesday to Thursday by its handle
    // (shown on hover at its right end).
    let [x, y, width, height] = rect(&session, &event("Conference")).await;
    let handle = (x + width - 2.0, y + height / 2.0);
    let thursday = centre(&session, &frame(day(4))).await;
    session.drag(handle, (thursday.0, handle.1)).await;
    let name = format!("{} Conference.md", day(1));
    let longer = note_changed(&instance, &name, &conference).await;
    assert_eq!(
        longer,
        with_lines(&conference, &[("endDate", &format!("endDate: {}", day(4)))])
    );
    session
        .wait_for(&format!(
            "(() => {{ const e = document.querySelector(\"{}\").getBoundingClientRect();
                      const t = document.querySelector(\"{}\").getBoundingClientRect();
                      return Math.abs(e.right - t.right) <= 4; }})()",
            event("Conference"),
            frame(day(4))
        ))
        .await;
    assert_eq!(overlapping(&session, day(1)).await, Vec::<String>::new());
    // Opened, it shows its days, and a save (made a task) keeps them.
    session.click(&event("Conference")).await;
    dialog_open(&session).await;
    assert_eq!(value(&session, "ev-date").await, json!(day(1).to_string()));
    assert_eq!(
        value(&session, "ev-end-date").await,
        json!(day(4).to_string())
    );
    session.click("#ev-task").await;
    session.click("#ev-save").await;
    dialog_closed(&session).await;
    let task = note_changed(&instance, &name, &longer).await;
    assert!(task.contains(&format!("endDate: {}", day(4))), "{task}");
    assert!(task.contains("completed: false"), "{task}");

    // Empty days of the next week, dragged over: a new all-day event on them.
    let from = centre(&session, &frame(day(8))).await;
    let to = centre(&session, &frame(day(10))).await;
    session.drag(from, to).await;
    dialog_open(&session).await;
    assert_eq!(value(&session, "ev-allday").await, json!(true));
    assert_eq!(value(&session, "ev-date").await, json!(day(8).to_string()));
    assert_eq!(
        value(&session, "ev-end-date").await,
        json!(day(10).to_string())
    );
    session.press(ESCAPE).await;
    dialog_closed(&session).await;
    session.end().await;
}
