//! Every event of one calendar, unexpanded: what a CalDAV collection or a
//! subscription feed lists (a series is one event, as written).

use super::engine::Calendar;
use super::event::Event;

impl Calendar {
    /// The work of [`Calendar::source_events`].
    pub(super) fn listed_events(&self, id: &str) -> Option<Vec<Event>> {
        let state = self.inner.read();
        let source = state.cache.source(id)?;
        let mut events: Vec<Event> = source
            .notes
            .iter()
            .flat_map(|(path, entries)| entries.iter().map(|e| e.event(&source.config, path)))
            .collect();
        events.sort_by(|a, b| a.id.cmp(&b.id));
        Some(events)
    }
}
