//! A day with more events than a month cell shows: the month view draws a
//! few and a "+N more" link, which opens that day with all of them.

use crate::support;

use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

#[tokio::test]
async fn a_full_day_shows_more_and_opens_the_day_with_every_event() {
    let instance = AppHarness::new();
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let titles: Vec<String> = (0..7).map(|i| format!("Meeting {i}")).collect();
    for (hour, title) in (8..).zip(&titles) {
        instance.write_note(
            &format!("{today} {title}.md"),
            &format!(
                "title: {title}\nallDay: false\ndate: {today}\nstartTime: \"{hour:02}:00\"\nendTime: \"{hour:02}:30\""
            ),
        );
    }
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    let cell = format!(".fc-daygrid-day[data-date='{today}']");
    session
        .wait_for(&format!("document.querySelector(\"{cell} .almanac-more\")"))
        .await;
    // Top to bottom as drawn, whatever the order in the DOM.
    let shown = session
        .execute(
            &format!(
                "return [[...document.querySelectorAll(\"{cell} .fc-event-title\")]
                   .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
                   .map((e) => e.textContent)];"
            ),
            json!([]),
        )
        .await;
    assert_eq!(
        shown,
        json!([["Meeting 0", "Meeting 1", "Meeting 2", "+4 more"]])
    );

    session.click(&format!("{cell} .almanac-more")).await;
    session
        .wait_for("document.body.dataset.view === 'timeGridDay'")
        .await;
    let all = session
        .wait_for(
            "(() => { const t = [...document.querySelectorAll('.fc-timegrid-event .fc-event-title')].map((e) => e.textContent);
                      return t.length === 7 && t; })()",
        )
        .await;
    assert_eq!(all, json!(titles));
    session.end().await;
}
