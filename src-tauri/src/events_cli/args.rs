//! The command line of `events`, `agenda`, `calendars` and `reminders`,
//! parsed into a [`Command`]; a mistake is a message for exit code 2.

use std::path::PathBuf;

use almanac_core::client::fields::{FieldArgs, When};
use almanac_core::client::rows::Format;
use chrono::{DateTime, NaiveDate, Utc};

/// A date range given as named shorthand, resolved once the display zone
/// is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    Today,
    Week,
    Month,
    /// Today and the days after it, this many in all.
    Days(u32),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    List {
        from: Option<String>,
        to: Option<String>,
        span: Option<Span>,
        calendars: Option<Vec<String>>,
        text: Option<String>,
        tasks: bool,
    },
    Show(String),
    Add {
        fields: FieldArgs,
        /// A quick-add line, when given instead of fields.
        line: Option<String>,
        calendar: Option<String>,
        now: Option<DateTime<Utc>>,
        dry_run: bool,
    },
    Edit {
        id: String,
        fields: FieldArgs,
        move_to: Option<String>,
        occurrence: Option<NaiveDate>,
    },
    Remove {
        id: String,
        occurrence: Option<NaiveDate>,
    },
    Agenda {
        days: u32,
        calendars: Option<Vec<String>>,
    },
    Calendars,
    NextReminders {
        count: usize,
    },
    /// `history [--token NAME] [--since WHEN]`.
    History {
        token: Option<String>,
        since: Option<String>,
    },
    /// `undo ID…`: each in the order given.
    Undo(Vec<u64>),
    /// `undo --token NAME --since WHEN`.
    UndoSince {
        token: String,
        since: String,
    },
    Help,
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub command: Command,
    pub format: Format,
    pub token_file: Option<PathBuf>,
}

/// The options every command takes, and what is left.
struct Scan {
    words: Vec<String>,
    format: Format,
    token_file: Option<PathBuf>,
    help: bool,
}

fn scan(args: Vec<String>) -> Result<Scan, String> {
    let mut scan = Scan {
        words: Vec::new(),
        format: Format::Human,
        token_file: None,
        help: false,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" | "--tsv" if scan.format != Format::Human => {
                return Err("--json and --tsv exclude each other".into());
            }
            "--json" => scan.format = Format::Json,
            "--tsv" => scan.format = Format::Tsv,
            "-h" | "--help" => scan.help = true,
            "--token-file" => {
                let file = args.next().ok_or("--token-file needs a FILE")?;
                scan.token_file = Some(PathBuf::from(file));
            }
            "--" => scan.words.extend(args.by_ref()),
            _ => scan.words.push(arg),
        }
    }
    Ok(scan)
}

/// Options and plain words of one command.
struct Options {
    words: std::vec::IntoIter<String>,
    plain: Vec<String>,
}

impl Options {
    fn new(words: Vec<String>) -> Self {
        Self {
            words: words.into_iter(),
            plain: Vec::new(),
        }
    }

    /// The next option, collecting plain words on the way.
    fn next_option(&mut self) -> Option<String> {
        for word in self.words.by_ref() {
            if word.starts_with("--") {
                return Some(word);
            }
            self.plain.push(word);
        }
        None
    }

    fn value(&mut self, option: &str) -> Result<String, String> {
        self.words
            .next()
            .ok_or_else(|| format!("{option} needs a value"))
    }
}

fn number<T: std::str::FromStr>(option: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{option}: `{value}` is not a number"))
}

fn date(option: &str, value: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d")
        .map_err(|_| format!("{option}: `{value}` is not a date (YYYY-MM-DD)"))
}

fn ids(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(String::from)
        .collect()
}

fn when(option: &str, value: &str) -> Result<When, String> {
    When::parse(option, value).map_err(|e| e.message)
}

/// `--title --start --end --all-day --description --location`: `Ok(true)`
/// when `option` was one of them.
fn field_option(option: &str, o: &mut Options, fields: &mut FieldArgs) -> Result<bool, String> {
    match option {
        "--title" => fields.title = Some(o.value(option)?),
        "--start" => fields.start = Some(when(option, &o.value(option)?)?),
        "--end" => fields.end = Some(when(option, &o.value(option)?)?),
        "--all-day" => fields.all_day = true,
        "--description" => fields.description = Some(o.value(option)?),
        "--location" => fields.location = Some(o.value(option)?),
        _ => return Ok(false),
    }
    Ok(true)
}

