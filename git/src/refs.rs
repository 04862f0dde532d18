//! What must hold before a region branch moves: an author git would accept, a branch no
//! worktree has checked out, and no lock left behind by a process that is gone.

use std::path::PathBuf;
use std::time::Duration;

use git2::Signature;

use crate::Error;
use crate::names::{Branch, branch_of};
use crate::repo::Repo;

/// A reference update holds its lock for milliseconds; a lock older than this was left
/// by a process that died (or was killed) between taking it and renaming it into place.
pub const STALE_LOCK: Duration = Duration::from_secs(10);

/// A lock file on a branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefLock {
    pub path: PathBuf,
    /// How long ago it was last written.
    pub age: Duration,
}

impl RefLock {
    pub fn is_stale(&self) -> bool {
        self.age >= STALE_LOCK
    }

    /// The error for a branch held by this lock.
    fn error(&self, reference: &str) -> Error {
        Error::Locked {
            branch: branch_of(reference).to_string(),
            path: self.path.display().to_string(),
            seconds: self.age.as_secs(),
        }
    }
}

/// The author of the commits masterctl writes, from git's configuration, refused when a
/// name or email would make a commit git rejects (a newline, `<`, `>`, a NUL: libgit2
/// writes them as they are, git's fsck then reports the commit as broken).
pub fn author(repo: &Repo) -> Result<Signature<'static>, Error> {
    if let Some((name, email)) = repo.writer() {
        return Ok(Signature::now(name, email)?);
    }
    let (name, email) = identity_in(&repo.git.config()?).ok_or(Error::NoAuthor)?;
    crate::names::check_identity(&name, &email)?;
    Ok(Signature::now(name.trim(), email.trim())?)
}

/// The `user.name` and `user.email` a git configuration gives, when it gives both.
pub fn identity_in(config: &git2::Config) -> Option<(String, String)> {
    let get = |key: &str| config.get_string(key).ok();
    Some((get("user.name")?, get("user.email")?))
}

/// The heads of every worktree (the main one included; HEAD of a bare repository), as
/// full reference names.
fn checked_out(repo: &Repo) -> Vec<String> {
    let mut heads = Vec::new();
    let head_of = |git: &git2::Repository| {
        git.find_reference("HEAD")
            .ok()
            .and_then(|head| head.symbolic_target().ok().flatten().map(str::to_string))
    };
    heads.extend(head_of(&repo.git));
    if let Ok(names) = repo.git.worktrees() {
        for name in names.iter().flatten().flatten() {
            if let Ok(worktree) = repo.git.find_worktree(name)
                && let Ok(git) = git2::Repository::open_from_worktree(&worktree)
            {
                heads.extend(head_of(&git));
            }
        }
    }
    heads
}

/// Refuse to move a branch that a worktree has checked out (its index and files would
/// then disagree with it) — the structure branch among them.
pub fn check_not_checked_out(repo: &Repo, reference: &str) -> Result<(), Error> {
    if checked_out(repo).iter().any(|head| head == reference) {
        return Err(Error::CheckedOut(branch_of(reference).to_string()));
    }
    Ok(())
}

/// The lock file on a branch, if there is one.
pub fn lock_of(repo: &Repo, reference: &str) -> Option<RefLock> {
    let path = repo.git.path().join(format!("{reference}.lock"));
    let metadata = std::fs::symlink_metadata(&path).ok()?;
    let age = metadata
        .modified()
        .ok()
        .and_then(|m| m.elapsed().ok())
        .unwrap_or_default();
    Some(RefLock { path, age })
}

/// The error for a branch whose update met a lock.
pub fn locked(repo: &Repo, reference: &str) -> Option<Error> {
    lock_of(repo, reference).map(|lock| lock.error(reference))
}

/// Remove a stale lock from a region's branch (or a work branch). A lock younger than
/// [`STALE_LOCK`] may belong to a process writing right now, and is left alone.
pub fn unlock(repo: &Repo, region: &Branch) -> Result<Option<RefLock>, Error> {
    let reference = region.reference();
    let Some(lock) = lock_of(repo, &reference) else {
        return Ok(None);
    };
    if !lock.is_stale() {
        return Err(lock.error(&reference));
    }
    std::fs::remove_file(&lock.path).map_err(Error::io(&lock.path))?;
    Ok(Some(lock))
}

/// Move a branch with `update`, recorded so that a process killed half-way leaves
/// nothing another has to repair by hand.
///
/// libgit2 moves a reference by writing `<ref>.lock` and renaming it over the ref; a
/// process killed in between leaves the lock, and git refuses to move the ref again.
/// masterctl therefore updates refs only while holding an exclusive lock on
/// `masterctl/ref-update` (released by the system when a process dies) and writes in
/// it which reference it is moving, clearing it when done. A process that takes the
/// lock and finds a reference named there knows its mover died: a `<ref>.lock` beside
/// that reference is the dead process's, and is removed. A lock no masterctl recorded
/// (git's own) is left alone and reported ([`Error::Locked`]).
pub fn with_ref_update<T, E: From<Error>>(
    repo: &Repo,
    reference: &str,
    update: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    with_refs_update(repo, &[reference], update)
}

