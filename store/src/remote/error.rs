//! What can go wrong with a remote: one the repository does not name, one that cannot
//! be reached or refuses, one that rewrote a branch — or the store's own failure while
//! pulling or pushing.

use crate::StoreError;
use crate::names::short_id;
use crate::remote::Trouble;

/// A pull's, a push's or a remote's failure.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// A remote the repository's configuration does not name.
    #[error("this repository has no remote `{name}`")]
    NoRemote { name: String, known: Vec<String> },
    /// The remote could not be reached, refused the credentials, or failed; `url` has
    /// any user name or password taken out.
    #[error("{remote} ({url}): {what}: {message}")]
    Transport {
        remote: String,
        url: String,
        what: Trouble,
        message: String,
    },
    /// A branch the remote no longer holds as this clone last saw it: someone rewrote
    /// (force-pushed) it. Nothing was changed here.
    #[error(
        "{remote}/{branch} was rewritten: it was {} when this clone last saw it, and is {} now, which does not contain it; nothing was changed here",
        short_id(was),
        short_id(now)
    )]
    Rewritten {
        remote: String,
        branch: String,
        was: String,
        now: String,
    },
    /// The store's own failure on the way (a structure main does not vouch for, a
    /// branch locked, a file).
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<git2::Error> for RemoteError {
    fn from(error: git2::Error) -> RemoteError {
        RemoteError::Store(error.into())
    }
}

impl From<masterctl_git::Error> for RemoteError {
    fn from(error: masterctl_git::Error) -> RemoteError {
        RemoteError::Store(error.into())
    }
}
