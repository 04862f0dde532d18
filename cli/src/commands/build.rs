//! `masterctl build --region R --out DIR [--rev REV]`: the runtime build game servers
//! load — one archive per table, per language and per generated master, and a manifest
//! with each file's BLAKE3; with `--client`, the client export too.

use std::path::PathBuf;

use masterctl_store::build::{self, Built};
use masterctl_store::short_id;
use serde::Serialize;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, counted};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region to build (a [regions.R] of masterctl.toml)
    #[arg(long, value_name = "R")]
    region: String,
    /// A work branch of the region (work/R/NAME) instead of the region's own branch
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
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
    /// Also make this pseudo language from the source texts (accented, 40% longer or the
    /// project's [pseudo] expansion, bracketed), besides the project's [pseudo] ones;
    /// repeatable
    #[arg(long, value_name = "L")]
    pseudo: Vec<String>,
}

/// Fallbacks listed one by one without --verbose.
const FALLBACKS_LISTED: usize = 10;

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let bar = output.spinner(format!("building {}", args.region));
    let built = build::run(
        &repo,
        &build::Request {
            region: &args.region,
            branch: args.branch.as_deref(),
            rev: args.rev.as_deref(),
            client: args.client,
            pseudo: &args.pseudo,
            out: &args.out,
        },
    );
    bar.finish_and_clear();
    output.render(&Shown {
        built: &built.map_err(store_failure)?,
        verbose: args.verbose,
    });
    Ok(())
}

/// A build written, and how many of its fallbacks to list.
#[derive(Serialize)]
struct Shown<'a> {
    #[serde(flatten)]
    built: &'a Built,
    #[serde(skip)]
    verbose: bool,
}

impl Render for Shown<'_> {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} {} at {} into {}: {} files, {} bytes",
            output.bold("built"),
            self.built.region,
            short_id(&self.built.source_commit),
            self.built.out.display(),
            self.built.files,
            self.built.bytes
        ));
        // A few fallbacks are listed; many (a new language in a big project) are summed
        // up per language, and --verbose lists them all.
        let fallbacks = &self.built.fallbacks;
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
