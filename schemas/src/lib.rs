//! masterctl's foundation: the schema model, the spreadsheet readers, the typed table
//! model and validation.
//!
//! The flow is `load` (schemas) → `read` (files → grids → typed [`Table`]s, with cell
//! checks) → `validate` (keys, unique fields, foreign keys). Every stage returns data
//! and [`Diagnostic`]s; nothing here prints or exits.

pub mod audience;
pub mod canonical;
pub mod cases;
pub mod check;
pub mod diagnostic;
pub mod escapes;
pub mod fonts;
mod glossary_terms;
pub mod glyphs;
pub mod grid;
pub mod load;
pub mod message;
pub mod parse;
pub mod read;
pub mod schema;
pub mod sheet_csv;
pub mod structure;
pub mod suggest;
pub mod table;
pub mod type_expr;
pub mod typing;
pub mod validate;
pub mod value;
pub mod vertical;
pub mod view;
pub mod zone;

use std::path::PathBuf;

pub use diagnostic::{Code, Diagnostic, Location, Report, Severity};
pub use schema::{Field, FieldType, Project, TableSchema};
pub use table::Table;
pub use value::Value;
pub use zone::Zone;

/// What validating a set of inputs gave.
#[derive(Debug, Default)]
pub struct Validation {
    /// The files that were read (folders expanded).
    pub files: Vec<PathBuf>,
    /// Every table read, typed (cells with errors hold null).
    pub tables: Vec<Table>,
    /// Every diagnostic, in reading order.
    pub report: Report,
}

/// Read and validate exports (files or folders) against a project: every mistake in
/// every file at once.
pub fn validate_paths(project: &Project, paths: &[PathBuf]) -> Validation {
    validate_paths_with_progress(project, paths, &|_, _| {})
}

/// [`validate_paths`], reporting `progress(done, total)` while files are read.
pub fn validate_paths_with_progress(
    project: &Project,
    paths: &[PathBuf],
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Validation {
    read_and_validate(project, paths, read::Keep::All, progress)
}

/// What checking a set of inputs gave: [`Validation`]'s files and report, and of the
/// tables only what they are.
#[derive(Debug, Default)]
pub struct Checked {
    /// The files that were read (folders expanded).
    pub files: Vec<PathBuf>,
    /// Every diagnostic, in reading order.
    pub report: Report,
    /// The tables as read for the checks ([`read::Keep::ForChecks`]): most columns left
    /// empty, so never handed out.
    tables: Vec<Table>,
}

/// A table that was read and checked: its name, how many rows, where from.
pub struct TableRead<'a> {
    pub name: &'a str,
    pub rows: usize,
    pub origin: &'a table::Origin,
}

impl Checked {
    /// Every table read, in reading order.
    pub fn tables(&self) -> impl Iterator<Item = TableRead<'_>> {
        self.tables.iter().map(|t| TableRead {
            name: &t.name,
            rows: t.row_count(),
            origin: &t.origin,
        })
    }
}

/// [`validate_paths_with_progress`] for when only the verdict is wanted (`masterctl
/// validate`): the same report, every cell typed and checked, while the tables keep
/// only the values the checks across rows and tables read — a large text table is not
/// made to be thrown away.
pub fn check_paths_with_progress(
    project: &Project,
    paths: &[PathBuf],
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Checked {
    let validation = read_and_validate(project, paths, read::Keep::ForChecks, progress);
    Checked {
        files: validation.files,
        report: validation.report,
        tables: validation.tables,
    }
}

fn read_and_validate(
    project: &Project,
    paths: &[PathBuf],
    keep: read::Keep,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Validation {
    let (files, diagnostics) = read::collect_inputs(paths);
    let mut outcome = read::read_inputs_with_progress(project, &files, keep, progress);
    outcome.report.extend(diagnostics);
    let cross = validate::validate_tables(project, &outcome.tables);
    outcome.report.extend(cross.diagnostics);
    outcome.report.sort();
    Validation {
        files,
        tables: outcome.tables,
        report: outcome.report,
    }
}
