//! From a sheet to a typed table: the spreadsheet conventions (README "Spreadsheet conventions").
//!
//! The first row that names a field is the header (rows above it — titles, notes — are
//! not data); its cells name fields (`#` columns are comments). Below it, empty rows,
//! rows whose first cell starts with `#`, and a first row declaring the columns' types
//! (tableau's, `uint32 | string | []int32`) are skipped. Every other cell is converted to its field's type and
//! checked (required, enum, range, length, pattern); each mistake becomes a diagnostic
//! with its cell, and the table is still built so that later checks see every row.

mod pieces;
mod slots;

use std::path::Path;

use slots::Slots;

use crate::check::{Problem, check_value, problem};
use crate::diagnostic::{Code, Diagnostic, Location};
use crate::grid::{AnyGrid, Cell, Grid};
use crate::parse::{describe, parse_text_in};
use crate::schema::{BoolSpellings, Field, FieldType, Leaf, OtherColumns, TableKind, TableSchema};
use crate::suggest::did_you_mean;
use crate::table::{Origin, SourceFormat, Table};
use crate::value::{self, Value, float_to_int, format_float};
use crate::vertical::Vertical;
use crate::zone::Zone;

/// Build a table from a grid with a new `builder`. Returns the table (whenever a header
/// was found, even with errors, so that later checks see every row) and the diagnostics.
pub fn build_table(
    mut builder: TableBuilder<'_>,
    grid: &dyn Grid,
) -> (Option<Table>, Vec<Diagnostic>) {
    let schema = builder.schema;
    if let Some(vertical) = Vertical::find(schema, grid) {
        // Names down a column, values beside them: a record per values column (a
        // singleton's one record, whatever its cells).
        builder.origin.vertical = true;
        builder.read_header(&vertical, 0);
        for record in 1..vertical.height() {
            let before = builder.rows.len();
            builder.push_row(&vertical, record);
            if builder.rows.len() == before {
                continue;
            }
            // Its multi-row lists going on in the rows below, in its own column.
            for (field, cell, row, column) in vertical.continued(record - 1) {
                // Positions swapped back, as the vertical origin keeps them.
                let mut location = builder
                    .origin
                    .location(u64::from(column), u32::try_from(row).ok());
                location.table = Some(schema.name.clone());
                location.field = Some(schema.fields[field].name.clone());
                let converted = convert(&schema.fields[field], cell);
                builder.append(field, converted, location);
            }
        }
        return builder.finish();
    }
    builder.push_rows(grid);
    builder.finish()
}

/// Builds a table from a sheet given whole or in consecutive pieces (a large CSV file
/// is read a few thousand records at a time, into the same buffers).
pub struct TableBuilder<'s> {
    schema: &'s TableSchema,
    /// Where the rows came from (its `rows` are kept in `rows` until the table is done).
    origin: Origin,
    columns: Vec<Slots<'s, Value>>,
    /// Each row's position in the sheet (see [`Origin::rows`]).
    rows: Slots<'s, u64>,
    header: Option<HeaderState>,
    diagnostics: Vec<Diagnostic>,
    reported_stray_columns: std::collections::HashSet<usize>,
    /// Which of `diagnostics` (by index) report a column's values without a header, and
    /// the column: a piece typed apart reports what an earlier piece may have reported.
    stray_reports: Vec<(usize, usize)>,
    /// The first rows looked at for a header (at most [`LOOKED_AT`]): position, text,
    /// and their cells' texts.
    looked_at: Vec<(u64, String, Vec<String>)>,
    /// The header was just read: the next row may declare types (tableau's type row).
    after_header: bool,
    /// The type row was just read: the next row may be notes (tableau's note row).
    type_row: Option<usize>,
    /// tabtoy's meta row was read under the type row (at most one is).
    after_meta: bool,
    /// The sheet's name, as the `source_sheet` field's value (a table read from several
    /// sheets); set with the header.
    sheet_value: Value,
    /// The cells (row, field) whose mistakes were said, in a table of several cases:
    /// not said again as a case's value missing.
    wrong: std::collections::HashSet<(usize, usize)>,
}

/// The mapped header, and the columns to watch for values without a header.
#[derive(Clone)]
struct HeaderState {
    header: Header,
    width: usize,
    unheaded: Vec<usize>,
}

impl<'s> TableBuilder<'s> {
    pub fn new(schema: &'s TableSchema, path: &Path, format: SourceFormat) -> TableBuilder<'s> {
        TableBuilder {
            schema,
            origin: Origin {
                file: path.to_path_buf(),
                format,
                columns: Vec::new(),
                rows: Vec::new(),
                vertical: false,
                kept_in: None,
                sheets: None,
            },
            columns: (0..schema.fields.len()).map(|_| Slots::default()).collect(),
            rows: Slots::default(),
            header: None,
            diagnostics: Vec::new(),
            reported_stray_columns: std::collections::HashSet::new(),
            stray_reports: Vec::new(),
            looked_at: Vec::new(),
            after_header: false,
            after_meta: false,
            type_row: None,
            sheet_value: Value::Null,
            wrong: std::collections::HashSet::new(),
        }
    }

    /// Keep only the values of the fields `kept` marks (by field index); the other
    /// fields' cells are typed and checked as any, and their columns in the table are
    /// left empty. For reading that keeps no table ([`crate::read::Keep::ForChecks`]).
    pub fn keeping(mut self, kept: &[bool]) -> TableBuilder<'s> {
        // A row's sheet is kept to place it.
        let sheet_field = self.schema.spread.as_ref().map(|s| s.field);
        for (field, (column, &kept)) in self.columns.iter_mut().zip(kept).enumerate() {
            if !kept && Some(field) != sheet_field {
                *column = Slots::Unkept;
            }
        }
        self
    }

    /// Whether the header row has been read.
    pub fn header_read(&self) -> bool {
        self.header.is_some()
    }

    /// Whether every row from here on is a record of its own, typed the same wherever
    /// it is read: the header is read (and the rows right under it that may be
    /// structure), and no field takes values from the rows below its record. Rows from
    /// here can then be typed in pieces on every core ([`TableBuilder::push_pieces`]).
    pub fn settled(&self) -> bool {
        self.header.is_some()
            && !self.after_header
            && self.type_row.is_none()
            && !self.schema.fields.iter().any(|f| f.multi_row)
    }

    /// How many rows it holds so far.
    pub fn row_count(&self) -> usize {
        self.rows.len()
    }

    /// How many fields each row has.
    pub fn width(&self) -> usize {
        self.columns.len()
    }

    /// Make room for `rows` more rows at once, so that large tables are allocated once
    /// instead of being copied as they grow.
    pub fn reserve(&mut self, rows: usize) {
        for column in &mut self.columns {
            column.reserve_exact(rows);
        }
        self.rows.reserve_exact(rows);
    }

