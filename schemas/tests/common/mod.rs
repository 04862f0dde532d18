//! Paths and helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use masterctl_schemas::load::load_project;
use masterctl_schemas::table::Origin;
use masterctl_schemas::{
    Diagnostic, Project, Validation, check_paths_with_progress, validate_paths,
};

pub use masterctl_testing::{fixtures, hunt, third_party};

/// A project of one region, `jp`, in Japanese: the `masterctl.toml` most tests need.
pub const CONFIG: &str =
    "source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";

/// The root of the repository.
pub fn repo_root() -> PathBuf {
    masterctl_testing::root()
}

pub fn project(root: &Path) -> Project {
    match load_project(root) {
        Ok(project) => project,
        Err(report) => panic!(
            "{} does not load: {:#?}",
            root.display(),
            report.diagnostics
        ),
    }
}

/// Validate `paths`; and check them as `masterctl validate` does, keeping only what
/// the checks across tables read, which must say exactly the same.
pub fn validate(project: &Project, paths: &[PathBuf]) -> Validation {
    let validation = validate_paths(project, paths);
    let checked = check_paths_with_progress(project, paths, &|_, _| {});
    assert_eq!(checked.report.diagnostics, validation.report.diagnostics);
    assert_eq!(checked.files, validation.files);
    let read: Vec<(&str, usize, &Origin)> = checked
        .tables()
        .map(|t| (t.name, t.rows, t.origin))
        .collect();
    let whole: Vec<(&str, usize, &Origin)> = validation
        .tables
        .iter()
        .map(|t| (t.name.as_str(), t.row_count(), &t.origin))
        .collect();
    assert_eq!(read, whole);
    validation
}

/// Validates one CSV file `name` holding `text`, written to a folder of its own (kept
/// with the outcome, for the paths the diagnostics name).
#[allow(dead_code)]
pub fn validate_csv(project: &Project, name: &str, text: &str) -> (tempfile::TempDir, Validation) {
    let (dir, path) = file_of(name, text.as_bytes());
    let validation = validate(project, &[path]);
    (dir, validation)
}

/// A file `name` holding `bytes`, in a temporary folder (kept while the folder lives).
#[allow(dead_code)]
pub fn file_of(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

/// The fixtures' workbooks, with `replace` standing in for the good workbook named `instead_of`.
pub fn fixtures_with(instead_of: &str, replace: &[&str]) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = ["items.xlsx", "quests.xlsx", "shops.xlsx"]
        .iter()
        .filter(|name| **name != instead_of)
        .map(|name| fixtures().join("workbooks").join(name))
        .collect();
    paths.extend(replace.iter().map(|r| fixtures().join("broken").join(r)));
    paths
}

pub fn errors(validation: &Validation) -> Vec<&Diagnostic> {
    validation
        .report
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .collect()
}

/// The single error of a validation, or a panic listing what there was.
pub fn only_error(validation: &Validation) -> &Diagnostic {
    let errors = errors(validation);
    assert_eq!(
        errors.len(),
        1,
        "expected exactly one error, got {errors:#?}"
    );
    errors[0]
}

/// What is wrong with the drafts `schema infer` made of `path`, when written as schema
/// files and loaded as a project (`None`: they load): names given twice, files the
/// loader refuses.
#[allow(dead_code)]
pub fn drafts_refused(
    path: &Path,
    drafts: &[masterctl_migrate::infer::DraftSchema],
) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let mut names = std::collections::HashSet::new();
    for draft in drafts {
        if !names.insert(draft.name.clone()) {
            return Some(format!(
                "{}: two drafts named {}",
                path.display(),
                draft.name
            ));
        }
        std::fs::write(
            dir.path().join(format!("{}.toml", draft.name)),
            draft.to_toml(),
        )
        .unwrap();
    }
    match masterctl_schemas::load::load_schemas_dir(dir.path()) {
        Ok(_) => None,
        Err(report) => Some(format!(
            "{}: {}",
            path.display(),
            report
                .diagnostics
                .iter()
                .map(|d| format!("{} {}", d.location.place(), d.message))
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}

/// A project from `masterctl.toml` text and schema files' texts (`(file name, text)`).
#[allow(dead_code)]
pub fn load_texts(
    config: &str,
    schemas: &[(&str, &str)],
) -> Result<Project, Vec<masterctl_schemas::Diagnostic>> {
    masterctl_schemas::load::load_from_files(
        Some((PathBuf::from("masterctl.toml"), config.to_string())),
        schemas
            .iter()
            .map(|(name, text)| (PathBuf::from(format!("schemas/{name}")), text.to_string()))
            .collect(),
    )
    .map_err(|report| report.diagnostics)
}

/// The schema files `schemas` are refused when they load, one of the mistakes (with its
/// hints) saying `expected`.
pub fn refused_at_load(config: &str, schemas: &[(&str, &str)], expected: &str) {
    let found: Vec<String> = load_texts(config, schemas)
        .err()
        .unwrap_or_else(|| panic!("the schemas loaded: {schemas:?}"))
        .iter()
        .map(|d| format!("{d} {d:?}"))
        .collect();
    assert!(
        found.iter().any(|e| e.contains(expected)),
        "{expected}: {found:#?}"
    );
}

/// The rows of the first table `validation` read, each its values' canonical texts
/// joined by commas; the validation must have passed.
#[allow(dead_code)]
pub fn passed_rows(validation: &Validation) -> Vec<String> {
    assert!(!validation.report.has_errors(), "{:#?}", validation.report);
    let table = &validation.tables[0];
    (0..table.row_count())
        .map(|r| {
            table
                .row(r)
                .map(|v| v.canonical())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

/// A workbook `name` in `dir` of one sheet, `rows` of cells (`""` = empty; a text that
/// reads as a number is written as a number).
#[allow(dead_code)]
pub fn sheet_workbook(dir: &Path, name: &str, sheet: &str, rows: &[&[&str]]) -> PathBuf {
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let worksheet = workbook.add_worksheet().set_name(sheet).unwrap();
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            if cell.is_empty() {
                continue;
            }
            match cell.parse::<f64>() {
                Ok(number) => worksheet.write_number(r as u32, c as u16, number),
                Err(_) => worksheet.write_string(r as u32, c as u16, *cell),
            }
            .unwrap();
        }
    }
    let path = dir.join(name);
    workbook.save(&path).unwrap();
    path
}

/// [`sheet_workbook`] `<sheet>.xlsx`, in a temporary folder (kept while it lives).
#[allow(dead_code)]
pub fn one_sheet(sheet: &str, rows: &[&[&str]]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = sheet_workbook(dir.path(), &format!("{sheet}.xlsx"), sheet, rows);
    (dir, path)
}

/// A workbook `name` of `sheets`, each `(name, rows)`, numbers written as numbers.
#[allow(dead_code)]
pub fn workbook(name: &str, sheets: &[(&str, &[&[&str]])]) -> (tempfile::TempDir, PathBuf) {
    let mut workbook = rust_xlsxwriter::Workbook::new();
    for (sheet_name, rows) in sheets {
        let sheet = workbook.add_worksheet().set_name(*sheet_name).unwrap();
        for (row, cells) in rows.iter().enumerate() {
            for (column, text) in cells.iter().enumerate() {
                let (row, column) = (row as u32, column as u16);
                match text.parse::<f64>() {
                    Ok(number) => sheet.write_number(row, column, number).unwrap(),
                    Err(_) => sheet.write_string(row, column, *text).unwrap(),
                };
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    workbook.save(&path).unwrap();
    (dir, path)
}
