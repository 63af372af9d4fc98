//! The CalDAV sources' side of the feed worker: their mirrors loaded at
//! start, then synced (incrementally, see `sources::caldav::sync`) with the
//! ICS feeds' schedule and on demand, each failure recorded on its own
//! source so one calendar's trouble never touches another's.

use chrono_tz::Tz;
use reqwest::Url;

use crate::calendar::engine::feeds::{ICS_MIN_INTERVAL, Syncing};
use crate::calendar::engine::{Inner, lock};
use crate::calendar::sources::caldav::mirror::Live;
use crate::calendar::sources::caldav::sync::Synced;
use crate::calendar::sources::caldav::{
    DavClient, DavError, account, discover, is_plain_http_off_machine, sync,
};
use crate::calendar::sources::{ParsedNote, ResolvedKind, SourceConfig, ical};
use crate::ics::bounds::Limits;

impl Inner {
    /// Shows the stored mirror of CalDAV source `index` (all of it: the
    /// cache was just made), if any.
    pub(in crate::calendar) fn load_caldav_mirror(&self, index: usize, source: &SourceConfig) {
        let tz = self.read().cache.display_tz;
        let waiting = self.pending(source);
        let mut mirrors = self.caldav.mirrors.live();
        let live = mirrors.of(&source.id);
        if live.mirror.fetched_at_millis.is_some() || !live.mirror.resources.is_empty() {
            self.show_mirror(index, source, live, None, tz, waiting);
        }
    }

    /// Syncs CalDAV source `index` when due (always with `force`).
    pub(in crate::calendar) fn sync_caldav(
        &self,
        index: usize,
        source: &SourceConfig,
        force: bool,
    ) {
        let fetched_at = self
            .caldav
            .mirrors
            .live()
            .of(&source.id)
            .mirror
            .fetched_at_millis;
        let now = chrono::Utc::now().timestamp_millis();
        let fresh = fetched_at.is_some_and(|at| now - at < ICS_MIN_INTERVAL.as_millis() as i64);
        if fresh && !force {
            return;
        }
        let _sync = lock(&self.caldav.lock);
        let _syncing = Syncing::start(self, &source.id);
        // Writes made while offline go first, so the sync reads them back.
        // The mirror is only locked between requests, never across one.
        let outcome = self.connect(source).and_then(|(client, calendar)| {
            let notes = self.replay_queued(source, &client)?;
            let mut known = self.caldav.mirrors.live().of(&source.id).mirror.known();
            if !notes.is_empty() {
                // A refused write left the mirror with what the server does
                // not hold, which no change since the last token names:
                // every resource is compared instead.
                known.sync_token = None;
                known.ctag = None;
            }
            let etags = || {
                let mut mirrors = self.caldav.mirrors.live();
                let resources = &mirrors.of(&source.id).mirror.resources;
                resources
                    .iter()
                    .map(|(href, r)| (href.clone(), r.etag.clone()))
                    .collect()
            };
            let synced = sync::sync(&client, &calendar, &known, sync::Listed::Events, etags)
                .map_err(|e| e.to_string())?;
            Ok((synced, calendar, notes))
        });
        let calendar_url = outcome.as_ref().ok().map(|(_, url, _)| url.clone());
        let mut mirrors = self.caldav.mirrors.live();
        // The settings may have changed while the server answered. Asked
        // under the mirrors' lock, which a new configuration's reload of the
        // mirror (`load_caldav_mirror`) takes too: the answer goes into the
        // mirror and the cache together, or into neither. A mirror moved on
        // by an answer the cache dropped would hold the change, so the next
        // sync would find nothing new and the cache would never show it.
        // Still the calendar the sync read (at `calendar_url`, when it got
        // that far): the same configuration, or the same account's same
        // calendar renamed, recoloured or moved, or with the URL discovery
        // found written back.
        let still = |current: &SourceConfig| {
            current.kind == source.kind
                || calendar_url
                    .as_ref()
                    .is_some_and(|url| same_calendar(current, source, url))
        };
        let Some((index, current, tz)) = self.now_reading(index, source, still) else {
            // Dropped whole, the mirror untouched: the source as it is now
            // configured syncs at once, not at the next scheduled run (its
            // mirror may look freshly synced).
            drop(mirrors);
            tracing::debug!(source = %source.id, "a CalDAV sync answered for a calendar since reconfigured; syncing again");
            self.feed_worker.request(force);
            return;
        };
        let current = &current;
        let live = mirrors.of(&current.id);
        match outcome {
            Ok((answer, calendar, notes)) => {
                // This replay's refusals, or those kept from earlier ones.
                let notes = if notes.is_empty() {
                    self.pending(current)
                } else {
                    Some(notes.join("; "))
                };
                let Synced::Changed(mut delta) = answer else {
                    return self.show_mirror(index, current, live, Some(&[]), tz, notes);
                };
                let set_aside = delta.take_set_aside();
                let touched = delta.apply(&mut live.mirror, &calendar);
                // What changed or went on the server is no longer set aside.
                match &touched {
                    Some(touched) => touched.iter().for_each(|href| {
                        live.set_aside.remove(href);
                    }),
                    None => live.set_aside.clear(),
                }
                live.set_aside.extend(set_aside);
                let stored = match &touched {
                    Some(touched) => {
                        self.caldav
                            .mirrors
                            .store_change(&current.id, &live.mirror, touched)
                    }
                    None => self.caldav.mirrors.store(&current.id, &live.mirror),
                };
                if let Err(error) = stored {
                    tracing::warn!(source = %current.id, %error, "could not cache the CalDAV calendar on disk");
                }
                self.show_mirror(index, current, live, touched.as_deref(), tz, notes);
            }
            Err(error) => {
                let error = match self.pending(current) {
                    Some(waiting) => format!("{error}; {waiting}"),
                    None => error,
                };
                self.show_mirror(index, current, live, Some(&[]), tz, Some(error));
            }
        }
        drop(mirrors);
        if let Some(url) = calendar_url {
            self.remember_calendar_url(source, &url);
        }
    }

