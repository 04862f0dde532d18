//! Reading spreadsheet exports into typed tables.
//!
//! Formats are adapters: [`workbook`] (xlsx and xlsm read by `xlsx`, xlsb, xls and
//! ods through calamine) and [`csv`] each present a sheet as a [`Grid`] of [`Cell`]s
//! (`crate::grid`); [`crate::typing`] turns any grid into a [`Table`] for the schema it
//! maps to. Files are read in parallel; every
//! problem becomes a diagnostic naming the file, and one broken file never hides the
//! mistakes in the others.

pub mod csv;
mod sheet_grid;
mod streamed;
mod unread;
pub mod workbook;
mod xlsx;
mod zipped;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::diagnostic::{Code, Diagnostic, Location, Report};
pub use crate::grid::{Cell, Grid};
use crate::schema::{Project, TableSchema};
use crate::table::{SourceFormat, Table};
use crate::typing::TableBuilder;
pub use masterctl_runtime::parallel::parallel_map;

/// Which values the tables read keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Every field's values.
    All,
    /// Only what the checks across rows and tables read
    /// ([`crate::validate::read_across`]); the other fields' columns are left empty,
    /// though every cell is typed and checked all the same. For validation that keeps
    /// no table: a large text table is not held in memory to be thrown away.
    ForChecks,
}

impl Keep {
    /// A new builder for `schema`'s table, keeping what this says.
    pub(crate) fn builder<'s>(
        self,
        project: &Project,
        schema: &'s TableSchema,
        path: &Path,
        format: SourceFormat,
    ) -> TableBuilder<'s> {
        let builder = TableBuilder::new(schema, path, format);
        match self {
            Keep::All => builder,
            Keep::ForChecks => builder.keeping(&crate::validate::read_across(project, schema)),
        }
    }
}

/// What reading a set of inputs gave: tables in input order, and every diagnostic.
#[derive(Debug, Default)]
pub struct ReadOutcome {
    pub tables: Vec<Table>,
    pub report: Report,
}

/// Extensions of the files read; anything else inside a folder is ignored. `tsv` and
/// `txt` files are tab-separated text (see [`csv::tabs`]).
pub const SUPPORTED_EXTENSIONS: [&str; 8] =
    ["xlsx", "xlsm", "xlsb", "xls", "ods", "csv", "tsv", "txt"];

fn is_supported(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SUPPORTED_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Hidden files, and lock files that spreadsheet applications leave beside an open
/// workbook.
fn is_lock_or_hidden(path: &Path) -> bool {
    is_lock_file(path)
        || path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'))
}

/// Excel's `~$` lock file beside an open workbook.
fn is_lock_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("~$"))
}

/// Expand the paths given on the command line: files as given, folders walked for every
/// supported file (sorted, hidden and lock files skipped). A path that does not exist or
/// a file of an unsupported kind is a diagnostic.
pub fn collect_inputs(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<Diagnostic>) {
    let mut files = Vec::new();
    let mut diagnostics = Vec::new();
    for path in paths {
        if path.is_dir() {
            let before = files.len();
            walk(path, &mut files, &mut diagnostics);
            files[before..].sort();
        } else if path.is_file() {
            if is_lock_file(path) {
                // Excel's lock file beside an open workbook, caught by a shell glob.
                diagnostics.push(
                    Diagnostic::new(
                        Code::UnmappedSheet,
                        Location::file(path),
                        "an Excel lock file (the workbook is open in Excel); it was not read",
                    )
                    .hint("close the workbook in Excel, or leave `~$` files out of the paths"),
                );
            } else if is_supported(path) {
                files.push(path.clone());
            } else {
                diagnostics.push(
                    Diagnostic::new(
                        Code::UnreadableFile,
                        Location::file(path),
                        "not a supported spreadsheet export",
                    )
                    .expected(format!("one of: {}", SUPPORTED_EXTENSIONS.join(", "))),
                );
            }
        } else {
            diagnostics.push(Diagnostic::new(
                Code::UnreadableFile,
                Location::file(path),
                "no such file or folder",
            ));
        }
    }
    // The same file named twice (a file and its folder) is read once.
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(std::fs::canonicalize(f).unwrap_or_else(|_| f.clone())));
    (files, diagnostics)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>, diagnostics: &mut Vec<Diagnostic>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            diagnostics.push(Diagnostic::new(
                Code::UnreadableFile,
                Location::file(dir),
                format!("cannot read the folder: {e}"),
            ));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if is_lock_or_hidden(&path) {
            continue;
        }
        // Symbolic links are followed for files only, so a link loop cannot hang the walk.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(&path, files, diagnostics);
        } else if path.is_file() && is_supported(&path) {
            files.push(path);
        }
    }
}

/// Read every input file into tables for `project`, in parallel, with every diagnostic:
/// unreadable files, unmapped sheets, header and cell problems, and tables supplied twice.
pub fn read_inputs(project: &Project, files: &[PathBuf]) -> ReadOutcome {
    read_inputs_with_progress(project, files, Keep::All, &|_, _| {})
}

