//! The `holidays` kind: a country's public holidays from the data Almanac
//! ships. A real temp vault and the real engine; nothing is fetched.

use crate::common;

use almanac_core::calendar::{CalendarError, EventQuery};
use almanac_core::settings::KindSettings;
use common::*;
use serde_json::json;

fn holidays(country: &str, subdivision: &str) -> KindSettings {
    KindSettings::Holidays {
        country: country.into(),
        subdivision: subdivision.into(),
    }
}

#[test]
fn a_holiday_calendar_shows_the_country_and_subdivision_holidays() {
    let vault = TestVault::new().with_source("holidays_1", holidays("de", "by"));
    let cal = vault.open();
    let year = cal.query(&EventQuery {
        calendars: Some(vec!["holidays_1".into()]),
        ..range("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z")
    });
    let on = |date: &str| {
        year.iter()
            .filter(|e| e.date == date)
            .map(|e| e.title.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(on("2026-01-06"), ["Epiphany"], "Bavaria's own");
    assert_eq!(on("2026-10-03"), ["German Unity Day"], "the country's");
    assert_eq!(on("2026-04-06"), ["Easter Monday"]);
    assert!(
        year.iter()
            .all(|e| e.all_day && e.calendar_id == "holidays_1")
    );
    let christmas = year.iter().find(|e| e.date == "2026-12-25").unwrap();
    assert_eq!(
        christmas.id,
        "ical:holidays_1::20261225-christmas-day@DE-BY.holidays.almanac"
    );
    let info = cal
        .sources()
        .into_iter()
        .find(|s| s.id == "holidays_1")
        .unwrap();
    assert_eq!(info.kind, "holidays");
    assert!(!info.editable && info.last_error.is_none() && info.event_count > 500);

    // Ids are the same after a restart.
    let ids: Vec<String> = year.iter().map(|e| e.id.clone()).collect();
    drop(cal);
    let again = vault.open();
    let reopened: Vec<String> = again
        .query(&EventQuery {
            calendars: Some(vec!["holidays_1".into()]),
            ..range("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z")
        })
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids, reopened);

    // Every write is refused as read-only, and nothing changes.
    assert!(matches!(
        again.update(&christmas.id, fields(json!({"title": "x"}))),
        Err(CalendarError::ReadOnly(_))
    ));
    assert!(matches!(
        again.delete(&christmas.id, None),
        Err(CalendarError::ReadOnly(_))
    ));
    assert!(matches!(
        again.create(
            "holidays_1",
            fields(json!({"title": "x", "date": "2026-05-01"}))
        ),
        Err(CalendarError::ReadOnly(_))
    ));
    assert_eq!(
        again.details(&christmas.id).unwrap().event.title,
        "Christmas Day"
    );
}

#[test]
fn settings_refuse_places_the_data_does_not_have() {
    let check = |kind: KindSettings| {
        let mut settings = almanac_core::settings::Settings::default();
        settings.calendar_sources.push(source("x", kind));
        settings.validate().map_err(|e| e.to_string())
    };
    let error = check(holidays("XX", "")).unwrap_err();
    assert!(
        error.contains("country") && error.contains("`XX`"),
        "{error}"
    );
    let error = check(holidays("DE", "ZZ")).unwrap_err();
    assert!(
        error.contains("subdivision") && error.contains("BY"),
        "{error}"
    );
    assert!(check(holidays("us", "ca")).is_ok());
    // A patch naming no subdivision, as the settings window sends it, reads
    // back whole (an empty one is not dropped as an unknown key).
    let patched = almanac_core::settings::Settings::default().patched(&json!({
        "calendarSources": [{"id": "h", "name": "Holidays", "color": "#d9534f",
            "type": "holidays", "country": "FR", "subdivision": ""}]
    }));
    assert!(patched.is_ok(), "{:?}", patched.err());
}
