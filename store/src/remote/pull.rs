//! `pull`: fetch, then bring each branch up to what the remote holds — made where this
//! clone lacks it, fast-forwarded where only the remote moved, joined by the keyed
//! three-way merge where both moved (base: their common commit), so that two planners'
//! imports into one region are both kept. A conflict stops that branch with the
//! conflict file, as a rebase does; a branch the remote rewrote is refused.

use serde::Serialize;

use super::{Scope, fetch, lines_of, regions_of};
use crate::MasterRepo;
use crate::StoreError;
use crate::join::session::{self, Action, Step};
use crate::join::{Join, JoinError};
use crate::names::{Branch, RemoteName};
use crate::remote::RemoteError;
use crate::snapshot::structure::Structure;

/// One branch after a pull.
#[derive(Debug, Serialize)]
pub struct Pulled {
    pub region: String,
    /// The work branch's name (`None`: the region's own branch).
    pub work: Option<String>,
    pub branch: String,
    #[serde(flatten)]
    pub state: PullState,
}

impl Pulled {
    /// Whether the pull left the branch waiting for a resolution: its merge stopped, or
    /// a join was already stopped on it.
    pub fn stopped(&self) -> bool {
        matches!(
            self.state,
            PullState::Stopped { .. } | PullState::InProgress { .. }
        )
    }
}

/// What a pull did to one branch; `state` names it.
#[derive(Debug, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum PullState {
    /// Both sides hold the same commit.
    UpToDate,
    /// The remote has no such branch (push makes it).
    LocalOnly,
    /// This clone has commits the remote lacks, and lacks none of the remote's (push
    /// sends them).
    Ahead { commits: usize },
    /// This clone had no such branch: made at the remote's head.
    Created { head: String },
    /// Only the remote moved: the branch moved to its head.
    FastForward { from: String, to: String },
    /// Both moved: joined by a merge commit (parents: this clone's head, the remote's).
    Merged { commit: String, step: Box<Step> },
    /// Both changed cells differently (or the merge is not valid data): nothing
    /// committed; the step says what, and where the conflict file is.
    Stopped { step: Box<Step> },
    /// A rebase or merge is stopped on the branch: it is left alone until that is
    /// continued or aborted.
    InProgress { kind: String },
}

/// Pull `scope`'s branches from `remote`. A transport failure is an error and leaves
/// every branch as it was; a branch the remote rewrote is [`RemoteError::Rewritten`].
pub fn pull(
    repo: &MasterRepo,
    structure: &Structure,
    remote: &RemoteName,
    scope: &Scope,
) -> Result<Vec<Pulled>, RemoteError> {
    fetch(repo, remote, &regions_of(&structure.project, scope)?)?;
    let lines = lines_of(repo, &structure.project, remote, scope)?;
    let mut out = Vec::new();
    for line in lines {
        if let Some(state) = pull_line(repo, structure, remote, &line)? {
            out.push(Pulled {
                region: line.name().to_string(),
                work: line.work().map(|w| w.name().to_string()),
                branch: line.branch().to_string(),
                state,
            });
        }
    }
    Ok(out)
}

/// One branch; `None` when neither side has it.
fn pull_line(
    repo: &MasterRepo,
    structure: &Structure,
    remote: &RemoteName,
    line: &Branch,
) -> Result<Option<PullState>, RemoteError> {
    let git = &repo.git;
    let tracking = remote.tracking(line.branch());
    let theirs = repo.head_of(&tracking)?.map(|c| c.id());
    let ours = repo.head_of(&line.reference())?.map(|c| c.id());
    if let Some(state) = crate::join::state::load_state(repo, line)? {
        return Ok(Some(PullState::InProgress { kind: state.kind }));
    }
    let move_to = |expected: Option<git2::Oid>, to: git2::Oid| {
        crate::git::refs::move_branch(
            repo,
            &line.reference(),
            expected,
            to,
            &format!("masterctl pull: {} from {remote}", line.branch()),
        )
    };
    // What the remote holds is taken only with a structure main vouches for (a plain
    // git push can put any schema there).
    if let Some(theirs) = theirs
        && ours.is_none_or(|ours| {
            ours != theirs && !git.graph_descendant_of(ours, theirs).unwrap_or(false)
        })
    {
        let branch = format!("{remote}/{}", line.branch());
        crate::vouched::check(repo, &branch, &git.find_commit(theirs)?)?;
    }
    Ok(Some(match (ours, theirs) {
        (None, None) => return Ok(None),
        (Some(_), None) => PullState::LocalOnly,
        (None, Some(theirs)) => {
            move_to(None, theirs)?;
            PullState::Created {
                head: theirs.to_string(),
            }
        }
        (Some(ours), Some(theirs)) if ours == theirs => PullState::UpToDate,
        (Some(ours), Some(theirs)) if git.graph_descendant_of(ours, theirs)? => PullState::Ahead {
            commits: git.graph_ahead_behind(ours, theirs)?.0,
        },
        (Some(ours), Some(theirs)) if git.graph_descendant_of(theirs, ours)? => {
            move_to(Some(ours), theirs)?;
            PullState::FastForward {
                from: ours.to_string(),
                to: theirs.to_string(),
            }
        }
        (Some(_), Some(_)) => join(repo, structure, remote, line, &Action::Start)?,
    }))
}

/// The keyed merge of a branch both sides moved, as `action` says (start it, or go on
/// with one stopped).
pub fn join(
    repo: &MasterRepo,
    structure: &Structure,
    remote: &RemoteName,
    line: &Branch,
    action: &Action<'_>,
) -> Result<PullState, RemoteError> {
    let join = Join::Pull {
        line: line.clone(),
        remote: remote.clone(),
    };
    let step = match session::run(repo, structure, &join, action, None) {
        Ok(step) => step,
        Err(JoinError::Store(e)) => return Err(e.into()),
        Err(e) => {
            return Err(StoreError::StateFile {
                path: crate::join::state::conflict_file(repo, line),
                message: e.to_string(),
            }
            .into());
        }
    };
    Ok(match step {
        Step::Committed { ref commit, .. } => PullState::Merged {
            commit: commit.clone(),
            step: Box::new(step),
        },
        step => PullState::Stopped {
            step: Box::new(step),
        },
    })
}
