//! `masterctl rebase --region R`: take what the region's upstream changed since the
//! recorded import point, keep what the region owns, stop on real conflicts — then
//! resolve them (conflict file, or --ours/--theirs) and `--continue`, or `--abort`.

use masterctl_schemas::Value;
use masterctl_store::rebase::resolutions::{self, Resolution};
use masterctl_store::rebase::session::{self, Action, Step};
use masterctl_store::rebase::state;
use masterctl_store::rebase::{RebaseError, RebasePlan, TableConflicts, rebase_message};
use masterctl_store::{Region, short_id};
use serde_json::json;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, RepoArg, count_text};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region to bring up to date with its upstream (`upstream` in [regions.R])
    #[arg(long, value_name = "R")]
    region: String,
    /// Show what would happen; write nothing
    #[arg(long)]
    dry_run: bool,
    /// After resolving the conflicts (in the conflict file or with --ours/--theirs): merge
    /// again with the resolutions, validate and commit
    #[arg(long = "continue", conflicts_with_all = ["abort", "ours", "theirs", "dry_run"])]
    continue_: bool,
    /// Drop the rebase in progress; nothing is committed
    #[arg(long, conflicts_with_all = ["ours", "theirs", "dry_run"])]
    abort: bool,
    /// Resolve conflicts with the region's values (narrow with --table, --column, --key)
    #[arg(long, conflicts_with = "theirs", group = "side")]
    ours: bool,
    /// Resolve conflicts with upstream's values (narrow with --table, --column, --key)
    #[arg(long, group = "side")]
    theirs: bool,
    /// With --ours/--theirs: only this table (or structure file, e.g. schemas/item.toml)
    #[arg(long, value_name = "TABLE", requires = "side")]
    table: Option<String>,
    /// With --ours/--theirs: only this column
    #[arg(long, value_name = "COLUMN", requires = "side")]
    column: Option<String>,
    /// With --ours/--theirs: only this row, its key as in the conflict file (`100`, `100|10`)
    #[arg(long, value_name = "KEY", requires = "side")]
    key: Option<String>,
}

fn rebase_failure(error: RebaseError, region: &Region, resolving: bool) -> Failure {
    match error {
        RebaseError::Store(e) => store_failure(e),
        RebaseError::NoUpstream(_) => Failure::usage(error.to_string()).hint(
            "give the region an upstream in masterctl.toml (upstream = \"<the region it follows>\"), or rebase a region that has one",
        ),
        RebaseError::BadResolution(_) => Failure::invalid(error.to_string())
            .hint("a `value` resolution must be a value of the column's type"),
        RebaseError::NotInProgress(_) if resolving => Failure::usage(error.to_string())
            .hint(format!("run `masterctl rebase --region {region}` first")),
        RebaseError::NotInProgress(_) => Failure::usage(error.to_string()),
        RebaseError::InProgress { ref conflict_file, .. } => {
            let hint = format!(
                "resolve the conflicts in {} (or with --ours/--theirs), then --continue; or --abort",
                conflict_file.display()
            );
            Failure::usage(error.to_string()).hint(hint)
        }
        RebaseError::NoConflictMatches { ref conflict_file } => {
            let hint = format!("the conflicts are listed in {}", conflict_file.display());
            Failure::usage(error.to_string()).hint(hint)
        }
        RebaseError::Moved(_) => Failure::environment(error.to_string()).hint(format!(
            "run `masterctl rebase --region {region} --abort`, then rebase again"
        )),
        RebaseError::NoUpstreamBranch(_)
        | RebaseError::UpstreamRewritten { .. }
        | RebaseError::NoImportPoint { .. } => Failure::environment(error.to_string()),
    }
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    // The region is checked against masterctl.toml before it names any path.
    let region = &super::region(&structure, &args.region)?;
    let action = if args.abort {
        Action::Abort
    } else if args.ours || args.theirs {
        Action::Resolve {
            side: if args.ours {
                Resolution::Ours
            } else {
                Resolution::Theirs
            },
            table: args.table.as_deref(),
            column: args.column.as_deref(),
            key: args.key.as_deref(),
        }
    } else if args.continue_ {
        Action::Continue
    } else if args.dry_run {
        Action::DryRun
    } else {
        Action::Start
    };
    let resolving = matches!(action, Action::Resolve { .. });
    let step = session::run(&repo, &structure, region, &action)
        .map_err(|e| rebase_failure(e, region, resolving))?;
    match step {
        Step::Aborted => {
            if output.is_json() {
                output.json(&json!({ "ok": true, "state": "aborted", "region": region.name() }));
            } else {
                output.line(format!(
                    "rebase of region {region} aborted; nothing was committed"
                ));
            }
            Ok(())
        }
        Step::Resolved { set, remaining } => {
            if output.is_json() {
                output.json(&json!({ "ok": true, "state": "resolving", "region": region.name(), "resolved": set, "remaining": remaining }));
            } else {
                let plural = if set == 1 { "" } else { "s" };
                output.line(format!(
                    "resolved {set} conflicting cell{plural}; {remaining} left"
                ));
                if remaining == 0 {
                    output.line(format!(
                        "next: masterctl rebase --region {region} --continue"
                    ));
                }
            }
            Ok(())
        }
        Step::UpToDate {
            upstream_head,
            continued,
        } => {
            let words = if continued {
                "nothing to continue"
            } else {
                "nothing to take"
            };
            show_up_to_date(output, region, upstream_head, words);
            Ok(())
        }
        Step::Conflicts {
            tables,
            conflict_file,
        } => {
            show_conflicts(output, region, &tables, conflict_file.as_deref());
            Err(Failure::Shown)
        }
        Step::Invalid { report, continued } => {
            if output.is_json() {
                output.json(&json!({ "ok": false, "state": "invalid", "errors": report.error_count(), "diagnostics": report.diagnostics }));
            } else {
                output.diagnostics(&report);
                output.line(format!(
                    "{} the merged data is not valid ({}); nothing was committed",
                    output.bold("rejected:"),
                    count_text(report.error_count(), report.warning_count())
                ));
                if continued {
                    output.line(format!(
                        "the resolutions in {} lead to these errors: change them, then `masterctl rebase --region {region} --continue` again, or --abort",
                        state::conflict_file(&repo, region).display()
                    ));
                }
            }
            Err(Failure::Shown)
        }
        Step::Planned(plan) => {
            if output.is_json() {
                output.json(&json!({ "ok": true, "state": "dry-run", "region": region.name(), "tables": tables_json(&plan), "message": rebase_message(&plan) }));
            } else {
                output.line(format!(
                    "dry run: rebasing {region} onto {} would commit:",
                    plan.upstream
                ));
                output.line(rebase_message(&plan).trim_end());
                output.line("nothing was written");
            }
            Ok(())
        }
        Step::Committed { commit, plan } => {
            if output.is_json() {
                output.json(&json!({
                    "ok": true,
                    "state": "committed",
                    "region": region.name(),
                    "commit": commit.to_string(),
                    "upstream_head": plan.upstream_head.to_string(),
                    "import_point_base": plan.base.to_string(),
                    "tables": tables_json(&plan),
                }));
            } else {
                output.line(format!(
                    "{} {} on {}: took {} up to {}",
                    output.bold("committed"),
                    short_id(&commit.to_string()),
                    region.branch(),
                    plan.upstream,
                    short_id(&plan.upstream_head.to_string())
                ));
                for t in &plan.tables {
                    output.line(format!(
                        "  {:<24} {:>6} applied {:>6} kept (owned) {:>6} resolved",
                        t.table, t.applied, t.kept, t.resolved
                    ));
                }
            }
            Ok(())
        }
    }
}

