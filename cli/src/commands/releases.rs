//! `masterctl releases --from URL [--region R]`: the releases a store holds, newest
//! first per region, the current one marked.

use masterctl_delivery::short_release;
use masterctl_delivery::{ReleaseInfo, releases, releases_and_fleet};
use serde::Serialize;

use super::{Failure, block_on, delivery_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The store: s3://bucket/prefix or file:///path (listing is not possible over HTTP); by default the project's
    /// (`[publish] store` in masterctl.toml)
    #[arg(long, value_name = "URL")]
    from: Option<String>,
    /// Only this region's releases
    #[arg(long, value_name = "R")]
    region: Option<String>,
    /// How many servers run each release, as watchers with `--report` say (reports of
    /// the last hour)
    #[arg(long)]
    fleet: bool,
    #[command(flatten)]
    endpoint: super::EndpointArg,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let remote = super::named_store(args.from.as_deref(), &args.endpoint, global, "--from")?;
    let region = args.region.as_deref();
    let list = match args.fleet {
        true => block_on(releases_and_fleet(&remote, region)),
        false => block_on(releases(&remote, region)),
    };
    let list = list?.map_err(delivery_failure)?;
    if list.is_empty() {
        return Err(Failure::usage(format!(
            "{} holds no release{}",
            remote.shown(),
            args.region
                .as_deref()
                .map(|r| format!(" of region {r}"))
                .unwrap_or_default()
        ))
        .hint("`masterctl publish DIR --to URL` puts one there"));
    }
    output.render(&Listed {
        store: remote.shown(),
        releases: &list,
    });
    Ok(())
}

/// The releases of a store.
#[derive(Serialize)]
struct Listed<'a> {
    store: &'a str,
    releases: &'a [ReleaseInfo],
}

impl Render for Listed<'_> {
    fn text(&self, output: &Output) {
        let mut region = "";
        for r in self.releases {
            if r.region != region {
                region = &r.region;
                output.line(output.bold(region));
            }
            let versions = match r.versions.as_slice() {
                [] => String::new(),
                versions => format!("  [{}]", versions.join(", ")),
            };
            let servers = match r.servers.as_ref().map(Vec::len) {
                Some(1) => "  1 server".to_string(),
                Some(n) => format!("  {n} servers"),
                None => String::new(),
            };
            output.line(format!(
                "  {} {}  {}  {:>3} files {:>11} bytes  {}{versions}{}{servers}",
                if r.current { "*" } else { " " },
                short_release(&r.release),
                r.published,
                r.files,
                r.bytes,
                r.languages.join(","),
                if r.current { "  (current)" } else { "" }
            ));
        }
    }
}
