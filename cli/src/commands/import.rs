//! `masterctl import --region R PATH...`: validate exports, canonicalize them, and commit
//! the new snapshot to the region's branch — or, when anything is wrong, write nothing.

use std::path::PathBuf;

use masterctl_store::import::{ImportOutcome, commit_message};
use masterctl_store::{commit_import, plan_import, short_id};
use serde_json::json;

use super::{Failure, open_repo, region, store_failure};
use crate::output::{GlobalArgs, Output, RepoArg};

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
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    for path in &args.paths {
        if !path.exists() {
            return Err(Failure::usage(format!("{} does not exist", path.display())));
        }
    }
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
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
    let changes: Vec<_> = plan
        .changes
        .iter()
        .map(|c| json!({ "table": c.table, "added": c.added, "changed": c.changed, "removed": c.removed }))
        .collect();
    if !output.is_json() && !plan.report.diagnostics.is_empty() {
        output.diagnostics(&plan.report);
    }
    if plan.unchanged || args.dry_run {
        let state = if plan.unchanged {
            "unchanged"
        } else {
            "dry-run"
        };
        if output.is_json() {
            output.json(&json!({ "ok": true, "state": state, "region": plan.region, "branch": branch, "changes": changes, "warnings": plan.report.diagnostics }));
        } else if plan.unchanged {
            output.line(format!(
                "nothing changed: {branch} already holds this data; no commit was made"
            ));
        } else {
            output.line(format!("dry run: importing would change {branch}:"));
            print_changes(output, &plan.changes);
            output.line("nothing was written");
        }
        return Ok(());
    }
    let commit = commit_import(&repo, &plan, args.message.as_deref()).map_err(store_failure)?;
    if output.is_json() {
        output.json(&json!({
            "ok": true,
            "state": "committed",
            "region": plan.region,
            "branch": branch,
            "commit": commit.to_string(),
            "changes": changes,
            "message": commit_message(&plan, args.message.as_deref()),
            "warnings": plan.report.diagnostics,
        }));
    } else {
        output.line(format!(
            "{} {} on {branch}",
            output.bold("committed"),
            short_id(&commit.to_string())
        ));
        print_changes(output, &plan.changes);
    }
    Ok(())
}

fn print_changes(output: &Output, changes: &[masterctl_store::TableChange]) {
    for change in changes {
        output.line(format!(
            "  {:<24} {:>6} added {:>6} changed {:>6} removed",
            change.table, change.added, change.changed, change.removed
        ));
    }
}
