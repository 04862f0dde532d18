//! The plumbing beneath every workflow: the repository and its structure (`repo`), refs
//! moved with an expected old value and their locks (`refs`), objects written as one pack
//! (`pack`), large blobs read from the packs with their delta bases kept (`packed`),
//! commits and the trailers they carry (`commit`), a commit's tables as canonical CSV
//! (`snapshot`). Nothing here names a workflow or the review: they call
//! down into this layer, never the other way (`cli/tests/architecture.rs`).

pub mod commit;
pub mod confined;
pub mod pack;
pub mod packed;
pub mod refs;
pub mod repo;
pub mod snapshot;

/// A new, empty repository in a temporary folder (dropped with the folder).
#[cfg(test)]
pub(crate) fn scratch_repository() -> (tempfile::TempDir, git2::Repository) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let git = git2::Repository::init(dir.path()).expect("a new repository");
    (dir, git)
}
