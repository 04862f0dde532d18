//! A rebase from start to commit, across invocations: start it; stopped on conflicts,
//! resolve them (the conflict file, or `--ours`/`--theirs`); `--continue` only from
//! exactly where it stopped; or `--abort`. [`run`] takes one [`Action`] and says what
//! came of it ([`Step`]); it decides everything a command line or a console needs, and
//! shows nothing.

use std::path::PathBuf;

use masterctl_schemas::{Report, Value};
use serde::Serialize;

use super::resolutions::{Resolution, Resolutions, key_text};
use super::state::{self, RebaseState};
use super::{
    Join, JoinError, RebaseOutcome, RebasePlan, TableConflicts, TableRebase, commit_rebase,
    plan_rebase, rebase_message,
};
use crate::MasterRepo;
use crate::merge::ConflictKind;
use crate::review::diff::Diff;
use crate::snapshot::structure::Structure;

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

/// What an action came to: plain data, `Serialize` with its `state` as the tag
/// (`aborted`, `resolved`, `up-to-date`, `conflicts`, `invalid`, `dry-run`,
/// `committed`), for a command line and a console to render alike.
#[derive(Debug, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum Step {
    /// The rebase in progress was dropped; nothing was committed.
    Aborted,
    /// Conflicting cells given a side; `remaining` still have none.
    Resolved { resolved: usize, remaining: usize },
    /// The region already has everything its upstream has. `continued`: a `--continue`
    /// found that the rebase had landed already (committed, then killed before it said
    /// so) — success, not a mistake.
    UpToDate {
        upstream_head: String,
        continued: bool,
    },
    /// Cells (and structure files) both sides changed differently: nothing committed.
    /// The state and the conflict file are saved (`conflict_file`), except in a dry run
    /// (`None`).
    Conflicts {
        conflicts: Vec<ConflictEntry>,
        conflict_file: Option<PathBuf>,
    },
    /// The merge (with the resolutions given) is not valid data: nothing committed, the
    /// rebase still where it stopped. `conflict_file`: when continuing, the file whose
    /// resolutions led here.
    Invalid {
        #[serde(flatten)]
        report: Report,
        errors: usize,
        warnings: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        conflict_file: Option<PathBuf>,
    },
    /// A dry run: what would be committed, and the review — every change upstream made
    /// since the import point, each marked applied, kept (the region owns it) or equal;
    /// then what else the merge changes.
    DryRun {
        #[serde(flatten)]
        rebase: Rebased,
        diff: Diff,
    },
    /// Committed.
    Committed {
        commit: String,
        #[serde(flatten)]
        rebase: Rebased,
    },
}

/// What a rebase takes (or would take).
#[derive(Debug, Serialize)]
pub struct Rebased {
    /// The upstream branch.
    pub upstream: String,
    pub upstream_head: String,
    /// The import point the merge started from.
    pub import_point_base: String,
    pub tables: Vec<TableRebase>,
    /// The commit message (of the commit a fast-forward did not need to write).
    pub message: String,
    /// A work branch with nothing of its own moved to its region's head; no commit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fast_forward: bool,
}

impl Rebased {
    fn of(plan: &RebasePlan) -> Rebased {
        Rebased {
            upstream: plan.upstream.clone(),
            upstream_head: plan.upstream_head.to_string(),
            import_point_base: plan.base.to_string(),
            tables: plan.tables.clone(),
            message: rebase_message(plan),
            fast_forward: plan.fast_forward,
        }
    }
}

/// One conflict as shown: a structure file both sides changed, or a cell (values in
/// their canonical text; `(none)` for a row one side does not have).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ConflictEntry {
    Structure {
        table: String,
        /// Always `structure`.
        kind: &'static str,
        reason: String,
    },
    Cell {
        table: String,
        /// As the conflict file writes it (`100`, `100|10`).
        key: String,
        column: Option<String>,
        kind: ConflictKind,
        base: String,
        ours: String,
        theirs: String,
    },
}

/// The conflicts of every table, one entry each, in order.
pub fn conflict_entries(tables: &[TableConflicts]) -> Vec<ConflictEntry> {
    let show = |v: &Option<Value>| {
        v.as_ref()
            .map_or_else(|| "(none)".to_string(), Value::canonical)
    };
    let mut list = Vec::new();
    for table in tables {
        if table.conflicts.is_empty() {
            list.push(ConflictEntry::Structure {
                table: table.table.clone(),
                kind: "structure",
                reason: table.reason.clone(),
            });
        }
        for c in &table.conflicts {
            list.push(ConflictEntry::Cell {
                table: table.table.clone(),
                key: key_text(&c.key),
                column: table.fields.get(c.field).cloned(),
                kind: c.kind,
                base: show(&c.base),
                ours: show(&c.ours),
                theirs: show(&c.theirs),
            });
        }
    }
    list
}

