//! Rebasing a region or a work branch, and merging a work branch into its region: one
//! step of the join's session (start, dry run, continue, abort, resolve), with the
//! remote around it when asked. A join that starts (or is tried) first takes the
//! remote's side of both branches it reads; one that goes on, or is dropped, works on
//! what it stopped with, so nothing is pulled then.

use masterctl_store::join::JoinError;
use masterctl_store::join::session::{self, Action, Step};
use masterctl_store::join::state;
use masterctl_store::remote::RemoteError;
use masterctl_store::{ErrorKind, MasterRepo, StoreError, Structure};

pub use masterctl_store::join::Join;

use crate::Kinded;
use crate::sync::{self, Around, Remote};

/// Why a join's step did not come to one: the join's own failure, or the remote's
/// around it.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    #[error(transparent)]
    Join(#[from] JoinError),
    #[error(transparent)]
    Remote(#[from] RemoteError),
}

impl From<StoreError> for StepError {
    fn from(error: StoreError) -> StepError {
        StepError::Join(error.into())
    }
}

impl Kinded for StepError {
    fn kind(&self) -> ErrorKind {
        match self {
            StepError::Join(error) => error.kind(),
            StepError::Remote(error) => error.kind(),
        }
    }
}

/// Carry out `action` on `join`: the step it came to, with the pulls before and the
/// push after (of the branch that moves, when the step committed).
pub fn step(
    repo: &MasterRepo,
    structure: &Structure,
    join: &Join,
    action: &Action<'_>,
    message: Option<&str>,
    remote: Option<&Remote>,
) -> Result<Around<Step>, StepError> {
    let reads = match action {
        Action::Start | Action::DryRun => join.lines(&structure.project),
        Action::Continue | Action::Abort | Action::Resolve { .. } => Vec::new(),
    };
    sync::around(
        repo,
        remote,
        &reads,
        &join.target(),
        |repo| session::run(repo, structure, join, action, message).map_err(StepError::from),
        |step| matches!(step, Step::Committed { .. }),
    )
}

/// Whether a join (of any kind) is stopped on the branch `join` moves: starting it
/// again goes on with that one.
pub fn stopped(repo: &MasterRepo, join: &Join) -> Result<bool, StoreError> {
    Ok(state::load_state(repo, &join.target())?.is_some())
}

/// Whether a join of `join`'s own kind is stopped on the branch it moves.
pub fn stopped_as(repo: &MasterRepo, join: &Join) -> Result<bool, StoreError> {
    Ok(state::load_state(repo, &join.target())?.is_some_and(|s| s.kind == join.kind()))
}