/// [`with_ref_update`] for an update that moves many references at once (a fetch's
/// tracking references): each entry a reference, a namespace ending in `/` (every lock
/// under it is the dead mover's), or `packed-refs`.
pub fn with_refs_update<T, E: From<Error>>(
    repo: &Repo,
    moved: &[&str],
    update: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    use std::io::{Read, Seek, Write};
    let git_dir = crate::confined::GitDir::open(repo.git.path())?;
    let path = repo.git.path().join(RECORD);
    let io = |path: &std::path::Path, e: std::io::Error| Error::io(path)(e);
    let mut record = git_dir.open_record(RECORD)?;
    record.lock().map_err(|e| io(&path, e))?;
    // What a process that died while holding it was moving.
    let mut left = String::new();
    let _ = (&record).take(64 * 1024).read_to_string(&mut left);
    for dead in left.lines() {
        clear_dead_locks(&git_dir, dead)?;
    }
    let write = |record: &mut std::fs::File, text: &str| -> std::io::Result<()> {
        record.set_len(0)?;
        record.rewind()?;
        record.write_all(text.as_bytes())
    };
    let text: String = moved.iter().map(|m| format!("{m}\n")).collect();
    write(&mut record, &text).map_err(|e| io(&path, e))?;
    if let Some(first) = moved.first().filter(|m| m.starts_with("refs/heads/"))
        && let Some(locked) = locked(repo, first)
    {
        let _ = write(&mut record, "");
        return Err(locked.into());
    }
    let result = update();
    write(&mut record, "").map_err(|e| io(&path, e))?;
    result
}

/// Where a mover records what it moves, in the git folder.
const RECORD: &str = "masterctl/ref-update";

/// Remove the locks a dead mover of `entry` left: `<ref>.lock`, every `*.lock` under a
/// namespace (`refs/remotes/origin/`), or `packed-refs.lock`.
///
/// The record is data another process wrote — in a remote on a shared disk, anybody
/// who can write there — never a list of paths to trust: only the shapes masterctl
/// itself records are taken ([`recorded_shape`]), any other line is passed over, and
/// what is removed is reached without following a link (`confined`), so nothing
/// outside the git folder is ever removed.
fn clear_dead_locks(git_dir: &crate::confined::GitDir, entry: &str) -> Result<(), Error> {
    match recorded_shape(entry) {
        Some(Recorded::PackedRefs) => git_dir.remove_file("packed-refs.lock"),
        Some(Recorded::Reference) => git_dir.remove_file(&format!("{entry}.lock")),
        Some(Recorded::Namespace) => git_dir.remove_locks_under(entry),
        None => Ok(()),
    }
}

/// What a line of the record may name.
#[derive(Debug, PartialEq, Eq)]
enum Recorded {
    PackedRefs,
    Reference,
    Namespace,
}

/// The shape of a line masterctl writes in the record, or `None`: `packed-refs`; a
/// reference under `refs/heads/`, `refs/tags/masters/`, `refs/remotes/` or
/// `refs/masterctl/`; a namespace of tracking references (`refs/remotes/<remote>/`,
/// `refs/masterctl/remote-tags/<remote>/`, `refs/masterctl/remote-proposals/<remote>/`),
/// of versions (`refs/tags/masters/`) or of proposals (`refs/masterctl/proposals/`).
fn recorded_shape(entry: &str) -> Option<Recorded> {
    if entry == "packed-refs" {
        return Some(Recorded::PackedRefs);
    }
    let name = entry.strip_suffix('/').unwrap_or(entry);
    let plain = name
        .split('/')
        .all(|part| !part.is_empty() && !part.starts_with('.') && !part.ends_with(".lock"));
    if !plain || !git2::Reference::is_valid_name(name) {
        return None;
    }
    let depth = |prefix: &str| {
        name.strip_prefix(prefix)
            .map(|rest| rest.split('/').count())
    };
    if entry.ends_with('/') {
        let namespace = name == "refs/tags/masters"
            || name == "refs/masterctl/proposals"
            || depth("refs/remotes/") == Some(1)
            || depth("refs/masterctl/remote-tags/") == Some(1)
            || depth("refs/masterctl/remote-proposals/") == Some(1);
        return namespace.then_some(Recorded::Namespace);
    }
    [
        "refs/heads/",
        "refs/tags/masters/",
        "refs/remotes/",
        "refs/masterctl/",
    ]
    .iter()
    .any(|prefix| depth(prefix).is_some())
    .then_some(Recorded::Reference)
}

