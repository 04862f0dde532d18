//! `masterctl branch create|list|delete|propose|withdraw`: a planner's work branches of
//! a region, `work/<region>/<name>` — made from the region's head (or an earlier commit
//! of it), imported into like the region, rebased onto it, proposed for merging, and
//! merged back with `merge`.

use clap::Subcommand;
use masterctl_store::branches::{self, Deleted, WorkBranchStatus};
use masterctl_store::proposals::{self, Proposal};
use masterctl_store::{Region, WorkBranch, short_id};
use serde::Serialize;

use super::{Failure, open_repo, region, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, counted};

#[derive(Subcommand)]
pub enum Command {
    /// Make work/R/NAME from the region's head (or an earlier commit of it)
    Create(CreateArgs),
    /// Every work branch: head, author of its last commit, region commits it has not
    /// taken, commits of its own the region lacks
    List(ListArgs),
    /// Delete a work branch (refused while it holds commits its region has not taken)
    Delete(DeleteArgs),
    /// Ask for a work branch to be merged into its region (a maintainer sees the
    /// proposal in `branch list` and in the console, and merges with `merge`)
    Propose(ProposeArgs),
    /// Withdraw a work branch's merge proposal
    Withdraw(WithdrawArgs),
}

impl Command {
    pub fn repo(&self) -> &RepoArg {
        match self {
            Command::Create(args) => &args.repo,
            Command::List(args) => &args.repo,
            Command::Delete(args) => &args.repo,
            Command::Propose(args) => &args.repo,
            Command::Withdraw(args) => &args.repo,
        }
    }
}

#[derive(clap::Args)]
pub struct CreateArgs {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The work branch's name: letters, digits, `-`, `_`, `.` (`alice`, `event-2026-12`)
    name: String,
    /// The region it works on
    #[arg(long, value_name = "R")]
    region: String,
    /// Start from this commit of the region's history (a sha, a tag, `masters/jp~2`)
    /// instead of its head
    #[arg(long, value_name = "REV")]
    at: Option<String>,
}

#[derive(clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub repo: RepoArg,
    /// Only this region's work branches
    #[arg(long, value_name = "R")]
    region: Option<String>,
}

#[derive(clap::Args)]
pub struct DeleteArgs {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The work branch's name
    name: String,
    #[arg(long, value_name = "R")]
    region: String,
    /// Delete it even though it holds commits its region has not taken (they are then
    /// reachable only by their ids until git collects them)
    #[arg(long)]
    force: bool,
}

#[derive(clap::Args)]
pub struct ProposeArgs {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The work branch's name
    name: String,
    #[arg(long, value_name = "R")]
    region: String,
    /// What the merge brings, for the maintainer who makes it (one line)
    #[arg(short, long, value_name = "TEXT")]
    message: Option<String>,
}

#[derive(clap::Args)]
pub struct WithdrawArgs {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The work branch's name
    name: String,
    #[arg(long, value_name = "R")]
    region: String,
}

