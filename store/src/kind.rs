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
            StoreError::UnknownRegion { .. }
            | StoreError::NoBranch { .. }
            | StoreError::NoCommits { .. }
            | StoreError::NotALanguage { .. }
            | StoreError::NotTranslated { .. }
            | StoreError::NoWorkBranch { .. }
            | StoreError::UnknownRevision { .. }
            | StoreError::NoTable { .. }
            | StoreError::NoField { .. }
            | StoreError::NoRow { .. } => NotFound,
            StoreError::InvalidStructure { .. }
            | StoreError::WorkBranchExists { .. }
            | StoreError::Unmerged { .. }
            | StoreError::NothingToPropose { .. }
            | StoreError::TagExists { .. }
            | StoreError::NotInHistory { .. }
            | StoreError::KeyArity { .. }
            | StoreError::ListRow { .. }
            | StoreError::Removes { .. }
            | StoreError::Reverts { .. }
            | StoreError::UnvouchedStructure { .. }
            | StoreError::StructureNotOnMain { .. }
            | StoreError::ConflictFile { .. } => Invalid,
            StoreError::NotAFolder { .. }
            | StoreError::AlreadyExists { .. }
            | StoreError::NotARepository { .. }
            | StoreError::NoStructure
            | StoreError::UncommittedStructure { .. }
            | StoreError::NoCommittedStructure { .. }
            | StoreError::BadPseudoLanguage { .. }
            | StoreError::BadWorkBranch { .. }
            | StoreError::BadVersion { .. }
            | StoreError::BadRemote { .. }
            | StoreError::NoRemote { .. }
            | StoreError::NotMasters { .. }
            | StoreError::NoSources
            | StoreError::NotABuild { .. }
            | StoreError::OutIsLink { .. }
            | StoreError::InsideRepository { .. } => Usage,
            StoreError::Rewritten { .. }
            | StoreError::RebaseInProgress { .. }
            | StoreError::Locked { .. }
            | StoreError::Raced { .. } => Conflict,
            StoreError::Remote { .. }
            | StoreError::Export { .. }
            | StoreError::Build { .. }
            | StoreError::NoAuthor
            | StoreError::BadAuthor { .. }
            | StoreError::CheckedOut { .. }
            | StoreError::LinkInRepository { .. }
            | StoreError::BrokenSnapshot { .. }
            | StoreError::Io { .. }
            | StoreError::StateFile { .. }
            | StoreError::Git { .. } => Environment,
            StoreError::Csv { .. } => Internal,
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
