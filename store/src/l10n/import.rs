//! Taking an exchange file back: read, match each unit to its place, check, and commit
//! the changed language files as one commit. The CLI and the console call [`run`] and
//! render the [`TranslationOutcome`] it returns.

use std::path::{Path, PathBuf};

use git2::Oid;
use masterctl_locales::apply::{Applied, TableImport, apply};
use masterctl_locales::exchange::{self, Format};
use masterctl_locales::{language_path, records_path};
use masterctl_schemas::{Code, Diagnostic, Location, Report};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{language_pairs, open_region};
use crate::MasterRepo;
use crate::StoreError;
use crate::names::{Branch, Region};
use crate::snapshot::commit::{CommitSpec, TRANSLATION_TRAILER, WORK_TOOK_TRAILER};
use crate::snapshot::{Snapshot, read_files};

/// What to take back, and how far to go.
pub struct Request<'a> {
    pub region: &'a str,
    /// One of the region's work branches instead.
    pub branch: Option<&'a str>,
    /// An exchange file (XLIFF, PO or CSV).
    pub file: &'a Path,
    /// The language it holds, when the file does not say.
    pub language: Option<&'a str>,
    /// The translator's words for the commit message.
    pub message: Option<&'a str>,
    /// Check and count only; write nothing.
    pub dry_run: bool,
}

/// What taking an exchange file came to.
#[derive(Debug)]
pub enum TranslationOutcome {
    /// The file was rejected: every diagnostic, nothing written.
    Rejected(Report),
    /// Taken (or, for a dry run or a file that changes nothing, counted).
    Taken(Taken),
}

/// What taking a file did, per table, and where it left the branch.
#[derive(Debug, Serialize)]
pub struct Taken {
    #[serde(flatten)]
    pub state: TakenState,
    pub region: String,
    pub branch: String,
    pub language: String,
    pub format: &'static str,
    pub tables: Vec<TableImport>,
    /// Units left as they were: still marked for review (fuzzy, needs-review).
    pub unconfirmed: usize,
    /// Units without translation.
    pub untranslated: usize,
    /// Sources changed since the export, and the like.
    pub warnings: Vec<Diagnostic>,
}

/// Whether anything was written.
#[derive(Debug, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum TakenState {
    /// The branch holds these translations already.
    Unchanged,
    /// Counted; nothing written.
    DryRun,
    /// Committed, with this message.
    Committed { commit: String, message: String },
}

/// Take an exchange file back into a region's branch.
pub fn run(repo: &MasterRepo, request: &Request) -> Result<TranslationOutcome, StoreError> {
    let structure = repo.structure()?;
    let region = Branch::of(
        &Region::of(&structure.project, request.region)?,
        request.branch,
    )?;
    let plan = match plan(repo, &region, request.file, request.language)? {
        Planning::Rejected(report) => return Ok(TranslationOutcome::Rejected(report)),
        Planning::Planned(plan) => plan,
    };
    let state = if plan.unchanged {
        TakenState::Unchanged
    } else if request.dry_run {
        TakenState::DryRun
    } else {
        let message = message(&plan, request.message);
        let commit = commit(repo, &plan, &message)?;
        TakenState::Committed {
            commit: commit.to_string(),
            message,
        }
    };
    let TranslationImport {
        region: region_name,
        language,
        format,
        applied,
        ..
    } = *plan;
    Ok(TranslationOutcome::Taken(Taken {
        state,
        region: region_name,
        branch: region.branch().to_string(),
        language,
        format: format.as_str(),
        tables: applied.tables,
        unconfirmed: applied.unconfirmed,
        untranslated: applied.untranslated,
        warnings: applied.warnings,
    }))
}

/// Everything taking a file back would do, computed without writing.
struct TranslationImport {
    pub region: String,
    pub reference: String,
    pub parent: Oid,
    pub language: String,
    pub format: Format,
    pub file: PathBuf,
    pub sha256: String,
    pub applied: Applied,
    /// The new snapshot (the head's files with the changed language files).
    pub snapshot: Snapshot,
    /// For a work branch's first commit of its own: the region commit it took.
    pub took: Option<Oid>,
    /// True when nothing would change.
    pub unchanged: bool,
}

/// What planning a translation import gave.
enum Planning {
    Rejected(Report),
    Planned(Box<TranslationImport>),
}