    /// Take every row of `grid` (the header first, if it has not been seen yet). Made
    /// for each kind of grid (plain CSV's above all), so that reading a cell is no call.
    pub fn push_rows<G: AnyGrid + ?Sized>(&mut self, grid: &G) {
        self.reserve(grid.height().saturating_sub(self.rows.spare()));
        for row in 0..grid.height() {
            if self.header.is_none() || self.after_header || self.type_row.is_some() {
                self.push_first_row(grid.as_dyn(), row);
                continue;
            }
            if is_skipped(grid, row) {
                continue;
            }
            if self.goes_on(grid, row) {
                self.continue_record(grid.as_dyn(), row);
            } else {
                self.push_row(grid, row);
            }
        }
    }

    /// A row before the header, the header, or one of the rows right under it that
    /// may be structure.
    fn push_first_row(&mut self, grid: &dyn Grid, row: usize) {
        if self.header.is_none() {
            if self.names_a_field(grid, row) {
                self.read_header(grid, row);
                self.after_header = true;
            } else if self.looked_at.len() < LOOKED_AT && !is_skipped(grid, row) {
                let cells = (0..grid.width(row).min(64))
                    .map(|c| grid.cell(row, c).display().trim().to_string())
                    .filter(|t| !t.is_empty())
                    .collect();
                self.looked_at
                    .push((grid.row_position(row), row_text(grid, row), cells));
            }
            return;
        }
        if is_skipped(grid, row) {
            return;
        }
        // A row declaring each column's type right under the header is structure,
        // and so is a note row under it (tableau's: what each column is).
        if std::mem::take(&mut self.after_header) && crate::structure::is_type_row(grid, row) {
            self.type_row = Some(row);
            return;
        }
        // tabtoy's meta row under its type row (`MakeIndex:true`): structure too.
        if self.type_row.is_some() && !self.after_meta && crate::structure::is_meta_row(grid, row) {
            self.after_meta = true;
            return;
        }
        if let Some(types) = self.type_row.take()
            && (crate::structure::is_note_row(grid, row, types) || self.describes_fields(grid, row))
        {
            return;
        }
        if self.goes_on(grid, row) {
            self.continue_record(grid, row);
        } else {
            self.push_row(grid, row);
        }
    }

    /// Whether `row` (under a type row) writes the fields' `description`s: each cell in a
    /// field's column is that field's description, and one at least is there. A note row
    /// of text columns, which typing alone cannot tell from data (excel2json's).
    fn describes_fields(&self, grid: &dyn Grid, row: usize) -> bool {
        let Some(state) = &self.header else {
            return false;
        };
        let mut described = false;
        for (field, column) in self.schema.fields.iter().zip(&state.header.field_columns) {
            let Some(column) = *column else { continue };
            let cell = grid.cell(row, column);
            if cell.is_empty() {
                continue;
            }
            match (&field.description, cell) {
                (Some(description), Cell::Text(text)) if text.trim() == description.trim() => {
                    described = true
                }
                _ => return false,
            }
        }
        described
    }

    /// The header is the first row naming a field (in any letter case, so that a
    /// misspelt header is still found and its columns reported). Rows above it —
    /// titles, notes — are not data.
    fn names_a_field(&self, grid: &dyn Grid, row: usize) -> bool {
        (0..grid.width(row)).any(|column| match grid.cell(row, column) {
            Cell::Text(text) => {
                // A header of several lines is named by its first.
                let text = text.trim().lines().next().unwrap_or_default().trim();
                self.schema
                    .fields
                    .iter()
                    .any(|f| f.name.eq_ignore_ascii_case(text) || f.is_headed(text))
            }
            _ => false,
        })
    }

    fn read_header(&mut self, grid: &dyn Grid, row: usize) {
        let header = Header::read(self.schema, grid, row, &self.origin, &mut self.diagnostics);
        self.origin.columns = header
            .field_columns
            .iter()
            .map(|c| c.map(|c| grid.column_position(c)))
            .collect();
        let width = grid.width(row);
        // Columns no field names may be the studio's notes, not read at all.
        let unheaded = match self.schema.other_columns {
            OtherColumns::Error => (0..width).filter(|&c| !header.is_data_column(c)).collect(),
            OtherColumns::Ignore => Vec::new(),
        };
        self.header = Some(HeaderState {
            header,
            width,
            unheaded,
        });
        if let Some(spread) = &self.schema.spread {
            self.sheet_value = self.sheet_value(&self.schema.fields[spread.field]);
        }
    }

    /// The sheet's name as its `source_sheet` field's value; a mistake (an enum without
    /// it) is said at the sheet.
    fn sheet_value(&mut self, field: &Field) -> Value {
        let Some(name) = self.origin.sheet_name() else {
            return Value::Null;
        };
        match convert(field, Cell::Text(&name)) {
            Ok(value) => value,
            Err(problem) => {
                let mut location = self.origin.whole();
                location.table = Some(self.schema.name.clone());
                location.field = Some(field.name.clone());
                self.diagnostics.push(Diagnostic {
                    location,
                    message: format!(
                        "the sheet's name is field `{}`'s value (`source_sheet`): {}",
                        field.name, problem.message
                    ),
                    ..*problem
                });
                Value::Null
            }
        }
    }

