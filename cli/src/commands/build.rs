//! `masterctl build --region R --out DIR [--rev REV]`: the runtime build game servers
//! load — one archive per table, per language and per generated master, and a manifest
//! with each file's BLAKE3.

use std::path::PathBuf;

use masterctl_store::build::{build_region, write_build};
use masterctl_store::short_id;
use serde_json::json;

use super::{Failure, open_repo, region, store_failure};
use crate::output::{GlobalArgs, Output, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region to build (a [regions.R] of masterctl.toml)
    #[arg(long, value_name = "R")]
    region: String,
    /// The build directory (written beside it first, then renamed into place; a previous
    /// build there is replaced)
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Build this commit instead of the region's head (a sha, a tag, `masters/jp~2`...)
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let region = region(&structure, &args.region)?;
    let bar = output.progress("building");
    let build = build_region(&repo, &region, args.rev.as_deref());
    bar.finish_and_clear();
    let build = build.map_err(store_failure)?;
    write_build(&build, &args.out).map_err(store_failure)?;
    let manifest = &build.manifest;
    if output.is_json() {
        output.json(&json!({
            "ok": true,
            "region": manifest.region,
            "out": args.out,
            "source_commit": manifest.source_commit,
            "files": manifest.files.len(),
            "bytes": build.size(),
            "fallbacks": manifest.fallbacks,
        }));
        return Ok(());
    }
    output.line(format!(
        "{} {} at {} into {}: {} files, {} bytes",
        output.bold("built"),
        manifest.region,
        short_id(&manifest.source_commit),
        args.out.display(),
        manifest.files.len(),
        build.size()
    ));
    for fallback in &manifest.fallbacks {
        output.line(format!(
            "  fallback: {}.{} in {}: {} text{} from {}",
            fallback.table,
            fallback.field,
            fallback.language,
            fallback.count,
            if fallback.count == 1 { "" } else { "s" },
            fallback.from
        ));
    }
    Ok(())
}
