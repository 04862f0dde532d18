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
    pub fn append_sheet(&mut self, mut other: Table, field: usize) {
        let part = |origin: &Origin| Origin {
            rows: Vec::new(),
            sheets: None,
            ..origin.clone()
        };
        let first = part(&self.origin);
        let sheets = (self.origin.sheets).get_or_insert_with(|| SheetsOrigin {
            field,
            parts: vec![first],
        });
        sheets.parts.push(part(&other.origin));
        for (column, more) in self.columns.iter_mut().zip(other.columns) {
            column.extend(more);
        }
        self.origin.rows.append(&mut other.origin.rows);
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
        let part = self.origin.sheets.as_ref().and_then(|sheets| {
            let name = self.columns.get(sheets.field)?.get(row)?.as_str()?;
            (sheets.parts.iter()).find(|part| part.sheet_name().as_deref() == Some(name))
        });
        let origin = part.unwrap_or(&self.origin);
        let column = match field {
            Some(field) => origin.columns.get(field).copied().flatten(),
            None => origin.columns.iter().flatten().next().copied(),
        };
        origin.location(self.origin.rows[row], column)
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
/// sheet, and where each sheet was read from (its file, format and columns; no rows).
#[derive(Debug, Clone, PartialEq)]
pub struct SheetsOrigin {
    pub field: usize,
    pub parts: Vec<Origin>,
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

    /// The name of the sheet read: a workbook's sheet, or the sheet a CSV file export
    /// wrote for one is named after (`items#Item.csv`).
    pub fn sheet_name(&self) -> Option<String> {
        match &self.format {
            SourceFormat::Workbook { sheet } => Some(sheet.clone()),
            SourceFormat::Csv => {
                let stem = self.file.file_stem()?.to_str()?;
                Some(stem.rsplit_once('#')?.1.to_string())
            }
        }
    }

    /// The workbook read, without its extension: the file, or the workbook a CSV file
    /// export wrote for one of its sheets stands for (`items#Item.csv`: `items`).
    pub fn workbook(&self) -> PathBuf {
        let stem = self
            .file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        match (&self.format, stem.rsplit_once('#')) {
            (SourceFormat::Csv, Some((book, _))) => self.file.with_file_name(book),
            _ => self.file.with_extension(""),
        }
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
            let parts: Vec<String> = sheets.parts.iter().map(Origin::describe).collect();
            return parts.join(", ");
        }
        match &self.format {
            SourceFormat::Workbook { sheet } => format!("{} (sheet {sheet})", self.file.display()),
            SourceFormat::Csv => self.file.display().to_string(),
        }
    }
}
