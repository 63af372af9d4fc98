//! The API's schemas of the model's types that serialize by hand (a day
//! letter, a task's state), for the OpenAPI document the REST server
//! serves. They live with the types, as the compiler asks of a trait
//! implemented for them.

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};

use crate::event::{Completion, DayOfWeek};

/// Day letters, as Obsidian Full Calendar writes them (`U` = Sunday).
impl utoipa::PartialSchema for DayOfWeek {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(DayOfWeek::ALL.map(|day| day.letter().to_string())))
            .description(Some("A day letter: U M T W R F S (U = Sunday)"))
            .into()
    }
}

impl utoipa::ToSchema for DayOfWeek {}

/// `false`/`null` = an open task, `true` or a date = done.
impl utoipa::PartialSchema for Completion {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::Boolean))
            .item(ObjectBuilder::new().schema_type(Type::String))
            .item(ObjectBuilder::new().schema_type(Type::Null))
            .description(Some(
                "`false` or `null`: an open task; `true` or a completion date: a done task",
            ))
            .into()
    }
}

impl utoipa::ToSchema for Completion {}
