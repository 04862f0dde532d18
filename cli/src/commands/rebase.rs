//! `masterctl rebase --region R [--branch NAME]`: take what the region's upstream (or a
//! work branch's region) changed since the branch last took it, keep what the region
//! owns, stop on real conflicts — then resolve them (conflict file, or --ours/--theirs)
//! and `--continue`, or `--abort`. `merge` (a work branch reflected into its region)
//! is the same flow and renders here too.

use std::path::Path;

use masterctl_app::join::StepError;
use masterctl_store::join::Join;
use masterctl_store::join::resolutions::Resolution;
use masterctl_store::join::session::{Action, Rebased, Step};
use masterctl_store::{WorkBranch, short_id};
use serde::Serialize;

use super::{Failure, join_failure, open_repo, remote_failure, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, count_text, counted};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region to bring up to date with its upstream (`upstream` in [regions.R])
    #[arg(long, value_name = "R")]
    region: String,
    /// Rebase the region's work branch NAME (work/R/NAME) onto the region instead: it
    /// takes what the region changed since it last took it
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
    /// Show what would happen, change by change; write nothing
    #[arg(long, conflicts_with_all = ["continue_", "abort", "side"])]
    dry_run: bool,
    /// With --dry-run: also write the review as one self-contained HTML page
    #[arg(long, value_name = "FILE", requires = "dry_run")]
    html: Option<std::path::PathBuf>,
    #[command(flatten)]
    resolving: Resolving,
    /// Your own words for the commit message's first line (when it commits)
    #[arg(long, short, value_name = "TEXT")]
    message: Option<String>,
    #[command(flatten)]
    pub(super) sync: super::sync::SyncArgs,
}

/// What rebase, merge and a stopped pull share: going on after conflicts, or giving up.
#[derive(clap::Args)]
pub(super) struct Resolving {
    /// After resolving the conflicts (in the conflict file or with --ours/--theirs): merge
    /// again with the resolutions, validate and commit
    #[arg(long = "continue", conflicts_with_all = ["abort", "side"])]
    continue_: bool,
    /// Drop the one in progress; nothing is committed
    #[arg(long, conflicts_with = "side")]
    abort: bool,
    /// Resolve conflicts with the values of the branch that moves (the region; for a
    /// pull, this clone's), narrowed with --table, --column, --key
    #[arg(long, conflicts_with = "theirs", group = "side")]
    ours: bool,
    /// Resolve conflicts with the values taken (upstream's; the work branch's for a
    /// merge; the remote's for a pull), narrowed with --table, --column, --key
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

impl Resolving {
    /// Whether any of these flags is given (a pull then goes on with a stopped one).
    pub(super) fn given(&self) -> bool {
        self.continue_ || self.abort || self.ours || self.theirs
    }

    /// The action the flags name (`dry_run`: the command's own --dry-run).
    pub(super) fn action(&self, dry_run: bool) -> Action<'_> {
        let side = match (self.ours, self.theirs) {
            (true, _) => Some(Resolution::Ours),
            (_, true) => Some(Resolution::Theirs),
            _ => None,
        };
        match side {
            _ if self.abort => Action::Abort,
            Some(side) => Action::Resolve {
                side,
                table: self.table.as_deref(),
                column: self.column.as_deref(),
                key: self.key.as_deref(),
            },
            None if self.continue_ => Action::Continue,
            None if dry_run => Action::DryRun,
            None => Action::Start,
        }
    }
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    // The region is checked against masterctl.toml before it names any path.
    let region = super::region(&structure, &args.region)?;
    let (join, again) = match &args.branch {
        Some(name) => {
            let work = WorkBranch::of(&region, name).map_err(store_failure)?;
            let again = format!(
                "masterctl rebase --region {region} --branch {}",
                work.name()
            );
            (Join::Refresh(work), again)
        }
        None => (
            Join::Rebase(region.clone()),
            format!("masterctl rebase --region {region}"),
        ),
    };
    let action = args.resolving.action(args.dry_run);
    if matches!(action, Action::DryRun) && !args.sync.reaches_the_remote() {
        // This process only reads, to show: the versions need not be hashed again.
        masterctl_store::git::repo::read_without_rehashing();
    }
    let words = Words {
        message: args.message.as_deref(),
        html: args.html.as_deref(),
        sync: Some(&args.sync),
    };
    carry_out(&repo, &structure, &join, &action, &again, &words, output)
}

/// What a rebase or merge is given beside its action: the planner's words for the
/// commit, and where the dry run's review page goes.
pub(super) struct Words<'a> {
    pub message: Option<&'a str>,
    pub html: Option<&'a Path>,
    /// `--pull`/`--push`, for the commands that take them.
    pub sync: Option<&'a super::sync::SyncArgs>,
}

