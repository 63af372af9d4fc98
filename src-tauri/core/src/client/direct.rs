//! No instance runs: the command opens the vault itself, as an instance
//! would ([`Core::open`], with the data folder's lock, so an instance
//! starting meanwhile waits for the command to end), and asks the in-process
//! API.
//!
//! Without a token it acts for the owner ([`CalendarPlugin::as_owner`]):
//! the user could edit these notes by hand. With one, the token's scopes
//! hold as they would over REST.
//!
//! [`CalendarPlugin::as_owner`]: crate::api::CalendarPlugin::as_owner

use std::sync::Arc;

use chrono::{NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use serde_json::Value;

use super::failure::{ClientError, Exit};
use super::{Backend, ListQuery, Listed, QuickLine, rows};
use crate::api::event_times::{TimedDetails, TimedEvent};
use crate::api::{AuthorizedApi, DateRange, DeclineAll, EventFilter, EventOptions, HeadlessUi};
use crate::app::Core;
use crate::calendar::{Event, EventFields, RangeSide, parse_range_bound};
use crate::data_lock::DataLock;
use crate::history::ChangeFilter;
use crate::paths::Paths;
use crate::tokens::{Scope, SecretsInUse};

pub struct DirectBackend {
    api: AuthorizedApi,
    core: Arc<Core>,
    // Last: the core's background tasks run on it until it is dropped.
    _runtime: tokio::runtime::Runtime,
}

impl DirectBackend {
    /// Opens the instance at `paths`, whose lock is `lock`, in this process;
    /// acts with the token `secret`, or for the owner without one.
    pub fn open(
        paths: Paths,
        lock: DataLock,
        secret: Option<&str>,
    ) -> Result<DirectBackend, ClientError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| ClientError::failed(format!("cannot start: {e}")))?;
        let secrets = SecretsInUse::at_start(&paths);
        let core = runtime
            .block_on(Core::open(
                paths,
                lock,
                secrets.store,
                Arc::new(HeadlessUi),
                Arc::new(DeclineAll),
            ))
            .map_err(|e| ClientError::failed(e.to_string()))?;
        let core = Arc::new(core);
        let api = match secret {
            None => core.plugin().as_owner(),
            Some(secret) => core.plugin().authorize(secret).map_err(|refused| {
                ClientError::new(
                    Exit::NotAuthorized,
                    format!("the token was refused ({})", refused.kind()),
                )
            })?,
        };
        Ok(DirectBackend {
            api,
            core,
            _runtime: runtime,
        })
    }

    fn bound(&self, value: &Option<String>, side: RangeSide) -> Result<Option<i64>, ClientError> {
        value
            .as_deref()
            .map(|value| parse_range_bound(value, side, self.display_zone()))
            .transpose()
            .map_err(|e| ClientError::from(crate::api::ApiError::from(e)))
    }
}

/// `value` as the REST API would serialize it.
impl DirectBackend {
    /// An event as the running instance's REST server answers it: with its
    /// times in UTC and in the display zone, so `--json` is the same
    /// whichever way the CLI reached the vault.
    fn timed(&self, event: Event) -> Result<Value, ClientError> {
        wire(&TimedEvent::new(event, self.display_zone()))
    }
}

fn wire(value: &impl Serialize) -> Result<Value, ClientError> {
    serde_json::to_value(value).map_err(|e| ClientError::failed(e.to_string()))
}

fn event_fields(fields: Value) -> Result<EventFields, ClientError> {
    serde_json::from_value(fields).map_err(|e| ClientError::usage(e.to_string()))
}

fn options(occurrence: Option<NaiveDate>) -> EventOptions {
    EventOptions {
        instance_date: occurrence,
        ..EventOptions::default()
    }
}

impl Backend for DirectBackend {
    fn display_zone(&self) -> Tz {
        self.core.calendar.display_timezone()
    }

