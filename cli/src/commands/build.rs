//! `masterctl build --region R --out DIR [--rev REV]`: the runtime build game servers
//! load — one archive per table, per language and per generated master, and a manifest
//! with each file's BLAKE3; with `--client`, the client export too.

use std::path::PathBuf;

use masterctl_runtime::manifest::Fallback;
use masterctl_store::build::{build_region, write_build};
use masterctl_store::short_id;
use serde::Serialize;

use super::{Failure, open_repo, region, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, counted};

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
    /// List every text fallback (table, field, language), not a summary per language
    #[arg(long, short)]
    verbose: bool,
    /// Also write the client export under client/: per table, generated master and
    /// language, the portable binary format (docs/CLIENT-FORMAT.md) and JSON
    #[arg(long)]
    client: bool,
}

/// Fallbacks listed one by one without --verbose.
const FALLBACKS_LISTED: usize = 10;

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let region = region(&structure, &args.region)?;
    let bar = output.spinner(format!("building {}", region.name()));
    let build = build_region(&repo, &region, args.rev.as_deref(), args.client);
    bar.finish_and_clear();
    let build = build.map_err(store_failure)?;
    write_build(&build, &args.out).map_err(store_failure)?;
    let manifest = &build.manifest;
    output.render(&Built {
        region: &manifest.region,
        out: &args.out,
        source_commit: &manifest.source_commit,
        files: manifest.files.len(),
        bytes: build.size(),
        fallbacks: &manifest.fallbacks,
        verbose: args.verbose,
    });
    Ok(())
}

/// A build written: where, from which commit, its size and the text fallbacks taken.
#[derive(Serialize)]
struct Built<'a> {
    region: &'a str,
    out: &'a std::path::Path,
    source_commit: &'a str,
    files: usize,
    bytes: u64,
    fallbacks: &'a [Fallback],
    #[serde(skip)]
    verbose: bool,
}

impl Render for Built<'_> {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} {} at {} into {}: {} files, {} bytes",
            output.bold("built"),
            self.region,
            short_id(self.source_commit),
            self.out.display(),
            self.files,
            self.bytes
        ));
        // A few fallbacks are listed; many (a new language in a big project) are summed
        // up per language, and --verbose lists them all.
        let fallbacks = self.fallbacks;
        if fallbacks.len() <= FALLBACKS_LISTED || self.verbose {
            for fallback in fallbacks {
                output.line(format!(
                    "  fallback: {}.{} in {}: {} from {}",
                    fallback.table,
                    fallback.field,
                    fallback.language,
                    counted(fallback.count as usize, "text"),
                    fallback.from
                ));
            }
            return;
        }
        let mut sums: Vec<(&str, &str, u64, Vec<&str>)> = Vec::new();
        for fallback in fallbacks {
            let at = sums
                .iter()
                .position(|(l, f, ..)| *l == fallback.language && *f == fallback.from);
            let at = at.unwrap_or_else(|| {
                sums.push((&fallback.language, &fallback.from, 0, Vec::new()));
                sums.len() - 1
            });
            sums[at].2 += fallback.count;
            if !sums[at].3.contains(&fallback.table.as_str()) {
                sums[at].3.push(&fallback.table);
            }
        }
        for (language, from, count, tables) in &sums {
            output.line(format!(
                "  fallback: {language} took {} from {from}, in {}",
                counted(*count as usize, "text"),
                counted(tables.len(), "table")
            ));
        }
        output.line(format!(
            "  ({} in all: --verbose lists them, the manifest has them)",
            counted(fallbacks.len(), "fallback")
        ));
    }
}
