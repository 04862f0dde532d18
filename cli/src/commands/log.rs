//! `masterctl log --region R`: the region's import history, newest first.

use masterctl_schemas::value::DateTime;
use masterctl_store::names::one_line;
use masterctl_store::{history, short_id};
use serde_json::json;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region whose branch to show
    #[arg(long, value_name = "R")]
    region: String,
    /// Show at most this many commits
    #[arg(long, default_value_t = 50, value_name = "N")]
    limit: usize,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let region = super::region(&structure, &args.region)?;
    let reference = region.reference();
    let records = history(&repo, &reference, args.limit).map_err(store_failure)?;
    if output.is_json() {
        let list: Vec<_> = records
            .iter()
            .map(|r| {
                json!({
                    "commit": r.commit.to_string(),
                    "time": local_time(r.time, r.offset_minutes),
                    "author": r.author,
                    "email": r.email,
                    "subject": r.subject,
                    "tables": r.tables,
                    "sources": r.sources,
                    "translations": r.translations,
                    "upstream": r.upstream,
                    "upstream_base": r.upstream_base,
                })
            })
            .collect();
        output.json(&json!({ "ok": true, "region": args.region, "branch": region.branch(), "imports": list }));
        return Ok(());
    }
    if records.is_empty() {
        output.line(format!("{} has no imports yet", region.branch()));
        return Ok(());
    }
    for record in &records {
        output.line(format!(
            "{} {}  {} <{}>",
            output.bold(short_id(&record.commit.to_string())),
            local_time(record.time, record.offset_minutes),
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
        output.line("");
    }
    Ok(())
}

/// `2026-11-29T23:15:00+09:00` in the author's own offset.
fn local_time(seconds: i64, offset_minutes: i32) -> String {
    let local = DateTime((seconds + i64::from(offset_minutes) * 60) * 1000);
    let sign = if offset_minutes < 0 { '-' } else { '+' };
    let offset = offset_minutes.unsigned_abs();
    format!("{local}{sign}{:02}:{:02}", offset / 60, offset % 60)
}
