//! CSV files as spreadsheet applications write them: UTF-8 with or without a byte
//! order mark, CRLF or LF, quoted cells spanning lines. The file stem names the sheet
//! (`Item.csv` is sheet `Item`). Every cell is text; the field's type parses it.

use std::path::Path;

use super::{Cell, Grid, ReadOutcome};
use crate::diagnostic::{Code, Diagnostic, Location};
use crate::schema::Project;
use crate::table::SourceFormat;
use crate::typing;

const BOM: &[u8] = b"\xEF\xBB\xBF";

pub fn read(project: &Project, path: &Path) -> ReadOutcome {
    let mut outcome = ReadOutcome::default();
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(schema) = project.table_for_sheet(&stem) else {
        let mut d = Diagnostic::new(
            Code::UnmappedSheet,
            Location::file(path),
            format!("`{stem}` maps to no table; the file was not read"),
        )
        .hint("name a CSV file after a table's `sheet` (or its name)");
        if let Some(similar) =
            crate::load::did_you_mean(&stem, project.tables.iter().map(|t| t.sheet.as_str()))
        {
            d = d.hint(format!("did you mean `{similar}.csv`?"));
        }
        outcome.report.push(d);
        return outcome;
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            outcome.report.push(Diagnostic::new(
                Code::UnreadableFile,
                Location::file(path),
                format!("cannot read the file: {e}"),
            ));
            return outcome;
        }
    };
    let grid = match CsvGrid::parse(&bytes, path) {
        Ok(grid) => grid,
        Err(diagnostics) => {
            outcome.report.extend(diagnostics);
            return outcome;
        }
    };
    let (table, diagnostics) = typing::build_table(schema, &grid, path, SourceFormat::Csv);
    outcome.report.extend(diagnostics);
    outcome.tables.extend(table);
    outcome
}

/// Line numbers of byte offsets, for offsets asked in increasing order.
struct LineCounter<'a> {
    bytes: &'a [u8],
    offset: usize,
    line: u64,
}

impl<'a> LineCounter<'a> {
    fn new(bytes: &'a [u8]) -> LineCounter<'a> {
        LineCounter {
            bytes,
            offset: 0,
            line: 1,
        }
    }

    /// The 1-based line holding byte `offset`.
    fn line_at(&mut self, offset: u64) -> u64 {
        let mut offset = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.bytes.len());
        // The reader's position is where it started looking: before the LF of a CRLF and
        // any empty lines it skipped. A record itself never starts with CR or LF.
        while matches!(self.bytes.get(offset), Some(b'\r' | b'\n')) {
            offset += 1;
        }
        if offset > self.offset {
            self.line += self.bytes[self.offset..offset]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64;
            self.offset = offset;
        }
        self.line
    }
}

/// The records of a CSV file and the line each starts on.
pub struct CsvGrid {
    records: Vec<csv::StringRecord>,
    lines: Vec<u64>,
}

impl CsvGrid {
    /// Parse a whole file. Invalid UTF-8 or a broken record is reported with its line;
    /// all such lines are reported, not just the first.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<CsvGrid, Vec<Diagnostic>> {
        let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(bytes);
        let mut records = Vec::new();
        let mut lines = Vec::new();
        let mut errors = Vec::new();
        let mut record = csv::ByteRecord::new();
        let mut lines_before = LineCounter::new(bytes);
        loop {
            match reader.read_byte_record(&mut record) {
                Ok(false) => break,
                Ok(true) => {
                    let line = lines_before.line_at(record.position().map_or(0, |p| p.byte()));
                    match csv::StringRecord::from_byte_record(record.clone()) {
                        Ok(r) => {
                            records.push(r);
                            lines.push(line);
                        }
                        Err(e) => {
                            let field = e.utf8_error().field();
                            errors.push(
                                Diagnostic::new(
                                    Code::InvalidUtf8,
                                    Location {
                                        line: Some(line),
                                        ..Location::file(path)
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
                    let line = lines_before.line_at(e.position().map_or(0, |p| p.byte()));
                    errors.push(Diagnostic::new(
                        Code::UnreadableFile,
                        Location {
                            line: Some(line),
                            ..Location::file(path)
                        },
                        format!("the CSV file cannot be parsed: {e}"),
                    ));
                    break;
                }
            }
        }
        if errors.is_empty() {
            Ok(CsvGrid { records, lines })
        } else {
            Err(errors)
        }
    }
}

impl Grid for CsvGrid {
    fn height(&self) -> usize {
        self.records.len()
    }

    fn width(&self, row: usize) -> usize {
        self.records.get(row).map_or(0, csv::StringRecord::len)
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        match self.records.get(row).and_then(|r| r.get(column)) {
            Some(text) => Cell::Text(text),
            None => Cell::Empty,
        }
    }

    fn row_position(&self, row: usize) -> u64 {
        self.lines.get(row).copied().unwrap_or(0)
    }

    fn column_position(&self, column: usize) -> u32 {
        u32::try_from(column).unwrap_or(u32::MAX)
    }
}
