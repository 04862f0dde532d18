//! Workbooks: xlsx and xlsm through the reader of [`super::xlsx`], xlsb, xls and ods
//! through calamine.
//!
//! Cells arrive as the cached values the application saved: a LibreOffice `=TRUE()`
//! is a boolean, a date-formatted number a date. A formula saved without its result
//! is not an empty cell but [`Cell::FormulaWithoutValue`] (xlsx reads values and
//! formulas in one pass; other formats read formulas where a data row has an empty
//! cell), and an error value becomes [`Cell::Error`]. A file calamine cannot read, or that makes it panic, is a
//! diagnostic naming the file.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use calamine::{CellErrorType, Data, DataRef, Range, Reader, Sheets, open_workbook_auto};

use super::unread::{Said, said};
use super::{Cell, Grid, Keep, ReadOutcome};
use crate::diagnostic::{Code, Diagnostic, Location};
use crate::schema::{Project, SheetTable};
use crate::table::SourceFormat;
use crate::typing;
use crate::value::{Date, DateTime};

/// Read every sheet of a workbook that maps to a table of `project`; other sheets are
/// listed as warnings (sheets whose name starts with `#` are notes and stay quiet).
pub fn read(project: &Project, path: &Path) -> ReadOutcome {
    read_part(project, path, Part::WHOLE, Keep::All)
}

/// A share of a workbook's sheets: of `count` sheets, part `index` holds the
/// `index`-th of `of` consecutive runs, so that the parts' tables, taken in part order,
/// are in sheet order (a table over several sheets appends them so). Large workbooks are
/// read by several threads at once, each opening the file and reading its share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    pub index: usize,
    pub of: usize,
}

impl Part {
    pub const WHOLE: Part = Part { index: 0, of: 1 };

    fn holds(self, sheet: usize, count: usize) -> bool {
        sheet * self.of / count.max(1) == self.index
    }
}

/// Read one share of a workbook's sheets (see [`Part`]). Problems with the file as a
/// whole are reported by the first part only; the tables keep the values `keep` says.
pub fn read_part(project: &Project, path: &Path, part: Part, keep: Keep) -> ReadOutcome {
    match catch_unwind(AssertUnwindSafe(|| {
        read_unguarded(project, path, part, keep)
    })) {
        Ok(outcome) => outcome,
        Err(_) => {
            let mut outcome = ReadOutcome::default();
            if part.index == 0 {
                outcome.report.push(unreadable(
                    path,
                    "the workbook is damaged: its contents could not be decoded",
                ));
            }
            outcome
        }
    }
}

fn unreadable(path: &Path, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Code::UnreadableFile, Location::file(path), message)
}

use super::zipped::Archive;
pub use super::zipped::{MAX_PART_BYTES, MAX_UNPACKED_BYTES};
use crate::diagnostic::cell_name;

/// What is checked of a zipped workbook (xlsx, xlsm, xlsb, ods) before it is read:
/// parts that unpack past the limits (from their declared sizes, nothing unpacked),
/// then — unpacking as it goes — ods repeats that expand past [`MAX_CELLS`]. Files that
/// are not zips pass (their reader reports what they are). The zip, checked, is handed
/// on to be read (`None`: not a zip).
fn check_parts(path: &Path) -> Result<Option<Archive>, Diagnostic> {
    let Ok(file) = File::open(path) else {
        return Ok(None);
    };
    let Ok(mut archive) = zip::ZipArchive::new(BufReader::new(file)) else {
        return Ok(None);
    };
    let mut total: u64 = 0;
    for index in 0..archive.len() {
        let Ok(entry) = archive.by_index_raw(index) else {
            continue;
        };
        let size = entry.size();
        if size > MAX_PART_BYTES {
            return Err(unreadable(
                path,
                format!(
                    "its part `{}` unpacks to {} MiB, more than the {} MiB a workbook part may have",
                    entry.name().unwrap_or_default(),
                    size >> 20,
                    MAX_PART_BYTES >> 20
                ),
            )
            .hint("split the data over several sheets or workbooks, or export it as CSV"));
        }
        total = total.saturating_add(size);
    }
    if total > MAX_UNPACKED_BYTES {
        return Err(unreadable(
            path,
            format!(
                "it unpacks to {} MiB, more than the {} MiB a workbook may have",
                total >> 20,
                MAX_UNPACKED_BYTES >> 20
            ),
        )
        .hint("split the data over several workbooks, or export it as CSV"));
    }
    // Every reader checks the repeats: each one would expand them.
    if let Ok(mut content) = archive.by_name("content.xml")
        && let Err(problem) = check_ods_span(&mut content)
    {
        return Err(match problem {
            OdsProblem::Span(message) => unreadable(path, message)
                .hint("delete the formatting or cells far from the data (whole rows or columns repeated to the sheet's end), or export it as CSV"),
            OdsProblem::Boolean(message) => unreadable(path, message)
                .hint("write TRUE or FALSE in the cell, or re-save the file from LibreOffice"),
        });
    }
    Ok(Some(archive))
}

