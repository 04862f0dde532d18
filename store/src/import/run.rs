//! The whole import as one call: read the committed structure, plan, review (for a dry
//! run), guard against removals and reverts nobody asked for, commit. The CLI and the
//! console both call [`run`] and render the [`ImportOutcome`] it returns.

use std::path::PathBuf;

use masterctl_schemas::Report;

use super::{ImportError, ImportPlan, Planning, Removal, Revert, TableChange, commit_import};
use crate::MasterRepo;
use crate::StoreError;
use crate::committed_structure::import_structure;
use crate::names::{Branch, Region};
use crate::review::diff::{self, DiffOptions, Review, Side};
use crate::snapshot::structure::Structure;

/// What to import, and how far to go.
pub struct Request<'a> {
    /// The region whose branch receives the import.
    pub region: &'a str,
    /// One of the region's work branches instead (`work/<region>/<name>`).
    pub branch: Option<&'a str>,
    /// Workbooks, CSV files, or folders holding them.
    pub paths: &'a [PathBuf],
    /// The revision whose structure the import copies (`None`: HEAD's, which the
    /// working tree's must equal).
    pub structure: Option<&'a str>,
    /// The planner's words for the commit message.
    pub message: Option<&'a str>,
    /// Plan and review only; write nothing.
    pub dry_run: bool,
    /// What a dry run's review compares and flags; `None`: a dry run that only counts
    /// (what would change per table, every diagnostic) without the cell-by-cell review.
    pub review: Option<DiffOptions>,
    /// Commit even though tables, generated masters or most rows of a table go.
    pub allow_removal: bool,
    /// Commit even though cells the last rebase brought in are taken back.
    pub revert_upstream: bool,
    /// Where an exported workbook and the branch both changed a cell since the export,
    /// differently: keep the branch's value (a colleague's) and import the rest, each
    /// such cell said as a warning — instead of refusing the whole import.
    pub keep_branch: bool,
    /// Called as files are read: `(done, total)`.
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
}

impl<'a> Request<'a> {
    /// Import `paths` into `region`'s branch and commit: under HEAD's structure, no
    /// message, nothing taken away or back unasked, no progress reported.
    pub fn new(region: &'a str, paths: &'a [PathBuf]) -> Request<'a> {
        Request {
            region,
            branch: None,
            paths,
            structure: None,
            message: None,
            dry_run: false,
            review: None,
            allow_removal: false,
            revert_upstream: false,
            keep_branch: false,
            progress: &|_, _| {},
        }
    }
}

/// What the import found, whatever it then did.
#[derive(Debug, serde::Serialize)]
pub struct Summary {
    pub region: String,
    pub branch: String,
    /// The commit whose structure the import used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structure: Option<String>,
    /// Rows added, changed and removed per table.
    pub changes: Vec<TableChange>,
    /// What it takes away (committed only when allowed).
    pub removals: Vec<Removal>,
    /// What the last rebase brought in that it takes back (committed only when allowed).
    pub reverts: Vec<Revert>,
    /// Warnings met on the way (unmapped sheets...).
    #[serde(rename = "warnings", serialize_with = "diagnostics")]
    pub report: Report,
}

fn diagnostics<S: serde::Serializer>(report: &Report, out: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&report.diagnostics, out)
}

/// What an import came to.
#[derive(Debug)]
pub enum ImportOutcome {
    /// The data was rejected: every diagnostic, nothing written.
    Rejected(Report),
    /// The branch holds this data already; nothing was written.
    Unchanged(Summary),
    /// A dry run: what importing would change, cell by cell when a review was asked
    /// for (`unchanged`: nothing, the branch holds this data already); nothing was
    /// written.
    DryRun {
        summary: Summary,
        review: Option<Review>,
        unchanged: bool,
    },
    /// Committed.
    Committed {
        summary: Summary,
        commit: String,
        /// The commit's message, as written.
        message: String,
    },
}

/// Import as `request` says. A removal or revert the request does not allow is an
/// error carrying each one ([`ImportError::Removes`], [`ImportError::Reverts`]); a dry
/// run reports them instead.
pub fn run(repo: &MasterRepo, request: &Request<'_>) -> Result<ImportOutcome, ImportError> {
    let structure = import_structure(repo, request.structure)?;
    let region = Branch::of(
        &Region::of(&structure.project, request.region)?,
        request.branch,
    )?;
    let reading = super::Reading {
        paths: request.paths,
        progress: request.progress,
        keep_branch: request.keep_branch,
    };
    let plan = match super::plan_import(repo, &structure, &region, &reading)? {
        Planning::Rejected(report) => return Ok(ImportOutcome::Rejected(report)),
        Planning::Planned(plan) => plan,
    };
    if plan.sources.is_empty() {
        return Err(ImportError::NoSources);
    }
    if request.dry_run {
        let review = match &request.review {
            Some(options) => Some(review_plan(
                repo, &structure, &region, &plan, "exports", options,
            )?),
            None => None,
        };
        return Ok(ImportOutcome::DryRun {
            unchanged: plan.unchanged,
            summary: summary(&region, *plan),
            review,
        });
    }
    if plan.unchanged {
        return Ok(ImportOutcome::Unchanged(summary(&region, *plan)));
    }
    guard(&region, &plan, request)?;
    let (commit, message) = commit_import(repo, &plan, request.message)?;
    Ok(ImportOutcome::Committed {
        summary: summary(&region, *plan),
        commit: commit.to_string(),
        message,
    })
}

/// Refuse what the request does not allow: removals first, then reverts.
fn guard(region: &Branch, plan: &ImportPlan, request: &Request<'_>) -> Result<(), ImportError> {
    if !plan.removals.is_empty() && !request.allow_removal {
        return Err(ImportError::Removes {
            branch: region.branch().to_string(),
            removals: plan.removals.clone(),
            newer_structure: plan.newer_structure.map(|c| c.to_string()),
        });
    }
    if let Some(first) = plan.reverts.first()
        && !request.revert_upstream
    {
        return Err(ImportError::Reverts {
            commit: first.commit.clone(),
            reverts: plan.reverts.clone(),
        });
    }
    Ok(())
}

/// The branch's head the plan started from against what it would commit (named
/// `label`), as `diff` shows it.
pub(crate) fn review_plan(
    repo: &MasterRepo,
    structure: &Structure,
    region: &Branch,
    plan: &ImportPlan,
    label: &str,
    options: &DiffOptions,
) -> Result<Review, StoreError> {
    let git = &repo.git;
    let head = plan.parent.map(|id| git.find_commit(id)).transpose()?;
    let from = match &head {
        Some(head) => Side::commit(git, head, region.branch())?,
        None => Side::empty("nothing"),
    };
    let to = match &head {
        // The branch holds these exports already (the plan kept no snapshot).
        Some(head) if plan.unchanged => Side::commit(git, head, label)?,
        _ => Side::snapshot(&plan.snapshot, structure.project.clone(), label)?,
    };
    diff::review(&from, &to, options)
}

fn summary(region: &Branch, plan: ImportPlan) -> Summary {
    Summary {
        region: region.name().to_string(),
        branch: region.branch().to_string(),
        structure: plan.structure.map(|c| c.to_string()),
        changes: plan.changes,
        removals: plan.removals,
        reverts: plan.reverts,
        report: plan.report,
    }
}