    fn push_row<G: Grid + ?Sized>(&mut self, grid: &G, row: usize) {
        let Some(state) = &self.header else { return };
        let schema = self.schema;
        let position = grid.row_position(row);
        self.rows.push(position);
        for (field_index, field) in schema.fields.iter().enumerate() {
            let values = &mut self.columns[field_index];
            let Some(column) = state.header.field_columns[field_index] else {
                // A missing column was reported once, at the header; the sheet's name
                // is in none.
                values.push(match field.source_sheet {
                    true => self.sheet_value.clone(),
                    // A field of some cases takes its default in their rows alone.
                    false if !field.cases.is_empty() => Value::Null,
                    false => field.default.clone().unwrap_or(Value::Null),
                });
                continue;
            };
            let spread = field.element_over_columns();
            if spread.is_some() || field.spread_over_columns() {
                let span = Span::new(grid, row, column, &state.header.more_columns[field_index]);
                let (value, problems) = match spread {
                    Some(separator) => spread_element(field, separator, span),
                    None => spread_list(field, span),
                };
                if values.keeps() {
                    values.push(value);
                }
                for (column, problem) in problems {
                    let column = grid.column_position(column);
                    let diagnostic =
                        placed(problem, &self.origin, (schema, field), position, column);
                    self.diagnostics.push(diagnostic);
                }
                continue;
            }
            // Each value goes straight to its column; a value not kept is not made
            // where making it costs (a text's copy). A kept int (a key or a reference,
            // most often) is written where it stays, not moved there.
            let cell = grid.cell(row, column);
            if values.keeps()
                && let Cell::Text(text) = cell
                && let Some(i) = plain_int_within(field, text)
            {
                values.push(Value::Int(i));
                continue;
            }
            let problem = match cell {
                cell if !values.keeps() => check_cell(field, cell).err(),
                cell => {
                    let typed = match cell {
                        Cell::Text(text) => convert_text(field, text)
                            .unwrap_or_else(|| convert(field, Cell::Text(text))),
                        cell => convert(field, cell),
                    };
                    match typed {
                        Ok(value) => {
                            values.push(value);
                            continue;
                        }
                        Err(problem) => {
                            values.push(Value::Null);
                            problem
                        }
                    }
                    .into()
                }
            };
            if let Some(problem) = problem {
                let column = grid.column_position(column);
                let diagnostic = placed(problem, &self.origin, (schema, field), position, column);
                self.diagnostics.push(diagnostic);
                if schema.case_field.is_some() {
                    self.wrong.insert((self.rows.len() - 1, field_index));
                }
            }
        }
        // Values under no header are data nobody will see: an error, once per column.
        let beyond_header = match schema.other_columns {
            OtherColumns::Error => state.width..grid.width(row).max(state.width),
            OtherColumns::Ignore => 0..0,
        };
        for column in state.unheaded.iter().copied().chain(beyond_header) {
            let cell = grid.cell(row, column);
            if cell.is_empty() || !self.reported_stray_columns.insert(column) {
                continue;
            }
            self.stray_reports.push((self.diagnostics.len(), column));
            let mut location = self
                .origin
                .location(position, Some(grid.column_position(column)));
            location.table = Some(schema.name.clone());
            // A CSV file's place is a line: the column is named in the message.
            let message = match (self.origin.vertical, &location.cell) {
                (true, _) => "this row has a value but no name".to_string(),
                (false, Some(_)) => "this column has values but no header".to_string(),
                (false, None) => format!(
                    "column {} has values but no header",
                    crate::diagnostic::column_letters(grid.column_position(column))
                ),
            };
            self.diagnostics.push(
                Diagnostic::new(Code::UnknownColumn, location, message)
                .found(cell.display())
                .hint(match self.origin.vertical {
                    false => "name the column after a field, or start its header with `#` to mark it as a comment",
                    true => "name the row after a field in the names column, or start the name with `#` to mark it as a comment",
                })
                .arg("case", "stray")
                .arg("hint", "comment"),
            );
        }
    }

    /// Whether `row` goes on with the record above: the table has multi-row fields, a
    /// record was read, and the row's key cells are empty (any row after a singleton's
    /// first).
    fn goes_on<G: Grid + ?Sized>(&self, grid: &G, row: usize) -> bool {
        let Some(state) = &self.header else {
            return false;
        };
        if self.rows.is_empty() || !self.schema.fields.iter().any(|f| f.multi_row) {
            return false;
        }
        match self.schema.kind {
            TableKind::Singleton => true,
            TableKind::List => false,
            TableKind::Keyed => self.schema.primary_key.iter().all(|&k| {
                state.header.field_columns[k].is_some_and(|c| grid.cell(row, c).is_empty())
            }),
        }
    }

    /// A row that goes on with the record above: its multi-row fields' elements are
    /// added to the record's; a value in any other field is a mistake at its cell.
    fn continue_record(&mut self, grid: &dyn Grid, row: usize) {
        let Some(state) = &self.header else { return };
        let schema = self.schema;
        let position = grid.row_position(row);
        let header = &state.header;
        let cells: Vec<(usize, usize)> = (0..schema.fields.len())
            .filter_map(|f| Some((f, header.field_columns[f]?)))
            .filter(|&(f, column)| {
                let more = match schema.fields[f].element_over_columns() {
                    Some(_) => &header.more_columns[f][..],
                    None => &[],
                };
                let mut columns = std::iter::once(column).chain(more.iter().copied());
                columns.any(|c| !grid.cell(row, c).is_empty())
            })
            .collect();
        for (field_index, column) in cells {
            let field = &schema.fields[field_index];
            let mut location = self
                .origin
                .location(position, Some(grid.column_position(column)));
            location.table = Some(schema.name.clone());
            location.field = Some(field.name.clone());
            if let Some(separator) = field.element_over_columns() {
                let Some(state) = &self.header else { return };
                let more = &state.header.more_columns[field_index];
                let (value, problems) =
                    spread_element(field, separator, Span::new(grid, row, column, more));
                if problems.is_empty() {
                    self.append(field_index, Ok(value), location);
                }
                for (at, problem) in problems {
                    let at = grid.column_position(at);
                    let diagnostic = placed(problem, &self.origin, (schema, field), position, at);
                    self.diagnostics.push(diagnostic);
                }
                continue;
            }
            if field.multi_row {
                let converted = convert(field, grid.cell(row, column));
                self.append(field_index, converted, location);
                continue;
            }
            let multi_row: Vec<&str> = schema
                .fields
                .iter()
                .filter(|f| f.multi_row)
                .map(|f| f.name.as_str())
                .collect();
            let key = match schema.kind {
                TableKind::Singleton => "the singleton holds one record".to_string(),
                _ => format!(
                    "its key ({}) is empty",
                    schema.primary_key_names().join(", ")
                ),
            };
            self.diagnostics.push(
                Diagnostic::new(
                    Code::Required,
                    location,
                    format!(
                        "this row goes on with the record above ({key}), and only its multi-row fields take values there: {}",
                        multi_row.join(", ")
                    ),
                )
                .found(grid.cell(row, column).display())
                .hint("fill in the key to start a record of its own, or move the value to the record's first row"),
            );
        }
    }

    /// Elements of a multi-row field, from a cell below its record, added to the
    /// record's list (each checked as the field's).
    fn append(
        &mut self,
        field_index: usize,
        converted: Result<Value, Problem>,
        location: Location,
    ) {
        match converted {
            Ok(Value::List(more)) => {
                let Some(last) = self.columns[field_index].last_mut() else {
                    return;
                };
                let items: Vec<Value> = match last {
                    Value::List(items) => items.iter().chain(more.iter()).cloned().collect(),
                    _ => more.to_vec(),
                };
                *last = Value::List(items.into());
            }
            Ok(_) => {}
            Err(mut problem) => {
                problem.location = location;
                self.diagnostics.push(*problem);
            }
        }
    }