/// What an ods's content holds that it must not.
enum OdsProblem {
    /// Repeats expanding past [`MAX_CELLS`].
    Span(String),
    /// A boolean calamine reads otherwise than it says (ODF's `1`, `True`: read as false).
    Boolean(String),
}

/// The cells an ods sheet expands to: rows and cells written once with a repeat count
/// (`table:number-rows-repeated`, `table:number-columns-repeated`) are expanded by the
/// reader, so a few bytes can ask for billions. Each sheet's rows are counted up to
/// the last cell holding a value, and a sheet over [`MAX_CELLS`] is refused. On the way,
/// a boolean calamine would read as false though it says otherwise is refused. The XML
/// is read with calamine's settings, so that what stops this reading stops calamine's.
fn check_ods_span(content: &mut impl std::io::Read) -> Result<(), OdsProblem> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(BufReader::new(content));
    let config = reader.config_mut();
    config.check_end_names = false;
    config.check_comments = false;
    config.trim_text(false);
    let mut buf = Vec::new();
    // Where the reading stands: the sheet's name and the rows before the current one.
    let (mut sheet, mut rows) = (String::new(), 0u64);
    let repeat = |e: &quick_xml::events::BytesStart<'_>, name: &str| -> u64 {
        e.try_get_attribute(name)
            .ok()
            .flatten()
            .and_then(|a| a.value.parse::<u64>().ok())
            .unwrap_or(1)
    };
    let (mut sheet_cells, mut row_repeat, mut row_width, mut row_used): (u64, u64, u64, u64) =
        (0, 1, 0, 0);
    let mut in_cell_with_content = false;
    loop {
        buf.clear();
        // A content that is not readable XML (an encrypted file) is for calamine to
        // report; only the counts are this check's business.
        let Ok(event) = reader.read_event_into(&mut buf) else {
            break;
        };
        match event {
            Event::Eof => break,
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                match e.local_name().as_ref() {
                    "table" => {
                        sheet_cells = 0;
                        rows = 0;
                        sheet = e
                            .try_get_attribute("table:name")
                            .ok()
                            .flatten()
                            .map(|a| a.value.into_owned())
                            .unwrap_or_default();
                    }
                    "table-row" => {
                        row_repeat = repeat(e, "table:number-rows-repeated");
                        (row_width, row_used) = (0, 0);
                    }
                    "table-cell" | "covered-table-cell" => {
                        if let Some(said) = misread_boolean(e) {
                            let at = cell_name(rows, row_width);
                            return Err(OdsProblem::Boolean(format!(
                                "cell {at} of sheet `{sheet}` holds the boolean `{said}`, which the reader would take as false"
                            )));
                        }
                        let columns = repeat(e, "table:number-columns-repeated");
                        row_width = row_width.saturating_add(columns);
                        let valued = e
                            .try_get_attribute("office:value-type")
                            .ok()
                            .flatten()
                            .is_some();
                        if valued {
                            row_used = row_width;
                        }
                        in_cell_with_content = !empty;
                    }
                    "p" if in_cell_with_content => row_used = row_width,
                    _ => {}
                }
            }
            Event::End(ref e) => match e.local_name().as_ref() {
                "table-cell" | "covered-table-cell" => in_cell_with_content = false,
                "table-row" => {
                    rows = rows.saturating_add(row_repeat);
                    sheet_cells = sheet_cells.saturating_add(row_repeat.saturating_mul(row_used));
                    if sheet_cells > MAX_CELLS as u64 {
                        return Err(OdsProblem::Span(format!(
                            "a sheet expands to more than {MAX_CELLS} cells through repeated rows and columns"
                        )));
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    Ok(())
}

/// The boolean an ods cell says when calamine would read it as false though it is not
/// `false`: calamine takes the first of a cell's value attributes, and of booleans only
/// `true` and `TRUE` as true (ODF also allows `1`).
fn misread_boolean(cell: &quick_xml::events::BytesStart<'_>) -> Option<String> {
    for attribute in cell.attributes().with_checks(false).flatten() {
        match attribute.key.as_ref() {
            "office:value" | "office:string-value" | "office:date-value" | "office:time-value" => {
                return None;
            }
            "office:boolean-value" => {
                let said = attribute.value;
                let read_right = matches!(&*said, "true" | "TRUE" | "false" | "FALSE");
                return (!read_right).then(|| said.into_owned());
            }
            _ => {}
        }
    }
    None
}

fn read_unguarded(project: &Project, path: &Path, part: Part, keep: Keep) -> ReadOutcome {
    let mut outcome = ReadOutcome::default();
    let opened = check_parts(path).and_then(|archive| Book::open(path, archive));
    let mut workbook = match opened {
        Ok(workbook) => workbook,
        Err(d) => {
            if part.index == 0 {
                outcome.report.push(d);
            }
            return outcome;
        }
    };
    let names = workbook.sheet_names();
    let count = names.len();
    for (index, sheet) in names.into_iter().enumerate() {
        if !part.holds(index, count) {
            continue;
        }
        let schema = match project.table_for(path, &sheet, index == 0) {
            SheetTable::One(schema) => Some(schema),
            SheetTable::Ambiguous(a, b) => {
                let mut location = Location::file(path);
                location.sheet = Some(sheet.clone());
                outcome.report.push(
                    Diagnostic::new(
                        Code::UnmappedSheet,
                        location,
                        format!(
                            "sheet `{sheet}` maps to two tables, `{}` ({}) and `{}` ({}); it was not read",
                            a.name,
                            claim(a),
                            b.name,
                            claim(b)
                        ),
                    )
                    .hint("give one of them a `source` naming this file and sheet, or another sheet"),
                );
                continue;
            }
            SheetTable::None => None,
        };
        let Some(schema) = schema else {
            if let Said::Listed(said) = said(project, path, Some(&sheet), index == 0) {
                outcome.report.extend(said.map(|d| *d));
                continue;
            }
            if !sheet.starts_with('#') {
                let mut location = Location::file(path);
                location.sheet = Some(sheet.clone());
                let mut d = Diagnostic::new(
                    Code::UnmappedSheet,
                    location,
                    format!("sheet `{sheet}` maps to no table; it was not read"),
                )
                .hint("name the sheet after a table's `sheet`, or start its name with `#` to mark it as notes");
                // Only tables found by sheet name: one mapped by `source` is not found
                // by renaming this sheet.
                let sheets = project
                    .tables
                    .iter()
                    .filter(|t| t.source.is_none() && t.sheet != sheet)
                    .map(|t| t.sheet.as_str());
                if let Some(similar) = crate::suggest::did_you_mean(&sheet, sheets) {
                    d = d.did_you_mean(similar);
                }
                outcome.report.push(d);
            }
            continue;
        };
        if let Some(hidden) = workbook.hidden(&sheet) {
            outcome
                .report
                .push(hidden_sheet(path, &sheet, &schema.name, hidden));
        }
        let format = SourceFormat::Workbook {
            sheet: sheet.clone(),
        };
        let typed = with_sheet_grid(&mut workbook, &sheet, |grid| {
            typing::build_table(keep.builder(project, schema, path, format), grid)
        });
        match typed {
            Ok((table, diagnostics)) => {
                outcome.report.extend(diagnostics);
                outcome.tables.extend(table);
            }
            Err(message) => {
                let mut d = unreadable(path, format!("sheet `{sheet}` cannot be read: {message}"));
                d.location.sheet = Some(sheet.clone());
                outcome.report.push(d);
            }
        }
    }
    outcome
}

/// The most cells a sheet may span (rows × columns between its first and last used
/// cell): beyond this a sheet is refused rather than allowed to exhaust memory.
const MAX_CELLS: usize = 20_000_000;

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

/// An open workbook: xlsx and xlsm read here ([`super::xlsx`]), the other formats
/// through calamine.
enum Book {
    Xlsx(super::xlsx::Workbook),
    Other(Sheets<BufReader<File>>),
}

impl Book {
    /// The workbook at `path` (`archive`: the zip it is, as [`check_parts`] checked
    /// it). Any zip but an xlsb or ods is tried as an xlsx package first (whatever its
    /// name says); what is none goes to calamine, which says what it is (encrypted, not
    /// a spreadsheet).
    fn open(path: &Path, archive: Option<Archive>) -> Result<Book, Diagnostic> {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        if let Some(archive) = archive
            && !matches!(extension.as_deref(), Some("xlsb" | "xls" | "xla" | "ods"))
        {
            match super::xlsx::Workbook::of(archive) {
                Ok(Some(workbook)) => return Ok(Book::Xlsx(workbook)),
                Ok(None) => {}
                Err(message) => {
                    return Err(unreadable(
                        path,
                        format!("the workbook cannot be read: {message}"),
                    )
                    .hint("the workbook is damaged: re-save it from the spreadsheet application"));
                }
            }
        }
        open_workbook_auto(path)
            .map(Book::Other)
            .map_err(|e| open_error(path, &e))
    }

    fn sheet_names(&self) -> Vec<String> {
        match self {
            Book::Xlsx(workbook) => workbook.sheet_names(),
            Book::Other(workbook) => workbook.sheet_names(),
        }
    }

    /// How sheet `name` is hidden in the workbook, when it is.
    fn hidden(&self, name: &str) -> Option<super::xlsx::Hidden> {
        use super::xlsx::Hidden;
        match self {
            Book::Xlsx(workbook) => workbook.hidden(name),
            Book::Other(workbook) => match workbook
                .sheets_metadata()
                .iter()
                .find(|s| s.name == name)?
                .visible
            {
                calamine::SheetVisible::Visible => None,
                calamine::SheetVisible::Hidden => Some(Hidden::Hidden),
                calamine::SheetVisible::VeryHidden => Some(Hidden::VeryHidden),
            },
        }
    }
}

/// The warning for a sheet a table is read from that its workbook hides: a planner who
/// never saw it on screen is told what was read.
fn hidden_sheet(path: &Path, sheet: &str, table: &str, hidden: super::xlsx::Hidden) -> Diagnostic {
    let mut location = Location::file(path);
    location.sheet = Some(sheet.to_string());
    location.table = Some(table.to_string());
    let (how, show) = match hidden {
        super::xlsx::Hidden::Hidden => ("hidden", "Format ▸ Sheet ▸ Unhide shows it"),
        super::xlsx::Hidden::VeryHidden => (
            "very hidden (only a macro shows it)",
            "a macro or the VBA editor's Visible property shows it",
        ),
    };
    Diagnostic::new(
        Code::HiddenSheet,
        location,
        format!(
            "sheet `{sheet}` is {how} in the workbook; it was read into `{table}` like any other"
        ),
    )
    .hint(format!(
        "{show}; check what it holds, or delete it if it is not meant to be imported"
    ))
}

/// Read one sheet and run `f` on it as a grid. xlsx and xlsm are read in one pass over
/// the sheet, values and formulas together, borrowing shared strings instead of copying
/// them; the other formats go through calamine's range and, only when a data row has
/// an empty cell, a second pass for formulas.
fn with_sheet_grid<R>(
    workbook: &mut Book,
    sheet: &str,
    f: impl FnOnce(&dyn Grid) -> R,
) -> Result<R, String> {
    let workbook = match workbook {
        Book::Xlsx(xlsx) => {
            let xml = xlsx.sheet_xml(sheet)?;
            let grid = xlsx_grid(xlsx.cells(&xml)?)?;
            return Ok(f(&grid));
        }
        Book::Other(workbook) => workbook,
    };
    let range = workbook.worksheet_range(sheet).map_err(|e| e.to_string())?;
    let mut grid = range_grid(&range)?;
    if grid.has_empty_data_cells()
        && let Ok(formulas) = workbook.worksheet_formula(sheet)
    {
        grid.mark_formulas_without_value(&formulas);
    }
    Ok(f(&grid))
}

/// A sheet's cells between the first and last used cell, borrowing text from the
/// workbook (xlsx shared strings) or from calamine's range (other formats).
struct SheetGrid<'a> {
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

fn xlsx_grid<'a>(mut reader: super::xlsx::Cells<'a>) -> Result<SheetGrid<'a>, String> {
    // Values and their positions, checked against the limits as they arrive: a sheet
    // too large is refused while it is read, not after it filled the memory.
    let mut cells = Vec::new();
    let mut positions: Vec<(u32, u32)> = Vec::new();
    let mut formulas: Vec<(usize, String)> = Vec::new();
    let (mut first, mut last) = ((u32::MAX, u32::MAX), (0u32, 0u32));
    let mut text = 0u64;
    while let Some(record) = reader.next_cell()? {
        if record.value == DataRef::Empty && record.formula.as_deref().is_none_or(str::is_empty) {
            continue;
        }
        text += text_bytes(&record.value);
        if text > MAX_SHEET_TEXT {
            return Err(too_much_text(text));
        }
        let (row, column) = record.pos;
        first = (first.0.min(row), first.1.min(column));
        last = (last.0.max(row), last.1.max(column));
        if cells.len() >= MAX_VALUES {
            return Err(too_many_cells(cells.len() + 1));
        }
        check_size(
            (last.0 - first.0) as usize + 1,
            (last.1 - first.1) as usize + 1,
        )?;
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
            start: (0, 0),
            formulas_without_value: HashMap::new(),
        });
    }
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

