//! The calendar views Almanac knows, by their FullCalendar ids. Shared by the
//! settings (`initialView`) and the UI controller (`changeView`), so both refuse
//! the same unknown names.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A calendar view, serialized as its FullCalendar id (`timeGridWeek`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CalendarView {
    DayGridMonth,
    DayGridWeek,
    TimeGridWeek,
    TimeGridDay,
    ListDay,
    ListWeek,
    ListMonth,
}

impl CalendarView {
    pub const ALL: [CalendarView; 7] = [
        CalendarView::DayGridMonth,
        CalendarView::DayGridWeek,
        CalendarView::TimeGridWeek,
        CalendarView::TimeGridDay,
        CalendarView::ListDay,
        CalendarView::ListWeek,
        CalendarView::ListMonth,
    ];

    /// The FullCalendar id.
    pub fn id(self) -> &'static str {
        match self {
            CalendarView::DayGridMonth => "dayGridMonth",
            CalendarView::DayGridWeek => "dayGridWeek",
            CalendarView::TimeGridWeek => "timeGridWeek",
            CalendarView::TimeGridDay => "timeGridDay",
            CalendarView::ListDay => "listDay",
            CalendarView::ListWeek => "listWeek",
            CalendarView::ListMonth => "listMonth",
        }
    }

    /// The view with this id (exact, case-sensitive, as FullCalendar's).
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|view| view.id() == id)
    }

    /// The known ids, comma-separated, for error messages.
    pub fn known_ids() -> String {
        Self::ALL.map(Self::id).join(", ")
    }
}

impl fmt::Display for CalendarView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_serde_and_from_id() {
        for view in CalendarView::ALL {
            assert_eq!(CalendarView::from_id(view.id()), Some(view));
            assert_eq!(serde_json::to_value(view).unwrap(), view.id());
        }
        assert_eq!(CalendarView::from_id("timegridweek"), None);
        assert_eq!(CalendarView::from_id(""), None);
    }
}
