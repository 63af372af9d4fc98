//! The running instance, over its REST server on 127.0.0.1 with a token;
//! upcoming reminders from its reminder daemon (which has no token: it
//! serves only loopback, and its reads are open).

use std::time::Duration;

use chrono::NaiveDate;
use chrono_tz::Tz;
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::Method;
use reqwest::blocking::{Client, RequestBuilder};
use serde_json::{Value, json};

use super::failure::{ClientError, Exit};
use super::{Backend, ListQuery, Listed, QuickLine, rows};
use crate::instance_proof::{CHALLENGE_HEADER, Challenge, PROOF_HEADER};
use crate::paths::Paths;

/// How long one request may take: a query is bounded by the server, and a
/// write is a file and an fsync.
const TIMEOUT: Duration = Duration::from_secs(30);

pub struct RemoteBackend {
    client: Client,
    api: String,
    daemon: String,
    secret: String,
    zone: Tz,
}

impl RemoteBackend {
    /// The instance whose REST server listens on `rest_port` and reminder
    /// daemon on `daemon_port`; dates are read in `zone`.
    pub fn new(rest_port: u16, daemon_port: u16, secret: String, zone: Tz) -> Self {
        let client = Client::builder()
            .timeout(TIMEOUT)
            // Only loopback is ever asked; a proxy must not see the token.
            .no_proxy()
            .build()
            .unwrap_or_default();
        Self {
            client,
            api: format!("http://127.0.0.1:{rest_port}/api/v1"),
            daemon: format!("http://127.0.0.1:{daemon_port}"),
            secret,
            zone,
        }
    }

    /// Whether the program on the REST port is the Almanac running at
    /// `paths`: asked without the token, which is sent only once it proved
    /// it ([`crate::instance_proof`]).
    pub fn check_listener(&self, paths: &Paths, port: u16) -> Result<(), ClientError> {
        let challenge = Challenge::new();
        let response = self
            .client
            .get(format!("{}/calendars", self.api))
            .header(CHALLENGE_HEADER, challenge.header())
            .send()
            .map_err(|e| unreachable_error(&self.api, &e))?;
        let proof = response
            .headers()
            .get(PROOF_HEADER)
            .and_then(|value| value.to_str().ok());
        challenge
            .check(paths, port, proof)
            .map_err(|why| ClientError::new(Exit::Unreachable, why))
    }

    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.client
            .request(method, format!("{}{path}", self.api))
            .bearer_auth(&self.secret)
    }

    /// Sends `request` and reads its JSON answer; a refusal becomes the
    /// error its status means, with the server's message.
    fn send(&self, request: RequestBuilder) -> Result<Value, ClientError> {
        let response = request
            .send()
            .map_err(|e| unreachable_error(&self.api, &e))?;
        let status = response.status();
        let body: Value = response
            .json()
            .map_err(|e| ClientError::failed(format!("an unreadable answer ({status}): {e}")))?;
        if status.is_success() {
            return Ok(body);
        }
        let message = body["message"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("the server answered {status}"));
        Err(ClientError::from_status(status.as_u16(), message))
    }
}

fn unreachable_error(api: &str, error: &reqwest::Error) -> ClientError {
    ClientError::new(
        Exit::Unreachable,
        format!("Almanac is running but its REST server at {api} did not answer: {error}"),
    )
}

/// An id as one path segment (`/` as `%2F`).
fn segment(id: &str) -> String {
    utf8_percent_encode(id, NON_ALPHANUMERIC).to_string()
}

fn options(occurrence: Option<NaiveDate>) -> Value {
    match occurrence {
        Some(date) => json!({ "instanceDate": date.format("%Y-%m-%d").to_string() }),
        None => json!({}),
    }
}

impl Backend for RemoteBackend {
    fn display_zone(&self) -> Tz {
        self.zone
    }

