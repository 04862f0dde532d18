//! The keyed three-way merge of one table (DESIGN §5): base = upstream at the import
//! point, theirs = upstream now, ours = the region's head.
//!
//! Rows are matched by primary key and cells by field. A change on one side only is
//! taken; the same change on both sides is taken; different changes are a conflict.
//! Deleting a row the other side edited is a conflict; both sides adding a key with
//! different cells is a conflict, cell by cell. Region-owned columns always keep the
//! region's value; a region-owned table is the region's entirely (rows upstream deleted
//! stay, rows upstream added do not arrive). Nothing that differs on both sides is ever
//! resolved silently: it is in [`TableMerge::conflicts`], and the merged table holds the
//! region's value there until a resolution says otherwise.
//!
//! All three tables are typed against the same schema (the merged one).

use std::collections::HashMap;
use std::path::PathBuf;

use masterctl_schemas::table::{Origin, SourceFormat};
use masterctl_schemas::{Table, TableSchema, Value};

/// What the region owns of a table (`owns` in masterctl.toml).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ownership {
    /// The whole table is the region's.
    pub table: bool,
    /// Field indexes the region owns.
    pub columns: Vec<usize>,
}

impl Ownership {
    /// The ownership of `table` under a region's `owns` list.
    pub fn of(schema: &TableSchema, owns: &[String]) -> Ownership {
        let mut ownership = Ownership::default();
        for owned in owns {
            match owned.split_once('.') {
                None if owned == &schema.name => ownership.table = true,
                Some((table, column)) if table == schema.name => {
                    if let Some(field) = schema.field_index(column) {
                        ownership.columns.push(field);
                    }
                }
                _ => {}
            }
        }
        ownership
    }
}

/// Why a cell (or a row) could not be merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictKind {
    /// Both sides changed the cell, differently.
    Cell,
    /// Upstream deleted the row; the region changed it.
    DeletedUpstream,
    /// The region deleted the row; upstream changed it.
    DeletedInRegion,
    /// Both sides added the key, with different values in this cell.
    BothAdded,
}

/// One conflicting cell (for a deleted row: every cell the other side changed).
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    pub kind: ConflictKind,
    pub key: Vec<Value>,
    pub field: usize,
    pub base: Option<Value>,
    pub ours: Option<Value>,
    pub theirs: Option<Value>,
}

/// The result of merging one table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableMerge {
    /// The merged rows, in key order; conflicting cells hold the region's value (a row
    /// in a delete/modify conflict is kept as the side that still has it).
    pub table: Table,
    pub conflicts: Vec<Conflict>,
    /// Cells taken from upstream, rows added or deleted by upstream.
    pub applied: usize,
    /// Upstream changes not taken because the region owns the column or table.
    pub kept: usize,
}

/// Where each key sits in a table.
fn index(schema: &TableSchema, table: &Table) -> HashMap<Vec<Value>, usize> {
    (0..table.row_count())
        .map(|row| (table.key(row, &schema.primary_key), row))
        .collect()
}

fn row_values(table: &Table, row: usize) -> Vec<Value> {
    table.row(row).cloned().collect()
}

