//! Which date of an Obsidian Tasks line places it on the calendar (a
//! `tasks` source's `dateField`).

use serde::{Deserialize, Serialize};

/// Which of an Obsidian Tasks line's dates places it on the calendar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TaskDateField {
    /// 📅
    #[default]
    Due,
    /// ⏳
    Scheduled,
    /// 🛫
    Start,
}

impl TaskDateField {
    /// The dates tried in turn: this one first, then the others in the
    /// order due, scheduled, start. A task is never lost for lacking the
    /// chosen date (the Full Calendar plugin's #239).
    pub fn order(self) -> [TaskDateField; 3] {
        use TaskDateField::{Due, Scheduled, Start};
        match self {
            Due => [Due, Scheduled, Start],
            Scheduled => [Scheduled, Due, Start],
            Start => [Start, Due, Scheduled],
        }
    }
}
