//! CSV files as spreadsheet applications write them: UTF-8 with or without a byte
//! order mark (or GBK, Shift_JIS: [`encoding`]; tab-separated or UTF-16 text is
//! rewritten as CSV first: [`tabs`]), CRLF or LF, quoted cells spanning lines. The file stem names the sheet
//! (`Item.csv` is sheet `Item`). Every cell is text; the field's type parses it.

use std::borrow::Cow;
use std::path::Path;

pub mod encoding;
mod plain;
mod segments;
pub mod tabs;

pub use plain::plain_text;
use plain::{CHUNK_RECORDS, PlainLines};

use super::unread::{Said, said};
use super::{Cell, Grid, Keep, ReadOutcome};
use crate::diagnostic::{Code, Diagnostic, Location};
use crate::schema::{Project, SheetTable, TableKind};
use crate::table::SourceFormat;
use crate::typing::TableBuilder;

const BOM: &[u8] = b"\xEF\xBB\xBF";

pub fn read(project: &Project, path: &Path, keep: Keep) -> ReadOutcome {
    let mut outcome = ReadOutcome::default();
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A CSV file is one sheet, named by its stem; Google Sheets downloads a sheet as
    // `<workbook> - <sheet>.csv`.
    let schema = match project.table_for(path, &stem, true) {
        SheetTable::One(schema) => Some(schema),
        SheetTable::Ambiguous(a, b) => {
            outcome.report.push(
                Diagnostic::new(
                    Code::UnmappedSheet,
                    Location::file(path),
                    format!(
                        "`{stem}` maps to two tables, `{}` ({}) and `{}` ({}); the file was not read",
                        a.name,
                        super::workbook::claim(a),
                        b.name,
                        super::workbook::claim(b)
                    ),
                )
                .hint("give one of them a `source` naming this file, or another sheet"),
            );
            return outcome;
        }
        // A sheet of a sourced workbook export wrote as CSV (`items#Item.csv`).
        SheetTable::None => project.table_for_sheet_file(path, &stem).or_else(|| {
            stem.rsplit_once(" - ")
                .and_then(|(_, sheet)| project.table_for_sheet(sheet.trim()))
        }),
    };
    let Some(schema) = schema else {
        if tabs::is_notes(path) {
            return outcome;
        }
        if let Said::Listed(said) = said(project, path, None, true) {
            outcome.report.extend(said.map(|d| *d));
            return outcome;
        }
        let mut d = Diagnostic::new(
            Code::UnmappedSheet,
            Location::file(path),
            format!("`{stem}` maps to no table; the file was not read"),
        )
        .hint("name a CSV file after a table's `sheet` (or its name)");
        if let Some(similar) =
            crate::suggest::did_you_mean(&stem, project.tables.iter().map(|t| t.sheet.as_str()))
        {
            d = d.did_you_mean(format!("{similar}.csv"));
        }
        outcome.report.push(d);
        return outcome;
    };
    let unreadable = |e: std::io::Error| {
        Diagnostic::new(
            Code::UnreadableFile,
            Location::file(path),
            format!("cannot read the file: {e}"),
        )
    };
    // A singleton's file, perhaps written vertically, is read whole; another in segments
    // when it is large, unless it is rewritten as CSV first (tab-separated, UTF-16).
    let singleton = schema.kind == TableKind::Singleton;
    let builder = || keep.builder(project, schema, path, SourceFormat::Csv);
    let (bytes, typed) = match open(path, !singleton && !tabs::is_tab_separated(path)) {
        Ok(Opened::Whole(bytes)) => match tabs::as_csv(&bytes, path) {
            None => {
                let typed = type_whole(builder(), singleton, &bytes, path);
                (Some(bytes), typed)
            }
            Some(Ok(rewritten)) => {
                if let Some(encoding) = rewritten.decoded_from {
                    outcome.report.push(read_as(path, encoding));
                }
                let typed = type_whole(builder(), singleton, rewritten.text.as_bytes(), path);
                (None, typed)
            }
            Some(Err(d)) => {
                outcome.report.push(d);
                return outcome;
            }
        },
        Ok(Opened::Large(mut file, size)) => {
            match type_large_file(builder(), path, &mut file, size) {
                Ok(typed) => (None, typed),
                Err(e) => {
                    outcome.report.push(unreadable(e));
                    return outcome;
                }
            }
        }
        Err(e) => {
            outcome.report.push(unreadable(e));
            return outcome;
        }
    };
    // A file refused as not UTF-8 may be GBK or Shift_JIS: decoded, typed again, said.
    let not_utf8 = typed
        .report
        .diagnostics
        .iter()
        .any(|d| d.code == Code::InvalidUtf8);
    let decoded = match (not_utf8, bytes) {
        (false, _) => None,
        (true, Some(bytes)) => encoding::decode(&bytes),
        (true, None) => std::fs::read(path)
            .ok()
            .and_then(|bytes| encoding::decode(&bytes)),
    };
    let typed = match decoded {
        Some(decoded) => {
            outcome.report.push(read_as(path, decoded.encoding));
            type_whole(builder(), singleton, decoded.text.as_bytes(), path)
        }
        None => typed,
    };
    outcome.report.extend(typed.report.diagnostics);
    outcome.tables.extend(typed.tables);
    outcome
}

