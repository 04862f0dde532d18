//! The columns of a record or union field's parts in an archive, beside the field's
//! column of texts: one per single value its type holds (`FieldType::leaves`), named
//! by the names on the way to it — a record's field (`<field>/<name>`), a union's case
//! (`<field>/$case`, its record's name) and each case's fields
//! (`<field>/<case>/<name>`), nested records and unions opened. A value of another
//! case is empty there; in a list or a map, its type's zero.

use std::sync::Arc;

use masterctl_runtime::format::{ColumnData, ColumnType, RECORD_CASE};
use masterctl_schemas::schema::Leaf;
use masterctl_schemas::{Field, FieldType, Value};

use crate::columns::{column, column_type, each, part_column};

/// The columns of `field`'s records' or unions' parts over `cells` (none when it holds
/// neither).
pub(crate) fn part_columns<'v>(
    field: &Field,
    cells: impl Iterator<Item = &'v Value> + Clone,
) -> Vec<ColumnData> {
    let listed = matches!(field.ty, FieldType::List(_) | FieldType::Map(..));
    (field.ty.leaves().iter())
        .map(|leaf| {
            let values: Vec<Value> = (cells.clone())
                .map(|cell| each(cell, &|value| leaf_value(leaf, value)))
                .collect();
            let ty = leaf.field.map_or(ColumnType::Str, |f| column_type(&f.ty));
            column(&leaf_column(field, leaf), ty, listed, values.iter())
        })
        .collect()
}

/// Each enum field of `field`'s records or unions, by its column's name, with its
/// values.
pub(crate) fn part_enums(field: &Field) -> Vec<(String, &[Arc<str>])> {
    (field.ty.leaves().iter())
        .filter_map(|leaf| {
            let enumerated = leaf.field.filter(|f| f.ty == FieldType::Enum)?;
            Some((leaf_column(field, leaf), enumerated.values.as_slice()))
        })
        .collect()
}

/// The value of a record or union at `leaf`: a field's value, a union's case's name.
fn leaf_value(leaf: &Leaf<'_>, value: &Value) -> Value {
    let at = value.at(&leaf.path);
    match leaf.field {
        Some(_) => at.cloned(),
        None => at
            .and_then(Value::union_case)
            .map(|(case, _)| Value::Str(case.clone())),
    }
    .unwrap_or(Value::Null)
}

/// The column `leaf` of `field` is kept in.
fn leaf_column(field: &Field, leaf: &Leaf<'_>) -> String {
    let mut names = leaf.names.clone();
    if leaf.field.is_none() {
        names.push(RECORD_CASE);
    }
    part_column(&field.name, &names)
}
