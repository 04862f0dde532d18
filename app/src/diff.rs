//! `diff`: what changed, in tables, rows and cells, between the two sides a request
//! names — a branch's last commit, one revision or two, or what importing exports would
//! change.

use std::path::PathBuf;

use masterctl_schemas::Report;
use masterctl_store::import::{self, ImportOutcome};
use masterctl_store::review::diff::{self, DiffOptions, Review};
use masterctl_store::{MasterRepo, StoreError};

use crate::project::branch;

/// The two sides a diff compares.
pub enum Sides<'a> {
    /// A branch's last commit against its parent: the region's, or a work branch's.
    LastCommit { region: &'a str, work: Option<&'a str> },
    /// A revision against its parent.
    Revision(&'a str),
    /// An old revision against a new one.
    Revisions { old: &'a str, new: &'a str },
    /// A branch's head against what importing these export files or folders would make
    /// of it (the import's own dry run: read and validated, nothing written).
    Exports {
        region: &'a str,
        work: Option<&'a str>,
        paths: &'a [PathBuf],
        /// Called as each export file is read: `(done, total)`.
        progress: &'a (dyn Fn(usize, usize) + Sync),
    },
}

/// What a diff found.
pub enum Reviewed {
    Review(Review),
    /// The exports were rejected (every diagnostic): there is no data to compare.
    Rejected(Report),
}

/// The review of `sides`, limited and flagged as `options` say.
pub fn review(repo: &MasterRepo, sides: Sides<'_>, options: DiffOptions) -> Result<Reviewed, StoreError> {
    let review = match sides {
        Sides::LastCommit { region, work } => {
            let line = branch(&repo.structure()?, region, work)?;
            let (from, to) = diff::last_commit(repo, &line)?;
            diff::review(&from, &to, &options)?
        }
        Sides::Revision(revision) => {
            let (from, to) = diff::revision(&repo.git, revision)?;
            diff::review(&from, &to, &options)?
        }
        Sides::Revisions { old, new } => {
            let (from, to) = diff::revisions(&repo.git, old, new)?;
            diff::review(&from, &to, &options)?
        }
        Sides::Exports {
            region,
            work,
            paths,
            progress,
        } => return exports(repo, region, work, paths, options, progress),
    };
    Ok(Reviewed::Review(review))
}

/// What importing `paths` into the branch would change.
fn exports(
    repo: &MasterRepo,
    region: &str,
    work: Option<&str>,
    paths: &[PathBuf],
    options: DiffOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Reviewed, StoreError> {
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
