//! Each window may call exactly the commands its page calls: the capability
//! of every window (`capabilities/<page>.json`) is compared with the
//! commands named in its page's scripts (the page's entry script and every
//! module it imports). A page that starts calling a new command fails here
//! until its capability grants it; a capability granting more fails too.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

use super::command_list::COMMANDS;

/// Each page and the window label(s) showing it.
const WINDOWS: [(&str, &str); 6] = [
    ("calendar", "calendar"),
    ("sidebar", "sidebar"),
    ("settings", "settings"),
    ("reminders", "reminders"),
    ("consent", "consent-*"),
    ("confirm", "confirm-*"),
];

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scripts() -> PathBuf {
    manifest_dir().join("../ui/src/js")
}

/// `script` and every module it imports, transitively (`./x.js` imports).
fn closure(script: &str, seen: &mut BTreeSet<String>) {
    if !seen.insert(script.to_string()) {
        return;
    }
    let text = std::fs::read_to_string(scripts().join(script)).unwrap();
    for marker in ["from './", "import './"] {
        for (at, _) in text.match_indices(marker) {
            let rest = &text[at + marker.len()..];
            let imported = &rest[..rest.find('\'').unwrap()];
            closure(imported, seen);
        }
    }
}

/// The permissions `page` needs: its commands' `allow-…`, and the event
/// permissions if it listens to the shell's events.
fn needed(page: &str) -> BTreeSet<String> {
    let mut modules = BTreeSet::new();
    closure(&format!("{page}.js"), &mut modules);
    // ipc.js is the door itself: it names no command.
    modules.remove("ipc.js");
    let text: String = modules
        .iter()
        .map(|module| std::fs::read_to_string(scripts().join(module)).unwrap())
        .collect();
    let mut needed: BTreeSet<String> = COMMANDS
        .iter()
        .filter(|command| text.contains(&format!("'{command}'")))
        .map(|command| format!("allow-{}", command.replace('_', "-")))
        .collect();
    if text.contains("listen(") {
        needed.insert("core:event:allow-listen".into());
        needed.insert("core:event:allow-unlisten".into());
    }
    needed
}

fn capability(name: &str) -> Value {
    let path = manifest_dir().join("capabilities").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn strings(value: &Value) -> BTreeSet<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn each_window_is_granted_exactly_the_commands_its_page_calls() {
    for (page, label) in WINDOWS {
        let capability = capability(&format!("{page}.json"));
        assert_eq!(
            strings(&capability["windows"]),
            BTreeSet::from([label.to_string()]),
            "{page}"
        );
        assert_eq!(strings(&capability["permissions"]), needed(page), "{page}");
    }
}

#[test]
fn the_consent_dialogs_cannot_make_or_see_tokens_or_write_events() {
    for dialog in ["consent.json", "confirm.json"] {
        let granted = strings(&capability(dialog)["permissions"]);
        for command in [
            "token_create",
            "tokens_list",
            "granted_secret_take",
            "settings_update",
            "event_delete",
            "event_update",
        ] {
            let permission = format!("allow-{}", command.replace('_', "-"));
            assert!(!granted.contains(&permission), "{dialog}: {permission}");
        }
    }
}

#[test]
fn no_capability_reaches_every_window_or_an_unknown_command() {
    let known: BTreeSet<String> = COMMANDS
        .iter()
        .map(|command| format!("allow-{}", command.replace('_', "-")))
        .collect();
    let dir = manifest_dir().join("capabilities");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let capability = capability(&name);
        let windows = strings(&capability["windows"]);
        assert!(
            !windows.iter().any(|w| w == "*"),
            "{name} is for every window"
        );
        for permission in strings(&capability["permissions"]) {
            let app_command = !permission.contains(':');
            assert!(
                !app_command || known.contains(&permission),
                "{name}: {permission}"
            );
        }
    }
}

/// The list `build.rs` makes permissions from is the list registered.
#[test]
fn the_command_list_is_what_the_shell_registers() {
    let source = std::fs::read_to_string(manifest_dir().join("src/desktop/mod.rs")).unwrap();
    let start = source.find("generate_handler![").unwrap();
    let end = start + source[start..].find(']').unwrap();
    let registered: BTreeSet<&str> = source[start..end]
        .trim_start_matches("generate_handler![")
        .split(',')
        .map(|path| path.trim().rsplit("::").next().unwrap())
        .filter(|name| !name.is_empty())
        .collect();
    assert_eq!(registered, COMMANDS.iter().copied().collect());
}
