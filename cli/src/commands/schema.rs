//! `masterctl schema infer FILE`: draft schema files from a workbook's (or CSV file's)
//! headers and values — types, enums, optional fields, a likely primary key and likely
//! references between its sheets.

use std::path::PathBuf;

use masterctl_migrate::infer::infer_file;
use masterctl_migrate::written::{Written, write_drafts};
use serde::Serialize;

use super::Failure;
use crate::output::{Output, Render, counted};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Draft schemas from a workbook or CSV file (printed, or written with --out)
    Infer(InferArgs),
}

#[derive(clap::Args)]
pub struct InferArgs {
    /// The workbook (xlsx, xlsm, xlsb, xls, ods), CSV or tab-separated file (tsv, txt) to
    /// draft from
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Write one <table>.toml per sheet into this folder instead of printing
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// With --out, replace schema files that already exist
    #[arg(long)]
    force: bool,
}

pub fn run(command: Command, output: &Output) -> Result<(), Failure> {
    let Command::Infer(args) = command;
    if !args.file.is_file() {
        return Err(Failure::usage(format!(
            "{} is not a file",
            args.file.display()
        )));
    }
    // A file that cannot be read is the machine's; one that holds nothing to draft is
    // the data's (exit 1, as any rejected data).
    let drafts = infer_file(&args.file).map_err(|d| {
        let said = format!("{}: {}", d.location.place().trim(), d.message);
        let failure = match d.code {
            masterctl_schemas::Code::UnreadableFile => Failure::environment(said),
            _ => Failure::invalid(said),
        };
        match d.hint {
            Some(hint) => failure.hint(hint),
            None => failure,
        }
    })?;
    if drafts.is_empty() {
        return Err(Failure::invalid(format!(
            "{} has no sheet with a header row to draft from",
            args.file.display()
        )));
    }
    if let Some(dir) = &args.out {
        let written = write_drafts(dir, &drafts, args.force)
            .map_err(|e| Failure::environment(e.to_string()))?;
        if written.written.is_empty() {
            let kept = written.kept.len();
            return Err(Failure::usage(format!(
                "nothing written: {} already exist{} in {}",
                counted(kept, "schema file"),
                if kept == 1 { "s" } else { "" },
                dir.display()
            ))
            .hint("pass --force to replace them, or choose another --out folder"));
        }
        output.render(&Shown(&written));
        return Ok(());
    }
    let schemas: Vec<Draft> = drafts
        .iter()
        .map(|d| Draft {
            name: &d.name,
            sheet: &d.sheet,
            primary_key: &d.primary_key,
            notes: &d.notes,
            toml: d.to_toml(),
        })
        .collect();
    output.render(&Drafts { schemas });
    Ok(())
}

/// Drafts written into `--out`, and those kept because their file exists.
#[derive(Serialize)]
#[serde(transparent)]
struct Shown<'a>(&'a Written);

impl Render for Shown<'_> {
    fn text(&self, output: &Output) {
        for target in &self.0.written {
            output.line(format!("wrote {}", target.display()));
        }
        for target in &self.0.kept {
            output.line(format!(
                "kept  {} (it exists; --force replaces it)",
                target.display()
            ));
        }
    }
}

/// Drafts printed: each schema file's text, with what a person should check.
#[derive(Serialize)]
struct Drafts<'a> {
    schemas: Vec<Draft<'a>>,
}

#[derive(Serialize)]
struct Draft<'a> {
    name: &'a str,
    sheet: &'a str,
    primary_key: &'a [String],
    notes: &'a [String],
    toml: String,
}

impl Render for Drafts<'_> {
    fn text(&self, output: &Output) {
        for (i, draft) in self.schemas.iter().enumerate() {
            if i > 0 {
                output.line("");
            }
            output.line(format!("# ----- schemas/{}.toml -----", draft.name));
            output.line(draft.toml.trim_end());
        }
    }
}
