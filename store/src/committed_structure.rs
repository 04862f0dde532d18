//! The structure an import copies into its snapshot: a committed revision's (HEAD's —
//! usually `main` — or one named with `--structure`), never the working tree's, so that
//! every clone holding that commit imports the same workbooks the same way. A working
//! tree whose structure differs from HEAD's is named file by file instead of being used
//! or ignored in silence.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::MasterRepo;
use crate::StoreError;
use crate::git::repo::resolve;
use crate::snapshot::structure::Structure;
use crate::snapshot::structure::project_from_files;
use crate::snapshot::structure::tree_files;
use crate::snapshot::structure::working_files;

/// How a structure file of the working tree differs from the committed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DriftKind {
    /// In the working tree, not in the commit (untracked, or added and not committed).
    NotCommitted,
    /// In both, with other contents.
    Changed,
    /// In the commit, gone from the working tree.
    Deleted,
}

/// One structure file that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Drift {
    /// Its path in the repository (`masterctl.toml`, `schemas/item.toml`).
    pub path: String,
    pub kind: DriftKind,
}

impl std::fmt::Display for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            DriftKind::NotCommitted => "is not committed",
            DriftKind::Changed => "has changes not committed",
            DriftKind::Deleted => "is deleted but not committed",
        };
        write!(f, "{} {what}", self.path)
    }
}

/// The structure of `rev` (HEAD when `None`). With `None`, a working tree whose
/// structure differs from HEAD's is refused ([`StoreError::UncommittedStructure`]),
/// every differing file named; a named revision is taken as it is.
pub fn import_structure(repo: &MasterRepo, rev: Option<&str>) -> Result<Structure, StoreError> {
    let (commit, name) = match rev {
        Some(rev) => (resolve(&repo.git, rev)?, rev.to_string()),
        None => match repo.git.head().and_then(|h| h.peel_to_commit()) {
            Ok(commit) => (commit, head_name(repo)),
            // Nothing committed yet: everything in the working tree is uncommitted.
            Err(_) => {
                let drift = match repo.workdir() {
                    Some(root) => drift(&[], &working_files(&root)?.unwrap_or_default()),
                    None => Vec::new(),
                };
                return Err(if drift.is_empty() {
                    StoreError::NoStructure
                } else {
                    StoreError::UncommittedStructure {
                        revision: head_name(repo),
                        drift,
                    }
                });
            }
        },
    };
    let files = tree_files(&repo.git, &commit.tree()?)?;
    if rev.is_none()
        && let Some(root) = repo.workdir()
    {
        let working = working_files(&root)?.unwrap_or_default();
        let drift = drift(&files, &working);
        if !drift.is_empty() {
            return Err(StoreError::UncommittedStructure {
                revision: name,
                drift,
            });
        }
    }
    if !files
        .iter()
        .any(|(path, _)| path == masterctl_schemas::load::CONFIG_FILE)
    {
        return Err(StoreError::NoCommittedStructure(name));
    }
    let project = project_from_files(&files).map_err(StoreError::InvalidStructure)?;
    Ok(Structure {
        project,
        files,
        origin: Some(commit.id()),
    })
}

/// What HEAD is called: its branch (`main`), or `HEAD` when detached or unborn.
fn head_name(repo: &MasterRepo) -> String {
    let head = repo.git.find_reference("HEAD").ok();
    let target = head
        .as_ref()
        .and_then(|h| h.symbolic_target().ok().flatten());
    target
        .and_then(|t| t.strip_prefix("refs/heads/"))
        .map_or_else(|| "HEAD".to_string(), str::to_string)
}

/// The files that differ between a commit's structure and a working tree's, in path
/// order. Line endings do not count (a checkout may turn LF into CRLF).
fn drift(committed: &[(String, Vec<u8>)], working: &[(String, Vec<u8>)]) -> Vec<Drift> {
    let committed: BTreeMap<&str, &[u8]> = committed
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let working: BTreeMap<&str, &[u8]> = working
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let mut paths: Vec<&str> = committed.keys().chain(working.keys()).copied().collect();
    paths.sort_unstable();
    paths.dedup();
    paths
        .into_iter()
        .filter_map(|path| {
            let kind = match (committed.get(path), working.get(path)) {
                (None, Some(_)) => DriftKind::NotCommitted,
                (Some(_), None) => DriftKind::Deleted,
                (Some(a), Some(b)) if !same_text(a, b) => DriftKind::Changed,
                _ => return None,
            };
            Some(Drift {
                path: path.to_string(),
                kind,
            })
        })
        .collect()
}

/// Equal bytes once CRLF is read as LF.
fn same_text(a: &[u8], b: &[u8]) -> bool {
    let lf = |bytes: &[u8]| -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len());
        for (i, &byte) in bytes.iter().enumerate() {
            if !(byte == b'\r' && bytes.get(i + 1) == Some(&b'\n')) {
                out.push(byte);
            }
        }
        out
    };
    a == b || lf(a) == lf(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        list.iter()
            .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn names_each_differing_file_once_in_path_order() {
        let committed = files(&[
            ("masterctl.toml", "a\n"),
            ("schemas/gone.toml", "x"),
            ("schemas/item.toml", "name = \"item\"\n"),
        ]);
        let working = files(&[
            ("masterctl.toml", "a\r\n"),
            ("schemas/banner.toml", "y"),
            ("schemas/item.toml", "name = \"items\"\n"),
        ]);
        let found = drift(&committed, &working);
        let shown: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "schemas/banner.toml is not committed",
                "schemas/gone.toml is deleted but not committed",
                "schemas/item.toml has changes not committed",
            ]
        );
        assert!(drift(&committed, &committed).is_empty());
    }
}
