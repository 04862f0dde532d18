//! `masterctl l10n status|export|import`: the translator loop on a region branch —
//! what is translated, missing, stale or failing; exchange files of what needs work;
//! and translations taken back after every check passed, as one commit.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use masterctl_app::l10n as app;
use masterctl_locales::exchange::Format;
use masterctl_locales::pseudo::ExpansionRisk;
use masterctl_locales::{Counts, State};
use masterctl_store::l10n::import::{Taken, TakenState, TranslationOutcome};
use masterctl_store::l10n::{self, LanguageStatus};
use masterctl_store::{Branch, MasterRepo};
use serde::Serialize;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, counted};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Per language and table: how many texts are translated, missing, stale or failing a check
    Status(StatusArgs),
    /// Write an exchange file (XLIFF, PO or CSV) of the texts that need work in one language
    Export(ExportArgs),
    /// Take translations back from an exchange file: all checked, all taken, or none
    Import(ImportArgs),
    /// Every character a language's texts use: the file a subset font is made from
    Charset(super::charset::Args),
}

#[derive(clap::Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region (a [regions.R] of masterctl.toml)
    #[arg(long, value_name = "R")]
    region: String,
    /// A work branch of the region (work/R/NAME) instead of the region's own branch
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
    /// Only this language (default: every language of the region but the source one)
    #[arg(long, value_name = "L")]
    lang: Option<String>,
    /// List the units (field/key) in each state
    #[arg(long, short)]
    verbose: bool,
}

#[derive(clap::Args)]
#[command(after_help = "\
Exchange formats (--format, or the extension of --out):
  xliff  XLIFF 1.2 (.xlf, .xliff), for CAT tools
  po     gettext PO (.po), for Poedit, Weblate, msgmerge
  csv    CSV for spreadsheets (.csv): UTF-8 with a byte order mark")]
pub struct ExportArgs {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region (a [regions.R] of masterctl.toml)
    #[arg(long, value_name = "R")]
    region: String,
    /// A work branch of the region (work/R/NAME) instead of the region's own branch
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
    /// The target language
    #[arg(long, value_name = "L")]
    lang: String,
    /// The file to write (`-` for standard output). Its format is --format xliff|po|csv,
    /// or else its extension (.xlf/.xliff, .po, .csv)
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Every unit, translated ones too (default: only missing, stale and failing ones)
    #[arg(long)]
    all: bool,
}

#[derive(clap::Args)]
pub struct ImportArgs {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region whose branch receives the translations
    #[arg(long, value_name = "R")]
    region: String,
    /// A work branch of the region (work/R/NAME) instead of the region's own branch
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
    /// The exchange file (XLIFF, PO or CSV; the format is read from the content)
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The language, when the file does not say (it must agree when it does)
    #[arg(long, value_name = "L")]
    lang: Option<String>,
    /// Check and show what would change; write nothing
    #[arg(long)]
    dry_run: bool,
    /// Your own words for the commit message (its first line)
    #[arg(long, short, value_name = "TEXT")]
    message: Option<String>,
    #[command(flatten)]
    pub(super) sync: super::sync::SyncArgs,
}

pub fn run(command: Command, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    match command {
        Command::Status(args) => status(&repo, args, output),
        Command::Export(args) => export(&repo, args, global, output),
        Command::Import(args) => import(&repo, args, output),
        Command::Charset(args) => super::charset::run(&repo, args, output),
    }
}

/// The branch a command names: the region's, or its work branch.
fn line(repo: &MasterRepo, region: &str, work: Option<&str>) -> Result<Branch, Failure> {
    super::line(&repo.structure().map_err(store_failure)?, region, work)
}

fn status(repo: &MasterRepo, args: StatusArgs, output: &Output) -> Result<(), Failure> {
    let line = line(repo, &args.region, args.branch.as_deref())?;
    let app::Statuses {
        texts,
        languages,
        expansion_risks,
    } = app::status(repo, &line, args.lang.as_deref(), args.verbose).map_err(store_failure)?;
    output.render(&Status {
        region: &texts.region,
        commit: texts.head.to_string(),
        source_language: &texts.project.config.source_language,
        languages,
        expansion: texts.project.config.pseudo.expansion,
        expansion_risks,
        verbose: args.verbose,
    });
    Ok(())
}

