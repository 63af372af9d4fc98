// Every Tauri command the shell registers, by name. `build.rs` includes this
// file to give each command its own permission (`allow-<name>`), so a
// window's capability (`capabilities/<window>.json`) can grant exactly the
// commands its page calls and no other; `mod.rs` registers the same list
// (a test checks the two agree). Plain Rust so both can include it.

/// The shell's commands, as `generate_handler!` registers them.
pub const COMMANDS: &[&str] = &[
    "settings_get",
    "settings_update",
    "rest_status",
    "calendar_events",
    "calendar_events_per_day",
    "calendar_sources",
    "vault_status",
    "token_scopes",
    "tokens_list",
    "token_create",
    "token_revoke",
    "granted_secret_take",
    "reminders_list",
    "reminder_open",
    "reminder_snooze",
    "consent_request",
    "consent_answer",
    "event_create",
    "event_update",
    "event_replaced_series",
    "event_delete",
    "event_open_note",
    "event_quick_add",
    "time_zones",
    "vault_import_offer",
    "vault_import_apply",
    "obsidian_vaults",
    "caldav_add",
    "caldav_change_password",
    "feeds_list",
    "feed_create",
    "feed_revoke",
    "autostart_state",
    "autostart_set",
    "webhooks_list",
    "webhook_create",
    "webhook_set_enabled",
    "webhook_delete",
    "webhook_deliveries",
];
