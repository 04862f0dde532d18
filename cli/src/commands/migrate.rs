//! `masterctl migrate luban DIR --out OUT`: a Luban project converted into a master
//! repository whose schemas read the studio's workbooks where they are.

use std::path::PathBuf;

use masterctl_app::migrate::Error;
use masterctl_migrate::luban::{self, MigrateError, Migration};
use masterctl_store::init::{InitError, Initialized};
use serde::Serialize;

use super::{Failure, init_failure};
use crate::output::{Output, Render};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Convert a Luban project (luban.conf, Defines/*.xml, __tables__/__beans__/__enums__,
    /// #auto-import workbooks) into masterctl.toml + schemas that read its workbooks unedited
    Luban(Args),
}

#[derive(clap::Args)]
pub struct Args {
    /// The Luban project: the folder holding luban.conf
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// Where to create the master repository (a new or empty folder)
    #[arg(long, value_name = "OUT")]
    out: PathBuf,
    /// The region to import into (branch masters/<region>)
    #[arg(long, default_value = "main", value_name = "NAME")]
    region: String,
    /// The project's languages, the source language first
    #[arg(
        long,
        default_value = "zh",
        value_delimiter = ',',
        value_name = "LANG,..."
    )]
    languages: Vec<String>,
    /// Luban's l10n table, a workbook or CSV file (a `key` column, one per language):
    /// `text` fields, which hold its keys, are checked against it
    #[arg(long, value_name = "FILE")]
    l10n: Option<PathBuf>,
    /// The header of the l10n table's key column (in any letter case)
    #[arg(long, value_name = "COLUMN", default_value = "key", requires = "l10n")]
    l10n_key: String,
    /// How tables are named: `short` (`demo.TbItem` → `item`) or `full` (the studio's
    /// whole name: `demo_tb_item`); each schema's first comment records the Luban name
    #[arg(long, value_name = "STYLE", default_value = "short", value_parser = ["short", "full"])]
    table_names: String,
    /// The time zone Luban exported in (IANA: Asia/Shanghai): what a datetime written
    /// without an offset means; UTC when not given (Luban used the exporting machine's)
    #[arg(long, value_name = "ZONE")]
    timezone: Option<String>,
}

pub fn run(command: Command, output: &Output) -> Result<(), Failure> {
    let Command::Luban(args) = command;
    if let Some(zone) = &args.timezone
        && let Err(e) = masterctl_schemas::Zone::named(zone)
    {
        return Err(Failure::usage(format!("--timezone `{zone}`: {e}"))
            .hint("an IANA time zone name: Asia/Shanghai, Asia/Tokyo, UTC"));
    }
    if !masterctl_schemas::load::is_identifier(&args.region) {
        return Err(
            Failure::usage(format!("--region `{}` is not a region name", args.region))
                .hint("lowercase letters, digits and `_`, starting with a letter (`main`, `cn`)"),
        );
    }
    if let Some(bad) = args
        .languages
        .iter()
        .find(|l| !masterctl_schemas::load::is_language_tag(l))
    {
        return Err(
            Failure::usage(format!("--languages: `{bad}` is not a language tag"))
                .hint("letters, digits and `-`, starting with a letter (`zh`, `en`, `zh-Hant`)"),
        );
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(twice) = args.languages.iter().find(|l| !seen.insert(*l)) {
        return Err(Failure::usage(format!("--languages names `{twice}` twice")));
    }
    if !args.dir.join("luban.conf").is_file() {
        return Err(Failure::usage(format!(
            "{}: no luban.conf in this folder",
            args.dir.display()
        ))
        .hint(
            "migrate luban takes the folder of a Luban project's luban.conf (often DataTables/)",
        ));
    }
    let options = luban::Options {
        region: args.region.clone(),
        languages: args.languages.clone(),
        l10n: args.l10n.clone(),
        l10n_key: args.l10n_key.clone(),
        timezone: args.timezone.clone(),
        table_names: match args.table_names.as_str() {
            "full" => luban::TableNames::Full,
            _ => luban::TableNames::Short,
        },
    };
    let (migration, done) =
        masterctl_app::migrate::luban(&args.dir, &options, &args.out).map_err(|e| match e {
            Error::Migrate(e) => migrate_failure(e),
            Error::Init(e @ InitError::AlreadyExists { .. }) => Failure::usage(e.to_string())
                .hint("migrate writes a new master repository: give --out a new or empty folder"),
            Error::Init(e @ InitError::NotAFolder(_)) => Failure::usage(e.to_string()),
            Error::Init(other) => init_failure(other),
        })?;
    output.render(&Migrated {
        migration: &migration,
        done: &done,
        out: &args.out,
        region: &args.region,
    });
    Ok(())
}

/// Why the project was not converted, with what to do about it.
fn migrate_failure(e: MigrateError) -> Failure {
    match e {
        MigrateError::Conf(message) => Failure::usage(message),
        MigrateError::L10nKey(message) => Failure::usage(message)
            .hint("name its key column: --l10n-key COLUMN (ID, TID…, in any letter case)"),
        MigrateError::Definitions { .. } => Failure::invalid(e.to_string())
            .hint("the definitions file must be one Luban reads; nothing was written"),
        MigrateError::Nothing(ref skipped) => {
            let reasons: Vec<String> = skipped
                .iter()
                .filter(|n| n.field.is_none())
                .take(5)
                .map(|n| format!("{}: {}", n.luban_table, n.reason))
                .collect();
            let hint = match reasons.is_empty() {
                true => "the definitions declare no table (<table> in Defines, rows of __tables__, #Name.xlsx workbooks)".to_string(),
                false => reasons.join("; "),
            };
            Failure::invalid(e.to_string()).hint(hint)
        }
        MigrateError::Converted(report) => Failure::InvalidSchema(report),
    }
}

#[derive(Serialize)]
struct Migrated<'a> {
    #[serde(flatten)]
    migration: &'a Migration,
    #[serde(flatten)]
    done: &'a Initialized,
    out: &'a std::path::Path,
    region: &'a str,
}

impl Render for Migrated<'_> {
    fn text(&self, output: &Output) {
        let m = self.migration;
        let skipped_tables = m.not_converted.iter().filter(|n| n.field.is_none()).count();
        let records = match m.records.len() {
            0 => String::new(),
            1 => ", 1 record".to_string(),
            n => format!(", {n} records"),
        } + &match m.unions.len() {
            0 => String::new(),
            1 => ", 1 union".to_string(),
            n => format!(", {n} unions"),
        };
        output.line(format!(
            "converted {} of {} tables ({} enums{records}) into {}",
            m.tables.len(),
            m.tables.len() + skipped_tables,
            m.enums,
            self.out.display()
        ));
        for table in &m.tables {
            let key = match table.kind {
                "table" => format!("key {}", table.primary_key.join(" + ")),
                kind => format!("a {kind}"),
            };
            output.line(format!(
                "  {} -> {} ({}, {} fields, {key})",
                table.luban, table.table, table.source, table.fields,
            ));
        }
        for record in &m.records {
            let fields = match record.fields {
                1 => "1 field".to_string(),
                n => format!("{n} fields"),
            };
            output.line(format!(
                "  {} -> {} (a record of {fields}, separated by `{}`)",
                record.luban, record.record, record.separator
            ));
        }
        for union in &m.unions {
            output.line(format!(
                "  {} -> {} (a union of {} cases, each named first, separated by `{}`)",
                union.luban, union.union, union.cases, union.separator
            ));
        }
        if let Some(table) = &m.l10n_table {
            output.line(format!(
                "  Luban's l10n table -> {} ({}, {} languages), the keys of text fields",
                table.table,
                table.source,
                table.fields - 1
            ));
        }
        if !m.not_converted.is_empty() {
            output.line("");
            output.line(output.flagged(&format!("not converted ({}):", m.not_converted.len())));
            for n in &m.not_converted {
                output.line(format!("  {}: {}", what(n), n.reason));
            }
        }
        if !m.notes.is_empty() {
            output.line("");
            output.line(format!("converted with a change ({}):", m.notes.len()));
            for n in &m.notes {
                output.line(format!("  {}: {}", what(n), n.reason));
            }
        }
        if !m.refused.is_empty() {
            output.line("");
            output.line(output.flagged(&format!("not read ({}):", m.refused.len())));
            for r in &m.refused {
                output.line(format!("  {}: {}", r.path, r.reason));
            }
        }
        if self.done.git_repository_created {
            output.line(format!(
                "created a git repository in {}",
                self.out.display()
            ));
        }
        output.line("");
        output.line("next: check the workbooks, where they are, then import them:");
        output.line(format!(
            "  masterctl --repo {} validate {}",
            self.out.display(),
            m.data_dir.display()
        ));
        output.line(format!(
            "  masterctl --repo {} import --region {} {}",
            self.out.display(),
            self.region,
            m.data_dir.display()
        ));
    }
}

/// What a listed item concerns: a table (`test.TbItem`) or one of its fields.
fn what(n: &luban::NotConverted) -> String {
    match &n.field {
        Some(field) => format!("{}.{field}", n.luban_table),
        None => n.luban_table.clone(),
    }
}
