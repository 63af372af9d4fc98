//! The black-box tests of the `almanac` and `almanac-server` binaries, one
//! binary with a module per former test binary (each test keeps its name:
//! `window_calendar::…`, `headless::…`). Thirty-two binaries each linked the
//! whole desktop stack; one links it once. cargo-nextest runs every test in a
//! process of its own, and `.config/nextest.toml` keeps apart the tests that
//! share something a process cannot (the tray's bus name).
//!
//!     scripts/session.sh cargo nextest run -p almanac -E 'test(/^window_sidebar::/)'

mod support;

mod autostart;
mod bench_calendar_window;
mod degraded_start;
mod docs_stand_alone;
mod events_cli;
mod headless;
mod live_attacks;
mod mcp_stdio;
mod reminder_hook;
mod reminder_notifications;
mod single_instance;
mod token_cli;
mod tray_menu;
mod upgrade;
mod vault_reminders;
mod window_agenda;
mod window_caldav;
mod window_calendar;
mod window_calendar_dense;
mod window_calendar_list;
mod window_confirm_write;
mod window_consent;
mod window_editing;
mod window_event_moves;
mod window_first_start;
mod window_keys;
mod window_mini_month;
mod window_month_grid;
mod window_publish;
mod window_reminders;
mod window_reminders_origin;
mod window_screenshots;
mod window_search;
mod window_second_zone;
mod window_settings;
mod window_settings_kinds;
mod window_settings_sections;
mod window_sidebar;
mod window_tasks;
mod window_undo;
mod window_webhooks;
