//! Commits on region branches: the snapshot and its commit written as one pack, then
//! the branch moved with a compare-and-swap under its lock ([`write_commit`], shared by
//! import, rebase and translation import); the structure's first commit
//! ([`commit_first_structure`]); and the trailers a commit message carries.

use std::path::Path;

use git2::Oid;

use crate::MasterRepo;
use crate::StoreError;
use crate::names::branch_of;
use crate::snapshot::structure::is_structure_path;
use crate::snapshot::{OwnedObject, Snapshot};

/// The trailer naming a source file of an import.
pub const SOURCE_TRAILER: &str = "Masterctl-Source";
/// The trailer naming the exchange file a translation commit took.
pub const TRANSLATION_TRAILER: &str = "Masterctl-Translations";
/// An import's trailer naming the commit its structure was read from.
pub const STRUCTURE_TRAILER: &str = "Masterctl-Structure";
/// Trailer naming the upstream commit a rebase took.
pub const UPSTREAM_TRAILER: &str = "Masterctl-Upstream";
/// Trailer naming the import point the rebase started from.
pub const UPSTREAM_BASE_TRAILER: &str = "Masterctl-Upstream-Base";
/// A merge's trailer naming the work branch it took (`work/jp/alice`).
pub const MERGED_WORK_TRAILER: &str = "Masterctl-Work-Branch";
/// A merge's trailer naming the commit it took (the second parent).
pub const MERGED_TRAILER: &str = "Masterctl-Merged";
/// A work branch's trailer naming the region commit it last took: on its first commit
/// of its own after it was made (or merged), and on its rebase onto its region.
pub const WORK_TOOK_TRAILER: &str = "Masterctl-Work-Took";
/// A pull's trailer naming the remote branch it took (`origin/masters/jp`).
pub const PULLED_TRAILER: &str = "Masterctl-Pulled";
/// A merge's trailer naming the commit the merge started from.
pub const MERGE_BASE_TRAILER: &str = "Masterctl-Merge-Base";

/// A commit to make on a branch, and where the branch must still point.
pub struct CommitSpec<'a> {
    pub reference: &'a str,
    /// Where the branch must point for the commit to land (`None`: it must not exist).
    pub expected: Option<Oid>,
    pub parents: &'a [Oid],
    pub message: &'a str,
    pub log_message: &'a str,
}

/// Write a snapshot and a commit of it as one pack, then move the branch with a
/// compare-and-swap. A branch that moved meanwhile is [`masterctl_git::Error::Raced`], and then
/// nothing is referenced (what was written is left to `git gc`).
pub fn write_commit(
    repo: &MasterRepo,
    snapshot: &Snapshot,
    spec: &CommitSpec,
) -> Result<Oid, StoreError> {
    let git = &repo.git;
    let author = crate::git::refs::author(repo)?;
    crate::git::refs::check_not_checked_out(repo, spec.reference)?;
    let raced = || -> StoreError {
        masterctl_git::Error::Raced {
            branch: branch_of(spec.reference).to_string(),
        }
        .into()
    };
    // Another writer that already won leaves nothing for this one to write.
    if repo.head_of(spec.reference)?.map(|c| c.id()) != spec.expected {
        return Err(raced());
    }
    // New objects reach the disk as one pack (see `pack`); the trees and the commit are
    // written to memory first, where libgit2 makes the commit of its tree.
    let odb = git.odb()?;
    let mempack = odb.add_new_mempack_backend(1000)?;
    let (tree, mut objects) = snapshot.objects(git)?;
    let tree = git.find_tree(tree)?;
    let parents = spec
        .parents
        .iter()
        .map(|id| git.find_commit(*id))
        .collect::<Result<Vec<_>, _>>()?;
    let parents: Vec<&git2::Commit> = parents.iter().collect();
    let commit = git.commit(None, &author, &author, spec.message, &tree, &parents)?;
    let commit_object = odb.read(commit)?;
    objects.push(OwnedObject {
        id: commit,
        kind: git2::ObjectType::Commit,
        data: std::borrow::Cow::Borrowed(commit_object.data()),
    });
    // Objects the repository already had are not written again.
    let on_disk = git2::Repository::open(git.path())?;
    let disk = on_disk.odb()?;
    let objects: Vec<crate::git::pack::Object<'_>> = objects
        .iter()
        .filter(|o| !disk.exists(o.id))
        .map(|o| crate::git::pack::Object {
            id: o.id,
            kind: o.kind,
            data: &o.data,
        })
        .collect();
    crate::git::pack::write_objects(git, &objects)?;
    drop(commit_object);
    mempack.reset()?;
    // The branch moves under the ref-update record (see `refs::with_ref_update`): a
    // lock left by a masterctl killed here is cleared by the next one.
    crate::git::refs::swap(
        repo,
        spec.reference,
        spec.expected,
        commit,
        spec.log_message,
    )?;
    // Best effort: a failed consolidation leaves the packs as they were. A fresh handle:
    // this one carries the in-memory object store.
    if let Ok(fresh) = git2::Repository::open(git.path()) {
        let _ = crate::git::pack::consolidate_if_needed(&fresh);
    }
    Ok(commit)
}