/// Parses `events …`, `agenda …`, `calendars`, `reminders next` (the words
/// after the program name).
pub fn parse(args: Vec<String>) -> Result<Invocation, String> {
    let scan = scan(args)?;
    let mut words = scan.words.into_iter();
    let group = words.next().unwrap_or_default();
    let command = match scan.help {
        true => Command::Help,
        false => match group.as_str() {
            "events" => {
                let verb = words
                    .next()
                    .ok_or("events needs list, show, add, edit or rm")?;
                events(&verb, words.collect())?
            }
            "agenda" => agenda(words.collect())?,
            "calendars" => match words.next() {
                None => Command::Calendars,
                Some(extra) => return Err(format!("calendars takes no `{extra}`")),
            },
            "history" => history(words.collect())?,
            "undo" => undo(words.collect())?,
            "reminders" => match words.next().as_deref() {
                Some("next") => next_reminders(words.collect())?,
                _ => return Err("reminders needs `next`".into()),
            },
            other => return Err(format!("unknown command `{other}`")),
        },
    };
    Ok(Invocation {
        command,
        format: scan.format,
        token_file: scan.token_file,
    })
}

fn one_id(verb: &str, plain: Vec<String>) -> Result<String, String> {
    match <[String; 1]>::try_from(plain) {
        Ok([id]) => Ok(id),
        Err(plain) if plain.is_empty() => Err(format!("events {verb} needs an event ID")),
        Err(_) => Err(format!(
            "events {verb} takes one ID (quote an id with spaces)"
        )),
    }
}

fn events(verb: &str, words: Vec<String>) -> Result<Command, String> {
    let mut o = Options::new(words);
    let mut fields = FieldArgs::default();
    let (mut from, mut to, mut span, mut calendars, mut text, mut tasks) =
        (None, None, None, None, None, false);
    let (mut calendar, mut now, mut dry_run, mut occurrence) = (None, None, false, None);
    while let Some(option) = o.next_option() {
        match (verb, option.as_str()) {
            ("list", "--from") => from = Some(o.value(&option)?),
            ("list", "--to") => to = Some(o.value(&option)?),
            ("list", "--today") => span = Some(Span::Today),
            ("list", "--week") => span = Some(Span::Week),
            ("list", "--month") => span = Some(Span::Month),
            ("list", "--days") => span = Some(Span::Days(number(&option, &o.value(&option)?)?)),
            ("list", "--calendar") => calendars = Some(ids(&o.value(&option)?)),
            ("list", "--text") => text = Some(o.value(&option)?),
            ("list", "--tasks") => tasks = true,
            ("add" | "edit", "--calendar") => calendar = Some(o.value(&option)?),
            ("add", "--now") => {
                let value = o.value(&option)?;
                let at = DateTime::parse_from_rfc3339(&value)
                    .map_err(|_| format!("--now: `{value}` is not an RFC 3339 date-time"))?;
                now = Some(at.with_timezone(&Utc));
            }
            ("add", "--dry-run") => dry_run = true,
            ("edit" | "rm", "--occurrence") => {
                occurrence = Some(date(&option, &o.value(&option)?)?)
            }
            ("add" | "edit", _) if field_option(&option, &mut o, &mut fields)? => {}
            _ => return Err(format!("events {verb}: unknown option `{option}`")),
        }
    }
    let plain = std::mem::take(&mut o.plain);
    match verb {
        "list" => {
            if span.is_some() && (from.is_some() || to.is_some()) {
                return Err("give --from/--to or one of --today/--week/--month/--days".into());
            }
            if !plain.is_empty() {
                return Err(format!("events list: unexpected `{}`", plain.join(" ")));
            }
            Ok(Command::List {
                from,
                to,
                span,
                calendars,
                text,
                tasks,
            })
        }
        "show" => Ok(Command::Show(one_id(verb, plain)?)),
        "rm" => Ok(Command::Remove {
            id: one_id(verb, plain)?,
            occurrence,
        }),
        "edit" => {
            let id = one_id(verb, plain)?;
            if fields.is_empty() && calendar.is_none() {
                return Err("events edit: nothing to change (give --title, --start, …)".into());
            }
            Ok(Command::Edit {
                id,
                fields,
                move_to: calendar,
                occurrence,
            })
        }
        "add" => {
            let line = (!plain.is_empty()).then(|| plain.join(" "));
            match (&line, fields.is_empty()) {
                (Some(_), false) => {
                    return Err(
                        "events add: give a quick-add line or --title/--start, not both".into(),
                    );
                }
                (None, true) => {
                    return Err("events add needs --title and --start, or a line".into());
                }
                (None, false) if dry_run || now.is_some() => {
                    return Err("--dry-run and --now read a quick-add line".into());
                }
                _ => {}
            }
            Ok(Command::Add {
                fields,
                line,
                calendar,
                now,
                dry_run,
            })
        }
        other => Err(format!("unknown events command `{other}`")),
    }
}

