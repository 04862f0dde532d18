//! The exports an import read, named by file name and content hash (recorded in the
//! commit's trailers and in the import cache).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::StoreError;

/// An exported file that went into an import, named by its file name and content hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    pub path: PathBuf,
    pub sha256: String,
}

/// Hash an export.
pub fn source_file(path: &Path) -> Result<SourceFile, StoreError> {
    let bytes = std::fs::read(path).map_err(StoreError::io(path))?;
    let digest = Sha256::digest(&bytes);
    let sha256 = hex::encode(digest);
    Ok(SourceFile {
        path: path.to_path_buf(),
        sha256,
    })
}
