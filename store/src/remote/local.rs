//! Pushing to a repository on this machine (a path, or a `file://` URL: a bare
//! repository on a shared disk). libgit2 would write the remote's references from
//! inside this process, and a process killed there would leave the remote locked for
//! every clone. Here the objects go first, as one pack; then each reference moves with
//! a compare-and-swap under the remote's own ref-update record, so the next masterctl
//! that pushes there — from any clone — clears what a killed one left.
//!
//! Such a remote is somebody else's folder, and may be hostile: it is opened only
//! when its git folder lies inside the folder named ([`open_remote`]), with no link
//! among its references, objects and masterctl's records; its files are then reached
//! without following one (`git::confined`), so a push or a pull never opens, writes or
//! removes a file of the user's own.

use std::path::{Path, PathBuf};

use git2::Oid;

use crate::MasterRepo;
use crate::StoreError;
use crate::git::confined::GitDir;
use crate::remote::RemoteError;
use masterctl_git::Error as GitError;

/// The repository a remote URL names on this machine, if it names one.
pub(super) fn local_path(url: &str) -> Option<PathBuf> {
    let path = match url.strip_prefix("file://") {
        Some(path) => PathBuf::from(path),
        // `host:path` is ssh's short form, and any other `scheme://` is a network.
        None if url.contains("://") => return None,
        None => PathBuf::from(url),
    };
    path.is_dir().then_some(path)
}

/// The repository at `path`, a remote on this machine, once it is seen to keep
/// everything masterctl reads or writes there inside it: its git folder (and the
/// common folder a worktree's names) inside `path`, never reached through a link or a
/// `gitdir:` file pointing elsewhere, and no link among its references, objects,
/// `packed-refs`, `HEAD`, `config` and masterctl's own records.
pub(super) fn open_remote(path: &Path) -> Result<MasterRepo, RemoteError> {
    let root = path.canonicalize().map_err(StoreError::io(path))?;
    let target = MasterRepo::at(path)?;
    for folder in [target.git.path(), target.git.commondir()] {
        let real = folder.canonicalize().map_err(StoreError::io(folder))?;
        if !real.starts_with(&root) {
            return Err(GitError::LinkInRepository {
                path: folder.to_path_buf(),
                link: true,
            }
            .into());
        }
    }
    let git_dir = GitDir::open(target.git.path())?;
    for place in ["refs", "objects", "masterctl"] {
        git_dir.refuse_links_under(place)?;
    }
    for file in ["packed-refs", "HEAD", "config", "shallow", "commondir"] {
        git_dir.refuse_link_at(file)?;
    }
    Ok(target)
}

/// One reference to send: a branch (moved only forward) or a tag (made only where
/// there is none).
pub(super) struct Update {
    pub reference: String,
    pub id: Oid,
}

/// Send `updates` to the repository at `path`; the references it refused, each with
/// why (a branch that moved, a tag that is there).
pub(super) fn push_local(
    repo: &MasterRepo,
    path: &Path,
    updates: &[Update],
    proposed: &[super::proposals::Change],
) -> Result<Vec<(String, String)>, RemoteError> {
    let target = open_remote(path)?;
    let tips: Vec<Oid> = (updates.iter().map(|u| u.id))
        .chain(proposed.iter().filter_map(|c| c.to))
        .collect();
    crate::git::pack::copy_reachable(&repo.git, &target.git, &tips)?;
    let mut refused = Vec::new();
    for update in updates {
        if let Some(why) = move_reference(repo, &target, update)? {
            refused.push((update.reference.clone(), why));
        }
    }
    for change in proposed {
        if let Some(why) = move_proposal(&target, change)? {
            refused.push((change.reference(), why));
        }
    }
    Ok(refused)
}

/// Move one reference of the target, or say why not.
fn move_reference(
    repo: &MasterRepo,
    target: &MasterRepo,
    update: &Update,
) -> Result<Option<String>, RemoteError> {
    let current = match target.git.find_reference(&update.reference) {
        Ok(reference) => reference.target(),
        Err(e) if e.code() == git2::ErrorCode::NotFound => None,
        Err(e) => return Err(e.into()),
    };
    let is_tag = update.reference.starts_with("refs/tags/");
    match current {
        Some(current) if current == update.id => return Ok(None),
        Some(_) if is_tag => return Ok(Some("the tag exists there".into())),
        Some(current)
            if !repo
                .git
                .graph_descendant_of(update.id, current)
                .unwrap_or(false) =>
        {
            return Ok(Some(
                "the remote moved (not a fast-forward): pull first".into(),
            ));
        }
        _ => {}
    }
    crate::git::refs::check_not_checked_out(target, &update.reference)?;
    let moved = crate::git::refs::with_ref_update(target, &update.reference, || {
        Ok::<_, GitError>(match current {
            Some(current) => target.git.reference_matching(
                &update.reference,
                update.id,
                true,
                current,
                "masterctl push",
            ),
            None => target
                .git
                .reference(&update.reference, update.id, false, "masterctl push"),
        })
    })?;
    Ok(match moved {
        Ok(_) => None,
        Err(e) if raced(&e) => Some("the remote moved while this pushed: pull first".into()),
        Err(e) => return Err(e.into()),
    })
}

/// Whether a reference of the remote moved (or was locked) by another writer meanwhile.
pub(super) fn raced(error: &git2::Error) -> bool {
    matches!(
        error.code(),
        git2::ErrorCode::Modified | git2::ErrorCode::Exists | git2::ErrorCode::Locked
    )
}

/// Move one proposal of a remote on this machine as `change` says — only if it still
/// holds what this clone last saw there — or say why not.
fn move_proposal(
    target: &MasterRepo,
    change: &super::proposals::Change,
) -> Result<Option<String>, RemoteError> {
    let reference = change.reference();
    let current = match target.git.find_reference(&reference) {
        Ok(found) => found.target(),
        Err(e) if e.code() == git2::ErrorCode::NotFound => None,
        Err(e) => return Err(e.into()),
    };
    if current != change.from {
        return Ok(Some(
            "the remote's proposal changed since this clone fetched it: pull first".into(),
        ));
    }
    let git = &target.git;
    let moved = crate::git::refs::with_ref_update(target, &reference, || {
        Ok::<_, GitError>(match (current, change.to) {
            (Some(current), Some(to)) => git
                .reference_matching(&reference, to, true, current, "masterctl push: proposal")
                .map(drop),
            (None, Some(to)) => git
                .reference(&reference, to, false, "masterctl push: proposal")
                .map(drop),
            (Some(_), None) => git.find_reference(&reference).and_then(|mut r| r.delete()),
            (None, None) => Ok(()),
        })
    })?;
    Ok(match moved {
        Ok(()) => None,
        Err(e) if raced(&e) => {
            Some("the remote's proposal moved while this pushed: pull first".into())
        }
        Err(e) => return Err(e.into()),
    })
}
