//! The columns of a union field in an archive, beside its column of texts: each
//! value's case (`<field>/$case`, its record's name) and, for each case, a column per
//! field of its record (`<field>/<case>/<name>`, nested records opened), empty where a
//! value is of another case — in a list or a map, its type's zero there.

use std::sync::Arc;

use masterctl_runtime::format::{ColumnData, ColumnType, RECORD_CASE};
use masterctl_schemas::{Field, FieldType, Value};

use crate::columns::{column, column_type, each, part_column};

/// The columns of `field`'s unions over `cells` (none when it holds no union).
pub(crate) fn union_columns<'v>(
    field: &Field,
    cells: impl Iterator<Item = &'v Value> + Clone,
) -> Vec<ColumnData> {
    let Some(union) = field.ty.union() else {
        return Vec::new();
    };
    let listed = matches!(field.ty, FieldType::List(_) | FieldType::Map(..));
    let name = |parts: &[&str]| part_column(&field.name, parts);
    let cases: Vec<Value> = (cells.clone())
        .map(|cell| {
            each(cell, &|value| {
                value
                    .union_case()
                    .map_or(Value::Null, |(c, _)| Value::Str(c.clone()))
            })
        })
        .collect();
    let mut columns = vec![column(
        &name(&[RECORD_CASE]),
        ColumnType::Str,
        listed,
        cases.iter(),
    )];
    for case in &union.cases {
        let named = case.record.name.as_str();
        for (path, names, leaf) in case.record.leaves() {
            let values: Vec<Value> = (cells.clone())
                .map(|cell| {
                    each(cell, &|value| match value.union_case() {
                        Some((c, record)) if **c == *named => {
                            record.at(&path).cloned().unwrap_or(Value::Null)
                        }
                        _ => Value::Null,
                    })
                })
                .collect();
            let parts: Vec<&str> = std::iter::once(named).chain(names).collect();
            columns.push(column(
                &name(&parts),
                column_type(&leaf.ty),
                listed,
                values.iter(),
            ));
        }
    }
    columns
}

/// Each enum field of `field`'s union's cases, by its column's name, with its values.
pub(crate) fn union_enums(field: &Field) -> Vec<(String, &[Arc<str>])> {
    let Some(union) = field.ty.union() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for case in &union.cases {
        for (_, names, leaf) in case.record.leaves() {
            if leaf.ty == FieldType::Enum {
                let parts: Vec<&str> = std::iter::once(case.record.name.as_str())
                    .chain(names)
                    .collect();
                found.push((part_column(&field.name, &parts), leaf.values.as_slice()));
            }
        }
    }
    found
}
