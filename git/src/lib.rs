//! The git plumbing beneath every masterctl workflow: a repository opened and its
//! commits named (`repo`), the names users give checked into types before they reach a
//! path, a reference or a commit message (`names`), references moved with an expected
//! old value and their locks (`refs`), objects written as one pack (`pack`), large blobs
//! read from the packs with their delta bases kept (`packed`), and a git folder's own
//! files reached without following a link (`confined`).
//!
//! Nothing here knows a workflow, a table or a snapshot: the store calls down into this
//! crate, never the other way (the crate boundary keeps it). Its failures are [`Error`];
//! each workflow's error wraps it.

pub mod confined;
pub mod names;
pub mod pack;
pub mod packed;
pub mod refs;
pub mod repo;

use std::path::PathBuf;

pub use names::{Branch, Region, RemoteName, WorkBranch, short_id};
pub use repo::Repo;

/// What can go wrong in the plumbing: a repository, a name, a branch or a reference
/// that is not what it must be, another writer, a file, or git itself.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{} is not inside a git repository", .0.display())]
    NotARepository(PathBuf),
    /// `known`: the regions the project declares, for a suggestion.
    #[error("region `{name}` is not declared in masterctl.toml")]
    UnknownRegion { name: String, known: Vec<String> },
    #[error("region `{0}` has no branch yet: import into it (or rebase it) first")]
    NoBranch(String),
    #[error(
        "`{0}` is not a work branch name: one word of ASCII letters, digits, `-`, `_` and `.`, starting with a letter or digit (`alice`, `event-2025-02`)"
    )]
    BadWorkBranch(String),
    #[error("region `{region}` has no work branch `{name}` (work/{region}/{name})")]
    NoWorkBranch { region: String, name: String },
    #[error(
        "`{0}` is not a remote name: ASCII letters, digits, `-`, `_` and `.`, starting with a letter or digit (`origin`)"
    )]
    BadRemote(String),
    #[error("`{0}` names no commit of this repository")]
    UnknownRevision(String),
    #[error("no author: git config has no user.name and user.email")]
    NoAuthor,
    #[error(
        "{key} is `{value}`, which git would not accept in a commit: fix it with git config {key} \"…\""
    )]
    BadAuthor { key: String, value: String },
    #[error(
        "branch {0} is checked out in a worktree (or is the branch holding the structure); masterctl never moves a checked-out branch: give the region its own branch in masterctl.toml, or check out another branch"
    )]
    CheckedOut(String),
    #[error(
        "branch {branch} is locked by {path}, written {seconds} s ago: another masterctl or git process is updating it, or one was killed while it did; nothing was written"
    )]
    Locked {
        branch: String,
        path: String,
        seconds: u64,
    },
    #[error(
        "branch {branch} moved while this import ran (another import won); nothing was written: run the import again"
    )]
    Raced { branch: String },
    /// A link (or something other than a folder or file) inside a repository's git
    /// folder where masterctl reads or writes: a remote on a shared disk could point it
    /// at the user's own files. Nothing was followed, opened or removed.
    #[error(
        "{} is {}: masterctl follows no link inside a repository's git folder and opens nothing outside it; nothing was written",
        path.display(),
        if *link { "a symbolic link" } else { "not what git keeps there" }
    )]
    LinkInRepository { path: PathBuf, link: bool },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("git: {}", .0.message())]
    Git(#[from] git2::Error),
}

impl Error {
    /// An I/O failure on `path`, for `map_err`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
}

/// A new, empty repository in a temporary folder (dropped with the folder).
#[cfg(test)]
pub(crate) fn scratch_repository() -> (tempfile::TempDir, git2::Repository) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let git = git2::Repository::init(dir.path()).expect("a new repository");
    (dir, git)
}
