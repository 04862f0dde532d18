//! Taking translations back: every unit of an exchange file is matched by its id and
//! checked before any is accepted; one failure rejects the whole file.
//!
//! A unit whose source changed since it was exported (the file's source is not today's)
//! is kept with the source it was made from, so it shows as stale, and reported. An
//! unconfirmed unit (fuzzy, needing review) and a unit without translation are left as
//! they are.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use masterctl_schemas::read::parallel_map;
use masterctl_schemas::{Code, Diagnostic, Location, TableSchema, Value};
use serde::Serialize;

use crate::checks::{Checker, Failure};
use crate::exchange::{ExchangeFile, ReturnedUnit};
use crate::texts::{Key, SourceRecord, TableTexts, text_fields};
use crate::units::key_text;

/// One table with text, as it stands in the region: its source-language texts and the
/// target language's translations.
pub struct LanguagePair<'a> {
    pub schema: &'a TableSchema,
    pub source: TableTexts,
    pub target: TableTexts,
}

/// What an import did to one table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TableImport {
    pub table: String,
    /// Units that had no translation and now have one.
    pub added: usize,
    /// Units whose translation (or recorded source) changed.
    pub updated: usize,
    /// Units handed back exactly as they stand.
    pub unchanged: usize,
    /// Units taken, but kept stale because their source changed since the export.
    pub stale: usize,
}

impl TableImport {
    pub fn changed(&self) -> bool {
        self.added + self.updated + self.stale > 0
    }
}

/// The outcome of an accepted file.
#[derive(Debug, Clone, Default)]
pub struct Applied {
    /// Per table with any unit in the file, in schema order.
    pub tables: Vec<TableImport>,
    /// Units left as they are: unconfirmed, or without translation.
    pub unconfirmed: usize,
    pub untranslated: usize,
    /// Warnings (sources changed since the export).
    pub warnings: Vec<Diagnostic>,
}

/// A unit of the file matched to its place, with the texts to check.
struct Matched<'a> {
    unit: &'a ReturnedUnit,
    table: usize,
    position: usize,
    key: &'a Key,
    current: &'a str,
    made_from: &'a str,
    translation: &'a str,
}

