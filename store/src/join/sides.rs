//! Which keyed three-way merge: the branch that moves ("ours"), the branch it takes from
//! ("theirs"), and where their common point is read from. A region's rebase onto its
//! upstream, a work branch's rebase onto its region and a work branch reflected into its
//! region are the one merge with three sets of rules.

use git2::{Commit, Oid, Repository};
use masterctl_schemas::Project;

use super::JoinError;
use crate::names::{Branch, Region, RemoteName, WorkBranch, short_id};
use crate::snapshot::commit::{
    MERGE_BASE_TRAILER, MERGED_TRAILER, MERGED_WORK_TRAILER, PULLED_TRAILER,
};
use crate::snapshot::commit::{UPSTREAM_BASE_TRAILER, UPSTREAM_TRAILER, WORK_TOOK_TRAILER};

/// A three-way merge between two branches of one region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Join {
    /// `rebase --region R`: the region takes what its upstream changed since the import
    /// point its history records; what it `owns` it keeps.
    Rebase(Region),
    /// `rebase --region R --branch NAME`: the work branch takes what its region changed
    /// since it last took it. The work branch owns nothing.
    Refresh(WorkBranch),
    /// `merge --region R --branch NAME`: the region takes what the work branch changed
    /// since the branch last took the region (the planners' own edits: all of them).
    Reflect(WorkBranch),
    /// `pull`: a branch both this clone and the remote moved takes what the remote's
    /// side changed since their common commit (two planners' imports: both kept).
    Pull { line: Branch, remote: RemoteName },
}

/// The branch a join takes from.
pub struct Source {
    pub reference: String,
    /// The branch (`masters/jp`, `work/jp/alice`).
    pub branch: String,
    /// As a commit message and a step name it: a region by its name, a work branch by
    /// its branch.
    pub name: String,
}

impl Join {
    /// The branch that moves.
    pub fn target(&self) -> Branch {
        match self {
            Join::Rebase(region) => Branch::from(region.clone()),
            Join::Refresh(work) => Branch::from(work.clone()),
            Join::Reflect(work) => Branch::from(work.region().clone()),
            Join::Pull { line, .. } => line.clone(),
        }
    }

    /// The branches a join reads, to be brought up to date with a remote before it
    /// starts: the one that moves, then the one it takes from (a region without an
    /// upstream has none to take from; a pull's source is the remote itself).
    pub fn lines(&self, project: &Project) -> Vec<Branch> {
        let source = match self {
            Join::Rebase(region) => region
                .upstream(project)
                .and_then(Result::ok)
                .map(Branch::from),
            Join::Refresh(work) => Some(Branch::from(work.region().clone())),
            Join::Reflect(work) => Some(Branch::from(work.clone())),
            Join::Pull { .. } => None,
        };
        std::iter::once(self.target()).chain(source).collect()
    }

    /// The region the join happens in.
    pub fn region(&self) -> &Region {
        match self {
            Join::Rebase(region) => region,
            Join::Refresh(work) | Join::Reflect(work) => work.region(),
            Join::Pull { line, .. } => line.region(),
        }
    }

