//! Drafts written into a folder, one `<table>.toml` per draft: each file whole or not at
//! all, and a file already there kept unless the caller says to replace it — a second
//! run after adding a sheet writes just the new one.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::infer::DraftSchema;

/// What writing drafts did: the files written, and those kept because they exist.
#[derive(Debug, Default, Serialize)]
pub struct Written {
    pub written: Vec<PathBuf>,
    pub kept: Vec<PathBuf>,
}

/// Why drafts were not written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {path}: {source}")]
pub struct WriteError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Write each of `drafts` to `dir/<name>.toml` (the folder made when missing): a file
/// appears whole or not at all, and one replaced is renamed over (a reader, or a
/// process killed meanwhile, sees the old file or the new). A draft whose file exists
/// is kept unless `replace`.
pub fn write_drafts(
    dir: &Path,
    drafts: &[DraftSchema],
    replace: bool,
) -> Result<Written, WriteError> {
    let failed = |path: &Path| {
        let path = path.to_path_buf();
        move |source| WriteError { path, source }
    };
    std::fs::create_dir_all(dir).map_err(failed(dir))?;
    let mut done = Written::default();
    for draft in drafts {
        let target = dir.join(format!("{}.toml", draft.name));
        let text = draft.to_toml();
        let written = match replace {
            true => masterctl_runtime::files::write_atomic(&target, text.as_bytes()),
            false => masterctl_runtime::files::write_new_whole(&target, text.as_bytes()),
        };
        match written {
            Ok(()) => done.written.push(target),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => done.kept.push(target),
            Err(e) => return Err(failed(&target)(e)),
        }
    }
    Ok(done)
}
