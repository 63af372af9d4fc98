//! The two classes of settings over REST and in the in-process API:
//! `settings:write` changes display keys only, privileged keys need
//! `system:full-access`, a new vault must be a safe existing folder, no token
//! sets a source's `allowPrivateNetwork`, feed credentials are hidden
//! from tokens without full access, and no token below full access moves a
//! reminder through `displayTimezone`.

use almanac_core::api::ApiError;
use almanac_core::rest::RestError;
use almanac_core::tokens::Scope;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::rest::support::{Reply, RestHarness};

async fn put(instance: &RestHarness, token: &str, settings: Value) -> Reply {
    instance
        .send(
            Method::PUT,
            "/api/v1/settings",
            Some(token),
            Some(json!({ "settings": settings })),
        )
        .await
}

fn file(instance: &RestHarness) -> String {
    std::fs::read_to_string(instance.core.paths.settings_file()).unwrap()
}

/// Patches that change a privileged key to a value that would be valid,
/// with the key the refusal must name.
fn privileged_patches(instance: &RestHarness) -> Vec<(Value, &'static str)> {
    let other_vault = instance.dir.path().join("other-vault");
    std::fs::create_dir_all(&other_vault).unwrap();
    vec![
        (json!({"vaultPath": other_vault}), "vaultPath"),
        (
            json!({"calendarSources": [{"id": "x", "name": "X", "type": "ical",
                "url": "http://127.0.0.1:45677/"}]}),
            "calendarSources",
        ),
        (json!({"restServerEnabled": true}), "restServerEnabled"),
        (json!({"localServerPort": 18540}), "localServerPort"),
        (
            json!({"reminders": {"allowedSchemes": ["obsidian", "zotero"]}}),
            "reminders.allowedSchemes",
        ),
        // The zone of events without their own: when vault reminders fire.
        (json!({"displayTimezone": "Asia/Tokyo"}), "displayTimezone"),
        (
            json!({"reminders": {"updateFeedUrl": "http://127.0.0.1:1/feed"}}),
            "reminders.updateFeedUrl",
        ),
        (
            json!({"reminders": {"checkUpdates": true}}),
            "reminders.checkUpdates",
        ),
        (
            json!({"reminders": {"daemonPort": 45999}}),
            "reminders.daemonPort",
        ),
        (
            json!({"reminders": {"graceWindowHours": 1}}),
            "reminders.graceWindowHours",
        ),
        // A display key alongside does not carry the privileged one through.
        (
            json!({"firstDay": 5, "restServerEnabled": true}),
            "restServerEnabled",
        ),
    ]
}