/// The table of a file read whole: a singleton's from its grid (its one record perhaps
/// written vertically), another's record by record.
fn type_whole(
    mut builder: TableBuilder<'_>,
    singleton: bool,
    bytes: &[u8],
    path: &Path,
) -> ReadOutcome {
    let mut outcome = ReadOutcome::default();
    if singleton {
        match CsvGrid::parse(bytes, path) {
            Ok(grid) => {
                let (table, diagnostics) = crate::typing::build_table(builder, &grid);
                outcome.report.extend(diagnostics);
                outcome.tables.extend(table);
            }
            Err(diagnostics) => outcome.report.extend(diagnostics),
        }
        return outcome;
    }
    if let Err(errors) = type_records(&mut builder, bytes, path) {
        outcome.report.extend(errors);
        return outcome;
    }
    let (table, diagnostics) = builder.finish();
    outcome.report.extend(diagnostics);
    outcome.tables.extend(table);
    outcome
}

/// A CSV file not saved as UTF-8, read in the encoding it was (a warning).
fn read_as(path: &Path, encoding: &str) -> Diagnostic {
    Diagnostic::new(
        Code::Decoded,
        Location::file(path),
        format!("the file is not UTF-8: it was read as {encoding}"),
    )
    .hint(
        "save the CSV as UTF-8 (Excel: “CSV UTF-8 (Comma delimited)”) so every tool reads it alike",
    )
}

/// A CSV file, opened.
enum Opened {
    /// Read whole.
    Whole(Vec<u8>),
    /// Larger than two segments: to be read a segment at a time (see [`segments`]), of
    /// this many bytes when it was opened.
    Large(std::fs::File, u64),
}

/// The file at `path`, read whole unless it is large and may be read `in_segments`
/// (a file in UTF-16, rewritten as CSV before it is read, is read whole: [`tabs`]).
fn open(path: &Path, in_segments: bool) -> std::io::Result<Opened> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let size = file.metadata()?.len();
    if in_segments && size > 2 * segments::SEGMENT_BYTES as u64 && !begins_utf16(&mut file)? {
        return Ok(Opened::Large(file, size));
    }
    // As `std::fs::read` does: a size memory cannot hold is an error, not an abort.
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(usize::try_from(size).unwrap_or(usize::MAX))
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::OutOfMemory, e))?;
    file.read_to_end(&mut bytes)?;
    Ok(Opened::Whole(bytes))
}

/// Whether `file` begins with a UTF-16 byte order mark; read again from its start after.
fn begins_utf16(file: &mut std::fs::File) -> std::io::Result<bool> {
    use std::io::{Read, Seek};
    let mut start = [0u8; 2];
    let utf16 = file.read_exact(&mut start).is_ok() && tabs::is_utf16(&start);
    file.rewind()?;
    Ok(utf16)
}

/// The table of a large file, typed a segment at a time.
fn type_large_file(
    mut builder: TableBuilder<'_>,
    path: &Path,
    file: &mut std::fs::File,
    size: u64,
) -> std::io::Result<ReadOutcome> {
    let mut outcome = ReadOutcome::default();
    let segment = segments::SEGMENT_BYTES;
    if let Err(errors) = segments::type_file(&mut builder, file, size, segment, path)? {
        outcome.report.extend(errors);
        return Ok(outcome);
    }
    let (table, diagnostics) = builder.finish();
    outcome.report.extend(diagnostics);
    outcome.tables.extend(table);
    Ok(outcome)
}

