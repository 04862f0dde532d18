//! Work branches: `work/<region>/<name>`, made from a region's head (or an earlier
//! commit of it), listed with how far each is from its region, deleted only when the
//! region holds everything on them.

use git2::Oid;
use serde::Serialize;

use crate::MasterRepo;
use crate::StoreError;
use crate::names::{Region, WorkBranch, display_name};
use masterctl_git::Error as GitError;

/// One work branch, as `branch list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkBranchStatus {
    pub region: String,
    pub name: String,
    /// `work/<region>/<name>`.
    pub branch: String,
    pub head: String,
    /// The author of its last commit, and when (seconds since the epoch).
    pub author: String,
    pub time: i64,
    pub subject: String,
    /// Commits of the region the branch has not taken (`rebase --branch` takes them).
    pub behind: usize,
    /// Commits of the branch the region lacks (`merge --branch` reflects them).
    pub ahead: usize,
}

/// The work branches of `region`, in name order (a reference under `work/<region>/`
/// whose name is not one a planner could give is left out).
pub fn work_branches(repo: &MasterRepo, region: &Region) -> Result<Vec<WorkBranch>, StoreError> {
    let prefix = format!("refs/heads/work/{}/", region.name());
    let mut out = Vec::new();
    for reference in repo.git.references_glob(&format!("{prefix}*"))? {
        let reference = reference?;
        let Some(name) = reference
            .name()
            .ok()
            .and_then(|full| full.strip_prefix(&prefix))
        else {
            continue;
        };
        if let Ok(work) = WorkBranch::of(region, name) {
            out.push(work);
        }
    }
    out.sort_by(|a, b| a.name().cmp(b.name()));
    Ok(out)
}

/// Make `work` from its region's head, or from `at` (a commit of the region's
/// history). A branch that exists is refused; nothing is ever overwritten.
pub fn create(
    repo: &MasterRepo,
    work: &WorkBranch,
    at: Option<&str>,
) -> Result<WorkBranchStatus, StoreError> {
    let git = &repo.git;
    let region = work.region();
    let head = repo
        .head_of(&region.reference())?
        .ok_or_else(|| GitError::NoBranch(region.name().to_string()))?;
    let start = match at {
        Some(rev) => crate::git::repo::resolve(git, rev)?,
        None => head.clone(),
    };
    if start.id() != head.id() && !git.graph_descendant_of(head.id(), start.id())? {
        return Err(StoreError::NotInHistory {
            revision: display_name(at.unwrap_or_default()),
            branch: region.branch().to_string(),
        });
    }
    if repo.head_of(&work.reference())?.is_some() {
        return Err(StoreError::WorkBranchExists(work.branch()));
    }
    crate::git::refs::move_branch(
        repo,
        &work.reference(),
        None,
        start.id(),
        &format!(
            "masterctl branch create: {} at {}",
            work.branch(),
            start.id()
        ),
    )
    .map_err(|e| match e {
        GitError::Raced { .. } => StoreError::WorkBranchExists(work.branch()),
        e => e.into(),
    })?;
    status_of(repo, work)
}

/// Where `work` stands against its region.
pub fn status_of(repo: &MasterRepo, work: &WorkBranch) -> Result<WorkBranchStatus, StoreError> {
    let head = repo.head_of_branch(&work.clone().into())?;
    let region_head = repo.head_of(&work.region().reference())?.map(|c| c.id());
    let (ahead, behind) = match region_head {
        Some(region_head) => repo.git.graph_ahead_behind(head.id(), region_head)?,
        None => (0, 0),
    };
    let author = head.author();
    Ok(WorkBranchStatus {
        region: work.region().name().to_string(),
        name: work.name().to_string(),
        branch: work.branch(),
        head: head.id().to_string(),
        author: author.name().unwrap_or_default().to_string(),
        time: head.time().seconds(),
        subject: String::from_utf8_lossy(head.summary_bytes().unwrap_or_default()).into_owned(),
        behind,
        ahead,
    })
}

/// Every work branch of `regions`.
pub fn list(repo: &MasterRepo, regions: &[Region]) -> Result<Vec<WorkBranchStatus>, StoreError> {
    let mut out = Vec::new();
    for region in regions {
        for work in work_branches(repo, region)? {
            out.push(status_of(repo, &work)?);
        }
    }
    Ok(out)
}

/// A work branch deleted: where it pointed, and the commits the region had not taken
/// (non-zero only when forced).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Deleted {
    pub branch: String,
    pub head: String,
    pub ahead: usize,
}

/// Delete `work`. One that holds commits its region has not taken is refused unless
/// `force`; one that moved while this ran is never deleted.
pub fn delete(repo: &MasterRepo, work: &WorkBranch, force: bool) -> Result<Deleted, StoreError> {
    let status = status_of(repo, work)?;
    if status.ahead > 0 && !force {
        return Err(StoreError::Unmerged {
            branch: work.branch(),
            ahead: status.ahead,
        });
    }
    let head = Oid::from_str(&status.head)?;
    crate::git::refs::delete_branch(repo, &work.reference(), head)?;
    // Its merge proposal, if any, goes with it.
    crate::git::refs::delete_reference(repo, &work.proposal_reference())?;
    Ok(Deleted {
        branch: status.branch,
        head: status.head,
        ahead: status.ahead,
    })
}

/// For a commit about to be made on `line` on top of `parent`: when the line is a work
/// branch and `parent` is a commit of its region's history (the branch has nothing of
/// its own since it was made or merged), that commit — recorded in the new commit
/// (`Masterctl-Work-Took`), so that a region rewritten since is recognised.
pub(crate) fn took(
    repo: &MasterRepo,
    line: &crate::names::Branch,
    parent: Option<Oid>,
) -> Option<Oid> {
    line.work()?;
    let parent = parent?;
    let region = repo.head_of(&line.region().reference()).ok()??.id();
    (region == parent
        || repo
            .git
            .graph_descendant_of(region, parent)
            .unwrap_or(false))
    .then_some(parent)
}

/// Refuse a work branch whose region no longer holds the region commit the branch last
/// took (the region was rewritten): found on the branch's first-parent history, from its
/// head down to a commit the region holds, as a `Masterctl-Work-Took` trailer.
/// `Err(took)` names it.
pub(crate) fn check_region_kept(
    git: &git2::Repository,
    branch_head: Oid,
    region_head: Oid,
) -> Result<(), Oid> {
    let in_region =
        |id: Oid| id == region_head || git.graph_descendant_of(region_head, id).unwrap_or(false);
    let mut next = git.find_commit(branch_head).ok();
    // A bound all the same: a branch's own commits since it last took its region.
    for _ in 0..100_000 {
        let Some(commit) = next else {
            return Ok(());
        };
        if in_region(commit.id()) {
            return Ok(());
        }
        if let Some(took) = crate::snapshot::commit::trailer_ids(
            &commit,
            crate::snapshot::commit::WORK_TOOK_TRAILER,
        )
        .first()
        {
            return if in_region(*took) { Ok(()) } else { Err(*took) };
        }
        next = commit.parent(0).ok();
    }
    Ok(())
}
