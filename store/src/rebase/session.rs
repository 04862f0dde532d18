//! A rebase from start to commit, across invocations: start it; stopped on conflicts,
//! resolve them (the conflict file, or `--ours`/`--theirs`); `--continue` only from
//! exactly where it stopped; or `--abort`. [`run`] takes one [`Action`] and says what
//! came of it ([`Step`]); it decides everything a command line or a console needs, and
//! shows nothing.

use std::path::PathBuf;

use git2::Oid;
use masterctl_schemas::Report;

use super::resolutions::{Resolution, Resolutions};
use super::state::{self, RebaseState};
use super::{RebaseError, RebaseOutcome, RebasePlan, TableConflicts, commit_rebase, plan_rebase};
use crate::names::Region;
use crate::repo::{MasterRepo, Structure};

/// What to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action<'a> {
    /// Rebase, and commit when the merge is clean and valid.
    Start,
    /// Show what a rebase would do; write nothing.
    DryRun,
    /// After resolving: merge again with the resolutions, validate, commit.
    Continue,
    /// Drop the rebase in progress.
    Abort,
    /// Resolve the conflicts matching the filters (each `None` matches all) with one side.
    Resolve {
        side: Resolution,
        table: Option<&'a str>,
        column: Option<&'a str>,
        key: Option<&'a str>,
    },
}

/// What an action came to.
pub enum Step {
    /// The rebase in progress was dropped; nothing was committed.
    Aborted,
    /// Conflicting cells given a side; `remaining` still have none.
    Resolved { set: usize, remaining: usize },
    /// The region already has everything its upstream has. `continued`: a `--continue`
    /// found that the rebase had landed already (committed, then killed before it said
    /// so) — success, not a mistake.
    UpToDate { upstream_head: Oid, continued: bool },
    /// Cells both sides changed differently: nothing committed. The state and the
    /// conflict file are saved (`conflict_file`), except in a dry run (`None`).
    Conflicts {
        tables: Vec<TableConflicts>,
        conflict_file: Option<PathBuf>,
    },
    /// The merge (with the resolutions given, when `continued`) is not valid data:
    /// nothing committed, the rebase still where it stopped.
    Invalid { report: Report, continued: bool },
    /// A dry run's plan: what would be committed.
    Planned(Box<RebasePlan>),
    /// Committed.
    Committed { commit: Oid, plan: Box<RebasePlan> },
}

/// Carry out `action` on `region`'s rebase.
pub fn run(
    repo: &MasterRepo,
    structure: &Structure,
    region: &Region,
    action: &Action<'_>,
) -> Result<Step, RebaseError> {
    let stopped = state::load_state(repo, region)?;
    let in_progress = || RebaseError::InProgress {
        region: region.name().to_string(),
        conflict_file: state::conflict_file(repo, region),
    };
    let not_in_progress = || RebaseError::NotInProgress(region.name().to_string());
    match action {
        Action::Abort => {
            if stopped.is_none() {
                return Err(not_in_progress());
            }
            state::clear(repo, region)?;
            return Ok(Step::Aborted);
        }
        Action::Resolve {
            side,
            table,
            column,
            key,
        } => {
            if stopped.is_none() {
                return Err(not_in_progress());
            }
            let (set, remaining) = state::mark(repo, region, side, *table, *column, *key)?;
            if set == 0 {
                return Err(RebaseError::NoConflictMatches {
                    conflict_file: state::conflict_file(repo, region),
                });
            }
            return Ok(Step::Resolved { set, remaining });
        }
        Action::Start if stopped.is_some() => return Err(in_progress()),
        Action::Continue if stopped.is_none() => {
            return match plan_rebase(repo, structure, region, &Resolutions::new()) {
                Ok(RebaseOutcome::UpToDate { upstream_head }) => Ok(Step::UpToDate {
                    upstream_head,
                    continued: true,
                }),
                _ => Err(not_in_progress()),
            };
        }
        Action::Start | Action::DryRun | Action::Continue => {}
    }
    let resolutions = match stopped {
        Some(_) => state::load_resolutions(repo, region)?,
        None => Resolutions::new(),
    };
    let outcome = plan_rebase(repo, structure, region, &resolutions)?;
    // A rebase continues only from exactly where it stopped.
    if let Some(stopped) = &stopped
        && where_it_stands(&outcome).as_ref() != Some(stopped)
    {
        return Err(RebaseError::Moved(region.name().to_string()));
    }
    let dry_run = *action == Action::DryRun;
    Ok(match outcome {
        RebaseOutcome::UpToDate { upstream_head } => Step::UpToDate {
            upstream_head,
            continued: false,
        },
        RebaseOutcome::Conflicts { tables, state } => {
            let conflict_file = if dry_run {
                None
            } else {
                Some(state::save(repo, region, &state, &tables, &resolutions)?)
            };
            Step::Conflicts {
                tables,
                conflict_file,
            }
        }
        RebaseOutcome::Rejected { report, .. } => Step::Invalid {
            report,
            continued: stopped.is_some(),
        },
        RebaseOutcome::Planned(plan) if dry_run => Step::Planned(plan),
        RebaseOutcome::Planned(plan) => {
            let commit = commit_rebase(repo, &plan)?;
            state::clear(repo, region)?;
            Step::Committed { commit, plan }
        }
    })
}

/// Where a planned rebase starts from (region head, upstream head, import point), to
/// compare with where a stopped one started.
fn where_it_stands(outcome: &RebaseOutcome) -> Option<RebaseState> {
    match outcome {
        RebaseOutcome::Conflicts { state, .. } | RebaseOutcome::Rejected { state, .. } => {
            Some(state.clone())
        }
        RebaseOutcome::Planned(plan) => plan.parent.map(|parent| RebaseState {
            region_head: parent,
            upstream_head: plan.upstream_head,
            base: plan.base,
        }),
        RebaseOutcome::UpToDate { .. } => None,
    }
}