/// Give a CSV file's records to `builder`: plain CSV (see [`plain_text`]) on every core
/// when it is large, anything else a few thousand records at a time through the csv
/// crate. The file's own mistakes (invalid UTF-8, a broken record), each at its line,
/// are the error; nothing is typed then.
pub fn type_records(
    builder: &mut TableBuilder<'_>,
    bytes: &[u8],
    path: &Path,
) -> Result<(), Vec<Diagnostic>> {
    // A record takes at least one line: the line count bounds the row count (a plain
    // file's pieces counted their lines as they were checked).
    if let Some(pieces) = plain::pieces(bytes) {
        builder.reserve(pieces.iter().map(|p| p.line_ends as usize).sum::<usize>() + 1);
        plain::type_pieces(builder, &pieces);
        return Ok(());
    }
    type_quoted(builder, bytes, path, 1)
}

/// The records of `bytes` through the csv crate; `bytes` start on line `line` of the
/// file at `path` (a file's byte order mark is skipped on its first line).
fn type_quoted(
    builder: &mut TableBuilder<'_>,
    bytes: &[u8],
    path: &Path,
    line: u64,
) -> Result<(), Vec<Diagnostic>> {
    builder.reserve(memchr::memchr_iter(b'\n', bytes).count() + 1);
    let mut parser = CsvParser::new(bytes, path, line);
    let mut chunk = CsvGrid::default();
    while parser.fill(&mut chunk, CHUNK_RECORDS) {
        if parser.errors.is_empty() {
            builder.push_rows(&chunk);
        }
    }
    match parser.errors.is_empty() {
        true => Ok(()),
        false => Err(parser.errors),
    }
}

/// Reads records out of a file's bytes into [`CsvGrid`]s, collecting every
/// diagnostic on the way.
struct CsvParser<'b> {
    reader: csv::Reader<&'b [u8]>,
    lines: LineCounter<'b>,
    record: csv::ByteRecord,
    path: &'b Path,
    errors: Vec<Diagnostic>,
    done: bool,
}

impl<'b> CsvParser<'b> {
    /// A reader of `bytes`, which start on line `line` of the file at `path`.
    fn new(bytes: &'b [u8], path: &'b Path, line: u64) -> CsvParser<'b> {
        let bytes = match line {
            1 => bytes.strip_prefix(BOM).unwrap_or(bytes),
            _ => bytes,
        };
        CsvParser {
            reader: csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .from_reader(bytes),
            lines: LineCounter::at(bytes, line),
            record: csv::ByteRecord::new(),
            path,
            errors: Vec::new(),
            done: false,
        }
    }

    /// Replace the grid's contents with up to `max` records; false when the file had
    /// no more.
    fn fill(&mut self, grid: &mut CsvGrid<'_>, max: usize) -> bool {
        grid.clear();
        while !self.done && grid.lines.len() < max {
            match self.reader.read_byte_record(&mut self.record) {
                Ok(false) => self.done = true,
                Ok(true) => {
                    let line = self
                        .lines
                        .line_at(self.record.position().map_or(0, |p| p.byte()));
                    // The fields' bytes joined may be UTF-8 where a field alone is not
                    // (a character split by a separator): every field boundary must
                    // also fall between characters.
                    let joined = std::str::from_utf8(self.record.as_slice())
                        .ok()
                        .filter(|text| {
                            let mut at = 0;
                            self.record.iter().all(|field| {
                                at += field.len();
                                text.is_char_boundary(at)
                            })
                        });
                    match joined {
                        Some(text) => {
                            let owned = grid.text.to_mut();
                            let mut start = owned.len();
                            owned.push_str(text);
                            for field in &self.record {
                                grid.fields.push((start, start + field.len()));
                                start += field.len();
                            }
                            grid.record_starts.push(grid.fields.len());
                            grid.lines.push(line);
                        }
                        None => {
                            let field = self
                                .record
                                .iter()
                                .position(|f| std::str::from_utf8(f).is_err())
                                .unwrap_or(0);
                            self.errors.push(
                                Diagnostic::new(
                                    Code::InvalidUtf8,
                                    Location {
                                        line: Some(line),
                                        ..Location::file(self.path)
                                    },
                                    format!(
                                        "field {} of this record is not valid UTF-8",
                                        field + 1
                                    ),
                                )
                                .hint(
                                    "save the CSV as UTF-8 (Excel: “CSV UTF-8 (Comma delimited)”)",
                                ),
                            );
                        }
                    }
                }
                Err(e) => {
                    let line = self.lines.line_at(e.position().map_or(0, |p| p.byte()));
                    self.errors.push(Diagnostic::new(
                        Code::UnreadableFile,
                        Location {
                            line: Some(line),
                            ..Location::file(self.path)
                        },
                        format!("the CSV file cannot be parsed: {e}"),
                    ));
                    self.done = true;
                }
            }
        }
        !grid.lines.is_empty()
    }
}

