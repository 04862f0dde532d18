//! A new master repository: the structure's files written (never over existing ones),
//! a git repository created unless the folder is inside one, and the structure
//! committed as its first commit so that clones carry it.

use std::path::{Path, PathBuf};

use git2::Oid;
use serde::Serialize;

use crate::MasterRepo;
use crate::StoreError;
use masterctl_git::Error as GitError;

/// What [`init`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Initialized {
    /// The files written, in the order given.
    pub written: Vec<PathBuf>,
    pub git_repository_created: bool,
    /// The structure's commit; `None` when the folder's repository already had commits
    /// (the structure is then the user's to commit).
    pub structure_commit: Option<String>,
    /// The author given to init, kept in the repository's git configuration (`None`:
    /// git's own identity).
    pub author: Option<String>,
}

/// Why init wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("{} exists and is not a folder", .0.display())]
    NotAFolder(PathBuf),
    /// A file init would write exists (`repository`: the folder holds a masterctl.toml).
    #[error("{} already exists; init never overwrites", path.display())]
    AlreadyExists { path: PathBuf, repository: bool },
    #[error(
        "{} is inside the git repository whose work tree is {}; a master repository's masterctl.toml and schemas live at the root of its work tree",
        dir.display(),
        root.display()
    )]
    InsideRepository { dir: PathBuf, root: PathBuf },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<masterctl_git::Error> for InitError {
    fn from(error: masterctl_git::Error) -> InitError {
        InitError::Store(error.into())
    }
}

/// Write `files` (paths relative to `dir`) into `dir`, create a git repository (branch
/// `main`) unless `dir` is inside one, and commit the structure. Nothing is written when
/// any of the files exists ([`InitError::AlreadyExists`]), nor when nobody is there to
/// author the commits ([`GitError::NoAuthor`]: git has no `user.name` and
/// `user.email`, and no `author` is given — every command after commits too). An
/// `author` (`name`, `email`) is kept in the repository's own git configuration.
pub fn init(
    dir: &Path,
    files: &[(String, Vec<u8>)],
    author: Option<(&str, &str)>,
) -> Result<Initialized, InitError> {
    if dir.exists() && !dir.is_dir() {
        return Err(InitError::NotAFolder(dir.to_path_buf()));
    }
    match author {
        Some((name, email)) => crate::names::check_identity(name, email)?,
        None if !has_identity(dir) => return Err(StoreError::from(GitError::NoAuthor).into()),
        None => {}
    }
    if let Some(root) = enclosing_work_tree(dir) {
        return Err(InitError::InsideRepository {
            dir: dir.to_path_buf(),
            root,
        });
    }
    if let Some((existing, _)) = files.iter().find(|(name, _)| dir.join(name).exists()) {
        return Err(InitError::AlreadyExists {
            path: dir.join(existing),
            repository: dir.join("masterctl.toml").is_file(),
        });
    }
    let mut written = Vec::new();
    for (name, bytes) in files {
        let path = dir.join(name);
        write_new(&path, bytes)?;
        written.push(path);
    }
    let git_repository_created = ensure_git_repository(dir)?;
    if let Some((name, email)) = author {
        keep_author(dir, name, email)?;
    }
    // Only a repository whose working tree is this folder takes the structure commit.
    let structure_commit: Option<Oid> = match MasterRepo::open(dir) {
        Ok(repo) if repo.workdir().is_some_and(|w| same_folder(&w, dir)) => {
            let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
            crate::snapshot::commit::commit_first_structure(&repo, &names)
                .ok()
                .flatten()
        }
        _ => None,
    };
    Ok(Initialized {
        written,
        git_repository_created,
        structure_commit: structure_commit.map(|c| c.to_string()),
        author: author.map(|(name, email)| format!("{} <{}>", name.trim(), email.trim())),
    })
}

/// Whether git gives commits made in `dir` an author: the repository's configuration
/// when `dir` is one, else the user's and the system's.
fn has_identity(dir: &Path) -> bool {
    let config = match git2::Repository::open(dir) {
        Ok(repo) => repo.config(),
        Err(_) => git2::Config::open_default(),
    };
    config
        .ok()
        .and_then(|config| crate::git::refs::identity_in(&config))
        .is_some_and(|(name, email)| !name.trim().is_empty() && !email.trim().is_empty())
}

/// `name <email>` as the author of the commits made in the repository at `dir` (its own
/// configuration: `user.name`, `user.email`).
fn keep_author(dir: &Path, name: &str, email: &str) -> Result<(), StoreError> {
    let repo = git2::Repository::open(dir)?;
    let mut config = repo.config()?.open_level(git2::ConfigLevel::Local)?;
    config.set_str("user.name", name.trim())?;
    config.set_str("user.email", email.trim())?;
    Ok(())
}

/// A file of the example written whole under a name nothing holds (a process killed
/// meanwhile leaves no half file for the next `init` to refuse).
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(StoreError::io(parent))?;
    }
    masterctl_runtime::files::write_new_whole(path, bytes).map_err(StoreError::io(path))
}

/// Whether two paths name one folder.
fn same_folder(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The work tree of another git repository `dir` would be a sub-folder of: every
/// command reads the structure from the root of its repository's work tree, so a
/// project there could never be opened.
fn enclosing_work_tree(dir: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(dir).ok()?;
    let existing = absolute.ancestors().find(|a| a.is_dir())?;
    let repo = git2::Repository::discover(existing).ok()?;
    let root = repo.workdir().unwrap_or_else(|| repo.path()).to_path_buf();
    (!dir.exists() || !same_folder(&root, dir)).then_some(root)
}

/// Create a git repository in `dir` unless it is already inside one.
fn ensure_git_repository(dir: &Path) -> Result<bool, StoreError> {
    if git2::Repository::discover(dir).is_ok() {
        return Ok(false);
    }
    let mut options = git2::RepositoryInitOptions::new();
    options.initial_head("main");
    git2::Repository::init_opts(dir, &options)?;
    Ok(true)
}
