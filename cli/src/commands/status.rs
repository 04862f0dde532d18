//! `masterctl status`: every region's branch, upstream, last import point, how many
//! upstream commits it has not taken yet, and any rebase in progress; then each of its
//! work branches, with the region commits it has not taken.

use masterctl_store::short_id;
use masterctl_store::status::{RegionStatus, status};
use serde::Serialize;

use super::{Failure, open_repo, remote_failure, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, counted};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// Say how each branch stands against this remote, as last pulled or pushed
    /// (default: origin, when the clone has one; status never fetches)
    #[arg(long, value_name = "NAME")]
    remote: Option<String>,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let remote = masterctl_app::project::shown_remote(&repo, args.remote.as_deref())
        .map_err(remote_failure)?;
    let regions = status(&repo, &structure, remote.as_ref()).map_err(store_failure)?;
    output.render(&Status { regions });
    Ok(())
}

/// Every region of the project.
#[derive(Serialize)]
struct Status {
    regions: Vec<RegionStatus>,
}

impl Render for Status {
    fn text(&self, output: &Output) {
        let regions = &self.regions;
        let short = |id: &Option<String>| id.as_deref().map(|s| short_id(s).to_string());
        for region in regions {
            let branch = &region.branch;
            let name = match &region.work {
                Some(work) => format!("  {}/{work}", region.region),
                None => region.region.clone(),
            };
            // The command that names this line, for hints.
            let again = match &region.work {
                Some(work) => format!("--region {} --branch {work}", region.region),
                None => format!("--region {}", region.region),
            };
            output.line(format!(
                "{} {}",
                output.bold(&name),
                match short(&region.head) {
                    Some(head) => format!("{branch} at {head}"),
                    None => format!("{branch} (no commit yet)"),
                }
            ));
            if let (Some(upstream), Some(_)) = (&region.upstream, &region.work) {
                let behind = region.upstream_commits_not_taken.unwrap_or(0);
                output.line(format!(
                    "    work branch of {upstream}; {} not taken",
                    counted(behind, "region commit")
                ));
            } else if let Some(upstream) = &region.upstream {
                let behind = region.upstream_commits_not_taken.unwrap_or(0);
                let upstream_at = short(&region.upstream_head)
                    .map_or_else(|| "no commit yet".to_string(), |h| format!("at {h}"));
                let point = short(&region.import_point).map_or_else(
                    || "no import point yet".to_string(),
                    |p| format!("import point {p}"),
                );
                output.line(format!(
                    "    follows {upstream} ({upstream_at}); {point}; {} not taken",
                    counted(behind, "upstream commit")
                ));
            }
            if let Some(remote) = &region.remote
                && (remote.ahead, remote.behind) != (0, 0)
            {
                output.line(format!(
                    "    against {}: {} ahead, {} behind (as last pulled or pushed)",
                    remote.remote, remote.ahead, remote.behind
                ));
            }
            if let Some(lock) = &region.lock {
                output.line(format!(
                "    locked by {} ({} s old){}",
                lock.path,
                lock.age_seconds,
                if lock.stale {
                    format!(
                        ": left by a process that is gone; `masterctl unlock {again}` removes it"
                    )
                } else {
                    ": a process is writing the branch now".to_string()
                }
            ));
            }
            match region.in_progress.as_deref() {
                Some("merge") => output.line(format!(
                    "    a merge of a work branch is in progress: resolve, then `masterctl merge --region {} --branch NAME --continue`, or --abort",
                    region.region
                )),
                Some(_) => output.line(format!(
                    "    a rebase is in progress: resolve, then `masterctl rebase {again} --continue`, or --abort"
                )),
                None => {}
            }
        }
    }
}