#[tokio::test]
async fn settings_write_changes_display_keys_and_nothing_else() {
    let instance = RestHarness::start().await;
    let token = instance
        .token(&[Scope::SettingsRead, Scope::SettingsWrite])
        .await;
    let reply = put(
        &instance,
        &token,
        json!({"firstDay": 2, "initialView": "timeGridWeek"}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.body["settings"]["firstDay"], 2);
    assert_eq!(reply.body["settings"]["initialView"], "timeGridWeek");

    let before = instance.core.settings.get();
    let on_disk = file(&instance);
    for (patch, key) in privileged_patches(&instance) {
        let reply = put(&instance, &token, patch.clone()).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{patch}: {reply:?}");
        assert_eq!(reply.error_id(), "Forbidden");
        let message = reply.body["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("`{key}`")) && message.contains("system:full-access"),
            "{patch}: {message}"
        );
        assert_eq!(
            instance.core.settings.get(),
            before,
            "{patch} changed something"
        );
        assert_eq!(file(&instance), on_disk, "{patch} touched the file");
    }

    // A privileged key sent with its current value is not a change.
    let reply = put(
        &instance,
        &token,
        json!({"firstDay": 3, "localServerPort": before.local_server_port}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(instance.core.settings.get().first_day, 3);
}

#[tokio::test]
async fn the_in_process_api_draws_the_same_line() {
    let instance = RestHarness::start().await;
    let writer = instance.token(&[Scope::SettingsWrite]).await;
    let api = instance.core.plugin().with_token(&writer).unwrap();
    api.update_settings(&json!({"firstDay": 4})).unwrap();
    for (patch, key) in privileged_patches(&instance) {
        let error = api.update_settings(&patch).unwrap_err();
        assert!(
            matches!(error, ApiError::SettingRefused(_)),
            "{patch}: {error:?}"
        );
        // The status the REST layer gives this error.
        assert_eq!(RestError::from(error.clone()).status(), 403);
        assert!(error.to_string().contains(&format!("`{key}`")), "{error}");
    }
    let admin = instance.token(&[Scope::SystemFullAccess]).await;
    let api = instance.core.plugin().with_token(&admin).unwrap();
    for (patch, _) in privileged_patches(&instance) {
        api.update_settings(&patch)
            .unwrap_or_else(|e| panic!("{patch}: {e}"));
    }
}

#[tokio::test]
async fn full_access_changes_privileged_keys() {
    let instance = RestHarness::start().await;
    let admin = instance.token(&[Scope::SystemFullAccess]).await;
    let vault = instance.dir.path().join("moved-vault");
    std::fs::create_dir_all(&vault).unwrap();
    let reply = put(
        &instance,
        &admin,
        json!({
            "vaultPath": vault,
            "calendarSources": [{"id": "work", "name": "Work", "type": "local", "directory": "work"}],
            "reminders": {"graceWindowHours": 2, "allowedSchemes": ["obsidian", "https"]},
            "localServerPort": 18541,
        }),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    let settings = instance.core.settings.get();
    assert_eq!(settings.vault_path, vault);
    assert_eq!(settings.reminders.grace_window_hours, 2);
    assert_eq!(settings.local_server_port, 18541);
    // The engine adopted the new vault and sources.
    assert!(
        vault.join("work").is_dir(),
        "the new source folder was not made"
    );
    let reply = instance
        .send(Method::GET, "/api/v1/calendars", Some(&admin), None)
        .await;
    assert_eq!(reply.body["calendars"][0]["id"], "work", "{reply:?}");
}

#[tokio::test]
async fn a_vault_must_be_an_existing_folder_that_is_not_the_system_or_home() {
    let instance = RestHarness::start().await;
    let admin = instance.token(&[Scope::SystemFullAccess]).await;
    let a_file = instance.dir.path().join("a-file");
    std::fs::write(&a_file, "not a folder").unwrap();
    let home = std::env::var("HOME").expect("HOME is set");
    let link_to_etc = instance.dir.path().join("innocent-looking");
    std::os::unix::fs::symlink("/etc", &link_to_etc).unwrap();
    let before = instance.core.settings.get();
    let on_disk = file(&instance);
    for path in [
        json!("/"),
        json!(home),
        json!(format!("{home}/")),
        json!("/etc"),
        json!("/usr/share"),
        json!("/var/lib"),
        json!(link_to_etc),
        json!(a_file),
        json!(instance.dir.path().join("missing")),
        json!("relative/vault"),
        json!("/etc/../"),
    ] {
        let reply = put(&instance, &admin, json!({ "vaultPath": path })).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{path}: {reply:?}");
        assert_eq!(reply.error_id(), "Bad Request");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.contains("vaultPath"), "{path}: {message}");
        assert_eq!(instance.core.settings.get(), before, "{path}");
        assert_eq!(file(&instance), on_disk, "{path}");
    }
    // The desktop UI is held to the same rules.
    let error = instance
        .settings_as_user(json!({"vaultPath": "/"}))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("vaultPath"), "{error}");
    // A folder inside the instance's directory is fine.
    let good = instance.dir.path().join("notes");
    std::fs::create_dir(&good).unwrap();
    let reply = put(&instance, &admin, json!({ "vaultPath": good })).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
}

#[tokio::test]
async fn no_token_sets_the_private_network_flag() {
    let instance = RestHarness::start().await;
    let admin = instance.token(&[Scope::SystemFullAccess]).await;
    let sources = |flag: bool, url: &str| {
        json!([
            {"id": "local", "name": "Events", "type": "local", "directory": "events"},
            {"id": "lan", "name": "LAN", "type": "ical", "url": url, "allowPrivateNetwork": flag},
        ])
    };
    let lan = "http://192.168.1.20/team.ics";
    let reply = put(
        &instance,
        &admin,
        json!({"calendarSources": sources(true, lan)}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{reply:?}");
    assert_eq!(reply.error_id(), "Forbidden");
    let message = reply.body["message"].as_str().unwrap();
    assert!(
        message.contains("calendarSources[1].allowPrivateNetwork"),
        "{message}"
    );
    assert!(instance.core.settings.get().calendar_sources.len() == 2);

    // The user may set it.
    instance
        .settings_as_user(json!({"calendarSources": sources(true, lan)}))
        .await
        .unwrap();
    // A token may write the flagged source back unchanged, or turn the flag
    // off, but not point the flagged source elsewhere.
    let reply = put(
        &instance,
        &admin,
        json!({"calendarSources": sources(true, lan)}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    let daemon = "http://127.0.0.1:45677/";
    let reply = put(
        &instance,
        &admin,
        json!({"calendarSources": sources(true, daemon)}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{reply:?}");
    assert!(
        reply.body["message"]
            .as_str()
            .unwrap()
            .contains("allowPrivateNetwork")
    );
    let reply = put(
        &instance,
        &admin,
        json!({"calendarSources": sources(false, lan)}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(
        reply.body["settings"]["calendarSources"][1]["allowPrivateNetwork"],
        false
    );
}

#[tokio::test]
async fn feed_credentials_are_hidden_from_tokens_without_full_access() {
    let instance = RestHarness::start().await;
    // `.invalid` never resolves: no fetch leaves this machine.
    let url = "https://alice:s3cret@calendar.invalid:8443/private-k3y/basic.ics?token=t0ken";
    instance
        .settings_as_user(json!({"calendarSources": [
            {"id": "private", "name": "Private", "type": "ical", "url": url},
        ]}))
        .await
        .unwrap();
    let hidden = "https://***@calendar.invalid:8443/***?***";
    let reader = instance
        .token(&[
            Scope::SettingsRead,
            Scope::ProvidersRead,
            Scope::SettingsWrite,
        ])
        .await;
    let admin = instance.token(&[Scope::SystemFullAccess]).await;
    for (token, shown) in [(&reader, hidden), (&admin, url)] {
        let settings = instance
            .send(Method::GET, "/api/v1/settings", Some(token), None)
            .await;
        assert_eq!(
            settings.body["settings"]["calendarSources"][0]["url"], shown,
            "{settings:?}"
        );
        let calendars = instance
            .send(Method::GET, "/api/v1/calendars", Some(token), None)
            .await;
        assert_eq!(
            calendars.body["calendars"][0]["url"], shown,
            "{calendars:?}"
        );
        // The answer to a settings update is shown the same way.
        let updated = put(&instance, token, json!({"firstDay": 1})).await;
        assert_eq!(
            updated.body["settings"]["calendarSources"][0]["url"], shown,
            "{updated:?}"
        );
    }
    for secret in ["alice", "s3cret", "k3y", "t0ken"] {
        for path in ["/api/v1/settings", "/api/v1/calendars"] {
            let reply = instance.send(Method::GET, path, Some(&reader), None).await;
            assert!(!reply.text.contains(secret), "{path} shows {secret}");
        }
    }
}

#[tokio::test]
async fn only_full_access_or_the_user_moves_reminders_through_the_display_zone() {
    let instance = RestHarness::start().await;
    let zone = || instance.core.settings.get().display_timezone.clone();
    let before = zone();
    let writer = instance
        .token(&[Scope::SettingsRead, Scope::SettingsWrite])
        .await;
    let reply = put(
        &instance,
        &writer,
        json!({"displayTimezone": "Pacific/Kiritimati"}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{reply:?}");
    let message = reply.body["message"].as_str().unwrap();
    assert!(
        message.contains("`displayTimezone`") && message.contains("system:full-access"),
        "{message}"
    );
    assert_eq!(zone(), before);
    // Writing back the zone it read is not a change.
    let reply = put(
        &instance,
        &writer,
        json!({"displayTimezone": before, "firstDay": 1}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");

    let admin = instance.token(&[Scope::SystemFullAccess]).await;
    let reply = put(
        &instance,
        &admin,
        json!({"displayTimezone": "Pacific/Kiritimati"}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(zone(), "Pacific/Kiritimati");
    instance
        .settings_as_user(json!({"displayTimezone": "Europe/Berlin"}))
        .await
        .unwrap();
    assert_eq!(zone(), "Europe/Berlin");
}

/// Each patch is refused with 400 naming `key`, even for full access, and
/// changes nothing in memory or on disk.
async fn refused_for_full_access(instance: &RestHarness, patches: Vec<(Value, &str)>) {
    let admin = instance.token(&[Scope::SystemFullAccess]).await;
    let before = instance.core.settings.get();
    let on_disk = file(instance);
    for (patch, key) in patches {
        let reply = put(instance, &admin, patch.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{patch}: {reply:?}");
        assert_eq!(reply.error_id(), "Bad Request");
        let message = reply.body["message"].as_str().unwrap();
        assert!(message.contains(key), "{patch}: {message}");
        assert_eq!(instance.core.settings.get(), before, "{patch}");
        assert_eq!(file(instance), on_disk, "{patch}");
    }
}

#[tokio::test]
async fn reminders_open_only_safe_schemes() {
    let instance = RestHarness::start().await;
    let key = "reminders.allowedSchemes";
    let schemes = |list: Value| json!({"reminders": {"allowedSchemes": list}});
    let mut patches = Vec::new();
    for refused in ["file", "javascript", "data", "vbscript", "blob", "about"] {
        patches.push((schemes(json!(["obsidian", refused])), key));
    }
    for malformed in ["", "HTTPS", "ob sidian", "1up", "a:b", "x\ny"] {
        patches.push((schemes(json!([malformed])), key));
    }
    let too_many: Vec<String> = (0..33).map(|i| format!("app{i}")).collect();
    patches.push((schemes(json!(too_many)), key));
    refused_for_full_access(&instance, patches).await;
    // A known app's scheme is fine.
    let admin = instance.token(&[Scope::SystemFullAccess]).await;
    let reply = put(
        &instance,
        &admin,
        schemes(json!(["obsidian", "https", "zotero"])),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
}

#[tokio::test]
async fn at_most_100_calendar_sources() {
    let instance = RestHarness::start().await;
    let sources = |count: usize| {
        let list: Vec<Value> = (0..count)
            .map(|i| json!({"id": format!("c{i}"), "name": format!("C{i}"), "type": "local", "directory": format!("c{i}")}))
            .collect();
        json!({ "calendarSources": list })
    };
    refused_for_full_access(&instance, vec![(sources(101), "calendarSources")]).await;
    let admin = instance.token(&[Scope::SystemFullAccess]).await;
    let reply = put(&instance, &admin, sources(100)).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
}

#[tokio::test]
async fn the_three_servers_never_share_a_port() {
    let instance = RestHarness::start().await;
    let settings = instance.core.settings.get();
    let (rest, daemon, caldav) = (
        settings.local_server_port,
        settings.reminders.daemon_port,
        settings.caldav_server.port,
    );
    refused_for_full_access(
        &instance,
        vec![
            (json!({"localServerPort": daemon}), "reminders.daemonPort"),
            (
                json!({"reminders": {"daemonPort": rest}}),
                "reminders.daemonPort",
            ),
            (
                json!({"reminders": {"daemonPort": caldav}}),
                "caldavServer.port",
            ),
        ],
    )
    .await;
    // The CalDAV server's port is the user's to set; the user is held to it
    // as well.
    let error = instance
        .settings_as_user(json!({"caldavServer": {"port": rest}}))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("caldavServer.port"), "{error}");
    assert!(error.to_string().contains("localServerPort"), "{error}");
    assert_eq!(instance.core.settings.get(), settings);
}