/// Commit the structure files (`masterctl.toml`, `schemas/*`, paths relative to the
/// working tree) as the first commit of a repository whose current branch has none, so
/// that a clone — a bare one on a server too — carries the structure. `Ok(None)` when
/// the branch already has commits (the structure is then the user's to commit) or the
/// repository has no working tree.
pub fn commit_first_structure(
    repo: &MasterRepo,
    files: &[&str],
) -> Result<Option<git2::Oid>, StoreError> {
    let git = &repo.git;
    // `head()` fails only while the current branch is unborn (has no commit).
    if repo.workdir().is_none() || git.head().is_ok() {
        return Ok(None);
    }
    let author = crate::git::refs::author(repo)?;
    let mut index = git.index()?;
    for path in files.iter().filter(|p| is_structure_path(p)) {
        index.add_path(Path::new(path))?;
    }
    index.write()?;
    let tree = git.find_tree(index.write_tree()?)?;
    let commit = git.commit(
        Some("HEAD"),
        &author,
        &author,
        "masterctl structure: masterctl.toml and schemas",
        &tree,
        &[],
    )?;
    Ok(Some(commit))
}

/// The import point a commit records: its upstream parent (the second parent of a
/// rebase; the only parent of a region's first commit, started from its upstream), when
/// the commit's own `Masterctl-Upstream` trailer names that parent. Text alone — which a
/// file name or a message could once carry — never makes an import point: the commit's
/// structure must agree.
pub fn import_point_of(commit: &git2::Commit<'_>) -> Option<Oid> {
    let upstream_parent = match commit.parent_count() {
        1 => commit.parent_id(0).ok()?,
        2 => commit.parent_id(1).ok()?,
        _ => return None,
    };
    trailer_ids(commit, UPSTREAM_TRAILER)
        .contains(&upstream_parent)
        .then_some(upstream_parent)
}

/// The parent whose history a cell this commit brought in came from: the upstream
/// commit a rebase took ([`import_point_of`]), or the work branch's head a merge took
/// (named by its own `Masterctl-Merged` trailer). `None` for an import.
pub fn taken_parent(commit: &git2::Commit<'_>) -> Option<Oid> {
    if let Some(point) = import_point_of(commit) {
        return Some(point);
    }
    let second = commit.parent_id(1).ok()?;
    (commit.parent_count() == 2 && trailer_ids(commit, MERGED_TRAILER).contains(&second))
        .then_some(second)
}

/// The remote side a pull's merge commit took (its second parent, named by its
/// `Masterctl-Merged` trailer beside a `Masterctl-Pulled` one).
pub fn pulled_parent(commit: &git2::Commit<'_>) -> Option<Oid> {
    let message = String::from_utf8_lossy(commit.message_raw_bytes());
    let pulled = git2::message_trailers_strs(&message)
        .ok()?
        .iter()
        .any(|(key, _)| key == PULLED_TRAILER);
    let second = commit.parent_id(1).ok()?;
    (pulled && trailer_ids(commit, MERGED_TRAILER).contains(&second)).then_some(second)
}

/// The commit ids a commit's trailers `key` name, in order (values that are no commit
/// id left out).
pub fn trailer_ids(commit: &git2::Commit<'_>, key: &str) -> Vec<Oid> {
    let message = String::from_utf8_lossy(commit.message_raw_bytes());
    let Ok(trailers) = git2::message_trailers_strs(&message) else {
        return Vec::new();
    };
    trailers
        .iter()
        .filter(|(k, _)| *k == key)
        .filter_map(|(_, value)| Oid::from_str(value.trim()).ok())
        .collect()
}
