//! `almanac events|agenda|calendars|reminders …` (and the same in
//! `almanac-server`): the calendar from a shell. The shell only parses the
//! line and prints; the core's client ([`almanac_core::client`]) chooses
//! the backend (the running instance over REST, or the vault directly) and
//! shapes the rows.

mod args;
mod history;

use std::io::Write;
use std::process::ExitCode;

use almanac_core::client::rows::{self, Format, Listing};
use almanac_core::client::{Backend, ClientError, ListQuery, QuickLine};
use almanac_core::paths::Paths;
use chrono::{Datelike, Days, Months, NaiveDate};
use serde_json::{Value, json};

use args::{Command, Invocation, Span};

/// The first words that name these commands.
const COMMANDS: [&str; 6] = [
    "events",
    "agenda",
    "calendars",
    "reminders",
    "history",
    "undo",
];

pub const USAGE: &str = "\
Usage: PROGRAM events list [--from WHEN] [--to WHEN] [--today|--week|--month|--days N]
                           [--calendar ID[,ID…]] [--text TEXT] [--tasks]
       PROGRAM events show ID
       PROGRAM events add --title TITLE --start WHEN [--end WHEN] [--all-day]
                          [--calendar ID] [--description TEXT] [--location TEXT]
       PROGRAM events add [--calendar ID] [--dry-run] [--now RFC3339] LINE…
       PROGRAM events edit ID [--title T] [--start WHEN] [--end WHEN] [--all-day]
                          [--calendar ID (moves it)] [--occurrence YYYY-MM-DD]
       PROGRAM events rm ID [--occurrence YYYY-MM-DD]
       PROGRAM agenda [--days N] [--calendar ID[,ID…]]
       PROGRAM calendars
       PROGRAM reminders next [--count N]
       PROGRAM history [--token NAME] [--since WHEN]
       PROGRAM undo ID…
       PROGRAM undo --token NAME --since WHEN

Every command takes --json (listings: an array of objects, each with its `id`;
show/add/edit: the event) or --tsv (a header row, `id` first; tabs, newlines and
backslashes in values written \\t \\n \\\\), and --token-file FILE.

Ids are the REST API's: `PROGRAM events list --json | jq -r '.[0].id'` is an id
`events rm` and `DELETE /api/v1/events/{id}` accept. LINE is read by the
quick-add grammar (\"Lunch with Ada tomorrow 12:30 in Work\"; docs/quick-add.md).
WHEN on add/edit: YYYY-MM-DD, HH:MM or YYYY-MM-DDTHH:MM, in the display time zone;
--from/--to also take what GET /api/v1/events takes, --since what
GET /api/v1/history takes.

calendars lists the calendars; one shown on the phone (docs/caldav.md) has a
second line: when it last synced, the changes waiting, the last error, the
conflicts.

history lists the changes made to the notes, newest first (the last 500): their
ID, when, who (a token by name, the window, the command line) and the notes.
undo ID… undoes those changes, each note back byte for byte, refused when a note
changed since; undo --token NAME --since WHEN undoes everything that token did
since then, newest first, stopping at the first refusal.

When Almanac runs, the command goes through its REST server (switched on in
Settings › API & Security) with a token: ALMANAC_TOKEN, or a file only you can
read named by --token-file or ALMANAC_TOKEN_FILE (default
$XDG_CONFIG_HOME/almanac/cli-token). When it does not run, the command opens the
vault itself, under the data folder's lock; then no token is needed (one given
still limits it to its scopes).

Exit codes: 0 done; 1 failed (a conflict, the vault unavailable, …);
2 bad arguments or a value refused as invalid; 3 no such event;
4 not authorized (no token, a refused token, a missing scope, a token file
others can read); 5 Almanac runs but cannot be reached (REST server off, or
not answering).";

/// Runs the command if `args` (the whole command line) names one of these;
/// `None` leaves the line to the caller.
pub fn dispatch(program: &str, args: impl Iterator<Item = String>) -> Option<ExitCode> {
    let words: Vec<String> = args.skip(1).collect();
    if !words
        .first()
        .is_some_and(|w| COMMANDS.contains(&w.as_str()))
    {
        return None;
    }
    let usage = USAGE.replace("PROGRAM", program);
    let invocation = match args::parse(words) {
        Ok(invocation) => invocation,
        Err(message) => {
            eprintln!("{program}: {message}\n\n{usage}");
            return Some(ExitCode::from(2));
        }
    };
    if invocation.command == Command::Help {
        print(&format!("{usage}\n"));
        return Some(ExitCode::SUCCESS);
    }
    // JSON is data for programs; what people read has nothing hidden.
    let format = invocation.format;
    Some(match run(invocation) {
        Ok(out) => {
            match format {
                Format::Json => print(&out),
                Format::Human | Format::Tsv => print(&rows::for_terminal(&out)),
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{program}: {}", rows::for_terminal(&error.to_string()));
            ExitCode::from(error.exit.code())
        }
    })
}

/// Writes `out` to standard output. A closed pipe (`| head`) is the
/// reader's choice, not a failure (`println!` would panic).
fn print(out: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.as_bytes());
    let _ = stdout.flush();
}

