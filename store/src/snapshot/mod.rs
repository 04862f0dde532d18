//! What a region commit holds, above the git plumbing (`masterctl_git`): the structure
//! it carries and the project that describes (`structure`), its tables, language tables
//! and generated masters as canonical CSV (`tables`), a branch's head as pages browse it
//! (`head`), and a snapshot written as a commit
//! with the trailers it carries (`commit`). The workflows call down into this layer.

pub mod commit;
pub mod head;
mod recent;
pub mod structure;
mod tables;

pub use tables::*;

/// A new, empty repository in a temporary folder (dropped with the folder).
#[cfg(test)]
pub(crate) fn scratch_repository() -> (tempfile::TempDir, git2::Repository) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let git = git2::Repository::init(dir.path()).expect("a new repository");
    (dir, git)
}
