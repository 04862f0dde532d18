//! The vertical layout: field names written down a column and each record's values in a
//! column beside them (Luban's `##column` sheets, a studio's constants sheet), presented
//! to typing as the ordinary layout — a header row and a row per record.
//!
//! A singleton's sheet is vertical when its first cell marks it so (`##column`,
//! `##var#column`, `##column#var`), or when its first column names more of the table's
//! fields than any row does; its one record is the first values column. Another table's
//! sheet is vertical only when marked so, every values column a record (Luban's keyed
//! table written down a column). Rows above the first one naming a field are the layout's
//! header: a column with a `#` cell there is notes (Luban's `##type`, `##`). The values
//! are in the first column right of the names that is not a comment. Rows whose name
//! cell starts with `#` are comments; a value beside an empty name goes on with the
//! multi-row field above it (more of its list), or is a value under no field, and said.

use crate::grid::{Cell, Grid};
use crate::schema::TableSchema;

/// A vertical sheet seen as a horizontal one: row 0 the names, row 1 the values; each
/// column one row of the sheet. Positions are the sheet's, swapped (see
/// [`crate::table::Origin::vertical`]).
pub struct Vertical<'g> {
    grid: &'g dyn Grid,
    /// The sheet rows that hold a field (or a value under no name), top to bottom.
    rows: Vec<usize>,
    /// Rows without a name below a multi-row field's: the field and the sheet row.
    continued: Vec<(usize, usize)>,
    names: usize,
    /// The sheet columns holding records, left to right (a singleton's: one).
    values: Vec<usize>,
}

impl<'g> Vertical<'g> {
    /// The sheet as a vertical singleton, when it is one.
    pub fn find(schema: &TableSchema, grid: &'g dyn Grid) -> Option<Vertical<'g>> {
        let names = 0;
        let marked = grid.height() > 0 && is_marker(grid.cell(0, names));
        let singleton = schema.kind == crate::schema::TableKind::Singleton;
        if !singleton && !marked {
            return None;
        }
        let names_field = |row: usize, column: usize| match grid.cell(row, column) {
            Cell::Text(text) => {
                let text = text.trim();
                schema
                    .fields
                    .iter()
                    .any(|f| f.name.eq_ignore_ascii_case(text) || f.is_headed(text))
            }
            _ => false,
        };
        let first_field_row = (0..grid.height()).find(|&row| names_field(row, names))?;
        if !marked {
            let down = (0..grid.height())
                .filter(|&row| names_field(row, names))
                .count();
            let across = (0..grid.height())
                .map(|row| {
                    (0..grid.width(row))
                        .filter(|&c| names_field(row, c))
                        .count()
                })
                .max()
                .unwrap_or(0);
            if down <= across {
                return None;
            }
        }
        // Rows above the first field make the header: a column with a `#` cell there is
        // notes (Luban's `##type`, `##`).
        let width = (first_field_row..grid.height())
            .map(|row| grid.width(row))
            .max()
            .unwrap_or(0);
        let is_notes =
            |column: usize| (0..first_field_row).any(|row| grid.cell(row, column).is_comment());
        let mut values: Vec<usize> = (names + 1..width.max(names + 2))
            .filter(|&c| !is_notes(c))
            .collect();
        if singleton {
            values.truncate(1);
        }
        let first_values = *values.first()?;
        // A row without a name below a multi-row field's goes on with its list.
        let (mut rows, mut continued) = (Vec::new(), Vec::new());
        let mut multi_row: Option<usize> = None;
        for row in first_field_row..grid.height() {
            let name = grid.cell(row, names);
            if name.is_comment() {
                continue;
            }
            if name.is_empty() {
                let holds_values = values.iter().any(|&c| !grid.cell(row, c).is_empty());
                match multi_row {
                    _ if !holds_values => {}
                    Some(field) => continued.push((field, row)),
                    None => rows.push(row),
                }
                continue;
            }
            let text = name.display();
            let text = text.trim();
            multi_row = schema
                .headed_field(text)
                .or_else(|| text.strip_prefix('*').and_then(|n| schema.field_index(n)))
                .filter(|&f| schema.fields[f].multi_row);
            rows.push(row);
        }
        // A keyed table's records: the values columns holding a value.
        values.retain(|&c| c == first_values || rows.iter().any(|&r| !grid.cell(r, c).is_empty()));
        Some(Vertical {
            grid,
            rows,
            continued,
            names,
            values,
        })
    }

    /// The rows without a name that go on with a multi-row field's list in the record
    /// of values column `record` (0: the first): the field, and its value's cell there
    /// (sheet row and column, as the sheet numbers them), when it holds one.
    pub fn continued(
        &self,
        record: usize,
    ) -> impl Iterator<Item = (usize, Cell<'_>, u64, u32)> + '_ {
        let column = self.values.get(record).copied();
        self.continued.iter().filter_map(move |&(field, row)| {
            let column = column?;
            let cell = self.grid.cell(row, column);
            (!cell.is_empty()).then(|| {
                let at = (
                    self.grid.row_position(row),
                    self.grid.column_position(column),
                );
                (field, cell, at.0, at.1)
            })
        })
    }
}

/// `##column`, `##var#column`, `##column#var`: Luban's mark of a vertical sheet.
pub(crate) fn is_marker(cell: Cell<'_>) -> bool {
    match cell {
        Cell::Text(text) => {
            let text = text.trim();
            text.starts_with("##")
                && text
                    .split('#')
                    .any(|part| part.eq_ignore_ascii_case("column"))
        }
        _ => false,
    }
}

impl Grid for Vertical<'_> {
    fn height(&self) -> usize {
        1 + self.values.len()
    }

    fn width(&self, _row: usize) -> usize {
        self.rows.len()
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let Some(&sheet_row) = self.rows.get(column) else {
            return Cell::Empty;
        };
        match row {
            0 => self.grid.cell(sheet_row, self.names),
            record => self
                .values
                .get(record - 1)
                .map_or(Cell::Empty, |&values| self.grid.cell(sheet_row, values)),
        }
    }

    fn row_position(&self, row: usize) -> u64 {
        let column = match row {
            0 => self.names,
            record => self.values.get(record - 1).copied().unwrap_or(self.names),
        };
        u64::from(self.grid.column_position(column))
    }

    fn column_position(&self, column: usize) -> u32 {
        self.rows.get(column).map_or(u32::MAX, |&row| {
            u32::try_from(self.grid.row_position(row)).unwrap_or(u32::MAX)
        })
    }
}