    /// The table, or `None` (and a diagnostic) when no header row was ever seen.
    pub fn finish(mut self) -> (Option<Table>, Vec<Diagnostic>) {
        if self.header.is_none() {
            let looked_at = std::mem::take(&mut self.looked_at);
            let (message, position, found) =
                match looked_at.first().map(|(p, t, _)| (*p, t.clone())) {
                    Some((position, text)) => (
                        format!(
                            "no header row: no row names a field of table `{}`",
                            self.schema.name
                        ),
                        position,
                        Some(text),
                    ),
                    None => (
                        format!(
                            "no header row: the sheet for table `{}` is empty",
                            self.schema.name
                        ),
                        0,
                        None,
                    ),
                };
            let mut location = self.origin.location(position, found.as_ref().map(|_| 0));
            location.table = Some(self.schema.name.clone());
            let mut d = Diagnostic::new(Code::MissingHeader, location, message).expected(format!(
                "a header row naming the fields: {}",
                field_names(self.schema)
            ));
            // The row it looked at, or each of them.
            if looked_at.len() > 1 {
                let rows: Vec<String> = looked_at
                    .iter()
                    .map(|(p, t, _)| format!("row {p}: {t}"))
                    .collect();
                d = d.found(rows.join(" | "));
            } else if let Some(found) = found {
                d = d.found(found);
            }
            // Headers close to a field's name or `column` spelling.
            let spellings: Vec<(&str, &str)> = self
                .schema
                .fields
                .iter()
                .flat_map(|f| {
                    std::iter::once(f.name.as_str())
                        .chain(f.columns.iter().map(String::as_str))
                        .map(move |s| (s, f.name.as_str()))
                })
                .collect();
            let mut close = Vec::new();
            for cell in looked_at.iter().flat_map(|(_, _, cells)| cells) {
                if let Some(similar) = did_you_mean(cell, spellings.iter().map(|(s, _)| *s))
                    && let Some((_, field)) = spellings.iter().find(|(s, _)| *s == similar)
                {
                    let pair = format!("`{cell}` for `{field}`");
                    if !close.contains(&pair) && close.len() < 5 {
                        close.push(pair);
                    }
                }
            }
            d = d.hint(if close.is_empty() {
                "name each column after its field in one row, or give the field the sheet's header with `column = \"...\"` in the schema".to_string()
            } else {
                format!(
                    "closest: {}; rename the header, or give the field `column = \"...\"` in the schema",
                    close.join(", ")
                )
            });
            self.diagnostics.push(d);
            return (None, self.diagnostics);
        }
        self.origin.rows = self.rows.into_vec();
        let mut table = Table {
            name: self.schema.name.clone(),
            columns: self.columns.into_iter().map(Slots::into_vec).collect(),
            origin: self.origin,
        };
        let cases = crate::cases::settle_cases(self.schema, &mut table, &self.wrong);
        self.diagnostics.extend(cases);
        (Some(table), self.diagnostics)
    }
}

/// A cell's problem at its place in the sheet, naming its table and field.
fn placed(
    mut problem: Problem,
    origin: &Origin,
    (schema, field): (&TableSchema, &Field),
    position: u64,
    column: u32,
) -> Diagnostic {
    problem.location = Location {
        table: Some(schema.name.clone()),
        field: Some(field.name.clone()),
        ..origin.location(position, Some(column))
    };
    *problem
}

/// An empty row, or a comment row (its first cell starts with `#`).
fn is_skipped<G: Grid + ?Sized>(grid: &G, row: usize) -> bool {
    let first = grid.cell(row, 0);
    if first.is_comment() {
        return true;
    }
    first.is_empty() && (1..grid.width(row)).all(|c| grid.cell(row, c).is_empty())
}

/// The rows above the header a missing-header error shows.
const LOOKED_AT: usize = 3;

/// A row's cells as the planner sees them, for messages (`id, name, price`).
fn row_text(grid: &dyn Grid, row: usize) -> String {
    let cells: Vec<String> = (0..grid.width(row).min(12))
        .map(|c| grid.cell(row, c).display())
        .filter(|t| !t.is_empty())
        .collect();
    cells.join(", ")
}

