//! Taking translations back: every unit of an exchange file is matched by its id and
//! checked before any is accepted; one failure rejects the whole file.
//!
//! A unit whose source changed since it was exported (the file's source is not today's)
//! is kept with the source it was made from, so it shows as stale, and reported. An
//! unconfirmed unit (fuzzy, needing review) and a unit without translation are left as
//! they are.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use masterctl_schemas::{Code, Diagnostic, Location, TableSchema};
use serde::Serialize;

use crate::checks::Checker;
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

/// Check and apply every unit of `file` to `pairs` (their targets are updated in
/// place); on any error, the diagnostics and no change worth keeping.
pub fn apply(
    file: &ExchangeFile,
    path: &Path,
    language: &str,
    pairs: &mut [LanguagePair<'_>],
) -> Result<Applied, Vec<Diagnostic>> {
    let checker = Checker::new(language);
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
    // Keys by their text, per table: how exchange files name rows.
    let keys: Vec<HashMap<String, Key>> = pairs
        .iter()
        .map(|pair| {
            pair.source
                .rows
                .keys()
                .map(|key| (key_text(key), key.clone()))
                .collect()
        })
        .collect();
    let mut seen: HashSet<&crate::units::UnitId> = HashSet::with_capacity(file.units.len());
    let mut counts: BTreeMap<usize, TableImport> = BTreeMap::new();
    for unit in &file.units {
        let location = |unit: &ReturnedUnit| Location {
            line: Some(unit.line),
            table: Some(unit.id.table.clone()),
            field: Some(unit.id.field.clone()),
            key: Some(unit.id.key.clone()),
            ..Location::file(path)
        };
        if !seen.insert(&unit.id) {
            errors.push(Diagnostic::new(
                Code::DuplicateUnit,
                location(unit),
                format!("the unit {} appears more than once", unit.id),
            ));
            continue;
        }
        let unknown = |why: String| {
            Diagnostic::new(Code::UnknownUnit, location(unit), why).hint(
                "units are matched by table, field and key as exported; keep those as they were",
            )
        };
        let Some(index) = pairs.iter().position(|p| p.schema.name == unit.id.table) else {
            errors.push(unknown(format!(
                "there is no table `{}` with text",
                unit.id.table
            )));
            continue;
        };
        let pair = &mut pairs[index];
        let fields = text_fields(pair.schema);
        let Some(position) = fields
            .iter()
            .position(|&f| pair.schema.fields[f].name == unit.id.field)
        else {
            errors.push(unknown(format!(
                "`{}` is not a text field of `{}`",
                unit.id.field, unit.id.table
            )));
            continue;
        };
        let Some(key) = keys[index].get(&unit.id.key) else {
            errors.push(unknown(format!(
                "`{}` has no row with key `{}`",
                unit.id.table, unit.id.key
            )));
            continue;
        };
        let Some(current) = pair.source.text(key, position).map(str::to_string) else {
            errors.push(unknown(format!(
                "{} has no source text to translate",
                unit.id
            )));
            continue;
        };
        let Some(translation) = unit.translation.as_deref() else {
            applied.untranslated += 1;
            continue;
        };
        if !unit.confirmed {
            applied.unconfirmed += 1;
            continue;
        }
        // The source the translator worked from: the file's, when it says.
        let made_from = unit.source.clone().unwrap_or_else(|| current.clone());
        let changed_since = made_from != current;
        let field = &pair.schema.fields[fields[position]];
        let failures = checker.check(&made_from, translation, field.max_length);
        if !failures.is_empty() {
            for failure in failures {
                errors.push(
                    Diagnostic::new(failure.code(), location(unit), failure.message())
                        .found(translation.to_string())
                        .expected(format!("a translation of: {made_from}")),
                );
            }
            continue;
        }
        let count = counts.entry(index).or_insert_with(|| TableImport {
            table: pair.schema.name.clone(),
            ..TableImport::default()
        });
        let record = SourceRecord::of(&made_from);
        let before = pair.target.text(key, position).map(str::to_string);
        let recorded = pair.target.records.get(&(key.clone(), position));
        if before.as_deref() == Some(translation) && recorded == Some(&record) {
            count.unchanged += 1;
            continue;
        }
        if changed_since {
            count.stale += 1;
            applied.warnings.push(
                Diagnostic::new(
                    Code::SourceChanged,
                    location(unit),
                    format!(
                        "the source of {} changed since the export; the translation is kept, marked stale",
                        unit.id
                    ),
                )
                .found(made_from.clone())
                .expected(current.clone()),
            );
        } else if before.is_some() {
            count.updated += 1;
        } else {
            count.added += 1;
        }
        let width = fields.len();
        let values = pair
            .target
            .rows
            .entry(key.clone())
            .or_insert_with(|| vec![masterctl_schemas::Value::Null; width]);
        values.resize(width, masterctl_schemas::Value::Null);
        values[position] = masterctl_schemas::Value::Str(translation.into());
        pair.target.records.insert((key.clone(), position), record);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    applied.tables = counts.into_values().collect();
    Ok(applied)
}
