//! The translation workflow on a region branch: the state of every unit per language,
//! exchange files of what needs work, and taking translations back as one commit.
//!
//! The branch's own structure (the `masterctl.toml` and schemas its head holds) decides
//! which fields are text, so the units always match the data they belong to.

pub mod charset;
pub mod import;

use git2::Oid;
use masterctl_locales::apply::LanguagePair;
use masterctl_locales::exchange::{self, ExportInfo, Format};
use masterctl_locales::glossary::Glossary;
use masterctl_locales::texts::text_fields;
use masterctl_locales::{
    Checker, Counts, State, TableTexts, Unit, language_path, mark_inconsistent, records_path,
    table_units, target_languages,
};
use masterctl_schemas::Project;
use masterctl_schemas::read::parallel_map;

use crate::MasterRepo;
use crate::StoreError;
use crate::git::repo::blob_at;
use crate::names::Branch;
use crate::snapshot::{project_at, read_table_at};

/// A region's head, and the structure it holds.
pub struct RegionTexts {
    pub region: String,
    pub reference: String,
    pub head: Oid,
    pub project: Project,
}

impl RegionTexts {
    /// The languages translators work on in this region.
    pub fn targets(&self) -> Vec<&str> {
        target_languages(&self.project.config, &self.region)
    }

    /// `language`, if the region's texts are translated into it; else why not
    /// ([`StoreError::NotTranslated`]: the source language, a pseudo one, or one the
    /// region lacks) — the one rule the command line and the console both apply.
    pub fn check_target(&self, language: &str) -> Result<(), StoreError> {
        let targets = self.targets();
        if targets.contains(&language) {
            return Ok(());
        }
        let config = &self.project.config;
        let why = if language == config.source_language {
            crate::Untranslated::Source
        } else if config.pseudo.languages.iter().any(|p| p == language) {
            crate::Untranslated::Pseudo
        } else {
            crate::Untranslated::NotTheRegions
        };
        Err(StoreError::NotTranslated {
            region: self.region.clone(),
            language: language.to_string(),
            why,
            targets: targets.into_iter().map(str::to_string).collect(),
        })
    }
}

/// Open a region's head (or a work branch's) for localization work.
pub fn open_region(repo: &MasterRepo, region: &Branch) -> Result<RegionTexts, StoreError> {
    let reference = region.reference();
    let head = repo.head_of_branch(region)?;
    crate::snapshot::only_files(&head.tree()?, region.branch())?;
    let project =
        project_at(&repo.git, &head.tree()?).ok_or_else(|| StoreError::BrokenSnapshot {
            branch: region.branch().to_string(),
            message: "its masterctl.toml and schemas do not load".to_string(),
        })?;
    Ok(RegionTexts {
        region: region.name().to_string(),
        reference,
        head: head.id(),
        project,
    })
}

/// Every table with text, as source language and `language` stand in the region.
pub fn language_pairs<'p>(
    repo: &MasterRepo,
    texts: &'p RegionTexts,
    language: &str,
) -> Result<Vec<LanguagePair<'p>>, StoreError> {
    let git = &repo.git;
    let tree = git.find_commit(texts.head)?.tree()?;
    let source = &texts.project.config.source_language;
    let mut files = Vec::new();
    for schema in texts
        .project
        .tables
        .iter()
        .filter(|s| !text_fields(s).is_empty())
    {
        let paths = [
            language_path(source, &schema.name),
            language_path(language, &schema.name),
            records_path(language, &schema.name),
        ];
        let mut blobs = Vec::with_capacity(3);
        for path in paths {
            let blob = blob_at(git, &tree, &path)?;
            blobs.push((path, blob));
        }
        files.push((schema, blobs));
    }
    let branch = crate::names::branch_of(&texts.reference);
    parallel_map(&files, |(schema, blobs)| {
        let file = |i: usize| {
            let (path, bytes): &(String, Option<Vec<u8>>) = &blobs[i];
            bytes.as_deref().map(|b| (b, path.as_str()))
        };
        let broken = |e: masterctl_locales::LocaleError| StoreError::BrokenSnapshot {
            branch: branch.to_string(),
            message: e.to_string(),
        };
        Ok(LanguagePair {
            schema,
            source: TableTexts::read(schema, file(0), None).map_err(broken)?,
            target: TableTexts::read(schema, file(1), file(2)).map_err(broken)?,
        })
    })
    .into_iter()
    .collect()
}

