//! Where every region stands: its branch head, the upstream it follows and how far
//! behind it is since the last import point, a rebase in progress, a lock on the branch.

use serde::Serialize;

use crate::StoreError;
use crate::git::refs;
use crate::git::repo::{MasterRepo, Structure};
use crate::names::Region;
use crate::rebase::{recorded_import_point, state};

/// One region, as `masterctl status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegionStatus {
    pub region: String,
    pub branch: String,
    /// The branch's commit; `None` before its first import or rebase.
    pub head: Option<String>,
    pub upstream: Option<String>,
    pub upstream_head: Option<String>,
    /// The upstream commit the region last took (`None` before its first rebase).
    pub import_point: Option<String>,
    /// Upstream commits after the import point (all of them before the first rebase);
    /// `None` for a region without an upstream, or whose upstream has no commit.
    pub upstream_commits_not_taken: Option<usize>,
    pub rebase_in_progress: bool,
    pub lock: Option<LockStatus>,
}

/// A lock on a region's branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LockStatus {
    pub path: String,
    pub age_seconds: u64,
    /// Old enough that no process at work holds it (`masterctl unlock` removes it).
    pub stale: bool,
}

/// Every region of the project, in the order of `masterctl.toml`.
pub fn status(repo: &MasterRepo, structure: &Structure) -> Result<Vec<RegionStatus>, StoreError> {
    Region::all(&structure.project)
        .iter()
        .map(|region| region_status(repo, structure, region))
        .collect()
}

fn region_status(
    repo: &MasterRepo,
    structure: &Structure,
    region: &Region,
) -> Result<RegionStatus, StoreError> {
    let head = repo.head_of(&region.reference())?;
    let import_point = head.as_ref().and_then(recorded_import_point);
    let upstream = region.upstream(&structure.project).transpose()?;
    let upstream_head = match &upstream {
        Some(upstream) => repo.head_of(&upstream.reference())?.map(|c| c.id()),
        None => None,
    };
    let behind = match upstream_head {
        Some(upstream_head) => {
            let mut walk = repo.git.revwalk()?;
            walk.push(upstream_head)?;
            if let Some(point) = import_point {
                // A point no longer in upstream's history hides nothing (status still
                // counts; rebase says what happened).
                let _ = walk.hide(point);
            }
            Some(walk.count())
        }
        None => None,
    };
    let lock = refs::lock_of(repo, &region.reference()).map(|lock| LockStatus {
        path: lock.path.display().to_string(),
        age_seconds: lock.age.as_secs(),
        stale: lock.is_stale(),
    });
    Ok(RegionStatus {
        region: region.name().to_string(),
        branch: region.branch().to_string(),
        head: head.as_ref().map(|c| c.id().to_string()),
        upstream: upstream.as_ref().map(|u| u.name().to_string()),
        upstream_head: upstream_head.map(|id| id.to_string()),
        import_point: import_point.map(|id| id.to_string()),
        upstream_commits_not_taken: behind,
        rebase_in_progress: state::load_state(repo, region)?.is_some(),
        lock,
    })
}