pub fn run(command: Command, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    match command {
        Command::Create(args) => {
            let region = region(&structure, &args.region)?;
            let work = WorkBranch::of(&region, &args.name).map_err(store_failure)?;
            let created =
                branches::create(&repo, &work, args.at.as_deref()).map_err(store_failure)?;
            output.render(&Created(created));
        }
        Command::List(args) => {
            let regions = match &args.region {
                Some(name) => vec![region(&structure, name)?],
                None => Region::all(&structure.project),
            };
            let branches = branches::list(&repo, &regions).map_err(store_failure)?;
            let proposals = proposals::list(&repo, &regions).map_err(store_failure)?;
            output.render(&Listed {
                branches,
                proposals,
            });
        }
        Command::Delete(args) => {
            let region = region(&structure, &args.region)?;
            let work = WorkBranch::of(&region, &args.name).map_err(store_failure)?;
            let deleted = branches::delete(&repo, &work, args.force).map_err(|e| {
                let hint = format!(
                    "reflect it first: `masterctl merge --region {region} --branch {}`; or --force",
                    work.name()
                );
                match e {
                    masterctl_store::StoreError::Unmerged { .. } => store_failure(e).hint(hint),
                    e => store_failure(e),
                }
            })?;
            output.render(&DeletedShown(deleted));
        }
        Command::Propose(args) => {
            let region = region(&structure, &args.region)?;
            let work = WorkBranch::of(&region, &args.name).map_err(store_failure)?;
            let proposal =
                proposals::propose(&repo, &work, args.message.as_deref()).map_err(store_failure)?;
            let words = Some(proposal.message.as_str());
            super::tell_in(
                &repo,
                &structure,
                |by| Some(masterctl_app::notify::of::proposal(&work, true, by, words)),
                output,
            );
            output.render(&Proposed(proposal));
        }
        Command::Withdraw(args) => {
            let region = region(&structure, &args.region)?;
            let work = WorkBranch::of(&region, &args.name).map_err(store_failure)?;
            if !proposals::withdraw(&repo, &work).map_err(store_failure)? {
                return Err(Failure::invalid(format!(
                    "{} has no merge proposal to withdraw",
                    work.branch()
                )));
            }
            super::tell_in(
                &repo,
                &structure,
                |by| Some(masterctl_app::notify::of::proposal(&work, false, by, None)),
                output,
            );
            output.render(&Withdrawn {
                branch: work.branch(),
            });
        }
    }
    Ok(())
}

#[derive(Serialize)]
#[serde(transparent)]
struct Created(WorkBranchStatus);

impl Render for Created {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} {} at {}",
            output.bold("created"),
            self.0.branch,
            short_id(&self.0.head)
        ));
        output.line(format!(
            "import into it with `masterctl import --region {} --branch {} …`; reflect it with `masterctl merge --region {} --branch {}`",
            self.0.region, self.0.name, self.0.region, self.0.name
        ));
    }
}

#[derive(Serialize)]
struct Listed {
    branches: Vec<WorkBranchStatus>,
    /// The branches proposed for merging.
    proposals: Vec<Proposal>,
}

impl Render for Listed {
    fn text(&self, output: &Output) {
        if self.branches.is_empty() {
            output
                .line("no work branches (make one with `masterctl branch create NAME --region R`)");
        }
        for b in &self.branches {
            output.line(format!(
                "{} at {} by {}: {}",
                output.bold(&b.branch),
                short_id(&b.head),
                b.author,
                b.subject
            ));
            output.line(format!(
                "    {} not taken; {} the region lacks",
                counted(b.behind, "region commit"),
                counted(b.ahead, "commit")
            ));
            if let Some(p) = self.proposals.iter().find(|p| p.branch == b.branch) {
                output.line(format!(
                    "    {} by {} at {}{}: {}",
                    output.bold("proposed"),
                    p.proposer,
                    short_id(&p.commit),
                    if p.moved { " (moved since)" } else { "" },
                    p.message
                ));
            }
        }
    }
}

#[derive(Serialize)]
#[serde(transparent)]
struct Proposed(Proposal);

impl Render for Proposed {
    fn text(&self, output: &Output) {
        let p = &self.0;
        output.line(format!(
            "{} {} at {} for merging into its region: {}",
            output.bold("proposed"),
            p.branch,
            short_id(&p.commit),
            p.message
        ));
        output.line(format!(
            "a maintainer merges it with `masterctl merge --region {} --branch {}`",
            p.region, p.name
        ));
    }
}

#[derive(Serialize)]
struct Withdrawn {
    branch: String,
}

impl Render for Withdrawn {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} the merge proposal of {}",
            output.bold("withdrew"),
            self.branch
        ));
    }
}

#[derive(Serialize)]
#[serde(transparent)]
struct DeletedShown(Deleted);

impl Render for DeletedShown {
    fn text(&self, output: &Output) {
        let d = &self.0;
        output.line(format!(
            "{} {} (was {})",
            output.bold("deleted"),
            d.branch,
            short_id(&d.head)
        ));
        if d.ahead > 0 {
            output.line(format!(
                "its {} the region lacks stay reachable by id until git collects them: {}",
                counted(d.ahead, "commit"),
                d.head
            ));
        }
    }
}
