//! Vault reminders, black-box: a vault written by hand in the Full Calendar
//! plugin's format (one note per shape, dates counted from today), the real
//! engine and watcher, the real settings store. Every trigger is asserted
//! exactly, worked out by hand from the note (start minus `notify.value`, or
//! minus the default minutes); changes are awaited on the published set,
//! never slept on.

use crate::common;
#[path = "vault_reminders/remote.rs"]
mod remote;

use std::sync::Arc;
use std::time::Duration;

use almanac_core::calendar::Calendar;
use almanac_core::settings::class::Actor;
use almanac_core::settings::{KindSettings, SettingsStore};
use almanac_core::vault_reminders::rules::Rules;
use almanac_core::vault_reminders::{self, DerivedSet, VaultReminders};
use chrono::{DateTime, Datelike, NaiveDate, NaiveTime, Utc};
use common::*;
use serde_json::json;
use tokio::sync::watch;

/// How long a change may take to show before the test fails (the engine
/// needs well under a second; a loaded CI machine gets more).
const PATIENCE: Duration = Duration::from_secs(10);

/// The day `offset` days from today (UTC, the vault's display zone).
fn day(offset: i64) -> NaiveDate {
    Utc::now().date_naive() + chrono::Duration::days(offset)
}

fn at(offset: i64, hh_mm: &str) -> DateTime<Utc> {
    let time = NaiveTime::parse_from_str(hh_mm, "%H:%M").unwrap();
    day(offset).and_time(time).and_utc()
}

fn letter(date: NaiveDate) -> char {
    ['U', 'M', 'T', 'W', 'R', 'F', 'S'][date.weekday().num_days_from_sunday() as usize]
}

/// `repeatOn` naming `date`: its week of the month (1-4, or -1 for a fifth,
/// which is the last) and its weekday (0 = Sunday).
fn repeat_on(date: NaiveDate) -> (i64, u32) {
    let week = match (date.day() - 1) / 7 + 1 {
        5 => -1,
        n => i64::from(n),
    };
    (week, date.weekday().num_days_from_sunday())
}

/// One note per shape; all reminders but the ones noted fall inside a
/// 20-day horizon.
fn notes() -> Vec<(String, String)> {
    let (week, weekday) = repeat_on(day(8));
    vec![
        (
            "events/Single.md".into(),
            format!("---\ntitle: Single\nallDay: false\ndate: {}\nstartTime: '09:00'\nendTime: '10:00'\nnotify:\n  value: 15\n---\n", day(3)),
        ),
        (
            "events/Holiday.md".into(),
            format!("---\ntitle: Holiday\nallDay: true\ndate: {}\nnotify:\n  value: 60\n---\n", day(4)),
        ),
        (
            // Weekly on the weekday of day 2, the next week skipped.
            "events/Weekly.md".into(),
            format!(
                "---\ntitle: Weekly\nallDay: false\ntype: recurring\ndaysOfWeek: [{}]\nstartRecur: {}\nstartTime: '08:00'\nendTime: '08:30'\nskipDates:\n  - {}\nnotify:\n  value: 10\n---\n",
                letter(day(2)),
                day(-30),
                day(9)
            ),
        ),
        (
            "events/Monthly.md".into(),
            format!(
                "---\ntitle: Monthly\nallDay: false\ntype: recurring\ndayOfMonth: {}\nstartRecur: {}\nstartTime: '12:00'\nendTime: '13:00'\nnotify:\n  value: 30\n---\n",
                day(5).day(),
                day(-60)
            ),
        ),
        (
            "events/Yearly.md".into(),
            format!(
                "---\ntitle: Yearly\nallDay: true\ntype: recurring\nmonth: {}\ndayOfMonth: {}\nstartRecur: {}\nnotify:\n  value: 0\n---\n",
                day(6).month(),
                day(6).day(),
                day(-400)
            ),
        ),
        (
            "events/Nth weekday.md".into(),
            format!(
                "---\ntitle: Nth weekday\nallDay: false\ntype: recurring\nrepeatOn:\n  week: {week}\n  weekday: {weekday}\nstartRecur: {}\nstartTime: '19:00'\nendTime: '20:00'\nnotify:\n  value: 5\n---\n",
                day(-60)
            ),
        ),
        (
            "events/Rrule.md".into(),
            format!(
                "---\ntitle: Rrule\nallDay: false\ntype: rrule\nstartDate: {}\nrrule: FREQ=DAILY;COUNT=3\nstartTime: '07:00'\nendTime: '07:30'\nnotify:\n  value: 1\n---\n",
                day(2)
            ),
        ),
        (
            format!("Journal/{}.md", day(1)),
            "## Events\n- [ ] Call Ann [startTime:: 10:00]  [notify:: 10]\n- [x] Paid rent [startTime:: 11:00]  [notify:: 10]\n".into(),
        ),
        (
            "events/Done task.md".into(),
            format!("---\ntitle: Done task\nallDay: false\ndate: {}\nstartTime: '09:00'\ncompleted: {}\nnotify:\n  value: 15\n---\n", day(3), day(0)),
        ),
        (
            // No notify: reminds only with default reminders on.
            "events/Plain.md".into(),
            format!("---\ntitle: Plain\nallDay: false\ndate: {}\nstartTime: '14:00'\nendTime: '15:00'\n---\n", day(3)),
        ),
        (
            // Beyond the 20-day horizon.
            "events/Far.md".into(),
            format!("---\ntitle: Far\nallDay: false\ndate: {}\nstartTime: '09:00'\nnotify:\n  value: 10\n---\n", day(40)),
        ),
        (
            // Started before the grace window.
            "events/Past.md".into(),
            format!("---\ntitle: Past\nallDay: false\ndate: {}\nstartTime: '09:00'\nnotify:\n  value: 10\n---\n", day(-3)),
        ),
    ]
}

