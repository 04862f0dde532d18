//! `masterctl rebase --region R`: take what the region's upstream changed since the
//! recorded import point, keep what the region owns, stop on real conflicts.

use masterctl_store::rebase::{
    RebaseError, RebaseOutcome, commit_rebase, plan_rebase, rebase_message,
};
use serde_json::json;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, count_text};

#[derive(clap::Args)]
pub struct Args {
    /// The region to bring up to date with its upstream (`upstream` in [regions.R])
    #[arg(long, value_name = "R")]
    region: String,
    /// Show what would happen; write nothing
    #[arg(long)]
    dry_run: bool,
}

fn rebase_failure(error: RebaseError) -> Failure {
    match error {
        RebaseError::Store(e) => store_failure(e),
        RebaseError::NoUpstream(_) => Failure::usage(error.to_string())
            .hint("give the region an upstream in masterctl.toml: upstream = \"jp\""),
        RebaseError::NoUpstreamBranch(_)
        | RebaseError::UpstreamRewritten { .. }
        | RebaseError::NoImportPoint { .. } => Failure::environment(error.to_string()),
    }
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let outcome = plan_rebase(&repo, &structure, &args.region).map_err(rebase_failure)?;
    match outcome {
        RebaseOutcome::UpToDate { upstream_head } => {
            if output.is_json() {
                output.json(&json!({ "ok": true, "state": "up-to-date", "region": args.region, "upstream_head": upstream_head.to_string() }));
            } else {
                output.line(format!(
                    "nothing to take: region {} already has everything up to {}",
                    args.region,
                    &upstream_head.to_string()[..12]
                ));
            }
            Ok(())
        }
        RebaseOutcome::Conflicts(tables) => {
            let mut list = Vec::new();
            for table in &tables {
                if table.conflicts.is_empty() {
                    list.push(json!({ "table": table.table, "kind": "structure-file", "message": "changed on both sides, differently" }));
                }
                for c in &table.conflicts {
                    let show =
                        |v: &Option<masterctl_schemas::Value>| v.as_ref().map(|v| v.canonical());
                    list.push(json!({
                        "table": table.table,
                        "key": c.key.iter().map(|v| v.canonical()).collect::<Vec<_>>(),
                        "column": table.fields.get(c.field),
                        "kind": format!("{:?}", c.kind),
                        "base": show(&c.base),
                        "ours": show(&c.ours),
                        "theirs": show(&c.theirs),
                    }));
                }
            }
            if output.is_json() {
                output.json(&json!({ "ok": false, "state": "conflicts", "region": args.region, "conflicts": list }));
            } else {
                for entry in &list {
                    let cell = |k: &str| {
                        entry[k]
                            .as_str()
                            .map_or_else(|| "(none)".to_string(), str::to_string)
                    };
                    if entry["kind"] == "structure-file" {
                        output.line(format!(
                            "conflict {}: changed on both sides, differently",
                            cell("table")
                        ));
                        continue;
                    }
                    let key: Vec<String> = entry["key"]
                        .as_array()
                        .map(|k| {
                            k.iter()
                                .filter_map(|v| v.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default();
                    output.line(format!(
                        "conflict {} ({}) {}: base {}, ours {}, theirs {}",
                        cell("table"),
                        key.join(", "),
                        cell("column"),
                        cell("base"),
                        cell("ours"),
                        cell("theirs"),
                    ));
                }
                output.line(format!(
                    "{} {} conflicting cell{}; nothing was committed",
                    output.bold("conflicts:"),
                    list.len(),
                    if list.len() == 1 { "" } else { "s" }
                ));
            }
            Err(Failure::Rejected)
        }
        RebaseOutcome::Rejected(report) => {
            if output.is_json() {
                output.json(&json!({ "ok": false, "state": "invalid", "errors": report.error_count(), "diagnostics": report.diagnostics }));
            } else {
                output.diagnostics(&report);
                output.line(format!(
                    "{} the merged data is not valid ({}); nothing was committed",
                    output.bold("rejected:"),
                    count_text(report.error_count(), report.warning_count())
                ));
            }
            Err(Failure::Rejected)
        }
        RebaseOutcome::Planned(plan) => {
            let tables: Vec<_> = plan
                .tables
                .iter()
                .map(|t| json!({ "table": t.table, "applied": t.applied, "kept": t.kept }))
                .collect();
            if args.dry_run {
                if output.is_json() {
                    output.json(&json!({ "ok": true, "state": "dry-run", "region": plan.region, "tables": tables, "message": rebase_message(&plan) }));
                } else {
                    output.line(format!(
                        "dry run: rebasing {} onto {} would commit:",
                        plan.region, plan.upstream
                    ));
                    output.line(rebase_message(&plan).trim_end());
                    output.line("nothing was written");
                }
                return Ok(());
            }
            let commit = commit_rebase(&repo, &plan).map_err(store_failure)?;
            if output.is_json() {
                output.json(&json!({ "ok": true, "state": "committed", "region": plan.region, "commit": commit.to_string(), "upstream_head": plan.upstream_head.to_string(), "import_point_base": plan.base.to_string(), "tables": tables }));
            } else {
                output.line(format!(
                    "{} {} on {}: took {} up to {}",
                    output.bold("committed"),
                    &commit.to_string()[..12],
                    plan.reference.trim_start_matches("refs/heads/"),
                    plan.upstream,
                    &plan.upstream_head.to_string()[..12]
                ));
                for t in &plan.tables {
                    output.line(format!(
                        "  {:<24} {:>6} applied {:>6} kept (owned)",
                        t.table, t.applied, t.kept
                    ));
                }
            }
            Ok(())
        }
    }
}
