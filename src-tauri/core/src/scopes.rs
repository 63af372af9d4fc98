//! What a personal access token may do: the scopes, and the class of
//! settings each may change.
//!
//! The ten scopes are the contract's (spec A, Authentication); their wire form is
//! the spec's string (`events:read`, …). `system:full-access` implies every
//! other scope, so a check is always "does this set grant X", never a plain
//! membership test.
//!
//! [`SCOPES`] is the one place a scope is described: its wire name, the words
//! the token dialog shows, the class of settings it may change and the REST
//! operations it guards. Parsing, display, [`Scope::ALL`], the token dialog,
//! the OpenAPI `security` of each route and the docs' tables all follow it;
//! the REST tests check each documented route against the scope its handler
//! actually demands.
//!
//! The scopes are a vocabulary below the parts that use them: the settings
//! check who may change which key against them (`crate::settings::class`),
//! and the token store (`crate::tokens`), which re-exports them, gives them
//! to tokens. This module imports neither, so settings, the event bus and
//! the token store stay one way (tokens → events → settings → scopes).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How much a setting can change about what Almanac touches. Which key is
/// of which class is the settings' table (`crate::settings::class::CLASSES`);
/// which scope may change a class is [`SCOPES`]'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingClass {
    /// How the calendar looks. Needs `settings:write`.
    Display,
    /// What Almanac reads, writes, fetches, opens or listens on. Needs
    /// `system:full-access`.
    Privileged,
}

impl SettingClass {
    /// The scope a token needs to change a setting of this class (the one
    /// whose row in [`SCOPES`] names this class).
    pub fn scope(self) -> Scope {
        SCOPES
            .iter()
            .find(|info| info.settings == Some(self))
            .map(|info| info.scope)
            .expect("every settings class has its scope in SCOPES")
    }
}

/// One permission a token can carry. Its row in [`SCOPES`] is at the
/// variant's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    EventsRead,
    EventsWrite,
    UiOpenCalendar,
    UiOpenSidebar,
    UiChangeView,
    ProvidersRead,
    ProvidersWrite,
    SettingsRead,
    SettingsWrite,
    SystemFullAccess,
}

/// Everything stated about one scope.
#[derive(Debug)]
pub struct ScopeInfo {
    pub scope: Scope,
    /// The wire form, e.g. `events:read`.
    pub name: &'static str,
    /// What the scope grants, in words the settings UI shows next to it.
    pub description: &'static str,
    /// The class of settings a token with this scope may change, if any
    /// (see [`SettingClass`]).
    pub settings: Option<SettingClass>,
    /// The REST operations this scope guards, as `METHOD /path` the way the
    /// OpenAPI document spells them. The document's `security` is built
    /// from this list.
    pub routes: &'static [&'static str],
}

/// Every scope, in the order the settings UI lists them (and in the order of
/// the [`Scope`] variants).
pub const SCOPES: [ScopeInfo; 10] = [
    ScopeInfo {
        scope: Scope::EventsRead,
        name: "events:read",
        description: "Read cached events, event details and source note locations.",
        settings: None,
        routes: &[
            "GET /api/v1/events",
            "GET /api/v1/events/{id}",
            "GET /api/v1/changes",
        ],
    },
    ScopeInfo {
        scope: Scope::EventsWrite,
        name: "events:write",
        description: "Create, update, move, complete, schedule or delete events.",
        settings: None,
        routes: &[
            "POST /api/v1/events",
            "POST /api/v1/events/quick",
            "PUT /api/v1/events/{id}",
            "DELETE /api/v1/events/{id}",
            "GET /api/v1/history",
            "POST /api/v1/history/undo",
            "POST /api/v1/history/{id}/undo",
        ],
    },
    ScopeInfo {
        scope: Scope::UiOpenCalendar,
        name: "ui:open-calendar",
        description: "Focus or open the main calendar tab.",
        settings: None,
        routes: &["POST /api/v1/ui/open-calendar"],
    },
    ScopeInfo {
        scope: Scope::UiOpenSidebar,
        name: "ui:open-sidebar",
        description: "Focus or open the calendar right sidebar.",
        settings: None,
        routes: &["POST /api/v1/ui/open-sidebar"],
    },
    ScopeInfo {
        scope: Scope::UiChangeView,
        name: "ui:change-view",
        description: "Change the active calendar view.",
        settings: None,
        routes: &["POST /api/v1/ui/change-view"],
    },
    ScopeInfo {
        scope: Scope::ProvidersRead,
        name: "providers:read",
        description: "Query calendar sources, check provider capabilities.",
        settings: None,
        routes: &["GET /api/v1/calendars"],
    },
    ScopeInfo {
        scope: Scope::ProvidersWrite,
        name: "providers:write",
        description: "Trigger remote revalidation.",
        settings: None,
        routes: &["POST /api/v1/providers/revalidate"],
    },
    ScopeInfo {
        scope: Scope::SettingsRead,
        name: "settings:read",
        description: "Read plugin settings.",
        settings: None,
        routes: &["GET /api/v1/settings"],
    },
    ScopeInfo {
        scope: Scope::SettingsWrite,
        name: "settings:write",
        description: "Update plugin settings.",
        settings: Some(SettingClass::Display),
        routes: &["PUT /api/v1/settings"],
    },
    ScopeInfo {
        scope: Scope::SystemFullAccess,
        name: "system:full-access",
        description: "Unrestricted access, including raw internal state; implies every other scope.",
        settings: Some(SettingClass::Privileged),
        // Every route accepts it, through the implication; none asks for it.
        routes: &[],
    },
];

