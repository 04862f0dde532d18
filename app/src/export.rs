//! `export`: a branch's data (at its head or a revision) written back as the files
//! planners edit — workbooks, or CSV files — to import again.

use std::path::Path;

use masterctl_store::export::{self, Exported, Format};
use masterctl_store::{Branch, MasterRepo, StoreError};

/// The data of `line` at its head or at `revision` (any revision, or a version of the
/// region), written into `out` as `format` says; with `languages`, each text field
/// followed by a comment column of its translations per language.
pub fn export(
    repo: &MasterRepo,
    line: &Branch,
    revision: Option<&str>,
    languages: &[String],
    format: Format,
    out: &Path,
) -> Result<Exported, StoreError> {
    let data = export::export_region(repo, line, revision, languages)?;
    match format {
        Format::Csv => export::write_csv(&data, out),
        Format::Xlsx | Format::Ods => export::write_workbooks(&data, out, format),
    }
}
