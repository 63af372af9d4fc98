//! Asking the person before a destructive write (a delete, a whole-series
//! edit). An assistant may be steered by text it read, so such a write never
//! happens on its word alone:
//!
//! 1. a client that declared form elicitation asks the person itself
//!    (`elicitation/create` during the tool call);
//! 2. otherwise the desktop app's consent dialog asks, when the app runs
//!    with a display;
//! 3. otherwise the write is refused, with a message saying how to allow it.

use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitationAction};
use rmcp::service::{ElicitationMode, Peer};
use serde_json::{Value, json};

use crate::api::AuthorizedApi;

/// What the refusal says when nobody could be asked.
pub const NOBODY_TO_ASK: &str = "Refused: deleting events and changing a whole series need \
the person's confirmation, and nobody could be asked. Use an MCP client that supports \
elicitation (it asks the person itself), or run the Almanac desktop app with a display, \
which asks in a dialog. Nothing was changed.";

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

/// The form: one required yes/no.
fn question(action: &str) -> ElicitRequestParams {
    let request = json!({
        "mode": "form",
        "message": format!("An assistant wants to {action}. Allow it?"),
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
}