/// Run `f` on every sheet of a workbook, whatever it maps to (schema inference reads
/// them all), with its grid or the reason it could not be read (a chart sheet, a
/// damaged part). Fails only when the workbook itself cannot be opened.
pub fn for_each_sheet(
    path: &Path,
    mut f: impl FnMut(&str, Result<&dyn Grid, Diagnostic>),
) -> Result<(), Diagnostic> {
    catch_unwind(AssertUnwindSafe(|| {
        let mut workbook = Book::open(path, check_parts(path)?)?;
        for sheet in workbook.sheet_names() {
            let mut seen = false;
            let outcome = with_sheet_grid(&mut workbook, &sheet, |grid| {
                seen = true;
                f(&sheet, Ok(grid));
            });
            if let Err(message) = outcome {
                let mut d = unreadable(path, format!("sheet `{sheet}` cannot be read: {message}"));
                d.location.sheet = Some(sheet.clone());
                debug_assert!(!seen);
                f(&sheet, Err(d));
            }
        }
        Ok(())
    }))
    .unwrap_or_else(|_| {
        Err(unreadable(
            path,
            "the workbook is damaged: its contents could not be decoded",
        ))
    })
}

/// The cells of a calamine range (ods, xls, xlsb) as a [`SheetGrid`].
fn range_grid(range: &Range<Data>) -> Result<SheetGrid<'_>, String> {
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
    fn has_empty_data_cells(&self) -> bool {
        self.cells.chunks(self.width.max(1)).any(|row| {
            let empty = row.iter().filter(|c| matches!(c, DataRef::Empty)).count();
            empty > 0 && empty < row.len()
        })
    }

    fn mark_formulas_without_value(&mut self, formulas: &Range<String>) {
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

/// How a table claims a sheet, for messages: `source items.xlsx#Sheet1` or `sheet Item`.
pub(crate) fn claim(table: &crate::schema::TableSchema) -> String {
    match &table.source {
        Some(source) => format!("source `{source}`"),
        None => format!("sheet `{}`", table.sheet),
    }
}

/// What a workbook `masterctl export` wrote says of itself: the commit and region whose
/// data it held (its custom document properties `masterctl-commit`, `masterctl-region`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportRecord {
    pub commit: String,
    pub region: Option<String>,
}