    fn list_events(&self, query: &ListQuery) -> Result<Listed, ClientError> {
        let start_millis = self.bound(&query.start, RangeSide::Start)?;
        let end_millis = self.bound(&query.end, RangeSide::End)?;
        let filter = EventFilter {
            is_completed: None,
            is_task: query.tasks,
            date_range: (start_millis.is_some() || end_millis.is_some()).then_some(DateRange {
                start_millis,
                end_millis,
            }),
            calendar_ids: query.calendars.clone(),
            query: query.text.clone(),
        };
        let answer = self.api.get_events_answer(&filter)?;
        Ok(Listed {
            events: answer
                .events
                .into_iter()
                .map(|event| self.timed(event))
                .collect::<Result<_, _>>()?,
            left_out: answer
                .left_out
                .into_iter()
                .map(|series| series.message)
                .collect(),
        })
    }

    fn show_event(&self, id: &str) -> Result<Value, ClientError> {
        let details = TimedDetails::new(self.api.get_event_details(id)?, self.display_zone());
        Ok(rows::details(wire(&details)?))
    }

    fn create_event(&self, calendar: &str, fields: Value) -> Result<Value, ClientError> {
        let fields = event_fields(fields)?;
        self.timed(
            self.api
                .create_event(calendar, fields, EventOptions::default())?,
        )
    }

    fn quick_add(&self, line: &QuickLine) -> Result<Value, ClientError> {
        let added =
            self.api
                .quick_add(&line.text, line.calendar.as_deref(), line.now, line.dry_run)?;
        match added.created {
            Some(event) => self.timed(event),
            None => Ok(rows::read_line(
                Value::from(added.read.calendar_id),
                wire(&added.read.fields)?,
            )),
        }
    }

    fn update_event(
        &self,
        id: &str,
        fields: Value,
        occurrence: Option<NaiveDate>,
        move_to: Option<&str>,
    ) -> Result<Value, ClientError> {
        let fields = event_fields(fields)?;
        let event = match move_to {
            Some(calendar) => self
                .api
                .move_event(id, calendar, fields, options(occurrence))?,
            None => self.api.update_event(id, fields, options(occurrence))?,
        };
        self.timed(event)
    }

    fn delete_event(&self, id: &str, occurrence: Option<NaiveDate>) -> Result<(), ClientError> {
        Ok(self.api.delete_event(id, options(occurrence))?)
    }

    fn calendars(&self) -> Result<Vec<Value>, ClientError> {
        let calendars = self
            .api
            .get_sources()?
            .iter()
            .map(wire)
            .collect::<Result<Vec<_>, _>>()?;
        // As `GET /calendars` answers it (the sources' scope covers it).
        let published = wire(&self.core.publisher.reports())?;
        Ok(super::published::merged(calendars, &published))
    }

    fn history(&self, token: Option<&str>, since: Option<&str>) -> Result<Vec<Value>, ClientError> {
        let filter = ChangeFilter {
            token: token.map(String::from),
            since: since.map(|since| self.api.parse_since(since)).transpose()?,
            before: None,
        };
        let page = self
            .api
            .list_changes(&filter, crate::api::history::MAX_PAGE)?;
        page.changes.iter().map(wire).collect()
    }

    fn undo(&self, id: u64) -> Result<Value, ClientError> {
        wire(&self.api.undo_change(id)?)
    }

    fn undo_since(&self, token: &str, since: &str) -> Result<Value, ClientError> {
        let filter = ChangeFilter {
            token: Some(token.to_string()),
            since: Some(self.api.parse_since(since)?),
            before: None,
        };
        wire(&self.api.undo_changes(&filter)?)
    }

    /// The reminders derived from the vault's notes (with no instance
    /// running, no host has synced any).
    fn upcoming_reminders(&self) -> Result<Vec<Value>, ClientError> {
        if !self.api.scopes().grants(Scope::EventsRead) {
            return Err(ClientError::from(crate::api::ApiError::MissingScope(
                Scope::EventsRead,
            )));
        }
        let now = Utc::now();
        let set = self.core.vault_reminders().borrow().clone();
        Ok(set
            .reminders
            .iter()
            .filter(|reminder| reminder.trigger >= now)
            .map(|reminder| rows::vault_reminder(reminder))
            .collect())
    }
}
