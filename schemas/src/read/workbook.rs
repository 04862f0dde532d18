//! Workbooks (xlsx, xlsm, xlsb, xls, ods) through calamine.
//!
//! Cells arrive as the cached values the application saved: a LibreOffice `=TRUE()`
//! is a boolean, a date-formatted number a date. Two things calamine reports as empty
//! are not: a formula saved without its result (found by reading the sheet's formulas
//! where a data row has an empty cell), and an error value, which becomes
//! [`Cell::Error`]. A file calamine cannot read, or that makes it panic, is a
//! diagnostic naming the file.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use calamine::{CellErrorType, Data, Range, Reader, open_workbook_auto};

use super::{Cell, Grid, ReadOutcome};
use crate::diagnostic::{Code, Diagnostic, Location};
use crate::schema::Project;
use crate::table::SourceFormat;
use crate::typing;
use crate::value::{Date, DateTime};

/// Read every sheet of a workbook that maps to a table of `project`; other sheets are
/// listed as warnings (sheets whose name starts with `#` are notes and stay quiet).
pub fn read(project: &Project, path: &Path) -> ReadOutcome {
    match catch_unwind(AssertUnwindSafe(|| read_unguarded(project, path))) {
        Ok(outcome) => outcome,
        Err(_) => {
            let mut outcome = ReadOutcome::default();
            outcome.report.push(unreadable(
                path,
                "the workbook is damaged: its contents could not be decoded",
            ));
            outcome
        }
    }
}

fn unreadable(path: &Path, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Code::UnreadableFile, Location::file(path), message)
}

fn read_unguarded(project: &Project, path: &Path) -> ReadOutcome {
    let mut outcome = ReadOutcome::default();
    let mut workbook = match open_workbook_auto(path) {
        Ok(workbook) => workbook,
        Err(e) => {
            outcome.report.push(open_error(path, &e));
            return outcome;
        }
    };
    for sheet in workbook.sheet_names() {
        let Some(schema) = project.table_for_sheet(&sheet) else {
            if !sheet.starts_with('#') {
                let mut location = Location::file(path);
                location.sheet = Some(sheet.clone());
                let mut d = Diagnostic::new(
                    Code::UnmappedSheet,
                    location,
                    format!("sheet `{sheet}` maps to no table; it was not read"),
                )
                .hint("name the sheet after a table's `sheet`, or start its name with `#` to mark it as notes");
                let sheets = project.tables.iter().map(|t| t.sheet.as_str());
                if let Some(similar) = crate::load::did_you_mean(&sheet, sheets) {
                    d = d.hint(format!("did you mean `{similar}`?"));
                }
                outcome.report.push(d);
            }
            continue;
        };
        let range = match workbook.worksheet_range(&sheet) {
            Ok(range) => range,
            Err(e) => {
                let mut d = unreadable(path, format!("sheet `{sheet}` cannot be read: {e}"));
                d.location.sheet = Some(sheet.clone());
                outcome.report.push(d);
                continue;
            }
        };
        let mut grid = WorkbookGrid::new(range);
        if grid.has_empty_data_cells() {
            // Only then is it worth parsing the sheet a second time for its formulas.
            if let Ok(formulas) = workbook.worksheet_formula(&sheet) {
                grid.mark_formulas_without_value(&formulas);
            }
        }
        let format = SourceFormat::Workbook {
            sheet: sheet.clone(),
        };
        let (table, diagnostics) = typing::build_table(schema, &grid, path, format);
        outcome.report.extend(diagnostics);
        outcome.tables.extend(table);
    }
    outcome
}

fn open_error(path: &Path, error: &calamine::Error) -> Diagnostic {
    let text = error.to_string();
    if text.contains("password protected") {
        return unreadable(path, "the workbook is password-protected")
            .hint("save a copy without a password (File → Info → Protect Workbook → Encrypt) and read that");
    }
    unreadable(
        path,
        format!("the file cannot be read as a spreadsheet: {text}"),
    )
    .hint("check that the file is a complete xlsx, xlsm, xlsb, xls or ods workbook; re-save it from the spreadsheet application")
}

/// A sheet's name and its grid, or why it could not be read.
pub type SheetGrid = (String, Result<WorkbookGrid, Diagnostic>);