/// What the shapes give with the defaults (explicit on, default off):
/// `(title, trigger)`, by trigger.
fn explicit_triggers() -> Vec<(String, DateTime<Utc>)> {
    let mut expected = vec![
        ("Call Ann", at(1, "09:50")),
        ("Weekly", at(2, "07:50")),
        ("Rrule", at(2, "06:59")),
        ("Rrule", at(3, "06:59")),
        ("Rrule", at(4, "06:59")),
        ("Single", at(3, "08:45")),
        ("Holiday", at(3, "23:00")),
        ("Monthly", at(5, "11:30")),
        ("Yearly", at(6, "00:00")),
        ("Nth weekday", at(8, "18:55")),
        ("Weekly", at(16, "07:50")),
    ];
    expected.sort_by_key(|(_, trigger)| *trigger);
    expected
        .into_iter()
        .map(|(title, trigger)| (title.to_string(), trigger))
        .collect()
}

struct Fixture {
    vault: TestVault,
    store: Arc<SettingsStore>,
    calendar: Calendar,
    set: watch::Receiver<Arc<VaultReminders>>,
}

fn open() -> Fixture {
    let mut vault = TestVault::new().with_source(
        "daily",
        KindSettings::DailyNote {
            directory: String::new(),
            heading: "Events".into(),
        },
    );
    vault.settings.reminders.horizon_days = 20;
    vault.write(".obsidian/daily-notes.json", r#"{"folder": "Journal"}"#);
    for (path, text) in notes() {
        vault.write(&path, &text);
    }
    let store = Arc::new(SettingsStore::open(&vault.paths().settings_file()).unwrap());
    store.replace(Actor::User, vault.settings.clone()).unwrap();
    let calendar = Calendar::open(&store.get(), &vault.paths());
    calendar.follow(&store);
    let set = vault_reminders::start(&calendar, &store);
    Fixture {
        vault,
        store,
        calendar,
        set,
    }
}

fn triggers(set: &VaultReminders) -> Vec<(String, DateTime<Utc>)> {
    set.reminders
        .iter()
        .map(|r| (r.title.clone(), r.trigger))
        .collect()
}

impl Fixture {
    /// Waits until the published set satisfies `ready`, and returns it.
    async fn until(
        &mut self,
        what: &str,
        ready: impl Fn(&VaultReminders) -> bool,
    ) -> Arc<VaultReminders> {
        let waited = tokio::time::timeout(PATIENCE, self.set.wait_for(|set| ready(set)))
            .await
            .map(|found| found.map(|set| set.clone()));
        match waited {
            Ok(Ok(set)) => set,
            _ => panic!(
                "timed out waiting for: {what}; the set is {:#?}",
                triggers(&self.set.borrow())
            ),
        }
    }

    fn patch(&self, patch: serde_json::Value) {
        self.store.update(Actor::User, &patch).unwrap();
    }
}

#[tokio::test]
async fn every_shape_reminds_at_its_exact_trigger() {
    let fixture = open();
    let set = fixture.set.borrow().clone();
    assert_eq!(triggers(&set), explicit_triggers());
    assert!(!set.truncated);

    let single = set.reminders.iter().find(|r| r.title == "Single").unwrap();
    let start = at(3, "09:00");
    assert_eq!(
        single.id,
        format!("fullnote:events/Single.md::{}", start.timestamp_millis())
    );
    assert_eq!(single.event_id, "fullnote:events/Single.md");
    assert_eq!(single.calendar_id, "local");
    assert_eq!(single.path, "events/Single.md");
    assert_eq!(single.start, start);
    assert_eq!(single.minutes_before, 15);
    assert!(single.explicit && !single.all_day);
    assert_eq!(
        single.action_url,
        "obsidian://open?vault=vault&file=events%2FSingle.md"
    );

    let holiday = set.reminders.iter().find(|r| r.title == "Holiday").unwrap();
    assert!(holiday.all_day);
    assert_eq!(holiday.start, at(4, "00:00"));

    let call = set
        .reminders
        .iter()
        .find(|r| r.title == "Call Ann")
        .unwrap();
    let note = format!("Journal/{}.md", day(1));
    assert_eq!(call.path, note);
    assert_eq!(call.calendar_id, "daily");
    assert!(call.event_id.starts_with(&format!("dailynote:{note}::")));
    assert_eq!(
        call.action_url,
        format!("obsidian://open?vault=vault&file=Journal%2F{}.md", day(1))
    );

    // The horizon: from the grace window (24 h) ago through 20 days ahead
    // plus a day of slack.
    let now = Utc::now();
    let ahead = set.horizon_end - now;
    assert!(
        ahead <= chrono::Duration::days(21)
            && ahead > chrono::Duration::days(21) - chrono::Duration::minutes(5),
        "{ahead}"
    );
    assert!(now - set.horizon_start >= chrono::Duration::hours(24));
}

#[tokio::test]
async fn default_minutes_remind_events_without_notify_once_enabled() {
    let mut fixture = open();
    fixture.patch(json!({"reminders": {"defaultReminders": true, "defaultMinutes": 25}}));
    let set = fixture
        .until("the default reminder of Plain", |set| {
            set.reminders.iter().any(|r| r.title == "Plain")
        })
        .await;
    let mut expected = explicit_triggers();
    expected.push(("Plain".into(), at(3, "13:35")));
    expected.sort_by_key(|(_, trigger)| *trigger);
    assert_eq!(triggers(&set), expected);
    let plain = set.reminders.iter().find(|r| r.title == "Plain").unwrap();
    assert!(!plain.explicit);
    assert_eq!(plain.minutes_before, 25);

    // Explicit reminders off: only the default one is left.
    fixture.patch(json!({"reminders": {"vaultReminders": false}}));
    let set = fixture
        .until("explicit reminders gone", |set| set.reminders.len() == 1)
        .await;
    assert_eq!(triggers(&set), vec![("Plain".to_string(), at(3, "13:35"))]);

    // And both off: nothing.
    fixture.patch(json!({"reminders": {"defaultReminders": false}}));
    fixture
        .until("no reminders", |set| set.reminders.is_empty())
        .await;
}

#[tokio::test]
async fn the_horizon_and_the_vault_name_follow_the_settings() {
    let mut fixture = open();
    assert!(
        !triggers(&fixture.set.borrow())
            .iter()
            .any(|(t, _)| t == "Far")
    );
    fixture.patch(json!({"reminders": {"horizonDays": 45}, "vaultName": "Work Notes"}));
    let set = fixture
        .until("Far inside the wider horizon", |set| {
            set.reminders.iter().any(|r| r.title == "Far")
        })
        .await;
    let far = set.reminders.iter().find(|r| r.title == "Far").unwrap();
    assert_eq!(far.trigger, at(40, "08:50"));
    assert_eq!(
        far.action_url,
        "obsidian://open?vault=Work%20Notes&file=events%2FFar.md"
    );
    // The monthly series now has its next month's occurrence too (when the
    // next month has that day).
    let monthly = set
        .reminders
        .iter()
        .filter(|r| r.title == "Monthly")
        .count();
    if day(5).day() <= 28 {
        assert_eq!(monthly, 2);
    }
}

#[tokio::test]
async fn an_edit_moves_the_trigger_and_a_deletion_cancels_it() {
    let mut fixture = open();
    let before = fixture.set.borrow().clone();
    fixture.vault.write(
        "events/Single.md",
        &format!("---\ntitle: Single\nallDay: false\ndate: {}\nstartTime: '09:00'\nendTime: '10:00'\nnotify:\n  value: 45\n---\n", day(3)),
    );
    let set = fixture
        .until("Single 45 minutes ahead", |set| {
            set.reminders
                .iter()
                .any(|r| r.title == "Single" && r.trigger == at(3, "08:15"))
        })
        .await;
    let mut expected = explicit_triggers();
    let single = expected.iter_mut().find(|(t, _)| t == "Single").unwrap();
    single.1 = at(3, "08:15");
    expected.sort_by_key(|(_, trigger)| *trigger);
    assert_eq!(triggers(&set), expected);
    // The other notes' reminders are the very same objects: only the edited
    // note was derived again.
    let weekly = |set: &VaultReminders| {
        set.reminders
            .iter()
            .find(|r| r.title == "Nth weekday")
            .unwrap()
            .clone()
    };
    assert!(Arc::ptr_eq(&weekly(&before), &weekly(&set)));

    // Completing the daily-note task silences it.
    fixture.vault.write(
        &format!("Journal/{}.md", day(1)),
        "## Events\n- [x] Call Ann [startTime:: 10:00]  [notify:: 10]\n- [x] Paid rent [startTime:: 11:00]  [notify:: 10]\n",
    );
    fixture
        .until("Call Ann done", |set| {
            !set.reminders.iter().any(|r| r.title == "Call Ann")
        })
        .await;

    std::fs::remove_file(fixture.vault.vault().join("events/Rrule.md")).unwrap();
    let set = fixture
        .until("Rrule deleted", |set| {
            !set.reminders.iter().any(|r| r.title == "Rrule")
        })
        .await;
    assert_eq!(set.reminders.len(), expected.len() - 4);
}

#[tokio::test]
async fn the_horizon_rolls_forward_to_what_a_fresh_derivation_gives() {
    let fixture = open();
    let calendar = &fixture.calendar;
    let rules = Rules::from_settings(&fixture.store.get());
    let now = Utc::now();
    let mut set = DerivedSet::derive(calendar, rules.clone(), now);
    // Nothing changes by time alone before Call Ann (tomorrow 10:00) leaves
    // the 24-hour grace window, or the end must move on (a day from now,
    // when less than 20 days would be covered).
    assert_eq!(
        set.next_change(),
        at(2, "10:00").min(now + chrono::Duration::days(1))
    );

    let later = now + chrono::Duration::days(3);
    assert!(set.advance(calendar, later));
    let rolled = set.snapshot();
    assert_eq!(
        rolled,
        DerivedSet::derive(calendar, rules, later).snapshot()
    );
    let titles: Vec<_> = triggers(&rolled);
    assert!(!titles.iter().any(|(t, _)| t == "Call Ann"), "{titles:?}");
    assert!(
        titles.contains(&("Weekly".to_string(), at(23, "07:50"))),
        "{titles:?}"
    );
}

/// The wired instance publishes the set and follows a settings change made
/// through the in-process API (opening a core uses the real keyring: run
/// under scripts/session.sh).
#[tokio::test]
async fn the_core_publishes_the_set_and_follows_the_settings() {
    let single = &notes()[0];
    let core = almanac_testkit::InstanceBuilder::new()
        .note(&single.0, &single.1)
        .open()
        .await;
    let mut set = core.vault_reminders();
    assert_eq!(
        triggers(&set.borrow()),
        vec![("Single".to_string(), at(3, "08:45"))]
    );
    core.plugin()
        .update_settings(Actor::User, &json!({"vaultName": "Renamed"}))
        .unwrap();
    let renamed = tokio::time::timeout(
        PATIENCE,
        set.wait_for(|set| {
            set.reminders
                .iter()
                .any(|r| r.action_url.starts_with("obsidian://open?vault=Renamed&"))
        }),
    )
    .await;
    assert!(
        matches!(renamed, Ok(Ok(_))),
        "the vault name was not followed"
    );
}
