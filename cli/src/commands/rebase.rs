//! `masterctl rebase --region R`: take what the region's upstream changed since the
//! recorded import point, keep what the region owns, stop on real conflicts — then
//! resolve them (conflict file, or --ours/--theirs) and `--continue`, or `--abort`.

use masterctl_schemas::{Diagnostic, Value};
use masterctl_store::rebase::resolutions::{self, Resolution};
use masterctl_store::rebase::session::{self, Action, Step};
use masterctl_store::rebase::{RebaseError, TableConflicts, TableRebase, rebase_message};
use masterctl_store::rebase::{review, state};
use masterctl_store::{Region, short_id};
use serde::Serialize;

use masterctl_store::diff::Diff;

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
    let rebased = |state| Rebased {
        state,
        region: region.name(),
        resolved: None,
        remaining: None,
        commit: None,
        upstream_head: None,
        import_point_base: None,
        tables: None,
        message: None,
        upstream: None,
        branch: region.branch(),
        diff: None,
    };
    match step {
        Step::Aborted => output.render(&rebased("aborted")),
        Step::Resolved { set, remaining } => output.render(&Rebased {
            resolved: Some(set),
            remaining: Some(remaining),
            ..rebased("resolving")
        }),
        Step::UpToDate {
            upstream_head,
            continued,
        } => output.render(&Rebased {
            upstream_head: Some(upstream_head.to_string()),
            message: Some(
                if continued {
                    "nothing to continue"
                } else {
                    "nothing to take"
                }
                .to_string(),
            ),
            ..rebased("up-to-date")
        }),
        Step::Conflicts {
            tables,
            conflict_file,
        } => {
            output.show(&Conflicts {
                ok: false,
                state: "conflicts",
                region: region.name(),
                conflicts: conflict_entries(&tables),
                conflict_file: conflict_file.as_deref(),
            });
            return Err(Failure::Shown);
        }
        Step::Invalid { report, continued } => {
            output.show(&Invalid {
                ok: false,
                state: "invalid",
                errors: report.error_count(),
                warnings: report.warning_count(),
                diagnostics: &report.diagnostics,
                region: region.name(),
                conflict_file: continued.then(|| state::conflict_file(&repo, region)),
            });
            return Err(Failure::Shown);
        }
        Step::Planned(plan) => {
            let review = review::review(&repo.git, &structure.project, &plan, region.branch())
                .map_err(store_failure)?;
            if let Some(path) = &args.html {
                let title = format!("masterctl rebase --dry-run: {}", region.branch());
                super::diff::write_page(path, &title, region.branch(), "rebased", &review)?;
            }
            output.render(&Rebased {
                tables: Some(&plan.tables),
                message: Some(rebase_message(&plan)),
                upstream: Some(plan.upstream.clone()),
                diff: Some(review),
                ..rebased("dry-run")
            })
        }
        Step::Committed { commit, plan } => output.render(&Rebased {
            commit: Some(commit.to_string()),
            upstream_head: Some(plan.upstream_head.to_string()),
            import_point_base: Some(plan.base.to_string()),
            tables: Some(&plan.tables),
            upstream: Some(plan.upstream.clone()),
            ..rebased("committed")
        }),
    }
    Ok(())
}

/// What a rebase step did, when it succeeded.
#[derive(Serialize)]
struct Rebased<'a> {
    /// aborted, resolving, up-to-date, dry-run or committed.
    state: &'static str,
    region: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    resolved: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    remaining: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    commit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    upstream_head: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    import_point_base: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tables: Option<&'a [TableRebase]>,
    /// The commit message of a dry run; the words of an up-to-date region.
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(skip)]
    upstream: Option<String>,
    #[serde(skip)]
    branch: &'a str,
    /// For a dry run: every change upstream made since the import point, each marked
    /// applied, kept (the region owns it) or equal; then what else the merge changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<Diff>,
}

impl Render for Rebased<'_> {
    fn text(&self, output: &Output) {
        let region = self.region;
        match self.state {
            "aborted" => output.line(format!(
                "rebase of region {region} aborted; nothing was committed"
            )),
            "resolving" => {
                let (set, remaining) = (self.resolved.unwrap_or(0), self.remaining.unwrap_or(0));
                output.line(format!(
                    "resolved {}; {remaining} left",
                    counted(set, "conflicting cell")
                ));
                if remaining == 0 {
                    output.line(format!(
                        "next: masterctl rebase --region {region} --continue"
                    ));
                }
            }
            "up-to-date" => output.line(format!(
                "{}: region {region} already has everything up to {}",
                self.message.as_deref().unwrap_or_default(),
                short_id(self.upstream_head.as_deref().unwrap_or_default())
            )),
            "dry-run" => {
                output.line(format!(
                    "dry run: rebasing {region} onto {} would commit:",
                    self.upstream.as_deref().unwrap_or_default()
                ));
                output.line(self.message.as_deref().unwrap_or_default().trim_end());
                if let Some(diff) = &self.diff {
                    super::diff::print_changes(output, diff);
                    output.line("");
                }
                self.seeded(output, "would take");
                output.line("nothing was written");
            }
            _ => {
                output.line(format!(
                    "{} {} on {}: took {} up to {}",
                    output.bold("committed"),
                    short_id(self.commit.as_deref().unwrap_or_default()),
                    self.branch,
                    self.upstream.as_deref().unwrap_or_default(),
                    short_id(self.upstream_head.as_deref().unwrap_or_default())
                ));
                for t in self.tables.unwrap_or_default() {
                    output.line(format!(
                        "  {:<24} {:>6} applied {:>6} kept (owned) {:>6} resolved",
                        t.table, t.applied, t.kept, t.resolved
                    ));
                }
                self.seeded(output, "took");
            }
        }
    }
}