    /// A client for `source` with its password from the keyring, and the
    /// calendar's URL (discovered when the settings have none yet: the
    /// caller then hands it to [`Inner::remember_calendar_url`] once it has
    /// put what it read into the cache).
    pub(in crate::calendar) fn connect(
        &self,
        source: &SourceConfig,
    ) -> Result<(DavClient, Url), String> {
        let ResolvedKind::Caldav {
            server,
            username,
            calendar,
        } = &source.kind
        else {
            return Err("not a CalDAV calendar".into());
        };
        let password = self
            .caldav
            .passwords
            .get(&source.id)
            .map_err(|e| e.to_string())?
            .ok_or("no password is stored for this calendar; enter it in Settings")?;
        let server_url = Url::parse(server).map_err(|e| format!("invalid server address: {e}"))?;
        let client = DavClient::new(&server_url, username, &password).map_err(|e| e.to_string())?;
        let calendar = match calendar.as_str() {
            "" => match self
                .caldav
                .mirrors
                .live()
                .of(&source.id)
                .mirror
                .calendar_url
                .clone()
            {
                known if !known.is_empty() => known,
                _ => {
                    discover::calendars(&client, server)
                        .map_err(|e| e.to_string())?
                        .into_iter()
                        .next()
                        .ok_or_else(|| DavError::Protocol("the server has no calendar".into()))
                        .map_err(|e| e.to_string())?
                        .url
                }
            },
            url => url.to_string(),
        };
        let calendar = Url::parse(&calendar).map_err(|e| format!("invalid calendar URL: {e}"))?;
        Ok((client, calendar))
    }

    /// Writes `url`, the calendar [`Inner::connect`] found for `source`,
    /// into the settings when they have none yet, so the next start need not
    /// discover it again. The settings' change is adopted like any other:
    /// the sources are rebuilt and the mirror shown again, so callers write
    /// it only once their answer is in the mirror (a sync still answering
    /// for the old configuration then shows under the new one, which reads
    /// the same calendar).
    pub(in crate::calendar) fn remember_calendar_url(&self, source: &SourceConfig, url: &Url) {
        let ResolvedKind::Caldav {
            server, calendar, ..
        } = &source.kind
        else {
            return;
        };
        if !calendar.is_empty() {
            return;
        }
        let Some(store) = lock(&self.settings).upgrade() else {
            return;
        };
        if let Err(error) = account::remember_calendar_url(&store, &source.id, server, url.as_str())
        {
            tracing::warn!(source = %source.id, %error, "could not keep the discovered calendar URL in the settings");
        }
    }

