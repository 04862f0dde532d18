//! A branch's current masters as the console shows them: the tables with their schemas,
//! and one table a page at a time — searched, filtered per column, sorted, each
//! reference shown with the row it points at (`3 — 武器`), each row by its key for its
//! blame. The server pages: whatever the table's size, a page holds at most
//! [`MOST_ROWS`] rows. A table's cells are read once per identity of what they are
//! made from ([`Grids`]) and kept.

mod check;
mod grid;
mod row;

use std::sync::Arc;

use masterctl_schemas::TableSchema;
use masterctl_schemas::schema::TableKind;
use masterctl_store::snapshot::head::{HeadSnapshot, head_snapshot};
use masterctl_store::{Branch, MasterRepo, StoreError};

pub use check::{Note, Typed, Verdict, check_cell};
pub use grid::TextGrid;
pub use row::{FieldInput, Input, RowForm, row_edits, row_form, same_value};

use crate::memo::Memo;

/// The most rows one page holds.
pub const MOST_ROWS: usize = 500;

/// The grids read, by identity: what the console keeps between pages.
pub type Grids = Memo<TextGrid>;

/// The grids a console keeps: sixteen tables.
pub fn grids() -> Grids {
    Memo::new(16)
}

/// A table of the branch, as the list of tables shows it.
pub struct TableEntry {
    pub name: String,
    pub description: Option<String>,
    pub kind: &'static str,
    pub fields: usize,
    /// Where planners keep it (`items.xlsx (sheet Item)`).
    pub place: String,
}

/// The tables `line`'s head holds, in the structure's order, and its commit.
pub fn tables(repo: &MasterRepo, line: &Branch) -> Result<(String, Vec<TableEntry>), StoreError> {
    let head = head_snapshot(repo, line)?;
    let entries = (head.project.tables.iter())
        .map(|schema| TableEntry {
            name: schema.name.clone(),
            description: schema.description.clone(),
            kind: kind_name(schema.kind),
            fields: schema.fields.len(),
            place: schema.planners_place(),
        })
        .collect();
    Ok((head.commit.to_string(), entries))
}

fn kind_name(kind: TableKind) -> &'static str {
    match kind {
        TableKind::Keyed => "table",
        TableKind::Singleton => "singleton",
        TableKind::List => "list",
    }
}

/// Which rows of a table to show.
#[derive(Debug, Clone, Default)]
pub struct Ask {
    /// Rows with a cell holding this (ASCII letters in either case); empty: every row.
    pub search: String,
    /// Rows whose field's cell holds the text, for each (field, text).
    pub filters: Vec<(String, String)>,
    /// By this field's cells, descending when `true`; none: as the branch holds them.
    pub sort: Option<(String, bool)>,
    /// The first row shown, counted from 0 among the rows asked for.
    pub from: usize,
    /// How many rows (at most [`MOST_ROWS`]).
    pub count: usize,
    /// Show the page holding this row (its key's cells joined by `|`) instead.
    pub key: Option<String>,
}

/// A field as a page heads its column.
pub struct Column {
    pub name: String,
    /// What the sheets call it (its first `column` spelling), when not its name.
    pub shown: Option<String>,
    pub description: Option<String>,
    /// Its type as schemas write it (`int`, `list<enum>`).
    pub ty: String,
    /// `table.field` it references.
    pub references: Option<String>,
    /// The table whose rows it names by their key (a reference to a key).
    pub links_to: Option<String>,
    /// A key field.
    pub key: bool,
}

/// One cell: its canonical text, and for a reference the label of the row it points
/// at (none when that row has no label, or is not there).
pub struct Cell {
    pub text: String,
    pub refers: Option<String>,
}

/// One row shown.
pub struct Row {
    /// Its place among the rows asked for, from 1.
    pub position: usize,
    /// Its key's cells joined by `|` (a keyed table's rows).
    pub key: Option<String>,
    pub cells: Vec<Cell>,
    /// The row [`Ask::key`] asked for.
    pub asked: bool,
}

