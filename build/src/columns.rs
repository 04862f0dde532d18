//! A column of an archive from typed values (`runtime::format::ColumnData`): its type,
//! its values or a list's elements, offsets and the null bitmap. Shared by the
//! archive's fields, records' fields and unions' cases, with the walk over a cell's values.

use masterctl_runtime::format::{ColumnData, ColumnType, RECORD_FIELD, Strings, Values};
use masterctl_schemas::{FieldType, Value};

/// The column type a field's values (a list's elements, a map's values) take.
/// The column of a part of `field`'s values — a record's field, a union's case and its
/// fields — named by the names on the way to it (`costs/item_id`, `zone/circle/radius`).
pub(crate) fn part_column(field: &str, parts: &[&str]) -> String {
    format!("{field}{RECORD_FIELD}{}", parts.join(RECORD_FIELD))
}

pub(crate) fn column_type(ty: &FieldType) -> ColumnType {
    match ty.scalar() {
        FieldType::Int => ColumnType::Int,
        FieldType::Float => ColumnType::Float,
        FieldType::Bool => ColumnType::Bool,
        FieldType::Date => ColumnType::Date,
        FieldType::DateTime => ColumnType::DateTime,
        _ => ColumnType::Str,
    }
}

/// A column from values in row order.
pub(crate) fn column<'v>(
    name: &str,
    ty: ColumnType,
    list: bool,
    cells: impl ExactSizeIterator<Item = &'v Value>,
) -> ColumnData {
    let rows = cells.len();
    let mut nulls = vec![0u64; rows.div_ceil(64)];
    let mut any_null = false;
    let mut offsets = Vec::new();
    let mut values = match ty {
        ColumnType::Int => Values::Int(Vec::with_capacity(rows)),
        ColumnType::Float => Values::Float(Vec::with_capacity(rows)),
        ColumnType::Bool => Values::Bool(Vec::with_capacity(rows)),
        ColumnType::Str => Values::Str(Strings::with_capacity(rows)),
        ColumnType::Date => Values::Date(Vec::with_capacity(rows)),
        ColumnType::DateTime => Values::DateTime(Vec::with_capacity(rows)),
    };
    let push = |values: &mut Values, value: Option<&Value>| match values {
        Values::Int(v) => v.push(match value {
            Some(Value::Int(x)) => *x,
            _ => 0,
        }),
        Values::Float(v) => v.push(value.and_then(Value::as_f64).unwrap_or(0.0)),
        Values::Bool(v) => v.push(matches!(value, Some(Value::Bool(true)))),
        Values::Str(v) => match value {
            Some(Value::Str(s)) => v.push(s),
            Some(Value::Null) | None => v.push(""),
            Some(other) => v.push(&other.canonical()),
        },
        Values::Date(v) => v.push(match value {
            Some(Value::Date(d)) => d.0,
            _ => 0,
        }),
        Values::DateTime(v) => v.push(match value {
            Some(Value::DateTime(t)) => t.0,
            _ => 0,
        }),
    };
    let mut elements = 0u32;
    if list {
        offsets.push(0);
    }
    for (row, cell) in cells.enumerate() {
        if cell.is_null() {
            nulls[row / 64] |= 1 << (row % 64);
            any_null = true;
        }
        if list {
            if let Value::List(items) = cell {
                for item in items.iter() {
                    push(&mut values, Some(item));
                    elements += 1;
                }
            }
            offsets.push(elements);
        } else {
            push(&mut values, Some(cell));
        }
    }
    if !any_null {
        nulls.clear();
    }
    ColumnData {
        name: name.to_string(),
        ty,
        list,
        nulls,
        offsets,
        values,
    }
}

/// `of` of a cell's value, or of each of a list's, each of a map's values (a list).
pub(crate) fn each(cell: &Value, of: &dyn Fn(&Value) -> Value) -> Value {
    match cell {
        Value::Null => Value::Null,
        Value::List(items) => Value::List(items.iter().map(of).collect()),
        Value::Map(entries) => Value::List(entries.iter().map(|(_, v)| of(v)).collect()),
        single => of(single),
    }
}
