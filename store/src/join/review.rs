//! The review of a planned rebase (`rebase --dry-run`): every change upstream made
//! since the import point, marked with what the rebase does with it — the keyed diff's
//! `rebase_review` over the four sides the plan names.

use git2::Repository;
use masterctl_schemas::Project;

use crate::StoreError;
use crate::join::RebasePlan;
use crate::review::diff::{Diff, Side, rebase_review};

/// [`rebase_review`] of a planned rebase: its import point, the upstream head, the
/// region's head and the merged snapshot.
pub fn review(
    git: &Repository,
    project: &Project,
    plan: &RebasePlan,
    branch: &str,
) -> Result<Diff, StoreError> {
    let upstream = plan.upstream.as_str();
    // The blobs the merge read are not inflated again.
    let read = &plan.snapshot.read;
    let base = Side::commit(
        git,
        &git.find_commit(plan.base)?,
        &format!("{upstream} at the import point"),
    )?
    .reading_from(read);
    let theirs =
        Side::commit(git, &git.find_commit(plan.upstream_head)?, upstream)?.reading_from(read);
    let ours = match plan.parent {
        Some(id) => Side::commit(git, &git.find_commit(id)?, branch)?.reading_from(read),
        None => Side::empty("nothing"),
    };
    let merged = Side::snapshot(&plan.snapshot, project.clone(), "rebased")?;
    rebase_review(&base, &theirs, &ours, &merged)
}