/// Read, match and check an exchange file against a region's head.
fn plan(
    repo: &MasterRepo,
    region: &Branch,
    file: &Path,
    language: Option<&str>,
) -> Result<Planning, StoreError> {
    crate::join::state::refuse_if_stopped(repo, region)?;
    let texts = open_region(repo, region)?;
    let bytes = std::fs::read(file).map_err(StoreError::io(file))?;
    let sha256 = hex::encode(Sha256::digest(&bytes));
    let rejected = |diagnostics: Vec<Diagnostic>| {
        let mut report = Report { diagnostics };
        report.sort();
        Ok(Planning::Rejected(report))
    };
    let exchange = match exchange::read(&bytes, file) {
        Ok(exchange) => exchange,
        Err(diagnostics) => return rejected(diagnostics),
    };
    let targets = texts.targets();
    let Some(language) = language
        .map(str::to_string)
        .or_else(|| exchange.language.clone())
    else {
        return rejected(vec![
            Diagnostic::new(
                Code::WrongLanguage,
                Location::file(file),
                "the file does not say which language it holds",
            )
            .hint("name the language the file holds"),
        ]);
    };
    if !targets.contains(&language.as_str()) {
        let message = if texts.project.config.pseudo.languages.contains(&language) {
            format!(
                "`{language}` is a pseudo language: made from the source texts at every build, never translated"
            )
        } else {
            format!("region `{region}` does not translate into `{language}`")
        };
        return rejected(vec![
            Diagnostic::new(Code::WrongLanguage, Location::file(file), message)
                .found(language.clone())
                .expected(format!("one of: {}", targets.join(", "))),
        ]);
    }
    let mut pairs = language_pairs(repo, &texts, &language)?;
    let checker = super::checker(repo, &texts, &language)?;
    let applied = match apply(&exchange, file, &checker, &language, &mut pairs) {
        Ok(applied) => applied,
        Err(diagnostics) => return rejected(diagnostics),
    };
    let git = &repo.git;
    let mut snapshot = Snapshot::of_files(read_files(git, &git.find_commit(texts.head)?.tree()?)?);
    for changed in applied.tables.iter().filter(|t| t.changed()) {
        let Some(pair) = pairs.iter().find(|p| p.schema.name == changed.table) else {
            continue;
        };
        let name = &pair.schema.name;
        let texts_path = language_path(&language, name);
        let texts = (pair.target.texts_csv(pair.schema)).map_err(StoreError::csv(&texts_path))?;
        let records_path = records_path(&language, name);
        let records =
            (pair.target.records_csv(pair.schema)).map_err(StoreError::csv(&records_path))?;
        for (path, bytes) in [(texts_path, texts), (records_path, records)] {
            snapshot.set_file(path, bytes);
        }
    }
    let unchanged = !applied.tables.iter().any(|t| t.changed());
    Ok(Planning::Planned(Box::new(TranslationImport {
        region: region.name().to_string(),
        reference: texts.reference,
        parent: texts.head,
        language,
        format: exchange.format,
        file: file.to_path_buf(),
        sha256,
        applied,
        snapshot,
        unchanged,
        took: crate::branches::took(repo, region, Some(texts.head)),
    })))
}

/// The commit message of a translation import: a summary, a line per table, a trailer.
fn message(plan: &TranslationImport, message: Option<&str>) -> String {
    let sum = |f: fn(&masterctl_locales::apply::TableImport) -> usize| {
        plan.applied.tables.iter().map(f).sum::<usize>()
    };
    let subject = match message.map(str::trim).filter(|m| !m.is_empty()) {
        Some(words) => crate::names::one_line(words),
        None => format!(
            "Translations into {} for {}: {} added, {} updated, {} kept stale",
            plan.language,
            plan.region,
            sum(|t| t.added),
            sum(|t| t.updated),
            sum(|t| t.stale)
        ),
    };
    let mut text = format!("{subject}\n\n");
    for table in plan.applied.tables.iter().filter(|t| t.changed()) {
        text.push_str(&format!(
            "{} ({}): {} added, {} updated, {} kept stale\n",
            table.table, plan.language, table.added, table.updated, table.stale
        ));
    }
    let name = crate::names::one_line(&plan.file.file_name().map_or_else(
        || plan.file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    ));
    text.push_str(&format!(
        "\n{TRANSLATION_TRAILER}: {} {} {name} sha256:{}\n",
        plan.language,
        plan.format.as_str(),
        plan.sha256
    ));
    if let Some(took) = plan.took {
        text.push_str(&format!("{WORK_TOOK_TRAILER}: {took}\n"));
    }
    text
}

/// Write the plan's commit and move the branch only if it still points where the plan
/// started.
fn commit(repo: &MasterRepo, plan: &TranslationImport, message: &str) -> Result<Oid, StoreError> {
    crate::committing::commit_snapshot(
        repo,
        &plan.snapshot,
        &CommitSpec {
            reference: &plan.reference,
            expected: Some(plan.parent),
            parents: &[plan.parent],
            message,
            log_message: &format!("masterctl l10n import: {} {}", plan.region, plan.language),
        },
    )
}
