//! `masterctl merge --region R --branch NAME`: reflect a work branch into its region —
//! the keyed three-way merge of what the branch changed since it last took the region,
//! with the conflict file and resolution flow of a rebase (rendered by `rebase`).

use masterctl_store::WorkBranch;
use masterctl_store::rebase::Join;
use masterctl_store::rebase::resolutions::Resolution;

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
    #[arg(long)]
    dry_run: bool,
    /// With --dry-run: also write the review as one self-contained HTML page
    #[arg(long, value_name = "FILE", requires = "dry_run")]
    html: Option<std::path::PathBuf>,
    /// After resolving the conflicts (in the conflict file or with --ours/--theirs): merge
    /// again with the resolutions, validate and commit
    #[arg(long = "continue", conflicts_with_all = ["abort", "ours", "theirs", "dry_run"])]
    continue_: bool,
    /// Drop the merge in progress; nothing is committed
    #[arg(long, conflicts_with_all = ["ours", "theirs", "dry_run"])]
    abort: bool,
    /// Resolve conflicts with the region's values (narrow with --table, --column, --key)
    #[arg(long, conflicts_with = "theirs", group = "side")]
    ours: bool,
    /// Resolve conflicts with the work branch's values (narrow with --table, --column, --key)
    #[arg(long, group = "side")]
    theirs: bool,
    /// With --ours/--theirs: only this table (or structure file, e.g. schemas/item.toml)
    #[arg(long, value_name = "TABLE", requires = "side")]
    table: Option<String>,
    /// With --ours/--theirs: only this column
    #[arg(long, value_name = "COLUMN", requires = "side")]
    column: Option<String>,
    /// With --ours/--theirs: only this row, its key as in the conflict file (`100`, `100|10`)
    #[arg(long, value_name = "KEY", requires = "side")]
    key: Option<String>,
    /// Your own words for the merge commit's first line
    #[arg(long, short, value_name = "TEXT")]
    message: Option<String>,
    #[command(flatten)]
    sync: super::sync::SyncArgs,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let region = super::region(&structure, &args.region)?;
    let work = WorkBranch::of(&region, &args.branch).map_err(store_failure)?;
    let again = format!("masterctl merge --region {region} --branch {}", work.name());
    let side = match (args.ours, args.theirs) {
        (true, _) => Some(Resolution::Ours),
        (_, true) => Some(Resolution::Theirs),
        _ => None,
    };
    let action = super::rebase::action(
        args.abort,
        side,
        args.continue_,
        args.dry_run,
        (
            args.table.as_deref(),
            args.column.as_deref(),
            args.key.as_deref(),
        ),
    );
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