/// Carry out `action` on `join`, write the review page when asked, and show the step.
pub(super) fn carry_out(
    repo: &masterctl_store::MasterRepo,
    structure: &masterctl_store::Structure,
    join: &Join,
    action: &Action<'_>,
    again: &str,
    words: &Words<'_>,
    output: &Output,
) -> Result<(), Failure> {
    let (message, html) = (words.message, words.html);
    let resolving = matches!(action, Action::Resolve { .. });
    let target = join.target();
    let remote = match words.sync {
        Some(sync) => sync.remote(repo)?,
        None => None,
    };
    let around = masterctl_app::join::step(repo, structure, join, action, message, remote.as_ref())
        .map_err(|e| match e {
            StepError::Join(e) => join_failure(e, again, resolving),
            StepError::Remote(e) => remote_failure(e),
        })?;
    let (step, pulled, sent) = super::sync::ran(around, output)?;
    super::tell_in(
        repo,
        structure,
        |by| masterctl_app::notify::of::join(&step, join, by, message),
        output,
    );
    if let (Step::DryRun { diff, .. }, Some(path)) = (&step, html) {
        let title = format!("{again} --dry-run");
        let after = match join {
            Join::Reflect(_) => "merged",
            _ => "rebased",
        };
        super::diff::write_page(path, &title, target.branch(), after, diff)?;
    }
    let shown = Shown {
        ok: !matches!(step, Step::Conflicts { .. } | Step::Invalid { .. }),
        region: join.region().name(),
        branch: target.branch(),
        label: &target.to_string(),
        join,
        again,
        step: &step,
    };
    let synced = super::sync::Synced {
        result: &shown,
        pulled: &pulled,
        pushed: sent.as_ref(),
    };
    if !shown.ok {
        output.show(&synced);
        return Err(Failure::Shown);
    }
    synced.show(output)
}

/// What a rebase (or merge) step came to, for the terminal or as JSON (the step's own
/// fields, `state` naming it, beside `ok`, the region and the branch that moves).
#[derive(Serialize)]
struct Shown<'a> {
    ok: bool,
    region: &'a str,
    branch: &'a str,
    /// A region by its name, a work branch by its branch.
    #[serde(skip)]
    label: &'a str,
    #[serde(skip)]
    join: &'a Join,
    /// The command that names this join, for the next step's hint.
    #[serde(skip)]
    again: &'a str,
    #[serde(flatten)]
    step: &'a Step,
}

impl Render for Shown<'_> {
    fn text(&self, output: &Output) {
        let (branch, again, kind) = (self.branch, self.again, self.join.kind());
        let label = self.label;
        match self.step {
            Step::Aborted => {
                output.line(format!("{kind} of {label} aborted; nothing was committed"))
            }
            Step::Resolved {
                resolved,
                remaining,
            } => {
                output.line(format!(
                    "resolved {}; {remaining} left",
                    counted(*resolved, "conflicting cell")
                ));
                if *remaining == 0 {
                    output.line(format!("next: {again} --continue"));
                }
            }
            Step::UpToDate {
                upstream_head,
                continued,
            } => output.line(format!(
                "{}: {label} already has everything up to {}",
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
            } => super::conflicts::conflict_lines(
                output,
                conflicts,
                conflict_file.as_deref(),
                self.again,
            ),
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
                        "the resolutions in {} lead to these errors: change them, then `{again} --continue` again, or --abort",
                        file.display(),
                    ));
                }
            }
            Step::DryRun { rebase, diff } => {
                let doing = match self.join {
                    Join::Reflect(_) => format!("merging {} into {label}", rebase.upstream),
                    _ => format!("rebasing {label} onto {}", rebase.upstream),
                };
                if rebase.fast_forward {
                    output.line(format!(
                        "dry run: {doing} would move it to {} (it has nothing of its own)",
                        short_id(&rebase.upstream_head)
                    ));
                } else {
                    output.line(format!("dry run: {doing} would commit:"));
                }
                output.line(rebase.message.trim_end());
                super::diff::print_changes(output, diff);
                output.line("");
                self.seeded(output, rebase, "would take");
                output.line("nothing was written");
            }
            Step::Committed { commit, rebase } if rebase.fast_forward => {
                output.line(format!(
                    "{} {branch} to {} ({} up to there; it had nothing of its own)",
                    output.bold("moved"),
                    short_id(commit),
                    rebase.upstream,
                ));
            }
            Step::Committed { commit, rebase } => {
                output.line(format!(
                    "{} {} on {branch}: took {} up to {}",
                    output.bold("committed"),
                    short_id(commit),
                    rebase.upstream,
                    short_id(&rebase.upstream_head)
                ));
                if let Join::Reflect(work) = self.join {
                    output.line(format!(
                        "{} is even with {branch} (unless someone committed on it meanwhile: then `{again}` again takes the rest)",
                        work.branch()
                    ));
                }
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
                self.region
            )));
        }
    }
}