/// Carry out `action` on `join` (a rebase, or a work branch's merge into its region).
/// One rebase or merge at a time stops on a branch: another one is refused while it is
/// in progress.
/// `message`: the planner's words for the commit's first line.
pub fn run(
    repo: &MasterRepo,
    structure: &Structure,
    join: &Join,
    action: &Action<'_>,
    message: Option<&str>,
) -> Result<Step, JoinError> {
    let line = join.target();
    let stopped = state::load_state(repo, &line)?;
    let in_progress = |kind: &str| JoinError::InProgress {
        kind: kind.to_string(),
        branch: line.branch().to_string(),
        conflict_file: state::conflict_file(repo, &line),
    };
    // A stopped rebase is not continued (nor aborted) by a merge, nor the other way.
    if let Some(stopped) = &stopped
        && stopped.kind != join.kind()
    {
        return Err(in_progress(&stopped.kind));
    }
    let not_in_progress = || JoinError::NotInProgress {
        kind: join.kind(),
        branch: line.branch().to_string(),
    };
    match action {
        Action::Abort => {
            if stopped.is_none() {
                return Err(not_in_progress());
            }
            state::clear(repo, &line)?;
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
            let (set, remaining) = state::mark(repo, &line, side, *table, *column, *key)?;
            if set == 0 {
                return Err(JoinError::NoConflictMatches {
                    conflict_file: state::conflict_file(repo, &line),
                });
            }
            return Ok(Step::Resolved {
                resolved: set,
                remaining,
            });
        }
        Action::Start if stopped.is_some() => return Err(in_progress(join.kind())),
        Action::Continue if stopped.is_none() => {
            return match plan_rebase(repo, structure, join, &Resolutions::new()) {
                Ok(RebaseOutcome::UpToDate { upstream_head }) => Ok(Step::UpToDate {
                    upstream_head: upstream_head.to_string(),
                    continued: true,
                }),
                _ => Err(not_in_progress()),
            };
        }
        Action::Start | Action::DryRun | Action::Continue => {}
    }
    let resolutions = match stopped {
        Some(_) => state::load_resolutions(repo, &line)?,
        None => Resolutions::new(),
    };
    let mut outcome = plan_rebase(repo, structure, join, &resolutions)?;
    if let RebaseOutcome::Planned(plan) = &mut outcome {
        plan.words = message.map(str::to_string);
    }
    // A rebase continues only from exactly where it stopped.
    if let Some(stopped) = &stopped
        && where_it_stands(&outcome).as_ref() != Some(stopped)
    {
        return Err(JoinError::Moved {
            kind: join.kind(),
            branch: line.branch().to_string(),
        });
    }
    let dry_run = *action == Action::DryRun;
    Ok(match outcome {
        RebaseOutcome::UpToDate { upstream_head } => Step::UpToDate {
            upstream_head: upstream_head.to_string(),
            continued: false,
        },
        RebaseOutcome::Conflicts { tables, state } => {
            let conflict_file = if dry_run {
                None
            } else {
                Some(state::save(repo, &line, &state, &tables, &resolutions)?)
            };
            Step::Conflicts {
                conflicts: conflict_entries(&tables),
                conflict_file,
            }
        }
        RebaseOutcome::Rejected { report, .. } => Step::Invalid {
            errors: report.error_count(),
            warnings: report.warning_count(),
            report,
            conflict_file: stopped.is_some().then(|| state::conflict_file(repo, &line)),
        },
        RebaseOutcome::Planned(plan) if dry_run => Step::DryRun {
            diff: super::review::review(&repo.git, &structure.project, &plan, line.branch())?,
            rebase: Rebased::of(&plan),
        },
        RebaseOutcome::Planned(plan) => {
            let commit = commit_rebase(repo, &plan)?;
            state::clear(repo, &line)?;
            Step::Committed {
                commit: commit.to_string(),
                rebase: Rebased::of(&plan),
            }
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
            kind: plan.join.kind().to_string(),
            source: plan.upstream.clone(),
        }),
        RebaseOutcome::UpToDate { .. } => None,
    }
}
