//! `masterctl log --region R`: the region's import history, newest first.

use masterctl_schemas::value::DateTime;
use masterctl_store::{MasterRepo, history};
use serde_json::json;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output};

#[derive(clap::Args)]
pub struct Args {
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
    let reference =
        MasterRepo::region_ref(&structure.project, &args.region).map_err(store_failure)?;
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
        output.json(&json!({ "ok": true, "region": args.region, "branch": reference.trim_start_matches("refs/heads/"), "imports": list }));
        return Ok(());
    }
    if records.is_empty() {
        output.line(format!(
            "{} has no imports yet",
            reference.trim_start_matches("refs/heads/")
        ));
        return Ok(());
    }
    for record in &records {
        output.line(format!(
            "{} {}  {} <{}>",
            output.bold(&record.commit.to_string()[..12]),
            local_time(record.time, record.offset_minutes),
            record.author,
            record.email
        ));
        output.line(format!("    {}", record.subject));
        for table in &record.tables {
            output.line(format!("    {table}"));
        }
        for source in &record.sources {
            output.line(format!("    source: {source}"));
        }
        for file in &record.translations {
            output.line(format!("    translations: {file}"));
        }
        if let Some(upstream) = &record.upstream {
            let from = record.upstream_base.as_deref().unwrap_or("?");
            output.line(format!(
                "    import point: upstream {} (took it from {})",
                short(upstream),
                short(from)
            ));
        }
        output.line("");
    }
    Ok(())
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

/// `2026-11-29T23:15:00+09:00` in the author's own offset.
fn local_time(seconds: i64, offset_minutes: i32) -> String {
    let local = DateTime((seconds + i64::from(offset_minutes) * 60) * 1000);
    let sign = if offset_minutes < 0 { '-' } else { '+' };
    let offset = offset_minutes.unsigned_abs();
    format!("{local}{sign}{:02}:{:02}", offset / 60, offset % 60)
}
