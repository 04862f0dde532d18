//! `masterctl status`: every region's branch, upstream, last import point, how many
//! upstream commits it has not taken yet, and any rebase in progress.

use masterctl_store::rebase::recorded_import_point;
use masterctl_store::refs;
use masterctl_store::resolve;
use masterctl_store::{Region, short_id};
use serde_json::json;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let git = &repo.git;
    let mut regions = Vec::new();
    for region in Region::all(&structure.project) {
        let head = repo.head_of(&region.reference()).map_err(store_failure)?;
        let import_point = head.as_ref().and_then(recorded_import_point);
        let upstream = region
            .upstream(&structure.project)
            .transpose()
            .map_err(store_failure)?;
        let upstream_head = match &upstream {
            Some(upstream) => repo
                .head_of(&upstream.reference())
                .map_err(store_failure)?
                .map(|c| c.id()),
            None => None,
        };
        // Upstream commits after the import point (all of them before the first rebase).
        let behind = match upstream_head {
            Some(upstream_head) => {
                let mut walk = git.revwalk().map_err(|e| store_failure(e.into()))?;
                walk.push(upstream_head)
                    .map_err(|e| store_failure(e.into()))?;
                if let Some(point) = import_point {
                    let _ = walk.hide(point);
                }
                Some(walk.count())
            }
            None => None,
        };
        let in_progress = resolve::load_state(&repo, &region)
            .map_err(store_failure)?
            .is_some();
        let lock = refs::lock_of(&repo, &region.reference());
        regions.push(json!({
            "lock": lock.as_ref().map(|l| json!({
                "path": l.path.display().to_string(),
                "age_seconds": l.age.as_secs(),
                "stale": l.is_stale(),
            })),
            "region": region.name(),
            "branch": region.branch(),
            "head": head.as_ref().map(|c| c.id().to_string()),
            "upstream": upstream.as_ref().map(Region::name),
            "upstream_head": upstream_head.map(|id| id.to_string()),
            "import_point": import_point.map(|id| id.to_string()),
            "upstream_commits_not_taken": behind,
            "rebase_in_progress": in_progress,
        }));
    }
    if output.is_json() {
        output.json(&json!({ "ok": true, "regions": regions }));
        return Ok(());
    }
    let short = |v: &serde_json::Value| {
        v.as_str()
            .map_or_else(|| "none".to_string(), |s| short_id(s).to_string())
    };
    for region in &regions {
        output.line(format!(
            "{} {} at {}",
            output.bold(region["region"].as_str().unwrap_or_default()),
            region["branch"].as_str().unwrap_or_default(),
            short(&region["head"])
        ));
        if let Some(upstream) = region["upstream"].as_str() {
            output.line(format!(
                "    follows {upstream} (at {}); import point {}; {} upstream commit(s) not taken",
                short(&region["upstream_head"]),
                short(&region["import_point"]),
                region["upstream_commits_not_taken"].as_u64().unwrap_or(0)
            ));
        }
        if let Some(lock) = region["lock"].as_object() {
            let stale = lock["stale"] == true;
            output.line(format!(
                "    locked by {} ({} s old){}",
                lock["path"].as_str().unwrap_or_default(),
                lock["age_seconds"].as_u64().unwrap_or(0),
                if stale {
                    format!(
                        ": left by a process that is gone; `masterctl unlock --region {}` removes it",
                        region["region"].as_str().unwrap_or_default()
                    )
                } else {
                    ": a process is writing the branch now".to_string()
                }
            ));
        }
        if region["rebase_in_progress"] == true {
            output.line(format!(
                "    a rebase is in progress: resolve, then `masterctl rebase --region {} --continue`, or --abort",
                region["region"].as_str().unwrap_or_default()
            ));
        }
    }
    Ok(())
}
