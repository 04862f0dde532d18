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
    let target = MasterRepo {
        git: git2::Repository::open(path)?,
    };
    send_objects(repo, &target, updates)?;
    let mut refused = Vec::new();
    for update in updates {
        if let Some(why) = move_reference(repo, &target, update)? {
            refused.push((update.reference.clone(), why));
        }
    }
    Ok(refused)
}

/// Every object the updates reach that the target lacks, written there as one pack.
fn send_objects(
    repo: &MasterRepo,
    target: &MasterRepo,
    updates: &[Update],
) -> Result<(), StoreError> {
    let git = &repo.git;
    let mut walk = git.revwalk()?;
    let mut any = false;
    for update in updates {
        let object = git.find_object(update.id, None)?;
        let commit = object.peel_to_commit()?;
        if !target.git.odb()?.exists(commit.id()) {
            walk.push(commit.id())?;
            any = true;
        }
    }
    // What the target holds already (and this clone knows) is not sent again.
    let odb = git.odb()?;
    for reference in target.git.references()? {
        if let Some(id) = reference?.target()
            && odb.exists(id)
            && let Ok(commit) = git.find_object(id, None).and_then(|o| o.peel_to_commit())
        {
            walk.hide(commit.id())?;
        }
    }
    let mut builder = git.packbuilder()?;
    if any {
        builder.insert_walk(&mut walk)?;
    }
    // Annotated tags: their own objects.
    for update in updates {
        if git.find_tag(update.id).is_ok() && !target.git.odb()?.exists(update.id) {
            builder.insert_object(update.id, None)?;
        }
    }
    if builder.object_count() == 0 {
        return Ok(());
    }
    let mut pack = git2::Buf::new();
    builder.write_buf(&mut pack)?;
    let target_odb = target.git.odb()?;
    let mut writer = target_odb.packwriter()?;
    std::io::Write::write_all(&mut writer, &pack).map_err(StoreError::io(target.git.path()))?;
    writer.commit()?;
    Ok(())
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
