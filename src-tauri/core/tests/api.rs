//! The in-process API over a real instance: a vault on disk, the calendar
//! engine, and tokens in the real OS keyring. Run with
//! `scripts/session.sh cargo nextest run -p almanac-core`.

use std::sync::{Arc, Mutex};

use almanac_core::api::{
    AccessRequest, ApiError, AuthorizedApi, CalendarPlugin, Consent, ConsentPrompt, DeclineAll,
    EventFilter, EventOptions, HeadlessUi, MAX_REQUESTS_PER_MINUTE, PLUGIN_ID, UiController,
};
use almanac_core::app::Core;
use almanac_core::calendar::{Event, EventFields, EventQuery, VaultStatus};
use almanac_core::settings::Settings;
use almanac_core::settings::class::Actor;
use almanac_core::tokens::{Expiry, NewToken, Scope, ScopeSet, Secret, TokenStatus};
use almanac_testkit::{InstanceBuilder, RecordingUi, TestInstance};
use serde_json::json;

/// Answers access requests as told, remembering what was asked.
struct ScriptedConsent {
    answer: Consent,
    asked: Mutex<Vec<AccessRequest>>,
}

impl ConsentPrompt for ScriptedConsent {
    fn ask(&self, request: &AccessRequest) -> Consent {
        self.asked.lock().unwrap().push(request.clone());
        self.answer
    }
}

struct ApiHarness {
    _dir: tempfile::TempDir,
    core: Core,
    ui: Arc<RecordingUi>,
}

impl ApiHarness {
    async fn open() -> Self {
        Self::open_with(Arc::new(DeclineAll)).await
    }

    /// A fresh instance whose vault is inside a temp dir (settings written
    /// before the core starts, as a user's earlier run would have).
    async fn open_with(consent: Arc<dyn ConsentPrompt>) -> Self {
        let ui = Arc::new(RecordingUi::with_announcements());
        let TestInstance { dir, core } = InstanceBuilder::new()
            .ui(ui.clone())
            .consent(consent)
            .open()
            .await;
        Self {
            _dir: dir,
            core,
            ui,
        }
    }

    fn plugin(&self) -> Arc<CalendarPlugin> {
        self.core.registry.get::<CalendarPlugin>(PLUGIN_ID).unwrap()
    }

    fn token(&self, scopes: &[Scope], expiry: Expiry) -> Secret {
        self.core
            .tokens
            .create(NewToken {
                name: format!("test {scopes:?}"),
                scopes: scopes.iter().copied().collect(),
                expiry,
            })
            .unwrap()
            .secret
    }

    fn api(&self, scopes: &[Scope]) -> AuthorizedApi {
        let secret = self.token(scopes, Expiry::Never);
        self.plugin().with_token(secret.expose()).unwrap()
    }

    fn add_event(&self, title: &str) -> Event {
        self.core
            .calendar
            .create(
                "local",
                fields(json!({"title": title, "date": "2024-05-01", "allDay": true})),
            )
            .unwrap()
    }

    /// Everything an API call could change: events, UI calls, settings.
    fn fingerprint(&self) -> (Vec<(String, String)>, Vec<String>, Arc<Settings>) {
        let mut events: Vec<_> = self
            .core
            .calendar
            .query(&EventQuery::default())
            .into_iter()
            .map(|e| (e.id, e.title))
            .collect();
        events.sort();
        (events, self.ui.calls(), self.core.settings.get())
    }
}

fn fields(json: serde_json::Value) -> EventFields {
    serde_json::from_value(json).unwrap()
}

/// One API operation: `prepare` sets up what it needs (outside the API) and
/// returns its argument; `call` is the scope-guarded call itself.
struct Op {
    name: &'static str,
    scope: Scope,
    prepare: fn(&ApiHarness, usize) -> String,
    call: fn(&AuthorizedApi, &str) -> Result<(), ApiError>,
}

fn no_prep(_: &ApiHarness, _: usize) -> String {
    String::new()
}

