//! `masterctl gc --from URL --keep N [--dry-run]`: delete the releases beyond the N
//! newest of each region (never a current one), then the objects no kept release names.

use masterctl_delivery::{Collected, gc, manage::GRACE_SECONDS};
use masterctl_store::short_id;

use super::{Failure, block_on, delivery_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, counted};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The store: s3://bucket/prefix or file:///path; by default the project's
    /// (`[publish] store` in masterctl.toml)
    #[arg(long, value_name = "URL")]
    from: Option<String>,
    /// Releases kept per region, newest first (the current one is always kept too)
    #[arg(long, value_name = "N")]
    keep: usize,
    /// Leave objects no release names alone until they are this old, in seconds (a
    /// publisher writes its objects before its release)
    #[arg(long, value_name = "SECONDS", default_value_t = GRACE_SECONDS)]
    grace: u64,
    /// Say what would be deleted; delete nothing
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    endpoint: super::EndpointArg,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    if args.keep == 0 {
        return Err(Failure::usage("--keep must be at least 1")
            .hint("the current release of each region is always kept"));
    }
    let remote = super::named_store(args.from.as_deref(), &args.endpoint, global, "--from")?;
    let bar = output.progress_of("deleting", "objects");
    let progress = |_done: usize, total: usize| bar.file_done(total);
    let collected = block_on(gc(&remote, args.keep, args.grace, args.dry_run, &progress));
    bar.finish();
    let collected = collected?.map_err(delivery_failure)?;
    output.render(&Shown(collected));
    Ok(())
}

#[derive(serde::Serialize)]
#[serde(transparent)]
struct Shown(Collected);

impl Render for Shown {
    fn text(&self, output: &Output) {
        let c = &self.0;
        let verb = if c.dry_run { "would delete" } else { "deleted" };
        for (region, releases) in &c.deleted {
            let ids: Vec<&str> = releases.iter().map(|r| short_id(r)).collect();
            output.line(format!("{region}: {verb} {}", ids.join(", ")));
        }
        for (region, releases) in &c.kept_running {
            for (release, hosts) in releases {
                output.line(format!(
                    "{region}: kept {} beyond --keep: {} still run it ({})",
                    short_id(release),
                    counted(hosts.len(), "server"),
                    hosts.join(", ")
                ));
            }
        }
        let releases: usize = c.deleted.values().map(Vec::len).sum();
        output.line(format!(
            "{}{verb} {} and {} ({} bytes)",
            if c.dry_run { "dry run: " } else { "" },
            counted(releases, "release"),
            counted(c.objects_deleted, "object"),
            c.bytes_deleted
        ));
        if c.objects_too_young > 0 {
            output.line(format!(
                "  {} no release names were left: younger than --grace (a publish may be writing its release)",
                counted(c.objects_too_young, "object"),
            ));
        }
        if c.reports_deleted > 0 {
            output.line(format!(
                "  and {} no server rewrote for a day",
                counted(c.reports_deleted, "fleet report"),
            ));
        }
        if c.leftovers_deleted > 0 {
            output.line(format!(
                "  and {} killed uploads left (counted in the bytes)",
                counted(c.leftovers_deleted, "partial file"),
            ));
        }
    }
}
