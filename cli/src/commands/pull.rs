//! `masterctl pull`: take what the remote holds of the region and work branches —
//! made, fast-forwarded, or joined by the keyed three-way merge where both sides moved
//! (a conflict stops that branch with the conflict file; `--continue` once resolved).

use masterctl_store::rebase::Join;
use masterctl_store::rebase::resolutions::Resolution;
use masterctl_store::remote::{self, Scope};

use super::sync::{PulledShown, stopped};
use super::{Failure, open_repo, store_failure};
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
    /// A pull stopped on conflicts: merge again with the resolutions and commit
    #[arg(long = "continue", requires = "region", conflicts_with_all = ["abort", "ours", "theirs"])]
    continue_: bool,
    /// Drop a pull stopped on conflicts; the branch stays as it was
    #[arg(long, requires = "region", conflicts_with_all = ["ours", "theirs"])]
    abort: bool,
    /// Resolve a stopped pull's conflicts with this clone's values
    #[arg(long, requires = "region", conflicts_with = "theirs", group = "side")]
    ours: bool,
    /// Resolve a stopped pull's conflicts with the remote's values
    #[arg(long, requires = "region", group = "side")]
    theirs: bool,
    /// With --ours/--theirs: only this table
    #[arg(long, value_name = "TABLE", requires = "side")]
    table: Option<String>,
    /// With --ours/--theirs: only this column
    #[arg(long, value_name = "COLUMN", requires = "side")]
    column: Option<String>,
    /// With --ours/--theirs: only this row, its key as in the conflict file
    #[arg(long, value_name = "KEY", requires = "side")]
    key: Option<String>,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let remote = remote::remote_of(&repo, &args.remote).map_err(store_failure)?;
    let side = match (args.ours, args.theirs) {
        (true, _) => Some(Resolution::Ours),
        (_, true) => Some(Resolution::Theirs),
        _ => None,
    };
    let resolving = args.continue_ || args.abort || side.is_some();
    if let (true, Some(region)) = (resolving, &args.region) {
        // Going on with a stopped pull: the keyed merge's own flow, as a rebase's.
        let line = super::line(&structure, region, args.branch.as_deref())?;
        let again = match line.work() {
            Some(work) => format!("masterctl pull --region {region} --branch {}", work.name()),
            None => format!("masterctl pull --region {region}"),
        };
        let action = super::rebase::action(
            args.abort,
            side,
            args.continue_,
            false,
            (
                args.table.as_deref(),
                args.column.as_deref(),
                args.key.as_deref(),
            ),
        );
        let words = super::rebase::Words {
            message: None,
            html: None,
            sync: None,
        };
        let join = Join::Pull { line, remote };
        return super::rebase::carry_out(&repo, &structure, &join, &action, &again, &words, output);
    }
    let scope = match &args.region {
        Some(region) => match &args.branch {
            Some(_) => Scope::Line(super::line(&structure, region, args.branch.as_deref())?),
            None => Scope::Region(super::region(&structure, region)?),
        },
        None => Scope::All,
    };
    let pulled = remote::pull(&repo, &structure, &remote, &scope).map_err(store_failure)?;
    let ok = !pulled.iter().any(stopped);
    output.show(&PulledShown {
        ok,
        branches: &pulled,
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
