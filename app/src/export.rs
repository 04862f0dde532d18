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
    export::write(&data, out, format)
}

/// The current masters of a branch as a browser downloads them.
pub struct Download {
    /// The file's name: the workbook's own, or `<branch>-<commit>.zip`.
    pub name: String,
    pub content_type: &'static str,
    pub bytes: Vec<u8>,
}

const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// `line`'s data at its head as the planner's workbooks (one per `source`, its sheets as
/// import maps them, each with its looks and the export record): the workbook itself
/// when there is one, else a zip of them in their folders.
pub fn download(repo: &MasterRepo, line: &Branch) -> Result<Download, StoreError> {
    let data = export::export_region(repo, line, None, &[])?;
    let mut files = export::files(&data, Format::Xlsx)?;
    if files.len() == 1
        && let Some(export::ExportFile { path, bytes, .. }) = files.pop()
    {
        let name = path.rsplit('/').next().unwrap_or(&path).to_string();
        return Ok(Download {
            name,
            content_type: XLSX,
            bytes,
        });
    }
    if files.is_empty() {
        return Err(StoreError::NothingToExport {
            branch: line.branch().to_string(),
        });
    }
    let name = format!(
        "{}-{}.zip",
        line.branch().replace('/', "-"),
        masterctl_store::short_id(&data.commit)
    );
    let failed = |e: &dyn std::fmt::Display| StoreError::Export {
        path: name.clone().into(),
        message: e.to_string(),
    };
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    // Workbooks are compressed already.
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for file in &files {
        zip.start_file(file.path.as_str(), options)
            .map_err(|e| failed(&e))?;
        std::io::Write::write_all(&mut zip, &file.bytes).map_err(|e| failed(&e))?;
    }
    let bytes = zip.finish().map_err(|e| failed(&e))?.into_inner();
    Ok(Download {
        name,
        content_type: "application/zip",
        bytes,
    })
}