/// A page of a table.
pub struct Page {
    pub commit: String,
    pub table: String,
    pub description: Option<String>,
    pub kind: &'static str,
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// The first row's place among the rows asked for, from 0.
    pub from: usize,
    /// Rows asked for (the search and filters'), and rows of the table.
    pub matched: usize,
    pub total: usize,
    /// How many rows the page holds at most.
    pub count: usize,
}

/// A page of `table` on `line`'s head, as `ask` says; `grids` keeps what it reads.
pub fn page(
    repo: &MasterRepo,
    line: &Branch,
    table: &str,
    ask: &Ask,
    grids: &Grids,
) -> Result<Page, StoreError> {
    let head = head_snapshot(repo, line)?;
    let schema = head.schema(table)?;
    let grid = grid_of(repo, &head, schema, grids)?;
    let field = |name: &str| {
        schema.field_index(name).ok_or_else(|| StoreError::NoField {
            table: schema.name.clone(),
            field: name.to_string(),
        })
    };
    let filters = (ask.filters.iter())
        .filter(|(_, text)| !text.is_empty())
        .map(|(name, text)| Ok((field(name)?, text.as_str())))
        .collect::<Result<Vec<_>, StoreError>>()?;
    let sort = ask
        .sort
        .as_ref()
        .map(|(name, descending)| Ok::<_, StoreError>((field(name)?, *descending)))
        .transpose()?;
    let rows = chosen(&grid, &ask.search, &filters, sort);
    let count = ask.count.clamp(1, MOST_ROWS);
    let asked = match &ask.key {
        Some(key) => Some(row_of(&grid, schema, key).ok_or_else(|| StoreError::NoRow {
            table: schema.name.clone(),
            key: key.split('|').map(str::to_string).collect(),
            at: line.branch().to_string(),
        })?),
        None => None,
    };
    let from = match asked.and_then(|row| rows.iter().position(|&r| r as usize == row)) {
        Some(place) => place - place % count,
        None => ask.from.min(rows.len().saturating_sub(1)),
    };
    let references = References::of(repo, &head, schema, grids)?;
    let shown = (from..rows.len().min(from + count))
        .map(|place| {
            let row = rows[place] as usize;
            Row {
                position: place + 1,
                key: key_of(&grid, schema, row),
                cells: (0..schema.fields.len())
                    .map(|column| {
                        let text = grid.cell(row, column);
                        Cell {
                            refers: references.label(column, text),
                            text: text.to_string(),
                        }
                    })
                    .collect(),
                asked: asked == Some(row),
            }
        })
        .collect();
    Ok(Page {
        commit: head.commit.to_string(),
        table: schema.name.clone(),
        description: schema.description.clone(),
        kind: kind_name(schema.kind),
        columns: columns(&head.project, schema),
        rows: shown,
        from,
        matched: rows.len(),
        total: grid.rows(),
        count,
    })
}

/// The table's grid, kept or read.
fn grid_of(
    repo: &MasterRepo,
    head: &HeadSnapshot<'_>,
    schema: &TableSchema,
    grids: &Grids,
) -> Result<Arc<TextGrid>, StoreError> {
    grids.get_or(&head.identity(&schema.name), || {
        if let (Some(data), texts) = head.canonical(repo, &schema.name)?
            && let Some(grid) = TextGrid::from_canonical(schema, &data, texts.as_deref())
        {
            return Ok(grid);
        }
        let table = head.read(repo, schema)?;
        TextGrid::of(schema, &table).map_err(|_| StoreError::BrokenSnapshot {
            branch: head.commit.to_string(),
            message: format!("`{}` holds more text than a page can show", schema.name),
        })
    })
}

