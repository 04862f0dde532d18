//! What can refuse an import: nothing to read, or a change the request did not allow
//! (a removal, a revert) — or the store's own failure on the way.

use crate::StoreError;
use crate::import::{Removal, Revert};
use crate::names::{listed, short_id};

/// Why an import wrote nothing (the data's own mistakes are a `Report`, not an error).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// An import whose paths hold no spreadsheet or CSV file.
    #[error("no spreadsheet files found in the given paths")]
    NoSources,
    /// An import that would take away tables, generated masters or most rows of a
    /// table, which the request did not allow. `newer_structure`: the structure commit
    /// the branch was last imported with, when the import's own is older.
    #[error(
        "the import would remove {}; nothing was written",
        listed(removals, 20, "; ")
    )]
    Removes {
        branch: String,
        removals: Vec<Removal>,
        newer_structure: Option<String>,
    },
    /// An import that would take back what the branch's last rebase or merge brought
    /// in, which the request did not allow.
    #[error(
        "the workbooks would take back what the last rebase brought in ({}): {}; nothing was written",
        short_id(commit),
        listed(reverts, 20, "; ")
    )]
    Reverts {
        /// The rebase or merge commit.
        commit: String,
        reverts: Vec<Revert>,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<git2::Error> for ImportError {
    fn from(error: git2::Error) -> ImportError {
        ImportError::Store(error.into())
    }
}

impl From<masterctl_git::Error> for ImportError {
    fn from(error: masterctl_git::Error) -> ImportError {
        ImportError::Store(error.into())
    }
}
