//! The event's writable fields are declared once
//! ([`almanac_model::fields::WRITABLE`]); every other shape
//! that names event fields is held to that declaration here, and every note
//! text field ([`NOTE_TEXT`]) is tested from its declaration alone.

use std::collections::BTreeSet;

use almanac_core::calendar::{Calendar, CalendarError, Event, EventFields};
use almanac_core::mcp::params::{CreateParams, UpdateParams};
use almanac_core::settings::KindSettings;
use almanac_model::fields::{NOTE_TEXT, WRITABLE};
use serde_json::json;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use crate::common::{TestVault, fields};

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

/// The field a refused write names.
fn refused_field(result: Result<Event, CalendarError>) -> String {
    match result {
        Err(CalendarError::InvalidInput { field, .. }) => field,
        other => panic!("not refused as invalid: {other:?}"),
    }
}

/// What the engine serves for `id`, as JSON.
fn served(calendar: &Calendar, id: &str) -> serde_json::Value {
    serde_json::to_value(calendar.details(id).unwrap().event).unwrap()
}

/// Each note text field, from its declaration alone: stored in a Full
/// Note's frontmatter under its wire name and served as sent, removed by
/// `null`, read from a note written by hand, refused with a line break and
/// in a daily note (a list item has no place for it), and named in the user
/// guide.
#[test]
fn every_note_text_field_is_stored_served_and_refused_as_declared() {
    assert!(!NOTE_TEXT.is_empty());
    let vault = TestVault::new().with_source(
        "daily",
        KindSettings::DailyNote {
            directory: "days".into(),
            heading: "Events".into(),
        },
    );
    for field in NOTE_TEXT {
        let wire = field.wire;
        vault.write(
            &format!("events/By hand {wire}.md"),
            &format!("---\ntitle: By hand\ndate: 2026-03-04\n{wire}: written by hand\n---\n"),
        );
    }
    let calendar = vault.open();
    let guide = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/calendar.md"
    ))
    .unwrap();

    for field in NOTE_TEXT {
        let wire = field.wire;
        let by_hand = served(&calendar, &format!("fullnote:events/By hand {wire}.md"));
        assert_eq!(by_hand[wire], "written by hand", "{wire}");

        let value = format!("{wire} text");
        let created = calendar
            .create(
                "local",
                fields(json!({"title": format!("With {wire}"), "date": "2026-03-03", "allDay": true, wire: value})),
            )
            .unwrap();
        let path = created.file_path.clone().unwrap();
        let note = vault.read(&path);
        assert!(note.contains(&format!("\n{wire}: {value}\n")), "{note}");
        assert_eq!(served(&calendar, &created.id)[wire], value.as_str());

        for bad in ["two\nlines", "a\u{1b}b"] {
            let refused = calendar.update(&created.id, fields(json!({ wire: bad })));
            assert_eq!(refused_field(refused), wire);
        }
        assert_eq!(vault.read(&path), note, "a refused update changed the note");

        let cleared = calendar
            .update(&created.id, fields(json!({ wire: null })))
            .unwrap();
        assert_eq!(serde_json::to_value(&cleared).unwrap().get(wire), None);
        assert!(!vault.read(&path).contains(&format!("\n{wire}:")), "{wire}");

        let daily = calendar.create(
            "daily",
            fields(json!({"title": "Item", "date": "2026-03-03", "allDay": true, wire: "x"})),
        );
        assert_eq!(refused_field(daily), wire);

        assert!(
            guide.contains(&format!("`{wire}`")),
            "docs/calendar.md does not name `{wire}`"
        );
    }
}