/// The checks of `language` in a region: with its fonts (`[fonts]`) and the project's
/// glossary (the glossary tables as the region's head holds them).
pub fn checker(
    repo: &MasterRepo,
    texts: &RegionTexts,
    language: &str,
) -> Result<Checker, StoreError> {
    let config = &texts.project.config;
    let checker = Checker::of_project(config, language);
    let glossaries: Vec<&masterctl_schemas::TableSchema> =
        texts.project.tables.iter().filter(|s| s.glossary).collect();
    if glossaries.is_empty() {
        return Ok(checker);
    }
    let tree = repo.git.find_commit(texts.head)?.tree()?;
    let branch = crate::names::branch_of(&texts.reference);
    let mut glossary = Glossary::default();
    for schema in glossaries {
        if let Some(table) = read_table_at(&repo.git, &tree, &texts.project, schema, branch)? {
            glossary.add_table(schema, &table, &config.languages);
        }
    }
    Ok(checker.with_glossary(std::sync::Arc::new(glossary), config.glossary_is_error))
}

/// The units of every pair in one language, with their states, checked by `checker`
/// (see [`checker`]); a source translated two ways is marked on each of its units.
pub fn units<'p>(checker: &Checker, pairs: &'p [LanguagePair<'p>]) -> Vec<Vec<Unit<'p>>> {
    let mut units = parallel_map(pairs, |pair| {
        table_units(pair.schema, &pair.source, &pair.target, checker)
    });
    mark_inconsistent(&mut units);
    units
}

/// One table's units in one language, by state.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TableStatus {
    pub table: String,
    #[serde(flatten)]
    pub counts: Counts,
    /// The keys (`field/key`) in each state but `translated`... when asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<StateKeys>,
    /// The table's text fields that servers and clients do not both see.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub audiences: Vec<FieldAudience>,
}

/// Who sees a text field, when not servers and clients both.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FieldAudience {
    pub field: String,
    /// `server`, `client`, `design`...
    pub audience: String,
    /// Whether its texts are translated: `design` alone never leaves the repository.
    pub translated: bool,
}

/// The text fields of a table whose audience is not the default, with who sees them.
fn field_audiences(schema: &masterctl_schemas::TableSchema) -> Vec<FieldAudience> {
    use masterctl_schemas::audience::{Audience, Audiences};
    text_fields(schema)
        .into_iter()
        .map(|f| &schema.fields[f])
        .filter(|field| field.audience != Audiences::default())
        .map(|field| FieldAudience {
            field: field.name.clone(),
            audience: field.audience.to_string(),
            translated: field.audience.contains(Audience::Server)
                || field.audience.contains(Audience::Client),
        })
        .collect()
}

/// The units of one state.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StateKeys {
    pub state: State,
    /// `field/key` of each unit.
    pub units: Vec<String>,
}

/// One language of a region.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LanguageStatus {
    pub language: String,
    pub total: Counts,
    pub tables: Vec<TableStatus>,
    /// Translations the glossary or consistency checks warn about (they count as
    /// translated): how many, by check.
    pub warnings: WarningCounts,
    /// Each warning (unit and what is said), when the units were asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warned: Vec<Warned>,
    /// What the translation memory would cover of the units without translation.
    pub memory: MemoryCoverage,
}

/// How many translations each warning check names.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct WarningCounts {
    pub glossary: usize,
    pub inconsistent: usize,
}

/// One warning about one unit's translation.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Warned {
    /// `table/field/key`.
    pub unit: String,
    /// `glossary`, `inconsistent`.
    pub code: &'static str,
    pub message: String,
}

