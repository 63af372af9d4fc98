//! The tools: names, descriptions, JSON schemas of their arguments and the
//! hints (read-only, destructive, idempotent) an assistant shows or acts on.
//!
//! Which tools a token sees follows from the same table: a tool that is not
//! read-only writes events and needs `events:write`, so a token without it
//! is not shown those tools, and calling one is refused ([`visible_to`],
//! [`scope_of`]).

use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use schemars::JsonSchema;

use super::params::{
    ChangeIdParams, ChangesParams, CreateParams, DeleteParams, EventIdParams, NoParams,
    QuickAddParams, RangeParams, RemindersParams, SearchParams, UpdateParams,
};
use crate::tokens::{Scope, ScopeSet};

/// One tool's entry.
struct Entry {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    /// `readOnlyHint`: reads only.
    read_only: bool,
    /// What a token needs to see and call it: the scope of the API call it
    /// makes (so a tool and its REST route never disagree).
    scope: Scope,
    /// `destructiveHint`: may delete or overwrite what the user wrote.
    destructive: bool,
    /// `idempotentHint`: calling it twice with the same arguments does no more.
    idempotent: bool,
    schema: fn() -> Arc<rmcp::model::JsonObject>,
}

fn schema<T: JsonSchema + 'static>() -> Arc<rmcp::model::JsonObject> {
    rmcp::handler::server::common::schema_for_type::<T>()
}

const ENTRIES: &[Entry] = &[
    Entry {
        name: "list_calendars",
        title: "List calendars",
        description: "The calendars Almanac reads (notes folders, daily notes, CalDAV and \
            ICS calendars): id, name, type, whether it can be written, event count.",
        read_only: true,
        scope: Scope::ProvidersRead,
        destructive: false,
        idempotent: true,
        schema: schema::<NoParams>,
    },
    Entry {
        name: "list_events",
        title: "Events in a range",
        description: "Events overlapping a date range, recurring series expanded into their \
            occurrences, sorted by start; times are in the display time zone. Each event \
            gives its start and end in UTC (startUtc, endUtc) and in the display zone with \
            its offset (startLocal, endLocal; displayZone names the zone), and its timing: \
            zoned (its own time zone), floating (wall-clock time read in the display zone) \
            or allDay (dates only, no UTC). A range may hold at most 10000 events (narrow it \
            or pick calendars otherwise).",
        read_only: true,
        scope: Scope::EventsRead,
        destructive: false,
        idempotent: true,
        schema: schema::<RangeParams>,
    },
    Entry {
        name: "search_events",
        title: "Search events",
        description: "Events whose title or note contains the text (case-insensitive), \
            optionally within a range (default: the year around today).",
        read_only: true,
        scope: Scope::EventsRead,
        destructive: false,
        idempotent: true,
        schema: schema::<SearchParams>,
    },
    Entry {
        name: "get_event",
        title: "One event",
        description: "One event by id, with the note (path and line) it is written in.",
        read_only: true,
        scope: Scope::EventsRead,
        destructive: false,
        idempotent: true,
        schema: schema::<EventIdParams>,
    },
    Entry {
        name: "free_busy",
        title: "Free/busy",
        description: "The busy periods in a range (timed events, series expanded, overlapping \
            ones merged; all-day events and tasks do not count), in the display time zone.",
        read_only: true,
        scope: Scope::EventsRead,
        destructive: false,
        idempotent: true,
        schema: schema::<RangeParams>,
    },
    Entry {
        name: "current_time",
        title: "Current time",
        description: "The current date and time in the calendar's display time zone (and in \
            UTC), that zone's name and its UTC offset now. Use it to read relative dates \
            (today, next Monday).",
        read_only: true,
        scope: Scope::EventsRead,
        destructive: false,
        idempotent: true,
        schema: schema::<NoParams>,
    },
    Entry {
        name: "upcoming_reminders",
        title: "Upcoming reminders",
        description: "The next reminders Almanac will fire for events in the notes, soonest \
            first: when, for which event, how long before its start.",
        read_only: true,
        scope: Scope::EventsRead,
        destructive: false,
        idempotent: true,
        schema: schema::<RemindersParams>,
    },
    Entry {
        name: "create_event",
        title: "Create an event",
        description: "Creates an event in a writable calendar (list_calendars says which). \
            Times are in the display time zone unless the event names its own. Send an \
            idempotencyKey (a new UUID per event) so that retrying the call never creates \
            it twice.",
        read_only: false,
        scope: Scope::EventsWrite,
        destructive: false,
        idempotent: false,
        schema: schema::<CreateParams>,
    },
    Entry {
        name: "update_event",
        title: "Update an event",
        description: "Changes the given fields of an event. With occurrenceDate only that \
            occurrence of a series changes; without it a recurring event's whole series \
            changes, which the user is asked to confirm.",
        read_only: false,
        scope: Scope::EventsWrite,
        destructive: true,
        idempotent: true,
        schema: schema::<UpdateParams>,
    },
    Entry {
        name: "delete_event",
        title: "Delete an event",
        description: "Deletes an event (its whole series), or with occurrenceDate only that \
            occurrence. The user is asked to confirm every delete.",
        read_only: false,
        scope: Scope::EventsWrite,
        destructive: true,
        idempotent: true,
        schema: schema::<DeleteParams>,
    },
    Entry {
        name: "quick_add",
        title: "Quick add",
        description: "Creates an event from one line of text, as the calendar's quick-add \
            box reads it: \"Lunch with Ana tomorrow 12:30-13:30 in work\", \"Gym every \
            Monday 7am\". dryRun only shows what it would create. Send an idempotencyKey \
            (a new UUID per event) so that retrying the call never creates it twice.",
        read_only: false,
        scope: Scope::EventsWrite,
        destructive: false,
        idempotent: false,
        schema: schema::<QuickAddParams>,
    },
    Entry {
        name: "list_changes",
        title: "Recent changes",
        description: "The changes made to the calendar's notes, newest first: their id, \
            when, who made them (the window, a token by name, the command line) and the \
            notes each created, edited or deleted. Use it to find a change to undo.",
        read_only: true,
        scope: Scope::EventsWrite,
        destructive: false,
        idempotent: true,
        schema: schema::<ChangesParams>,
    },
    Entry {
        name: "undo_change",
        title: "Undo a change",
        description: "Undoes one change from list_changes: its notes go back byte for byte \
            (a deleted note comes back). Refused when a note changed since; undo the later \
            change first. Undoing an undo redoes. The user is asked to confirm.",
        read_only: false,
        scope: Scope::EventsWrite,
        destructive: true,
        idempotent: false,
        schema: schema::<ChangeIdParams>,
    },
];

