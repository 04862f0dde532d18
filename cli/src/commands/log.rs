//! `masterctl log --region R`: the region's import history, newest first.

use masterctl_store::names::one_line;
use masterctl_store::{ImportRecord, history_from, short_id};
use serde::Serialize;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region whose branch to show
    #[arg(long, value_name = "R")]
    region: String,
    /// A work branch of the region (work/R/NAME) instead of the region's own branch
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
    /// Show at most this many commits
    #[arg(long, default_value_t = 50, value_name = "N")]
    limit: usize,
    /// Start at this commit of the branch's history instead of its head (the `older`
    /// commit an earlier page named)
    #[arg(long, value_name = "COMMIT")]
    from: Option<String>,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let region = super::line(&structure, &args.region, args.branch.as_deref())?;
    let reference = region.reference();
    let stretch =
        history_from(&repo, &reference, args.from.as_deref(), args.limit).map_err(store_failure)?;
    output.render(&Log {
        region: region.name(),
        branch: region.branch(),
        imports: stretch.records,
        older: stretch.older,
    });
    Ok(())
}

/// A region's history, newest first.
#[derive(Serialize)]
struct Log<'a> {
    region: &'a str,
    branch: &'a str,
    imports: Vec<ImportRecord>,
    /// Where the next older commits start (`--from`), when there are more.
    older: Option<String>,
}

impl Render for Log<'_> {
    fn text(&self, output: &Output) {
        let records = &self.imports;
        if records.is_empty() {
            output.line(format!("{} has no imports yet", self.branch));
            return;
        }
        for record in records {
            output.line(format!(
                "{} {}  {} <{}>",
                output.bold(short_id(&record.commit)),
                record.time,
                one_line(&record.author),
                one_line(&record.email)
            ));
            // Text read from commits stays on its line: a line break in an author's name, a
            // subject or a file name cannot forge a line of the history (`Output::line`
            // escapes the other control sequences for the terminal).
            output.line(format!("    {}", one_line(&record.subject)));
            for table in &record.tables {
                output.line(format!("    {}", one_line(table)));
            }
            for source in &record.sources {
                output.line(format!("    source: {}", one_line(source)));
            }
            for file in &record.translations {
                output.line(format!("    translations: {}", one_line(file)));
            }
            if let Some(upstream) = &record.upstream {
                let from = record.upstream_base.as_deref().unwrap_or("?");
                output.line(format!(
                    "    import point: upstream {} (took it from {})",
                    one_line(short_id(upstream)),
                    one_line(short_id(from))
                ));
            }
            if let (Some(branch), Some(merged)) = (&record.merged_branch, &record.merged) {
                output.line(format!(
                    "    merged: {} at {}",
                    one_line(branch),
                    one_line(short_id(merged))
                ));
            }
            output.line("");
        }
        if let Some(older) = &self.older {
            output.line(format!(
                "older: masterctl log --region {} --from {}",
                one_line(self.region),
                short_id(older)
            ));
        }
    }
}