/// [`read_inputs`], calling `progress(done, total)` in files as each file is finished
/// (all its shares, for a large workbook read by several threads), from whichever
/// thread finished it; `done` counts 1, 2, ... `total`, one call each, though calls
/// from different threads may arrive out of order. The tables keep the values `keep`
/// says.
pub fn read_inputs_with_progress(
    project: &Project,
    files: &[PathBuf],
    keep: Keep,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> ReadOutcome {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    // Units of work: a file, or a share of the sheets of a large workbook, so that one
    // big workbook also keeps every core busy.
    let units: Vec<(usize, &PathBuf, workbook::Part)> = files
        .iter()
        .enumerate()
        .flat_map(|(file, path)| {
            let parts = if is_large_workbook(path) { threads } else { 1 };
            (0..parts).map(move |index| (file, path, workbook::Part { index, of: parts }))
        })
        .collect();
    // Shares of each file still being read; the last share to finish completes it.
    let mut remaining: Vec<AtomicUsize> = files.iter().map(|_| AtomicUsize::new(0)).collect();
    for (file, _, _) in &units {
        *remaining[*file].get_mut() += 1;
    }
    let done = AtomicUsize::new(0);
    let per_file = parallel_map(&units, |(file, path, part)| {
        let outcome = match is_csv(path) {
            true => csv::read(project, path, keep),
            false => workbook::read_part(project, path, *part, keep),
        };
        if remaining[*file].fetch_sub(1, Ordering::AcqRel) == 1 {
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, remaining.len());
        }
        outcome
    });
    let mut outcome = ReadOutcome::default();
    for file_outcome in per_file {
        outcome.report.extend(file_outcome.report.diagnostics);
        for table in file_outcome.tables {
            let spread = project.table(&table.name).and_then(|s| s.spread.as_ref());
            let Some(first) = outcome.tables.iter_mut().find(|t| t.name == table.name) else {
                outcome.tables.push(table);
                continue;
            };
            // Another sheet of a table read from several sheets of its workbook.
            if let Some(spread) = spread
                && first.origin.workbook() == table.origin.workbook()
            {
                first.append_sheet(table, spread.field);
                continue;
            }
            let mut location = table.origin.whole();
            location.table = Some(table.name.clone());
            outcome.report.push(
                Diagnostic::new(
                    Code::DuplicateTable,
                    location,
                    format!(
                        "table `{}` is supplied twice: by {} and by {}",
                        table.name,
                        first.origin.describe(),
                        table.origin.describe()
                    ),
                )
                .hint("supply each table once; remove or rename one of the sheets or files"),
            );
        }
    }
    unread::fold(&mut outcome.report);
    if let Some(first) = files.first()
        && outcome.tables.is_empty()
        && !outcome.report.has_errors()
    {
        outcome
            .report
            .push(nothing_matched(project, first, &outcome.report));
    }
    outcome
}

/// The error for input of which nothing maps to a table: the sheets and files that were
/// found, and the tables there are.
fn nothing_matched(project: &Project, first: &Path, report: &Report) -> Diagnostic {
    let name = |path: &Path| {
        path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let found: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::UnmappedSheet)
        .filter_map(|d| {
            let file = d.location.file.as_deref().map(name)?;
            Some(match &d.location.sheet {
                Some(sheet) => format!("sheet `{sheet}` of {file}"),
                None => format!("`{file}`"),
            })
        })
        .take(12)
        .collect();
    let tables: Vec<String> = project
        .tables
        .iter()
        .map(|t| match t.source.is_none() && t.sheet == t.name {
            true => format!("`{}`", t.name),
            false => format!("`{}` ({})", t.name, workbook::claim(t)),
        })
        .collect();
    let found = match found.is_empty() {
        true => "no sheet or file with data".to_string(),
        false => found.join(", "),
    };
    Diagnostic::new(
        Code::NothingMatched,
        Location::file(first),
        format!(
            "nothing in the input maps to a table (found: {found}); the tables are {}",
            tables.join(", ")
        ),
    )
    .hint("name each sheet, or each CSV file, after a table's `sheet` (a table's name by default)")
}

/// Workbooks this large are worth opening once per thread, each thread reading a share
/// of the sheets.
const LARGE_WORKBOOK_BYTES: u64 = 4 << 20;

fn is_large_workbook(path: &Path) -> bool {
    !is_csv(path) && std::fs::metadata(path).is_ok_and(|m| m.len() >= LARGE_WORKBOOK_BYTES)
}

/// A text table, one sheet: CSV, or tab-separated text.
pub fn is_csv(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
        || csv::tabs::is_tab_separated(path)
}

/// Read one file (any supported format).
pub fn read_file(project: &Project, path: &Path) -> ReadOutcome {
    match is_csv(path) {
        true => csv::read(project, path, Keep::All),
        false => workbook::read(project, path),
    }
}