fn field_names(schema: &TableSchema) -> String {
    schema
        .fields
        .iter()
        .map(|f| f.header_names())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The header row, mapped: which grid column holds each field.
#[derive(Clone)]
struct Header {
    field_columns: Vec<Option<usize>>,
    /// For each field, the columns after its first, in column order: a list spread
    /// over repeated headers (`repeated_header`) or over the columns its header spans
    /// (`column_span`); none for every other field.
    more_columns: Vec<Vec<usize>>,
    /// Grid columns that are comments (`#...` headers) and so may hold anything.
    comment_columns: Vec<usize>,
}

impl Header {
    fn read(
        schema: &TableSchema,
        grid: &dyn Grid,
        row: usize,
        origin: &Origin,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Header {
        let mut header = Header {
            field_columns: vec![None; schema.fields.len()],
            more_columns: vec![Vec::new(); schema.fields.len()],
            comment_columns: Vec::new(),
        };
        let position = grid.row_position(row);
        let located = |column: usize| {
            let mut location = origin.location(position, Some(grid.column_position(column)));
            location.table = Some(schema.name.clone());
            location
        };
        for column in 0..grid.width(row) {
            let cell = grid.cell(row, column);
            if cell.is_empty() {
                continue;
            }
            if cell.is_comment() {
                header.comment_columns.push(column);
                continue;
            }
            let text = cell.display();
            let whole = text.trim();
            // A header of several lines (tableau's name, then a note) is named by its
            // first line when the whole names no field.
            let first_line = whole.lines().next().unwrap_or_default().trim();
            let names = |n: &str| {
                schema.field_index(n).is_some()
                    || schema
                        .fields
                        .iter()
                        .any(|f| f.columns.iter().any(|c| c == n))
            };
            let name = match names(whole) || !names(first_line) {
                true => whole,
                false => first_line,
            };
            // The fields this header names: by name, or by a `column` spelling — each
            // at its `column_offset` right of it (a structure spread over columns).
            // `*name`: a multi-row field (Luban's mark).
            let starred = name
                .strip_prefix('*')
                .and_then(|n| schema.field_index(n))
                .filter(|&f| schema.fields[f].multi_row);
            let named = schema
                .field_index(name)
                .filter(|&f| !schema.fields[f].source_sheet);
            let targets: Vec<(usize, usize)> = match named.or(starred) {
                Some(field) => vec![(field, column)],
                None => schema
                    .fields
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.columns.iter().any(|c| c == name))
                    .map(|(i, f)| (i, column + f.column_offset))
                    .collect(),
            };
            let mut duplicate = false;
            for &(field, at) in &targets {
                match header.field_columns[field] {
                    // A list spread over columns that repeat its header.
                    Some(_) if schema.fields[field].repeated_header => {
                        header.more_columns[field].push(at);
                    }
                    Some(first) if !duplicate => {
                        duplicate = true;
                        let mut location = located(column);
                        location.field = Some(name.to_string());
                        diagnostics.push(
                            Diagnostic::new(
                                Code::DuplicateColumn,
                                location,
                                format!("column `{name}` appears twice in the header"),
                            )
                            .hint(format!(
                                "it is also in column {}; keep one",
                                crate::diagnostic::column_letters(grid.column_position(first))
                            ))
                            .arg("name", name.to_string())
                            .arg("hint", "also-in")
                            .arg(
                                "column",
                                crate::diagnostic::column_letters(grid.column_position(first)),
                            ),
                        );
                    }
                    Some(_) => {}
                    None => {
                        header.field_columns[field] = Some(at);
                        // A list over the columns its header spans.
                        let span = schema.fields[field].column_span;
                        header.more_columns[field].extend(at + 1..at + span);
                    }
                }
            }
            if duplicate {
                header.comment_columns.push(column);
            }
            match targets.is_empty() {
                false => {}
                true if schema.other_columns == OtherColumns::Ignore => {
                    header.comment_columns.push(column);
                }
                true => {
                    let mut d = Diagnostic::new(
                        Code::UnknownColumn,
                        located(column),
                        format!(
                            "{} `{name}` is not a field of table `{}`",
                            origin.line_name(),
                            schema.name
                        ),
                    )
                    .found(name.to_string())
                    .expected(format!("one of: {}", field_names(schema)))
                    .arg("case", "name")
                    .arg("name", name.to_string());
                    let free = schema
                        .fields
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| header.field_columns[*i].is_none())
                        .map(|(_, f)| f.name.as_str());
                    if let Some(similar) = did_you_mean(name, free) {
                        d = d.did_you_mean(similar);
                    } else {
                        d = (d.hint("start the header with `#` to keep the column as a comment"))
                            .arg("hint", "comment");
                    }
                    diagnostics.push(d);
                    // Its values are reported with the header; not again per row.
                    header.comment_columns.push(column);
                }
            }
        }
        let first_column = (0..grid.width(row))
            .find(|&c| !grid.cell(row, c).is_empty())
            .unwrap_or(0);
        for (field, column) in schema.fields.iter().zip(&header.field_columns) {
            // A field of some cases may have no column in a sheet of other cases' rows
            // (a row of its cases is then told it has no value).
            if column.is_none() && !field.source_sheet && field.cases.is_empty() {
                let mut location = located(first_column);
                location.field = Some(field.name.clone());
                let spellings = std::iter::once(&field.name)
                    .chain(&field.columns)
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(" or ");
                let mut d = Diagnostic::new(
                    Code::MissingColumn,
                    location,
                    match origin.vertical {
                        false => format!("the header has no column {spellings}"),
                        true => format!("the names column has no row {spellings}"),
                    },
                )
                .expected(format!(
                    "a `{}` {} ({})",
                    field.name,
                    origin.line_name(),
                    field.ty
                ))
                .arg("name", field.name.clone());
                if !field.required() {
                    d = (d.hint(format!(
                        "add the {}; its value may stay empty (the field is optional or has a default)",
                        origin.line_name()
                    )))
                    .arg("hint", "optional-column");
                }
                diagnostics.push(d);
            }
        }
        header
    }

    fn is_data_column(&self, column: usize) -> bool {
        self.field_columns.contains(&Some(column))
            || self.more_columns.iter().any(|more| more.contains(&column))
            || self.comment_columns.contains(&column)
    }
}

/// A record or union spread over the columns its header spans (`column_span`), or a
/// row's element of a multi-row list of them (as a list of it): the cells' texts from
/// its `first` column and the `more` after it, joined by the type's `separator` (the
/// empty cells after the last part left out), read as one value; the first column
/// alone, as the field's cell (a value or list written whole, as export writes it); no
/// cell, as an empty one. A cell no text is written as (an error, a formula without its
/// value) is a mistake at its column; a mistake in the element is at the first. As
/// [`spread_list`]: the value, and the mistakes by column.
fn spread_element<G: Grid + ?Sized>(
    field: &Field,
    separator: &str,
    span: Span<'_, G>,
) -> (Value, Vec<(usize, Problem)>) {
    let mut parts = match span_texts(field, &span) {
        Ok(parts) => parts,
        Err(mistake) => return (Value::Null, vec![mistake]),
    };
    while parts.last().is_some_and(String::is_empty) {
        parts.pop();
    }
    let value = if parts.len() < 2 {
        match parts.pop() {
            Some(text) => convert(field, Cell::Text(&text)),
            None => convert(field, Cell::Empty),
        }
    } else {
        let text = Cell::Text(&parts.join(separator));
        let value = match &field.ty {
            FieldType::List(element) => {
                typed(element, text, &field.zone).map(|one| Value::List(vec![one].into()))
            }
            ty => typed(ty, text, &field.zone),
        };
        value.and_then(|value| check_value(field, &value).map(|()| value))
    };
    span.read_whole(value)
}

/// The texts of a field's cells in `row` from its `first` column and the `more` after
/// it (an empty cell's: empty), or a cell no text is written as (an error, a formula
/// without its value): its column and the mistake.
fn span_texts<G: Grid + ?Sized>(
    field: &Field,
    span: &Span<'_, G>,
) -> Result<Vec<String>, (usize, Problem)> {
    let texts = span
        .columns()
        .map(|column| match span.grid.cell(span.row, column) {
            cell @ (Cell::Error(_) | Cell::FormulaWithoutValue(_)) => {
                let problem = convert(field, cell).err().unwrap_or_else(|| {
                    Box::new(crate::check::problem(Code::ErrorCell, "no value"))
                });
                Err((column, problem))
            }
            cell => Ok(cell.display()),
        });
    texts.collect()
}

/// A list spread over columns (that repeat its header, `repeated_header`, or that its
/// header spans, `column_span`): every column's elements, in column order; an empty
/// cell adds none. Read from its `first` column and the `more` after it. The list is
/// required (or defaulted) as a whole; each mistake is at its cell's column.
fn spread_list<G: Grid + ?Sized>(
    field: &Field,
    span: Span<'_, G>,
) -> (Value, Vec<(usize, Problem)>) {
    if let Some(separator) = parts_in_turn(field) {
        return spread_parts(field, separator, span);
    }
    let mut items = Vec::new();
    let mut problems = Vec::new();
    for column in span.columns() {
        let cell = span.grid.cell(span.row, column);
        if cell.is_empty() || matches!(cell, Cell::Text(t) if is_null_spelling(field, t)) {
            continue;
        }
        match convert(field, cell) {
            Ok(Value::List(more)) => items.extend(more.iter().cloned()),
            Ok(_) => {}
            Err(problem) => problems.push((column, problem)),
        }
    }
    if !problems.is_empty() {
        return (Value::Null, problems);
    }
    if !items.is_empty() {
        return (Value::List(items.into()), problems);
    }
    // Every column empty: the field's default, or nothing, or a mistake at the first.
    span.read_whole(convert(field, Cell::Empty))
}