    /// Shows mirror `live`'s resources `touched` (all of them: `None`) in
    /// the cache, each resource as one note of the source (so a change
    /// re-reads and re-compares only what it touched), with the sync's
    /// `error` (the events stay) or the resources that are not iCalendar as
    /// the status.
    pub(in crate::calendar) fn show_mirror(
        &self,
        index: usize,
        source: &SourceConfig,
        live: &mut Live,
        touched: Option<&[String]>,
        tz: Tz,
        error: Option<String>,
    ) {
        let Live {
            mirror,
            unreadable,
            set_aside,
        } = live;
        if touched.is_none() {
            unreadable.clear();
        }
        let hrefs: Vec<&String> = match touched {
            Some(touched) => touched.iter().collect(),
            None => mirror.resources.keys().collect(),
        };
        // Parsed before the cache is locked: this is the costly part.
        let mut parsed: Vec<(&str, Option<ParsedNote>)> = Vec::with_capacity(hrefs.len());
        for href in hrefs {
            // Through the bounded reader: a hostile item synced (or stored
            // on disk) is named in the status, never handed to the parser.
            let outcome = mirror
                .resources
                .get(href)
                .map(|resource| ical::parse(source, &resource.ics, tz, &Limits::RESOURCE));
            let note = match outcome {
                Some(Ok(read)) if read.set_aside.is_empty() => {
                    unreadable.remove(href);
                    Some(read.note)
                }
                Some(Ok(read)) => {
                    unreadable.insert(href.clone(), read.set_aside.join("; "));
                    Some(read.note)
                }
                Some(Err(reason)) => {
                    unreadable.insert(href.clone(), reason);
                    None
                }
                None => {
                    unreadable.remove(href);
                    None
                }
            };
            parsed.push((href, note));
        }
        let mut state = self.write();
        // The sources may have been reconfigured while the server answered.
        if state.cache.config(index) != Some(source) {
            return;
        }
        if touched.is_none() {
            state.cache.clear_source(index);
        }
        for (href, note) in parsed {
            match note {
                Some(note) => state.cache.put_note(index, href, note),
                None => state.cache.remove_note(index, href),
            };
        }
        let fetched = mirror
            .fetched_at_millis
            .and_then(chrono::DateTime::from_timestamp_millis)
            .map(|t| t.to_rfc3339());
        state.cache.feed_fetched(index, fetched);
        // A sync's error does not hide the items set aside (nor they it).
        let skipped = (!unreadable.is_empty() || !set_aside.is_empty()).then(|| {
            let named: Vec<String> = unreadable
                .iter()
                .chain(set_aside.iter())
                .map(|(href, reason)| {
                    let name = href.rsplit('/').next().unwrap_or(href);
                    format!("{name} ({reason})")
                })
                .collect();
            format!(
                "{} event(s) on the server are not valid iCalendar, or too large, and are not shown: {}",
                named.len(),
                named.join(", ")
            )
        });
        let problem = match (error, skipped) {
            (Some(error), Some(skipped)) => Some(format!("{error}; {skipped}")),
            (error, skipped) => error.or(skipped),
        };
        let problem = match (problem, plain_http_warning(source)) {
            (Some(problem), Some(warning)) => Some(format!("{problem}; {warning}")),
            (problem, warning) => problem.or(warning),
        };
        if let Some(problem) = problem {
            tracing::warn!(source = %source.id, error = %problem, "CalDAV calendar not fully updated");
            state.cache.feed_failed(index, problem);
        }
        drop(state);
        self.bump();
    }
}

/// Whether CalDAV sources `now` and `then` are the same account's calendar
/// at `calendar`, each naming it or leaving it to discovery.
fn same_calendar(now: &SourceConfig, then: &SourceConfig, calendar: &Url) -> bool {
    let (
        ResolvedKind::Caldav {
            server,
            username,
            calendar: named,
        },
        ResolvedKind::Caldav {
            server: server_then,
            username: username_then,
            calendar: named_then,
        },
    ) = (&now.kind, &then.kind)
    else {
        return false;
    };
    let names =
        |named: &str| named.is_empty() || Url::parse(named).is_ok_and(|url| url == *calendar);
    server == server_then && username == username_then && names(named) && names(named_then)
}

/// The warning for a CalDAV account reached over plain http on another
/// machine (its password and events cross the network unencrypted).
fn plain_http_warning(source: &SourceConfig) -> Option<String> {
    let ResolvedKind::Caldav { server, .. } = &source.kind else {
        return None;
    };
    let url = Url::parse(server).ok()?;
    is_plain_http_off_machine(&url).then(|| {
        "warning: this account uses plain http to another machine, so its password and \
         events travel unencrypted; use its https:// address"
            .to_string()
    })
}