/// A region that already has everything its upstream has.
fn show_up_to_date(output: &Output, region: &Region, upstream_head: git2::Oid, words: &str) {
    let upstream_head = upstream_head.to_string();
    if output.is_json() {
        output.json(&json!({ "ok": true, "state": "up-to-date", "region": region.name(), "upstream_head": upstream_head }));
    } else {
        output.line(format!(
            "{words}: region {region} already has everything up to {}",
            short_id(&upstream_head)
        ));
    }
}

fn tables_json(plan: &RebasePlan) -> Vec<serde_json::Value> {
    plan.tables
        .iter()
        .map(|t| json!({ "table": t.table, "applied": t.applied, "kept": t.kept, "resolved": t.resolved }))
        .collect()
}

/// Every conflicting cell (and structure file), on the terminal or as JSON.
fn show_conflicts(
    output: &Output,
    region: &Region,
    tables: &[TableConflicts],
    file: Option<&std::path::Path>,
) {
    let show = |v: &Option<Value>| {
        v.as_ref()
            .map_or_else(|| "(none)".to_string(), Value::canonical)
    };
    let mut list = Vec::new();
    for table in tables {
        if table.conflicts.is_empty() {
            list.push(json!({ "table": table.table, "kind": "structure", "reason": table.reason }));
        }
        for c in &table.conflicts {
            list.push(json!({
                "table": table.table,
                "key": resolutions::key_text(&c.key),
                "column": table.fields.get(c.field),
                "kind": format!("{:?}", c.kind),
                "base": show(&c.base),
                "ours": show(&c.ours),
                "theirs": show(&c.theirs),
            }));
        }
    }
    if output.is_json() {
        output.json(&json!({ "ok": false, "state": "conflicts", "region": region.name(), "conflicts": list, "conflict_file": file }));
        return;
    }
    for entry in &list {
        let cell = |k: &str| entry[k].as_str().unwrap_or("").to_string();
        if entry["kind"] == "structure" {
            output.line(format!("conflict {}: {}", cell("table"), cell("reason")));
        } else {
            output.line(format!(
                "conflict {} ({}) {}: base {}, ours {}, theirs {}",
                cell("table"),
                cell("key"),
                cell("column"),
                cell("base"),
                cell("ours"),
                cell("theirs"),
            ));
        }
    }
    let plural = if list.len() == 1 { "" } else { "s" };
    output.line(format!(
        "{} {} conflicting cell{plural}; nothing was committed",
        output.bold("conflicts:"),
        list.len()
    ));
    if let Some(file) = file {
        output.line(format!(
            "resolve them in {} (resolution: ours, theirs, or value with the value), or with --ours/--theirs [--table T] [--column C] [--key K]; then `masterctl rebase --region {region} --continue`, or --abort",
            file.display()
        ));
    }
}
