//! Asking the person before a destructive write (a delete, a whole-series
//! edit). An assistant may be steered by text it read, so such a write never
//! happens on its word alone:
//!
//! 1. a client that declared form elicitation asks the person itself
//!    (`elicitation/create` during the tool call);
//! 2. otherwise the app's consent prompt asks, when it can
//!    ([`crate::api::ConsentPrompt::confirm_write`]: the desktop app's
//!    confirmation dialog; headless, nobody can be asked);
//! 3. otherwise the write is refused, with a message saying how to allow it.
//!
//! On protocol 2026-07-28, where a server may not send requests, the same
//! form goes back as the call's `InputRequiredResult` and the client retries
//! the call with the person's answer ([`input_round`]).

use std::collections::BTreeMap;

use rmcp::RoleServer;
use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest,
    InputRequiredResult, InputResponses,
};
use rmcp::service::{ElicitationMode, Peer};
use serde_json::{Value, json};

use crate::api::AuthorizedApi;
use crate::api::shown_text::{look_alike_warnings, visible};

/// What the refusal says when nobody could be asked.
pub const NOBODY_TO_ASK: &str = "Refused: deleting events and changing a whole series need \
the person's confirmation, and nobody could be asked. Use an MCP client that supports \
elicitation (it asks the person itself), or run the Almanac desktop app, whose dialog asks. \
Nothing was changed.";

/// The person's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Allowed,
    /// Refused, with the message the assistant gets.
    Refused(String),
}

/// Asks about `action` (e.g. "delete “Standup” and every occurrence").
pub async fn ask(peer: &Peer<RoleServer>, api: &AuthorizedApi, action: &str) -> Answer {
    if peer
        .supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
    {
        match peer.create_elicitation(question(action)).await {
            Ok(result) if result.action == ElicitationAction::Accept => {
                return match confirmed(result.content.as_ref()) {
                    true => Answer::Allowed,
                    false => Answer::Refused(format!(
                        "The person did not confirm: {action}. Nothing was changed."
                    )),
                };
            }
            Ok(_) => {
                return Answer::Refused(format!(
                    "The person declined: {action}. Nothing was changed."
                ));
            }
            // A client that cannot be asked in this session (a protocol
            // version without server requests): try the dialog.
            Err(error) => tracing::info!(%error, "MCP elicitation failed; trying the app's dialog"),
        }
    }
    let (api, asked) = (api.clone(), action.to_string());
    let dialog = almanac_loopback::blocking(move || api.confirm_write(&asked)).await;
    match dialog {
        Ok(Some(true)) => Answer::Allowed,
        Ok(Some(false)) => Answer::Refused(format!(
            "The person refused in Almanac's dialog: {action}. Nothing was changed."
        )),
        Ok(None) | Err(_) => Answer::Refused(NOBODY_TO_ASK.to_string()),
    }
}

/// The key of the confirmation among a call's input requests.
const INPUT_KEY: &str = "almanac.confirm";

/// Where a destructive call stands on protocol 2026-07-28.
pub enum Round {
    /// The retried call carries the person's answer.
    Answered(Answer),
    /// The question to send back; the client asks and retries.
    Ask(InputRequiredResult),
}

/// The person's answer among `responses`, or the question to ask about
/// `action`.
pub fn input_round(responses: Option<&InputResponses>, action: &str) -> Round {
    let Some(response) = responses.and_then(|responses| responses.get(INPUT_KEY)) else {
        let request = ElicitRequest::new(question(action));
        let requests =
            BTreeMap::from([(INPUT_KEY.to_string(), InputRequest::Elicitation(request))]);
        return Round::Ask(InputRequiredResult::from_input_requests(requests));
    };
    let answer = serde_json::from_value::<ElicitResult>(response.clone()).ok();
    Round::Answered(match answer {
        Some(answer)
            if answer.action == ElicitationAction::Accept && confirmed(answer.content.as_ref()) =>
        {
            Answer::Allowed
        }
        _ => Answer::Refused(format!(
            "The person declined: {action}. Nothing was changed."
        )),
    })
}

/// The form: one required yes/no. The title in `action` is text from the
/// calendar, so it is shown as the desktop dialog shows it: hidden and
/// direction-changing characters as `[U+XXXX]`, and look-alike letters
/// flagged.
fn question(action: &str) -> ElicitRequestParams {
    let shown = visible(action);
    let mut message = format!("An assistant wants to {shown}. Allow it?");
    for warning in look_alike_warnings(action) {
        message.push_str("\nWarning: ");
        message.push_str(&warning);
    }
    let action = shown;
    let request = json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "confirm": {
                    "type": "boolean",
                    "title": "Allow",
                    "description": format!("Yes: {action}."),
                }
            },
            "required": ["confirm"],
        },
    });
    serde_json::from_value(request).expect("the confirmation form is a valid elicitation")
}

/// An accepted form counts only with `confirm: true`.
fn confirmed(content: Option<&Value>) -> bool {
    content.and_then(|c| c.get("confirm")) == Some(&Value::Bool(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_parses_and_only_a_true_confirm_allows() {
        let params = question("delete “Standup”");
        let wire = serde_json::to_value(&params).unwrap();
        assert_eq!(wire["requestedSchema"]["required"][0], "confirm");
        assert!(confirmed(Some(&json!({"confirm": true}))));
        assert!(!confirmed(Some(&json!({"confirm": false}))));
        assert!(!confirmed(Some(&json!({}))));
        assert!(!confirmed(None));
    }

    #[test]
    fn the_question_shows_hidden_characters_and_flags_look_alikes() {
        let params = question("delete “p\u{430}ypal \u{202E}gnp.exe”");
        let wire = serde_json::to_value(&params).unwrap();
        let message = wire["message"].as_str().unwrap();
        assert!(message.contains("[U+202E]gnp.exe"), "{message}");
        assert!(!message.contains('\u{202E}'), "{message}");
        assert!(
            message.contains("Warning: ") && message.contains("Cyrillic"),
            "{message}"
        );
        let yes = wire["requestedSchema"]["properties"]["confirm"]["description"]
            .as_str()
            .unwrap();
        assert!(yes.contains("[U+202E]"), "{yes}");
    }

    #[test]
    fn a_retried_call_is_allowed_only_with_an_accepted_confirmation() {
        let Round::Ask(ask) = input_round(None, "delete “Standup”") else {
            panic!("a first call is asked about");
        };
        let wire = serde_json::to_value(&ask).unwrap();
        assert_eq!(
            wire["inputRequests"][INPUT_KEY]["method"],
            "elicitation/create"
        );
        let answered = |answer: Value| {
            let responses = InputResponses::from([(INPUT_KEY.to_string(), answer)]);
            match input_round(Some(&responses), "delete “Standup”") {
                Round::Answered(answer) => answer,
                Round::Ask(_) => panic!("an answered call is not asked again"),
            }
        };
        let yes = json!({"action": "accept", "content": {"confirm": true}});
        assert_eq!(answered(yes), Answer::Allowed);
        let no = json!({"action": "decline"});
        assert!(matches!(answered(no), Answer::Refused(_)));
        let unticked = json!({"action": "accept", "content": {"confirm": false}});
        assert!(matches!(answered(unticked), Answer::Refused(_)));
    }
}
