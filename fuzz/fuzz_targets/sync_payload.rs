//! The reminder daemon's `/sync` and `/snooze` body parser: no input may
//! panic it, and whatever it accepts must obey every rule.
//!
//! RUSTC_BOOTSTRAP=1 cargo fuzz run sync_payload -- -max_total_time=120

#![no_main]

use std::collections::HashSet;

use almanac_reminders::Limits;
use almanac_reminders::payload::{parse_snooze, parse_sync};
use almanac_reminders::reminder::Rules;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_reminders: 64,
        max_id_bytes: 32,
        max_text_bytes: 64,
        max_url_bytes: 64,
        ..Limits::default()
    };
    let schemes = vec!["obsidian".to_string(), "https".to_string()];
    let rules = Rules {
        limits: &limits,
        allowed_schemes: &schemes,
    };
    if let Ok(reminders) = parse_sync(data, &rules) {
        assert!(reminders.len() <= limits.max_reminders);
        let mut ids = HashSet::new();
        for reminder in &reminders {
            assert!(ids.insert(reminder.id.as_str()), "duplicate id accepted");
            assert!(rules.check_id(&reminder.id).is_ok());
            assert!(rules.check_text(&reminder.title).is_ok());
            assert!(rules.check_text(&reminder.body).is_ok());
            assert!(rules.check_action_url(&reminder.action_url).is_ok());
            assert!(rules.check_trigger(reminder.trigger_at_epoch).is_ok());
        }
    }
    if let Ok(snooze) = parse_snooze(data, &rules) {
        assert!(snooze.validate(&rules).is_ok());
    }
});
