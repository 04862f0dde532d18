//! `masterctl fetch --from URL --region R --out DIR`: download a published release —
//! only the objects the cache lacks, each verified — and swap it into place.

use std::path::PathBuf;

use masterctl_delivery::short_release;
use masterctl_delivery::{FetchOptions, Fetched, fetch};

use super::{Failure, block_on, delivery_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, counted};

/// Where a release comes from and goes: `fetch`'s and `watch`'s.
#[derive(clap::Args)]
pub struct Target {
    /// The store: s3://bucket/prefix, file:///path, or http(s)://host/path (a CDN or a
    /// static server in front of the store)
    #[arg(long, value_name = "URL")]
    pub from: String,
    /// The region whose release to take
    #[arg(long, value_name = "R")]
    pub region: String,
    /// The build directory to write (assembled beside it, then swapped in; a previous
    /// build there is replaced)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Only these languages' texts (comma-separated); each already holds its fallbacks
    #[arg(long, value_name = "L,...", value_delimiter = ',')]
    pub lang: Vec<String>,
}

impl Target {
    /// What fetching its release takes, trusting the keys `trust` names (else the
    /// project's): its region and languages; every other option at its default.
    pub fn options(
        &self,
        trust: &super::signing_args::TrustArg,
        global: &GlobalArgs,
    ) -> Result<FetchOptions, Failure> {
        Ok(FetchOptions {
            region: self.region.clone(),
            languages: (!self.lang.is_empty()).then(|| self.lang.clone()),
            release: None,
            cache: None,
            concurrency: None,
            verify: false,
            trusted: trust.keys(global)?,
            signed_state: None,
        })
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// The master repository whose `[delivery] trusted_keys` a fetch without `--trust`
    /// takes (none outside one)
    #[command(flatten)]
    pub repo: RepoArg,
    #[command(flatten)]
    target: Target,
    /// This release (a source commit; as `releases` prints it, or a unique prefix of 7
    /// or more hexadecimal digits) instead of the region's current one
    #[arg(long, value_name = "ID")]
    release: Option<String>,
    /// Where downloaded objects are kept for the next fetch (default: .DIR.cache beside DIR)
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Objects downloaded at once (default: 128 streams on one connection when the store
    /// speaks HTTP/2, 64 connections over HTTP/1.1 and from a folder). Many servers
    /// fetching at once from one small origin each get a share of it and need fewer:
    /// 32 cost every party less CPU there (a lone distant fetch needs the 128)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    concurrency: Option<u32>,
    /// Hash every cached object before using it (a damaged one is downloaded again);
    /// without it, an object verified when it was downloaded is trusted by its size
    #[arg(long)]
    verify: bool,
    #[command(flatten)]
    trust: super::signing_args::TrustArg,
    #[command(flatten)]
    endpoint: super::EndpointArg,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let remote = super::open_store(&args.target.from, &args.endpoint)?;
    let options = FetchOptions {
        release: args.release.clone(),
        cache: args.cache.clone(),
        concurrency: args.concurrency.map(|n| n as usize),
        verify: args.verify,
        ..args.target.options(&args.trust, global)?
    };
    let bar = output.progress_of("downloading", "objects");
    let progress = |_done: usize, total: usize| bar.file_done(total);
    let fetched = block_on(fetch(&remote, &args.target.out, &options, &progress));
    bar.finish();
    let fetched = fetched?.map_err(delivery_failure)?;
    output.render(&Shown(fetched));
    Ok(())
}

/// What a fetch did, as the library says it.
#[derive(serde::Serialize)]
#[serde(transparent)]
struct Shown(Fetched);

impl Render for Shown {
    fn text(&self, output: &Output) {
        let f = &self.0;
        if f.up_to_date {
            output.line(format!(
                "{} holds release {} of {} already (languages {}): nothing to do",
                f.out.display(),
                short_release(&f.release),
                f.region,
                f.languages.join(", ")
            ));
            return;
        }
        output.line(format!(
            "{} release {} of {} into {} (languages {})",
            output.bold("fetched"),
            short_release(&f.release),
            f.region,
            f.out.display(),
            f.languages.join(", ")
        ));
        output.line(format!(
            "  {} downloaded ({} bytes), {} from the cache ({} bytes)",
            counted(f.downloaded, "object"),
            f.downloaded_bytes,
            f.reused,
            f.reused_bytes
        ));
        if let Some(traffic) = &f.transport
            && let Some(protocol) = traffic.protocol
        {
            output.line(format!(
                "  over {protocol}: {}, {} opened",
                counted(traffic.requests, "request"),
                counted(traffic.connections, "connection")
            ));
        }
    }
}
