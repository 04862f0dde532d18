//! A sheet's cells as a grid ([`SheetGrid`]): between its first and last cell holding a
//! value, borrowing text from the workbook (xlsx shared strings) or from calamine's
//! range (other formats); an xlsx sheet whole or a piece at a time, within the limits
//! a sheet may reach.

use std::collections::HashMap;

use calamine::{CellErrorType, Data, DataRef, Range};

use super::zipped::MAX_PART_BYTES;
use super::{Cell, Grid};
use crate::value::{Date, DateTime};

/// The most cells a sheet may span (rows × columns between its first and last used
/// cell): beyond this a sheet is refused rather than allowed to exhaust memory.
pub(super) const MAX_CELLS: usize = 20_000_000;

/// The most cells holding a value a sheet may have (800,000 rows of ten columns): with
/// [`MAX_PART_BYTES`] this keeps reading any workbook within about half a gigabyte.
/// Larger tables belong in CSV, which is read in a stream.
pub const MAX_VALUES: usize = 8_000_000;

/// The most text a sheet's cells may hold, each cell counted (192 MiB, as much as a
/// part may unpack to): a sheet whose cells point at one shared string a thousand times
/// holds it a thousand times once typed, and that expansion is bounded here, where the
/// sheet is read — a sheet whose text no cell repeats stays within its part's size.
pub const MAX_SHEET_TEXT: u64 = MAX_PART_BYTES;

/// The text a cell's value holds, in bytes.
fn text_bytes(value: &DataRef<'_>) -> u64 {
    match value {
        DataRef::SharedString(s) => s.len() as u64,
        DataRef::String(s) | DataRef::DateTimeIso(s) | DataRef::DurationIso(s) => s.len() as u64,
        _ => 0,
    }
}

fn too_much_text(bytes: u64) -> String {
    format!(
        "the sheet's cells hold more than {} MiB of text in all (at least {} MiB: cells that repeat a long shared text count it each time); a sheet may hold {} MiB",
        MAX_SHEET_TEXT >> 20,
        bytes >> 20,
        MAX_SHEET_TEXT >> 20
    )
}

/// A sheet's cells between the first and last used cell, borrowing text from the
/// workbook (xlsx shared strings) or from calamine's range (other formats).
pub(super) struct SheetGrid<'a> {
    /// The values: every cell of the span in row order, or (with `index`) only the
    /// cells that hold something.
    cells: Vec<DataRef<'a>>,
    /// For a sheet read cell by cell (xlsx): per position of the span, the index of its
    /// value in `cells` (`u32::MAX`: empty). Four bytes per empty cell instead of a
    /// whole value.
    index: Option<Vec<u32>>,
    width: usize,
    height: usize,
    start: (u32, u32),
    formulas_without_value: HashMap<(usize, usize), String>,
}

/// A position in the span that holds no value.
const NO_VALUE: u32 = u32::MAX;

/// What a sheet's cells come to, counted over every piece of it read so far: checked
/// against the limits as they arrive, so that a sheet too large is refused while it is
/// read, not after it filled the memory.
pub(super) struct Tally {
    values: usize,
    text: u64,
    /// The first and last row and column holding a value (`first` past `last`: none).
    pub(super) first: (u32, u32),
    last: (u32, u32),
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            values: 0,
            text: 0,
            first: (u32::MAX, u32::MAX),
            last: (0, 0),
        }
    }
}

impl Tally {
    /// A value at `pos` counted; an error when the sheet is past a limit.
    fn count(&mut self, pos: (u32, u32), value: &DataRef<'_>) -> Result<(), String> {
        self.text += text_bytes(value);
        if self.text > MAX_SHEET_TEXT {
            return Err(too_much_text(self.text));
        }
        self.first = (self.first.0.min(pos.0), self.first.1.min(pos.1));
        self.last = (self.last.0.max(pos.0), self.last.1.max(pos.1));
        if self.values >= MAX_VALUES {
            return Err(too_many_cells(self.values + 1));
        }
        self.values += 1;
        check_size(
            (self.last.0 - self.first.0) as usize + 1,
            (self.last.1 - self.first.1) as usize + 1,
        )?;
        Ok(())
    }
}

/// A whole sheet's cells as a grid.
pub(super) fn xlsx_grid<'a>(mut reader: super::xlsx::Cells<'a>) -> Result<SheetGrid<'a>, String> {
    let grid = cells_grid(&mut reader, None, &mut Tally::default())?;
    reader.place().end()?;
    Ok(grid)
}