    fn list_events(&self, query: &ListQuery) -> Result<Listed, ClientError> {
        let mut params: Vec<(&str, String)> = Vec::new();
        let mut put = |name, value: &Option<String>| {
            if let Some(value) = value {
                params.push((name, value.clone()));
            }
        };
        put("start", &query.start);
        put("end", &query.end);
        put("query", &query.text);
        put(
            "calendar",
            &query.calendars.as_ref().map(|ids| ids.join(",")),
        );
        put("isTask", &query.tasks.map(|flag| flag.to_string()));
        let mut body = self.send(self.request(Method::GET, "/events").query(&params))?;
        let left_out = body["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|warning| warning["message"].as_str().unwrap_or_default().to_string())
            .collect();
        Ok(Listed {
            events: serde_json::from_value(body["events"].take()).unwrap_or_default(),
            left_out,
        })
    }

    fn show_event(&self, id: &str) -> Result<Value, ClientError> {
        let path = format!("/events/{}", segment(id));
        Ok(rows::details(
            self.send(self.request(Method::GET, &path))?["details"].take(),
        ))
    }

    fn create_event(&self, calendar: &str, fields: Value) -> Result<Value, ClientError> {
        let body = json!({ "calendarId": calendar, "event": fields });
        Ok(self.send(self.request(Method::POST, "/events").json(&body))?["event"].take())
    }

    fn quick_add(&self, line: &QuickLine) -> Result<Value, ClientError> {
        let mut body = json!({ "text": line.text, "dryRun": line.dry_run });
        if let Some(calendar) = &line.calendar {
            body["calendarId"] = Value::from(calendar.as_str());
        }
        if let Some(now) = line.now {
            body["now"] = Value::from(now.to_rfc3339());
        }
        let mut answer = self.send(self.request(Method::POST, "/events/quick").json(&body))?;
        Ok(match line.dry_run {
            true => rows::read_line(answer["calendarId"].take(), answer["event"].take()),
            false => answer["event"].take(),
        })
    }

    fn update_event(
        &self,
        id: &str,
        fields: Value,
        occurrence: Option<NaiveDate>,
        move_to: Option<&str>,
    ) -> Result<Value, ClientError> {
        let mut body = json!({ "event": fields, "options": options(occurrence) });
        if let Some(calendar) = move_to {
            body["calendarId"] = Value::from(calendar);
        }
        let path = format!("/events/{}", segment(id));
        Ok(self.send(self.request(Method::PUT, &path).json(&body))?["event"].take())
    }

    fn delete_event(&self, id: &str, occurrence: Option<NaiveDate>) -> Result<(), ClientError> {
        let path = format!("/events/{}", segment(id));
        let body = json!({ "options": options(occurrence) });
        self.send(self.request(Method::DELETE, &path).json(&body))
            .map(drop)
    }

    fn calendars(&self) -> Result<Vec<Value>, ClientError> {
        let body = self.send(self.request(Method::GET, "/calendars"))?;
        let calendars = body["calendars"].as_array().cloned().unwrap_or_default();
        Ok(super::published::merged(calendars, &body["published"]))
    }

    fn history(&self, token: Option<&str>, since: Option<&str>) -> Result<Vec<Value>, ClientError> {
        let mut query: Vec<(&str, &str)> = vec![("limit", "500")];
        query.extend(token.map(|token| ("token", token)));
        query.extend(since.map(|since| ("since", since)));
        let mut body = self.send(self.request(Method::GET, "/history").query(&query))?;
        Ok(serde_json::from_value(body["changes"].take()).unwrap_or_default())
    }

    fn undo(&self, id: u64) -> Result<Value, ClientError> {
        let path = format!("/history/{id}/undo");
        Ok(self.send(self.request(Method::POST, &path))?["change"].take())
    }

    fn undo_since(&self, token: &str, since: &str) -> Result<Value, ClientError> {
        let body = json!({ "token": token, "since": since });
        let mut answer = self.send(self.request(Method::POST, "/history/undo").json(&body))?;
        Ok(json!({ "undone": answer["undone"].take(), "refused": answer["refused"].take() }))
    }

    fn upcoming_reminders(&self) -> Result<Vec<Value>, ClientError> {
        let url = format!("{}/events", self.daemon);
        let answer: Value = self
            .client
            .get(&url)
            .send()
            .and_then(|response| response.error_for_status())
            .and_then(|response| response.json())
            .map_err(|e| {
                ClientError::new(
                    Exit::Unreachable,
                    format!("Almanac's reminder daemon at {url} did not answer: {e}"),
                )
            })?;
        let pending = answer["events"].as_array().cloned().unwrap_or_default();
        Ok(pending.iter().map(rows::daemon_reminder).collect())
    }
}