/// The export record of the workbook at `path`, if it has one: an xlsx whose
/// `docProps/custom.xml`, an ODS whose `meta.xml` (either of at most 1 MiB), or a CSV
/// file whose comment row names a commit of 40 or 64 hexadecimal digits. Anything else —
/// another format, no such part, a malformed value — is none.
pub fn export_record(path: &Path) -> Option<ExportRecord> {
    use std::io::Read;
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
    {
        return csv_export_record(path);
    }
    let file = File::open(path).ok()?;
    let mut archive = zip::ZipArchive::new(BufReader::new(file)).ok()?;
    let ods = archive.by_name("docProps/custom.xml").is_err();
    let entry = archive
        .by_name(if ods {
            "meta.xml"
        } else {
            "docProps/custom.xml"
        })
        .ok()?;
    if entry.size() > 1 << 20 {
        return None;
    }
    let mut xml = String::new();
    entry.take(1 << 20).read_to_string(&mut xml).ok()?;
    let properties = if ods {
        ods_properties(&xml)
    } else {
        xlsx_properties(&xml)
    };
    let value = |name: &str| -> Option<String> {
        properties
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.trim().to_string())
    };
    ExportRecord::checked(&value("masterctl-commit")?, value("masterctl-region"))
}

impl ExportRecord {
    /// A record of `commit` (40 or 64 hexadecimal digits, else none) and `region` (kept
    /// only when it is a plain name).
    fn checked(commit: &str, region: Option<String>) -> Option<ExportRecord> {
        let commit = commit.trim().to_ascii_lowercase();
        let hex = matches!(commit.len(), 40 | 64) && commit.bytes().all(|b| b.is_ascii_hexdigit());
        hex.then(|| ExportRecord {
            commit,
            region: region.filter(|r| {
                !r.is_empty()
                    && r.len() <= 64
                    && r.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            }),
        })
    }
}