// The table is indexed by the variant, and a scope set is a 16-bit mask.
const _: () = {
    let mut index = 0;
    while index < SCOPES.len() {
        assert!(
            SCOPES[index].scope as usize == index,
            "SCOPES is out of variant order"
        );
        index += 1;
    }
    assert!(SCOPES.len() <= u16::BITS as usize);
};

impl Scope {
    /// Every scope, in the order the settings UI lists them.
    pub const ALL: [Scope; SCOPES.len()] = {
        let mut all = [Scope::EventsRead; SCOPES.len()];
        let mut index = 0;
        while index < SCOPES.len() {
            all[index] = SCOPES[index].scope;
            index += 1;
        }
        all
    };

    /// The wire names, in [`Scope::ALL`] order.
    const NAMES: [&'static str; SCOPES.len()] = {
        let mut names = [""; SCOPES.len()];
        let mut index = 0;
        while index < SCOPES.len() {
            names[index] = SCOPES[index].name;
            index += 1;
        }
        names
    };

    /// This scope's row of [`SCOPES`].
    pub const fn info(self) -> &'static ScopeInfo {
        &SCOPES[self as usize]
    }

    /// The wire form, e.g. `events:read`.
    pub const fn as_str(self) -> &'static str {
        self.info().name
    }

    /// What the scope grants, in words the settings UI shows next to it.
    pub const fn description(self) -> &'static str {
        self.info().description
    }

    /// The scope whose row lists the REST operation `route` (`METHOD /path`).
    pub fn guarding(route: &str) -> Option<Scope> {
        SCOPES
            .iter()
            .find(|info| info.routes.contains(&route))
            .map(|info| info.scope)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no scope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope `{0}`")]
pub struct UnknownScope(pub String);

impl FromStr for Scope {
    type Err = UnknownScope;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        SCOPES
            .iter()
            .find(|info| info.name == name)
            .map(|info| info.scope)
            .ok_or_else(|| UnknownScope(name.to_string()))
    }
}

impl Serialize for Scope {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Scope {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse()
            .map_err(|_| serde::de::Error::unknown_variant(&name, &Scope::NAMES))
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
    fn names_parse_and_each_route_has_one_scope() {
        for info in &SCOPES {
            assert_eq!(info.name.parse::<Scope>(), Ok(info.scope));
            for route in info.routes {
                let guards = SCOPES.iter().filter(|i| i.routes.contains(route));
                assert_eq!(guards.count(), 1, "{route} is listed under several scopes");
                assert_eq!(Scope::guarding(route), Some(info.scope));
            }
        }
        assert_eq!(
            "root".parse::<Scope>(),
            Err(UnknownScope("root".to_string()))
        );
        let error = serde_json::from_str::<Scope>("\"root\"").unwrap_err();
        assert!(error.to_string().contains("events:read"), "{error}");
    }

    #[test]
    fn each_settings_class_has_one_scope() {
        for class in [SettingClass::Display, SettingClass::Privileged] {
            let scopes = SCOPES.iter().filter(|info| info.settings == Some(class));
            assert_eq!(scopes.count(), 1, "{class:?}");
        }
        assert_eq!(SettingClass::Display.scope(), Scope::SettingsWrite);
        assert_eq!(SettingClass::Privileged.scope(), Scope::SystemFullAccess);
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
