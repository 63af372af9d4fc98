//! A second time zone on the time axis (`ui/src/js/second_zone.js`): the
//! day view's labels give the second zone's time on either side of its
//! daylight-saving change, and a week holding the change gives both.

use crate::support;

use serde_json::json;
use support::instance::AppHarness;
use support::webdriver::{Session, Theme};

/// The second zone's label of the 09:00 (display zone) row.
const NINE: &str = "document.querySelector(\".fc-timegrid-slot-label[data-time='09:00:00'] .zone-second\")?.textContent";

async fn go_to(session: &Session, day: &str) {
    session.press("g").await;
    session
        .wait_for("document.getElementById('goto-dialog').open")
        .await;
    session.type_into("#goto-text", day).await;
    session.press("\u{E007}").await;
    session
        .wait_for("!document.getElementById('goto-dialog').open")
        .await;
}

#[tokio::test]
async fn second_zone_labels_are_right_on_both_sides_of_a_dst_change() {
    // Berlin moves its clocks on 2027-03-28 at 01:00 UTC: 09:00 UTC is
    // 10:00 there before, 11:00 after. Weeks start on Monday.
    let instance = AppHarness::with_settings(json!({
        "initialView": "timeGridDay",
        "displayTimezone": "UTC",
        "firstDay": 1,
    }));
    let session = Session::start(&instance, "calendar", Theme::Light).await;
    session
        .wait_for("document.body.dataset.ready === 'true'")
        .await;
    session.type_into("#second-zone", "Europe/Berlin").await;
    session.press("\u{E004}").await; // Tab: the choice is made
    session
        .wait_for("document.body.dataset.secondZone === 'Europe/Berlin'")
        .await;

    go_to(&session, "2027-03-27").await;
    session
        .wait_for(&format!(
            "document.body.dataset.current === '2027-03-27' && /^10:00/.test({NINE})"
        ))
        .await;
    go_to(&session, "2027-03-29").await;
    session
        .wait_for(&format!(
            "document.body.dataset.current === '2027-03-29' && /^11:00/.test({NINE})"
        ))
        .await;

    // The week of 22–28 March holds the change: both times.
    session.press("w").await;
    go_to(&session, "2027-03-24").await;
    session
        .wait_for(&format!(
            "document.body.dataset.view === 'timeGridWeek' && /^10:00.* \\/ 11:00/.test({NINE})"
        ))
        .await;
    // An unknown zone is refused beside the field.
    session.retype("#second-zone", "Mars/Olympus").await;
    session.press("\u{E004}").await;
    session
        .wait_for(
            "document.getElementById('second-zone-error').textContent.includes('Mars/Olympus')",
        )
        .await;
    session.end().await;
}
