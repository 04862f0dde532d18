//! `masterctl revert --region R COMMIT`: take a commit of the branch back, as a new
//! commit — later commits' changes kept, a cell a later commit changed again named and
//! nothing written.

use std::path::PathBuf;

use masterctl_schemas::Report;
use masterctl_store::join::TableRebase;
use masterctl_store::join::session::{ConflictEntry, conflict_entries};
use masterctl_store::revert::{self, Request, RevertOutcome};
use masterctl_store::review::diff::{DiffOptions, Review};
use masterctl_store::short_id;
use serde::Serialize;

use super::{Failure, open_repo, revert_failure, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, count_text, counted};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region whose branch the commit is on
    #[arg(long, value_name = "R")]
    region: String,
    /// A work branch of the region (work/R/NAME) instead of the region's own branch
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
    /// The commit to take back: one of the branch's history (its id, or the start of it)
    commit: String,
    /// Show what taking it back changes, cell by cell; write nothing
    #[arg(long)]
    dry_run: bool,
    /// With --dry-run: also write the review as one self-contained HTML page
    #[arg(long, value_name = "FILE", requires = "dry_run")]
    html: Option<PathBuf>,
    /// The commit's first line (default: Revert "<the commit's subject>")
    #[arg(short, long, value_name = "TEXT")]
    message: Option<String>,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let line = super::line(&structure, &args.region, args.branch.as_deref())?;
    let outcome = revert::run(
        &repo,
        &Request {
            line: &line,
            commit: &args.commit,
            message: args.message.as_deref(),
            dry_run: args.dry_run,
            review: DiffOptions::default(),
        },
    )
    .map_err(revert_failure)?;
    if let (RevertOutcome::Reviewed { review, commit, .. }, Some(path)) = (&outcome, &args.html) {
        let title = format!("masterctl revert {}", short_id(commit));
        super::diff::write_page(path, &title, line.branch(), "taken back", &review.diff)?;
    }
    super::tell_in(
        &repo,
        &structure,
        |by| masterctl_app::notify::of::revert(&outcome, line.name(), line.branch(), by),
        output,
    );
    let shown = Shown::of(line.branch(), &outcome);
    let ok = shown.ok;
    output.show(&shown);
    if ok { Ok(()) } else { Err(Failure::Shown) }
}

/// What a revert came to, for the terminal or as JSON (`state` names it).
#[derive(Serialize)]
struct Shown<'a> {
    ok: bool,
    branch: &'a str,
    #[serde(flatten)]
    state: State<'a>,
}

#[derive(Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
enum State<'a> {
    /// Later commits changed cells the commit changed.
    BuiltOn {
        commit: &'a str,
        cells: Vec<ConflictEntry>,
    },
    Rejected {
        #[serde(skip)]
        report: &'a Report,
        diagnostics: &'a [masterctl_schemas::Diagnostic],
    },
    Unchanged {
        commit: &'a str,
    },
    DryRun {
        commit: &'a str,
        subject: &'a str,
        review: &'a Review,
        tables: &'a [TableRebase],
    },
    Committed {
        commit: &'a str,
        revert: &'a str,
        message: &'a str,
        tables: &'a [TableRebase],
    },
}

impl<'a> Shown<'a> {
    fn of(branch: &'a str, outcome: &'a RevertOutcome) -> Shown<'a> {
        let state = match outcome {
            RevertOutcome::BuiltOn { commit, tables } => State::BuiltOn {
                commit,
                cells: conflict_entries(tables),
            },
            RevertOutcome::Rejected(report) => State::Rejected {
                report,
                diagnostics: &report.diagnostics,
            },
            RevertOutcome::Unchanged { commit } => State::Unchanged { commit },
            RevertOutcome::Reviewed {
                commit,
                subject,
                review,
                tables,
            } => State::DryRun {
                commit,
                subject,
                review,
                tables,
            },
            RevertOutcome::Committed {
                commit,
                revert,
                message,
                tables,
            } => State::Committed {
                commit,
                revert,
                message,
                tables,
            },
        };
        Shown {
            ok: !matches!(state, State::BuiltOn { .. } | State::Rejected { .. }),
            branch,
            state,
        }
    }
}

impl Render for Shown<'_> {
    fn text(&self, output: &Output) {
        let branch = self.branch;
        match &self.state {
            State::BuiltOn { commit, cells } => {
                for cell in cells {
                    match cell {
                        ConflictEntry::Cell {
                            table,
                            key,
                            column,
                            base,
                            ours,
                            theirs,
                            ..
                        } => output.line(format!(
                            "built on: {table} ({key}) {}: {} made it {base}, a later commit {ours}; taking it back would make it {theirs}",
                            column.as_deref().unwrap_or_default(),
                            short_id(commit)
                        )),
                        ConflictEntry::Structure { table, reason, .. } => {
                            output.line(format!("built on: {table}: {reason}"))
                        }
                    }
                }
                output.line(format!(
                    "{} later commits changed {} that {} changed; nothing was written",
                    output.bold("refused:"),
                    counted(cells.len(), "cell"),
                    short_id(commit)
                ));
                output.line("take the later commits back first, or set those cells with an import");
            }
            State::Rejected { report, .. } => {
                output.diagnostics(report);
                output.line(format!(
                    "{} {branch} with the change taken back is not valid data ({}); nothing was written",
                    output.bold("rejected:"),
                    count_text(report.error_count(), report.warning_count())
                ));
            }
            State::Unchanged { commit } => output.line(format!(
                "nothing to take back: what {} changed is not on {branch} any more",
                short_id(commit)
            )),
            State::DryRun {
                commit,
                subject,
                review,
                ..
            } => {
                output.line(format!(
                    "dry run: taking back {} (\"{subject}\") would change {branch}:",
                    short_id(commit)
                ));
                super::diff::print_changes(output, &review.diff);
                output.line("nothing was written");
            }
            State::Committed {
                commit,
                revert,
                tables,
                ..
            } => {
                output.line(format!(
                    "{} {} on {branch}: took back {}",
                    output.bold("committed"),
                    short_id(revert),
                    short_id(commit)
                ));
                for t in tables.iter() {
                    output.line(format!(
                        "  {:<24} {} taken back",
                        t.table,
                        counted(t.applied, "cell")
                    ));
                }
            }
        }
    }
}