impl Rebased<'_> {
    /// Rows new from upstream that bring upstream's values into columns the region
    /// owns (there is no regional value yet), table by table.
    fn seeded(&self, output: &Output, took: &str) {
        for t in self
            .tables
            .unwrap_or_default()
            .iter()
            .filter(|t| t.seeded > 0)
        {
            output.line(output.flagged(&format!(
                "  {}: {} new from {} {took} its values in the columns {} owns; set them with an import",
                t.table,
                counted(t.seeded, "row"),
                self.upstream.as_deref().unwrap_or("upstream"),
                self.region
            )));
        }
    }
}

/// The merged data is not valid: nothing committed.
#[derive(Serialize)]
struct Invalid<'a> {
    ok: bool,
    state: &'static str,
    errors: usize,
    warnings: usize,
    diagnostics: &'a [Diagnostic],
    #[serde(skip)]
    region: &'a str,
    /// When continuing: the file whose resolutions led here.
    #[serde(skip)]
    conflict_file: Option<std::path::PathBuf>,
}

impl Render for Invalid<'_> {
    fn text(&self, output: &Output) {
        output.diagnostics_of(self.diagnostics);
        output.line(format!(
            "{} the merged data is not valid ({}); nothing was committed",
            output.bold("rejected:"),
            count_text(self.errors, self.warnings)
        ));
        if let Some(file) = &self.conflict_file {
            output.line(format!(
                "the resolutions in {} lead to these errors: change them, then `masterctl rebase --region {} --continue` again, or --abort",
                file.display(),
                self.region
            ));
        }
    }
}

/// Cells (and structure files) both sides changed differently: nothing committed.
#[derive(Serialize)]
struct Conflicts<'a> {
    ok: bool,
    state: &'static str,
    region: &'a str,
    conflicts: Vec<ConflictEntry<'a>>,
    /// Where they are saved to be resolved (none in a dry run).
    conflict_file: Option<&'a std::path::Path>,
}

/// One conflict as shown: a structure file, or a cell.
#[derive(Serialize)]
#[serde(untagged)]
enum ConflictEntry<'a> {
    Structure {
        table: &'a str,
        kind: &'static str,
        reason: &'a str,
    },
    Cell {
        table: &'a str,
        key: String,
        column: Option<&'a str>,
        kind: String,
        base: String,
        ours: String,
        theirs: String,
    },
}

fn conflict_entries(tables: &[TableConflicts]) -> Vec<ConflictEntry<'_>> {
    let show = |v: &Option<Value>| {
        v.as_ref()
            .map_or_else(|| "(none)".to_string(), Value::canonical)
    };
    let mut list = Vec::new();
    for table in tables {
        if table.conflicts.is_empty() {
            list.push(ConflictEntry::Structure {
                table: &table.table,
                kind: "structure",
                reason: &table.reason,
            });
        }
        for c in &table.conflicts {
            list.push(ConflictEntry::Cell {
                table: &table.table,
                key: resolutions::key_text(&c.key),
                column: table.fields.get(c.field).map(String::as_str),
                kind: format!("{:?}", c.kind),
                base: show(&c.base),
                ours: show(&c.ours),
                theirs: show(&c.theirs),
            });
        }
    }
    list
}

impl Render for Conflicts<'_> {
    fn text(&self, output: &Output) {
        for entry in &self.conflicts {
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
                    column.unwrap_or_default()
                )),
            }
        }
        output.line(format!(
            "{} {}; nothing was committed",
            output.bold("conflicts:"),
            counted(self.conflicts.len(), "conflicting cell")
        ));
        if let Some(file) = self.conflict_file {
            output.line(format!(
                "resolve them in {} (resolution: ours, theirs, or value with the value), or with --ours/--theirs [--table T] [--column C] [--key K]; then `masterctl rebase --region {} --continue`, or --abort",
                file.display(),
                self.region
            ));
        }
    }
}
