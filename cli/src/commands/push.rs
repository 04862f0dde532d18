//! `masterctl push`: send the region and work branches this clone moved ahead of the
//! remote, and the versions it lacks. Never forced: a branch the remote moved is
//! refused ("pull first", exit 2) and nothing of it is sent.

use masterctl_store::remote::{self, PushOutcome, PushState, Scope};
use serde::Serialize;

use super::sync::pushed_lines;
use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The remote (a name of `git remote`)
    #[arg(long, value_name = "NAME", default_value = "origin")]
    remote: String,
    /// Only this region (its branch and its work branches)
    #[arg(long, value_name = "R", conflicts_with = "all")]
    region: Option<String>,
    /// Only this work branch of the region
    #[arg(long, value_name = "NAME", requires = "region")]
    branch: Option<String>,
    /// Every region and work branch (the default)
    #[arg(long)]
    all: bool,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let remote = remote::remote_of(&repo, &args.remote).map_err(store_failure)?;
    let scope = match &args.region {
        Some(region) => match &args.branch {
            Some(_) => Scope::Line(super::line(&structure, region, args.branch.as_deref())?),
            None => Scope::Region(super::region(&structure, region)?),
        },
        None => Scope::All,
    };
    let outcome = remote::push(&repo, &structure, &remote, &scope).map_err(store_failure)?;
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
        let sent = self
            .outcome
            .branches
            .iter()
            .any(|b| matches!(b.state, PushState::Pushed { .. }))
            || !self.outcome.tags.is_empty();
        if !sent && self.ok {
            output.line(format!("nothing to push: {} has everything", self.remote));
        }
    }
}
