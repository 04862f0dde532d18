//! `masterctl pull`: take what the remote holds of the region and work branches —
//! made, fast-forwarded, or joined by the keyed three-way merge where both sides moved
//! (a conflict stops that branch with the conflict file; `--continue` once resolved).

use masterctl_store::join::Join;
use masterctl_store::remote;

use super::sync::PulledShown;
use super::{Failure, open_repo, remote_failure, store_failure};
use crate::output::{GlobalArgs, Output, RepoArg};

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  masterctl pull                                 every region and work branch from origin
  masterctl pull --region jp                     jp and its work branches
  masterctl pull --region jp --theirs            a stopped pull: take the remote's values
  masterctl pull --region jp --continue          then commit the merge")]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    #[command(flatten)]
    scope: super::sync::ScopeArgs,
    /// A pull stopped on conflicts (with --region): --continue, --abort, --ours or
    /// --theirs go on with it
    #[command(flatten)]
    resolving: super::rebase::Resolving,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let remote = remote::remote_of(&repo, &args.scope.remote).map_err(remote_failure)?;
    if args.resolving.given() {
        // Going on with a stopped pull: the keyed merge's own flow, as a rebase's.
        let Some(region) = &args.scope.region else {
            return Err(Failure::usage(
                "--continue, --abort, --ours and --theirs go on with a stopped pull: name its branch with --region R [--branch NAME]",
            ));
        };
        let line = super::line(&structure, region, args.scope.branch.as_deref())?;
        let again = match line.work() {
            Some(work) => format!("masterctl pull --region {region} --branch {}", work.name()),
            None => format!("masterctl pull --region {region}"),
        };
        let action = args.resolving.action(false);
        let words = super::rebase::Words {
            message: None,
            html: None,
            sync: None,
        };
        let join = Join::Pull { line, remote };
        return super::rebase::carry_out(&repo, &structure, &join, &action, &again, &words, output);
    }
    let scope = args.scope.scope(&structure)?;
    let pulled = remote::pull(&repo, &structure, &remote, &scope).map_err(remote_failure)?;
    let passed_over =
        remote::passed_over(&repo, &structure.project, &remote, &scope).map_err(remote_failure)?;
    let ok = !pulled.iter().any(remote::Pulled::stopped);
    output.show(&PulledShown {
        ok,
        branches: &pulled,
        passed_over: &passed_over,
    });
    if pulled.iter().all(|p| {
        matches!(
            p.state,
            remote::PullState::UpToDate | remote::PullState::LocalOnly
        )
    }) && !output.is_json()
    {
        output.line(format!("up to date with {remote}"));
    }
    if ok { Ok(()) } else { Err(Failure::Shown) }
}
