//! Opening a repository, naming its commits and reading its trees.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use git2::{Commit, ObjectType, Oid, Repository, Tree, TreeWalkMode, TreeWalkResult};

use crate::Error;
use crate::names::Branch;

/// A git repository masterctl reads and writes, and who the commits made through it
/// are by.
pub struct Repo {
    pub git: Repository,
    /// Who the commits made through this handle are by, when not git's configured
    /// identity (a console writes as its signed-in user): `(name, email)`.
    author: Option<(String, String)>,
}

impl Repo {
    /// The repository holding `path` (a working tree folder, or a bare repository).
    pub fn open(path: &Path) -> Result<Repo, Error> {
        let git =
            Repository::discover(path).map_err(|_| Error::NotARepository(path.to_path_buf()))?;
        Ok(Repo { git, author: None })
    }

    /// The repository at exactly `path` (a bare one too), without looking upward.
    pub fn at(path: &Path) -> Result<Repo, Error> {
        let git = Repository::open(path)?;
        Ok(Repo { git, author: None })
    }

    /// Commits through this handle by `name <email>` instead of git's configured
    /// identity; refused when git would not accept them in a commit.
    pub fn write_as(mut self, name: &str, email: &str) -> Result<Repo, Error> {
        crate::names::check_identity(name, email)?;
        self.author = Some((name.trim().to_string(), email.trim().to_string()));
        Ok(self)
    }

    /// The identity set by [`Repo::write_as`], if any.
    pub fn writer(&self) -> Option<(&str, &str)> {
        self.author.as_ref().map(|(n, e)| (n.as_str(), e.as_str()))
    }

    /// The working tree, if the repository has one.
    pub fn workdir(&self) -> Option<PathBuf> {
        self.git.workdir().map(Path::to_path_buf)
    }

    /// The commit a reference points at, if it exists.
    pub fn head_of(&self, reference: &str) -> Result<Option<Commit<'_>>, Error> {
        match self.git.find_reference(reference) {
            Ok(r) => Ok(Some(r.peel_to_commit()?)),
            Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The head of a region's branch or of a work branch; a branch that does not exist
    /// (yet) is [`Error::NoBranch`] or [`Error::NoWorkBranch`].
    pub fn head_of_branch(&self, line: &Branch) -> Result<Commit<'_>, Error> {
        self.head_of(&line.reference())?
            .ok_or_else(|| match line.work() {
                None => Error::NoBranch(line.name().to_string()),
                Some(work) => Error::NoWorkBranch {
                    region: line.name().to_string(),
                    name: work.name().to_string(),
                },
            })
    }

    /// The full id of the commit a hexadecimal id (or an unambiguous start of one)
    /// names; anything else is [`Error::UnknownRevision`].
    pub fn commit_id(&self, id: &str) -> Result<String, Error> {
        let unknown = || Error::UnknownRevision(id.to_string());
        if !(4..=40).contains(&id.len()) || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(unknown());
        }
        self.git
            .find_object_by_prefix(id, None)
            .and_then(|found| found.peel_to_commit())
            .map(|commit| commit.id().to_string())
            .map_err(|_| unknown())
    }

    /// The commit `rev` names (a sha, a tag, `masters/jp~2`, or a version of the
    /// region: `1.4` for the tag `masters/<region>/1.4`), or the line's head.
    pub fn commit_of(&self, line: &Branch, rev: Option<&str>) -> Result<Commit<'_>, Error> {
        match rev {
            Some(rev) => resolve(&self.git, rev).or_else(|unknown| {
                crate::names::version_tag(line.region(), rev)
                    .and_then(|tag| resolve(&self.git, &tag).ok())
                    .ok_or(unknown)
            }),
            None => self.head_of_branch(line),
        }
    }
}

/// The commit a revision names (`masters/jp`, `masters/jp~3`, a commit id, a tag, `HEAD`).
pub fn resolve<'r>(git: &'r Repository, revision: &str) -> Result<Commit<'r>, Error> {
    git.revparse_single(revision)
        .and_then(|object| object.peel_to_commit())
        .map_err(|_| Error::UnknownRevision(revision.to_string()))
}

/// The bytes of the blob at `path` (slash-separated) under `tree`, if there is one.
pub fn blob_at(git: &Repository, tree: &Tree<'_>, path: &str) -> Result<Option<Vec<u8>>, Error> {
    match blob_id_at(tree, path)? {
        Some(id) => Ok(Some(git.find_blob(id)?.content().to_vec())),
        None => Ok(None),
    }
}

/// The id of the blob at `path` (slash-separated) under `tree`, if there is one
/// (nothing read: the blob can be read later, by another thread's repository).
pub fn blob_id_at(tree: &Tree<'_>, path: &str) -> Result<Option<Oid>, Error> {
    match tree.get_path(Path::new(path)) {
        Ok(entry) if entry.kind() == Some(ObjectType::Blob) => Ok(Some(entry.id())),
        Ok(_) => Ok(None),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Every blob under a tree, by slash-separated path.
pub fn tree_blobs(git: &Repository, tree: &Tree<'_>) -> Result<HashMap<String, Oid>, Error> {
    let _ = git;
    let mut blobs = HashMap::new();
    tree.walk(TreeWalkMode::PreOrder, |root, entry| {
        if entry.kind() == Some(ObjectType::Blob)
            && let Ok(name) = entry.name()
        {
            blobs.insert(format!("{root}{name}"), entry.id());
        }
        TreeWalkResult::Ok
    })?;
    Ok(blobs)
}

/// From now on, for the rest of the process, read git objects without hashing each one
/// again (libgit2's strict hash verification is a process-wide setting; their zlib
/// checksums are still checked as they are inflated). Only for a process that reads to
/// show and then ends — the `blame` command, where hashing a thousand versions of a
/// large table again was 40% of its time, and `rebase --dry-run` (13%). The library never calls it: a process that
/// writes, or serves several callers at once, keeps every read verified.
pub fn read_without_rehashing() {
    REHASHING.store(false, std::sync::atomic::Ordering::Relaxed);
    git2::opts::strict_hash_verification(false);
}

/// Start libgit2 now — its global state, and the OpenSSL context that reads the
/// system's certificate authorities — as the first call into it would. For a process
/// that chooses the moment (the command line starts it without the bundle when no
/// command reaches a git remote).
pub fn start_libgit2() {
    // Any call starts it; this one makes an empty in-memory config.
    let _ = git2::Config::new();
}

/// Whether this process still hashes each git object it reads (libgit2 does, and
/// [`crate::packed`] follows it), until [`read_without_rehashing`].
static REHASHING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Whether objects read are hashed again to check their ids: see [`read_without_rehashing`].
pub(crate) fn rehashing() -> bool {
    REHASHING.load(std::sync::atomic::Ordering::Relaxed)
}
