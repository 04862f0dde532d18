//! The keyed three-way merge of one table (README "Regions"): base = upstream at the import
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
//! All three tables are typed against the same schema (the merged one). A list (no
//! key) merges by place instead ([`list`]); a singleton is its one record, merged as a
//! row is.

mod lines;

pub use lines::{LinesMerge, merge_canonical, merge_canonical_files};
pub(crate) use lines::{canonical_lines, line_shape};

use std::cmp::Ordering;
use std::path::PathBuf;

use masterctl_schemas::canonical::key_order;
use masterctl_schemas::schema::TableKind;
use masterctl_schemas::table::{Origin, SourceFormat};
use masterctl_schemas::{Table, TableSchema, Value};

mod list;

/// What names a row in a conflict: its primary key; a list's row, its place (`[3]` for
/// the third); a singleton's one record, nothing.
pub fn row_key(schema: &TableSchema, table: &Table, row: usize) -> Vec<Value> {
    match schema.kind {
        TableKind::List => vec![Value::Int(row as i64 + 1)],
        _ => table.key(row, &schema.primary_key),
    }
}

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ConflictKind {
    /// Both sides changed the cell, differently.
    Cell,
    /// Upstream deleted the row; the region changed it.
    DeletedUpstream,
    /// The region deleted the row; upstream changed it.
    DeletedInRegion,
    /// Both sides added the key, with different values in this cell.
    BothAdded,
    /// Upstream added a required column without default; this region-only row has no
    /// value for it (only a `value` resolution settles it).
    NewColumnWithoutValue,
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
    /// Rows upstream added whose cells in the region's own columns hold upstream's
    /// values (the region had none to keep): the region sets them itself.
    pub seeded: usize,
}

/// The three versions of a row, by index: at the import point, upstream now, the region.
const B: usize = 0;
const T: usize = 1;
const O: usize = 2;

/// Where a merged row comes from.
enum RowChoice {
    /// No row (deleted).
    Drop,
    /// One version's row as it is.
    Whole(usize),
    /// Each field from the version given.
    Cells(Vec<usize>),
}

/// The decision for one key: the row, its conflicts (kind and field; the values are
/// each version's cell) and the upstream changes applied and kept.
struct RowMerge {
    choice: RowChoice,
    conflicts: Vec<(ConflictKind, usize)>,
    applied: usize,
    kept: usize,
}

/// The merge rules for one key, whatever a cell is (a typed value, canonical text):
/// `present` says which versions hold the key, `cell(version, field)` reads a cell of a
/// version that holds it. Ownership of the whole table is decided by the caller.
fn merge_row<C: PartialEq>(
    present: [bool; 3],
    fields: usize,
    cell: impl Fn(usize, usize) -> Option<C>,
    owned: impl Fn(usize) -> bool,
) -> RowMerge {
    let mut row = RowMerge {
        choice: RowChoice::Drop,
        conflicts: Vec::new(),
        applied: 0,
        kept: 0,
    };
    // Fields where `side` differs from `other`, not owned by the region.
    let changed = |side: usize, other: usize| -> Vec<usize> {
        (0..fields)
            .filter(|&f| cell(side, f) != cell(other, f) && !owned(f))
            .collect()
    };
    match present {
        [_, false, false] => {}
        [false, true, false] => {
            row.applied = 1;
            row.choice = RowChoice::Whole(T);
        }
        [false, false, true] => row.choice = RowChoice::Whole(O),
        [false, true, true] => {
            // Both added the key: every differing cell conflicts, unless the region owns it.
            for field in 0..fields {
                if cell(T, field) == cell(O, field) {
                    continue;
                }
                if owned(field) {
                    row.kept += 1;
                } else {
                    row.conflicts.push((ConflictKind::BothAdded, field));
                }
            }
            row.choice = RowChoice::Whole(O);
        }
        [true, false, true] => {
            // Upstream deleted the row: gone, unless the region changed it.
            let edited = changed(O, B);
            if edited.is_empty() {
                row.applied = 1;
            } else {
                row.conflicts.extend(
                    edited
                        .into_iter()
                        .map(|f| (ConflictKind::DeletedUpstream, f)),
                );
                row.choice = RowChoice::Whole(O);
            }
        }
        [true, true, false] => {
            // The region deleted the row: it stays deleted, unless upstream changed it.
            let edited = changed(T, B);
            if !edited.is_empty() {
                row.conflicts.extend(
                    edited
                        .into_iter()
                        .map(|f| (ConflictKind::DeletedInRegion, f)),
                );
                row.choice = RowChoice::Whole(T);
            }
        }
        [true, true, true] => {
            let mut sides = vec![O; fields];
            for (field, side) in sides.iter_mut().enumerate() {
                let (b, t, o) = (cell(B, field), cell(T, field), cell(O, field));
                if t == b || t == o {
                    continue; // upstream did not change it, or both made the same change
                }
                if owned(field) {
                    row.kept += 1;
                } else if o == b {
                    row.applied += 1;
                    *side = T;
                } else {
                    row.conflicts.push((ConflictKind::Cell, field));
                }
            }
            row.choice = if sides.contains(&T) {
                RowChoice::Cells(sides)
            } else {
                RowChoice::Whole(O)
            };
        }
    }
    row
}