/// Line numbers of the byte offsets a CSV reader gives for its records, asked in
/// increasing order (each byte looked at once). The reader's own line count is one short
/// after a CRLF, the line ending spreadsheets save; every CSV masterctl reads (exports,
/// translators' files, the conflict file) counts its lines here.
pub struct LineCounter<'a> {
    bytes: &'a [u8],
    offset: usize,
    line: u64,
}

impl<'a> LineCounter<'a> {
    pub fn new(bytes: &'a [u8]) -> LineCounter<'a> {
        LineCounter::at(bytes, 1)
    }

    /// Lines of `bytes`, the first of which is line `line` of its file.
    fn at(bytes: &'a [u8], line: u64) -> LineCounter<'a> {
        LineCounter {
            bytes,
            offset: 0,
            line,
        }
    }

    /// The 1-based line holding byte `offset`.
    pub fn line_at(&mut self, offset: u64) -> u64 {
        let mut offset = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.bytes.len());
        // The reader's position is where it started looking: before the LF of a CRLF and
        // any empty lines it skipped. A record itself never starts with CR or LF.
        while matches!(self.bytes.get(offset), Some(b'\r' | b'\n')) {
            offset += 1;
        }
        if offset > self.offset {
            self.line +=
                memchr::memchr_iter(b'\n', &self.bytes[self.offset..offset]).count() as u64;
            self.offset = offset;
        }
        self.line
    }
}

/// Records of a CSV file (all of it, or a piece) and the line each starts on. A cell is
/// a range of `text`: the file's own text for plain CSV, a copy for quoted CSV (whose
/// cells are unescaped).
#[derive(Default)]
pub struct CsvGrid<'a> {
    text: Cow<'a, str>,
    /// Byte range in `text` of every field, record after record.
    fields: Vec<(usize, usize)>,
    /// Index in `fields` of each record's first field, plus one final entry.
    record_starts: Vec<usize>,
    lines: Vec<u64>,
}

impl<'b> CsvGrid<'b> {
    /// Parse a whole file (plain CSV borrowing its text). Invalid UTF-8 or a broken
    /// record is reported with its line; all such lines are reported, not just the first.
    pub fn parse(bytes: &'b [u8], path: &Path) -> Result<CsvGrid<'b>, Vec<Diagnostic>> {
        if let Some(text) = plain_text(bytes) {
            let mut grid = CsvGrid::default();
            PlainLines::new(text).fill(&mut grid, usize::MAX);
            return Ok(grid);
        }
        CsvGrid::parse_general(bytes, path)
    }

    /// Parse a whole file that may be saved in GBK or Shift_JIS: one refused as not UTF-8
    /// is decoded ([`encoding::decode`]) and parsed again; a tab-separated or UTF-16 one
    /// is rewritten as CSV first ([`tabs`]). The grid, and the legacy encoding it was read
    /// in, if any.
    pub fn parse_decoding(
        bytes: &'b [u8],
        path: &Path,
    ) -> Result<(CsvGrid<'b>, Option<&'static str>), Vec<Diagnostic>> {
        // Tab-separated or UTF-16: rewritten as CSV first.
        if let Some(rewritten) = tabs::as_csv(bytes, path) {
            let rewritten = rewritten.map_err(|d| vec![d])?;
            let grid = CsvGrid::parse_general(rewritten.text.as_bytes(), path)?;
            return Ok((grid, rewritten.decoded_from));
        }
        match CsvGrid::parse(bytes, path) {
            Err(errors) if errors.iter().any(|d| d.code == Code::InvalidUtf8) => {
                match encoding::decode(bytes) {
                    Some(decoded) => Ok((
                        CsvGrid::parse_general(decoded.text.as_bytes(), path)?,
                        Some(decoded.encoding),
                    )),
                    None => Err(errors),
                }
            }
            parsed => Ok((parsed?, None)),
        }
    }

    /// Parse a whole file with the csv crate, whatever it holds.
    fn parse_general(bytes: &[u8], path: &Path) -> Result<CsvGrid<'static>, Vec<Diagnostic>> {
        let mut parser = CsvParser::new(bytes, path, 1);
        let mut grid = CsvGrid::default();
        parser.fill(&mut grid, usize::MAX);
        if parser.errors.is_empty() {
            Ok(grid)
        } else {
            Err(parser.errors)
        }
    }

    fn clear(&mut self) {
        match &mut self.text {
            Cow::Owned(text) => text.clear(),
            Cow::Borrowed(_) => self.text = Cow::Borrowed(""),
        }
        self.fields.clear();
        self.record_starts.clear();
        self.record_starts.push(0);
        self.lines.clear();
    }
}

