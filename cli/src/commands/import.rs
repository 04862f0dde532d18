//! `masterctl import --region R PATH...`: validate exports, canonicalize them, and commit
//! the new snapshot to the region's branch — or, when anything is wrong, write nothing.

use std::path::PathBuf;

use masterctl_schemas::Diagnostic;
use masterctl_store::committed;
use masterctl_store::diff::{self, Diff, DiffOptions};
use masterctl_store::import::{ImportOutcome, Removal, Revert, commit_message};
use masterctl_store::{TableChange, commit_import, plan_import, short_id};
use serde::Serialize;

use super::{Failure, open_repo, region, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region whose branch receives the import (a [regions.R] of masterctl.toml)
    #[arg(long, value_name = "R")]
    region: String,
    /// Workbooks (xlsx, xlsm, xlsb, xls, ods), CSV files, or folders holding them
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
    /// The commit whose structure (masterctl.toml, schemas/) the import copies. By
    /// default HEAD's (usually main), which the working tree's must then equal: an
    /// uncommitted schema change is refused, named, so that every clone imports alike
    #[arg(long, value_name = "REV")]
    structure: Option<String>,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    for path in &args.paths {
        if !path.exists() {
            return Err(Failure::usage(format!("{} does not exist", path.display())));
        }
    }
    let repo = open_repo(global)?;
    let structure =
        committed::import_structure(&repo, args.structure.as_deref()).map_err(store_failure)?;
    let region = region(&structure, &args.region)?;
    let bar = output.progress("reading");
    let progress = |_done: usize, total: usize| bar.file_done(total);
    let outcome = plan_import(&repo, &structure, &region, &args.paths, &progress);
    bar.finish();
    let outcome = outcome.map_err(store_failure)?;
    let plan = match outcome {
        ImportOutcome::Rejected(report) => {
            return Err(Failure::Rejected(report));
        }
        ImportOutcome::Planned(plan) => plan,
    };
    if plan.sources.is_empty() {
        return Err(
            Failure::usage("no spreadsheet files found in the given paths")
                .hint("masterctl reads .xlsx, .xlsm, .xlsb, .xls, .ods and .csv files"),
        );
    }
    let branch = region.branch();
    if !output.is_json() && !plan.report.diagnostics.is_empty() {
        output.diagnostics(&plan.report);
    }
    let mut result = Imported {
        state: if plan.unchanged {
            "unchanged"
        } else if args.dry_run {
            "dry-run"
        } else {
            "committed"
        },
        region: &plan.region,
        branch,
        commit: None,
        structure: plan.structure.map(|c| c.to_string()),
        changes: &plan.changes,
        removals: &plan.removals,
        reverts: &plan.reverts,
        message: None,
        warnings: &plan.report.diagnostics,
        diff: None,
    };
    if args.dry_run {
        let diff = if plan.unchanged {
            masterctl_store::diff::Diff::default()
        } else {
            planned_diff(&repo, &structure, &region, &plan)?
        };
        if let Some(path) = &args.html {
            let title = format!("masterctl import --dry-run: {branch}");
            super::diff::write_page(path, &title, branch, "exports", &diff)?;
        }
        if !plan.unchanged {
            result.diff = Some(diff);
        }
    }
    if !plan.removals.is_empty() && !args.dry_run && !args.allow_removal {
        let newer = plan.newer_structure.map(|c| c.to_string());
        return Err(removal_failure(&plan.removals, newer.as_deref(), branch));
    }
    if !plan.reverts.is_empty() && !args.dry_run && !args.revert_upstream {
        return Err(revert_failure(&plan.reverts));
    }
    if !plan.unchanged && !args.dry_run {
        let commit = commit_import(&repo, &plan, args.message.as_deref()).map_err(store_failure)?;
        result.commit = Some(commit.to_string());
        result.message = Some(commit_message(&plan, args.message.as_deref()));
    }
    output.render(&result);
    Ok(())
}

/// An import refused for what it would take away: each removal named, and how to go on.
fn removal_failure(removals: &[Removal], newer: Option<&str>, branch: &str) -> Failure {
    let named: Vec<String> = removals.iter().map(removal_text).collect();
    let failure = Failure::invalid(format!(
        "the import would remove {}; nothing was written",
        named.join(", ")
    ));
    match newer {
        Some(structure) => failure.hint(format!(
            "{branch} was last imported with the structure of commit {}, which this clone's HEAD does not hold: update main (git pull) and import again; if the removal is meant, import again with --allow-removal",
            short_id(structure)
        )),
        None => failure.hint(
            "a table the branch holds is missing from the structure (is masterctl.toml or schemas/ out of date in this clone?), or the workbooks lack most of a table's rows; if that is meant, import again with --allow-removal",
        ),
    }
}