/// Merge one table. `base` is `None` when the table did not exist at the import point
/// (then both sides' rows count as added).
///
/// The three versions are walked side by side in primary-key order and compared in
/// place; only the merged rows are copied.
pub fn merge_table(
    schema: &TableSchema,
    base: Option<&Table>,
    theirs: &Table,
    ours: &Table,
    ownership: &Ownership,
) -> TableMerge {
    let empty = empty_like(schema, ours);
    let tables = [base.unwrap_or(&empty), theirs, ours];
    if schema.kind == TableKind::List {
        return list::merge_list(schema, tables, ownership);
    }
    let orders = tables.map(|t| key_order(schema, t));
    let key_cmp = |a: (usize, usize), b: (usize, usize)| {
        schema
            .primary_key
            .iter()
            .map(|&k| tables[a.0].value(a.1, k).cmp(tables[b.0].value(b.1, k)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    };
    let fields = schema.fields.len();
    let same_row = |a: (usize, usize), b: (usize, usize)| {
        (0..fields).all(|f| tables[a.0].value(a.1, f) == tables[b.0].value(b.1, f))
    };
    let owned = |field: usize| ownership.columns.contains(&field);

    let mut columns: Vec<Vec<Value>> = (0..fields)
        .map(|_| Vec::with_capacity(ours.row_count().max(theirs.row_count())))
        .collect();
    let mut conflicts = Vec::new();
    let (mut applied, mut kept, mut seeded) = (0, 0, 0);
    let mut position = [0usize; 3];
    loop {
        let heads: [Option<usize>; 3] =
            [B, T, O].map(|side| orders[side].get(position[side]).copied());
        // The smallest key among the three heads, and which sides hold it.
        let mut smallest: Option<(usize, usize)> = None;
        for side in [B, T, O] {
            if let Some(row) = heads[side]
                && smallest.is_none_or(|m| key_cmp((side, row), m) == Ordering::Less)
            {
                smallest = Some((side, row));
            }
        }
        let Some(key_at) = smallest else { break };
        let at: [Option<usize>; 3] = [B, T, O]
            .map(|side| heads[side].filter(|&row| key_cmp((side, row), key_at) == Ordering::Equal));
        for side in [B, T, O] {
            if at[side].is_some() {
                position[side] += 1;
            }
        }
        let key = || tables[key_at.0].key(key_at.1, &schema.primary_key);
        let mut push_row = |side: usize, row: usize| {
            for (field, column) in columns.iter_mut().enumerate() {
                column.push(tables[side].value(row, field).clone());
            }
        };
        if ownership.table {
            // The region's table: its rows as they are, upstream's changes not taken.
            let upstream_differs = match (at[T], at[O]) {
                (Some(t), Some(o)) => !same_row((T, t), (O, o)),
                (None, None) => false,
                _ => true,
            };
            if upstream_differs {
                kept += 1;
            }
            if let Some(o) = at[O] {
                push_row(O, o);
            }
            continue;
        }
        let present = at.map(|row| row.is_some());
        if present == [false, true, false] && !ownership.columns.is_empty() {
            seeded += 1;
        }
        let cell = |side: usize, field: usize| at[side].map(|row| tables[side].value(row, field));
        let row = merge_row(present, fields, cell, owned);
        applied += row.applied;
        kept += row.kept;
        settle(row, at, tables, key, &mut columns, &mut conflicts);
    }
    TableMerge {
        table: from_columns(schema, ours, columns),
        conflicts,
        applied,
        kept,
        seeded,
    }
}

/// A merged row's outcome carried out: its conflicts recorded under `key` with the
/// three versions' cells, its values pushed onto `columns`. `at`: the row's place in
/// each version that has it; `key` is asked only when there is a conflict.
fn settle(
    row: RowMerge,
    at: [Option<usize>; 3],
    tables: [&Table; 3],
    key: impl Fn() -> Vec<Value>,
    columns: &mut [Vec<Value>],
    conflicts: &mut Vec<Conflict>,
) {
    let cell = |side: usize, field: usize| at[side].map(|row| tables[side].value(row, field));
    for &(kind, field) in &row.conflicts {
        conflicts.push(Conflict {
            kind,
            key: key(),
            field,
            base: cell(B, field).cloned(),
            ours: cell(O, field).cloned(),
            theirs: cell(T, field).cloned(),
        });
    }
    let side_of = |field: usize| match &row.choice {
        RowChoice::Cells(sides) => sides[field],
        RowChoice::Whole(side) => *side,
        RowChoice::Drop => O,
    };
    if matches!(row.choice, RowChoice::Drop) {
        return;
    }
    for (field, column) in columns.iter_mut().enumerate() {
        let side = side_of(field);
        let row = at[side].unwrap_or_default();
        column.push(tables[side].value(row, field).clone());
    }
}

/// A table of the schema with no rows, named like `like`.
fn empty_like(schema: &TableSchema, like: &Table) -> Table {
    from_columns(
        schema,
        like,
        (0..schema.fields.len()).map(|_| Vec::new()).collect(),
    )
}

/// A table from columns of values in field order, named like `like`.
fn from_columns(schema: &TableSchema, like: &Table, columns: Vec<Vec<Value>>) -> Table {
    let count = columns.first().map_or(0, Vec::len);
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
            vertical: false,
            kept_in: None,
            sheets: None,
        },
    }
}
