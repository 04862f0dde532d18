//! `masterctl merge --region R --branch NAME`: reflect a work branch into its region —
//! the keyed three-way merge of what the branch changed since it last took the region,
//! with the conflict file and resolution flow of a rebase (rendered by `rebase`).

use masterctl_store::WorkBranch;
use masterctl_store::join::Join;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region that takes the work branch's changes
    #[arg(long, value_name = "R")]
    region: String,
    /// The work branch to reflect (work/R/NAME)
    #[arg(long, value_name = "NAME")]
    branch: String,
    /// Show every change the merge brings, as `diff` shows it; write nothing
    #[arg(long, conflicts_with_all = ["continue_", "abort", "side"])]
    dry_run: bool,
    /// With --dry-run: also write the review as one self-contained HTML page
    #[arg(long, value_name = "FILE", requires = "dry_run")]
    html: Option<std::path::PathBuf>,
    #[command(flatten)]
    resolving: super::rebase::Resolving,
    /// Your own words for the merge commit's first line
    #[arg(long, short, value_name = "TEXT")]
    message: Option<String>,
    #[command(flatten)]
    pub(super) sync: super::sync::SyncArgs,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let region = super::region(&structure, &args.region)?;
    let work = WorkBranch::of(&region, &args.branch).map_err(store_failure)?;
    let again = format!("masterctl merge --region {region} --branch {}", work.name());
    let action = args.resolving.action(args.dry_run);
    super::rebase::carry_out(
        &repo,
        &structure,
        &Join::Reflect(work),
        &action,
        &again,
        &super::rebase::Words {
            message: args.message.as_deref(),
            html: args.html.as_deref(),
            sync: Some(&args.sync),
        },
        output,
    )
}