/// Per language and table: how many texts are translated, missing, stale, failing.
#[derive(Serialize)]
struct Status<'a> {
    region: &'a str,
    commit: String,
    source_language: &'a str,
    languages: Vec<LanguageStatus>,
    /// How much longer the pseudo texts are (`[pseudo]`).
    #[serde(skip)]
    expansion: f64,
    /// Source texts whose pseudo forms overflow their `max_length` (with `[pseudo]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    expansion_risks: Vec<ExpansionRisk>,
    #[serde(skip)]
    verbose: bool,
}

/// Expansion risks listed one by one without --verbose.
const RISKS_LISTED: usize = 10;

impl Render for Status<'_> {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} at {} (source language {})",
            output.bold(self.region),
            masterctl_store::short_id(&self.commit),
            self.source_language
        ));
        if self.languages.is_empty() {
            output.line("  no languages to translate into");
        }
        for language in &self.languages {
            print_language(output, language);
        }
        if !self.expansion_risks.is_empty() {
            output.line(format!(
                "{}: {} leave no room for a translation {:.0}% longer",
                output.flagged("expansion-risk"),
                counted(self.expansion_risks.len(), "text"),
                self.expansion * 100.0
            ));
            let listed = if self.verbose {
                self.expansion_risks.len()
            } else {
                RISKS_LISTED
            };
            for risk in self.expansion_risks.iter().take(listed) {
                output.line(format!(
                    "  {}/{}/{}: {} characters, max_length {}",
                    risk.table, risk.field, risk.key, risk.length, risk.max_length
                ));
            }
            if self.expansion_risks.len() > listed {
                output.line(format!(
                    "  ... {} more (--verbose lists them all)",
                    self.expansion_risks.len() - listed
                ));
            }
        }
    }
}

fn print_language(output: &Output, language: &LanguageStatus) {
    output.line(format!(
        "{:<26}{:>11}{:>9}{:>7}{:>9}",
        output.bold(&language.language),
        "translated",
        "missing",
        "stale",
        "failing"
    ));
    let row = |name: &str, counts: &Counts| {
        format!(
            "  {name:<24}{:>11}{:>9}{:>7}{:>9}",
            counts.translated, counts.missing, counts.stale, counts.failing
        )
    };
    for table in &language.tables {
        output.line(row(&table.table, &table.counts));
        for field in &table.audiences {
            let seen = match field.translated {
                true => format!("      {}: for {} only", field.field, field.audience),
                false => format!(
                    "      {}: for {} only, never translated",
                    field.field, field.audience
                ),
            };
            output.line(seen);
        }
        for keys in &table.keys {
            if keys.state == State::Translated {
                continue;
            }
            for unit in &keys.units {
                output.line(format!("      {:<10} {unit}", keys.state.as_str()));
            }
        }
    }
    output.line(row("total", &language.total));
    let warnings = &language.warnings;
    if warnings.glossary + warnings.inconsistent > 0 {
        output.line(format!(
            "  {}: {} lacking a glossary term, {} translated otherwise elsewhere{}",
            output.flagged("warnings"),
            counted(warnings.glossary, "translation"),
            counted(warnings.inconsistent, "translation"),
            if language.warned.is_empty() {
                " (--verbose lists them)"
            } else {
                ""
            }
        ));
        for warned in &language.warned {
            output.line(format!(
                "      {:<12} {}: {}",
                warned.code, warned.unit, warned.message
            ));
        }
    }
    let memory = &language.memory;
    if memory.exact + memory.close > 0 {
        output.line(format!(
            "  memory: {} whose source is translated elsewhere ({} saved), {} with a close match (75% or more)",
            counted(memory.exact, "unit"),
            counted(memory.words_saved, "word"),
            memory.close,
        ));
    }
    let total = language.total.total();
    if total > 0 {
        output.line(format!(
            "  {:.1}% translated",
            language.total.translated as f64 * 100.0 / total as f64
        ));
    }
}

fn export(
    repo: &MasterRepo,
    args: ExportArgs,
    global: &GlobalArgs,
    output: &Output,
) -> Result<(), Failure> {
    let from_extension = args
        .out
        .extension()
        .and_then(|e| Format::parse(&e.to_string_lossy().to_ascii_lowercase()));
    let format = global.format.exchange().or(from_extension).ok_or_else(|| {
        Failure::usage("which exchange format? give --format xliff, po or csv")
            .hint("or name the --out file .xlf, .po or .csv")
    })?;
    let line = line(repo, &args.region, args.branch.as_deref())?;
    let (texts, export) =
        app::export(repo, &line, &args.lang, format, args.all).map_err(store_failure)?;
    let to_stdout = args.out == Path::new("-");
    if to_stdout {
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(&export.bytes)
            .and_then(|()| stdout.flush())
            .map_err(|e| Failure::environment(format!("cannot write the export: {e}")))?;
    } else {
        write_atomically(&args.out, &export.bytes)?;
    }
    if !to_stdout {
        output.render(&Exported {
            region: &texts.region,
            language: &args.lang,
            format: format.as_str(),
            file: &args.out,
            commit: texts.head.to_string(),
            units: export.counts.total(),
            counts: &export.counts,
        });
    }
    Ok(())
}

