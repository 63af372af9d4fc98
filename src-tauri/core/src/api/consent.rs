//! Interactive access requests (`requestAccess`): a script asks for a token,
//! the user decides. The desktop shell shows a dialog; headless there is nobody
//! to ask, so [`DeclineAll`] declines (and says so in the log).

use serde::Serialize;

use super::shown_text::{look_alike_warnings, visible};
use crate::tokens::{Expiry, ScopeSet};

/// What a script asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessRequest {
    /// The name the token will get (already validated).
    pub name: String,
    /// Why the script wants access, in its own words, for the dialog.
    pub reason: String,
    pub scopes: ScopeSet,
}

impl AccessRequest {
    /// The name and reason as the consent dialog must show them: hidden and
    /// direction-changing characters made visible, look-alike letters
    /// flagged (see [`super::shown_text`]). The dialog renders this as plain
    /// text and decides nothing itself.
    pub fn shown(&self) -> ShownRequest {
        let mut warnings = look_alike_warnings(&self.name);
        warnings.extend(look_alike_warnings(&self.reason));
        ShownRequest {
            name: visible(&self.name),
            reason: visible(&self.reason),
            warnings,
        }
    }
}

/// An [`AccessRequest`]'s text, safe to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownRequest {
    pub name: String,
    pub reason: String,
    /// Why the name or reason may be imitating other text, one per word.
    pub warnings: Vec<String>,
}

/// The user's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consent {
    /// Create the token, with the lifetime the user picked.
    Granted {
        expiry: Expiry,
    },
    Declined,
}

/// A destructive write an assistant wants to make (an MCP delete or
/// whole-series edit), for the user to allow or refuse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteConfirmation {
    /// The token the assistant acts with.
    pub token_name: String,
    /// What would happen, e.g. "delete “Standup” and all its occurrences".
    pub action: String,
}

impl WriteConfirmation {
    /// The text as the confirmation dialog must show it (see
    /// [`AccessRequest::shown`]), with the event's title, which an assistant
    /// or a note's author chose, apart so the dialog can mark it as the
    /// note's words rather than Almanac's.
    pub fn shown(&self) -> ShownWrite {
        // The action quotes the title in “…” (see `mcp::calls`); the first
        // opening and the last closing quote bound it even when the title
        // itself holds quotes.
        let quoted = self.action.find('“').and_then(|open| {
            let close = self.action.rfind('”')?;
            (close > open).then_some((open, close))
        });
        let (before, title, after) = match quoted {
            Some((open, close)) => (
                &self.action[..open],
                &self.action[open + '“'.len_utf8()..close],
                &self.action[close + '”'.len_utf8()..],
            ),
            None => (self.action.as_str(), "", ""),
        };
        let mut warnings = look_alike_warnings(&self.token_name);
        warnings.extend(look_alike_warnings(title));
        ShownWrite {
            token_name: visible(&self.token_name),
            before: visible(before),
            title: visible(title),
            after: visible(after),
            warnings,
        }
    }
}

/// A [`WriteConfirmation`]'s text, safe to show: `before`, the quoted
/// `title` (empty when the action names none) and `after` read in a row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShownWrite {
    pub token_name: String,
    pub before: String,
    pub title: String,
    pub after: String,
    pub warnings: Vec<String>,
}

/// Asks the user about an [`AccessRequest`]. May block until they answer.
pub trait ConsentPrompt: Send + Sync {
    fn ask(&self, request: &AccessRequest) -> Consent;

    /// Whether [`ConsentPrompt::confirm_write`] can reach the user at all
    /// (a display is there); when not, no dialog slot is spent on asking.
    fn can_confirm_writes(&self) -> bool {
        false
    }

    /// Asks the user whether a destructive write may go ahead: `Some(true)`
    /// allows it, `Some(false)` refuses it, `None` means nobody can be asked
    /// (no display), so the caller must refuse and say how to allow it.
    fn confirm_write(&self, confirmation: &WriteConfirmation) -> Option<bool> {
        let _ = confirmation;
        None
    }
}

/// The answer when no one can be asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeclineAll;

impl ConsentPrompt for DeclineAll {
    fn ask(&self, request: &AccessRequest) -> Consent {
        tracing::info!(
            name = %request.name,
            "access request declined: no user interface to ask (headless mode)"
        );
        Consent::Declined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(action: &str) -> ShownWrite {
        WriteConfirmation {
            token_name: "claude".into(),
            action: action.into(),
        }
        .shown()
    }

    #[test]
    fn the_title_is_cut_out_of_the_action_and_made_visible() {
        let write = shown("delete “Stand\u{202E}up ”big” day” and every occurrence of it");
        assert_eq!(write.before, "delete ");
        assert!(write.title.starts_with("Stand") && write.title.ends_with(" ”big” day"));
        assert!(!write.title.contains('\u{202E}'), "{:?}", write.title);
        assert_eq!(write.after, " and every occurrence of it");
        let bare = shown("delete something");
        assert_eq!(
            (bare.before.as_str(), bare.title.as_str()),
            ("delete something", "")
        );
    }
}
