//! The columns of a record field's fields in an archive ([`RECORD_FIELD`]): one per
//! field of its record (nested records' opened), typed, in the places of the field's
//! values — a list's elements, a map's values — beside the field's own column of texts.

use std::sync::Arc;

use masterctl_runtime::format::{ColumnData, RECORD_FIELD};
use masterctl_schemas::{Field, FieldType, Value};

use crate::columns::{column, column_type};

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
            let values: Vec<Value> = cells.clone().map(|cell| leaf_of(cell, &path)).collect();
            let name = format!("{}{RECORD_FIELD}{}", field.name, names.join(RECORD_FIELD));
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
        .map(|(_, names, leaf)| {
            let name = format!("{}{RECORD_FIELD}{}", field.name, names.join(RECORD_FIELD));
            (name, leaf.values.as_slice())
        })
        .collect()
}

/// A cell's value of the field at `path` in its records: the record's, or a list of
/// every record's (a list's, a map's values').
fn leaf_of(cell: &Value, path: &[usize]) -> Value {
    let at = |record: &Value| record.at(path).cloned().unwrap_or(Value::Null);
    match cell {
        Value::List(items) => Value::List(items.iter().map(at).collect()),
        Value::Map(entries) => Value::List(entries.iter().map(|(_, v)| at(v)).collect()),
        Value::Null => Value::Null,
        record => at(record),
    }
}