fn run(invocation: Invocation) -> Result<String, ClientError> {
    let Invocation {
        command,
        format,
        token_file,
    } = invocation;
    let backend = almanac_core::client::connect(Paths::platform(), token_file)?;
    let backend = backend.as_ref();
    let zone = backend.display_zone();
    let one_event = |event: Value| match format {
        Format::Json => format!("{event}\n"),
        Format::Tsv | Format::Human => rows::render(Listing::Events, &[event], format, zone),
    };
    Ok(match command {
        Command::List {
            from,
            to,
            span,
            calendars,
            text,
            tasks,
        } => {
            let (from, to) = match span {
                Some(span) => resolve(span, rows::today(zone)),
                None => (from, to),
            };
            let query = ListQuery {
                start: from,
                end: to,
                calendars,
                text,
                tasks: tasks.then_some(true),
            };
            let events = listed(backend, &query)?;
            rows::render(Listing::Events, &events, format, zone)
        }
        Command::Show(id) => {
            let event = backend.show_event(&id)?;
            match format {
                Format::Human => rows::details_for_people(&event),
                _ => one_event(event),
            }
        }
        Command::Add {
            fields,
            line,
            calendar,
            now,
            dry_run,
        } => match line {
            Some(text) => {
                let line = QuickLine {
                    text,
                    calendar,
                    now,
                    dry_run,
                };
                let read = one_event(backend.quick_add(&line)?);
                match (dry_run, format) {
                    (true, Format::Human) => format!("would add: {read}"),
                    _ => read,
                }
            }
            None => {
                let calendar = match calendar {
                    Some(calendar) => calendar,
                    None => first_writable(backend)?,
                };
                one_event(backend.create_event(&calendar, fields.for_create()?)?)
            }
        },
        Command::Edit {
            id,
            fields,
            move_to,
            occurrence,
        } => one_event(backend.update_event(
            &id,
            fields.for_edit(),
            occurrence,
            move_to.as_deref(),
        )?),
        Command::Remove { id, occurrence } => {
            backend.delete_event(&id, occurrence)?;
            let done = json!({ "id": id, "deleted": true, "occurrence": occurrence });
            match format {
                Format::Json => format!("{done}\n"),
                Format::Tsv => format!(
                    "id\toccurrence\n{}\t{}\n",
                    rows::tsv_cell(&id),
                    occurrence.map(|d| d.to_string()).unwrap_or_default()
                ),
                Format::Human => match occurrence {
                    Some(date) => format!("removed the {date} occurrence of {id}\n"),
                    None => format!("deleted {id}\n"),
                },
            }
        }
        Command::Agenda { days, calendars } => {
            let first = rows::today(zone);
            let (start, end) = resolve(Span::Days(days), first);
            let query = ListQuery {
                start,
                end,
                calendars,
                ..ListQuery::default()
            };
            let events = listed(backend, &query)?;
            match format {
                Format::Human => rows::agenda(&events, first, days),
                _ => rows::render(Listing::Events, &events, format, zone),
            }
        }
        Command::Calendars => rows::render(Listing::Calendars, &backend.calendars()?, format, zone),
        Command::NextReminders { count } => {
            let mut reminders = backend.upcoming_reminders()?;
            reminders.truncate(count);
            rows::render(Listing::Reminders, &reminders, format, zone)
        }
        Command::History { token, since } => {
            let changes = backend.history(token.as_deref(), since.as_deref())?;
            history::render(&changes, format)
        }
        Command::Undo(ids) => {
            let mut undone = Vec::new();
            for id in ids {
                undone.push(backend.undo(id)?);
            }
            history::render(&undone, format)
        }
        Command::UndoSince { token, since } => {
            let report = backend.undo_since(&token, &since)?;
            history::undone_since(&report, format)?
        }
        Command::Help => String::new(),
    })
}

/// The events `query` matches; series left out are said on standard error,
/// so the output stays what was asked for.
fn listed(backend: &dyn Backend, query: &ListQuery) -> Result<Vec<Value>, ClientError> {
    let listed = backend.list_events(query)?;
    for message in &listed.left_out {
        eprintln!("warning: {}", rows::for_terminal(message));
    }
    Ok(listed.events)
}

/// The first calendar that takes new events, for `add` without
/// `--calendar` (as quick-add chooses).
fn first_writable(backend: &dyn Backend) -> Result<String, ClientError> {
    let calendars = backend.calendars().map_err(|e| ClientError {
        message: format!(
            "{} (needed to choose a calendar; or give --calendar ID)",
            e.message
        ),
        ..e
    })?;
    calendars
        .iter()
        .find(|calendar| calendar["editable"] == true)
        .and_then(|calendar| calendar["id"].as_str().map(String::from))
        .ok_or_else(|| ClientError::usage("no writable calendar; give --calendar ID"))
}

/// A span's first and last day (both whole days).
fn resolve(span: Span, today: NaiveDate) -> (Option<String>, Option<String>) {
    let (first, last) = match span {
        Span::Today => (today, today),
        Span::Week => {
            let monday = today - Days::new(u64::from(today.weekday().num_days_from_monday()));
            (monday, monday + Days::new(6))
        }
        Span::Month => {
            let first = today.with_day(1).unwrap_or(today);
            let next = first + Months::new(1);
            (first, next - Days::new(1))
        }
        Span::Days(days) => (today, today + Days::new(u64::from(days.max(1) - 1))),
    };
    let day = |date: NaiveDate| Some(date.format("%Y-%m-%d").to_string());
    (day(first), day(last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_whole_days() {
        let wednesday = NaiveDate::from_ymd_opt(2026, 1, 7).unwrap();
        let days = |span| {
            let (a, b) = resolve(span, wednesday);
            (a.unwrap(), b.unwrap())
        };
        assert_eq!(
            days(Span::Today),
            ("2026-01-07".into(), "2026-01-07".into())
        );
        assert_eq!(days(Span::Week), ("2026-01-05".into(), "2026-01-11".into()));
        assert_eq!(
            days(Span::Month),
            ("2026-01-01".into(), "2026-01-31".into())
        );
        assert_eq!(
            days(Span::Days(3)),
            ("2026-01-07".into(), "2026-01-09".into())
        );
    }
}
