//! Resolutions of conflicting cells — `ours`, `theirs` or a value — and applying them
//! to a merged table. Pure logic on tables: the conflict file that carries them is
//! [`super::state`].

use std::collections::HashMap;

use masterctl_schemas::parse::parse_text_in;
use masterctl_schemas::value::LIST_SEPARATOR;
use masterctl_schemas::{Table, TableSchema, Value};

use crate::merge::{Conflict, ConflictKind, row_key};

/// How one conflicting cell is resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    Ours,
    Theirs,
    /// This exact value, as text in the field's type.
    Value(String),
}

/// Resolutions by (table, key, column), as written in the conflict file.
pub type Resolutions = HashMap<(String, String, String), Resolution>;

/// The key of a row as written in the conflict file: canonical values joined by `|`.
pub fn key_text(key: &[Value]) -> String {
    key.iter()
        .map(Value::canonical)
        .collect::<Vec<_>>()
        .join(&LIST_SEPARATOR.to_string())
}

/// Apply the resolutions to one merged table; the conflicts still unresolved, and the
/// number resolved. A `value` that is not of the field's type is an error naming it.
pub fn apply(
    schema: &TableSchema,
    table: &mut Table,
    conflicts: Vec<Conflict>,
    resolutions: &Resolutions,
) -> Result<(Vec<Conflict>, usize), String> {
    let mut unresolved = Vec::new();
    let mut resolved = 0;
    let mut remove: Vec<Vec<Value>> = Vec::new();
    // Only resolved conflicts need their rows found.
    let wanted: std::collections::HashSet<&Vec<Value>> = conflicts
        .iter()
        .filter(|c| {
            let column = schema.fields[c.field].name.clone();
            resolutions.contains_key(&(schema.name.clone(), key_text(&c.key), column))
        })
        .map(|c| &c.key)
        .collect();
    let rows: HashMap<Vec<Value>, usize> = if wanted.is_empty() {
        HashMap::new()
    } else {
        (0..table.row_count())
            .map(|row| (row_key(schema, table, row), row))
            .filter(|(key, _)| wanted.contains(key))
            .collect()
    };
    for conflict in conflicts {
        let column = schema.fields[conflict.field].name.clone();
        let key = key_text(&conflict.key);
        let resolution = resolutions.get(&(schema.name.clone(), key.clone(), column.clone()));
        // A new column's missing value is settled only by a value.
        let settles = match (conflict.kind, resolution) {
            (_, None) => false,
            (ConflictKind::NewColumnWithoutValue, Some(r)) => matches!(r, Resolution::Value(_)),
            _ => true,
        };
        let Some(resolution) = resolution.filter(|_| settles) else {
            unresolved.push(conflict);
            continue;
        };
        resolved += 1;
        let row = rows.get(&conflict.key).copied();
        match (conflict.kind, resolution) {
            // The row's fate: the deletion wins.
            (ConflictKind::DeletedUpstream, Resolution::Theirs)
            | (ConflictKind::DeletedInRegion, Resolution::Ours) => {
                remove.push(conflict.key.clone());
            }
            // The merged table already holds the region's cell (or, for a row the
            // region deleted, upstream's row): nothing to change.
            (
                ConflictKind::Cell
                | ConflictKind::BothAdded
                | ConflictKind::DeletedUpstream
                | ConflictKind::NewColumnWithoutValue,
                Resolution::Ours,
            )
            | (
                ConflictKind::DeletedInRegion | ConflictKind::NewColumnWithoutValue,
                Resolution::Theirs,
            ) => {}
            (ConflictKind::Cell | ConflictKind::BothAdded, Resolution::Theirs) => {
                if let (Some(row), Some(value)) = (row, conflict.theirs.clone()) {
                    table.columns[conflict.field][row] = value;
                }
            }
            (_, Resolution::Value(text)) => {
                let field = &schema.fields[conflict.field];
                let value = parse_text_in(&field.ty, text, Some(&field.zone)).map_err(|m| {
                    format!(
                        "conflicts.csv: {} ({key}) {column}: `{text}` is not {}",
                        schema.name, m.expected
                    )
                })?;
                if let Some(row) = row {
                    table.columns[conflict.field][row] = value;
                }
            }
        }
    }
    if !remove.is_empty() {
        let keep: Vec<usize> = (0..table.row_count())
            .filter(|&row| !remove.contains(&row_key(schema, table, row)))
            .collect();
        for column in &mut table.columns {
            *column = keep.iter().map(|&row| column[row].clone()).collect();
        }
        table.origin.rows = keep.iter().map(|&row| table.origin.rows[row]).collect();
    }
    Ok((unresolved, resolved))
}
