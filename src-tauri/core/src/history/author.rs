//! Who made a change: the window, a token (by its name, never its secret),
//! the command line working on the vault itself, or Almanac on its own.
//!
//! The engine's write methods take no author: each surface says who acts
//! with [`acting_as`] around its call, on the thread that makes it (the
//! engine's writes are synchronous, so the thread that calls one is the one
//! that writes). That keeps the author out of every write's signature.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Who made a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Author {
    /// The person, in Almanac's calendar window.
    Window,
    /// A personal access token (REST, MCP, the CalDAV server, the command
    /// line talking to the running instance), named as the user named it.
    Token {
        /// The token's name (never its secret).
        name: String,
    },
    /// The command line working on the vault while no instance runs.
    Cli,
    /// A published calendar's sync, bringing in what changed in its
    /// CalDAV account's collection (on a phone, say).
    Sync {
        /// The published calendar's id.
        calendar: String,
    },
    /// Almanac itself, with nobody asking (tests, internal repairs).
    Almanac,
}

impl Author {
    /// The token's name, when a token made it.
    pub fn token_name(&self) -> Option<&str> {
        match self {
            Author::Token { name } => Some(name),
            _ => None,
        }
    }
}

impl std::fmt::Display for Author {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Author::Window => f.write_str("the window"),
            Author::Token { name } => write!(f, "token “{name}”"),
            Author::Cli => f.write_str("the command line"),
            Author::Sync { calendar } => write!(f, "the sync of calendar “{calendar}”"),
            Author::Almanac => f.write_str("Almanac"),
        }
    }
}

thread_local! {
    static ACTING: RefCell<Option<Author>> = const { RefCell::new(None) };
}

/// While alive, the engine's writes on this thread are recorded as made by
/// its author; the one before comes back when it is dropped.
#[must_use = "the author acts only while the guard lives"]
pub struct Acting {
    before: Option<Author>,
}

/// Records this thread's writes as `author`'s until the guard is dropped.
pub fn acting_as(author: Author) -> Acting {
    let before = ACTING.with(|acting| acting.replace(Some(author)));
    Acting { before }
}

impl Drop for Acting {
    fn drop(&mut self) {
        let before = self.before.take();
        ACTING.with(|acting| *acting.borrow_mut() = before);
    }
}

/// Who a surface said acts on this thread now, if one did.
pub(crate) fn said() -> Option<Author> {
    ACTING.with(|acting| acting.borrow().clone())
}

/// Who is acting on this thread now ([`Author::Almanac`] when no surface
/// said).
pub(crate) fn current() -> Author {
    ACTING.with(|acting| acting.borrow().clone().unwrap_or(Author::Almanac))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_author_before_comes_back() {
        assert_eq!(current(), Author::Almanac);
        let outer = acting_as(Author::Window);
        {
            let _inner = acting_as(Author::Token { name: "a".into() });
            assert_eq!(current().token_name(), Some("a"));
        }
        assert_eq!(current(), Author::Window);
        drop(outer);
        assert_eq!(current(), Author::Almanac);
    }
}