fn existing_event(instance: &ApiHarness, n: usize) -> String {
    instance.add_event(&format!("Existing {n}")).id
}

const OPS: [Op; 13] = [
    Op {
        name: "get_events",
        scope: Scope::EventsRead,
        prepare: no_prep,
        call: |api, _| api.get_events(&EventFilter::default()).map(drop),
    },
    Op {
        name: "get_event_details",
        scope: Scope::EventsRead,
        prepare: existing_event,
        call: |api, id| api.get_event_details(id).map(drop),
    },
    Op {
        name: "create_event",
        scope: Scope::EventsWrite,
        prepare: |_, n| format!("Created {n}"),
        call: |api, title| {
            let event = fields(json!({"title": title, "date": "2024-05-02", "allDay": true}));
            api.create_event("local", event, EventOptions::default())
                .map(drop)
        },
    },
    Op {
        name: "update_event",
        scope: Scope::EventsWrite,
        prepare: existing_event,
        call: |api, id| {
            api.update_event(
                id,
                fields(json!({"date": "2024-05-03"})),
                EventOptions::default(),
            )
            .map(drop)
        },
    },
    Op {
        name: "delete_event",
        scope: Scope::EventsWrite,
        prepare: existing_event,
        call: |api, id| api.delete_event(id, EventOptions::default()),
    },
    Op {
        name: "get_sources",
        scope: Scope::ProvidersRead,
        prepare: no_prep,
        call: |api, _| api.get_sources().map(drop),
    },
    Op {
        name: "revalidate",
        scope: Scope::ProvidersWrite,
        prepare: no_prep,
        call: |api, _| api.revalidate(true),
    },
    Op {
        name: "open_calendar",
        scope: Scope::UiOpenCalendar,
        prepare: no_prep,
        call: |api, _| api.open_calendar(),
    },
    Op {
        name: "open_sidebar",
        scope: Scope::UiOpenSidebar,
        prepare: no_prep,
        call: |api, _| api.open_sidebar(),
    },
    Op {
        name: "change_view",
        scope: Scope::UiChangeView,
        prepare: no_prep,
        call: |api, _| api.change_view("timeGridWeek"),
    },
    Op {
        name: "get_settings",
        scope: Scope::SettingsRead,
        prepare: no_prep,
        call: |api, _| api.get_settings().map(drop),
    },
    Op {
        name: "update_settings",
        scope: Scope::SettingsWrite,
        prepare: |instance, _| ((instance.core.settings.get().first_day + 1) % 7).to_string(),
        call: |api, day| {
            let day: u8 = day.parse().unwrap();
            api.update_settings(&json!({ "firstDay": day })).map(drop)
        },
    },
    Op {
        name: "get_internal_state",
        scope: Scope::SystemFullAccess,
        prepare: no_prep,
        call: |api, _| api.get_internal_state().map(drop),
    },
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_requires_exactly_its_scope_or_full_access() {
    let instance = ApiHarness::open().await;
    let mut checked = 0;
    for held in Scope::ALL {
        let api = instance.api(&[held]);
        for (n, op) in OPS.iter().enumerate() {
            let arg = (op.prepare)(&instance, checked * 100 + n);
            let before = instance.fingerprint();
            let outcome = (op.call)(&api, &arg);
            if held == op.scope || held == Scope::SystemFullAccess {
                assert_eq!(outcome, Ok(()), "{held} should allow {}", op.name);
            } else {
                assert_eq!(
                    outcome,
                    Err(ApiError::MissingScope(op.scope)),
                    "{held} should not allow {}",
                    op.name
                );
                assert_eq!(
                    instance.fingerprint(),
                    before,
                    "refused {} changed something",
                    op.name
                );
            }
        }
        checked += 1;
    }
    assert_eq!(checked * OPS.len(), 130);

    // Scopes add up: a token with two scopes may do both, and only those.
    let api = instance.api(&[Scope::EventsRead, Scope::SettingsRead]);
    assert!(api.get_events(&EventFilter::default()).is_ok());
    assert!(api.get_settings().is_ok());
    assert_eq!(
        api.get_sources(),
        Err(ApiError::MissingScope(Scope::ProvidersRead))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_token_refuses_invalid_expired_and_revoked_tokens_alike() {
    let instance = ApiHarness::open().await;
    let plugin = instance.plugin();
    assert!(plugin.with_token("").is_none());
    assert!(plugin.with_token("ofc_pat_notatoken").is_none());
    assert!(plugin.with_token("Bearer whatever").is_none());

    let secret = instance.token(&[Scope::EventsRead], Expiry::Never);
    let held = plugin.with_token(secret.expose()).unwrap();
    assert!(held.get_events(&EventFilter::default()).is_ok());
    let info = &instance.core.tokens.list()[0];
    instance.core.tokens.revoke(info.record.id).unwrap();
    assert!(plugin.with_token(secret.expose()).is_none());
    assert!(
        matches!(plugin.authorize(secret.expose()), Err(refused) if refused.kind() == "revoked")
    );
    // An API object obtained before the revocation stops working too.
    assert_eq!(
        held.get_events(&EventFilter::default()),
        Err(ApiError::TokenNoLongerValid("revoked"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_events_filters_synchronously_from_the_cache() {
    let instance = ApiHarness::open().await;
    let api = instance.api(&[Scope::EventsRead, Scope::EventsWrite]);
    let create = |json| api.create_event("local", fields(json), EventOptions::default());
    create(json!({"title": "Morning", "date": "2024-06-03", "startTime": "09:00", "endTime": "10:00", "allDay": false})).unwrap();
    create(json!({"title": "Done task", "date": "2024-06-03", "allDay": true, "completed": "2024-06-03"})).unwrap();
    create(json!({"title": "Later", "date": "2024-07-01", "allDay": true})).unwrap();

    let titles = |filter: serde_json::Value| -> Vec<String> {
        let filter: EventFilter = serde_json::from_value(filter).unwrap();
        let mut titles: Vec<_> = api
            .get_events(&filter)
            .unwrap()
            .into_iter()
            .map(|e| e.title)
            .collect();
        titles.sort();
        titles
    };
    let june_3 = json!({"startMillis": 1_717_372_800_000i64, "endMillis": 1_717_459_199_999i64});
    assert_eq!(
        titles(json!({"dateRange": june_3})),
        ["Done task", "Morning"]
    );
    assert_eq!(
        titles(json!({"dateRange": june_3, "isCompleted": false})),
        ["Morning"]
    );
    assert_eq!(titles(json!({"isCompleted": true})), ["Done task"]);
    assert_eq!(
        titles(json!({"dateRange": {"startMillis": 1_719_792_000_000i64}})),
        ["Later"]
    );
    let backwards: EventFilter =
        serde_json::from_value(json!({"dateRange": {"startMillis": 2, "endMillis": 1}})).unwrap();
    assert!(matches!(
        api.get_events(&backwards),
        Err(ApiError::BadRequest { .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_announce_unless_silent_and_delete_can_suppress_one_occurrence() {
    let instance = ApiHarness::open().await;
    let api = instance.api(&[Scope::EventsRead, Scope::EventsWrite]);
    let loud = api
        .create_event(
            "local",
            fields(json!({"title": "Loud", "date": "2024-05-01", "allDay": true})),
            EventOptions::default(),
        )
        .unwrap();
    let silent = EventOptions {
        silent: true,
        ..EventOptions::default()
    };
    api.create_event(
        "local",
        fields(json!({"title": "Quiet", "date": "2024-05-01", "allDay": true})),
        silent,
    )
    .unwrap();
    let announced: Vec<_> = instance.ui.calls();
    assert_eq!(announced.len(), 1, "{announced:?}");
    assert!(announced[0].contains("Loud"));

    let series = api
        .create_event(
            "local",
            fields(json!({"title": "Standup", "type": "rrule", "rrule": "FREQ=DAILY", "startDate": "2024-05-01", "allDay": true})),
            silent,
        )
        .unwrap();
    let day = |d: u32| {
        let start = chrono::NaiveDate::from_ymd_opt(2024, 5, d)
            .unwrap()
            .and_hms_opt(0, 0, 0)
            .unwrap()
            .and_utc()
            .timestamp_millis();
        let filter: EventFilter = serde_json::from_value(
            json!({"dateRange": {"startMillis": start, "endMillis": start + 86_399_999}}),
        )
        .unwrap();
        api.get_events(&filter)
            .unwrap()
            .into_iter()
            .filter(|e| e.title == "Standup")
            .count()
    };
    assert_eq!((day(2), day(3)), (1, 1));
    let one_day = EventOptions {
        silent: true,
        instance_date: chrono::NaiveDate::from_ymd_opt(2024, 5, 2),
        ..EventOptions::default()
    };
    api.delete_event(&series.id, one_day).unwrap();
    assert_eq!((day(2), day(3)), (0, 1));
    // On a note event, instanceDate belongs to delete only.
    assert!(matches!(
        api.update_event(&loud.id, fields(json!({"title": "x"})), one_day),
        Err(ApiError::BadRequest { .. })
    ));
    api.delete_event(&loud.id, silent).unwrap();
    assert!(matches!(
        api.get_event_details(&loud.id),
        Err(ApiError::NotFound(_))
    ));
    assert!(matches!(
        api.create_event(
            "local",
            fields(json!({"title": "Loud", "date": "nope"})),
            silent
        ),
        Err(ApiError::BadRequest { .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ui_operations_validate_views_and_report_a_missing_ui() {
    let instance = ApiHarness::open().await;
    let api = instance.api(&[Scope::UiChangeView]);
    assert!(matches!(
        api.change_view("yearGrid"),
        Err(ApiError::BadRequest { field, .. }) if field == "viewName"
    ));
    assert_eq!(api.change_view("listWeek"), Ok(()));
    assert_eq!(instance.ui.calls(), ["change_view listWeek"]);

    assert!(HeadlessUi.open_calendar().is_err());
    let headless = InstanceBuilder::new().open().await;
    let secret = headless
        .tokens
        .create(NewToken {
            name: "ui".into(),
            scopes: [Scope::SystemFullAccess].into_iter().collect(),
            expiry: Expiry::Never,
        })
        .unwrap()
        .secret;
    let api = headless.plugin().with_token(secret.expose()).unwrap();
    for outcome in [
        api.open_calendar(),
        api.open_sidebar(),
        api.change_view("dayGridMonth"),
    ] {
        let err = outcome.unwrap_err();
        assert!(matches!(err, ApiError::UiUnavailable(_)), "{err:?}");
        assert!(err.to_string().contains("headless"), "{err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_updates_are_all_or_nothing_and_reach_the_engine() {
    let instance = ApiHarness::open().await;
    // `localServerPort` and `calendarSources` are privileged settings.
    let api = instance.api(&[
        Scope::SettingsRead,
        Scope::SettingsWrite,
        Scope::ProvidersRead,
        Scope::SystemFullAccess,
    ]);
    let before = api.get_settings().unwrap();
    for bad in [
        json!({"localServerPort": 80}),
        json!({"nope": true}),
        json!([1]),
        json!({"firstDay": 2, "initialView": "x"}),
    ] {
        assert!(
            matches!(api.update_settings(&bad), Err(ApiError::BadRequest { .. })),
            "{bad}"
        );
        assert_eq!(api.get_settings().unwrap(), before);
    }
    let next = api
        .update_settings(&json!({"calendarSources": [
            {"id": "work", "name": "Work", "type": "local", "directory": "work"}]}))
        .unwrap();
    assert_eq!(next.calendar_sources[0].id, "work");
    let sources: Vec<_> = api
        .get_sources()
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(
        sources,
        ["work"],
        "the engine did not adopt the new sources"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vault_that_cannot_be_used_is_reported_not_rolled_back() {
    let instance = ApiHarness::open().await;
    let api = instance.api(&[
        Scope::SettingsRead,
        Scope::SettingsWrite,
        Scope::ProvidersRead,
        Scope::EventsWrite,
    ]);
    let good = api.get_settings().unwrap().vault_path.clone();
    assert_eq!(api.get_vault_status().unwrap(), VaultStatus::Available);
    // A real fault: the new vault path is a regular file. The API refuses
    // such a path (settings::vault_path), so it arrives the way a hand-edited
    // settings file does: through the settings store, which the engine follows.
    let file = good.with_file_name("vault-file");
    std::fs::write(&file, b"").unwrap();
    let settings = &instance.core.settings;
    let saved = settings
        .update(Actor::User, &json!({"vaultPath": file}))
        .unwrap();
    instance.core.calendar.catch_up(settings);
    assert_eq!(saved.vault_path, file);
    assert_eq!(api.get_settings().unwrap().vault_path, file, "kept");
    let VaultStatus::Unavailable { reason, .. } = api.get_vault_status().unwrap() else {
        panic!("the engine did not adopt the vault path")
    };
    assert!(reason.contains("vault-file"), "{reason}");
    let refused = api
        .create_event(
            "local",
            fields(json!({"title": "x", "date": "2024-05-01", "allDay": true})),
            EventOptions::default(),
        )
        .unwrap_err();
    assert!(
        matches!(refused, ApiError::VaultUnavailable(_)),
        "{refused:?}"
    );
    assert_eq!(almanac_core::rest::RestError::from(refused).status(), 503);
    settings
        .update(Actor::User, &json!({"vaultPath": good}))
        .unwrap();
    instance.core.calendar.catch_up(settings);
    assert_eq!(api.get_vault_status().unwrap(), VaultStatus::Available);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn internal_state_and_settings_never_contain_secrets() {
    let instance = ApiHarness::open().await;
    let secret = instance.token(&[Scope::SystemFullAccess], Expiry::Days30);
    let api = instance.plugin().with_token(secret.expose()).unwrap();
    let random_part = &secret.expose()["ofc_pat_".len()..];
    let state = serde_json::to_string(&api.get_internal_state().unwrap()).unwrap();
    assert!(
        state.contains(&api.token_id().to_string()),
        "token metadata missing: {state}"
    );
    assert!(
        state.contains("\"keyring\":{\"state\":\"available\"}"),
        "{state}"
    );
    assert!(!state.contains(random_part));
    let settings = serde_json::to_string(&*api.get_settings().unwrap()).unwrap();
    assert!(!settings.contains(random_part));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_access_creates_a_token_only_with_consent() {
    let granted = Arc::new(ScriptedConsent {
        answer: Consent::Granted {
            expiry: Expiry::Days90,
        },
        asked: Mutex::default(),
    });
    let instance = ApiHarness::open_with(granted.clone()).await;
    let plugin = instance.plugin();
    let scopes: ScopeSet = [Scope::EventsRead, Scope::UiOpenCalendar]
        .into_iter()
        .collect();

    let secret = plugin
        .request_access(" Habit tracker ", "shows today's events", scopes)
        .expect("granted");
    let asked = granted.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        (asked[0].name.as_str(), asked[0].reason.as_str()),
        ("Habit tracker", "shows today's events")
    );
    let api = plugin.with_token(secret.expose()).unwrap();
    assert_eq!(api.scopes(), scopes);
    let info = instance
        .core
        .tokens
        .list()
        .into_iter()
        .find(|t| t.record.id == api.token_id())
        .unwrap();
    assert_eq!(info.status, TokenStatus::Active);
    assert!(info.record.expires_at.is_some());

    // Malformed requests are refused before anyone is asked.
    assert!(plugin.request_access("", "r", scopes).is_none());
    assert!(
        plugin
            .request_access("x", "r", ScopeSet::default())
            .is_none()
    );
    assert!(
        plugin
            .request_access("x", &"r".repeat(1001), scopes)
            .is_none()
    );
    assert_eq!(granted.asked.lock().unwrap().len(), 1);

    let declining = ApiHarness::open().await; // DeclineAll, as headless
    assert!(
        declining
            .plugin()
            .request_access("x", "r", scopes)
            .is_none()
    );
    assert!(declining.core.tokens.list().is_empty());
}

/// Keeps every request open until the test releases it (then declines),
/// recording how many were open at once.
#[derive(Default)]
struct HeldConsent {
    state: Mutex<Held>,
    asked: std::sync::Condvar,
    release: Mutex<Option<std::sync::mpsc::Receiver<()>>>,
}

#[derive(Default)]
struct Held {
    open: usize,
    most_open: usize,
    asked: Vec<String>,
}

impl ConsentPrompt for HeldConsent {
    fn ask(&self, request: &AccessRequest) -> Consent {
        {
            let mut held = self.state.lock().unwrap();
            held.open += 1;
            held.most_open = held.most_open.max(held.open);
            held.asked.push(request.name.clone());
        }
        self.asked.notify_all();
        let release = self.release.lock().unwrap();
        release.as_ref().unwrap().recv().unwrap();
        self.state.lock().unwrap().open -= 1;
        Consent::Declined
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_requests_are_asked_one_at_a_time_and_rate_limited() {
    let consent = Arc::new(HeldConsent::default());
    let (release, released) = std::sync::mpsc::channel();
    *consent.release.lock().unwrap() = Some(released);
    let instance = ApiHarness::open_with(consent.clone()).await;
    let plugin = instance.plugin();
    let (done_tx, done) = std::sync::mpsc::channel();
    let request = |name: String| {
        let (plugin, done_tx) = (plugin.clone(), done_tx.clone());
        std::thread::spawn(move || {
            let secret =
                plugin.request_access(&name, "", [Scope::EventsRead].into_iter().collect());
            done_tx.send((name, secret.is_some())).unwrap();
        })
    };
    let mut threads = vec![request("first".into())];
    drop(
        consent
            .asked
            .wait_while(consent.state.lock().unwrap(), |held| held.asked.is_empty())
            .unwrap(),
    );
    // The first is on screen; as many again as the limit arrive meanwhile.
    for n in 0..MAX_REQUESTS_PER_MINUTE {
        threads.push(request(format!("then {n}")));
    }
    // One is over the limit and declined at once, without asking anyone.
    let (refused, granted) = done
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("no request was declined for the rate limit");
    assert!(!granted);
    {
        let held = consent.state.lock().unwrap();
        assert_eq!(held.asked, ["first"], "asked while the first was open");
        assert!(!held.asked.contains(&refused));
    }
    for _ in 0..MAX_REQUESTS_PER_MINUTE {
        release.send(()).unwrap();
    }
    for thread in threads {
        thread.join().unwrap();
    }
    let held = consent.state.lock().unwrap();
    assert_eq!(held.most_open, 1, "two dialogs at once");
    assert_eq!(held.asked.len(), MAX_REQUESTS_PER_MINUTE);
    assert!(instance.core.tokens.list().is_empty());
}

/// The owner's API (the command line on a vault no instance holds) needs
/// no token: it reads and writes with every scope.
#[tokio::test]
async fn the_owner_acts_without_a_token() {
    let instance = ApiHarness::open().await;
    assert!(instance.core.tokens.list().is_empty());
    let owner = instance.plugin().as_owner();
    assert!(owner.scopes().grants(Scope::EventsWrite));
    let made = owner
        .create_event(
            "local",
            fields(json!({"title": "Mine", "date": "2024-05-01", "allDay": true})),
            EventOptions::default(),
        )
        .unwrap();
    assert_eq!(
        owner.get_event_details(&made.id).unwrap().event.title,
        "Mine"
    );
    assert!(!owner.get_sources().unwrap().is_empty());
    owner
        .delete_event(&made.id, EventOptions::default())
        .unwrap();
    assert!(matches!(
        owner.get_event_details(&made.id),
        Err(ApiError::NotFound(_))
    ));
}
