//! Where every region and work branch stands: its head, the branch it takes from (a
//! region's upstream, a work branch's region) and how far behind that it is since it
//! last took it, a rebase or merge in progress, a lock on the branch.

use serde::Serialize;

use crate::MasterRepo;
use crate::StoreError;
use crate::git::refs;
use crate::join::{recorded_import_point, state};
use crate::names::{Branch, Region, RemoteName};
use crate::snapshot::structure::Structure;

/// One region or work branch, as `masterctl status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegionStatus {
    pub region: String,
    pub branch: String,
    /// The work branch's name (`None` for the region's own branch).
    pub work: Option<String>,
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
    /// What is stopped on the branch: `rebase`, or `merge` (a work branch reflected
    /// into this region).
    pub in_progress: Option<String>,
    pub lock: Option<LockStatus>,
    /// How it stands against the remote, as this clone last fetched it (`None`: no
    /// remote asked about, or one side lacks the branch).
    pub remote: Option<RemoteStatus>,
}

/// A branch against the remote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemoteStatus {
    pub remote: String,
    /// Commits here the remote lacks (push sends them).
    pub ahead: usize,
    /// Commits on the remote this clone has not taken (pull takes them).
    pub behind: usize,
}

/// A lock on a region's branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LockStatus {
    pub path: String,
    pub age_seconds: u64,
    /// Old enough that no process at work holds it (`masterctl unlock` removes it).
    pub stale: bool,
}

/// Every region of the project, in name order, each followed by its work branches;
/// with `remote`, how each stands against it as last fetched (status never fetches).
pub fn status(
    repo: &MasterRepo,
    structure: &Structure,
    remote: Option<&RemoteName>,
) -> Result<Vec<RegionStatus>, StoreError> {
    let mut out = Vec::new();
    for region in Region::all(&structure.project) {
        out.push(line_status(
            repo,
            structure,
            remote,
            &Branch::from(region.clone()),
        )?);
        for work in crate::branches::work_branches(repo, &region)? {
            out.push(line_status(repo, structure, remote, &Branch::from(work))?);
        }
    }
    Ok(out)
}

fn line_status(
    repo: &MasterRepo,
    structure: &Structure,
    remote: Option<&RemoteName>,
    region: &Branch,
) -> Result<RegionStatus, StoreError> {
    let head = repo.head_of(&region.reference())?;
    // What the line takes from: a region's upstream, a work branch's region.
    let upstream = match region.work() {
        None => region
            .region()
            .upstream(&structure.project)
            .transpose()?
            .map(|upstream| (upstream.name().to_string(), upstream.reference())),
        Some(_) => Some((region.name().to_string(), region.region().reference())),
    };
    let upstream_head = match &upstream {
        Some((_, reference)) => repo.head_of(reference)?.map(|c| c.id()),
        None => None,
    };
    let import_point = match (region.work(), &head, upstream_head) {
        (None, head, _) => head
            .as_ref()
            .and_then(|head| recorded_import_point(&repo.git, head)),
        (Some(_), Some(head), Some(upstream_head)) => {
            repo.git.merge_base(head.id(), upstream_head).ok()
        }
        (Some(_), _, _) => None,
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
    let stopped = state::load_state(repo, region)?;
    let remote = match remote {
        Some(remote) => crate::remote::tracking(repo, remote, region)?.map(|t| RemoteStatus {
            remote: remote.to_string(),
            ahead: t.ahead,
            behind: t.behind,
        }),
        None => None,
    };
    Ok(RegionStatus {
        region: region.name().to_string(),
        branch: region.branch().to_string(),
        work: region.work().map(|w| w.name().to_string()),
        head: head.as_ref().map(|c| c.id().to_string()),
        upstream: upstream.map(|(name, _)| name),
        upstream_head: upstream_head.map(|id| id.to_string()),
        import_point: import_point.map(|id| id.to_string()),
        upstream_commits_not_taken: behind,
        rebase_in_progress: stopped.is_some(),
        in_progress: stopped.map(|state| state.kind),
        remote,
        lock,
    })
}
