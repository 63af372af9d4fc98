//! The desktop app: a tray icon, windows showing the web UI (`ui/`), and
//! native notifications — around the same services headless mode runs.
//!
//! - [`tray`]: the tray icon and its menu;
//! - [`windows`]: opening and focusing the calendar, sidebar, reminders and
//!   settings windows;
//! - [`commands`], [`settings_commands`]: the Tauri commands the web UI calls;
//!   `command_list.rs` names them all (for `build.rs`), and `capabilities/`
//!   grants each window only those its page calls;
//! - [`webhook_commands`]: Settings' webhooks (the core's `webhooks`);
//! - [`publish_commands`]: Settings' "Show on my phone" (the core's
//!   `publish`);
//! - [`editing`]: the commands the calendar window edits events with;
//! - [`undo_commands`]: its Ctrl+Z and Ctrl+Shift+Z, and Settings' undo of
//!   what a token did;
//! - [`bridge`]: forwards core changes (settings, REST state, …) to the UI and
//!   the tray;
//! - [`ui`] / [`consent`]: the API's window controller and consent dialog;
//! - [`access`]: `--request-access`, asking the user for a token;
//! - [`autostart`]: starting at login, asked once on the first run;
//! - [`notifier`]: how reminder notifications are shown on each OS;
//! - `drawing` (Linux): how the calendar window draws where there is no
//!   GPU.

mod access;
mod autostart;
mod bridge;
mod caldav_commands;
#[cfg(test)]
mod capabilities_tests;
#[cfg(test)]
mod command_list;
mod commands;
mod consent;
#[cfg(target_os = "linux")]
mod drawing;
mod editing;
mod notifier;
mod publish_commands;
mod quick_add;
mod settings_commands;
mod tray;
mod ui;
mod undo_commands;
mod webhook_commands;
mod window_state;
mod windows;

use std::sync::Arc;

use almanac_core::paths::Paths;
use sha2::{Digest, Sha256};
use tauri::{Manager, RunEvent};

use crate::cli::Args;
use crate::wiring::{Hooks, Services};
use almanac_loopback::ShutdownSignal;

