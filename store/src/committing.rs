//! A workflow's commit: the snapshot written and the branch moved (the plumbing's
//! [`write_commit`]), then the keys it changed in each table kept for blame (review's
//! `keep_changes`). Import, rebase and `l10n import` commit through this one step.

use git2::Oid;

use crate::MasterRepo;
use crate::StoreError;
use crate::snapshot::Snapshot;
use crate::snapshot::commit::{CommitSpec, write_commit};

/// Commit `snapshot` as `spec` says, then keep what it changed against the branch's
/// first parent (`spec.expected`: blame walks first parents).
pub(crate) fn commit_snapshot(
    repo: &MasterRepo,
    snapshot: &Snapshot,
    spec: &CommitSpec,
) -> Result<Oid, StoreError> {
    let commit = write_commit(repo, snapshot, spec)?;
    crate::review::row_changes::keep_changes(repo, spec.expected, commit, snapshot);
    Ok(commit)
}
