//! The audit log: who imported, edited, took back, rebased, merged, proposed, tagged,
//! published and rolled back what, when, and from where (the command line or the
//! console, on which machine) — kept in the repository, so that it travels with pull
//! and push. Each entry is a commit of the empty tree on `refs/masterctl/audit`, its
//! message the entry as one line of JSON; two clones' logs meet in a merge commit, so
//! none is lost and nothing conflicts. A log from elsewhere is data: an entry that does
//! not read, or is too long, is passed over.

use git2::{Oid, Repository};
use serde::{Deserialize, Serialize};

use crate::{MasterRepo, StoreError};
use masterctl_git::Error as GitError;

/// Where the log is kept.
pub const AUDIT: &str = "refs/masterctl/audit";

/// The longest entry read (a longer one is passed over).
const LONGEST: usize = 4096;

/// One thing done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// When, in UTC (`2026-12-05T07:23:00Z`).
    pub time: String,
    /// The kind (`proposal`, `import`, `merge`, `release`).
    pub event: String,
    /// What was done (`imported into`, `published a release of`…).
    pub action: String,
    pub region: String,
    #[serde(default)]
    pub branch: Option<String>,
    /// The commit made, or the release.
    #[serde(default)]
    pub id: Option<String>,
    /// Who (`Name <email>`).
    pub by: String,
    #[serde(default)]
    pub message: Option<String>,
    /// From where: the face and the machine (`console on build-01`).
    pub from: String,
}

/// Add `entry` to the log, as the repository's writer.
pub fn record(repo: &MasterRepo, entry: &Entry) -> Result<(), StoreError> {
    let git = &repo.git;
    let line = serde_json::to_string(entry).map_err(|e| StoreError::BrokenSnapshot {
        branch: AUDIT.to_string(),
        message: e.to_string(),
    })?;
    let author = crate::git::refs::author(repo)?;
    // Objects go through a handle of their own: the repository's may carry the
    // in-memory object store a commit of data was written through.
    let disk = Repository::open(git.path())?;
    let empty = disk.treebuilder(None)?.write()?;
    let tree = disk.find_tree(empty)?;
    // Another writer may add an entry meanwhile: taken as the parent, a few times.
    for _ in 0..5 {
        let parent = git.refname_to_id(AUDIT).ok();
        let parents = parent.map(|id| disk.find_commit(id)).transpose()?;
        let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
        let commit = disk.commit(None, &author, &author, &line, &tree, &parents)?;
        if swap(repo, parent, commit)? {
            return Ok(());
        }
    }
    Err(GitError::Raced {
        branch: AUDIT.to_string(),
    }
    .into())
}

/// Move the log from `expected` to `to` under the ref-update record; false when another
/// writer moved it first.
fn swap(repo: &MasterRepo, expected: Option<Oid>, to: Oid) -> Result<bool, StoreError> {
    let moved = crate::git::refs::with_ref_update(repo, AUDIT, || {
        Ok::<_, GitError>(moved(&repo.git, expected, to))
    })?;
    Ok(moved)
}

/// Move the log from `expected` to `to` (the caller holds the ref-update record).
fn moved(git: &Repository, expected: Option<Oid>, to: Oid) -> bool {
    match expected {
        Some(old) => git.reference_matching(AUDIT, to, true, old, "masterctl audit"),
        None => git.reference(AUDIT, to, false, "masterctl audit"),
    }
    .is_ok()
}

/// The log's newest `limit` entries, newest first.
pub fn read(repo: &MasterRepo, limit: usize) -> Result<Vec<Entry>, StoreError> {
    let git = &repo.git;
    let Ok(head) = git.refname_to_id(AUDIT) else {
        return Ok(Vec::new());
    };
    let mut walk = git.revwalk()?;
    walk.set_sorting(git2::Sort::TIME)?;
    walk.push(head)?;
    let mut entries = Vec::new();
    for id in walk {
        let commit = git.find_commit(id?)?;
        let message = commit.message_bytes();
        if commit.parent_count() > 1 || message.len() > LONGEST {
            continue;
        }
        if let Ok(entry) = serde_json::from_slice::<Entry>(message) {
            entries.push(entry);
            if entries.len() == limit {
                break;
            }
        }
    }
    Ok(entries)
}

/// After a fetch brought the remote's log to `theirs`: this clone's log joins it —
/// taken as it is when this one has nothing of its own, kept when it holds it already,
/// else the two meet in a merge commit. Within the fetch's ref-update record.
pub(crate) fn join(repo: &MasterRepo, theirs: Oid) -> Result<(), StoreError> {
    let git = &repo.git;
    let ours = git.refname_to_id(AUDIT).ok();
    let Some(ours) = ours else {
        return set(repo, None, theirs);
    };
    if ours == theirs || descends(git, ours, theirs) {
        return Ok(());
    }
    if descends(git, theirs, ours) {
        return set(repo, Some(ours), theirs);
    }
    // A clone with no one to sign the join keeps its own log; the next pull joins them.
    let Ok(author) = crate::git::refs::author(repo) else {
        return Ok(());
    };
    let disk = Repository::open(git.path())?;
    let (a, b) = (disk.find_commit(ours)?, disk.find_commit(theirs)?);
    let tree = a.tree()?;
    let merged = disk.commit(
        None,
        &author,
        &author,
        "audit logs joined\n",
        &tree,
        &[&a, &b],
    )?;
    set(repo, Some(ours), merged)
}

fn descends(git: &Repository, from: Oid, of: Oid) -> bool {
    git.graph_descendant_of(from, of).unwrap_or(false)
}

fn set(repo: &MasterRepo, expected: Option<Oid>, to: Oid) -> Result<(), StoreError> {
    match moved(&repo.git, expected, to) {
        true => Ok(()),
        false => Err(GitError::Raced {
            branch: AUDIT.to_string(),
        }
        .into()),
    }
}
