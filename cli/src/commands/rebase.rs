//! `masterctl rebase --region R`: take what the region's upstream changed since the
//! recorded import point, keep what the region owns, stop on real conflicts — then
//! resolve them (conflict file, or --ours/--theirs) and `--continue`, or `--abort`.

use std::path::Path;

use masterctl_store::rebase::RebaseError;
use masterctl_store::rebase::resolutions::Resolution;
use masterctl_store::rebase::session::{self, Action, ConflictEntry, Rebased, Step};
use masterctl_store::{Region, short_id};
use serde::Serialize;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, count_text, counted};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region to bring up to date with its upstream (`upstream` in [regions.R])
    #[arg(long, value_name = "R")]
    region: String,
    /// Show what would happen, change by change; write nothing
    #[arg(long)]
    dry_run: bool,
    /// With --dry-run: also write the review as one self-contained HTML page
    #[arg(long, value_name = "FILE", requires = "dry_run")]
    html: Option<std::path::PathBuf>,
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
    if let (Step::DryRun { diff, .. }, Some(path)) = (&step, &args.html) {
        let title = format!("masterctl rebase --dry-run: {}", region.branch());
        super::diff::write_page(path, &title, region.branch(), "rebased", diff)?;
    }
    let shown = Shown {
        ok: !matches!(step, Step::Conflicts { .. } | Step::Invalid { .. }),
        region,
        step: &step,
    };
    output.show(&shown);
    if shown.ok {
        Ok(())
    } else {
        Err(Failure::Shown)
    }
}

/// What a rebase step came to, for the terminal or as JSON (the step's own fields,
/// `state` naming it, beside `ok` and the region).
#[derive(Serialize)]
struct Shown<'a> {
    ok: bool,
    #[serde(serialize_with = "region_name")]
    region: &'a Region,
    #[serde(flatten)]
    step: &'a Step,
}

fn region_name<S: serde::Serializer>(region: &&Region, out: S) -> Result<S::Ok, S::Error> {
    out.serialize_str(region.name())
}

impl Render for Shown<'_> {
    fn text(&self, output: &Output) {
        let region = self.region.name();
        match self.step {
            Step::Aborted => output.line(format!(
                "rebase of region {region} aborted; nothing was committed"
            )),
            Step::Resolved {
                resolved,
                remaining,
            } => {
                output.line(format!(
                    "resolved {}; {remaining} left",
                    counted(*resolved, "conflicting cell")
                ));
                if *remaining == 0 {
                    output.line(format!(
                        "next: masterctl rebase --region {region} --continue"
                    ));
                }
            }
            Step::UpToDate {
                upstream_head,
                continued,
            } => output.line(format!(
                "{}: region {region} already has everything up to {}",
                if *continued {
                    "nothing to continue"
                } else {
                    "nothing to take"
                },
                short_id(upstream_head)
            )),
            Step::Conflicts {
                conflicts,
                conflict_file,
            } => self.conflicts(output, conflicts, conflict_file.as_deref()),
            Step::Invalid {
                report,
                errors,
                warnings,
                conflict_file,
            } => {
                output.diagnostics(report);
                output.line(format!(
                    "{} the merged data is not valid ({}); nothing was committed",
                    output.bold("rejected:"),
                    count_text(*errors, *warnings)
                ));
                if let Some(file) = conflict_file {
                    output.line(format!(
                        "the resolutions in {} lead to these errors: change them, then `masterctl rebase --region {region} --continue` again, or --abort",
                        file.display(),
                    ));
                }
            }
            Step::DryRun { rebase, diff } => {
                output.line(format!(
                    "dry run: rebasing {region} onto {} would commit:",
                    rebase.upstream
                ));
                output.line(rebase.message.trim_end());
                super::diff::print_changes(output, diff);
                output.line("");
                self.seeded(output, rebase, "would take");
                output.line("nothing was written");
            }
            Step::Committed { commit, rebase } => {
                output.line(format!(
                    "{} {} on {}: took {} up to {}",
                    output.bold("committed"),
                    short_id(commit),
                    self.region.branch(),
                    rebase.upstream,
                    short_id(&rebase.upstream_head)
                ));
                for t in &rebase.tables {
                    output.line(format!(
                        "  {:<24} {:>6} applied {:>6} kept (owned) {:>6} resolved",
                        t.table, t.applied, t.kept, t.resolved
                    ));
                }
                self.seeded(output, rebase, "took");
            }
        }
    }
}

impl Shown<'_> {
    /// Rows new from upstream that bring upstream's values into columns the region
    /// owns (there is no regional value yet), table by table.
    fn seeded(&self, output: &Output, rebase: &Rebased, took: &str) {
        for t in rebase.tables.iter().filter(|t| t.seeded > 0) {
            output.line(output.flagged(&format!(
                "  {}: {} new from {} {took} its values in the columns {} owns; set them with an import",
                t.table,
                counted(t.seeded, "row"),
                rebase.upstream,
                self.region.name()
            )));
        }
    }

    /// Cells (and structure files) both sides changed differently: nothing committed.
    fn conflicts(&self, output: &Output, conflicts: &[ConflictEntry], file: Option<&Path>) {
        for entry in conflicts {
            match entry {
                ConflictEntry::Structure { table, reason, .. } => {
                    output.line(format!("conflict {table}: {reason}"));
                }
                ConflictEntry::Cell {
                    table,
                    key,
                    column,
                    base,
                    ours,
                    theirs,
                    ..
                } => output.line(format!(
                    "conflict {table} ({key}) {}: base {base}, ours {ours}, theirs {theirs}",
                    column.as_deref().unwrap_or_default()
                )),
            }
        }
        output.line(format!(
            "{} {}; nothing was committed",
            output.bold("conflicts:"),
            counted(conflicts.len(), "conflicting cell")
        ));
        if let Some(file) = file {
            output.line(format!(
                "resolve them in {} (resolution: ours, theirs, or value with the value), or with --ours/--theirs [--table T] [--column C] [--key K]; then `masterctl rebase --region {} --continue`, or --abort",
                file.display(),
                self.region.name()
            ));
        }
    }
}
