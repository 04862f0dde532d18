//! `masterctl tag create|list`: versions of the masters — annotated tags
//! `masters/<region>/<version>` that every `--rev` takes, and that a release published
//! from the tagged commit records.

use clap::Subcommand;
use masterctl_store::short_id;
use masterctl_store::tags::{self, TagRequest, Version};
use serde::Serialize;

use super::{Failure, open_repo, region, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg};

#[derive(Subcommand)]
pub enum Command {
    /// Tag a commit of a region's history as a version (masters/R/VERSION); a version
    /// that exists is refused
    Create(CreateArgs),
    /// Every version, oldest first
    List(ListArgs),
}

impl Command {
    pub fn repo(&self) -> &RepoArg {
        match self {
            Command::Create(args) => &args.repo,
            Command::List(args) => &args.repo,
        }
    }
}

#[derive(clap::Args)]
pub struct CreateArgs {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The version: letters, digits, `.`, `-`, `_`, `+` (`1.4`, `2026-12-event`)
    version: String,
    #[arg(long, value_name = "R")]
    region: String,
    /// Tag this commit of the region's history instead of its head
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// The tag's message
    #[arg(short, long, value_name = "TEXT")]
    message: Option<String>,
}

#[derive(clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub repo: RepoArg,
    /// Only this region's versions
    #[arg(long, value_name = "R")]
    region: Option<String>,
}

pub fn run(command: Command, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    match command {
        Command::Create(args) => {
            let region = region(&structure, &args.region)?;
            let request = TagRequest {
                version: &args.version,
                rev: args.rev.as_deref(),
                message: args.message.as_deref(),
            };
            let version = tags::create(&repo, &region, &request).map_err(store_failure)?;
            super::tell_in(
                &repo,
                &structure,
                |by| Some(masterctl_app::notify::of::tag(&version, by)),
                output,
            );
            output.render(&Created(version));
        }
        Command::List(args) => {
            let region = args
                .region
                .as_deref()
                .map(|name| region(&structure, name))
                .transpose()?;
            let versions = tags::list(&repo, region.as_ref()).map_err(store_failure)?;
            output.render(&Listed { versions });
        }
    }
    Ok(())
}

#[derive(Serialize)]
#[serde(transparent)]
struct Created(Version);

impl Render for Created {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} {} at {}",
            output.bold("tagged"),
            self.0.tag,
            short_id(&self.0.commit)
        ));
        output.line(format!(
            "build it with `masterctl build --region {} --rev {}`",
            self.0.region, self.0.tag
        ));
    }
}

#[derive(Serialize)]
struct Listed {
    versions: Vec<Version>,
}

impl Render for Listed {
    fn text(&self, output: &Output) {
        if self.versions.is_empty() {
            output.line("no versions (tag one with `masterctl tag create VERSION --region R`)");
        }
        for v in &self.versions {
            output.line(format!(
                "{} {} by {}: {}",
                output.bold(&v.tag),
                short_id(&v.commit),
                v.tagger,
                v.message
            ));
        }
    }
}
