//! Merge proposals travel with their work branches. A fetch keeps what the remote holds
//! under `refs/masterctl/proposals/` beside this clone's own
//! (`refs/masterctl/remote-proposals/<remote>/…`); a proposal this clone left as it last
//! saw the remote's takes the remote's change — made, replaced, withdrawn, answered by
//! a merge elsewhere — and one this clone changed since keeps its own. A push then sends
//! each proposal of its scope that differs from the remote's: made or replaced, or
//! removed there when withdrawn or answered here. Only proposals of the regions pulled
//! or pushed, named as a work branch of one of them, are taken.

use std::collections::{BTreeSet, HashMap};

use git2::Oid;

use crate::MasterRepo;
use crate::names::{Region, RemoteName, WorkBranch};
use crate::remote::RemoteError;

/// Where proposals are kept.
pub(super) const PROPOSALS: &str = "refs/masterctl/proposals/";

/// Where a fetch keeps the remote's proposals.
pub(super) fn tracking(remote: &RemoteName) -> String {
    format!("refs/masterctl/remote-proposals/{remote}/")
}

/// The proposals under `prefix`, by `<region>/<name>`.
pub(super) fn seen(repo: &MasterRepo, prefix: &str) -> Result<HashMap<String, Oid>, RemoteError> {
    let mut out = HashMap::new();
    for reference in repo.git.references_glob(&format!("{prefix}*"))? {
        let reference = reference?;
        if let (Ok(name), Some(id)) = (reference.name(), reference.target())
            && let Some(rest) = name.strip_prefix(prefix)
        {
            out.insert(rest.to_string(), id);
        }
    }
    Ok(out)
}

/// The work branch `<region>/<name>` names, when it is one of `regions`'.
fn work_of(regions: &[Region], name: &str) -> Option<WorkBranch> {
    let (region, work) = name.split_once('/')?;
    let region = regions.iter().find(|r| r.name() == region)?;
    WorkBranch::of(region, work).ok()
}

/// After a fetch: each proposal of `regions` this clone left as it last saw the
/// remote's (`before`) takes what the remote holds now.
pub(super) fn take(
    repo: &MasterRepo,
    remote: &RemoteName,
    regions: &[Region],
    before: &HashMap<String, Oid>,
) -> Result<(), RemoteError> {
    let git = &repo.git;
    let after = seen(repo, &tracking(remote))?;
    let ours = seen(repo, PROPOSALS)?;
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for name in names {
        let Some(work) = work_of(regions, name) else {
            continue;
        };
        let (base, theirs, mine) = (before.get(name), after.get(name), ours.get(name));
        if mine != base || theirs == base {
            continue;
        }
        let reference = work.proposal_reference();
        match theirs {
            // Only a tag (what `propose` writes) is taken as a proposal.
            Some(id) if git.find_tag(*id).is_ok() => {
                git.reference(&reference, *id, true, "masterctl pull: proposal")?;
            }
            Some(_) => {}
            None => {
                if let Ok(mut found) = git.find_reference(&reference) {
                    found.delete()?;
                }
            }
        }
    }
    Ok(())
}

/// One proposal a push sends: made or replaced (`to`), or removed (`None`), where the
/// remote holds `from`.
pub(super) struct Change {
    pub name: String,
    pub from: Option<Oid>,
    pub to: Option<Oid>,
}

impl Change {
    /// `work/jp/alice proposed`, or `… withdrawn`.
    pub fn said(&self) -> String {
        let branch = format!("work/{}", self.name);
        match self.to {
            Some(_) => format!("{branch}: proposal sent"),
            None => format!("{branch}: proposal removed"),
        }
    }

    pub fn reference(&self) -> String {
        format!("{PROPOSALS}{}", self.name)
    }
}

/// The proposals of `regions` (of `only`'s work branch alone, when given) that differ
/// here from the remote's, as last fetched.
pub(super) fn changed(
    repo: &MasterRepo,
    remote: &RemoteName,
    regions: &[Region],
    only: Option<&WorkBranch>,
) -> Result<Vec<Change>, RemoteError> {
    let theirs = seen(repo, &tracking(remote))?;
    let ours = seen(repo, PROPOSALS)?;
    let names: BTreeSet<&String> = theirs.keys().chain(ours.keys()).collect();
    let mut out = Vec::new();
    for name in names {
        let Some(work) = work_of(regions, name) else {
            continue;
        };
        if only.is_some_and(|o| *o != work) {
            continue;
        }
        let (from, to) = (theirs.get(name).copied(), ours.get(name).copied());
        if from != to {
            out.push(Change {
                name: name.clone(),
                from,
                to,
            });
        }
    }
    Ok(out)
}

/// Record what the remote holds of the proposals sent.
pub(super) fn sent(
    repo: &MasterRepo,
    remote: &RemoteName,
    changes: &[Change],
) -> Result<(), RemoteError> {
    let prefix = tracking(remote);
    for change in changes {
        let reference = format!("{prefix}{}", change.name);
        match change.to {
            Some(id) => {
                repo.git
                    .reference(&reference, id, true, "masterctl push: proposal")?;
            }
            None => {
                if let Ok(mut found) = repo.git.find_reference(&reference) {
                    found.delete()?;
                }
            }
        }
    }
    Ok(())
}
