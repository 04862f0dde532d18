//! Generated masters as a server reads them: reverse lookups, groups, weighted draws and
//! matrices, all without allocating.

use rkyv::rend::u32_le;

use crate::format::{
    ArchivedGroupData, ArchivedMatrixData, ArchivedStringsData, ArchivedWeightedData,
};
use crate::table::{Rows, Table, ValueRef, cell};

/// A reverse lookup ("where can item X be obtained"): a table of references sorted by
/// the target's key.
#[derive(Clone, Copy)]
pub struct Reverse<'a> {
    pub(crate) table: Table<'a>,
}

impl<'a> Reverse<'a> {
    /// The references to one target key: rows with `source_table`, `source_key` and any
    /// extra columns.
    pub fn get(&self, target: ValueRef<'_>) -> Rows<'a> {
        match self.table.indexes().next() {
            Some(index) => index.eq(&[target]),
            None => Rows {
                table: self.table,
                ids: &[],
            },
        }
    }

    /// The lookup as a table.
    pub fn table(&self) -> Table<'a> {
        self.table
    }
}

/// Rows of a table grouped by key.
#[derive(Clone, Copy)]
pub struct Group<'a> {
    pub(crate) data: &'a ArchivedGroupData,
    /// The group keys, one row per group.
    pub(crate) keys: Table<'a>,
    /// The grouped table.
    pub(crate) table: Table<'a>,
}

impl<'a> Group<'a> {
    /// The number of groups.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The group keys, as a table (one row per group).
    pub fn keys(&self) -> Table<'a> {
        self.keys
    }

    /// The table whose rows are grouped.
    pub fn table(&self) -> Table<'a> {
        self.table
    }

    fn position(&self, key: &[ValueRef<'_>]) -> Option<usize> {
        self.keys.get(key).map(|row| row.index())
    }

    fn slice(&self, group: usize) -> &'a [u32_le] {
        let offsets = &self.data.offsets;
        match (offsets.get(group), offsets.get(group + 1)) {
            (Some(start), Some(end)) => self
                .data
                .rows
                .get(start.to_native() as usize..end.to_native() as usize)
                .unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The rows of one group, in the group's order (empty when there is no such group).
    pub fn get(&self, key: &[ValueRef<'_>]) -> Rows<'a> {
        let ids = self.position(key).map_or(&[][..], |g| self.slice(g));
        Rows {
            table: self.table,
            ids,
        }
    }
}

/// Groups of rows with cumulative weights: O(log n) weighted draws.
#[derive(Clone, Copy)]
pub struct Weighted<'a> {
    pub(crate) data: &'a ArchivedWeightedData,
    pub(crate) group: Group<'a>,
}

impl<'a> Weighted<'a> {
    /// The groups, as a [`Group`].
    pub fn group(&self) -> Group<'a> {
        self.group
    }

    /// The sum of a group's weights.
    pub fn total(&self, key: &[ValueRef<'_>]) -> Option<f64> {
        let group = self.group.position(key)?;
        let end = self.group.data.offsets.get(group + 1)?.to_native() as usize;
        let start = self.group.data.offsets.get(group)?.to_native() as usize;
        (end > start).then(|| self.data.cumulative.get(end - 1).map(|c| c.to_native()))?
    }

    /// The row a draw picks, given a uniform random number `r` in [0, 1): each row with
    /// probability weight / total. `None` when there is no such group.
    pub fn draw(&self, key: &[ValueRef<'_>], r: f64) -> Option<crate::Row<'a>> {
        let group = self.group.position(key)?;
        let start = self.group.data.offsets.get(group)?.to_native() as usize;
        let end = self.group.data.offsets.get(group + 1)?.to_native() as usize;
        let cumulative = self.data.cumulative.get(start..end)?;
        let total = cumulative.last()?.to_native();
        let target = r.clamp(0.0, 1.0) * total;
        let at = cumulative
            .partition_point(|c| c.to_native() <= target)
            .min(cumulative.len() - 1);
        let id = self.group.data.rows.get(start + at)?;
        self.group.table.row(id.to_native() as usize)
    }

    /// [`Weighted::draw`] with a random `u64` (all bits used).
    pub fn draw_u64(&self, key: &[ValueRef<'_>], random: u64) -> Option<crate::Row<'a>> {
        self.draw(key, (random >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// A dense matrix over two enums.
#[derive(Clone, Copy)]
pub struct Matrix<'a> {
    pub(crate) data: &'a ArchivedMatrixData,
}

impl<'a> Matrix<'a> {
    pub fn rows(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        self.data.row_values.iter().map(|v| v.as_str())
    }

    pub fn columns(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        self.data.column_values.iter().map(|v| v.as_str())
    }

    /// The cell of a (row, column) pair of enum values.
    pub fn get(&self, row: &str, column: &str) -> Option<ValueRef<'a>> {
        let r = self.data.row_values.iter().position(|v| v == row)?;
        let c = self.data.column_values.iter().position(|v| v == column)?;
        Some(cell(
            &self.data.cells,
            r * self.data.column_values.len() + c,
        ))
    }
}

/// One language's texts of a table, aligned with its rows.
#[derive(Clone, Copy)]
pub struct Texts<'a> {
    pub(crate) data: &'a ArchivedStringsData,
    /// The manifest's languages, which the fallback marks index.
    pub(crate) languages: &'a [String],
}

impl<'a> Texts<'a> {
    pub fn language(&self) -> &'a str {
        self.data.language.as_str()
    }

    /// The text fields.
    pub fn fields(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        self.data.fields.iter().map(|f| f.name.as_str())
    }

    /// A field's text of a row (by position); `None` when empty.
    pub fn get(&self, field: &str, row: usize) -> Option<&'a str> {
        let column = self.data.fields.iter().find(|f| f.name == field)?;
        column.values.get(row).filter(|t| !t.is_empty())
    }

    /// Where a row's text came from: 0 for this language's own, else 1 + the position
    /// in the manifest's `languages` of the language it was taken from.
    pub fn fallback(&self, field: &str, row: usize) -> Option<u8> {
        let column = self.data.fields.iter().find(|f| f.name == field)?;
        Some(column.fallback.get(row).copied().unwrap_or(0))
    }

    /// The language a row's text is in: this one, or the one the build took it from
    /// when this language lacked it ([`Texts::fallback`] decoded). `None` for a field
    /// these texts do not have.
    pub fn source_language(&self, field: &str, row: usize) -> Option<&'a str> {
        Some(match self.fallback(field, row)? {
            0 => self.language(),
            n => self
                .languages
                .get(usize::from(n) - 1)
                .map_or(self.language(), String::as_str),
        })
    }
}