/// The rows asked for, in order.
fn chosen(
    grid: &TextGrid,
    search: &str,
    filters: &[(usize, &str)],
    sort: Option<(usize, bool)>,
) -> Vec<u32> {
    let mut wanted: Option<Vec<bool>> = None;
    let asked = (filters.iter().map(|&(column, text)| (Some(column), text)))
        .chain((!search.is_empty()).then_some((None, search)));
    for (column, text) in asked {
        let rows = grid.holding(text, column);
        wanted = Some(match wanted {
            None => rows,
            Some(before) => before.iter().zip(rows).map(|(a, b)| *a && b).collect(),
        });
    }
    let keep = |row: &u32| wanted.as_ref().is_none_or(|w| w[*row as usize]);
    match sort {
        Some((column, false)) => grid
            .order(column)
            .iter()
            .filter(|r| keep(r))
            .copied()
            .collect(),
        Some((column, true)) => (grid.order(column).iter().rev())
            .filter(|r| keep(r))
            .copied()
            .collect(),
        None => (0..grid.rows() as u32).filter(keep).collect(),
    }
}

/// A row's key: its key fields' cells joined by `|` (none for a singleton or list).
fn key_of(grid: &TextGrid, schema: &TableSchema, row: usize) -> Option<String> {
    (!schema.primary_key.is_empty()).then(|| {
        (schema.primary_key.iter())
            .map(|&column| grid.cell(row, column))
            .collect::<Vec<_>>()
            .join("|")
    })
}

/// The row whose key is `key`.
fn row_of(grid: &TextGrid, schema: &TableSchema, key: &str) -> Option<usize> {
    match schema.primary_key[..] {
        [] => None,
        [column] => grid.find(column, key),
        _ => (0..grid.rows()).find(|&row| key_of(grid, schema, row).as_deref() == Some(key)),
    }
}

fn columns(project: &masterctl_schemas::Project, schema: &TableSchema) -> Vec<Column> {
    let keyed = |r: &masterctl_schemas::schema::Reference| {
        let target = project.table(&r.table)?;
        let field = target.field_index(&r.field)?;
        (target.primary_key == [field]).then(|| r.table.clone())
    };
    (schema.fields.iter().enumerate())
        .map(|(at, field)| Column {
            name: field.name.clone(),
            shown: field.columns.first().filter(|c| **c != field.name).cloned(),
            description: field.description.clone(),
            ty: field.ty.to_string(),
            references: field.references.as_ref().map(ToString::to_string),
            links_to: field.references.as_ref().and_then(keyed),
            key: schema.primary_key.contains(&at),
        })
        .collect()
}

/// For each referencing column: the referenced table's grid, the column referenced and
/// the one that labels its rows.
struct References {
    by_column: Vec<Option<(Arc<TextGrid>, usize, usize)>>,
}

impl References {
    fn of(
        repo: &MasterRepo,
        head: &HeadSnapshot<'_>,
        schema: &TableSchema,
        grids: &Grids,
    ) -> Result<References, StoreError> {
        let mut by_column = Vec::new();
        for field in &schema.fields {
            let target = field.references.as_ref().and_then(|r| {
                let target = head.project.table(&r.table)?;
                Some((target, target.field_index(&r.field)?, labelling(target)?))
            });
            by_column.push(match target {
                Some((target, column, label)) => {
                    Some((grid_of(repo, head, target, grids)?, column, label))
                }
                None => None,
            });
        }
        Ok(References { by_column })
    }

    /// The label of the row `text` points at through `column`.
    fn label(&self, column: usize, text: &str) -> Option<String> {
        let (grid, referenced, label) = self.by_column[column].as_ref()?;
        if text.is_empty() {
            return None;
        }
        let row = grid.find(*referenced, text)?;
        Some(grid.cell(row, *label).to_string()).filter(|l| !l.is_empty())
    }
}

/// The field that names a table's rows: its first text or string field outside its key.
fn labelling(schema: &TableSchema) -> Option<usize> {
    use masterctl_schemas::FieldType;
    (schema.fields.iter().enumerate())
        .find(|(at, f)| {
            matches!(f.ty, FieldType::Text | FieldType::String) && !schema.primary_key.contains(at)
        })
        .map(|(at, _)| at)
}
