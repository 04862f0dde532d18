//! `masterctl push`: send the region and work branches this clone moved ahead of the
//! remote, and the versions it lacks. Never forced: a branch the remote moved is
//! refused ("pull first", exit 2) and nothing of it is sent.

use masterctl_store::remote::{self, PushOutcome, PushState};
use serde::Serialize;

use super::sync::pushed_lines;
use super::{Failure, open_repo, remote_failure, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    #[command(flatten)]
    scope: super::sync::ScopeArgs,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let remote = remote::remote_of(&repo, &args.scope.remote).map_err(remote_failure)?;
    let scope = args.scope.scope(&structure)?;
    let outcome = remote::push(&repo, &structure, &remote, &scope).map_err(remote_failure)?;
    let ok = outcome.branches.iter().all(|b| b.state.landed());
    output.show(&Shown {
        ok,
        remote: remote.name(),
        outcome: &outcome,
    });
    if ok {
        Ok(())
    } else {
        Err(Failure::ShownRefused)
    }
}

#[derive(Serialize)]
struct Shown<'a> {
    ok: bool,
    remote: &'a str,
    #[serde(flatten)]
    outcome: &'a PushOutcome,
}

impl Render for Shown<'_> {
    fn text(&self, output: &Output) {
        pushed_lines(output, &self.outcome.branches);
        for tag in &self.outcome.tags {
            output.line(format!("{tag}: pushed"));
        }
        for proposal in &self.outcome.proposals {
            output.line(proposal);
        }
        let sent = self
            .outcome
            .branches
            .iter()
            .any(|b| matches!(b.state, PushState::Pushed { .. }))
            || !self.outcome.tags.is_empty()
            || !self.outcome.proposals.is_empty();
        if !sent && self.ok {
            output.line(format!("nothing to push: {} has everything", self.remote));
        }
    }
}