/// The custom properties of an xlsx workbook (`docProps/custom.xml`): each
/// `<property name="…">` and the text of its value.
fn xlsx_properties(xml: &str) -> Vec<(String, String)> {
    properties(xml, "property", "name")
}

/// The user-defined properties of an ODS document (`meta.xml`): each
/// `<meta:user-defined meta:name="…">` and its text.
fn ods_properties(xml: &str) -> Vec<(String, String)> {
    properties(xml, "meta:user-defined", "meta:name")
}

/// Elements named `element` with their `name` attribute, and the text inside them
/// (entities decoded).
fn properties(xml: &str, element: &str, name: &str) -> Vec<(String, String)> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut found = Vec::new();
    let mut open: Option<(String, String)> = None;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) if e.name().as_ref() == element => {
                let named = e
                    .attributes()
                    .flatten()
                    .find(|a| a.key.as_ref() == name)
                    .and_then(|a| a.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok())
                    .map(|v| v.into_owned());
                open = named.map(|n| (n, String::new()));
            }
            Ok(Event::Text(t)) => {
                if let Some((_, value)) = &mut open {
                    value.push_str(&t.xml_content(quick_xml::XmlVersion::Implicit1_0));
                }
            }
            Ok(Event::GeneralRef(r)) => {
                if let Some((_, value)) = &mut open {
                    match r.resolve_char_ref() {
                        Ok(Some(c)) => value.push(c),
                        _ => {
                            value.push_str(quick_xml::escape::resolve_xml_entity(&r).unwrap_or(""))
                        }
                    }
                }
            }
            Ok(Event::End(e)) if e.name().as_ref() == element => {
                found.extend(open.take());
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    found
}