/// Every sheet of a workbook as a grid, whatever it maps to (for schema inference).
/// A sheet that cannot be read (a chart sheet, a damaged part) gives its own error.
pub fn read_all_grids(path: &Path) -> Result<Vec<SheetGrid>, Diagnostic> {
    catch_unwind(AssertUnwindSafe(|| {
        let mut workbook = open_workbook_auto(path).map_err(|e| open_error(path, &e))?;
        let mut grids = Vec::new();
        for sheet in workbook.sheet_names() {
            let grid = workbook
                .worksheet_range(&sheet)
                .map(WorkbookGrid::new)
                .map_err(|e| {
                    let mut d = unreadable(path, format!("sheet `{sheet}` cannot be read: {e}"));
                    d.location.sheet = Some(sheet.clone());
                    d
                });
            grids.push((sheet, grid));
        }
        Ok(grids)
    }))
    .unwrap_or_else(|_| {
        Err(unreadable(
            path,
            "the workbook is damaged: its contents could not be decoded",
        ))
    })
}

/// A calamine range as a [`Grid`], plus the formulas that have no cached value.
pub struct WorkbookGrid {
    range: Range<Data>,
    start: (u32, u32),
    formulas_without_value: HashMap<(usize, usize), String>,
}

impl WorkbookGrid {
    fn new(range: Range<Data>) -> WorkbookGrid {
        let start = range.start().unwrap_or((0, 0));
        WorkbookGrid {
            range,
            start,
            formulas_without_value: HashMap::new(),
        }
    }

    /// Whether some row that has data also has an empty cell (a candidate formula
    /// without value).
    fn has_empty_data_cells(&self) -> bool {
        self.range.rows().any(|row| {
            let empty = row.iter().filter(|c| matches!(c, Data::Empty)).count();
            empty > 0 && empty < row.len()
        })
    }

    fn mark_formulas_without_value(&mut self, formulas: &Range<String>) {
        for (row, cells) in self.range.rows().enumerate() {
            for (column, cell) in cells.iter().enumerate() {
                if !matches!(cell, Data::Empty) {
                    continue;
                }
                let position = (self.start.0 + row as u32, self.start.1 + column as u32);
                if let Some(formula) = formulas.get_value(position)
                    && !formula.is_empty()
                {
                    self.formulas_without_value
                        .insert((row, column), formula.clone());
                }
            }
        }
    }
}

impl Grid for WorkbookGrid {
    fn height(&self) -> usize {
        self.range.height()
    }

    fn width(&self, _row: usize) -> usize {
        self.range.width()
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let Some(data) = self.range.get((row, column)) else {
            return Cell::Empty;
        };
        match data {
            Data::Empty => match self.formulas_without_value.get(&(row, column)) {
                Some(formula) => Cell::FormulaWithoutValue(formula),
                None => Cell::Empty,
            },
            Data::String(s) => Cell::Text(s),
            Data::Int(i) => Cell::Int(*i),
            Data::Float(f) => Cell::Float(*f),
            Data::Bool(b) => Cell::Bool(*b),
            Data::DateTime(dt) if dt.is_duration() => Cell::Duration(dt.as_f64()),
            Data::DateTime(dt) => match excel_datetime(dt) {
                Some(value) => Cell::DateTime(value),
                None => Cell::Float(dt.as_f64()),
            },
            Data::DateTimeIso(s) => Cell::IsoDateTime(s),
            Data::DurationIso(s) => Cell::Text(s),
            Data::Error(e) => Cell::Error(error_text(e)),
        }
    }

    fn row_position(&self, row: usize) -> u64 {
        u64::from(self.start.0) + row as u64
    }

    fn column_position(&self, column: usize) -> u32 {
        self.start.1 + column as u32
    }
}

/// A date-formatted Excel serial number as a date and time (either epoch); `None` for
/// serials Excel itself cannot show (negative, or the 1900-02-29 that never was).
fn excel_datetime(dt: &calamine::ExcelDateTime) -> Option<DateTime> {
    let serial = dt.as_f64();
    if !(0.0..2_958_466.0).contains(&serial) {
        return None;
    }
    let (year, month, day, hour, minute, second, milli) = dt.to_ymd_hms_milli();
    let date = Date::from_ymd(i32::from(year), u32::from(month), u32::from(day))?;
    DateTime::new(
        date,
        u32::from(hour),
        u32::from(minute),
        u32::from(second),
        u32::from(milli),
    )
}

fn error_text(error: &CellErrorType) -> &'static str {
    match error {
        CellErrorType::Div0 => "#DIV/0!",
        CellErrorType::NA => "#N/A",
        CellErrorType::Name => "#NAME?",
        CellErrorType::Null => "#NULL!",
        CellErrorType::Num => "#NUM!",
        CellErrorType::Ref => "#REF!",
        CellErrorType::Value => "#VALUE!",
        CellErrorType::GettingData => "#GETTING_DATA",
    }
}
