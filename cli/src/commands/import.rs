//! `masterctl import --region R PATH...`: validate exports, canonicalize them, and commit
//! the new snapshot to the region's branch — or, when anything is wrong, write nothing.

use std::path::PathBuf;

use masterctl_store::import::{self, ImportOutcome, Request, Summary};
use masterctl_store::review::diff::{Diff, DiffOptions};
use masterctl_store::{TableChange, short_id};
use serde::Serialize;

use super::{Failure, open_repo};
use crate::output::{GlobalArgs, Output, Render, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region whose branch receives the import (a [regions.R] of masterctl.toml)
    #[arg(long, value_name = "R")]
    region: String,
    /// A work branch of the region (work/R/NAME) instead of the region's own branch
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
    /// Workbooks (xlsx, xlsm, xlsb, xls, ods), CSV or tab-separated files (tsv, txt), or
    /// folders holding them
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Validate and show what would change; write nothing
    #[arg(long)]
    dry_run: bool,
    /// Your own words for the commit message (its first line)
    #[arg(long, short, value_name = "TEXT")]
    message: Option<String>,
    /// With --dry-run: also write the change as one self-contained HTML page (as
    /// `masterctl diff --html`)
    #[arg(long, value_name = "FILE", requires = "dry_run")]
    html: Option<PathBuf>,
    /// Commit even though the import removes a table or generated master the branch
    /// holds, or more than half the rows of a table of 20 rows or more (without it such
    /// an import is refused, each removal named)
    #[arg(long)]
    allow_removal: bool,
    /// Commit even though the workbooks (ones `export` did not write) take back cells or
    /// rows the region's last rebase or merge brought in (without it such an import is
    /// refused, each cell named; export the region again and edit that instead)
    #[arg(long)]
    revert_upstream: bool,
    /// Where a workbook `export` wrote and the branch both changed a cell since the
    /// export, differently: keep the branch's value (a colleague's change) and import
    /// the rest, each such cell named as a warning (without it such an import is
    /// refused, each cell named with who changed it on the branch)
    #[arg(long)]
    keep_branch: bool,
    /// The commit whose structure (masterctl.toml, schemas/) the import copies. By
    /// default HEAD's (usually main), which the working tree's must then equal: an
    /// uncommitted schema change is refused, named, so that every clone imports alike
    #[arg(long, value_name = "REV")]
    structure: Option<String>,
    #[command(flatten)]
    pub(super) sync: super::sync::SyncArgs,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    super::all_exist(&args.paths)?;
    let repo = open_repo(global)?;
    let (outcome, pulled, sent) = args.sync.around(
        &repo,
        &args.region,
        args.branch.as_deref(),
        output,
        |repo| {
            let bar = output.progress("reading");
            let progress = |_done: usize, total: usize| bar.file_done(total);
            let outcome = import::run(
                repo,
                &Request {
                    region: &args.region,
                    branch: args.branch.as_deref(),
                    paths: &args.paths,
                    structure: args.structure.as_deref(),
                    message: args.message.as_deref(),
                    dry_run: args.dry_run,
                    review: Some(DiffOptions::default()),
                    allow_removal: args.allow_removal,
                    revert_upstream: args.revert_upstream,
                    keep_branch: args.keep_branch,
                    progress: &progress,
                },
            );
            bar.finish();
            outcome
        },
        |outcome| matches!(outcome, ImportOutcome::Committed { .. }),
    )?;
    let summary = match &outcome {
        ImportOutcome::Rejected(report) => return Err(Failure::Rejected(report.clone())),
        ImportOutcome::Unchanged(summary)
        | ImportOutcome::DryRun { summary, .. }
        | ImportOutcome::Committed { summary, .. } => summary,
    };
    if !output.is_json() && !summary.report.diagnostics.is_empty() {
        output.diagnostics(&summary.report);
    }
    super::tell(
        global,
        |by| masterctl_app::notify::of::import(&outcome, &summary.region, &summary.branch, by),
        output,
    );
    if let (
        ImportOutcome::DryRun {
            review: Some(review),
            ..
        },
        Some(path),
    ) = (&outcome, &args.html)
    {
        let title = format!("masterctl import --dry-run: {}", summary.branch);
        super::diff::write_page(path, &title, &summary.branch, "exports", &review.diff)?;
    }
    let shown = super::sync::Synced {
        result: &Imported(&outcome),
        pulled: &pulled,
        pushed: sent.as_ref(),
    };
    shown.show(output)
}

/// What an import did, for the terminal or as JSON: `state` (`unchanged`, `dry-run`,
/// `committed`), the summary, and the commit or the dry run's diff.
struct Imported<'a>(&'a ImportOutcome);

impl Serialize for Imported<'_> {
    fn serialize<S: serde::Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shape<'a> {
            state: &'static str,
            #[serde(flatten)]
            summary: &'a Summary,
            #[serde(skip_serializing_if = "Option::is_none")]
            commit: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            message: Option<&'a str>,
            /// For a dry run: the change itself, cell by cell (as `masterctl diff`).
            #[serde(skip_serializing_if = "Option::is_none")]
            diff: Option<&'a Diff>,
        }
        let shape = match self.0 {
            ImportOutcome::Rejected(_) => unreachable!("a rejection is a failure, not a result"),
            ImportOutcome::Unchanged(summary) => Shape {
                state: "unchanged",
                summary,
                commit: None,
                message: None,
                diff: None,
            },
            ImportOutcome::DryRun {
                summary,
                review,
                unchanged,
            } => Shape {
                state: if *unchanged { "unchanged" } else { "dry-run" },
                summary,
                commit: None,
                message: None,
                diff: review.as_ref().filter(|_| !unchanged).map(|r| &r.diff),
            },
            ImportOutcome::Committed {
                summary,
                commit,
                message,
            } => Shape {
                state: "committed",
                summary,
                commit: Some(commit),
                message: Some(message),
                diff: None,
            },
        };
        shape.serialize(out)
    }
}

impl Render for Imported<'_> {
    fn text(&self, output: &Output) {
        match self.0 {
            ImportOutcome::Rejected(_) => {}
            ImportOutcome::Unchanged(summary)
            | ImportOutcome::DryRun {
                summary,
                unchanged: true,
                ..
            } => output.line(format!(
                "nothing changed: {} already holds this data; no commit was made",
                summary.branch
            )),
            ImportOutcome::DryRun {
                summary, review, ..
            } => {
                output.line(format!(
                    "dry run: importing would change {}:",
                    summary.branch
                ));
                print_changes(output, &summary.changes);
                for removal in &summary.removals {
                    output.line(
                        output.flagged(&format!("  removes {removal} (needs --allow-removal)")),
                    );
                }
                for revert in &summary.reverts {
                    output.line(
                        output.flagged(&format!("  takes back {revert} (needs --revert-upstream)")),
                    );
                }
                if let Some(review) = review {
                    super::diff::print_changes(output, &review.diff);
                }
                output.line("");
                output.line("nothing was written");
            }
            ImportOutcome::Committed {
                summary, commit, ..
            } => {
                output.line(format!(
                    "{} {} on {}",
                    output.bold("committed"),
                    short_id(commit),
                    summary.branch
                ));
                print_changes(output, &summary.changes);
                for removal in &summary.removals {
                    output.line(format!("  removed {removal}"));
                }
            }
        }
    }
}

fn print_changes(output: &Output, changes: &[TableChange]) {
    for change in changes {
        output.line(format!(
            "  {:<24} {:>6} added {:>6} changed {:>6} removed",
            change.table, change.added, change.changed, change.removed
        ));
    }
}
