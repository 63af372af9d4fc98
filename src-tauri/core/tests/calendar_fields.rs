//! The event's writable fields are declared once
//! ([`almanac_model::fields::WRITABLE`]); every other shape
//! that names event fields is held to that declaration here.

use std::collections::BTreeSet;

use almanac_core::calendar::{Event, EventFields};
use almanac_core::mcp::params::EventInput;
use almanac_core::quick_add::QuickFields;
use almanac_model::fields::WRITABLE;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

fn properties(schema: RefOr<Schema>) -> BTreeSet<String> {
    match schema {
        RefOr::T(Schema::Object(object)) => object.properties.into_keys().collect(),
        _ => panic!("not an object schema"),
    }
}

/// The REST body is the declaration; the event returned carries every
/// declared field (but `isTask`, which it answers as `completed`);
/// quick-add's dry run and MCP's `EventInput` name only declared fields.
/// The window's form is held to the same declaration when it saves: what
/// it sends is read as `EventFields`, which refuses an unknown key, and the
/// window's editing tests send every field the form has.
#[test]
fn every_shape_names_only_declared_fields() {
    let declared: BTreeSet<String> = WRITABLE.iter().map(|name| name.to_string()).collect();
    let wire = properties(<EventFields as utoipa::PartialSchema>::schema());
    assert_eq!(wire, declared, "the REST body is the declaration");

    let returned = properties(<Event as utoipa::PartialSchema>::schema());
    let missing: Vec<_> = declared
        .iter()
        .filter(|name| *name != "isTask" && !returned.contains(*name))
        .collect();
    assert!(missing.is_empty(), "Event lacks {missing:?}");

    let quick = properties(<QuickFields as utoipa::PartialSchema>::schema());
    assert!(
        quick.is_subset(&declared),
        "quick-add: {:?}",
        quick.difference(&declared)
    );

    let mcp = schemars::schema_for!(EventInput);
    let mcp: BTreeSet<String> = mcp
        .get("properties")
        .and_then(|p| p.as_object())
        .expect("EventInput's properties")
        .keys()
        .cloned()
        .collect();
    assert!(
        mcp.is_subset(&declared),
        "MCP: {:?}",
        mcp.difference(&declared)
    );
}
