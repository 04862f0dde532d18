//! `masterctl status`: every region's branch, upstream, last import point, how many
//! upstream commits it has not taken yet, and any rebase in progress.

use masterctl_store::rebase::recorded_import_point;
use masterctl_store::rebase::state;
use masterctl_store::refs;
use masterctl_store::{Region, short_id};
use serde_json::json;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
}

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
        let in_progress = state::load_state(&repo, &region)
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
    let short = |v: &serde_json::Value| v.as_str().map(|s| short_id(s).to_string());
    for region in &regions {
        let branch = region["branch"].as_str().unwrap_or_default();
        output.line(format!(
            "{} {}",
            output.bold(region["region"].as_str().unwrap_or_default()),
            match short(&region["head"]) {
                Some(head) => format!("{branch} at {head}"),
                None => format!("{branch} (no commit yet)"),
            }
        ));
        if let Some(upstream) = region["upstream"].as_str() {
            let behind = region["upstream_commits_not_taken"].as_u64().unwrap_or(0);
            let upstream_at = short(&region["upstream_head"])
                .map_or_else(|| "no commit yet".to_string(), |h| format!("at {h}"));
            let point = short(&region["import_point"]).map_or_else(
                || "no import point yet".to_string(),
                |p| format!("import point {p}"),
            );
            output.line(format!(
                "    follows {upstream} ({upstream_at}); {point}; {behind} upstream commit{} not taken",
                if behind == 1 { "" } else { "s" }
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