/// A field's cells in one row of a grid: its `first` column and the `more` after it (a
/// list over repeated headers, anything over the columns its header spans).
struct Span<'g, G: ?Sized> {
    grid: &'g G,
    row: usize,
    first: usize,
    more: &'g [usize],
}

impl<'g, G: Grid + ?Sized> Span<'g, G> {
    fn new(grid: &'g G, row: usize, first: usize, more: &'g [usize]) -> Self {
        Span {
            grid,
            row,
            first,
            more,
        }
    }

    /// Its columns, the first first.
    fn columns(&self) -> impl Iterator<Item = usize> + 'g {
        std::iter::once(self.first).chain(self.more.iter().copied())
    }

    /// A value read from the span as a whole: it, or its mistake at the first column.
    fn read_whole(&self, read: Result<Value, Problem>) -> (Value, Vec<(usize, Problem)>) {
        match read {
            Ok(value) => (value, Vec::new()),
            Err(problem) => (Value::Null, vec![(self.first, problem)]),
        }
    }
}

/// The separator of a list of records whose parts are separated as its elements are
/// (Luban's `list,Pair` of a bean of no separator of its own: `1,2,3,4`, a record after
/// another); `None` for any other field.
fn parts_in_turn(field: &Field) -> Option<&str> {
    let FieldType::List(element) = &field.ty else {
        return None;
    };
    let separator = field.separator.as_deref()?;
    matches!(&**element, FieldType::Record(r) if *r.separator == *separator).then_some(separator)
}

/// A list of records over columns, their parts separated as the records are: the
/// columns' texts are one run of parts (`1`, `2`, `3,4`: two records), read as one cell
/// of the field's; a mistake is at the `first` column (a cell no value is written as, at
/// its own).
fn spread_parts<G: Grid + ?Sized>(
    field: &Field,
    separator: &str,
    span: Span<'_, G>,
) -> (Value, Vec<(usize, Problem)>) {
    let mut parts = match span_texts(field, &span) {
        Ok(parts) => parts,
        Err(mistake) => return (Value::Null, vec![mistake]),
    };
    parts.retain(|t| !t.trim().is_empty() && !is_null_spelling(field, t));
    let joined;
    let cell = match parts.is_empty() {
        true => Cell::Empty,
        false => {
            joined = parts.join(separator);
            Cell::Text(&joined)
        }
    };
    span.read_whole(convert(field, cell))
}

/// A bool's (or a list of bools') text with the field's other spellings of true and
/// false (`bool_spellings`) written as `true` and `false`; `None` when it has none.
fn respell_bools(field: &Field, text: &str) -> Option<String> {
    let spellings = field.bool_spellings;
    if spellings == BoolSpellings::Plain {
        return None;
    }
    match &field.ty {
        FieldType::Bool => spellings.read(text).map(|b| b.to_string()),
        FieldType::List(_) => {
            let separator = field.separator.as_deref().unwrap_or("|");
            let mut changed = false;
            let parts: Vec<String> = text
                .split(separator)
                .map(|part| match spellings.read(part) {
                    Some(b) => {
                        changed = true;
                        b.to_string()
                    }
                    None => part.to_string(),
                })
                .collect();
            changed.then(|| parts.join(separator))
        }
        _ => None,
    }
}

/// A bool's type error naming every spelling the field takes.
fn spellings_said(field: &Field, mut problem: Problem) -> Problem {
    if field.ty == FieldType::Bool && field.bool_spellings != BoolSpellings::Plain {
        let said = field.bool_spellings.described();
        if let Some(found) = &problem.found {
            problem.message = format!("expected {said}, found `{found}`");
        }
        problem.expected = Some(said.to_string());
    }
    problem
}

/// The enum value an alias or number names.
fn enum_alias(field: &Field, text: &str) -> Option<std::sync::Arc<str>> {
    field
        .aliases
        .iter()
        .find(|(alias, _)| alias == text)
        .map(|(_, value)| value.clone())
}

/// Check one cell of a field whose value is not kept, as [`convert`] would, without
/// making a value where that costs: a text is checked where it lies, and an enum's
/// value found among the field's values needs no checks.
fn check_cell(field: &Field, cell: Cell) -> Result<(), Problem> {
    let Cell::Text(text) = cell else {
        return convert(field, cell).map(drop);
    };
    let plain = reads_as_written(field, text);
    match &field.ty {
        FieldType::Enum if plain && field.values.iter().any(|v| **v == *text) => Ok(()),
        FieldType::String | FieldType::Text
            if plain && !text.is_empty() && field.min.is_none() && field.max.is_none() =>
        {
            crate::check::check_text(field, text)
        }
        _ => match plain.then(|| number_or_date(&field.ty, text)).flatten() {
            Some(value) => check_value(field, &value),
            None => convert(field, cell).map(drop),
        },
    }
}

/// A text cell typed as [`convert`] types it, for the kinds most cells are (numbers,
/// dates, texts, enum values) when the field reads no escapes and the text spells no
/// null; `None` leaves the cell to `convert`. Made part of the loop over a row's cells,
/// so that the value goes straight to its column.
#[inline(always)]
fn convert_text(field: &Field, text: &str) -> Option<Result<Value, Problem>> {
    if !reads_as_written(field, text) {
        return None;
    }
    let value = match &field.ty {
        FieldType::Enum => {
            // As `convert`: a value found among the field's is that value, unchecked.
            let value = field.values.iter().find(|v| ***v == *text)?;
            return Some(Ok(Value::Str(value.clone())));
        }
        FieldType::String | FieldType::Text if !text.is_empty() => Value::Str(text.into()),
        ty => number_or_date(ty, text)?,
    };
    Some(match check_value(field, &value) {
        Ok(()) => Ok(value),
        Err(problem) => Err(problem),
    })
}

/// A text cell of an int field read as `convert` reads it, when it is within the
/// field's bounds (ints, or none): all there is to check of it.
#[inline(always)]
fn plain_int_within(field: &Field, text: &str) -> Option<i64> {
    if field.ty != FieldType::Int || !reads_as_written(field, text) {
        return None;
    }
    let i = masterctl_runtime::text::parse_int(text)?;
    crate::check::within_bounds(field, &Value::Int(i)).then_some(i)
}

/// An int, float or date spelled as its field reads it (what `parse_text_in` makes of
/// it); `None` for anything else, a mistake included.
#[inline(always)]
fn number_or_date(ty: &FieldType, text: &str) -> Option<Value> {
    match ty {
        FieldType::Int => masterctl_runtime::text::parse_int(text).map(Value::Int),
        FieldType::Float => masterctl_runtime::text::parse_float(text).map(Value::Float),
        FieldType::Date => value::parse_date(text.trim()).map(Value::Date),
        _ => None,
    }
}

