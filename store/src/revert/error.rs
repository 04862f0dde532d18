//! What can refuse taking a commit back — besides the store's own failures on the way.

use crate::StoreError;
use crate::join::JoinError;
use crate::names::short_id;

/// Why a revert wrote nothing (cells later commits built on are an outcome, named).
#[derive(Debug, thiserror::Error)]
pub enum RevertError {
    /// The branch's first commit: there is nothing before it to go back to.
    #[error(
        "{} is the first commit of {branch}: there is nothing before it to go back to",
        short_id(commit)
    )]
    FirstCommit { commit: String, branch: String },
    /// A commit that changed the structure (masterctl.toml, schemas, fonts): taking it
    /// back would take back the structure its data was imported under.
    #[error(
        "{} changed the structure ({}): a commit that changed schemas is not taken back; change the structure on main and import again",
        short_id(commit),
        files.join(", ")
    )]
    ChangesStructure { commit: String, files: Vec<String> },
    #[error(transparent)]
    Join(#[from] JoinError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<git2::Error> for RevertError {
    fn from(error: git2::Error) -> RevertError {
        RevertError::Store(error.into())
    }
}

impl From<masterctl_git::Error> for RevertError {
    fn from(error: masterctl_git::Error) -> RevertError {
        RevertError::Store(error.into())
    }
}
