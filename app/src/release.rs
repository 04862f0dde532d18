//! A region's head released from the console in one step: built for servers and
//! clients (the client export included) into a folder of the repository's own, then
//! published to the project's store as `masterctl build --client` and
//! `masterctl publish` would — the versions naming the commit, who publishes and their
//! words recorded with the release. The folder goes once the release is published (or
//! refused).

use std::path::PathBuf;

use masterctl_delivery::{DeliveryError, PublishOptions, Published, Remote};
use masterctl_store::build::{Options, build_region, write_build};
use masterctl_store::{Branch, MasterRepo, StoreError};

/// A build of a branch's head, waiting to be published; its folder goes with it.
pub struct Staged {
    pub dir: PathBuf,
    /// The commit built.
    pub commit: String,
    /// The versions naming it (`masters/jp/1.4`).
    pub versions: Vec<String>,
}

impl Drop for Staged {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Build `line`'s head for servers and clients into a folder under the repository's
/// git folder.
pub fn stage(repo: &MasterRepo, line: &Branch) -> Result<Staged, StoreError> {
    let structure = repo.structure()?;
    let commit = repo.head_of_branch(line)?.id().to_string();
    let build = build_region(
        repo,
        line,
        Some(&commit),
        &Options {
            client: true,
            pseudo: &[],
        },
    )?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = (repo.git.path().join("masterctl").join("staging"))
        .join(format!("{}-{nanos}", std::process::id()));
    // From here on the folder is the staged build's, removed with it.
    let mut staged = Staged {
        dir,
        commit,
        versions: Vec::new(),
    };
    write_build(&build, &staged.dir)?;
    staged.versions =
        masterctl_store::tags::versions_of_build(repo, &structure.project, &staged.dir);
    Ok(staged)
}

/// Publish `staged` to `remote` as `by`, with `message`.
pub async fn publish_staged(
    remote: &Remote,
    staged: &Staged,
    by: Option<String>,
    message: Option<String>,
) -> Result<Published, DeliveryError> {
    let options = PublishOptions {
        versions: staged.versions.clone(),
        by,
        message,
        ..PublishOptions::default()
    };
    masterctl_delivery::publish(remote, &staged.dir, &options, &|_, _| {}).await
}
