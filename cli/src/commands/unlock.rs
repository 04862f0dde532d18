//! `masterctl unlock --region R`: remove the lock a process killed while moving the
//! region's branch left behind. A branch update holds its lock for milliseconds, so a
//! lock older than a few seconds belongs to no running process; a younger one is left
//! alone.

use masterctl_store::git::refs::{self, STALE_LOCK};
use serde::Serialize;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region whose branch is locked (`masterctl status` shows locks)
    #[arg(long, value_name = "R")]
    region: String,
    /// A work branch of the region (work/R/NAME) instead of the region's own branch
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let region = super::line(&structure, &args.region, args.branch.as_deref())?;
    let removed = refs::unlock(&repo, &region).map_err(|e| {
        store_failure(e).hint(format!(
            "a lock younger than {} s may belong to a process writing now: wait, then run again",
            STALE_LOCK.as_secs()
        ))
    })?;
    output.render(&Unlocked {
        region: region.name(),
        branch: region.branch(),
        removed: removed.map(|lock| Removed {
            path: lock.path.display().to_string(),
            age_seconds: lock.age.as_secs(),
        }),
    });
    Ok(())
}

/// What unlock removed, if anything.
#[derive(Serialize)]
struct Unlocked<'a> {
    region: &'a str,
    branch: &'a str,
    /// `null` when the branch had no lock.
    removed: Option<Removed>,
}

/// A lock removed: where it was, and how long ago its process left it.
#[derive(Serialize)]
struct Removed {
    path: String,
    age_seconds: u64,
}

impl Render for Unlocked<'_> {
    fn text(&self, output: &Output) {
        match &self.removed {
            Some(Removed { path, age_seconds }) => output.line(format!(
                "removed {path} (left {age_seconds} s ago); {} can be written again",
                self.branch
            )),
            None => output.line(format!("{} has no lock", self.branch)),
        }
    }
}
