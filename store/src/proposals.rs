//! Merge proposals: an editor asks for a work branch to be reflected into its region;
//! a maintainer opens the proposal, reviews the merge and makes it. A proposal is an
//! annotated tag object (the proposer, when, their words, the commit proposed) held by
//! `refs/masterctl/proposals/<region>/<name>` — the repository stays the only state. A
//! merge that takes the proposed commit withdraws the proposal; so does deleting the
//! branch.

use git2::Oid;
use serde::Serialize;

use crate::MasterRepo;
use crate::StoreError;
use crate::names::{Region, WorkBranch, one_line};
use masterctl_git::Error as GitError;

/// Where proposals are kept (`WorkBranch::proposal_reference` names each).
const PREFIX: &str = "refs/masterctl/proposals/";

/// One proposal, as a maintainer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proposal {
    pub region: String,
    pub name: String,
    /// `work/<region>/<name>`.
    pub branch: String,
    /// Who proposed it, and when (seconds since the epoch).
    pub proposer: String,
    pub email: String,
    pub time: i64,
    pub message: String,
    /// The commit proposed.
    pub commit: String,
    /// Whether the branch has moved since (the merge takes its head, not this commit).
    pub moved: bool,
}

/// Propose `work` for merging into its region, as the repository's writer (the
/// signed-in user in the console). A branch with nothing the region lacks is refused;
/// proposing again replaces the earlier proposal (the newer commit, the newer words).
pub fn propose(
    repo: &MasterRepo,
    work: &WorkBranch,
    message: Option<&str>,
) -> Result<Proposal, StoreError> {
    let status = crate::branches::status_of(repo, work)?;
    if status.ahead == 0 {
        return Err(StoreError::NothingToPropose(work.branch()));
    }
    let git = &repo.git;
    let head = git.find_commit(Oid::from_str(&status.head)?)?;
    let proposer = crate::git::refs::author(repo)?;
    let words = match message.map(str::trim).filter(|m| !m.is_empty()) {
        Some(words) => one_line(words),
        None => format!("Merge {} into {}", work.branch(), work.region().branch()),
    };
    let name = work.proposal_reference();
    let tag = git.tag_annotation_create(
        &name[PREFIX.len()..],
        head.as_object(),
        &proposer,
        &format!("{words}\n"),
    )?;
    let expected = git.refname_to_id(&name).ok();
    crate::git::refs::with_ref_update(repo, &name, || {
        Ok::<_, GitError>(match expected {
            Some(old) => git.reference_matching(&name, tag, true, old, "masterctl propose"),
            None => git.reference(&name, tag, false, "masterctl propose"),
        })
    })?
    .map_err(|_| GitError::Raced {
        branch: work.branch(),
    })?;
    proposal_of(repo, work)?.ok_or(
        GitError::Raced {
            branch: work.branch(),
        }
        .into(),
    )
}

/// The proposal for `work`, if there is one.
pub fn proposal_of(repo: &MasterRepo, work: &WorkBranch) -> Result<Option<Proposal>, StoreError> {
    let git = &repo.git;
    let Ok(found) = git.find_reference(&work.proposal_reference()) else {
        return Ok(None);
    };
    let Ok(tag) = found.peel_to_tag() else {
        return Ok(None);
    };
    let commit = tag.target_id();
    let head = repo.head_of(&work.reference())?.map(|c| c.id());
    let tagger = tag.tagger();
    let text = |s: Option<&[u8]>| String::from_utf8_lossy(s.unwrap_or_default()).into_owned();
    Ok(Some(Proposal {
        region: work.region().name().to_string(),
        name: work.name().to_string(),
        branch: work.branch(),
        proposer: text(tagger.as_ref().map(|t| t.name_bytes())),
        email: text(tagger.as_ref().map(|t| t.email_bytes())),
        time: tagger.as_ref().map_or(0, |t| t.when().seconds()),
        message: text(tag.message_bytes()).trim().to_string(),
        commit: commit.to_string(),
        moved: head != Some(commit),
    }))
}

/// Every proposal of `regions`' work branches, oldest first (a proposal whose branch is
/// gone is left out).
pub fn list(repo: &MasterRepo, regions: &[Region]) -> Result<Vec<Proposal>, StoreError> {
    let mut out = Vec::new();
    for region in regions {
        for work in crate::branches::work_branches(repo, region)? {
            out.extend(proposal_of(repo, &work)?);
        }
    }
    out.sort_by(|a, b| (a.time, &a.branch).cmp(&(b.time, &b.branch)));
    Ok(out)
}

/// Withdraw `work`'s proposal; whether there was one.
pub fn withdraw(repo: &MasterRepo, work: &WorkBranch) -> Result<bool, StoreError> {
    Ok(crate::git::refs::delete_reference(
        repo,
        &work.proposal_reference(),
    )?)
}

/// After `work` was merged at `merged`: its proposal is withdrawn when the merge took
/// the commit proposed (a proposal of a later commit stays for the next merge).
pub(crate) fn merged(repo: &MasterRepo, work: &WorkBranch, merged: Oid) -> Result<(), StoreError> {
    let Some(proposal) = proposal_of(repo, work)? else {
        return Ok(());
    };
    let proposed = Oid::from_str(&proposal.commit)?;
    if proposed == merged || repo.git.graph_descendant_of(merged, proposed)? {
        withdraw(repo, work)?;
    }
    Ok(())
}