    /// `rebase` or `merge`: the command, and what a stopped state records.
    pub fn kind(&self) -> &'static str {
        match self {
            Join::Rebase(_) | Join::Refresh(_) => "rebase",
            Join::Reflect(_) => "merge",
            Join::Pull { .. } => "pull",
        }
    }

    /// The branch taken from: the upstream region, the region, or the work branch.
    pub fn source(&self, project: &Project) -> Result<Source, JoinError> {
        let of_region = |region: &Region| Source {
            reference: region.reference(),
            branch: region.branch().to_string(),
            name: region.name().to_string(),
        };
        Ok(match self {
            Join::Rebase(region) => of_region(
                &region
                    .upstream(project)
                    .ok_or_else(|| JoinError::NoUpstream(region.name().to_string()))??,
            ),
            Join::Refresh(work) => of_region(work.region()),
            Join::Reflect(work) => Source {
                reference: work.reference(),
                branch: work.branch(),
                name: work.branch(),
            },
            Join::Pull { line, remote } => Source {
                reference: remote.tracking(line.branch()),
                branch: format!("{remote}/{}", line.branch()),
                name: format!("{remote}/{}", line.branch()),
            },
        })
    }

    /// What the target keeps of its own where the source changed a cell too: a region
    /// its `owns`; a work branch nothing; a region taking its work branch nothing (the
    /// work branch holds the region's own planners' edits — what the region owns stays
    /// its own against its upstream, and a reflect leaves the recorded import point as
    /// it was).
    pub fn owns(&self, project: &Project) -> Vec<String> {
        match self {
            Join::Rebase(region) => project
                .config
                .regions
                .get(region.name())
                .map(|r| r.owns.clone())
                .unwrap_or_default(),
            Join::Refresh(_) | Join::Reflect(_) | Join::Pull { .. } => Vec::new(),
        }
    }

    /// The common point: for a region's rebase, the import point its first-parent
    /// history records (or, before any, where the branches meet); for a work branch and
    /// its region, where they meet (what the branch last took). A point the source's
    /// history no longer holds (rewritten) is an error, not a guess.
    pub fn base(
        &self,
        git: &Repository,
        source: &Source,
        ours: &Commit<'_>,
        theirs: &Commit<'_>,
    ) -> Result<Oid, JoinError> {
        let met = || {
            git.merge_base(ours.id(), theirs.id())
                .map_err(|_| JoinError::NoImportPoint {
                    branch: self.target().branch().to_string(),
                    upstream: source.branch.clone(),
                })
        };
        let base = match self {
            Join::Rebase(_) => match super::recorded_import_point(git, ours) {
                Some(point) => point,
                None => met()?,
            },
            Join::Refresh(_) | Join::Reflect(_) | Join::Pull { .. } => met()?,
        };
        // A work branch whose region no longer holds what the branch last took: the
        // region was rewritten, and the branch's base would be a guess.
        if let Join::Refresh(work) | Join::Reflect(work) = self {
            let (branch_head, region_head) = match self {
                Join::Refresh(_) => (ours.id(), theirs.id()),
                _ => (theirs.id(), ours.id()),
            };
            if let Err(took) = crate::branches::check_region_kept(git, branch_head, region_head) {
                return Err(JoinError::UpstreamRewritten {
                    point: took.to_string(),
                    branch: work.branch(),
                    upstream: work.region().branch().to_string(),
                });
            }
        }
        if base != theirs.id() && !git.graph_descendant_of(theirs.id(), base).unwrap_or(false) {
            return Err(JoinError::UpstreamRewritten {
                point: base.to_string(),
                branch: self.target().branch().to_string(),
                upstream: source.branch.clone(),
            });
        }
        Ok(base)
    }

    /// The first line of the commit message.
    pub fn subject(&self, source: &str, theirs: Oid, first: bool) -> String {
        let theirs = theirs.to_string();
        let short = short_id(&theirs);
        match self {
            Join::Rebase(region) if first => format!("Start {region} from {source} {short}"),
            Join::Rebase(region) => format!("Rebase {region} onto {source} {short}"),
            Join::Refresh(work) => format!("Rebase {} onto {source} {short}", work.branch()),
            Join::Reflect(work) => format!(
                "Merge {} {short} into {}",
                work.branch(),
                work.region().branch()
            ),
            Join::Pull { line, .. } => format!("Pull {source} {short} into {}", line.branch()),
        }
    }

    /// Whether a target with nothing of its own since the common point moves to the
    /// other's head without a commit: a work branch taking its region, a pull. A
    /// region's rebase commits (it records the import point); a merge commits (it
    /// records the work branch).
    pub fn fast_forwards(&self) -> bool {
        matches!(self, Join::Refresh(_) | Join::Pull { .. })
    }

    /// The trailers that record the join: a rebase names the commit it took and its
    /// base (the import point a later rebase starts from); a merge names the work
    /// branch, its head and the base.
    pub fn trailers(&self, theirs: Oid, base: Oid) -> String {
        match self {
            Join::Rebase(_) => {
                format!("{UPSTREAM_TRAILER}: {theirs}\n{UPSTREAM_BASE_TRAILER}: {base}\n")
            }
            Join::Refresh(_) => format!(
                "{UPSTREAM_TRAILER}: {theirs}\n{UPSTREAM_BASE_TRAILER}: {base}\n{WORK_TOOK_TRAILER}: {theirs}\n"
            ),
            Join::Reflect(work) => format!(
                "{MERGED_WORK_TRAILER}: {}\n{MERGED_TRAILER}: {theirs}\n{MERGE_BASE_TRAILER}: {base}\n",
                work.branch()
            ),
            Join::Pull { line, remote } => format!(
                "{PULLED_TRAILER}: {remote}/{}\n{MERGED_TRAILER}: {theirs}\n{MERGE_BASE_TRAILER}: {base}\n",
                line.branch()
            ),
        }
    }
}
