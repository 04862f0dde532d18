//! `masterctl publish DIR --to URL`: upload a build to a store — the objects it lacks,
//! then the release, then the pointer that makes it current.

use std::path::PathBuf;

use masterctl_delivery::short_release;
use masterctl_delivery::{PublishOptions, Published, publish};
use masterctl_store::tags::versions_of_build;

use super::{Failure, block_on, delivery_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, counted};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The build directory (`masterctl build --out DIR`)
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// The store: s3://bucket/prefix, or file:///path (a folder); by default the
    /// project's (`[publish] store` in masterctl.toml)
    #[arg(long, value_name = "URL")]
    to: Option<String>,
    /// Make the release current even when it was published before the current one
    #[arg(long)]
    force: bool,
    /// Read back every object of the build from the store, the current release's too,
    /// and put again what is missing or damaged (what `fetch` reports as damaged)
    #[arg(long)]
    repair: bool,
    /// Objects checked and uploaded at once
    #[arg(long, value_name = "N", default_value_t = masterctl_delivery::CONCURRENCY)]
    concurrency: usize,
    /// What this release is, recorded with it beside who published it (your git
    /// identity) and shown by `releases` and the console
    #[arg(short, long, value_name = "TEXT")]
    message: Option<String>,
    #[command(flatten)]
    sign: super::signing_args::SignArg,
    #[command(flatten)]
    endpoint: super::EndpointArg,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let remote = super::named_store(args.to.as_deref(), &args.endpoint, global, "--to")?;
    let sign = args.sign.key()?;
    // Published from inside the master repository: the versions naming the build's
    // commit are recorded with the release.
    let versions = match super::open_repo(global) {
        Ok(repo) => match repo.structure() {
            Ok(structure) => versions_of_build(&repo, &structure.project, &args.dir),
            Err(_) => Vec::new(),
        },
        Err(_) => Vec::new(),
    };
    let options = PublishOptions {
        force: args.force,
        repair: args.repair,
        concurrency: args.concurrency,
        versions,
        by: super::who(global),
        message: (args.message.as_deref())
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(masterctl_store::names::one_line),
        sign,
        ..PublishOptions::default()
    };
    let bar = output.progress_of("uploading", "objects");
    let progress = |_done: usize, total: usize| bar.file_done(total);
    let published = block_on(publish(&remote, &args.dir, &options, &progress));
    bar.finish();
    let published = published?.map_err(delivery_failure)?;
    super::tell(
        global,
        |by| {
            let words = options.message.as_deref();
            let release = &published.release;
            Some(masterctl_app::notify::of::release(
                &published.region,
                release,
                true,
                by,
                words,
            ))
        },
        output,
    );
    output.render(&Shown(published));
    Ok(())
}

/// What a publish did, as the library says it.
#[derive(serde::Serialize)]
#[serde(transparent)]
struct Shown(Published);

impl Render for Shown {
    fn text(&self, output: &Output) {
        let p = &self.0;
        let release = short_release(&p.release);
        let moved = p.pointer_moved || p.moved_by_another;
        if !moved && p.uploaded == 0 {
            let checked = if p.verified {
                format!(" (its {} read back whole)", counted(p.objects, "object"))
            } else {
                String::new()
            };
            output.line(format!(
                "{}: release {release} of {} is already current on {}; nothing uploaded{checked}",
                output.bold("unchanged"),
                p.region,
                p.store
            ));
            return;
        }
        let verb = if moved { "published" } else { "repaired" };
        output.line(format!(
            "{} release {release} of {} to {}",
            output.bold(verb),
            p.region,
            p.store
        ));
        if p.repaired > 0 {
            output.line(format!(
                "  {} missing or damaged on the store, put again",
                counted(p.repaired, "object or record")
            ));
        }
        output.line(format!(
            "  {} uploaded ({} bytes), {} already there ({} bytes)",
            counted(p.uploaded, "object"),
            p.uploaded_bytes,
            p.skipped,
            p.skipped_bytes
        ));
        match &p.previous {
            Some(previous) if previous != &p.release => output.line(format!(
                "  current: {} → {release}",
                short_release(previous)
            )),
            Some(_) => output.line(format!("  current: {release}")),
            None => output.line(format!("  current: {release} (the region's first release)")),
        }
        if p.moved_by_another {
            output.line("  (another publisher of this same build moved the pointer to it first)");
        }
    }
}
