//! `push`: send each branch this clone moved ahead of the remote, and the versions the
//! remote lacks. Never forced: a branch the remote moved is not sent ("pull first"),
//! and the remote itself refuses one that moved between the fetch and the push.

use std::cell::RefCell;

use serde::Serialize;

use super::{Scope, fetch, lines_of, regions_of, remote_tags, transport};
use crate::MasterRepo;
use crate::StoreError;
use crate::names::{Branch, RemoteName};
use crate::remote::RemoteError;
use crate::snapshot::structure::Structure;
use masterctl_git::Error as GitError;

/// One branch after a push.
#[derive(Debug, Serialize)]
pub struct Pushed {
    pub region: String,
    pub work: Option<String>,
    pub branch: String,
    #[serde(flatten)]
    pub state: PushState,
}

/// What a push did with one branch; `state` names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum PushState {
    /// The remote holds this commit already.
    UpToDate,
    /// Sent: the remote's branch moved from `from` (`None`: it had none) to `to`.
    Pushed { from: Option<String>, to: String },
    /// The remote has commits this clone lacks: nothing sent. `behind`: how many.
    PullFirst { behind: usize, ahead: usize },
    /// The remote refused it (it moved meanwhile, or a hook said no): nothing changed
    /// there. `message` is the remote's.
    Rejected { message: String },
}

impl PushState {
    /// Whether the branch is on the remote as it is here.
    pub fn landed(&self) -> bool {
        matches!(self, PushState::UpToDate | PushState::Pushed { .. })
    }
}

/// What a push did.
#[derive(Debug, Serialize)]
pub struct PushOutcome {
    pub branches: Vec<Pushed>,
    /// Versions sent (`masters/jp/1.4`).
    pub tags: Vec<String>,
    /// Merge proposals sent or removed there (`work/jp/alice: proposal sent`).
    pub proposals: Vec<String>,
}

/// Push `scope`'s branches (those here) and its regions' versions to `remote`.
pub fn push(
    repo: &MasterRepo,
    structure: &Structure,
    remote: &RemoteName,
    scope: &Scope,
) -> Result<PushOutcome, RemoteError> {
    let git = &repo.git;
    let regions = regions_of(&structure.project, scope)?;
    fetch(repo, remote, &regions)?;
    let lines = lines_of(repo, &structure.project, remote, scope)?;
    // Each branch here, what the remote holds of it, and what to do.
    let mut planned: Vec<(Branch, git2::Oid, PushState)> = Vec::new();
    for line in lines {
        let Some(ours) = repo.head_of(&line.reference())?.map(|c| c.id()) else {
            continue;
        };
        let theirs = repo
            .head_of(&remote.tracking(line.branch()))?
            .map(|c| c.id());
        let state = match theirs {
            None => PushState::Pushed {
                from: None,
                to: ours.to_string(),
            },
            Some(theirs) if theirs == ours => PushState::UpToDate,
            Some(theirs) if git.graph_descendant_of(ours, theirs)? => PushState::Pushed {
                from: Some(theirs.to_string()),
                to: ours.to_string(),
            },
            Some(theirs) => {
                let (ahead, behind) = git.graph_ahead_behind(ours, theirs)?;
                PushState::PullFirst { behind, ahead }
            }
        };
        planned.push((line, ours, state));
    }
    let tags = missing_tags(repo, remote, &regions)?;
    let only = match scope {
        Scope::Branch(line) => line.work().cloned(),
        _ => None,
    };
    let proposed = super::proposals::changed(repo, remote, &regions, only.as_ref())?;
    let mut refspecs: Vec<String> = planned
        .iter()
        .filter(|(_, _, state)| matches!(state, PushState::Pushed { .. }))
        .map(|(line, _, _)| format!("{0}:{0}", line.reference()))
        .collect();
    refspecs.extend(
        tags.iter()
            .map(|tag| format!("refs/tags/{tag}:refs/tags/{tag}")),
    );
    // The audit log, when this clone's holds entries the remote's lacks (a pull joined
    // them first: it moves forward, never forced).
    let audit = audit_ahead(repo, remote)?;
    if audit.is_some() {
        let log = crate::audit::AUDIT;
        refspecs.push(format!("{log}:{log}"));
    }
    let refused = send(repo, remote, &refspecs, &proposed)?;
    let mut branches = Vec::new();
    let mut landed = Vec::new();
    for (line, ours, mut state) in planned {
        if let Some(message) = refused
            .iter()
            .find_map(|(r, m)| (*r == line.reference()).then_some(m))
        {
            state = PushState::Rejected {
                message: crate::names::one_line(message),
            };
        } else if matches!(state, PushState::Pushed { .. }) {
            landed.push((remote.tracking(line.branch()), ours));
        }
        branches.push(Pushed {
            region: line.name().to_string(),
            work: line.work().map(|w| w.name().to_string()),
            branch: line.branch().to_string(),
            state,
        });
    }
    // What the remote holds now, as this clone sees it (recorded: a process killed
    // while writing leaves no lock behind).
    let tracking = format!("refs/remotes/{remote}/");
    crate::git::refs::with_refs_update(repo, &[tracking.as_str(), "packed-refs"], || {
        for (reference, id) in &landed {
            git.reference(reference, *id, true, "masterctl push")?;
        }
        Ok::<_, RemoteError>(())
    })?;
    let tags = tags
        .into_iter()
        .filter(|tag| {
            !refused
                .iter()
                .any(|(r, _)| *r == format!("refs/tags/{tag}"))
        })
        .collect();
    let proposed: Vec<super::proposals::Change> = proposed
        .into_iter()
        .filter(|c| !refused.iter().any(|(r, _)| *r == c.reference()))
        .collect();
    let seen = super::proposals::tracking(remote);
    let audit_seen = super::audit_tracking(remote);
    let moved = [seen.as_str(), audit_seen.as_str(), "packed-refs"];
    crate::git::refs::with_refs_update(repo, &moved, || {
        super::proposals::sent(repo, remote, &proposed)?;
        if let Some(id) = audit
            && !refused.iter().any(|(r, _)| r == crate::audit::AUDIT)
        {
            git.reference(&audit_seen, id, true, "masterctl push: audit")?;
        }
        Ok::<_, RemoteError>(())
    })?;
    let proposals = proposed
        .iter()
        .map(super::proposals::Change::said)
        .collect();
    Ok(PushOutcome {
        branches,
        tags,
        proposals,
    })
}

