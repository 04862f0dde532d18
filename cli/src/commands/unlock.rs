//! `masterctl unlock --region R`: remove the lock a process killed while moving the
//! region's branch left behind. A branch update holds its lock for milliseconds, so a
//! lock older than a few seconds belongs to no running process; a younger one is left
//! alone.

use masterctl_store::refs::{self, STALE_LOCK};
use serde_json::json;

use super::{Failure, open_repo, region, store_failure};
use crate::output::{GlobalArgs, Output, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region whose branch is locked (`masterctl status` shows locks)
    #[arg(long, value_name = "R")]
    region: String,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let region = region(&structure, &args.region)?;
    let removed = refs::unlock(&repo, &region).map_err(|e| {
        store_failure(e).hint(format!(
            "a lock younger than {} s may belong to a process writing now: wait, then run again",
            STALE_LOCK.as_secs()
        ))
    })?;
    if output.is_json() {
        output.json(&json!({
            "ok": true,
            "region": region.name(),
            "branch": region.branch(),
            "removed": removed.as_ref().map(|l| l.path.display().to_string()),
            "age_seconds": removed.as_ref().map(|l| l.age.as_secs()),
        }));
    } else {
        match removed {
            Some(lock) => output.line(format!(
                "removed {} (left {} s ago); {} can be written again",
                lock.path.display(),
                lock.age.as_secs(),
                region.branch()
            )),
            None => output.line(format!("{} has no lock", region.branch())),
        }
    }
    Ok(())
}
