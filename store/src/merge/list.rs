//! The three-way merge of a list (a table without a key), by place.
//!
//! Each side is aligned with the base as `git diff` aligns lines: the longest run of
//! rows it left unchanged, in order. Rows both sides left in place are the fixed points;
//! between two of them lies a stretch each side may have changed:
//!
//! - changed by one side only: that side's rows (upstream's are taken, the region's kept);
//! - changed the same way by both: taken once;
//! - rows both sides inserted at the same place (no base row there): the region's rows,
//!   then upstream's;
//! - anything else: the stretch's rows paired in order (the first base row with each
//!   side's first row there, and so on) and merged cell by cell like keyed rows — a
//!   cell changed by one side is taken, by both differently a conflict, a row one side
//!   removed and the other changed a conflict.
//!
//! A conflict names its row by its place in the merged list (`3`: the third row), which
//! the conflict file and `--continue` use.

use masterctl_schemas::{Table, TableSchema, Value};
use std::collections::HashMap;

use super::{B, Conflict, O, Ownership, T, TableMerge, from_columns, merge_row, settle};

/// Merge one list. `base` holds no rows when the table did not exist at the import point.
pub(super) fn merge_list(
    schema: &TableSchema,
    tables: [&Table; 3],
    ownership: &Ownership,
) -> TableMerge {
    let fields = schema.fields.len();
    let ids = row_ids(tables, fields);
    let ours_at = aligned(&ids[B], &ids[O]);
    let theirs_at = aligned(&ids[B], &ids[T]);
    let mut merged = Merged {
        tables,
        ids: &ids,
        columns: (0..fields)
            .map(|_| Vec::with_capacity(tables[O].row_count().max(tables[T].row_count())))
            .collect(),
        conflicts: Vec::new(),
        applied: 0,
        kept: 0,
        seeded: 0,
        ownership,
    };
    let mut start = [0usize; 3];
    // Fixed points: base rows both sides kept, in order.
    let fixed = (0..ids[B].len()).filter_map(|b| Some([b, theirs_at[b]?, ours_at[b]?]));
    for end in fixed.chain(std::iter::once([ids[B].len(), ids[T].len(), ids[O].len()])) {
        // Past a fixed point a side might have moved (a row matched earlier on one side
        // than on the other): such a point is no fixed point.
        if (0..3).any(|side| end[side] < start[side]) {
            continue;
        }
        merged.stretch(start, end);
        if end[B] < ids[B].len() {
            merged.push(O, end[O]);
        }
        start = end.map(|at| at + 1);
    }
    TableMerge {
        table: from_columns(schema, tables[O], merged.columns),
        conflicts: merged.conflicts,
        applied: merged.applied,
        kept: merged.kept,
        seeded: merged.seeded,
    }
}

/// Every row of the three versions as a number, equal rows the same number.
fn row_ids(tables: [&Table; 3], fields: usize) -> [Vec<u32>; 3] {
    let mut seen: HashMap<Vec<&Value>, u32> = HashMap::new();
    tables.map(|table| {
        (0..table.row_count())
            .map(|row| {
                let cells: Vec<&Value> = (0..fields).map(|f| table.value(row, f)).collect();
                let next = seen.len() as u32;
                *seen.entry(cells).or_insert(next)
            })
            .collect()
    })
}

/// For each base row, the row of `side` it is aligned with (kept unchanged), if any.
fn aligned(base: &[u32], side: &[u32]) -> Vec<Option<usize>> {
    let mut at = vec![None; base.len()];
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, base, side) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for i in 0..len {
                at[old_index + i] = Some(new_index + i);
            }
        }
    }
    at
}

/// The merged list as it grows.
struct Merged<'a> {
    tables: [&'a Table; 3],
    ids: &'a [Vec<u32>; 3],
    columns: Vec<Vec<Value>>,
    conflicts: Vec<Conflict>,
    applied: usize,
    kept: usize,
    seeded: usize,
    ownership: &'a Ownership,
}

impl Merged<'_> {
    fn push(&mut self, side: usize, row: usize) {
        for (field, column) in self.columns.iter_mut().enumerate() {
            column.push(self.tables[side].value(row, field).clone());
        }
    }

    /// The place the next row takes in the merged list, as its key.
    fn next_key(&self) -> Vec<Value> {
        let rows = self.columns.first().map_or(0, Vec::len);
        vec![Value::Int(rows as i64 + 1)]
    }

    /// Merge the rows between two fixed points (`start` included, `end` not).
    fn stretch(&mut self, start: [usize; 3], end: [usize; 3]) {
        let ranges = [0, 1, 2].map(|side| start[side]..end[side]);
        let ids = [0, 1, 2].map(|side| &self.ids[side][ranges[side].clone()]);
        if self.ownership.table {
            // The region's list: its rows as they are.
            if ids[T] != ids[B] {
                self.kept += 1;
            }
            ranges[O].clone().for_each(|row| self.push(O, row));
            return;
        }
        let owns_columns = !self.ownership.columns.is_empty();
        let (ours_changed, theirs_changed) = (ids[O] != ids[B], ids[T] != ids[B]);
        match (ours_changed, theirs_changed) {
            (false, false) => ranges[O].clone().for_each(|row| self.push(O, row)),
            (true, false) => ranges[O].clone().for_each(|row| self.push(O, row)),
            (false, true) if !owns_columns => {
                self.applied += ranges[T].len().max(ranges[B].len());
                ranges[T].clone().for_each(|row| self.push(T, row));
            }
            (true, true) if ids[O] == ids[T] => {
                ranges[O].clone().for_each(|row| self.push(O, row));
            }
            (true, true) if ranges[B].is_empty() => {
                // Both inserted here: the region's rows, then upstream's.
                self.applied += ranges[T].len();
                ranges[O].clone().for_each(|row| self.push(O, row));
                ranges[T].clone().for_each(|row| self.push(T, row));
            }
            _ => self.paired(ranges),
        }
    }

    /// The stretch's rows paired in order, each pair merged as keyed rows are.
    fn paired(&mut self, ranges: [std::ops::Range<usize>; 3]) {
        let fields = self.columns.len();
        let longest = ranges.iter().map(|r| r.len()).max().unwrap_or(0);
        for k in 0..longest {
            let at: [Option<usize>; 3] =
                [0, 1, 2].map(|side| (k < ranges[side].len()).then(|| ranges[side].start + k));
            let present = at.map(|row| row.is_some());
            if present == [false, true, false] && !self.ownership.columns.is_empty() {
                self.seeded += 1;
            }
            let tables = self.tables;
            let cell =
                |side: usize, field: usize| at[side].map(|row| tables[side].value(row, field));
            let owned = |field: usize| self.ownership.columns.contains(&field);
            let row = merge_row(present, fields, cell, owned);
            self.applied += row.applied;
            self.kept += row.kept;
            let key = self.next_key();
            settle(
                row,
                at,
                tables,
                || key.clone(),
                &mut self.columns,
                &mut self.conflicts,
            );
        }
    }
}
