//! `export`: a region's data (or any commit's) as the workbooks its schemas read — each
//! table on its sheet, in the file its `source` names (else a workbook of its own named
//! after its sheet), headers as the schemas spell them, values in the spellings import
//! reads, text fields in the source language. Importing the workbooks back changes
//! nothing. Each workbook records the commit it was exported from (the custom document
//! properties `masterctl-commit` and `masterctl-region`). Written as xlsx (`xlsx/`), ODS
//! (`ods.rs`) or CSV files.

mod below;
mod files;
mod looks;
mod ods;
mod parts;
mod rows;
mod vertical;
mod xlsx;

pub use files::{ExportFile, files, write};
pub use looks::{Choices, Look};
pub use rows::{Cell, Row, Rows, TooLarge};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use masterctl_locales::TableTexts;
use masterctl_schemas::schema::Field;
use masterctl_schemas::schema::{Layout, Sheets, Spread};
use masterctl_schemas::{FieldType, Table, TableSchema, Value};
use serde::Serialize;

use crate::MasterRepo;
use crate::StoreError;
use crate::git::repo::blob_id_at;
use crate::names::Branch;
use crate::snapshot::structure::Structure;
use crate::snapshot::{language_path, table_path, texts_at};
use masterctl_schemas::canonical::read_table;
use masterctl_schemas::read::parallel_map;

/// The property of an exported workbook naming the commit it holds.
pub const COMMIT_PROPERTY: &str = "masterctl-commit";
/// The property naming the region.
pub const REGION_PROPERTY: &str = "masterctl-region";

/// The significant digits a spreadsheet keeps of a number.
const SPREADSHEET_DIGITS: usize = 15;

/// How many significant digits a number's text has (`0.30000000000000004`: 17,
/// `1.5e-7`: 2, `1200`: 2).
fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    let (mut counted, mut zeros) = (0, 0);
    for digit in mantissa.bytes().filter(u8::is_ascii_digit) {
        match digit {
            // A zero counts once a digit after it does; none before the first other.
            b'0' => zeros += usize::from(counted > 0),
            _ => {
                counted += zeros + 1;
                zeros = 0;
            }
        }
    }
    counted
}

/// One table on its sheet.
#[derive(Debug, Clone)]
pub struct Sheet {
    pub table: String,
    pub name: String,
    pub header: Vec<String>,
    pub rows: Rows,
    /// Each header column's width, note, drop-down list and number format.
    pub looks: Vec<Look>,
    /// How a workbook lays it out (`layout`): its rows as they are, or turned down a
    /// column (`vertical.rs`); a CSV file holds it by rows.
    pub layout: Layout,
    /// A sheet turned down a column: each row's looks (its field's) — its note on its
    /// name, its drop-down over the row's records. Empty for a sheet of rows.
    pub row_looks: Vec<Look>,
}

/// The most columns a spreadsheet has (Excel's 16,384): a vertical sheet of more records
/// than that, beside the names column, stays in rows.
const MOST_COLUMNS: usize = 16_384;

impl Sheet {
    /// Whether a workbook writes it turned down a column (`vertical.rs`): of the vertical
    /// layout, and its records fit a sheet's columns.
    fn turns(&self) -> bool {
        self.layout == Layout::Vertical && self.rows.len() < MOST_COLUMNS
    }
}

/// One workbook: its path under the output folder (`/`-separated) and its sheets, in
/// order. `sourced`: the path is the file a table's `source` names (any extension);
/// otherwise it is `<sheet>.xlsx`, whose extension follows the format written.
#[derive(Debug, Clone)]
pub struct Workbook {
    pub path: String,
    pub sourced: bool,
    pub sheets: Vec<Sheet>,
}