/// The comment row a CSV file `export` wrote carries under its header: its first cell
/// `#masterctl-commit <commit> <region>` (rows starting with `#` are comments).
pub const CSV_RECORD: &str = "#masterctl-commit";

/// [`export_record`] of a CSV file: its comment row, within the first 64 KiB.
fn csv_export_record(path: &Path) -> Option<ExportRecord> {
    use std::io::Read;
    let mut head = Vec::new();
    File::open(path)
        .ok()?
        .take(64 << 10)
        .read_to_end(&mut head)
        .ok()?;
    let text = String::from_utf8_lossy(&head);
    let line = text.lines().take(3).find(|l| l.starts_with(CSV_RECORD))?;
    let first = line.split(',').next().unwrap_or_default();
    let mut parts = first.split_whitespace().skip(1);
    let commit = parts.next()?;
    ExportRecord::checked(commit, parts.next().map(|r| r.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::Part;

    /// Each sheet in exactly one part, the parts consecutive runs in sheet order: the
    /// parts' tables, in part order, are in sheet order.
    #[test]
    fn the_parts_of_a_workbook_are_consecutive_runs_of_its_sheets() {
        for count in [1, 2, 3, 7, 10, 64] {
            for of in [1, 2, 3, 4, 16] {
                let order: Vec<usize> = (0..of)
                    .flat_map(|index| {
                        let part = Part { index, of };
                        (0..count).filter(move |&sheet| part.holds(sheet, count))
                    })
                    .collect();
                assert_eq!(
                    order,
                    (0..count).collect::<Vec<_>>(),
                    "{count} sheets, {of} parts"
                );
            }
        }
    }
}
