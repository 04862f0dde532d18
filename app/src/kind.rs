//! The kind of every error an action can return, in one place: the store's and a join's
//! are their crate's own ([`masterctl_store::StoreError::kind`]); delivery's are decided
//! here, beside them, since the delivery crate knows nothing of the store's kinds.

use masterctl_delivery::DeliveryError;
use masterctl_store::import::ImportError;
use masterctl_store::init::InitError;
use masterctl_store::join::JoinError;
use masterctl_store::remote::RemoteError;
use masterctl_store::revert::RevertError;
use masterctl_store::{ErrorKind, StoreError};

/// An error that says what kind of failure it is.
pub trait Kinded: std::error::Error {
    fn kind(&self) -> ErrorKind;
}

impl Kinded for StoreError {
    fn kind(&self) -> ErrorKind {
        StoreError::kind(self)
    }
}

impl Kinded for InitError {
    fn kind(&self) -> ErrorKind {
        InitError::kind(self)
    }
}

impl Kinded for ImportError {
    fn kind(&self) -> ErrorKind {
        ImportError::kind(self)
    }
}

impl Kinded for RevertError {
    fn kind(&self) -> ErrorKind {
        RevertError::kind(self)
    }
}

impl Kinded for RemoteError {
    fn kind(&self) -> ErrorKind {
        RemoteError::kind(self)
    }
}

impl Kinded for JoinError {
    fn kind(&self) -> ErrorKind {
        JoinError::kind(self)
    }
}

impl Kinded for DeliveryError {
    /// A release or object the user named that is not there is not found; data on the
    /// store that is not what it must be (damaged, foreign, a release published from
    /// another build, a pointer another publisher moved under this one's release) and a
    /// local build that is not whole are rejected; a request that cannot be made (a URL,
    /// a name, a folder, moving backwards without `--force`) is a usage error; a gc at
    /// work is a conflict; the rest — the store unreachable, untrusted, refusing,
    /// failing, a file — is the environment.
    fn kind(&self) -> ErrorKind {
        use ErrorKind::*;
        match self {
            DeliveryError::Missing { .. }
            | DeliveryError::NoRelease { .. }
            | DeliveryError::Ambiguous { .. }
            | DeliveryError::UnknownLanguage { .. } => NotFound,
            DeliveryError::Corrupt { .. }
            | DeliveryError::TooLarge { .. }
            | DeliveryError::Foreign { .. }
            | DeliveryError::Build { .. }
            | DeliveryError::Unloadable(_)
            | DeliveryError::Raced { .. }
            | DeliveryError::Different { .. }
            | DeliveryError::Unsigned { .. }
            | DeliveryError::BadSignature { .. }
            | DeliveryError::Replayed { .. } => Invalid,
            DeliveryError::Url { .. }
            | DeliveryError::BadName(_)
            | DeliveryError::NotABuild(_)
            | DeliveryError::OutIsLink(_)
            | DeliveryError::Backwards { .. }
            | DeliveryError::ReadOnly { .. }
            | DeliveryError::Key(_) => Usage,
            DeliveryError::Busy { .. } => Conflict,
            DeliveryError::Unreachable { .. }
            | DeliveryError::Untrusted { .. }
            | DeliveryError::Refused { .. }
            | DeliveryError::NoBucket { .. }
            | DeliveryError::Failed { .. }
            | DeliveryError::Io { .. } => Environment,
        }
    }
}
