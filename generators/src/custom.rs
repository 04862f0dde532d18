//! Custom masters (`[custom]`): precomputed views of one table that would otherwise cost
//! a game server CPU at run time. Each is a [`GeneratedTable`] written as canonical CSV
//! under `generated/` (so it is diffed and reviewed like any table) and built into the
//! runtime archive.
//!
//! - `group`: the group key fields, `position` (0-based inside the group), then the row's
//!   primary key (`<table>_<field>`); rows ordered by group key, then `order_by`, then
//!   primary key.
//! - `weighted`: the group key fields, the row's primary key, `weight` and `cumulative`
//!   (the running sum inside the group: a draw of r in [0, total) is the first row whose
//!   cumulative weight exceeds r); rows in group then key order.
//! - `matrix`: the row field, then one column per value of the column field's enum; one
//!   row per value of the row field's enum, in declared order; a missing pair holds the
//!   default.
//!
//! The data's own mistakes (a weight that is not positive, a matrix pair twice or
//! missing without default) are found by validation (`masterctl_schemas::validate`)
//! before anything is generated.

use std::cmp::Ordering;

use masterctl_schemas::schema::{Custom, CustomKind};
use masterctl_schemas::{Table, TableSchema, Value};

use crate::GeneratedTable;

/// The rows of a table in group order — by the `group` fields, then `order`, then the
/// primary key — and the position where each group starts.
pub fn group_order(
    schema: &TableSchema,
    table: &Table,
    group: &[usize],
    order: &[usize],
) -> (Vec<usize>, Vec<usize>) {
    let compare = |a: usize, b: usize, by: &[usize]| {
        by.iter()
            .map(|&f| table.value(a, f).cmp(table.value(b, f)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    };
    let mut rows: Vec<usize> = (0..table.row_count()).collect();
    rows.sort_by(|&a, &b| {
        compare(a, b, group)
            .then_with(|| compare(a, b, order))
            .then_with(|| compare(a, b, &schema.primary_key))
    });
    let starts = (0..rows.len())
        .filter(|&i| i == 0 || compare(rows[i - 1], rows[i], group).is_ne())
        .collect();
    (rows, starts)
}

/// Compute a custom master from its table (typed against `schema`).
pub fn custom_table(schema: &TableSchema, custom: &Custom, table: &Table) -> GeneratedTable {
    let fields = |names: &[String]| -> Vec<usize> {
        names.iter().filter_map(|n| schema.field_index(n)).collect()
    };
    let key_header = || {
        schema
            .primary_key
            .iter()
            .map(|&k| format!("{}_{}", schema.name, schema.fields[k].name))
    };
    let names = |by: &[usize]| -> Vec<String> {
        by.iter().map(|&f| schema.fields[f].name.clone()).collect()
    };
    match &custom.kind {
        CustomKind::Group { group_by, order_by } => {
            let group = fields(group_by);
            let (rows, starts) = group_order(schema, table, &group, &fields(order_by));
            let mut header = names(&group);
            header.push("position".into());
            header.extend(key_header());
            let mut out = Vec::with_capacity(rows.len());
            let mut position = 0i64;
            for (i, &row) in rows.iter().enumerate() {
                if starts.binary_search(&i).is_ok() {
                    position = 0;
                }
                let mut cells = table.key(row, &group);
                cells.push(Value::Int(position));
                cells.extend(table.key(row, &schema.primary_key));
                out.push(cells);
                position += 1;
            }
            GeneratedTable { header, rows: out }
        }
        CustomKind::Weighted { group_by, weight } => {
            let group = fields(group_by);
            let weight = schema.field_index(weight);
            let (rows, starts) = group_order(schema, table, &group, &[]);
            let mut header = names(&group);
            header.extend(key_header());
            header.push("weight".into());
            header.push("cumulative".into());
            let mut out = Vec::with_capacity(rows.len());
            let mut running = Value::Int(0);
            for (i, &row) in rows.iter().enumerate() {
                if starts.binary_search(&i).is_ok() {
                    running = Value::Int(0);
                }
                let w = weight.map_or(&Value::Null, |w| table.value(row, w));
                running = match (&running, w) {
                    (Value::Int(a), Value::Int(b)) => Value::Int(a.saturating_add(*b)),
                    (a, b) => Value::Float(a.as_f64().unwrap_or(0.0) + b.as_f64().unwrap_or(0.0)),
                };
                let mut cells = table.key(row, &group);
                cells.extend(table.key(row, &schema.primary_key));
                cells.push(w.clone());
                cells.push(running.clone());
                out.push(cells);
            }
            GeneratedTable { header, rows: out }
        }
        CustomKind::Matrix {
            row,
            column,
            value,
            default,
        } => {
            let (Some(r), Some(c), Some(v)) = (
                schema.field_index(row),
                schema.field_index(column),
                schema.field_index(value),
            ) else {
                return GeneratedTable::default();
            };
            let row_values = &schema.fields[r].values;
            let column_values = &schema.fields[c].values;
            let mut header = vec![row.clone()];
            header.extend(column_values.iter().map(|v| v.to_string()));
            let cell = |a: &str, b: &str| {
                (0..table.row_count())
                    .find(|&i| {
                        table.value(i, r).as_str() == Some(a)
                            && table.value(i, c).as_str() == Some(b)
                    })
                    .map(|i| table.value(i, v).clone())
                    .or_else(|| default.clone())
                    .unwrap_or(Value::Null)
            };
            let rows = row_values
                .iter()
                .map(|a| {
                    let mut cells = vec![Value::Str(a.clone())];
                    cells.extend(column_values.iter().map(|b| cell(a, b)));
                    cells
                })
                .collect();
            GeneratedTable { header, rows }
        }
    }
}
