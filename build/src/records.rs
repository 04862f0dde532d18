//! The columns of a record field's fields in an archive (`<field>/<name>`): one per
//! field of its record (nested records' opened), typed, in the places of the field's
//! values — a list's elements, a map's values — beside the field's own column of texts.

use std::sync::Arc;

use masterctl_runtime::format::ColumnData;
use masterctl_schemas::{Field, FieldType, Value};

use crate::columns::{column, column_type, each, part_column};

/// The columns of `field`'s records' fields over `cells` (none when it holds no record).
pub(crate) fn record_columns<'v>(
    field: &Field,
    cells: impl Iterator<Item = &'v Value> + Clone,
) -> Vec<ColumnData> {
    let Some(record) = field.ty.record() else {
        return Vec::new();
    };
    let listed = matches!(field.ty, FieldType::List(_) | FieldType::Map(..));
    record
        .leaves()
        .into_iter()
        .map(|(path, names, leaf)| {
            // The record's field at `path`, or each of a list's, a map's records'.
            let at = |record: &Value| record.at(&path).cloned().unwrap_or(Value::Null);
            let values: Vec<Value> = cells.clone().map(|cell| each(cell, &at)).collect();
            let name = part_column(&field.name, &names);
            column(&name, column_type(&leaf.ty), listed, values.iter())
        })
        .collect()
}

/// Each enum field of `field`'s records, by its column's name, with its values.
pub(crate) fn record_enums(field: &Field) -> Vec<(String, &[Arc<str>])> {
    let Some(record) = field.ty.record() else {
        return Vec::new();
    };
    record
        .leaves()
        .into_iter()
        .filter(|(_, _, leaf)| leaf.ty == FieldType::Enum)
        .map(|(_, names, leaf)| (part_column(&field.name, &names), leaf.values.as_slice()))
        .collect()
}
