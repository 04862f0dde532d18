//! The one-step flow a planner wants after committing on a branch: push it; when
//! another clone pushed first (the push is refused, or the remote moved since the
//! fetch), pull — the keyed merge keeps both imports — and push again, a bounded number
//! of times.

use serde::Serialize;

use super::{Pulled, PushState, Pushed, Scope, pull, push};
use crate::MasterRepo;
use crate::names::{Branch, RemoteName};
use crate::remote::RemoteError;
use crate::snapshot::structure::Structure;

/// How often `push_through` pushes before it gives up on a remote that keeps moving.
pub const ATTEMPTS: usize = 5;

/// What sending a branch came to.
#[derive(Debug, Serialize)]
pub struct Sent {
    /// The pulls made on the way (each after a refused push).
    pub pulls: Vec<Pulled>,
    /// The last push's word on the branch (`None`: the branch is not here).
    pub push: Option<Pushed>,
    /// Versions sent.
    pub tags: Vec<String>,
    /// Merge proposals sent or removed there.
    pub proposals: Vec<String>,
    /// How many pushes were made.
    pub attempts: usize,
}

impl Sent {
    /// Whether the branch is on the remote as it is here.
    pub fn landed(&self) -> bool {
        self.push.as_ref().is_none_or(|p| p.state.landed())
    }

    /// A pull on the way that stopped (conflicts, invalid data, a rebase in progress).
    pub fn stopped(&self) -> Option<&Pulled> {
        self.pulls.iter().find(|p| p.stopped())
    }
}

/// Push `line` to `remote`, pulling and pushing again while the remote moved, at most
/// `attempts` pushes. A pull that stops on a conflict ends it (the branch then waits
/// for its resolution, as after `pull`).
pub fn push_through(
    repo: &MasterRepo,
    structure: &Structure,
    remote: &RemoteName,
    line: &Branch,
    attempts: usize,
) -> Result<Sent, RemoteError> {
    let scope = Scope::Branch(line.clone());
    let mut sent = Sent {
        pulls: Vec::new(),
        push: None,
        tags: Vec::new(),
        proposals: Vec::new(),
        attempts: 0,
    };
    while sent.attempts < attempts.max(1) {
        sent.attempts += 1;
        let outcome = push(repo, structure, remote, &scope)?;
        sent.tags.extend(outcome.tags);
        sent.proposals.extend(outcome.proposals);
        let Some(pushed) = outcome.branches.into_iter().next() else {
            return Ok(sent);
        };
        let retry = matches!(
            pushed.state,
            PushState::PullFirst { .. } | PushState::Rejected { .. }
        );
        sent.push = Some(pushed);
        if !retry || sent.attempts >= attempts {
            return Ok(sent);
        }
        sent.pulls.extend(pull(repo, structure, remote, &scope)?);
        if sent.stopped().is_some() {
            return Ok(sent);
        }
    }
    Ok(sent)
}
