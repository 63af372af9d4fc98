//! Keeping the set fresh: a thread that follows the calendar engine's
//! generation (vault edits), the settings store (reminder settings,
//! `vaultName`) and the clock, and publishes each new set.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use tokio::sync::watch;

use super::VaultReminders;
use super::rules::Rules;
use super::set::DerivedSet;
use crate::calendar::{Calendar, WeakCalendar};
use crate::settings::SettingsStore;

/// The longest single sleep. The timer runs on the monotonic clock, which
/// stands still while the machine sleeps; waking at least this often puts
/// the set right soon after a resume.
const LONGEST_SLEEP: Duration = Duration::from_secs(15 * 60);

/// Derives the set from `calendar` now, then follows the engine and `store`
/// on a thread of its own, which ends when either is dropped. The receiver
/// holds the current set.
pub fn start(
    calendar: &Calendar,
    store: &Arc<SettingsStore>,
) -> watch::Receiver<Arc<VaultReminders>> {
    // Subscribe before deriving, so no change falls in between.
    let generations = calendar.subscribe();
    let settings = store.subscribe();
    let set = DerivedSet::derive(calendar, Rules::from_settings(&store.get()), Utc::now());
    let (publish, current) = watch::channel(Arc::new(set.snapshot()));
    let engine = calendar.downgrade();
    let spawned = std::thread::Builder::new()
        .name("almanac-vault-reminders".into())
        .spawn(move || {
            // The channels are async; a small runtime of its own lets this
            // thread wait on them and on the timer without the caller's.
            match tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
            {
                Ok(runtime) => {
                    runtime.block_on(follow(set, engine, generations, settings, publish))
                }
                Err(error) => tracing::error!(%error, "cannot follow vault reminders"),
            }
        });
    if let Err(error) = spawned {
        tracing::error!(%error, "cannot start following vault reminders");
    }
    current
}

async fn follow(
    mut set: DerivedSet,
    engine: WeakCalendar,
    mut generations: watch::Receiver<u64>,
    mut settings: watch::Receiver<Arc<crate::settings::Settings>>,
    publish: watch::Sender<Arc<VaultReminders>>,
) {
    loop {
        let wait = (set.next_change() - Utc::now())
            .to_std()
            .unwrap_or_default()
            .min(LONGEST_SLEEP);
        enum Wake {
            Calendar,
            Settings,
            Clock,
        }
        let wake = tokio::select! {
            changed = generations.changed() => match changed {
                Ok(()) => Wake::Calendar,
                Err(_) => return,
            },
            changed = settings.changed() => match changed {
                Ok(()) => Wake::Settings,
                Err(_) => return,
            },
            () = tokio::time::sleep(wait) => Wake::Clock,
        };
        let Some(calendar) = engine.upgrade() else {
            return;
        };
        let changed = match wake {
            Wake::Calendar => {
                generations.mark_unchanged();
                set.follow_edits(&calendar)
            }
            Wake::Settings => {
                let rules = Rules::from_settings(&settings.borrow_and_update());
                let renewed = rules != *set.rules();
                if renewed {
                    set = DerivedSet::derive(&calendar, rules, Utc::now());
                }
                renewed
            }
            Wake::Clock => set.advance(&calendar, Utc::now()),
        };
        drop(calendar);
        if changed {
            // An edit elsewhere in a note, or a rule change with the same
            // outcome, leaves the set as it was: no announcement then.
            let next = set.snapshot();
            publish.send_if_modified(|current| {
                let modified = **current != next;
                if modified {
                    *current = Arc::new(next);
                }
                modified
            });
        }
    }
}
