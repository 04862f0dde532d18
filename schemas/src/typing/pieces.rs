//! A large sheet typed on every core: once its header is read and its rows stand alone
//! ([`TableBuilder::settled`]), the rest is cut into pieces that follow each other, and
//! each piece is typed by a builder of its own straight into its place in the table's
//! columns (each piece is given as many slots as it has lines). The pieces' rows are
//! then the table's, in order; their diagnostics follow in order too, with a column
//! without a header still reported once.

use std::sync::{Mutex, PoisonError};

use masterctl_runtime::parallel::parallel_map;

use super::TableBuilder;
use super::slots::Slots;
use crate::diagnostic::Diagnostic;
use crate::value::Value;

/// What a piece's builder leaves once its values are in place.
struct Typed {
    rows: usize,
    diagnostics: Vec<Diagnostic>,
    stray_reports: Vec<(usize, usize)>,
    /// Its cells (row within the piece, field) whose mistakes were said.
    wrong: std::collections::HashSet<(usize, usize)>,
}

impl<'s> TableBuilder<'s> {
    /// Type `pieces` (consecutive parts of the sheet, after the rows this builder has
    /// taken) on every core: `bound` says how many rows a piece can hold at most, and
    /// `push` feeds a piece's rows to the builder it is given. Call once
    /// [`TableBuilder::settled`].
    pub fn push_pieces<P: Sync>(
        &mut self,
        pieces: &[P],
        bound: impl Fn(&P) -> usize,
        push: impl Fn(&P, &mut TableBuilder<'_>) + Sync + Send,
    ) {
        debug_assert!(self.settled(), "only a settled sheet is typed in pieces");
        let bounds: Vec<usize> = pieces.iter().map(bound).collect();
        let total: usize = bounds.iter().sum();
        let mut first_row = self.rows.len();
        self.reserve(total);
        let typed = self.type_in_place(pieces, &bounds, push);
        self.take_places(total);
        self.drop_padding(&bounds, &typed);
        for piece in typed {
            let wrong = piece
                .wrong
                .iter()
                .map(|&(row, field)| (first_row + row, field));
            self.wrong.extend(wrong);
            first_row += piece.rows;
            self.take_diagnostics(piece.diagnostics, piece.stray_reports);
        }
    }

    /// Each piece typed into its slots, on every core; every slot written.
    fn type_in_place<P: Sync>(
        &mut self,
        pieces: &[P],
        bounds: &[usize],
        push: impl Fn(&P, &mut TableBuilder<'_>) + Sync + Send,
    ) -> Vec<Typed> {
        let template = self.empty_copy();
        let mut columns: Vec<Vec<_>> = bounds.iter().map(|_| Vec::new()).collect();
        for column in &mut self.columns {
            for (piece, slots) in columns.iter_mut().zip(split(column, bounds)) {
                piece.push(slots);
            }
        }
        let rows = split(&mut self.rows, bounds);
        let builders: Vec<(&P, Mutex<TableBuilder<'_>>)> = pieces
            .iter()
            .zip(columns.into_iter().zip(rows))
            .map(|(piece, (columns, rows))| (piece, Mutex::new(template.placed(columns, rows))))
            .collect();
        parallel_map(&builders, |(piece, builder)| {
            let mut builder = builder.lock().unwrap_or_else(PoisonError::into_inner);
            push(piece, &mut builder);
            let rows = builder.rows.pad(|| 0);
            for column in &mut builder.columns {
                column.pad(|| Value::Null);
            }
            Typed {
                rows,
                diagnostics: std::mem::take(&mut builder.diagnostics),
                stray_reports: std::mem::take(&mut builder.stray_reports),
                wrong: std::mem::take(&mut builder.wrong),
            }
        })
    }

    /// The slots the pieces wrote become the vectors' values.
    fn take_places(&mut self, total: usize) {
        for values in self.columns.iter_mut().filter_map(Slots::own_mut) {
            grow_into_written(values, total);
        }
        if let Some(rows) = self.rows.own_mut() {
            grow_into_written(rows, total);
        }
    }

    /// The slots a piece had no row for (its empty lines, its comment rows) removed.
    fn drop_padding(&mut self, bounds: &[usize], typed: &[Typed]) {
        let mut at = self.rows.len() - bounds.iter().sum::<usize>();
        let mut gaps = Vec::new();
        for (bound, piece) in bounds.iter().zip(typed) {
            if piece.rows < *bound {
                gaps.push((at + piece.rows, at + bound));
            }
            at += bound;
        }
        if gaps.is_empty() {
            return;
        }
        for values in self.columns.iter_mut().filter_map(Slots::own_mut) {
            remove_gaps(values, &gaps);
        }
        if let Some(rows) = self.rows.own_mut() {
            remove_gaps(rows, &gaps);
        }
    }

    /// A piece's diagnostics after this builder's own; a column without a header that
    /// an earlier piece reported is not reported again.
    fn take_diagnostics(&mut self, diagnostics: Vec<Diagnostic>, stray: Vec<(usize, usize)>) {
        let stray: std::collections::HashMap<usize, usize> = stray.into_iter().collect();
        for (index, diagnostic) in diagnostics.into_iter().enumerate() {
            if let Some(&column) = stray.get(&index) {
                if !self.reported_stray_columns.insert(column) {
                    continue;
                }
                self.stray_reports.push((self.diagnostics.len(), column));
            }
            self.diagnostics.push(diagnostic);
        }
    }

    /// A builder with this one's header and no rows or diagnostics.
    fn empty_copy(&self) -> TableBuilder<'s> {
        self.placed(Vec::new(), Slots::default())
    }

    /// This (empty) builder writing into slots placed elsewhere.
    fn placed<'p>(&self, columns: Vec<Slots<'p, Value>>, rows: Slots<'p, u64>) -> TableBuilder<'p>
    where
        's: 'p,
    {
        TableBuilder {
            schema: self.schema,
            origin: self.origin.clone(),
            columns,
            rows,
            header: self.header.clone(),
            diagnostics: Vec::new(),
            reported_stray_columns: self.reported_stray_columns.clone(),
            stray_reports: Vec::new(),
            looked_at: Vec::new(),
            after_header: false,
            type_row: None,
            after_meta: false,
            sheet_value: self.sheet_value.clone(),
            wrong: Default::default(),
        }
    }
}

/// A vector's spare capacity cut into consecutive places of `bounds` slots each.
fn split<'p, T>(slots: &'p mut Slots<'_, T>, bounds: &[usize]) -> Vec<Slots<'p, T>> {
    if let Slots::Unkept = slots {
        return bounds.iter().map(|_| Slots::Unkept).collect();
    }
    let Some(values) = slots.own_mut() else {
        unreachable!("pieces are placed only in a builder of its own");
    };
    let mut spare = values.spare_capacity_mut();
    bounds
        .iter()
        .map(|&bound| {
            let (here, rest) = std::mem::take(&mut spare).split_at_mut(bound);
            spare = rest;
            Slots::Placed {
                slots: here,
                filled: 0,
            }
        })
        .collect()
}

/// The values outside `gaps` (ranges of indexes, in order), in one pass.
fn remove_gaps<T>(values: &mut Vec<T>, gaps: &[(usize, usize)]) {
    let (mut index, mut gap) = (0, 0);
    values.retain(|_| {
        while gaps.get(gap).is_some_and(|&(_, end)| index >= end) {
            gap += 1;
        }
        let kept = gaps.get(gap).is_none_or(|&(start, _)| index < start);
        index += 1;
        kept
    });
}

/// The vector's next `total` slots, all written by the pieces placed in them, become
/// its values.
fn grow_into_written<T>(values: &mut Vec<T>, total: usize) {
    assert!(values.capacity() - values.len() >= total);
    // SAFETY: `type_in_place` cut exactly these `total` slots of spare capacity into
    // the pieces' places (`split`, the bounds summing to `total`), and every piece
    // wrote each slot of its place — its rows, then padding up to its bound — before
    // `parallel_map` returned; a panic in any piece reaches the caller before this, so
    // the length grows only over written values.
    unsafe { values.set_len(values.len() + total) }
}