/// States of every unit of the region in `languages`; with `keys`, the units of each
/// state listed too.
pub fn status(
    repo: &MasterRepo,
    texts: &RegionTexts,
    languages: &[&str],
    keys: bool,
) -> Result<Vec<LanguageStatus>, StoreError> {
    let mut statuses = Vec::new();
    for &language in languages {
        let pairs = language_pairs(repo, texts, language)?;
        let mut total = Counts::default();
        let mut tables = Vec::new();
        let checker = checker(repo, texts, language)?;
        let mut warnings = WarningCounts::default();
        let mut warned = Vec::new();
        let mut all_units = units(&checker, &pairs);
        offer_memory(&mut all_units);
        let mut coverage = MemoryCoverage::default();
        for unit in all_units.iter().flatten() {
            match unit.memory.first() {
                Some(m) if m.score == 100 => {
                    coverage.exact += 1;
                    coverage.words_saved += masterctl_locales::memory::words(unit.source);
                }
                Some(_) => coverage.close += 1,
                None => {}
            }
        }
        for (pair, units) in pairs.iter().zip(all_units) {
            let mut counts = Counts::default();
            let mut by_state: Vec<StateKeys> = Vec::new();
            for unit in &units {
                counts.add(unit.state);
                for warning in &unit.warnings {
                    match warning.code() {
                        masterctl_schemas::Code::Glossary => warnings.glossary += 1,
                        _ => warnings.inconsistent += 1,
                    }
                    if keys {
                        warned.push(Warned {
                            unit: unit.id().to_string(),
                            code: warning.code().as_str(),
                            message: warning.message(),
                        });
                    }
                }
                if keys {
                    let place = match unit.key_text() {
                        key if key.is_empty() => unit.field.to_string(),
                        key => format!("{}/{key}", unit.field),
                    };
                    match by_state.iter_mut().find(|s| s.state == unit.state) {
                        Some(list) => list.units.push(place),
                        None => by_state.push(StateKeys {
                            state: unit.state,
                            units: vec![place],
                        }),
                    }
                }
            }
            by_state.sort_by_key(|s| State::ALL.iter().position(|&x| x == s.state));
            total.merge(&counts);
            tables.push(TableStatus {
                table: pair.schema.name.clone(),
                counts,
                keys: by_state,
                audiences: field_audiences(pair.schema),
            });
        }
        statuses.push(LanguageStatus {
            language: language.to_string(),
            total,
            tables,
            warnings,
            warned,
            memory: coverage,
        });
    }
    Ok(statuses)
}

/// The source texts whose pseudo forms overflow their fields' `max_length` (none when
/// the project has no `[pseudo]` language): boxes too small for the translations to come.
pub fn expansion_risks(
    repo: &MasterRepo,
    texts: &RegionTexts,
) -> Result<Vec<masterctl_locales::pseudo::ExpansionRisk>, StoreError> {
    let config = &texts.project.config;
    if config.pseudo.languages.is_empty() {
        return Ok(Vec::new());
    }
    let pairs = language_pairs(repo, texts, &config.source_language)?;
    let expansion = config.pseudo.expansion;
    let risks = parallel_map(&pairs, |pair| {
        masterctl_locales::pseudo::expansion_risks(pair.schema, &pair.source, expansion)
    });
    Ok(risks.into_iter().flatten().collect())
}

/// What the language's confirmed translations offer each unit without translation (an
/// exact match, else close ones), looked up on every core.
fn offer_memory(units: &mut [Vec<Unit<'_>>]) {
    if !units.iter().flatten().any(|u| u.state == State::Missing) {
        return;
    }
    let confirmed = units.iter().flatten().filter_map(|unit| match unit.state {
        State::Translated => Some((unit.source, unit.translation?, unit.id().to_string())),
        _ => None,
    });
    let memory = masterctl_locales::memory::Memory::of(confirmed);
    if memory.is_empty() {
        return;
    }
    for table in units.iter_mut() {
        let offers = parallel_map(table, |unit| match unit.state {
            State::Missing => memory.offer(unit.source),
            _ => Vec::new(),
        });
        for (unit, offered) in table.iter_mut().zip(offers) {
            unit.memory = offered;
        }
    }
}

/// How much of a language the translation memory would cover: units without
/// translation with an exact match (and the words they hold), and with close ones.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct MemoryCoverage {
    pub exact: usize,
    pub close: usize,
    /// Words of the sources an exact match covers (each character, in scripts written
    /// without spaces).
    pub words_saved: usize,
}

/// An exchange file's bytes, and how many units of each state it holds.
pub struct Export {
    pub bytes: Vec<u8>,
    pub counts: Counts,
}

/// The exchange file of what needs work in `language` (every unit with `all`).
pub fn export(
    repo: &MasterRepo,
    texts: &RegionTexts,
    language: &str,
    format: Format,
    all: bool,
) -> Result<Export, StoreError> {
    let pairs = language_pairs(repo, texts, language)?;
    let checker = checker(repo, texts, language)?;
    let mut units = units(&checker, &pairs);
    offer_memory(&mut units);
    let chosen: Vec<&Unit<'_>> = units
        .iter()
        .flatten()
        .filter(|u| all || u.state.needs_work())
        .collect();
    let mut counts = Counts::default();
    for unit in &chosen {
        counts.add(unit.state);
    }
    let commit = texts.head.to_string();
    let info = ExportInfo {
        region: &texts.region,
        source_language: &texts.project.config.source_language,
        language,
        commit: &commit,
        commit_time: repo.git.find_commit(texts.head)?.time().seconds(),
    };
    Ok(Export {
        bytes: exchange::write(format, &chosen, &info)
            .map_err(StoreError::csv("the exchange file"))?,
        counts,
    })
}
