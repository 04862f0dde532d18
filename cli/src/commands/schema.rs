//! `masterctl schema infer FILE`: draft schema files from a workbook's (or CSV file's)
//! headers and values — types, enums, optional fields, a likely primary key and likely
//! references between its sheets.

use std::path::PathBuf;

use masterctl_schemas::infer::infer_file;

use super::Failure;
use crate::output::Output;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Draft schemas from a workbook or CSV file (printed, or written with --out)
    Infer(InferArgs),
}

#[derive(clap::Args)]
pub struct InferArgs {
    /// The workbook (xlsx, xlsm, xlsb, xls, ods) or CSV file to draft from
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
    let drafts = infer_file(&args.file).map_err(|d| {
        let failure = Failure::usage(format!("{}: {}", d.location.place().trim(), d.message));
        match d.hint {
            Some(hint) => failure.hint(hint),
            None => failure,
        }
    })?;
    if drafts.is_empty() {
        return Err(Failure::usage(format!(
            "{} has no sheet with a header row to draft from",
            args.file.display()
        )));
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::environment(format!("cannot create {}: {e}", dir.display())))?;
        let targets: Vec<PathBuf> = drafts
            .iter()
            .map(|d| dir.join(format!("{}.toml", d.name)))
            .collect();
        if !args.force
            && let Some(existing) = targets.iter().find(|p| p.exists())
        {
            return Err(
                Failure::usage(format!("{} already exists", existing.display()))
                    .hint("pass --force to replace it, or choose another --out folder"),
            );
        }
        for (draft, target) in drafts.iter().zip(&targets) {
            std::fs::write(target, draft.to_toml()).map_err(|e| {
                Failure::environment(format!("cannot write {}: {e}", target.display()))
            })?;
        }
        if output.is_json() {
            output.json(&serde_json::json!({ "ok": true, "written": targets }));
        } else {
            for target in &targets {
                output.line(format!("wrote {}", target.display()));
            }
        }
        return Ok(());
    }
    if output.is_json() {
        let list: Vec<_> = drafts
            .iter()
            .map(|d| serde_json::json!({ "name": d.name, "sheet": d.sheet, "primary_key": d.primary_key, "notes": d.notes, "toml": d.to_toml() }))
            .collect();
        output.json(&serde_json::json!({ "ok": true, "schemas": list }));
    } else {
        for (i, draft) in drafts.iter().enumerate() {
            if i > 0 {
                output.line("");
            }
            output.line(format!("# ----- schemas/{}.toml -----", draft.name));
            output.line(draft.to_toml().trim_end());
        }
    }
    Ok(())
}
