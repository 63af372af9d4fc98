//! The event's writable fields are declared once
//! ([`almanac_model::fields::WRITABLE`]); every other shape
//! that names event fields is held to that declaration here.

use std::collections::BTreeSet;

use almanac_core::calendar::{Event, EventFields};
use almanac_core::mcp::params::{CreateParams, UpdateParams};
use almanac_model::fields::WRITABLE;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

fn properties(schema: RefOr<Schema>) -> BTreeSet<String> {
    match schema {
        RefOr::T(Schema::Object(object)) => object.properties.into_keys().collect(),
        _ => panic!("not an object schema"),
    }
}

/// The REST body is the declaration, and so are MCP's event tools' fields
/// (written out whole, as a tool schema stands alone); the event returned
/// carries every declared field (but `isTask`, which it answers as
/// `completed`). Quick-add's dry run answers `EventFields` itself.
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

    let tools = [
        ("create_event", schemars::schema_for!(CreateParams), "event"),
        (
            "update_event",
            schemars::schema_for!(UpdateParams),
            "changes",
        ),
    ];
    for (tool, schema, argument) in tools {
        let fields = &schema.as_value()["properties"][argument];
        let mcp: BTreeSet<String> = fields["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("{tool}'s {argument} properties: {fields}"))
            .keys()
            .cloned()
            .collect();
        assert_eq!(mcp, declared, "MCP {tool}'s {argument} is the declaration");
        assert!(
            !fields.to_string().contains("$ref"),
            "{tool}'s {argument} refers outside the tool schema: {fields}"
        );
    }
}