/// Merge one table. `base` is `None` when the table did not exist at the import point
/// (then both sides' rows count as added).
pub fn merge_table(
    schema: &TableSchema,
    base: Option<&Table>,
    theirs: &Table,
    ours: &Table,
    ownership: &Ownership,
) -> TableMerge {
    let empty = empty_like(schema, ours);
    let base = base.unwrap_or(&empty);
    let (b_index, t_index, o_index) = (
        index(schema, base),
        index(schema, theirs),
        index(schema, ours),
    );
    // Every key of any side, in typed key order.
    let mut keys: Vec<&Vec<Value>> = b_index
        .keys()
        .chain(t_index.keys())
        .chain(o_index.keys())
        .collect();
    keys.sort();
    keys.dedup();

    let mut merged: Vec<Vec<Value>> = Vec::with_capacity(keys.len());
    let mut conflicts = Vec::new();
    let (mut applied, mut kept) = (0, 0);
    let owned = |field: usize| ownership.columns.contains(&field);
    for key in keys {
        let b = b_index.get(key).map(|&r| row_values(base, r));
        let t = t_index.get(key).map(|&r| row_values(theirs, r));
        let o = o_index.get(key).map(|&r| row_values(ours, r));
        if ownership.table {
            if t != o {
                kept += 1;
            }
            merged.extend(o);
            continue;
        }
        match (b, t, o) {
            (_, None, None) => {}
            (None, Some(t), None) => {
                applied += 1;
                merged.push(t);
            }
            (None, None, Some(o)) => merged.push(o),
            (None, Some(t), Some(o)) => {
                for field in 0..o.len() {
                    if t[field] == o[field] {
                        continue;
                    }
                    if owned(field) {
                        kept += 1;
                    } else {
                        conflicts.push(Conflict {
                            kind: ConflictKind::BothAdded,
                            key: key.clone(),
                            field,
                            base: None,
                            ours: Some(o[field].clone()),
                            theirs: Some(t[field].clone()),
                        });
                    }
                }
                merged.push(o);
            }
            (Some(b), None, Some(o)) => {
                // Upstream deleted the row: gone, unless the region changed it.
                let changed: Vec<usize> = (0..o.len())
                    .filter(|&f| o[f] != b[f] && !owned(f))
                    .collect();
                if changed.is_empty() {
                    applied += 1;
                } else {
                    for field in changed {
                        conflicts.push(Conflict {
                            kind: ConflictKind::DeletedUpstream,
                            key: key.clone(),
                            field,
                            base: Some(b[field].clone()),
                            ours: Some(o[field].clone()),
                            theirs: None,
                        });
                    }
                    merged.push(o);
                }
            }
            (Some(b), Some(t), None) => {
                // The region deleted the row: it stays deleted, unless upstream changed it.
                let changed: Vec<usize> = (0..t.len())
                    .filter(|&f| t[f] != b[f] && !owned(f))
                    .collect();
                if !changed.is_empty() {
                    for field in changed {
                        conflicts.push(Conflict {
                            kind: ConflictKind::DeletedInRegion,
                            key: key.clone(),
                            field,
                            base: Some(b[field].clone()),
                            ours: None,
                            theirs: Some(t[field].clone()),
                        });
                    }
                    merged.push(t);
                }
            }
            (Some(b), Some(t), Some(o)) => {
                let mut row = o.clone();
                for field in 0..row.len() {
                    let (bv, tv, ov) = (&b[field], &t[field], &o[field]);
                    if tv == bv || tv == ov {
                        continue; // upstream did not change it, or both made the same change
                    }
                    if owned(field) {
                        kept += 1;
                    } else if ov == bv {
                        row[field] = tv.clone();
                        applied += 1;
                    } else {
                        conflicts.push(Conflict {
                            kind: ConflictKind::Cell,
                            key: key.clone(),
                            field,
                            base: Some(bv.clone()),
                            ours: Some(ov.clone()),
                            theirs: Some(tv.clone()),
                        });
                    }
                }
                merged.push(row);
            }
        }
    }
    TableMerge {
        table: from_rows(schema, ours, merged),
        conflicts,
        applied,
        kept,
    }
}

/// A table of the schema with no rows, named like `like`.
fn empty_like(schema: &TableSchema, like: &Table) -> Table {
    from_rows(schema, like, Vec::new())
}

/// Build a table from rows of values in field order.
fn from_rows(schema: &TableSchema, like: &Table, rows: Vec<Vec<Value>>) -> Table {
    let mut columns: Vec<Vec<Value>> = (0..schema.fields.len())
        .map(|_| Vec::with_capacity(rows.len()))
        .collect();
    let count = rows.len();
    for row in rows {
        for (field, value) in row.into_iter().enumerate() {
            if let Some(column) = columns.get_mut(field) {
                column.push(value);
            }
        }
    }
    Table {
        name: like.name.clone(),
        columns,
        origin: Origin {
            file: PathBuf::from(format!("tables/{}.csv", like.name)),
            format: SourceFormat::Csv,
            columns: (0..schema.fields.len())
                .map(|f| u32::try_from(f).ok())
                .collect(),
            rows: (2..count as u64 + 2).collect(),
        },
    }
}
