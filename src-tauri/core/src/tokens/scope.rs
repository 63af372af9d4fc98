//! What a personal access token may do.
//!
//! The ten scopes are the contract's (spec A, Authentication); their wire form is
//! the spec's string (`events:read`, …). `system:full-access` implies every
//! other scope, so a check is always "does this set grant X", never a plain
//! membership test.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One permission a token can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Scope {
    #[serde(rename = "events:read")]
    EventsRead,
    #[serde(rename = "events:write")]
    EventsWrite,
    #[serde(rename = "ui:open-calendar")]
    UiOpenCalendar,
    #[serde(rename = "ui:open-sidebar")]
    UiOpenSidebar,
    #[serde(rename = "ui:change-view")]
    UiChangeView,
    #[serde(rename = "providers:read")]
    ProvidersRead,
    #[serde(rename = "providers:write")]
    ProvidersWrite,
    #[serde(rename = "settings:read")]
    SettingsRead,
    #[serde(rename = "settings:write")]
    SettingsWrite,
    #[serde(rename = "system:full-access")]
    SystemFullAccess,
}

impl Scope {
    /// Every scope, in the order the settings UI lists them.
    pub const ALL: [Scope; 10] = [
        Scope::EventsRead,
        Scope::EventsWrite,
        Scope::UiOpenCalendar,
        Scope::UiOpenSidebar,
        Scope::UiChangeView,
        Scope::ProvidersRead,
        Scope::ProvidersWrite,
        Scope::SettingsRead,
        Scope::SettingsWrite,
        Scope::SystemFullAccess,
    ];

    /// The wire form, e.g. `events:read`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::EventsRead => "events:read",
            Scope::EventsWrite => "events:write",
            Scope::UiOpenCalendar => "ui:open-calendar",
            Scope::UiOpenSidebar => "ui:open-sidebar",
            Scope::UiChangeView => "ui:change-view",
            Scope::ProvidersRead => "providers:read",
            Scope::ProvidersWrite => "providers:write",
            Scope::SettingsRead => "settings:read",
            Scope::SettingsWrite => "settings:write",
            Scope::SystemFullAccess => "system:full-access",
        }
    }

    /// What the scope grants, in words the settings UI shows next to it.
    pub fn description(self) -> &'static str {
        match self {
            Scope::EventsRead => "Read cached events, event details and source note locations.",
            Scope::EventsWrite => "Create, update, move, complete, schedule or delete events.",
            Scope::UiOpenCalendar => "Focus or open the main calendar tab.",
            Scope::UiOpenSidebar => "Focus or open the calendar right sidebar.",
            Scope::UiChangeView => "Change the active calendar view.",
            Scope::ProvidersRead => "Query calendar sources, check provider capabilities.",
            Scope::ProvidersWrite => "Trigger remote revalidation.",
            Scope::SettingsRead => "Read plugin settings.",
            Scope::SettingsWrite => "Update plugin settings.",
            Scope::SystemFullAccess => {
                "Unrestricted access, including raw internal state; implies every other scope."
            }
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The scopes one token carries: a bit set, so checking and copying it on every
/// request costs nothing. Serialized as a JSON array of scope strings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Vec<Scope>", into = "Vec<Scope>")]
pub struct ScopeSet(u16);

impl ScopeSet {
    /// Whether this set allows what `scope` guards (`system:full-access`
    /// allows everything).
    pub fn grants(self, scope: Scope) -> bool {
        self.contains(scope) || self.contains(Scope::SystemFullAccess)
    }

    /// Whether `scope` itself was given (no implication).
    pub fn contains(self, scope: Scope) -> bool {
        self.0 & bit(scope) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The scopes given, in [`Scope::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL.into_iter().filter(move |&s| self.contains(s))
    }
}

fn bit(scope: Scope) -> u16 {
    1 << scope as u16
}

impl FromIterator<Scope> for ScopeSet {
    fn from_iter<I: IntoIterator<Item = Scope>>(iter: I) -> Self {
        Self(iter.into_iter().fold(0, |set, scope| set | bit(scope)))
    }
}

impl From<Vec<Scope>> for ScopeSet {
    fn from(scopes: Vec<Scope>) -> Self {
        scopes.into_iter().collect()
    }
}

impl From<ScopeSet> for Vec<Scope> {
    fn from(set: ScopeSet) -> Self {
        set.iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_round_trip_and_match_as_str() {
        for scope in Scope::ALL {
            let json = serde_json::to_string(&scope).unwrap();
            assert_eq!(json, format!("\"{}\"", scope.as_str()));
            assert_eq!(serde_json::from_str::<Scope>(&json).unwrap(), scope);
            assert!(!scope.description().is_empty());
        }
        assert!(serde_json::from_str::<Scope>("\"events:delete\"").is_err());
    }

    #[test]
    fn sets_serialize_as_sorted_scope_strings() {
        let set: ScopeSet =
            serde_json::from_str(r#"["settings:read","events:read","events:read"]"#).unwrap();
        assert_eq!(
            serde_json::to_string(&set).unwrap(),
            r#"["events:read","settings:read"]"#
        );
        assert!(serde_json::from_str::<ScopeSet>(r#"["events:read","root"]"#).is_err());
    }

    #[test]
    fn full_access_implies_every_scope_and_nothing_else_does() {
        let full: ScopeSet = [Scope::SystemFullAccess].into_iter().collect();
        for scope in Scope::ALL {
            assert!(full.grants(scope));
            let only: ScopeSet = [scope].into_iter().collect();
            for other in Scope::ALL {
                let expected = other == scope || scope == Scope::SystemFullAccess;
                assert_eq!(only.grants(other), expected, "{scope} → {other}");
            }
        }
    }
}