/// Whether a text cell is read as it is written: the field reads no escapes, and the
/// text is no null spelling (the two steps `convert` takes before typing a text).
#[inline(always)]
fn reads_as_written(field: &Field, text: &str) -> bool {
    !field.escapes && !is_null_spelling(field, text)
}

/// A text the project or the field spells an empty cell with (`NULL`).
#[inline(always)]
fn is_null_spelling(field: &Field, text: &str) -> bool {
    field.nulls.iter().any(|n| n == text.trim())
}

/// Convert one cell to a checked value of the field.
fn convert(field: &Field, cell: Cell) -> Result<Value, Problem> {
    // A text the project or the field spells an empty cell with (`NULL`) is empty.
    let cell = match cell {
        Cell::Text(text) if is_null_spelling(field, text) => Cell::Empty,
        other => other,
    };
    // `\n` in a sheet's cell of an `escapes = true` field is a line break.
    let unescaped;
    let cell = match cell {
        Cell::Text(text) if field.escapes => match crate::escapes::unescape(text) {
            Ok(text) => {
                unescaped = text;
                Cell::Text(&unescaped)
            }
            Err(bad) => {
                let mut p = problem(
                    Code::TypeError,
                    format!("`{}` is not an escape", bad.written),
                )
                .found(text)
                .expected(
                    "a text whose escapes are \\n, \\t, \\r, \\uXXXX or \\ before punctuation",
                );
                p.hint = Some(
                    "the field reads escapes (`escapes = true`): write a backslash itself as `\\\\`".into(),
                );
                return Err(p.into());
            }
        },
        other => other,
    };
    // Enum values are shared with the schema rather than copied into every row; an
    // alias or number a value declares (`红`, `1`) is that value.
    if let FieldType::Enum = &field.ty {
        let text = match cell {
            Cell::Text(text) => Some(std::borrow::Cow::Borrowed(text)),
            Cell::Int(n) => Some(n.to_string().into()),
            Cell::Float(f) => crate::value::float_to_int(f).map(|n| n.to_string().into()),
            _ => None,
        };
        if let Some(text) = text {
            if let Some(value) = field.values.iter().find(|v| ***v == *text) {
                return Ok(Value::Str(value.clone()));
            }
            if let Some(value) = enum_alias(field, text.trim()) {
                return Ok(Value::Str(value));
            }
        }
    }
    // A bool the field's sheets spell their own way (`y`, `No`: `bool_spellings`).
    let respelled;
    let cell = match cell {
        Cell::Text(text) => match respell_bools(field, text) {
            Some(text) => {
                respelled = text;
                Cell::Text(&respelled)
            }
            None => cell,
        },
        other => other,
    };
    let own = |m: crate::parse::Mismatch| {
        let mut p = problem(
            Code::TypeError,
            format!("expected {}, found `{}`", m.expected, cell.display()),
        )
        .found(cell.display())
        .expected(m.expected)
        .arg("type", field.ty.to_string());
        p.hint = m.hint;
        p.said.extend(m.said);
        Problem::new(p)
    };
    let value = match (&field.ty, cell) {
        // A list written with the field's own separator (`1,2,3`).
        (FieldType::List(inner), Cell::Text(text))
            if field.separator.is_some() && !text.trim().is_empty() =>
        {
            let separator = field.separator.as_deref().unwrap_or("|");
            crate::parse::parse_list(inner, text, separator, Some(&field.zone)).map_err(own)?
        }
        // A map written with the field's own separators (`1=100;2=250`, `1,100,2,250`).
        (FieldType::Map(key, value), Cell::Text(text))
            if (field.separator.is_some() || field.key_separator.is_some())
                && !text.trim().is_empty() =>
        {
            let separators = crate::parse::MapSeparators {
                entries: field.separator.as_deref().unwrap_or("|"),
                key: field.key_separator.as_deref().unwrap_or(":"),
            };
            let zone = Some(&field.zone);
            crate::parse::parse_map((key, value), text, separators, zone).map_err(own)?
        }
        _ => typed(&field.ty, cell, &field.zone).map_err(|p| spellings_said(field, p))?,
    };
    // A list of enum values written with aliases or numbers.
    let alias = |value: &Value| match value {
        Value::Str(text) => Value::Str(enum_alias(field, text).unwrap_or_else(|| text.clone())),
        other => other.clone(),
    };
    let value = match value {
        // A map's enum keys or values, likewise (its keys sorted again, by value name).
        Value::Map(entries) if !field.aliases.is_empty() => {
            let mut entries: Vec<(Value, Value)> =
                entries.iter().map(|(k, v)| (alias(k), alias(v))).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Map(entries.into())
        }
        Value::List(items) if !field.aliases.is_empty() => {
            Value::List(items.iter().map(alias).collect())
        }
        other => other,
    };
    if value.is_null() {
        return match &field.default {
            // A field of some cases takes its default in their rows alone (`crate::cases`).
            Some(_) if !field.cases.is_empty() => Ok(Value::Null),
            Some(default) => Ok(default.clone()),
            // A field of some cases is required in their rows alone (`crate::cases`).
            None if !field.required() => Ok(Value::Null),
            None => Err(problem(
                Code::Required,
                format!("`{}` is required but the cell is empty", field.name),
            )
            .expected(describe(&field.ty))
            .arg("case", "empty")
            .into()),
        };
    }
    check_value(field, &value)?;
    Ok(value)
}

/// A record of one part holding `value`: each record on the way to its one field.
fn one_part(record: &crate::schema::RecordType, value: Value) -> Value {
    let inner = match record.fields.first().map(|f| &f.ty) {
        Some(FieldType::Record(nested)) => one_part(nested, value),
        _ => value,
    };
    Value::record(record.separator.clone(), vec![inner])
}

