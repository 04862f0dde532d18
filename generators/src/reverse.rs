//! Reverse lookups: for every row of the target table, which rows of the source tables
//! point at it.
//!
//! Columns: `<target>_<key>` (the target's primary key), `source_table`, `source_key`
//! (the source row's primary key; a composite key's values joined by `|`), then every
//! column a source lists in `columns` (empty for sources that do not list it). One
//! output row per reference (a `list` field gives one per element); rows sorted by
//! target key, source table, then source key, all typed.

use std::collections::HashMap;

use masterctl_schemas::schema::{Project, Reverse};
use masterctl_schemas::value::LIST_SEPARATOR;
use masterctl_schemas::{Table, Value};

use crate::GeneratedTable;

/// Output order: target key, source table, source key values — all typed.
type SortKey = (Value, String, Vec<Value>);

/// Compute a reverse lookup from the tables of a snapshot. Tables missing from
/// `tables` contribute no rows.
pub fn reverse_table(
    project: &Project,
    reverse: &Reverse,
    tables: &HashMap<&str, &Table>,
) -> GeneratedTable {
    let key_name = project
        .table(&reverse.target)
        .and_then(|t| t.primary_key.first().map(|&k| t.fields[k].name.clone()))
        .unwrap_or_else(|| "key".to_string());
    let mut extra: Vec<&str> = Vec::new();
    for source in &reverse.sources {
        for column in &source.columns {
            if !extra.contains(&column.as_str()) {
                extra.push(column);
            }
        }
    }
    let mut header = vec![
        format!("{}_{key_name}", reverse.target),
        "source_table".to_string(),
        "source_key".to_string(),
    ];
    header.extend(extra.iter().map(|c| c.to_string()));
    let mut keyed: Vec<(SortKey, Vec<Value>)> = Vec::new();
    for source in &reverse.sources {
        let (Some(table), Some(schema)) = (
            tables.get(source.table.as_str()),
            project.table(&source.table),
        ) else {
            continue;
        };
        let Some(field) = schema.field_index(&source.field) else {
            continue;
        };
        let columns: Vec<Option<usize>> = extra
            .iter()
            .map(|c| {
                source
                    .columns
                    .iter()
                    .any(|sc| sc == c)
                    .then(|| schema.field_index(c))
                    .flatten()
            })
            .collect();
        for row in 0..table.row_count() {
            let targets: Vec<&Value> = match table.value(row, field) {
                Value::Null => continue,
                Value::List(items) => items.iter().collect(),
                Value::Map(entries) => entries.iter().map(|(key, _)| key).collect(),
                single => vec![single],
            };
            let key = table.key(row, &schema.primary_key);
            let key_text = key
                .iter()
                .map(Value::canonical)
                .collect::<Vec<_>>()
                .join(&LIST_SEPARATOR.to_string());
            for target in targets {
                let mut out = vec![
                    target.clone(),
                    Value::Str(source.table.as_str().into()),
                    Value::Str(key_text.as_str().into()),
                ];
                out.extend(
                    columns
                        .iter()
                        .map(|c| c.map_or(Value::Null, |c| table.value(row, c).clone())),
                );
                keyed.push(((target.clone(), source.table.clone(), key.clone()), out));
            }
        }
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    GeneratedTable {
        header,
        rows: keyed.into_iter().map(|(_, row)| row).collect(),
    }
}