/// The cells `reader` gives as a grid from the first row holding a value, and from
/// column `origin` (none: the first column holding a value) — a piece of a sheet read
/// in pieces keeps one origin, the first piece's, so that a column is one column in
/// each; a value left of it is not in the grid (the reader of the pieces sees it in
/// `tally`). `tally` counts the sheet's values over its pieces.
pub(super) fn cells_grid<'a>(
    reader: &mut super::xlsx::Cells<'a>,
    origin: Option<u32>,
    tally: &mut Tally,
) -> Result<SheetGrid<'a>, String> {
    let mut cells = Vec::new();
    let mut positions: Vec<(u32, u32)> = Vec::new();
    let mut formulas: Vec<(usize, String)> = Vec::new();
    let (mut first, mut last) = ((u32::MAX, u32::MAX), (0u32, 0u32));
    while let Some(record) = reader.next_cell()? {
        if record.value == DataRef::Empty && record.formula.as_deref().is_none_or(str::is_empty) {
            continue;
        }
        tally.count(record.pos, &record.value)?;
        let (row, column) = record.pos;
        if origin.is_some_and(|origin| column < origin) {
            continue;
        }
        first = (first.0.min(row), first.1.min(column));
        last = (last.0.max(row), last.1.max(column));
        if record.value == DataRef::Empty
            && let Some(formula) = record.formula
        {
            formulas.push((cells.len(), formula));
        }
        positions.push(record.pos);
        cells.push(record.value);
    }
    if cells.is_empty() {
        return Ok(SheetGrid {
            cells,
            index: None,
            width: 0,
            height: 0,
            start: (0, origin.unwrap_or(0)),
            formulas_without_value: HashMap::new(),
        });
    }
    let first = (first.0, origin.unwrap_or(first.1));
    let height = (last.0 - first.0) as usize + 1;
    let width = (last.1 - first.1) as usize + 1;
    let size = check_size(height, width)?;
    let mut index = vec![NO_VALUE; size];
    let place = |(row, column): (u32, u32)| ((row - first.0) as usize, (column - first.1) as usize);
    for (i, &position) in positions.iter().enumerate() {
        let (row, column) = place(position);
        index[row * width + column] = i as u32;
    }
    let formulas_without_value = formulas
        .into_iter()
        .map(|(i, formula)| (place(positions[i]), formula))
        .collect();
    Ok(SheetGrid {
        cells,
        index: Some(index),
        width,
        height,
        start: first,
        formulas_without_value,
    })
}

fn too_many_cells(count: usize) -> String {
    format!(
        "the sheet holds more than {MAX_VALUES} cells with values (at least {count}); split it over several sheets, or export it as CSV"
    )
}

impl Grid for SheetGrid<'_> {
    fn height(&self) -> usize {
        self.height
    }

    fn width(&self, _row: usize) -> usize {
        self.width
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        if row >= self.height || column >= self.width {
            return Cell::Empty;
        }
        let at = row * self.width + column;
        let value = match &self.index {
            Some(index) => match index[at] {
                NO_VALUE => &DataRef::Empty,
                i => &self.cells[i as usize],
            },
            None => &self.cells[at],
        };
        match value {
            DataRef::Empty => match self.formulas_without_value.get(&(row, column)) {
                Some(formula) => Cell::FormulaWithoutValue(formula),
                None => Cell::Empty,
            },
            DataRef::SharedString(s) => Cell::Text(s),
            DataRef::String(s) => Cell::Text(s),
            DataRef::Int(i) => Cell::Int(*i),
            DataRef::Float(f) => Cell::Float(*f),
            DataRef::Bool(b) => Cell::Bool(*b),
            DataRef::DateTime(dt) => date_cell(dt),
            DataRef::DateTimeIso(s) => Cell::IsoDateTime(s),
            DataRef::DurationIso(s) => Cell::Text(s),
            DataRef::Error(e) => Cell::Error(error_text(e)),
        }
    }

    fn row_position(&self, row: usize) -> u64 {
        u64::from(self.start.0) + row as u64
    }

    fn column_position(&self, column: usize) -> u32 {
        self.start.1 + column as u32
    }
}

fn date_cell(dt: &calamine::ExcelDateTime) -> Cell<'static> {
    if dt.is_duration() {
        return Cell::Duration(dt.as_f64());
    }
    match excel_datetime(dt) {
        Some(value) => Cell::DateTime(value),
        None => Cell::Float(dt.as_f64()),
    }
}

/// The cells of a calamine range (ods, xls, xlsb) as a [`SheetGrid`].
pub(super) fn range_grid(range: &Range<Data>) -> Result<SheetGrid<'_>, String> {
    let (height, width) = (range.height(), range.width());
    check_size(height, width)?;
    let cells = range
        .rows()
        .flat_map(|row| row.iter())
        .map(|data| match data {
            Data::Empty => DataRef::Empty,
            Data::String(s) => DataRef::SharedString(s),
            Data::Int(i) => DataRef::Int(*i),
            Data::Float(f) => DataRef::Float(*f),
            Data::Bool(b) => DataRef::Bool(*b),
            Data::DateTime(dt) => DataRef::DateTime(*dt),
            Data::DateTimeIso(s) => DataRef::DateTimeIso(s.clone()),
            Data::DurationIso(s) => DataRef::DurationIso(s.clone()),
            Data::Error(e) => DataRef::Error(e.clone()),
        })
        .collect::<Vec<_>>();
    let text: u64 = cells.iter().map(text_bytes).sum();
    if text > MAX_SHEET_TEXT {
        return Err(too_much_text(text));
    }
    Ok(SheetGrid {
        cells,
        index: None,
        width,
        height,
        start: range.start().unwrap_or((0, 0)),
        formulas_without_value: HashMap::new(),
    })
}

/// Refuse sheets spanning more than [`MAX_CELLS`]; the number of cells otherwise.
fn check_size(height: usize, width: usize) -> Result<usize, String> {
    height.checked_mul(width).filter(|&n| n <= MAX_CELLS).ok_or_else(|| {
        format!(
            "the sheet spans {height} rows × {width} columns, more than {MAX_CELLS} cells; delete stray cells far from the data"
        )
    })
}

impl SheetGrid<'_> {
    /// Whether some row that has data also has an empty cell (a candidate formula
    /// without value).
    pub(super) fn has_empty_data_cells(&self) -> bool {
        self.cells.chunks(self.width.max(1)).any(|row| {
            let empty = row.iter().filter(|c| matches!(c, DataRef::Empty)).count();
            empty > 0 && empty < row.len()
        })
    }

    pub(super) fn mark_formulas_without_value(&mut self, formulas: &Range<String>) {
        for (index, cell) in self.cells.iter().enumerate() {
            if !matches!(cell, DataRef::Empty) {
                continue;
            }
            let (row, column) = (index / self.width, index % self.width);
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