/// This clone's audit log, when it holds entries the remote's (as last fetched) lacks
/// and holds all of the remote's.
fn audit_ahead(repo: &MasterRepo, remote: &RemoteName) -> Result<Option<git2::Oid>, RemoteError> {
    let git = &repo.git;
    let Ok(ours) = git.refname_to_id(crate::audit::AUDIT) else {
        return Ok(None);
    };
    Ok(match git.refname_to_id(&super::audit_tracking(remote)) {
        Ok(theirs) if theirs == ours => None,
        Ok(theirs) if !git.graph_descendant_of(ours, theirs)? => None,
        _ => Some(ours),
    })
}

/// The versions of `regions` here that the remote lacks (a version it holds with
/// another commit is left to it: versions are never moved).
fn missing_tags(
    repo: &MasterRepo,
    remote: &RemoteName,
    regions: &[crate::names::Region],
) -> Result<Vec<String>, RemoteError> {
    let mut out = Vec::new();
    for region in regions {
        for version in crate::tags::list(repo, Some(region))? {
            let theirs = format!("{}{}", remote_tags(remote), version.tag);
            if repo.git.find_reference(&theirs).is_err() {
                out.push(version.tag);
            }
        }
    }
    Ok(out)
}

/// Send `refspecs` (none forced) and the proposals changed here; the references the
/// remote refused, with its words.
fn send(
    repo: &MasterRepo,
    remote: &RemoteName,
    refspecs: &[String],
    proposed: &[super::proposals::Change],
) -> Result<Vec<(String, String)>, RemoteError> {
    if refspecs.is_empty() && proposed.is_empty() {
        return Ok(Vec::new());
    }
    let git = &repo.git;
    let named = git.find_remote(remote.name())?;
    let url = named
        .pushurl()
        .ok()
        .flatten()
        .or_else(|| named.url().ok())
        .unwrap_or_default()
        .to_string();
    if let Some(path) = super::local::local_path(&url) {
        let updates = refspecs
            .iter()
            .filter_map(|spec| spec.split_once(':'))
            .filter_map(|(ours, _)| {
                let id = git.refname_to_id(ours).ok()?;
                Some(super::local::Update {
                    reference: ours.to_string(),
                    id,
                })
            })
            .collect::<Vec<_>>();
        return super::local::push_local(repo, &path, &updates, proposed).map_err(|e| match e {
            RemoteError::Store(StoreError::Git(GitError::Git(e))) => {
                transport::failure(remote, &url, &e)
            }
            e => e,
        });
    }
    // An anonymous remote of the same URL: libgit2 then writes no tracking reference
    // of its own after the push (masterctl writes them, recorded, below).
    let mut handle = git
        .remote_anonymous(&url)
        .map_err(|e| transport::failure(remote, &url, &e))?;
    let refused: RefCell<Vec<(String, String)>> = RefCell::new(Vec::new());
    {
        let mut callbacks = transport::callbacks(git.config()?);
        callbacks.push_update_reference(|reference, status| {
            if let Some(message) = status {
                refused
                    .borrow_mut()
                    .push((reference.to_string(), message.to_string()));
            }
            Ok(())
        });
        let mut options = git2::PushOptions::new();
        options.remote_callbacks(callbacks);
        // A proposal is replaced, not moved forward: the one ref a push forces (it
        // was fetched just before, and only this clone's change of it is sent).
        let mut refspecs = refspecs.to_vec();
        refspecs.extend(proposed.iter().map(|c| match c.to {
            Some(_) => format!("+{0}:{0}", c.reference()),
            None => format!(":{}", c.reference()),
        }));
        handle
            .push(&refspecs, Some(&mut options))
            .map_err(|e| transport::failure(remote, &url, &e))?;
    }
    Ok(refused.into_inner())
}