/// An exchange file written: where, in which format, how many units in each state.
#[derive(Serialize)]
struct Exported<'a> {
    region: &'a str,
    language: &'a str,
    format: &'static str,
    file: &'a Path,
    commit: String,
    units: usize,
    counts: &'a Counts,
}

impl Render for Exported<'_> {
    fn text(&self, output: &Output) {
        let counts = self.counts;
        output.line(format!(
            "wrote {} to {} ({} missing, {} stale, {} failing, {} translated)",
            counted(self.units, "unit"),
            self.file.display(),
            counts.missing,
            counts.stale,
            counts.failing,
            counts.translated
        ));
    }
}

/// Write beside the target and rename over it: a reader never sees half a file.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    masterctl_runtime::files::write_atomic(path, bytes)
        .map_err(|e| Failure::environment(format!("cannot write {}: {e}", path.display())))
}

fn import(repo: &MasterRepo, args: ImportArgs, output: &Output) -> Result<(), Failure> {
    if !args.file.is_file() {
        return Err(Failure::usage(format!(
            "{} is not a file",
            args.file.display()
        )));
    }
    let (outcome, pulled, sent) = args.sync.around(
        repo,
        &args.region,
        args.branch.as_deref(),
        output,
        |repo| {
            l10n::import::run(
                repo,
                &l10n::import::Request {
                    region: &args.region,
                    branch: args.branch.as_deref(),
                    file: &args.file,
                    language: args.lang.as_deref(),
                    message: args.message.as_deref(),
                    dry_run: args.dry_run,
                },
            )
        },
        |outcome| {
            matches!(
                outcome,
                TranslationOutcome::Taken(l10n::import::Taken {
                    state: l10n::import::TakenState::Committed { .. },
                    ..
                })
            )
        },
    )?;
    if let Ok(structure) = repo.structure() {
        super::tell_in(
            repo,
            &structure,
            |by| masterctl_app::notify::of::translations(&outcome, by),
            output,
        );
    }
    let taken = match outcome {
        TranslationOutcome::Rejected(report) => return Err(Failure::Rejected(report)),
        TranslationOutcome::Taken(taken) => taken,
    };
    if !output.is_json() && !taken.warnings.is_empty() {
        output.diagnostics(&masterctl_schemas::Report {
            diagnostics: taken.warnings.clone(),
        });
    }
    super::sync::Synced {
        result: &Shown(&taken),
        pulled: &pulled,
        pushed: sent.as_ref(),
    }
    .show(output)
}

/// What taking an exchange file did: nothing, a dry run, or a commit.
#[derive(Serialize)]
#[serde(transparent)]
struct Shown<'a>(&'a Taken);

impl Render for Shown<'_> {
    fn text(&self, output: &Output) {
        let taken = self.0;
        let branch = &taken.branch;
        match &taken.state {
            TakenState::Committed { commit, .. } => output.line(format!(
                "{} {} on {branch}",
                output.bold("committed"),
                masterctl_store::short_id(commit)
            )),
            TakenState::Unchanged => output.line(format!(
                "nothing changed: {branch} already holds these translations; no commit was made"
            )),
            TakenState::DryRun => output.line("dry run: taking the file would change:"),
        }
        for table in &taken.tables {
            output.line(format!(
                "  {:<24} {:>6} added {:>6} updated {:>6} kept stale {:>6} unchanged",
                table.table, table.added, table.updated, table.stale, table.unchanged
            ));
        }
        if taken.unconfirmed > 0 {
            output.line(format!(
                "  {} still marked for review (fuzzy, needs-review) left as {}",
                counted(taken.unconfirmed, "unit"),
                if taken.unconfirmed == 1 {
                    "it was"
                } else {
                    "they were"
                }
            ));
        }
        if taken.untranslated > 0 {
            output.line(format!(
                "  {} without translation",
                counted(taken.untranslated, "unit")
            ));
        }
        if matches!(taken.state, TakenState::DryRun) {
            output.line("nothing was written");
        }
    }
}