/// The cell's value in the field's type, before the field's other checks.
/// A datetime without an offset is a wall-clock time in `zone`.
fn typed(ty: &FieldType, cell: Cell, zone: &Zone) -> Result<Value, Problem> {
    // A record of one part in a cell a spreadsheet typed (a number, a date): its field's.
    if let FieldType::Record(record) = ty
        && record.parts() == Some(1)
        && !matches!(cell, Cell::Text(_) | Cell::Empty)
        && let [
            Leaf {
                field: Some(leaf), ..
            },
        ] = record.leaves()[..]
    {
        let value = typed(&leaf.ty, cell, zone)?;
        return Ok(one_part(record, value));
    }
    let mismatch = |hint: Option<String>| {
        let mut p = problem(
            Code::TypeError,
            format!("expected {}, found `{}`", describe(ty), cell.display()),
        )
        .found(cell.display())
        .expected(describe(ty))
        .arg("type", ty.to_string());
        p.hint = hint;
        Problem::new(p)
    };
    let from_text = |text: &str| {
        parse_text_in(ty, text, Some(zone)).map_err(|m| {
            let mut p = mismatch(m.hint);
            p.expected = Some(m.expected);
            p.said.extend(m.said);
            p
        })
    };
    match cell {
        Cell::Empty => Ok(Value::Null),
        Cell::Error(error) => Err(problem(
            Code::ErrorCell,
            format!("the cell holds the error value {error}"),
        )
        .found(error)
        .expected(describe(ty))
        .hint("fix the formula (or the cell it refers to) so that it gives a value")
        .into()),
        Cell::FormulaWithoutValue(formula) => Err(problem(
            Code::FormulaWithoutValue,
            format!(
                "the formula `{}` has no calculated value saved in the file",
                cell.display()
            ),
        )
        .found(format!("={}", formula.trim_start_matches('=')))
        .hint(
            "open the workbook in a spreadsheet application, let it recalculate, and save it again",
        )
        .into()),
        Cell::Text(text) => from_text(text),
        Cell::IsoDateTime(text) => match ty {
            FieldType::Date => value::parse_date(text)
                .or_else(|| {
                    value::parse_datetime(text)
                        .filter(|dt| dt.time_of_day() == 0)
                        .map(|dt| dt.date())
                })
                .map(Value::Date)
                .ok_or_else(|| mismatch(None)),
            _ => from_text(text),
        },
        Cell::Int(i) => match ty {
            FieldType::Int => Ok(Value::Int(i)),
            FieldType::Float => Ok(Value::Float(i as f64)),
            // `20221010` typed as a number: its eight digits.
            FieldType::Date if let Some(date) = masterctl_runtime::calendar::compact_date(i) => {
                Ok(Value::Date(date))
            }
            FieldType::Date | FieldType::DateTime => Err(mismatch(Some(
                "the cell holds a number; type the date, or format the cell as a date".into(),
            ))),
            _ => from_text(&i.to_string()),
        },
        Cell::Float(x) => match ty {
            FieldType::Int => float_to_int(x).map(Value::Int).ok_or_else(|| {
                mismatch(Some(format!(
                    "{} has a fractional part; the field is an int",
                    format_float(x)
                )))
            }),
            FieldType::Float if x.is_finite() => Ok(Value::Float(if x == 0.0 { 0.0 } else { x })),
            FieldType::Date
                if let Some(date) =
                    float_to_int(x).and_then(masterctl_runtime::calendar::compact_date) =>
            {
                Ok(Value::Date(date))
            }
            FieldType::Date | FieldType::DateTime => Err(mismatch(Some(
                "the cell holds a number; type the date, or format the cell as a date".into(),
            ))),
            _ => from_text(&format_float(x)),
        },
        Cell::Bool(b) => match ty {
            FieldType::Bool => Ok(Value::Bool(b)),
            FieldType::String | FieldType::Text | FieldType::Enum => from_text(&cell.display()),
            _ => Err(mismatch(None)),
        },
        Cell::DateTime(dt) => match ty {
            FieldType::DateTime => zone.instant(dt).map(Value::DateTime).ok_or_else(|| {
                mismatch(Some(format!(
                    "the date is outside what {} can hold",
                    zone.name()
                )))
            }),
            FieldType::Date if dt.time_of_day() == 0 => Ok(Value::Date(dt.date())),
            FieldType::Date => Err(mismatch(Some(
                "the cell holds a time of day too; the field is a date".into(),
            ))),
            FieldType::String | FieldType::Text => Ok(Value::Str(cell.display().into())),
            _ => Err(mismatch(Some(
                "the cell is formatted as a date; format it as a number or as text".into(),
            ))),
        },
        Cell::Duration(_) => match ty {
            FieldType::String | FieldType::Text => Ok(Value::Str(cell.display().into())),
            _ => Err(mismatch(Some("the cell is formatted as a duration".into()))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value not kept is checked as it would be typed, and a text cell typed without
    /// the general path is typed as by it: every field kind against every kind of cell
    /// gives the same value and problem, or none.
    #[test]
    fn a_cell_checked_without_its_value_says_what_typing_it_says() {
        let config = "source_language = \"ja\"\nlanguages = [\"ja\"]\nnull = [\"NULL\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";
        let schema = r#"
name = "cells"
kind = "singleton"
fields = [
    { name = "count", type = "int", min = 0 },
    { name = "level", type = "int", optional = true, null = ["0", "-"] },
    { name = "code", type = "string", pattern = "^S[0-9]+$" },
    { name = "name", type = "text", min_length = 1, max_length = 4 },
    { name = "note", type = "string", escapes = true, optional = true },
    { name = "memo", type = "string", default = "-" },
    { name = "element", type = "enum", values = [{ value = "fire", aliases = ["火"], number = 1 }, "ice"] },
    { name = "state", type = "enum", values = ["NULL", "open"] },
    { name = "tags", type = "list<string>", optional = true },
]
"#;
        let project = crate::load::load_from_files(
            Some(("masterctl.toml".into(), config.into())),
            vec![("schemas/skill.toml".into(), schema.into())],
        )
        .unwrap_or_else(|report| panic!("{:#?}", report.diagnostics));
        let texts = [
            "",
            " ",
            "NULL",
            " NULL ",
            "fire",
            "fier",
            "火",
            "S12",
            "s-1",
            "炎",
            "氷の刃の舞",
            "a\\qb",
            "a\\nb",
            "剣\u{7}",
            "{n, plural, one {#本} other {#本}}",
            "x|y",
            "12",
            "-3",
            "0",
            " 7 ",
            "1.0",
        ];
        let cells = texts.iter().map(|t| Cell::Text(t)).chain([
            Cell::Empty,
            Cell::Int(3),
            Cell::Float(1.5),
            Cell::Bool(true),
            Cell::Error("#N/A"),
        ]);
        let cells: Vec<Cell> = cells.collect();
        for field in &project.tables[0].fields {
            for &cell in &cells {
                let typed = convert(field, cell).map_err(|p| *p);
                let checked = check_cell(field, cell).err().map(|p| *p);
                assert_eq!(checked, typed.clone().err(), "{} {cell:?}", field.name);
                if let Cell::Text(text) = cell
                    && let Some(fast) = convert_text(field, text)
                {
                    assert_eq!(fast.map_err(|p| *p), typed, "{} {cell:?}", field.name);
                }
                if let Cell::Text(text) = cell
                    && let Some(int) = plain_int_within(field, text)
                {
                    assert_eq!(Ok(Value::Int(int)), typed, "{} {cell:?}", field.name);
                }
            }
        }
    }
}