/// Every tool, as `tools/list` shows it to a token with every scope.
pub fn all_tools() -> Vec<Tool> {
    ENTRIES.iter().map(tool).collect()
}

/// The tools a token with `scopes` may call, in catalogue order.
pub fn visible_to(scopes: ScopeSet) -> Vec<Tool> {
    ENTRIES
        .iter()
        .filter(|entry| scopes.grants(entry.scope))
        .map(tool)
        .collect()
}

/// The scope calling tool `name` needs; `None` for an unknown tool.
pub fn scope_of(name: &str) -> Option<Scope> {
    ENTRIES
        .iter()
        .find(|entry| entry.name == name)
        .map(|entry| entry.scope)
}

fn tool(entry: &Entry) -> Tool {
    let hints = ToolAnnotations::with_title(entry.title)
        .read_only(entry.read_only)
        .destructive(entry.destructive)
        .idempotent(entry.idempotent)
        // Only the user's own calendars: no open world.
        .open_world(false);
    Tool::new(entry.name, entry.description, (entry.schema)())
        .with_title(entry.title)
        .with_annotations(hints)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_without_events_write_sees_only_read_only_tools() {
        let read_only = ScopeSet::from_iter([Scope::EventsRead]);
        let shown = visible_to(read_only);
        assert_eq!(shown.len(), 6);
        assert!(shown.iter().all(|tool| {
            tool.annotations
                .as_ref()
                .is_some_and(|hints| hints.read_only_hint == Some(true))
        }));
        let all =
            ScopeSet::from_iter([Scope::EventsRead, Scope::EventsWrite, Scope::ProvidersRead]);
        assert_eq!(visible_to(all).len(), all_tools().len());
        assert_eq!(scope_of("delete_event"), Some(Scope::EventsWrite));
        assert_eq!(scope_of("nope"), None);
    }

    /// `list_calendars` is `GET /api/v1/calendars`: the contract's
    /// `providers:read`, not `events:read`.
    #[test]
    fn list_calendars_needs_what_get_calendars_needs() {
        assert_eq!(scope_of("list_calendars"), Some(Scope::ProvidersRead));
        let events_only = ScopeSet::from_iter([Scope::EventsRead, Scope::EventsWrite]);
        assert!(
            !visible_to(events_only)
                .iter()
                .any(|tool| tool.name == "list_calendars")
        );
    }

    /// docs/mcp.md's tools table names each tool's scope as this table does.
    #[test]
    fn the_docs_name_each_tools_scope() {
        let docs = include_str!("../../../../docs/mcp.md");
        for entry in ENTRIES {
            let row = docs
                .lines()
                .find(|line| line.starts_with(&format!("| `{}` |", entry.name)))
                .unwrap_or_else(|| panic!("docs/mcp.md has no row for {}", entry.name));
            assert!(
                row.trim_end()
                    .ends_with(&format!("| `{}` |", entry.scope.as_str())),
                "{row}"
            );
        }
    }

    #[test]
    fn every_tool_has_all_three_hints_and_an_object_schema() {
        for tool in all_tools() {
            let hints = tool.annotations.unwrap();
            assert!(hints.read_only_hint.is_some(), "{}", tool.name);
            assert!(hints.destructive_hint.is_some(), "{}", tool.name);
            assert!(hints.idempotent_hint.is_some(), "{}", tool.name);
            assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        }
    }
}