/// The file formats export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Xlsx,
    Ods,
    Csv,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Xlsx => "xlsx",
            Format::Ods => "ods",
            Format::Csv => "csv",
        }
    }

    /// The format a file of this name is read as (xlsm as xlsx).
    fn of(path: &str) -> Option<Format> {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".xlsx") || lower.ends_with(".xlsm") {
            Some(Format::Xlsx)
        } else if lower.ends_with(".ods") {
            Some(Format::Ods)
        } else if lower.ends_with(".csv") {
            Some(Format::Csv)
        } else {
            None
        }
    }
}

/// A region's data at one commit, as workbooks.
#[derive(Debug, Clone)]
pub struct Export {
    pub region: String,
    pub commit: String,
    pub workbooks: Vec<Workbook>,
}

/// What was written.
#[derive(Debug, Clone, Serialize)]
pub struct Exported {
    pub region: String,
    pub commit: String,
    pub out: PathBuf,
    /// Each workbook: its path, and its tables with their row counts.
    pub files: Vec<ExportedFile>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ExportedFile {
    pub path: String,
    pub tables: Vec<(String, usize)>,
}

/// The data of a region's branch or a work branch, at its head or at `rev` (any
/// revision, or a version tag of the region), as workbooks; with `languages`, each text
/// field followed by a comment column per language (`#name@en`: for review, which
/// import passes over).
pub fn export_region(
    repo: &MasterRepo,
    line: &Branch,
    rev: Option<&str>,
    languages: &[String],
) -> Result<Export, StoreError> {
    let git = &repo.git;
    let branch = line.branch().to_string();
    let commit = repo.commit_of(line, rev)?;
    let tree = commit.tree()?;
    crate::snapshot::only_files(&tree, &branch)?;
    let structure = Structure::at(git, &tree).map_err(|_| StoreError::BrokenSnapshot {
        branch: branch.clone(),
        message: format!(
            "commit {} holds no loadable masterctl.toml and schemas",
            commit.id()
        ),
    })?;
    let project = &structure.project;
    let source = &project.config.source_language;
    if let Some(unknown) = languages
        .iter()
        .find(|l| !project.config.languages.contains(l))
    {
        return Err(StoreError::NotALanguage {
            language: unknown.clone(),
            languages: project.config.languages.clone(),
        });
    }
    let reviewed: Vec<&String> = languages.iter().filter(|l| *l != source).collect();
    // The blobs found here, then read, typed and laid out on every core (each worker
    // with a repository of its own: a repository is one thread's).
    let mut stored = Vec::new();
    for schema in &project.tables {
        let data_path = table_path(&schema.name);
        let Some(data) = blob_id_at(&tree, &data_path)? else {
            continue;
        };
        let text_path = language_path(source, &schema.name);
        let text = blob_id_at(&tree, &text_path)?;
        let mut translations = Vec::new();
        if schema.fields.iter().any(|f| f.ty == FieldType::Text) {
            for language in &reviewed {
                let texts = texts_at(git, &tree, schema, language, &branch)?;
                translations.push(((*language).clone(), texts));
            }
        }
        stored.push((schema, data_path, data, text_path, text, translations));
    }
    let readers = Readers::of(git);
    let laid_out = parallel_map(
        &stored,
        |(schema, data_path, data, text_path, text, translations)| {
            let (data, text) = readers.read(*data, *text)?;
            let mut table = read_table(
                schema,
                &data,
                Path::new(data_path),
                text.as_deref().map(|t| (t, Path::new(text_path.as_str()))),
            )
            .map_err(|diagnostics| {
                diagnostics
                    .first()
                    .map_or_else(String::new, ToString::to_string)
            })?;
            // The files' bytes are not needed while the table is laid out.
            drop((data, text));
            let (path, first, sourced) = workbook_of(schema)?;
            let sheets = sheets_of(schema, &mut table, translations)?;
            // Laid out (its values freed as their rows were): the rest is freed while
            // the sheets are written.
            masterctl_runtime::parallel::drop_aside(table);
            Ok::<_, String>((path, first, sourced, sheets))
        },
    );
    let mut workbooks: BTreeMap<String, (bool, Vec<Sheet>)> = BTreeMap::new();
    for (result, (schema, ..)) in laid_out.into_iter().zip(&stored) {
        let (path, first, sourced, table_sheets) =
            result.map_err(|why| StoreError::BrokenSnapshot {
                branch: branch.clone(),
                message: format!("table `{}` cannot be exported: {why}", schema.name),
            })?;
        let (is_sourced, sheets) = workbooks.entry(path).or_default();
        *is_sourced |= sourced;
        if first {
            sheets.splice(0..0, table_sheets);
        } else {
            sheets.extend(table_sheets);
        }
    }
    let mut workbooks: Vec<Workbook> = (workbooks.into_iter())
        .map(|(path, (sourced, sheets))| Workbook {
            path,
            sourced,
            sheets,
        })
        .collect();
    looks::resolve(&mut workbooks);
    Ok(Export {
        region: line.name().to_string(),
        commit: commit.id().to_string(),
        workbooks,
    })
}

/// Repositories of one git directory for workers to read blobs with, each taken by one
/// thread at a time and opened when none is free.
struct Readers {
    dir: PathBuf,
    free: std::sync::Mutex<Vec<git2::Repository>>,
}

impl Readers {
    fn of(git: &git2::Repository) -> Readers {
        Readers {
            dir: git.path().to_path_buf(),
            free: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The bytes of the blob `data` and of the blob `text`, when there is one.
    fn read(
        &self,
        data: git2::Oid,
        text: Option<git2::Oid>,
    ) -> Result<(Vec<u8>, Option<Vec<u8>>), String> {
        let taken = self
            .free
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop();
        let git = match taken {
            Some(git) => git,
            None => git2::Repository::open(&self.dir).map_err(|e| e.message().to_string())?,
        };
        let read = |id: git2::Oid| {
            (git.find_blob(id))
                .map(|blob| blob.content().to_vec())
                .map_err(|e| e.message().to_string())
        };
        let bytes = read(data).and_then(|data| Ok((data, text.map(read).transpose()?)));
        self.free
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(git);
        bytes
    }
}

/// The workbook a table goes to (its `source` file, else `<sheet>.xlsx`), whether it
/// must be the workbook's first sheet (a `source` naming the file alone, not several
/// of its sheets), and whether a `source` named it.
fn workbook_of(schema: &TableSchema) -> Result<(String, bool, bool), String> {
    let Some(source) = &schema.source else {
        return Ok((format!("{}.xlsx", file_safe(&schema.sheet)), false, false));
    };
    let parts: Vec<&str> = source.file.split('/').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == ".." || p.contains(['\\', ':', '\0']))
    {
        return Err(format!(
            "its source `{}` is not a path inside a folder",
            source.file
        ));
    }
    let first = source.sheet.is_none() && schema.spread.is_none();
    Ok((parts.join("/"), first, true))
}

/// A sheet name as a file name: what a file system takes.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_control() || "/\\:*?\"<>|".contains(c) {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// A table on its sheet, the header as the schema spells it, a row per record; after
/// each text field, a comment column per language of `translations` holding its texts
/// in that language. A table read from several sheets is written on each, each row on
/// the sheet its `source_sheet` field names (no column holds it). Each row's values are
/// freed (left empty in `table`) once it is laid out: the table and its sheets are never
/// held whole at once.
fn sheets_of(
    schema: &TableSchema,
    table: &mut Table,
    translations: &[(String, TableTexts)],
) -> Result<Vec<Sheet>, String> {
    let name = schema
        .source
        .as_ref()
        .and_then(|s| s.sheet.clone())
        .unwrap_or_else(|| schema.sheet.clone());
    let columns = columns_of(schema, translations);
    let header: Vec<String> = columns.iter().map(|c| c.header.clone()).collect();
    let looks: Vec<Look> = columns.iter().map(|c| c.look.clone()).collect();
    let order = masterctl_schemas::canonical::key_order(schema, table);
    let parts = match &schema.spread {
        None => vec![(name, order)],
        Some(spread) => by_sheet(spread, table, order, name),
    };
    let sheets = parts.into_iter().map(|(name, rows)| {
        let rows = lay_out(schema, table, translations, &columns, &rows)
            .map_err(|too_large| too_large.to_string())?;
        let mut sheet = Sheet {
            table: schema.name.clone(),
            name,
            header: header.clone(),
            rows,
            looks: looks.clone(),
            layout: schema.layout,
            row_looks: Vec::new(),
        };
        looks::size(&mut sheet);
        Ok(sheet)
    });
    sheets.collect()
}

/// The rows of `table` numbered `order`, in that order, as cells under `columns`, each
/// row's values freed once it is laid out.
fn lay_out(
    schema: &TableSchema,
    table: &mut Table,
    translations: &[(String, TableTexts)],
    columns: &[Column],
    order: &[usize],
) -> Result<Rows, TooLarge> {
    /// The rows laid out before the texts' room is reserved for all, from theirs.
    const SAMPLED: usize = 256;
    let mut rows = Rows::with_capacity(columns.len(), order.len(), 0);
    // A vertical sheet goes on with a multi-row list below its field's row, not below a
    // record: its lists stay whole in their cells.
    let multi_row = schema.layout == Layout::Rows && schema.fields.iter().any(|f| f.multi_row);
    for (laid, &row) in order.iter().enumerate() {
        if laid == SAMPLED {
            let room = rows.written_from() / SAMPLED * (order.len() - SAMPLED);
            rows.texts().reserve(room + room / 8);
        }
        // The row's key, to find its translations (none asked: not built).
        let key: Vec<Value> = if translations.is_empty() {
            Vec::new()
        } else {
            table.key(row, &schema.primary_key)
        };
        // Multi-row lists: the first element here, the others one a row below (none in a
        // table without them: nothing is made for its rows).
        let below: Vec<Option<&[Value]>> = match multi_row {
            false => Vec::new(),
            true => (columns.iter().enumerate())
                .map(|(at, column)| match column.holds {
                    Holds::Field(f) | Holds::Parts { field: f, .. } => {
                        below::one_a_row(&schema.fields[f], at == 0, table.value(row, f))
                    }
                    _ => None,
                })
                .collect(),
        };
        for (at, column) in columns.iter().enumerate() {
            let below = below.get(at).copied().flatten();
            match column.holds {
                Holds::Field(f) => match below {
                    Some(items) => put_list(&mut rows, &schema.fields[f], &items[..1])?,
                    None => put(&mut rows, &schema.fields[f], table.value(row, f))?,
                },
                Holds::Parts {
                    field: f,
                    part,
                    span,
                } => {
                    let field = &schema.fields[f];
                    let value = table.value(row, f);
                    let element = match below {
                        Some(items) => items.first(),
                        None => parts::the_element(value),
                    };
                    match element {
                        Some(element) => put_part(&mut rows, field, element, (part, span))?,
                        // A list of several elements, whole in the first column.
                        None if part == 0 => put(&mut rows, field, value)?,
                        None => rows.push(Cell::Empty)?,
                    }
                }
                Holds::Elements {
                    field: f,
                    from,
                    rest,
                } => {
                    let field = &schema.fields[f];
                    let items = match table.value(row, f) {
                        Value::List(items) => &items[from.min(items.len())..],
                        _ => &[],
                    };
                    match items {
                        [] => rows.push(Cell::Empty)?,
                        [one, ..] if !rest || items.len() == 1 => put(&mut rows, field, one)?,
                        more => put_list(&mut rows, field, more)?,
                    }
                }
                Holds::Translation {
                    field,
                    language,
                    text,
                } => {
                    let found = translations[language].1.rows.get(&key);
                    match found.and_then(|r| r.text(text)) {
                        Some(t) => rows.push(Cell::Text(&written(&schema.fields[field], t)))?,
                        None => rows.push(Cell::Empty)?,
                    }
                }
                Holds::Nothing => rows.push(Cell::Empty)?,
            }
        }
        rows.end_row();
        lay_out_below(&mut rows, schema, columns, &below)?;
        drop(below);
        for column in &mut table.columns {
            if let Some(value) = column.get_mut(row) {
                *value = Value::Null;
            }
        }
    }
    Ok(rows)
}

/// The rows below a record that its multi-row lists go on in (`below`: each column's
/// elements written one a row, when it holds such a list): the `n`th element of each on
/// the `n`th row, every other cell empty.
fn lay_out_below(
    rows: &mut Rows,
    schema: &TableSchema,
    columns: &[Column],
    below: &[Option<&[Value]>],
) -> Result<(), TooLarge> {
    let going_on = below.iter().flatten().map(|items| items.len()).max();
    for at in 1..going_on.unwrap_or(0) {
        for (column, below) in columns.iter().zip(below) {
            match (&column.holds, below) {
                (&Holds::Field(f), Some(items)) if at < items.len() => {
                    put_list(rows, &schema.fields[f], &items[at..=at])?
                }
                (&Holds::Parts { field, part, span }, Some(items)) if at < items.len() => {
                    put_part(rows, &schema.fields[field], &items[at], (part, span))?
                }
                _ => rows.push(Cell::Empty)?,
            }
        }
        rows.end_row();
    }
    Ok(())
}

/// The `part`th of `span` columns of `element`, a record or union spread over them
/// ([`parts::part_of`]): its part as text, or an empty cell.
fn put_part(
    rows: &mut Rows,
    field: &Field,
    element: &Value,
    (part, span): (usize, usize),
) -> Result<(), TooLarge> {
    match parts::part_of(field, element, part, span) {
        Some(text) => put_text(rows, |out| out.push_str(&text)),
        None => rows.push(Cell::Empty),
    }
}

/// One column of an exported sheet: its header, its looks, and what it holds.
struct Column {
    header: String,
    look: Look,
    holds: Holds,
}

enum Holds {
    Field(usize),
    /// Elements of a list over the columns its header spans (`column_span`): the one
    /// at `from`, or from there on (the last column, `rest`: a list longer than its
    /// columns keeps the others there).
    Elements {
        field: usize,
        from: usize,
        rest: bool,
    },
    /// A part of a record or union spread over the columns its header spans (or of a
    /// multi-row list's element of them on its row): the `part`th of `span`.
    Parts {
        field: usize,
        part: usize,
        span: usize,
    },
    /// A text field's translation into `translations[language]`; `text` is the
    /// field's place among the table's text fields, as language tables hold them.
    Translation {
        field: usize,
        language: usize,
        text: usize,
    },
    /// Nothing: the header over a structure spread across columns when no field is
    /// read right under it.
    Nothing,
}

/// The columns of a table's sheet, in field order, as import reads them back: a field
/// under its header (the schema's spelling); the fields spread over columns under one
/// header (`column_offset`) each in its place right of it, the header over the first,
/// the others' headers empty; after each text field (or a structure holding one), a
/// comment column per language of `translations`. No column holds a row's sheet.
fn columns_of(schema: &TableSchema, translations: &[(String, TableTexts)]) -> Vec<Column> {
    let header_of = |field: &Field| field.columns.first().unwrap_or(&field.name).clone();
    // The headers with fields right of them, and how many columns each spans.
    let mut spans: BTreeMap<String, usize> = BTreeMap::new();
    for field in schema.fields.iter().filter(|f| f.column_offset > 0) {
        let span = spans.entry(header_of(field)).or_default();
        *span = (*span).max(field.column_offset + 1);
    }
    let text_places: Vec<usize> = (schema.fields.iter())
        .scan(0, |texts, f| {
            let place = *texts;
            *texts += usize::from(f.ty == FieldType::Text);
            Some(place)
        })
        .collect();
    let mut columns: Vec<Column> = Vec::new();
    let mut placed: BTreeMap<String, usize> = BTreeMap::new();
    // Translation columns, and the place each goes.
    let mut pending: Vec<(usize, Vec<Column>)> = Vec::new();
    for (f, field) in schema.fields.iter().enumerate() {
        if field.source_sheet {
            continue;
        }
        let header = header_of(field);
        let at = match spans.get(&header) {
            // A list over columns: an element a column; a record or union spread over
            // columns (or a multi-row list's element of them on each row): its parts.
            None if field.column_span > 1 => {
                let span = field.column_span;
                let parts = field.element_over_columns().is_some();
                columns.extend((0..span).map(|at| Column {
                    header: if at == 0 {
                        header.clone()
                    } else {
                        String::new()
                    },
                    look: match at {
                        0 => looks::look_of(schema, field),
                        _ => Look::default(),
                    },
                    holds: match parts {
                        true => Holds::Parts {
                            field: f,
                            part: at,
                            span,
                        },
                        false => Holds::Elements {
                            field: f,
                            from: at,
                            rest: at + 1 == span,
                        },
                    },
                }));
                columns.len() - 1
            }
            None => {
                columns.push(Column {
                    header,
                    look: looks::look_of(schema, field),
                    holds: Holds::Field(f),
                });
                columns.len() - 1
            }
            Some(&span) => {
                let base = *placed.entry(header.clone()).or_insert_with(|| {
                    let base = columns.len();
                    columns.extend((0..span).map(|offset| Column {
                        header: if offset == 0 {
                            header.clone()
                        } else {
                            String::new()
                        },
                        look: Look::default(),
                        holds: Holds::Nothing,
                    }));
                    base
                });
                let at = base + field.column_offset;
                columns[at].look = looks::look_of(schema, field);
                columns[at].holds = Holds::Field(f);
                base + span - 1
            }
        };
        if field.ty != FieldType::Text {
            continue;
        }
        // Translations after the field, or after the structure it is part of.
        let comments = (translations.iter().enumerate()).map(|(language, (l, _))| Column {
            header: format!("#{}@{l}", header_of(field)),
            look: Look::default(),
            holds: Holds::Translation {
                field: f,
                language,
                text: text_places[f],
            },
        });
        pending.push((at + 1, comments.collect::<Vec<Column>>()));
    }
    // Put in place last to first, so that no place counted moves.
    pending.sort_by_key(|(at, _)| *at);
    for (at, comments) in pending.into_iter().rev() {
        columns.splice(at..at, comments);
    }
    columns
}

/// The rows (in `order`) of a table read from several sheets, on the sheet each names:
/// the named sheets in their order (each, rows or none), then any other a row names
/// in the order met; a row naming none goes on the first (`first`, when no sheet is
/// named, which also holds the header alone of a table of no rows).
fn by_sheet(
    spread: &Spread,
    table: &Table,
    order: Vec<usize>,
    first: String,
) -> Vec<(String, Vec<usize>)> {
    let mut parts: Vec<(String, Vec<usize>)> = match &spread.sheets {
        Sheets::Named(names) => names.iter().map(|n| (n.clone(), Vec::new())).collect(),
        Sheets::Every => Vec::new(),
    };
    for row in order {
        let name = match table.value(row, spread.field).as_str() {
            Some(name) if !name.is_empty() => name,
            _ => parts.first().map_or(first.as_str(), |(n, _)| n.as_str()),
        }
        .to_string();
        match parts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, rows)) => rows.push(row),
            None => parts.push((name, vec![row])),
        }
    }
    if parts.is_empty() {
        // No rows: the header on one sheet, which imports as no rows.
        parts.push((first, Vec::new()));
    }
    parts
}

