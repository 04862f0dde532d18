//! The typed table model: one per table, whatever format it was read from.
//!
//! Values are stored by column, in schema field order, so a million-row table is a few
//! large vectors rather than a million small ones. Every table remembers where its rows
//! and columns came from ([`Origin`]), so any later stage can point at the cell.

use std::path::PathBuf;

use crate::diagnostic::{Location, a1};
use crate::value::Value;

/// A table of typed values, columns in schema field order.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The table's name in the schema.
    pub name: String,
    /// One vector per schema field, all of the same length.
    pub columns: Vec<Vec<Value>>,
    pub origin: Origin,
}

impl Table {
    pub fn row_count(&self) -> usize {
        self.origin.rows.len()
    }

    pub fn value(&self, row: usize, field: usize) -> &Value {
        &self.columns[field][row]
    }

    /// The values of one row, in field order.
    pub fn row(&self, row: usize) -> impl Iterator<Item = &Value> + '_ {
        self.columns.iter().map(move |column| &column[row])
    }

    /// The key of a row over some fields (for primary keys and indexes).
    pub fn key(&self, row: usize, fields: &[usize]) -> Vec<Value> {
        fields
            .iter()
            .map(|&f| self.columns[f][row].clone())
            .collect()
    }

    /// The rows of another sheet of the same workbook added to this table (one read
    /// from several sheets, whose `field` holds each row's sheet).
    pub fn append_sheet(&mut self, other: Table, field: usize) {
        let sheet_of = |origin: &Origin| match &origin.format {
            SourceFormat::Workbook { sheet } => sheet.clone(),
            SourceFormat::Csv => String::new(),
        };
        let first = (sheet_of(&self.origin), self.origin.columns.clone());
        let sheets = (self.origin.sheets).get_or_insert_with(|| SheetsOrigin {
            field,
            sheets: vec![first],
        });
        sheets
            .sheets
            .push((sheet_of(&other.origin), other.origin.columns));
        for (column, more) in self.columns.iter_mut().zip(other.columns) {
            column.extend(more);
        }
        self.origin.rows.extend(other.origin.rows);
    }

    /// Where a cell came from, for diagnostics.
    pub fn cell_location(&self, row: usize, field: usize, field_name: &str) -> Location {
        let mut location = self.row_location(row, Some(field));
        location.table = Some(self.name.clone());
        location.field = Some(field_name.to_string());
        location
    }

    /// Where a row came from: at a field's cell, or (`None`) at the row's first read
    /// column. A table read from several sheets places a row on the sheet its
    /// `source_sheet` field names, at that sheet's columns.
    pub fn row_location(&self, row: usize, field: Option<usize>) -> Location {
        let origin = &self.origin;
        let part = origin.sheets.as_ref().and_then(|sheets| {
            let name = self.columns.get(sheets.field)?.get(row)?.as_str()?;
            sheets
                .sheets
                .iter()
                .find(|(sheet, _)| sheet.as_str() == name)
        });
        let columns = part.map_or(&origin.columns, |(_, columns)| columns);
        let column = match field {
            Some(field) => columns.get(field).copied().flatten(),
            None => columns.iter().flatten().next().copied(),
        };
        let mut location = origin.location(origin.rows[row], column);
        if let Some((sheet, _)) = part {
            location.sheet = Some(sheet.clone());
        }
        location
    }
}

/// Where a table was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    pub file: PathBuf,
    pub format: SourceFormat,
    /// For each field, the 0-based source column it was read from (`None`: the column was
    /// absent and the default applied).
    pub columns: Vec<Option<u32>>,
    /// For each row, its 0-based row in the sheet, or its 1-based line in a CSV file.
    pub rows: Vec<u64>,
    /// Read from the vertical layout (a singleton's field names down a column): `rows`
    /// then holds the values' column and `columns` each field's row, swapped back by
    /// [`Origin::location`].
    pub vertical: bool,
    /// Read from several sheets of its workbook (a table's `source` of several): each
    /// row's sheet is its `source_sheet` field's value.
    pub sheets: Option<SheetsOrigin>,
    /// Where the planner keeps the table, when it was read from somewhere else (a
    /// branch's canonical file, for an import that did not supply it): what
    /// [`Origin::describe`] names instead of the file read.
    pub kept_in: Option<String>,
}

/// The sheets a table was read from, when several: the field that names each row's
/// sheet, and each sheet with the source column of each field there.
#[derive(Debug, Clone, PartialEq)]
pub struct SheetsOrigin {
    pub field: usize,
    pub sheets: Vec<(String, Vec<Option<u32>>)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceFormat {
    /// A sheet of a workbook (xlsx, xlsm, xlsb, xls, ods).
    Workbook { sheet: String },
    /// A CSV file.
    Csv,
}

impl Origin {
    /// The location of a source row and column: `Sheet!F6`, or a CSV line.
    pub fn location(&self, row: u64, column: Option<u32>) -> Location {
        let (row, column) = match (self.vertical, column) {
            (true, Some(column)) => (u64::from(column), u32::try_from(row).ok()),
            (true, None) => return self.whole(),
            (false, _) => (row, column),
        };
        let mut location = Location::file(&self.file);
        match &self.format {
            SourceFormat::Workbook { sheet } => {
                location.sheet = Some(sheet.clone());
                if let Some(column) = column {
                    location.cell = Some(a1(u32::try_from(row).unwrap_or(u32::MAX), column));
                }
            }
            SourceFormat::Csv => location.line = Some(row),
        }
        location
    }

    /// What holds one field's values: a column, or a row of the vertical layout.
    pub fn line_name(&self) -> &'static str {
        if self.vertical { "row" } else { "column" }
    }

    /// The whole source: the file, and the sheet of a workbook (no line, no cell).
    pub fn whole(&self) -> Location {
        let mut location = Location::file(&self.file);
        if let SourceFormat::Workbook { sheet } = &self.format {
            location.sheet = Some(sheet.clone());
        }
        location
    }

    /// A human name for where the table came from: `items.xlsx (sheet Item)` or `Item.csv`.
    pub fn describe(&self) -> String {
        if let Some(place) = &self.kept_in {
            return place.clone();
        }
        if let Some(sheets) = &self.sheets {
            let names: Vec<&str> = sheets.sheets.iter().map(|(s, _)| s.as_str()).collect();
            return format!("{} (sheets {})", self.file.display(), names.join(", "));
        }
        match &self.format {
            SourceFormat::Workbook { sheet } => format!("{} (sheet {sheet})", self.file.display()),
            SourceFormat::Csv => self.file.display().to_string(),
        }
    }
}
