//! What kind of failure an error is — the one thing both faces decide by: the command
//! line takes its exit code from it, the console its HTTP status, each in one table
//! (`cli/src/failure.rs`, `console/src/shown.rs`), and a test holds the two to each
//! other for every variant.

use serde::Serialize;

use crate::StoreError;

/// The kind of a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// A thing the user named (a region, table, row, revision, language, branch) is not
    /// there.
    NotFound,
    /// The data, or what the request asks of it, is rejected (nothing written).
    Invalid,
    /// The request is malformed or made where it cannot be (a name of the wrong shape,
    /// a folder that is not what it must be).
    Usage,
    /// Someone else got there first, or holds it (a branch moved, a lock, a join
    /// stopped on the branch, a remote rewritten).
    Conflict,
    /// The user may not do this.
    Forbidden,
    /// What is around the command failed: the repository, a file, git, the network.
    Environment,
    /// A bug of masterctl's.
    Internal,
}

impl StoreError {
    /// What kind of failure this is (every variant named: a new one must be given one).
    pub fn kind(&self) -> ErrorKind {
        use ErrorKind::*;
        match self {
            StoreError::Git(error) => git_kind(error),
            StoreError::NoCommits { .. }
            | StoreError::NotALanguage { .. }
            | StoreError::NotTranslated { .. }
            | StoreError::NoTable { .. }
            | StoreError::NoField { .. }
            | StoreError::NoRow { .. }
            | StoreError::NothingToExport { .. } => NotFound,
            StoreError::InvalidStructure { .. }
            | StoreError::WorkBranchExists { .. }
            | StoreError::Unmerged { .. }
            | StoreError::NothingToPropose { .. }
            | StoreError::TagExists { .. }
            | StoreError::NotInHistory { .. }
            | StoreError::KeyArity { .. }
            | StoreError::ListRow { .. }
            | StoreError::NoKeyToEdit { .. }
            | StoreError::UnvouchedStructure { .. }
            | StoreError::StructureNotOnMain { .. }
            | StoreError::ConflictFile { .. } => Invalid,
            StoreError::NoStructure
            | StoreError::UncommittedStructure { .. }
            | StoreError::NoCommittedStructure { .. }
            | StoreError::BadPseudoLanguage { .. }
            | StoreError::BadVersion { .. }
            | StoreError::NotMasters { .. }
            | StoreError::NotABuild { .. }
            | StoreError::OutIsLink { .. }
            | StoreError::NothingToEdit { .. } => Usage,
            StoreError::RebaseInProgress { .. } => Conflict,
            StoreError::Export { .. }
            | StoreError::Build { .. }
            | StoreError::BrokenSnapshot { .. }
            | StoreError::Io { .. }
            | StoreError::StateFile { .. } => Environment,
            StoreError::Csv { .. } => Internal,
        }
    }
}

/// What kind of failure the git plumbing's error is: a region, branch or revision
/// named that is not there is not found; a name of the wrong shape or a folder that is
/// not a repository is a usage error; a branch locked or moved by another writer is a
/// conflict; the rest — who commits, a checked-out branch, a link in a git folder, a
/// file, git itself — is the environment.
pub fn git_kind(error: &masterctl_git::Error) -> ErrorKind {
    use ErrorKind::*;
    use masterctl_git::Error;
    match error {
        Error::UnknownRegion { .. }
        | Error::NoBranch(_)
        | Error::NoWorkBranch { .. }
        | Error::UnknownRevision(_) => NotFound,
        Error::NotARepository(_) | Error::BadWorkBranch(_) | Error::BadRemote(_) => Usage,
        Error::Locked { .. } | Error::Raced { .. } => Conflict,
        Error::NoAuthor
        | Error::BadAuthor { .. }
        | Error::CheckedOut(_)
        | Error::LinkInRepository { .. }
        | Error::Io { .. }
        | Error::Git(_) => Environment,
    }
}

impl crate::revert::RevertError {
    /// What kind of failure this is: a commit that cannot be taken back (the branch's
    /// first, or one that changed the structure) is rejected; a join's and the store's
    /// own failures keep their kinds.
    pub fn kind(&self) -> ErrorKind {
        use crate::revert::RevertError;
        match self {
            RevertError::FirstCommit { .. } | RevertError::ChangesStructure { .. } => {
                ErrorKind::Invalid
            }
            RevertError::Join(error) => error.kind(),
            RevertError::Store(error) => error.kind(),
        }
    }
}

impl crate::init::InitError {
    /// What kind of failure this is: a folder init cannot write into is a usage error;
    /// the store's own failure keeps its kind.
    pub fn kind(&self) -> ErrorKind {
        use crate::init::InitError;
        match self {
            InitError::NotAFolder(_)
            | InitError::AlreadyExists { .. }
            | InitError::InsideRepository { .. } => ErrorKind::Usage,
            InitError::Store(e) => e.kind(),
        }
    }
}

impl crate::import::ImportError {
    /// What kind of failure this is: a removal or revert the request did not allow is
    /// rejected; paths with nothing to read are a usage error; the store's own failure
    /// keeps its kind.
    pub fn kind(&self) -> ErrorKind {
        use crate::import::ImportError;
        match self {
            ImportError::Removes { .. } | ImportError::Reverts { .. } => ErrorKind::Invalid,
            ImportError::NoSources => ErrorKind::Usage,
            ImportError::Store(e) => e.kind(),
        }
    }
}

impl crate::remote::RemoteError {
    /// What kind of failure this is: a remote the repository does not name is a usage
    /// error; a branch the remote rewrote is a conflict; a remote unreachable or refusing
    /// is the environment; the store's own failure keeps its kind.
    pub fn kind(&self) -> ErrorKind {
        use crate::remote::RemoteError;
        match self {
            RemoteError::NoRemote { .. } => ErrorKind::Usage,
            RemoteError::Rewritten { .. } => ErrorKind::Conflict,
            RemoteError::Transport { .. } => ErrorKind::Environment,
            RemoteError::Store(e) => e.kind(),
        }
    }
}

impl crate::join::JoinError {
    /// What kind of failure this is: a join that cannot start or go on because of the
    /// state it finds (one stopped, none stopped, a branch moved or rewritten) is a
    /// conflict; a resolution that is not a value of its column is rejected data.
    pub fn kind(&self) -> ErrorKind {
        use crate::join::JoinError;
        match self {
            JoinError::Store(e) => e.kind(),
            JoinError::NoUpstream(_) | JoinError::NoConflictMatches { .. } => ErrorKind::Usage,
            JoinError::BadResolution(_) => ErrorKind::Invalid,
            JoinError::NotInProgress { .. }
            | JoinError::InProgress { .. }
            | JoinError::Moved { .. }
            | JoinError::NoUpstreamBranch(_)
            | JoinError::UpstreamRewritten { .. }
            | JoinError::NoImportPoint { .. } => ErrorKind::Conflict,
        }
    }
}