/// Add a value to `rows` as the cell import reads back as it: numbers as numbers (those
/// of more significant digits than a spreadsheet keeps — whole numbers past 10^15, floats
/// like `0.30000000000000004` — as text formatted as text: [`Cell::Digits`]), booleans as
/// booleans, lists joined by the field's separator, maps in its separators, datetimes in
/// the project's zone with their offset (`2025-02-01T12:00:00+09:00`), dates and the rest
/// as their canonical text. Texts are written straight into the rows' texts.
fn put(rows: &mut Rows, field: &Field, value: &Value) -> Result<(), TooLarge> {
    match value {
        Value::Null => rows.push(Cell::Empty),
        Value::Bool(b) => rows.push(Cell::Bool(*b)),
        // Every whole number under 10^15 has at most 15 digits: no text made to count them.
        Value::Int(i) if i.unsigned_abs() < 10u64.pow(SPREADSHEET_DIGITS as u32) => {
            rows.push(Cell::Number(*i as f64))
        }
        Value::Int(_) | Value::Float(_) => {
            let from = rows.written_from();
            write_text(rows.texts(), field, value);
            let exact = match value {
                Value::Int(i) => i.unsigned_abs() <= 1 << 53,
                Value::Float(x) => x.is_finite(),
                _ => false,
            };
            match value.as_f64() {
                Some(number)
                    if exact && significant_digits(rows.written(from)) <= SPREADSHEET_DIGITS =>
                {
                    rows.unwrite(from);
                    rows.push(Cell::Number(number))
                }
                _ => rows.push_written(from, true),
            }
        }
        Value::List(items) => put_list(rows, field, items),
        // A map in the field's own separators, so that it is read back as written.
        Value::Map(entries) => {
            let separator = field.separator.as_deref().unwrap_or("|");
            let key_separator = field.key_separator.as_deref().unwrap_or(":");
            put_text(rows, |out| {
                joined(out, separator, entries, |out, (key, value)| {
                    write_text(out, field, key);
                    out.push_str(key_separator);
                    write_text(out, field, value);
                });
            })
        }
        other => put_text(rows, |out| write_text(out, field, other)),
    }
}

