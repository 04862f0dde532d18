//! A sheet as the readers present it and typing reads it: a [`Grid`] of [`Cell`]s. Its
//! own module, so that the readers (`read`) and typing (`typing`) both depend on it and
//! not on each other.

/// One cell of a sheet, borrowed from the reader's storage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    Empty,
    Text(&'a str),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A number formatted as a date or time in the workbook, converted from its Excel
    /// serial value (either epoch).
    DateTime(crate::value::DateTime),
    /// A number formatted as a duration (`[hh]:mm:ss`).
    Duration(f64),
    /// A date or time the file stores as ISO 8601 text (ods).
    IsoDateTime(&'a str),
    /// An error value: `#VALUE!`, `#REF!`, ...
    Error(&'a str),
    /// A formula whose result was never calculated and saved.
    FormulaWithoutValue(&'a str),
}

impl Cell<'_> {
    pub fn is_empty(&self) -> bool {
        match self {
            Cell::Empty => true,
            Cell::Text(t) => t.is_empty(),
            _ => false,
        }
    }

    /// Whether the cell starts a comment (`#` as first character).
    pub fn is_comment(&self) -> bool {
        matches!(self, Cell::Text(t) if t.trim_start().starts_with('#'))
    }

    /// The cell as the planner sees it, for diagnostics.
    pub fn display(&self) -> String {
        match self {
            Cell::Empty => String::new(),
            Cell::Text(t) | Cell::IsoDateTime(t) | Cell::Error(t) => (*t).to_string(),
            Cell::FormulaWithoutValue(f) => format!("={}", f.trim_start_matches('=')),
            Cell::Int(i) => i.to_string(),
            Cell::Float(f) => crate::value::format_float(*f),
            Cell::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_string(),
            Cell::DateTime(dt) if dt.time_of_day() == 0 => dt.date().to_string(),
            Cell::DateTime(dt) => dt.to_string(),
            Cell::Duration(d) => format!("{} days", crate::value::format_float(*d)),
        }
    }
}

/// A grid of a known kind, or any grid behind a pointer: code made for each kind (the
/// typing of rows) hands the rare work to code made once for any.
pub trait AnyGrid: Grid {
    fn as_dyn(&self) -> &dyn Grid;
}

impl<G: Grid> AnyGrid for G {
    fn as_dyn(&self) -> &dyn Grid {
        self
    }
}

impl AnyGrid for dyn Grid + '_ {
    fn as_dyn(&self) -> &dyn Grid {
        self
    }
}

/// A sheet as rows and columns of cells, and how to name a position in it.
pub trait Grid {
    /// Number of rows held (from the first stored row).
    fn height(&self) -> usize;
    /// Number of columns of the given row.
    fn width(&self, row: usize) -> usize;
    fn cell(&self, row: usize, column: usize) -> Cell<'_>;
    /// The position recorded in [`crate::table::Origin`]: a 0-based sheet row, or a
    /// 1-based CSV line.
    fn row_position(&self, row: usize) -> u64;
    /// The 0-based source column of a grid column.
    fn column_position(&self, column: usize) -> u32;
}