/// Check and apply every unit of `file` to `pairs` (their targets are updated in
/// place); on any error, the diagnostics and no change worth keeping.
pub fn apply(
    file: &ExchangeFile,
    path: &Path,
    checker: &Checker,
    language: &str,
    pairs: &mut [LanguagePair<'_>],
) -> Result<Applied, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut applied = Applied::default();
    if let Some(declared) = &file.language
        && declared != language
    {
        errors.push(
            Diagnostic::new(
                Code::WrongLanguage,
                Location::file(path),
                format!("the file holds `{declared}` translations, not `{language}`"),
            )
            .found(declared.clone())
            .expected(language.to_string()),
        );
        return Err(errors);
    }
    // The source side is only read and the target side only written: borrowed apart,
    // units can point into the sources while the targets change.
    let mut schemas = Vec::with_capacity(pairs.len());
    let mut sources = Vec::with_capacity(pairs.len());
    let mut targets = Vec::with_capacity(pairs.len());
    for pair in pairs.iter_mut() {
        schemas.push(pair.schema);
        sources.push(&pair.source);
        targets.push(&mut pair.target);
    }
    let fields: Vec<Vec<usize>> = schemas.iter().map(|s| text_fields(s)).collect();
    let catalog = Catalog {
        path,
        schemas: &schemas,
        sources: &sources,
        fields: &fields,
        // Keys by their text, per table: how exchange files name rows.
        keys: sources
            .iter()
            .map(|source| source.rows.keys().map(|key| (key_text(key), key)).collect())
            .collect(),
    };
    let location = |unit: &ReturnedUnit| catalog.location(unit);

    // 1. Match every unit to its table, field and row.
    let matched = catalog.match_units(file, &mut applied, &mut errors);

    // 2. Check every translation (the costly part, on every core).
    let max_length =
        |m: &Matched<'_>| schemas[m.table].fields[fields[m.table][m.position]].max_length;
    let chunks: Vec<&[Matched<'_>]> = matched.chunks(4096).collect();
    let failures = parallel_map(&chunks, |chunk| {
        chunk
            .iter()
            .map(|m| checker.check(m.made_from, m.translation, max_length(m)))
            .collect::<Vec<_>>()
    });
    for (m, failures) in matched.iter().zip(failures.into_iter().flatten()) {
        for failure in failures {
            let mut diagnostic = expecting(
                Diagnostic::new(failure.code(), location(m.unit), failure.message())
                    .found(m.translation.to_string()),
                &failure,
                m.made_from,
            );
            if !failure.expected_names_source() {
                diagnostic = source_hint(diagnostic, m.made_from);
            }
            // A check that warns by default refuses when the project says so.
            diagnostic.severity = masterctl_schemas::Severity::Error;
            errors.push(diagnostic);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // What is warned about is said, and taken all the same (a glossary miss).
    for m in &matched {
        for warning in checker.warnings(m.made_from, m.translation) {
            let diagnostic = expecting(
                Diagnostic::new(warning.code(), location(m.unit), warning.message())
                    .found(m.translation.to_string()),
                &warning,
                m.made_from,
            );
            applied.warnings.push(source_hint(diagnostic, m.made_from));
        }
    }

    // 3. Take them.
    applied.tables = take(
        &matched,
        &schemas,
        &mut targets,
        &mut applied.warnings,
        &location,
    );
    Ok(applied)
}

/// Take the matched, checked translations into the targets; what each table took.
fn take(
    matched: &[Matched<'_>],
    schemas: &[&TableSchema],
    targets: &mut [&mut TableTexts],
    warnings: &mut Vec<Diagnostic>,
    location: &dyn Fn(&ReturnedUnit) -> Location,
) -> Vec<TableImport> {
    let mut counts: BTreeMap<usize, TableImport> = BTreeMap::new();
    for m in matched {
        let count = counts.entry(m.table).or_insert_with(|| TableImport {
            table: schemas[m.table].name.clone(),
            ..TableImport::default()
        });
        let record = SourceRecord::of(m.made_from);
        // A row made here for a unit that then changes nothing is dropped below.
        let row = targets[m.table].row_mut(m.key);
        let before = row.text(m.position).is_some();
        if row.text(m.position) == Some(m.translation) && row.record(m.position) == Some(&record) {
            count.unchanged += 1;
            continue;
        }
        if m.made_from != m.current {
            count.stale += 1;
            warnings.push(
                Diagnostic::new(
                    Code::SourceChanged,
                    location(m.unit),
                    format!(
                        "the source of {} changed since the export; the translation is kept, marked stale",
                        m.unit.id
                    ),
                )
                .found(m.made_from.to_string())
                .expected(m.current.to_string()),
            );
        } else if before {
            count.updated += 1;
        } else {
            count.added += 1;
        }
        row.texts[m.position] = Value::Str(m.translation.into());
        row.records[m.position] = Some(record);
    }
    // A row made for a unit that then changed nothing holds no text: it goes.
    for target in targets.iter_mut() {
        target
            .rows
            .retain(|_, row| row.texts.iter().any(|t| !t.is_null()));
    }
    counts.into_values().collect()
}

/// The tables a file's units are matched against: their schemas, source texts, text
/// fields and keys by their text.
struct Catalog<'c> {
    path: &'c Path,
    schemas: &'c [&'c TableSchema],
    sources: &'c [&'c TableTexts],
    fields: &'c [Vec<usize>],
    keys: Vec<HashMap<String, &'c Key>>,
}

impl<'c> Catalog<'c> {
    /// Where a unit is, for its diagnostics.
    fn location(&self, unit: &ReturnedUnit) -> Location {
        Location {
            line: Some(unit.line),
            table: Some(unit.id.table.clone()),
            field: Some(unit.id.field.clone()),
            key: Some(unit.id.key.clone()),
            ..Location::file(self.path)
        }
    }

    /// Every unit with a translation, confirmed, matched to its table, field and row;
    /// an error for each unit that is repeated or names what is not there.
    fn match_units<'f>(
        &self,
        file: &'f ExchangeFile,
        applied: &mut Applied,
        errors: &mut Vec<Diagnostic>,
    ) -> Vec<Matched<'f>>
    where
        'c: 'f,
    {
        let mut seen: HashSet<&crate::units::UnitId> = HashSet::with_capacity(file.units.len());
        let mut matched = Vec::with_capacity(file.units.len());
        for unit in &file.units {
            if !seen.insert(&unit.id) {
                errors.push(Diagnostic::new(
                    Code::DuplicateUnit,
                    self.location(unit),
                    format!("the unit {} appears more than once", unit.id),
                ));
                continue;
            }
            match self.match_unit(unit) {
                Err(why) => errors.push(
                    Diagnostic::new(Code::UnknownUnit, self.location(unit), why).hint(
                        "units are matched by table, field and key as exported; keep those as they were",
                    ),
                ),
                Ok(None) => applied.untranslated += 1,
                Ok(Some(_)) if !unit.confirmed => applied.unconfirmed += 1,
                Ok(Some(m)) => matched.push(m),
            }
        }
        matched
    }

    /// One unit: matched (`None` when it has no translation), or why it is unknown.
    fn match_unit<'f>(&self, unit: &'f ReturnedUnit) -> Result<Option<Matched<'f>>, String>
    where
        'c: 'f,
    {
        let id = &unit.id;
        let table = self
            .schemas
            .iter()
            .position(|s| s.name == id.table)
            .ok_or_else(|| format!("there is no table `{}` with text", id.table))?;
        let schema = self.schemas[table];
        let position = self.fields[table]
            .iter()
            .position(|&f| schema.fields[f].name == id.field)
            .ok_or_else(|| format!("`{}` is not a text field of `{}`", id.field, id.table))?;
        let key = *self.keys[table]
            .get(&id.key)
            .ok_or_else(|| format!("`{}` has no row with key `{}`", id.table, id.key))?;
        let current = self.sources[table]
            .text(key, position)
            .ok_or_else(|| format!("{id} has no source text to translate"))?;
        let Some(translation) = unit.translation.as_deref() else {
            return Ok(None);
        };
        Ok(Some(Matched {
            unit,
            table,
            position,
            key,
            current,
            // The source the translator worked from: the file's, when it says.
            made_from: unit.source.as_deref().unwrap_or(current),
            translation,
        }))
    }
}

/// `diagnostic` with the source text as its hint (where what it expected does not quote
/// it).
fn source_hint(diagnostic: Diagnostic, source: &str) -> Diagnostic {
    diagnostic
        .hint(format!("the source text: {source}"))
        .arg("hint", "source-text")
        .arg("source", source)
}

/// `diagnostic` expecting what `failure` expects of `source`, with the values another
/// language says it from.
fn expecting(diagnostic: Diagnostic, failure: &Failure, source: &str) -> Diagnostic {
    let (words, said) = failure.expected(source);
    (said.into_iter()).fold(diagnostic.expected(words), |d, (name, value)| {
        d.arg(name, value)
    })
}