/// An import refused for taking back what the last rebase brought in: the cells named.
fn revert_failure(reverts: &[Revert]) -> Failure {
    const SHOWN: usize = 20;
    let named: Vec<String> = reverts.iter().take(SHOWN).map(revert_text).collect();
    let more = match reverts.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Failure::invalid(format!(
        "the workbooks would take back what the last rebase brought in ({}): {}{more}; nothing was written",
        short_id(&reverts[0].commit),
        named.join("; ")
    ))
    .hint(
        "they look older than the branch: `masterctl export --region R --out DIR` gives the current data to edit (an exported workbook is merged, never reverting); to take these back on purpose, import with --revert-upstream",
    )
}

/// `item [3] name: 「ステップアップガチャ」 back to 「ステップアップ」`.
fn revert_text(revert: &Revert) -> String {
    let key = revert.key.join("|");
    match &revert.field {
        Some(field) => format!(
            "{} [{key}] {field}: `{}` back to `{}`",
            revert.table, revert.upstream, revert.import
        ),
        None => format!("{} [{key}]: the row it added removed", revert.table),
    }
}

/// `table banner (4 rows)`, `generated master gacha_draw`, `12 of 20 rows of item`.
fn removal_text(removal: &Removal) -> String {
    match (removal.whole(), removal.generated) {
        (true, false) => format!("table {} ({} rows)", removal.table, removal.rows),
        (true, true) => format!("generated master {} ({} rows)", removal.table, removal.rows),
        (false, _) => format!(
            "{} of {} rows of {}",
            removal.rows, removal.of, removal.table
        ),
    }
}

/// What an import did: nothing (the branch holds this data), a dry run, or a commit.
#[derive(Serialize)]
struct Imported<'a> {
    state: &'static str,
    region: &'a str,
    branch: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    commit: Option<String>,
    /// The commit whose structure the import used.
    #[serde(skip_serializing_if = "Option::is_none")]
    structure: Option<String>,
    changes: &'a [TableChange],
    /// Tables, generated masters or most rows of a table taken away (committed only
    /// with --allow-removal).
    removals: &'a [Removal],
    /// Cells and rows the last rebase brought in that the import takes back (committed
    /// only with --revert-upstream).
    reverts: &'a [Revert],
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    warnings: &'a [Diagnostic],
    /// For a dry run: the change itself, cell by cell (as `masterctl diff` shows it).
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<Diff>,
}

impl Render for Imported<'_> {
    fn text(&self, output: &Output) {
        let branch = self.branch;
        match &self.commit {
            _ if self.state == "unchanged" => output.line(format!(
                "nothing changed: {branch} already holds this data; no commit was made"
            )),
            None => {
                output.line(format!("dry run: importing would change {branch}:"));
                print_changes(output, self.changes);
                for removal in self.removals {
                    output.line(output.flagged(&format!(
                        "  removes {} (needs --allow-removal)",
                        removal_text(removal)
                    )));
                }
                for revert in self.reverts {
                    output.line(output.flagged(&format!(
                        "  takes back {} (needs --revert-upstream)",
                        revert_text(revert)
                    )));
                }
                if let Some(diff) = &self.diff {
                    super::diff::print_changes(output, diff);
                }
                output.line("");
                output.line("nothing was written");
            }
            Some(commit) => {
                output.line(format!(
                    "{} {} on {branch}",
                    output.bold("committed"),
                    short_id(commit)
                ));
                print_changes(output, self.changes);
                for removal in self.removals {
                    output.line(format!("  removed {}", removal_text(removal)));
                }
            }
        }
    }
}

/// What the plan would change, cell by cell: the branch's head against the snapshot.
fn planned_diff(
    repo: &masterctl_store::MasterRepo,
    structure: &masterctl_store::Structure,
    region: &masterctl_store::Region,
    plan: &masterctl_store::ImportPlan,
) -> Result<Diff, Failure> {
    let (from, to) =
        diff::planned(repo, region, plan, &structure.project).map_err(store_failure)?;
    diff::diff(&from, &to, &DiffOptions::default()).map_err(store_failure)
}

fn print_changes(output: &Output, changes: &[TableChange]) {
    for change in changes {
        output.line(format!(
            "  {:<24} {:>6} added {:>6} changed {:>6} removed",
            change.table, change.added, change.changed, change.removed
        ));
    }
}