/// Add a list's items to `rows` as one cell, joined by the field's separator.
fn put_list(rows: &mut Rows, field: &Field, items: &[Value]) -> Result<(), TooLarge> {
    let separator = field.separator.as_deref().unwrap_or("|");
    put_text(rows, |out| {
        joined(out, separator, items, |out, item| {
            write_text(out, field, item)
        });
    })
}

/// Add a text cell to `rows`, written by `write` straight into the rows' texts.
fn put_text(rows: &mut Rows, write: impl FnOnce(&mut String)) -> Result<(), TooLarge> {
    let from = rows.written_from();
    write(rows.texts());
    rows.push_written(from, false)
}

/// Write each of `items` to `out` by `write`, `separator` between each two.
fn joined<T>(
    out: &mut String,
    separator: &str,
    items: impl IntoIterator<Item = T>,
    mut write: impl FnMut(&mut String, T),
) {
    for (at, item) in items.into_iter().enumerate() {
        if at > 0 {
            out.push_str(separator);
        }
        write(out, item);
    }
}

/// Write a value's text in a cell to `out`: a datetime in the field's zone, a string
/// with its escapes when the field reads them, the rest canonical.
fn write_text(out: &mut String, field: &Field, value: &Value) {
    use std::fmt::Write as _;
    match value {
        Value::DateTime(instant) => out.push_str(&field.zone.show(*instant)),
        Value::Str(s) => out.push_str(&written(field, s)),
        // Writing to a string does not fail.
        other => drop(write!(out, "{other}")),
    }
}

/// A text as the field's cells write it (`\n` for a line break in an `escapes` field).
fn written<'t>(field: &Field, text: &'t str) -> std::borrow::Cow<'t, str> {
    if field.escapes {
        masterctl_schemas::escapes::escape(text)
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_past_what_a_spreadsheet_keeps_are_written_as_text() {
        for (text, digits) in [
            ("0.30000000000000004", 17),
            ("123456789012345680", 17),
            ("1200", 2),
            ("-0.5", 1),
            ("1.5e-7", 2),
            ("0", 0),
            ("999999999999999", 15),
            ("1234567890123456", 16),
        ] {
            assert_eq!(significant_digits(text), digits, "{text}");
        }
    }
}