/// The error for a branch that moved while a process meant to move it.
fn raced(reference: &str) -> Error {
    Error::Raced {
        branch: branch_of(reference).to_string(),
    }
}

/// Move (or create, `expected: None`) a branch to a commit that exists already, with a
/// compare-and-swap under the ref-update record: a branch that moved meanwhile is
/// [`Error::Raced`], and a branch a worktree has checked out is never moved.
pub fn move_branch(
    repo: &Repo,
    reference: &str,
    expected: Option<git2::Oid>,
    to: git2::Oid,
    log_message: &str,
) -> Result<(), Error> {
    check_not_checked_out(repo, reference)?;
    let raced = || raced(reference);
    if repo.head_of(reference)?.map(|c| c.id()) != expected {
        return Err(raced());
    }
    swap(repo, reference, expected, to, log_message)
}

/// The compare-and-swap itself, under the ref-update record: the branch moves from
/// `expected` to `to`, or the error says who holds it or that it moved.
pub fn swap(
    repo: &Repo,
    reference: &str,
    expected: Option<git2::Oid>,
    to: git2::Oid,
    log_message: &str,
) -> Result<(), Error> {
    let git = &repo.git;
    let raced = || raced(reference);
    let moved = with_ref_update(repo, reference, || {
        Ok::<_, Error>(match expected {
            Some(expected) => git.reference_matching(reference, to, true, expected, log_message),
            None => git.reference(reference, to, false, log_message),
        })
    })?;
    match moved {
        Ok(_) => Ok(()),
        Err(e)
            if matches!(
                e.code(),
                git2::ErrorCode::Modified | git2::ErrorCode::Exists | git2::ErrorCode::Locked
            ) =>
        {
            Err(locked(repo, reference).unwrap_or_else(raced))
        }
        Err(e) => Err(e.into()),
    }
}

/// Delete a branch that still points at `expected`: the reference is locked, checked
/// and removed in one transaction, so a branch that moved meanwhile (a commit someone
/// just made on it) is never deleted ([`Error::Raced`]).
pub fn delete_branch(repo: &Repo, reference: &str, expected: git2::Oid) -> Result<(), Error> {
    check_not_checked_out(repo, reference)?;
    let git = &repo.git;
    let raced = || raced(reference);
    with_ref_update(repo, reference, || {
        let mut transaction = git.transaction()?;
        transaction
            .lock_ref(reference)
            .map_err(|e| match e.code() {
                git2::ErrorCode::Locked => locked(repo, reference).unwrap_or_else(raced),
                _ => e.into(),
            })?;
        if repo.head_of(reference)?.map(|c| c.id()) != Some(expected) {
            return Err(raced());
        }
        transaction.remove(reference)?;
        transaction.commit()?;
        Ok(())
    })
}

/// Delete a reference that is not a branch (a record masterctl keeps under
/// `refs/masterctl/`), under the ref-update record; whether there was one.
pub fn delete_reference(repo: &Repo, reference: &str) -> Result<bool, Error> {
    let git = &repo.git;
    with_ref_update(repo, reference, || match git.find_reference(reference) {
        Ok(mut found) => {
            found.delete()?;
            Ok(true)
        }
        Err(_) => Ok(false),
    })
}

#[cfg(test)]
mod record_tests {
    use super::{Recorded, recorded_shape};

    #[test]
    fn only_the_shapes_masterctl_records_are_taken_from_a_record() {
        for (line, shape) in [
            ("packed-refs", Some(Recorded::PackedRefs)),
            ("refs/heads/masters/jp", Some(Recorded::Reference)),
            ("refs/tags/masters/jp/1.0", Some(Recorded::Reference)),
            (
                "refs/masterctl/proposals/jp/alice",
                Some(Recorded::Reference),
            ),
            ("refs/remotes/origin/", Some(Recorded::Namespace)),
            (
                "refs/masterctl/remote-tags/origin/",
                Some(Recorded::Namespace),
            ),
            ("refs/tags/masters/", Some(Recorded::Namespace)),
            ("refs/masterctl/proposals/", Some(Recorded::Namespace)),
            (
                "refs/masterctl/remote-proposals/origin/",
                Some(Recorded::Namespace),
            ),
            ("refs/masterctl/audit", Some(Recorded::Reference)),
            ("refs/masterctl/remote-proposals/", None),
            ("refs/heads/evil/", None),
            ("refs/heads/", None),
            ("refs/", None),
            ("refs/remotes/origin/work/", None),
            ("refs/heads/../../etc", None),
            ("../outside", None),
            ("/etc/passwd", None),
            ("refs/heads/.hidden", None),
            ("refs/heads/x.lock", None),
            ("objects/", None),
            ("", None),
        ] {
            assert_eq!(recorded_shape(line), shape, "{line:?}");
        }
    }
}
