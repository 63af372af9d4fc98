//! The application event bus: one broadcast of "something changed" that every
//! component subscribes to once (the desktop bridge to the windows and the
//! tray, tests, future consumers), instead of one hand-made channel per
//! change.
//!
//! Each event is published from the one place its change happens, in the
//! same step that makes the change visible:
//!
//! - [`AppEvent::SettingsChanged`]: the settings store's commit
//!   ([`crate::settings::SettingsStore`]), the only way settings change (every
//!   writer names its [`Actor`](crate::settings::class::Actor) and is checked
//!   against the setting classes there). The same commit also feeds the
//!   store's watch channel, which the REST listener, the calendar engine and
//!   the reminder daemon follow because they want "latest value" semantics;
//!   bus and watch cannot disagree because one commit feeds both.
//! - [`AppEvent::TokensChanged`]: the token store, on create, revoke, the
//!   keyring coming back, and a token reaching its expiry time.
//! - [`AppEvent::CalendarChanged`]: the calendar engine's generation bump
//!   (own writes, external edits, feed refreshes, rescans).
//! - [`AppEvent::RemindersChanged`]: the reminder daemon's generation moved
//!   (a reminder fired, was snoozed, dismissed or synced). The reminders crate
//!   does not depend on this crate: the desktop shell, which starts the
//!   daemon, forwards the daemon's generation channel here.
//!
//! ## Lagging subscribers resync
//!
//! The bus is a bounded [`tokio::sync::broadcast`] channel ([`CAPACITY`]
//! events). A subscriber that falls further behind does not silently miss a
//! change: [`Subscription::recv`] returns [`Delivery::Resync`] instead, and
//! the subscriber must then re-read the current state of everything it shows
//! (settings from the store, the token list, the calendar, the reminders).
//! Events carry no state a subscriber could not read again, so a resync
//! loses nothing.

use std::sync::Arc;

use tokio::sync::broadcast::{self, error::RecvError};

use crate::settings::Settings;

/// Events a subscriber may fall behind by before it must resync.
pub const CAPACITY: usize = 256;

/// Something in the running instance changed.
#[derive(Debug, Clone, PartialEq)]
pub enum AppEvent {
    /// The settings were committed; the new settings.
    SettingsChanged(Arc<Settings>),
    /// The token list changed (a token was created, revoked or expired, or
    /// the keyring became available). No token data travels on the bus.
    TokensChanged,
    /// The calendar's cached events or feed status changed. Generations only
    /// grow; a subscriber seeing several may act on the last.
    CalendarChanged { generation: u64 },
    /// The reminder daemon's reminders changed (fired, snoozed, dismissed,
    /// synced). The daemon's own generation restarts with each run, so it
    /// is not carried.
    RemindersChanged,
}

/// The bus. Cheap to clone; every clone publishes to the same subscribers.
#[derive(Debug, Clone)]
pub struct EventBus(broadcast::Sender<AppEvent>);

impl Default for EventBus {
    fn default() -> Self {
        Self(broadcast::channel(CAPACITY).0)
    }
}

impl EventBus {
    /// Tells every current subscriber. Nobody listening is not an error.
    pub fn publish(&self, event: AppEvent) {
        let _ = self.0.send(event);
    }

    /// Events published from now on. Read the current state after
    /// subscribing, so nothing falls between the read and the first event.
    pub fn subscribe(&self) -> Subscription {
        Subscription(self.0.subscribe())
    }
}

/// One subscriber's view of the bus.
#[derive(Debug)]
pub struct Subscription(broadcast::Receiver<AppEvent>);

/// What a subscriber receives.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery {
    Event(AppEvent),
    /// The subscriber fell behind and `missed` events were dropped: re-read
    /// the current state of everything it follows.
    Resync {
        missed: u64,
    },
}

impl Subscription {
    /// The next delivery, or `None` once every publisher is gone.
    pub async fn recv(&mut self) -> Option<Delivery> {
        match self.0.recv().await {
            Ok(event) => Some(Delivery::Event(event)),
            Err(RecvError::Lagged(missed)) => Some(Delivery::Resync { missed }),
            Err(RecvError::Closed) => None,
        }
    }

    /// The next delivery if one is waiting (`None` when none is), for
    /// checking that something was *not* published.
    pub fn try_recv(&mut self) -> Option<Delivery> {
        use broadcast::error::TryRecvError;
        match self.0.try_recv() {
            Ok(event) => Some(Delivery::Event(event)),
            Err(TryRecvError::Lagged(missed)) => Some(Delivery::Resync { missed }),
            Err(TryRecvError::Empty | TryRecvError::Closed) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_lagging_subscriber_gets_resync_then_the_events_still_held() {
        let bus = EventBus::default();
        let mut events = bus.subscribe();
        for generation in 0..CAPACITY as u64 + 3 {
            bus.publish(AppEvent::CalendarChanged { generation });
        }
        assert_eq!(events.recv().await, Some(Delivery::Resync { missed: 3 }));
        assert_eq!(
            events.recv().await,
            Some(Delivery::Event(AppEvent::CalendarChanged { generation: 3 }))
        );
    }

    #[tokio::test]
    async fn the_subscription_ends_with_the_last_publisher() {
        let bus = EventBus::default();
        let mut events = bus.subscribe();
        bus.publish(AppEvent::TokensChanged);
        drop(bus);
        assert_eq!(
            events.recv().await,
            Some(Delivery::Event(AppEvent::TokensChanged))
        );
        assert_eq!(events.recv().await, None);
    }
}
