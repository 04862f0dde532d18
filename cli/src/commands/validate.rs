//! `masterctl validate PATH...`: read exports, check them against the schemas, report
//! every mistake at once. Exit 1 when any error is found; warnings alone pass.

use std::path::PathBuf;

use masterctl_schemas::{Diagnostic, Severity, check_paths_with_progress};
use serde::Serialize;

use super::Failure;
use crate::output::{GlobalArgs, Output, Render, RepoArg, count_text, counted};
use crate::project;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// Workbooks (xlsx, xlsm, xlsb, xls, ods), CSV or tab-separated files (tsv, txt), or
    /// folders holding them
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Validate against the schema files of this folder instead of the repository's
    /// (a project folder with masterctl.toml and schemas/, or a folder of schema files)
    #[arg(long, value_name = "DIR")]
    schemas: Option<PathBuf>,
}

#[derive(Serialize)]
struct TableSummary {
    name: String,
    rows: usize,
    source: String,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    super::all_exist(&args.paths)?;
    let project = project::load(global.repo.as_deref(), args.schemas.as_deref())?;
    let bar = output.progress("reading");
    let progress = |_done: usize, total: usize| bar.file_done(total);
    let validation = check_paths_with_progress(&project, &args.paths, &progress);
    bar.finish();
    if validation.files.is_empty() && !validation.report.has_errors() {
        return Err(
            Failure::usage("no spreadsheet files found in the given paths")
                .hint("masterctl reads .xlsx, .xlsm, .xlsb, .xls, .ods and .csv files"),
        );
    }
    let tables: Vec<TableSummary> = validation
        .tables()
        .map(|t| TableSummary {
            name: t.name.to_string(),
            rows: t.rows,
            source: t.origin.describe(),
        })
        .collect();
    let not_supplied: Vec<&str> = project
        .tables
        .iter()
        .filter(|s| !tables.iter().any(|t| t.name == s.name))
        .map(|s| s.name.as_str())
        .collect();
    let report = &validation.report;
    let ok = !report.has_errors();
    output.show(&Validated {
        ok,
        errors: report.error_count(),
        warnings: report.warning_count(),
        files: &validation.files,
        tables,
        not_supplied,
        diagnostics: &report.diagnostics,
    });
    // The tables die with the process; freeing millions of values one by one first
    // would only make the command slower.
    std::mem::forget(validation);
    if ok { Ok(()) } else { Err(Failure::Shown) }
}

/// What validating gave: every table read, every diagnostic, and whether it passed.
#[derive(Serialize)]
struct Validated<'a> {
    ok: bool,
    errors: usize,
    warnings: usize,
    files: &'a [PathBuf],
    tables: Vec<TableSummary>,
    not_supplied: Vec<&'a str>,
    diagnostics: &'a [Diagnostic],
}

impl Render for Validated<'_> {
    fn text(&self, output: &Output) {
        output.diagnostics_of(self.diagnostics);
        let tables = &self.tables;
        let rows: usize = tables.iter().map(|t| t.rows).sum();
        let files = self.files.len();
        let read = format!(
            "{}, {} from {}",
            counted(tables.len(), "table"),
            counted(rows, "row"),
            counted(files, "file")
        );
        if !self.not_supplied.is_empty() {
            output.line(format!(
                "not supplied (not checked): {}",
                self.not_supplied.join(", ")
            ));
        }
        if self.ok {
            output.line(format!(
                "{} {read} ({})",
                output.bold("valid:"),
                count_text(0, self.warnings)
            ));
            return;
        }
        // Say how many of the tables the errors are in, not just how many were read.
        let mut failing: Vec<&str> = self
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .filter_map(|d| d.location.table.as_deref())
            .collect();
        failing.sort_unstable();
        failing.dedup();
        let problems = count_text(self.errors, self.warnings);
        let line = if failing.is_empty() {
            format!("{problems}; read {read}")
        } else {
            format!(
                "{problems} in {} of {} ({} from {})",
                failing.len(),
                counted(tables.len(), "table"),
                counted(rows, "row"),
                counted(files, "file")
            )
        };
        output.line(format!("{} {line}", output.bold("rejected:")));
    }
}
