//! `masterctl export --region R [--branch NAME | --rev REV] --out DIR [--format xlsx|ods|csv]
//! [--lang L,...]`: a region's
//! data as the workbooks (or CSV files) its schemas read, each recording the commit it
//! came from — what a planner edits and imports back.

use std::path::PathBuf;

use masterctl_store::export::{Exported, Format};
use masterctl_store::short_id;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, counted};

#[derive(clap::Args)]
#[command(after_help = "\
Formats (--format): xlsx (the default), ods (LibreOffice's own), csv (one file per table).
Each file records the commit it holds; an import of it after the region moved on is merged
as the edit made since then, never taking back what arrived meanwhile.

Examples:
  masterctl export --region jp --out today/                      xlsx workbooks to edit
  masterctl export --region jp --out today/ --format ods         OpenDocument spreadsheets
  masterctl export --region global --rev masters/global~3 --out old/   an earlier commit
  masterctl export --region jp --lang en --out review/           translations beside the texts")]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region whose data to export (a [regions.R] of masterctl.toml)
    #[arg(long, value_name = "R")]
    region: String,
    /// The folder to write the workbooks into (created; a workbook of the same name is
    /// replaced, other files are left alone)
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Export this commit instead of the region's head (a sha, a tag, `masters/jp~2`...)
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// Export the head of the region's work branch NAME (`work/<region>/<NAME>`)
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
    /// For review: after each text field, a column per language given (`#name@en`)
    /// holding its translations (comma-separated or repeated; import passes over these
    /// comment columns, so the workbook still imports back unchanged)
    #[arg(long = "lang", value_name = "L,...", value_delimiter = ',')]
    languages: Vec<String>,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let line = super::line(&structure, &args.region, args.branch.as_deref())?;
    let format = match global.format {
        crate::output::Format::Csv => Format::Csv,
        crate::output::Format::Ods => Format::Ods,
        _ => Format::Xlsx,
    };
    let written = masterctl_app::export::export(
        &repo,
        &line,
        args.rev.as_deref(),
        &args.languages,
        format,
        &args.out,
    )
    .map_err(store_failure)?;
    output.render(&Shown(written));
    Ok(())
}

#[derive(serde::Serialize)]
#[serde(transparent)]
struct Shown(Exported);

impl Render for Shown {
    fn text(&self, output: &Output) {
        let e = &self.0;
        output.line(format!(
            "{} {} of {} ({}) into {}",
            output.bold("exported"),
            counted(
                e.files.len(),
                if e.files.iter().all(|f| f.path.ends_with(".csv")) {
                    "CSV file"
                } else {
                    "workbook"
                }
            ),
            e.region,
            short_id(&e.commit),
            e.out.display()
        ));
        for file in &e.files {
            let tables: Vec<String> = file
                .tables
                .iter()
                .map(|(table, rows)| format!("{table} ({rows} rows)"))
                .collect();
            output.line(format!("  {}: {}", file.path, tables.join(", ")));
        }
        output.line("edit them, then import them back: masterctl import --region R DIR");
    }
}
