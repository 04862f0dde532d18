//! What both faces take from the project and the clone: the remote a branch's standing
//! is shown against, and the store the project publishes to.

use masterctl_delivery::{DeliveryError, Remote, RemoteOptions};
use masterctl_store::names::{Branch, Region, RemoteName};
use masterctl_store::remote::{self, RemoteError};
use masterctl_store::{MasterRepo, StoreError, Structure};

/// The remote pulls, pushes and status use when none is named.
pub const DEFAULT_REMOTE: &str = "origin";

/// The remote a branch's standing is shown against: the one `named` (refused when the
/// repository has none of that name), else [`DEFAULT_REMOTE`] when there is one.
pub fn shown_remote(
    repo: &MasterRepo,
    named: Option<&str>,
) -> Result<Option<RemoteName>, RemoteError> {
    match named {
        Some(name) => remote::remote_of(repo, name).map(Some),
        None => Ok(remote::remote_of(repo, DEFAULT_REMOTE).ok()),
    }
}

/// The store the project publishes to (`[publish] store` in masterctl.toml), with its
/// endpoint unless `endpoint` is given; `None` when the project names none.
pub fn project_store(
    structure: &Structure,
    endpoint: Option<String>,
) -> Result<Option<Remote>, DeliveryError> {
    let Some(publish) = &structure.project.config.publish else {
        return Ok(None);
    };
    let options = RemoteOptions {
        endpoint: endpoint.or_else(|| publish.endpoint.clone()),
        ..RemoteOptions::default()
    };
    Remote::open(&publish.store, &options).map(Some)
}

/// The branch `region` names in the structure, or its work branch `work`.
pub fn branch(
    structure: &Structure,
    region: &str,
    work: Option<&str>,
) -> Result<Branch, StoreError> {
    Ok(Branch::of(&Region::of(&structure.project, region)?, work)?)
}