/// Runs the tray app until Quit, SIGINT or SIGTERM; returns the exit code.
pub fn run(args: &Args) -> Result<i32, Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Runtime::new()?;
    // Tauri and the services share one runtime.
    tauri::async_runtime::set(runtime.handle().clone());

    let paths = Paths::platform();
    let vault = args.vault.clone();
    let open = args.open;
    let request_access = args.request_access.clone();
    let app = notifier::register(tauri::Builder::default())
        .plugin(single_instance(&paths))
        // The settings window's vault folder picker.
        .plugin(tauri_plugin_dialog::init())
        .plugin(autostart::plugin())
        .invoke_handler(tauri::generate_handler![
            commands::settings_get,
            commands::settings_update,
            commands::rest_status,
            commands::calendar_events,
            commands::calendar_events_per_day,
            commands::calendar_sources,
            quick_add::calendar_read_day,
            commands::calendar_search,
            commands::settings_show_calendars,
            commands::welcome_finish,
            window_state::calendar_window_state,
            window_state::calendar_window_state_save,
            commands::vault_status,
            commands::token_scopes,
            commands::tokens_list,
            commands::token_create,
            commands::token_revoke,
            commands::granted_secret_take,
            commands::reminders_list,
            commands::reminder_open,
            commands::reminder_snooze,
            commands::consent_request,
            commands::consent_answer,
            commands::write_confirmation,
            commands::write_confirmation_answer,
            editing::event_create,
            editing::event_update,
            editing::event_replaced_series,
            editing::event_delete,
            editing::event_open_note,
            quick_add::event_quick_add,
            undo_commands::history_step,
            undo_commands::token_changes,
            undo_commands::token_undo_since,
            settings_commands::time_zones,
            settings_commands::vault_import_offer,
            settings_commands::vault_import_apply,
            settings_commands::obsidian_vaults,
            caldav_commands::caldav_add,
            caldav_commands::caldav_change_password,
            caldav_commands::feeds_list,
            caldav_commands::feed_create,
            caldav_commands::feed_revoke,
            publish_commands::publish_collections,
            publish_commands::publish_calendar,
            publish_commands::publish_stop,
            publish_commands::publish_status,
            publish_commands::publish_sync_now,
            autostart::autostart_state,
            autostart::autostart_set,
            webhook_commands::webhooks_list,
            webhook_commands::webhook_create,
            webhook_commands::webhook_set_enabled,
            webhook_commands::webhook_delete,
            webhook_commands::webhook_deliveries,
        ])
        .setup(move |app| {
            let handle = app.handle().clone();
            let consent = consent::ConsentDialogs::new(handle.clone());
            app.manage(consent.clone());
            app.manage(access::GrantedSecrets::default());
            app.manage(autostart::AskedMarker::new(&paths));
            app.manage(window_state::StateFile::new(&paths));
            let (services, shutdown) = tauri::async_runtime::block_on(async {
                // Before any port opens: a SIGTERM from here on stops us cleanly.
                let shutdown = ShutdownSignal::install();
                let hooks = Hooks {
                    ui: Arc::new(ui::WindowUi::new(handle.clone())),
                    consent: Arc::new(consent),
                    notifier: notifier::for_desktop(&handle).await,
                };
                Services::start(paths, vault, hooks)
                    .await
                    .map(|services| (services, shutdown))
            })?;
            let services = Arc::new(services);
            app.manage(services.clone());
            let tray = tray::build(&handle, &services)?;
            app.manage(tray.clone());
            bridge::spawn(&handle, &services, tray);
            if let Some(kind) = open {
                windows::show(&handle, kind)?;
            }
            if let Some(request) = request_access {
                access::request(&handle, request);
            }
            autostart::ask_once(&handle)?;
            tauri::async_runtime::spawn(async move {
                shutdown.recv().await;
                handle.exit(0);
            });
            Ok(())
        })
        .build(tauri::generate_context!())?;

    let code = app.run_return(|app, event| match event {
        // A tray app stays alive when its last window closes; only Quit
        // (and signals) exit, with an explicit code.
        RunEvent::ExitRequested {
            api, code: None, ..
        } => api.prevent_exit(),
        RunEvent::Exit => {
            if let Some(services) = app.try_state::<Arc<Services>>() {
                tauri::async_runtime::block_on(services.shutdown());
            }
        }
        _ => {}
    });
    Ok(code)
}

/// A second launch of the same profile (same config dir) hands its
/// arguments to the running instance and exits: `--open X` opens X there,
/// `--request-access` asks the user there, a plain launch brings a window to
/// the front. Instances with different
/// config dirs (isolated test instances, other profiles) run side by side.
fn single_instance(paths: &Paths) -> tauri::plugin::TauriPlugin<tauri::Wry> {
    let profile = Sha256::digest(paths.config_dir().as_os_str().as_encoded_bytes());
    let profile: String = profile[..8].iter().map(|b| format!("{b:02x}")).collect();
    tauri_plugin_single_instance::Builder::new()
        .dbus_id(format!("dev.almanac.desktop.p{profile}"))
        .callback(|app, argv, _cwd| {
            // The second launch has already refused invalid arguments.
            let args = Args::parse(argv.into_iter().skip(1)).unwrap_or_default();
            let asks = args.request_access.is_some();
            if let Some(request) = args.request_access {
                access::request(app, request);
            }
            let shown = match args.open {
                Some(kind) => windows::show(app, kind).map(drop),
                // The consent dialog comes to the front by itself.
                None if asks => Ok(()),
                None => windows::focus_any(app),
            };
            if let Err(error) = shown {
                tracing::error!("could not show a window for a second launch: {error}");
            }
        })
        .build()
}