impl Grid for CsvGrid<'_> {
    fn height(&self) -> usize {
        self.lines.len()
    }

    #[inline]
    fn width(&self, row: usize) -> usize {
        match (self.record_starts.get(row), self.record_starts.get(row + 1)) {
            (Some(first), Some(next)) => next - first,
            _ => 0,
        }
    }

    #[inline(always)]
    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        let (Some(&first), Some(&next)) =
            (self.record_starts.get(row), self.record_starts.get(row + 1))
        else {
            return Cell::Empty;
        };
        if first + column >= next {
            return Cell::Empty;
        }
        let (start, end) = self.fields[first + column];
        // A cell written `'=…` so that a spreadsheet does not run it (masterctl's own
        // CSV exports write text so) is read as the text after the `'`.
        Cell::Text(crate::sheet_csv::restore(&self.text[start..end]))
    }

    fn row_position(&self, row: usize) -> u64 {
        self.lines.get(row).copied().unwrap_or(0)
    }

    fn column_position(&self, column: usize) -> u32 {
        u32::try_from(column).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file past two segments is read in segments, unless it is UTF-16 (rewritten as
    /// CSV whole first); a singleton's, and a tab-separated file's, are read whole.
    #[test]
    fn a_large_file_in_utf16_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let size = 2 * segments::SEGMENT_BYTES + 2;
        let write = |name: &str, start: &[u8]| {
            let path = dir.path().join(name);
            let mut bytes = start.to_vec();
            bytes.resize(size, b'a');
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let opened = |path: &Path, in_segments: bool| match open(path, in_segments).unwrap() {
            Opened::Whole(bytes) => Some(bytes.len()),
            Opened::Large(..) => None,
        };
        let plain = write("plain.csv", b"a,");
        assert_eq!(opened(&plain, true), None);
        assert_eq!(opened(&plain, false), Some(size));
        for bom in [b"\xFF\xFE", b"\xFE\xFF"] {
            assert_eq!(opened(&write("utf16.csv", bom), true), Some(size));
        }
    }

    /// Every cell of two grids, row by row, with the line of each row.
    fn cells(grid: &dyn Grid) -> Vec<(u64, Vec<String>)> {
        (0..grid.height())
            .map(|r| {
                let row = (0..grid.width(r))
                    .map(|c| grid.cell(r, c).display())
                    .collect();
                (grid.row_position(r), row)
            })
            .collect()
    }

    #[test]
    fn plain_csv_reads_like_the_csv_crate() {
        let samples = [
            "id,name\n1,x\n2,y\n",
            "\u{feff}id,name\r\n1,鉄の剣\r\n\r\n2,\r\n",
            "a,b,c\n\n\n1,,3\n,,\n4,5\n6\n",
            "id;name\n1;x",
            " id , name \n 1 , x y \n",
            "",
            "\n\n",
            ",\n,,\r\n\r\n,",
        ];
        // Long lines of many cells, CRLF, and a last line without a line end.
        let long: String = (0..40)
            .map(|i| {
                format!(
                    "{i},{},鉄の剣{},{}\r\n",
                    "x".repeat(i * 7 % 90),
                    i % 3,
                    ",".repeat(i % 5)
                )
            })
            .collect();
        let no_last_end = format!("{}{}", long, "9,".repeat(50));
        let samples = samples
            .into_iter()
            .chain([long.as_str(), no_last_end.as_str()]);
        for sample in samples {
            let text =
                plain_text(sample.as_bytes()).unwrap_or_else(|| panic!("{sample:?} is plain"));
            let mut lines = PlainLines::new(text);
            let mut plain = CsvGrid::default();
            let mut plain_cells = Vec::new();
            // Pieces of two records, to cross piece boundaries.
            while lines.fill(&mut plain, 2) {
                assert!(plain.height() <= 2, "{sample:?}");
                plain_cells.extend(cells(&plain));
            }
            let general = CsvGrid::parse_general(sample.as_bytes(), Path::new("t.csv")).unwrap();
            assert_eq!(plain_cells, cells(&general), "{sample:?}");
        }
    }

    #[test]
    fn quotes_lone_carriage_returns_and_bad_utf8_are_not_plain() {
        assert!(plain_text(b"id,name\n1,\"a,b\"\n").is_none());
        assert!(plain_text(b"id,name\r1,x\r").is_none());
        assert!(plain_text(b"id,name\n1,\xff\n").is_none());
        assert!(plain_text(b"id,name\r\n1,x\r\n").is_some());
    }
}
