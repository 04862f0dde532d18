//! Taking a commit back: a new commit on the branch whose data is the branch's head
//! with what that commit changed undone — the keyed three-way cell merge of the head
//! (ours) with the commit's parent (theirs) over the commit itself (base), the merge a
//! rebase makes. Where a later commit changed a cell the commit changed, undoing it
//! would lose that later change: the revert is refused with each such cell named
//! ([`RevertOutcome::BuiltOn`]). The result is validated as an import's would be, and
//! committed only if the branch still points where the revert started. The CLI's
//! `revert` and the console's history page both call [`run`].

mod error;

pub use error::RevertError;

use git2::Commit;
use masterctl_schemas::Report;

use crate::MasterRepo;
use crate::join::resolutions::Resolutions;
use crate::join::translations::Trees;
use crate::join::{Merged, merge_trees};
use crate::join::{TableConflicts, TableRebase};
use crate::names::{Branch, one_line, short_id};
use crate::review::diff::{self, DiffOptions, Review, Side};
use crate::review::history::first_parent_commit;
use crate::snapshot::commit::{CommitSpec, STRUCTURE_TRAILER, trailer_ids};
use crate::snapshot::structure::tree_file_ids;

/// The trailer a revert commit names the commit it takes back with.
pub const REVERTS_TRAILER: &str = "Masterctl-Reverts";

/// What to take back, and how far to go.
pub struct Request<'a> {
    pub line: &'a Branch,
    /// A commit of the branch's first-parent history (its id, or the start of it).
    pub commit: &'a str,
    /// The planner's words, the commit's first line (default: `Revert "<subject>"`).
    pub message: Option<&'a str>,
    /// Show what would change; write nothing.
    pub dry_run: bool,
    /// What a dry run's review compares and flags.
    pub review: DiffOptions,
}

/// What a revert came to.
#[derive(Debug)]
pub enum RevertOutcome {
    /// Later commits changed cells the commit changed: taking it back would lose their
    /// changes. Each cell named; nothing written.
    BuiltOn {
        commit: String,
        tables: Vec<TableConflicts>,
    },
    /// The branch with the change taken back is not valid data (a reference to a row
    /// the commit added, kept by a later one): every diagnostic; nothing written.
    Rejected(Report),
    /// What the commit changed is no longer there to take back: nothing written.
    Unchanged { commit: String },
    /// A dry run: the head against the branch with the change taken back.
    Reviewed {
        commit: String,
        subject: String,
        review: Review,
        tables: Vec<TableRebase>,
    },
    /// Taken back, as a new commit.
    Committed {
        commit: String,
        revert: String,
        message: String,
        tables: Vec<TableRebase>,
    },
}

/// Take back `request.commit` on `request.line` as a new commit (or review it).
pub fn run(repo: &MasterRepo, request: &Request<'_>) -> Result<RevertOutcome, RevertError> {
    let git = &repo.git;
    let line = request.line;
    crate::join::state::refuse_if_stopped(repo, line)?;
    let head = repo.head_of_branch(line)?;
    crate::vouched::check(repo, line.branch(), &head)?;
    let commit = first_parent_commit(repo, Some(head.clone()), request.commit, line.branch())?;
    let id = commit.id().to_string();
    let parent = commit
        .parents()
        .next()
        .ok_or_else(|| RevertError::FirstCommit {
            commit: id.clone(),
            branch: line.branch().to_string(),
        })?;
    refuse_structure_change(repo, &commit, &parent)?;
    let (base, theirs, ours) = (commit.tree()?, parent.tree()?, head.tree()?);
    let trees = Trees {
        base: &base,
        theirs: &theirs,
        ours: &ours,
    };
    let (snapshot, tables) = match merge_trees(
        git,
        &trees,
        |_| Vec::new(),
        &line.reference(),
        &Resolutions::default(),
    )? {
        Merged::Conflicts(tables) => {
            return Ok(RevertOutcome::BuiltOn { commit: id, tables });
        }
        Merged::Rejected(report) => return Ok(RevertOutcome::Rejected(report)),
        Merged::Clean { snapshot, tables } => (snapshot, tables),
    };
    if snapshot.matches(git, &ours)? {
        return Ok(RevertOutcome::Unchanged { commit: id });
    }
    let subject = subject_of(&commit);
    if request.dry_run {
        let project = crate::snapshot::structure::Structure::at(git, &ours)?.project;
        let from = Side::commit(git, &head, line.branch())?;
        let to = Side::snapshot(&snapshot, project, &format!("{} taken back", short_id(&id)))?;
        return Ok(RevertOutcome::Reviewed {
            review: diff::review(&from, &to, &request.review)?,
            commit: id,
            subject,
            tables,
        });
    }
    let message = message(&head, &commit, &subject, request.message, &tables);
    let revert = crate::committing::commit_snapshot(
        repo,
        &snapshot,
        &CommitSpec {
            reference: &line.reference(),
            expected: Some(head.id()),
            parents: &[head.id()],
            message: &message,
            log_message: &format!("masterctl revert: {} of {}", short_id(&id), line.branch()),
        },
    )?;
    Ok(RevertOutcome::Committed {
        commit: id,
        revert: revert.to_string(),
        message,
        tables,
    })
}

/// Refuse a commit whose structure files differ from its parent's.
fn refuse_structure_change(
    repo: &MasterRepo,
    commit: &Commit<'_>,
    parent: &Commit<'_>,
) -> Result<(), RevertError> {
    let ours = tree_file_ids(&repo.git, &commit.tree()?)?;
    let before = tree_file_ids(&repo.git, &parent.tree()?)?;
    if ours == before {
        return Ok(());
    }
    let mut files: Vec<String> = (ours.iter().filter(|f| !before.contains(f)))
        .chain(before.iter().filter(|f| !ours.contains(f)))
        .map(|(path, _)| path.clone())
        .collect();
    files.sort();
    files.dedup();
    Err(RevertError::ChangesStructure {
        commit: commit.id().to_string(),
        files,
    })
}

fn subject_of(commit: &Commit<'_>) -> String {
    one_line(commit.summary().ok().flatten().unwrap_or_default())
}

/// The revert's message: the planner's words (or `Revert "<subject>"`), which commit it
/// takes back, and the trailers — the commit taken back, and the structure the head
/// was imported under (the revert keeps it).
fn message(
    head: &Commit<'_>,
    commit: &Commit<'_>,
    subject: &str,
    words: Option<&str>,
    tables: &[TableRebase],
) -> String {
    let first = match words.map(str::trim).filter(|w| !w.is_empty()) {
        Some(words) => one_line(words),
        None => format!("Revert \"{subject}\""),
    };
    let short = short_id(&commit.id().to_string()).to_string();
    let mut text = format!("{first}\n\n");
    // One line per table, as a rebase's (what `log` and the history show).
    for table in tables {
        text.push_str(&format!(
            "{}: {} applied, taking back {short}\n",
            table.table, table.applied
        ));
    }
    text.push_str(&format!(
        "Takes back {short} (\"{subject}\").\n\n{REVERTS_TRAILER}: {}\n",
        commit.id()
    ));
    if let Some(structure) = trailer_ids(head, STRUCTURE_TRAILER).first() {
        text.push_str(&format!("{STRUCTURE_TRAILER}: {structure}\n"));
    }
    text
}
