//! `diff`: what changed, in tables, rows and cells, between the two sides a request
//! names — a branch's last commit, one revision or two, or what importing exports would
//! change.

use std::path::PathBuf;

use masterctl_schemas::Report;
use masterctl_store::import::{self, ImportError, ImportOutcome};
use masterctl_store::review::diff::{self, DiffOptions, Review};
use masterctl_store::{MasterRepo, StoreError};

use crate::project::branch;

/// The two sides a diff compares.
pub enum Sides<'a> {
    /// A branch's last commit against its parent: the region's, or a work branch's.
    LastCommit {
        region: &'a str,
        work: Option<&'a str>,
    },
    /// A revision against its parent.
    Revision(&'a str),
    /// An old revision against a new one.
    Revisions { old: &'a str, new: &'a str },
}

/// A branch's head against what importing export files or folders would make of it
/// (the import's own dry run: read and validated, nothing written).
pub struct Exports<'a> {
    pub region: &'a str,
    pub work: Option<&'a str>,
    pub paths: &'a [PathBuf],
    /// Called as each export file is read: `(done, total)`.
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
}

/// What a diff found.
pub enum Reviewed {
    Review(Review),
    /// The exports were rejected (every diagnostic): there is no data to compare.
    Rejected(Report),
}

/// The review of `sides`, limited and flagged as `options` say.
pub fn review(
    repo: &MasterRepo,
    sides: Sides<'_>,
    options: &DiffOptions,
) -> Result<Review, StoreError> {
    let (from, to) = match sides {
        Sides::LastCommit { region, work } => {
            diff::last_commit(repo, &branch(&repo.structure()?, region, work)?)?
        }
        Sides::Revision(revision) => diff::revision(&repo.git, revision)?,
        Sides::Revisions { old, new } => diff::revisions(&repo.git, old, new)?,
    };
    diff::review(&from, &to, options)
}

/// What importing the exports into the branch would change.
pub fn exports(
    repo: &MasterRepo,
    exports: Exports<'_>,
    options: DiffOptions,
) -> Result<Reviewed, ImportError> {
    let Exports {
        region,
        work,
        paths,
        progress,
    } = exports;
    let outcome = import::run(
        repo,
        &import::Request {
            region,
            branch: work,
            paths,
            structure: None,
            message: None,
            dry_run: true,
            review: Some(options),
            allow_removal: false,
            revert_upstream: false,
            keep_branch: false,
            progress,
        },
    )?;
    match outcome {
        ImportOutcome::Rejected(report) => Ok(Reviewed::Rejected(report)),
        ImportOutcome::DryRun {
            review: Some(review),
            ..
        } => Ok(Reviewed::Review(review)),
        ImportOutcome::DryRun { review: None, .. }
        | ImportOutcome::Unchanged(_)
        | ImportOutcome::Committed { .. } => {
            unreachable!("a dry run asked for its review commits nothing")
        }
    }
}
