//! Workbooks: xlsx and xlsm through the reader of [`super::xlsx`], xlsb, xls and ods
//! through calamine.
//!
//! Cells arrive as the cached values the application saved: a LibreOffice `=TRUE()`
//! is a boolean, a date-formatted number a date. A formula saved without its result
//! is not an empty cell but [`Cell::FormulaWithoutValue`] (xlsx reads values and
//! formulas in one pass; other formats read formulas where a data row has an empty
//! cell), and an error value becomes [`Cell::Error`]. A file calamine cannot read, or that makes it panic, is a
//! diagnostic naming the file.

use std::fs::File;
use std::io::BufReader;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use calamine::{Reader, Sheets, open_workbook_auto};

use super::sheet_grid::{MAX_CELLS, range_grid, xlsx_grid};
pub use super::sheet_grid::{MAX_SHEET_TEXT, MAX_VALUES};
use super::unread::{Said, said};
use super::{Grid, Keep, ReadOutcome};
use crate::diagnostic::{Code, Diagnostic, Location};
use crate::schema::{Project, SheetTable, TableKind, TableSchema};
use crate::table::{SourceFormat, Table};
use crate::typing;

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
        let builder = || keep.builder(project, schema, path, format.clone());
        let typed = type_sheet(&mut workbook, &sheet, schema, builder);
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

/// A sheet typed into its table: an xlsx sheet of a table of rows (not a singleton)
/// a piece at a time ([`super::streamed`]), any other, or one that is not to be read in
/// pieces, whole.
fn type_sheet<'s>(
    workbook: &mut Book,
    sheet: &str,
    schema: &TableSchema,
    builder: impl Fn() -> typing::TableBuilder<'s>,
) -> Result<(Option<Table>, Vec<Diagnostic>), String> {
    if let Book::Xlsx(xlsx) = workbook
        && schema.kind != TableKind::Singleton
        && let Some(typed) =
            super::streamed::type_in_pieces(xlsx, sheet, builder(), super::streamed::PIECE_BYTES)
    {
        return Ok(typed);
    }
    with_sheet_grid(workbook, sheet, |grid| typing::build_table(builder(), grid))
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
