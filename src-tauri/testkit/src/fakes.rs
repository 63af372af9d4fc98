//! Stand-ins for the desktop's windows and for the passing of time.

use std::sync::{Arc, Mutex};

use almanac_core::api::{UiController, UiUnavailable};
use almanac_core::clock::Clock;
use almanac_core::view::CalendarView;
use chrono::{DateTime, Duration, Utc};

/// Records what the API asked of the windows, in order: `open_calendar`,
/// `open_sidebar`, `change_view <view id>`, and, when made with
/// [`RecordingUi::with_announcements`], `announce <message>`.
#[derive(Default)]
pub struct RecordingUi {
    calls: Mutex<Vec<String>>,
    announcements: bool,
}

impl RecordingUi {
    /// Also records announcements ("event created" notices), for tests that
    /// check a change was announced or that nothing at all reached the UI.
    pub fn with_announcements() -> Self {
        Self {
            announcements: true,
            ..Self::default()
        }
    }

    pub fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }

    fn record(&self, call: String) -> Result<(), UiUnavailable> {
        self.calls.lock().unwrap().push(call);
        Ok(())
    }
}

impl UiController for RecordingUi {
    fn open_calendar(&self) -> Result<(), UiUnavailable> {
        self.record("open_calendar".into())
    }
    fn open_sidebar(&self) -> Result<(), UiUnavailable> {
        self.record("open_sidebar".into())
    }
    fn change_view(&self, view: CalendarView) -> Result<(), UiUnavailable> {
        self.record(format!("change_view {view}"))
    }
    fn announce(&self, message: &str) {
        if self.announcements {
            let _ = self.record(format!("announce {message}"));
        }
    }
}

/// A clock that stands still until moved.
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    pub fn new() -> Arc<Self> {
        Arc::new(Self(Mutex::new(Utc::now())))
    }

    pub fn advance(&self, by: Duration) {
        *self.0.lock().unwrap() += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}