/// `--token NAME` and `--since WHEN`, and the plain words.
struct TokenSince {
    token: Option<String>,
    since: Option<String>,
    plain: Vec<String>,
}

fn token_and_since(command: &str, words: Vec<String>) -> Result<TokenSince, String> {
    let mut o = Options::new(words);
    let (mut token, mut since) = (None, None);
    while let Some(option) = o.next_option() {
        match option.as_str() {
            "--token" => token = Some(o.value(&option)?),
            "--since" => since = Some(o.value(&option)?),
            other => return Err(format!("{command}: unknown option `{other}`")),
        }
    }
    Ok(TokenSince {
        token,
        since,
        plain: o.plain,
    })
}

fn history(words: Vec<String>) -> Result<Command, String> {
    let TokenSince {
        token,
        since,
        plain,
    } = token_and_since("history", words)?;
    if let Some(extra) = plain.first() {
        return Err(format!("history: unexpected `{extra}`"));
    }
    Ok(Command::History { token, since })
}

fn undo(words: Vec<String>) -> Result<Command, String> {
    let TokenSince {
        token,
        since,
        plain,
    } = token_and_since("undo", words)?;
    match (token, since) {
        (None, None) if !plain.is_empty() => plain
            .iter()
            .map(|id| number("undo", id))
            .collect::<Result<_, _>>()
            .map(Command::Undo),
        (Some(token), Some(since)) if plain.is_empty() => Ok(Command::UndoSince { token, since }),
        _ => Err("undo takes change IDs, or --token NAME --since WHEN".into()),
    }
}

fn agenda(words: Vec<String>) -> Result<Command, String> {
    let mut o = Options::new(words);
    let (mut days, mut calendars) = (7, None);
    while let Some(option) = o.next_option() {
        match option.as_str() {
            "--days" => days = number(&option, &o.value(&option)?)?,
            "--calendar" => calendars = Some(ids(&o.value(&option)?)),
            other => return Err(format!("agenda: unknown option `{other}`")),
        }
    }
    if !o.plain.is_empty() || !(1..=366).contains(&days) {
        return Err("agenda takes --days N (1 to 366) and --calendar ID".into());
    }
    Ok(Command::Agenda { days, calendars })
}

fn next_reminders(words: Vec<String>) -> Result<Command, String> {
    let mut o = Options::new(words);
    let mut count = 10;
    while let Some(option) = o.next_option() {
        match option.as_str() {
            "--count" => count = number(&option, &o.value(&option)?)?,
            other => return Err(format!("reminders next: unknown option `{other}`")),
        }
    }
    match o.plain.is_empty() {
        true => Ok(Command::NextReminders { count }),
        false => Err("reminders next takes only --count N".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(line: &[&str]) -> Result<Invocation, String> {
        parse(line.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn commands_and_options() {
        let list = parsed(&["events", "list", "--json", "--week", "--calendar", "a,b"]).unwrap();
        assert_eq!(list.format, Format::Json);
        assert!(matches!(
            list.command,
            Command::List { span: Some(Span::Week), calendars: Some(ref ids), .. } if ids == &["a", "b"]
        ));
        let add = parsed(&["events", "add", "Lunch", "tomorrow", "12:30", "--dry-run"]).unwrap();
        assert!(matches!(
            add.command,
            Command::Add { line: Some(ref line), dry_run: true, .. } if line == "Lunch tomorrow 12:30"
        ));
        let rm = parsed(&[
            "events",
            "rm",
            "fullnote:events/a b.md",
            "--occurrence",
            "2026-01-05",
        ]);
        assert!(matches!(
            rm.unwrap().command,
            Command::Remove {
                occurrence: Some(_),
                ..
            }
        ));
    }

    #[test]
    fn mistakes_are_refused() {
        for line in [
            &["events"][..],
            &["events", "list", "--week", "--from", "2026-01-01"],
            &["events", "show"],
            &["events", "edit", "x"],
            &["events", "add", "Lunch", "--title", "x"],
            &["events", "rm", "x", "--occurrence", "June"],
            &["agenda", "--days", "0"],
            &["events", "list", "--json", "--tsv"],
            &["reminders"],
        ] {
            assert!(parsed(line).is_err(), "{line:?}");
        }
    }
}
