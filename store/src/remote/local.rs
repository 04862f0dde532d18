//! Pushing to a repository on this machine (a path, or a `file://` URL: a bare
//! repository on a shared disk). libgit2 would write the remote's references from
//! inside this process, and a process killed there would leave the remote locked for
//! every clone. Here the objects go first, as one pack; then each reference moves with
//! a compare-and-swap under the remote's own ref-update record, so the next masterctl
//! that pushes there — from any clone — clears what a killed one left.

use std::path::PathBuf;

use git2::Oid;

use crate::StoreError;
use crate::git::repo::MasterRepo;

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
    path: &std::path::Path,
    updates: &[Update],
) -> Result<Vec<(String, String)>, StoreError> {
    let target = MasterRepo::at(path)?;
    let tips: Vec<Oid> = updates.iter().map(|u| u.id).collect();
    crate::git::pack::copy_reachable(&repo.git, &target.git, &tips)?;
    let mut refused = Vec::new();
    for update in updates {
        if let Some(why) = move_reference(repo, &target, update)? {
            refused.push((update.reference.clone(), why));
        }
    }
    Ok(refused)
}

/// Move one reference of the target, or say why not.
fn move_reference(
    repo: &MasterRepo,
    target: &MasterRepo,
    update: &Update,
) -> Result<Option<String>, StoreError> {
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
        Ok(match current {
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
        Err(e)
            if matches!(
                e.code(),
                git2::ErrorCode::Modified | git2::ErrorCode::Exists | git2::ErrorCode::Locked
            ) =>
        {
            Some("the remote moved while this pushed: pull first".into())
        }
        Err(e) => return Err(e.into()),
    })
}
