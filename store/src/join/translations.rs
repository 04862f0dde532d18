//! Translations in a rebase: every language table but the source language's, merged
//! three-way with the record of each translation's source (see
//! [`masterctl_locales::merge`]). A translation the region keeps while upstream changed
//! its source stays as it is, and shows stale because its recorded source is no longer
//! the source.
//!
//! Conflicts are named `<table>@<language>` (`item@en`), with the text field as column,
//! in the same conflict file and with the same resolutions as table conflicts.

use std::collections::BTreeSet;

use git2::{Repository, Tree};
use masterctl_locales::merge::{Settle, TextConflictKind, merge_texts, settle};
use masterctl_locales::texts::text_fields;
use masterctl_locales::units::key_text;
use masterctl_locales::{SourceRecord, language_path, records_path};
use masterctl_schemas::{Project, Table, TableSchema, Value};

use super::resolutions::{Resolution, Resolutions};
use super::{TableConflicts, TableRebase};
use crate::StoreError;
use crate::merge::{Conflict, ConflictKind, Ownership};
use crate::snapshot::{texts_at, tree_blobs};

/// What merging the translations gave.
#[derive(Default)]
pub struct TranslationMerge {
    /// Files to write (`Some`) or remove (`None`) over the region's.
    pub files: Vec<(String, Option<Vec<u8>>)>,
    pub conflicts: Vec<TableConflicts>,
    pub summary: Vec<TableRebase>,
}

/// The three trees of a rebase, in merge order.
pub struct Trees<'a> {
    pub base: &'a Tree<'a>,
    pub theirs: &'a Tree<'a>,
    pub ours: &'a Tree<'a>,
}

/// Merge every translation file of the three trees under the merged `project`;
/// `merged` (the merged tables) gives today's source texts for value resolutions.
pub fn merge_translations(
    git: &Repository,
    trees: &Trees<'_>,
    project: &Project,
    owns: &[String],
    resolutions: &Resolutions,
    merged: &[Table],
    branch: &str,
) -> Result<TranslationMerge, StoreError> {
    let source = &project.config.source_language;
    let (base_blobs, their_blobs, our_blobs) = (
        tree_blobs(git, trees.base)?,
        tree_blobs(git, trees.theirs)?,
        tree_blobs(git, trees.ours)?,
    );
    // Every language with files on any side, but the source language.
    let languages: BTreeSet<&str> = [&base_blobs, &their_blobs, &our_blobs]
        .into_iter()
        .flat_map(|blobs| blobs.keys())
        .filter_map(|path| path.strip_prefix("locales/")?.split_once('/'))
        .map(|(language, _)| language)
        .filter(|language| language != source)
        .collect();
    let mut result = TranslationMerge::default();
    for schema in project.tables.iter().filter(|s| !text_fields(s).is_empty()) {
        for &language in &languages {
            let paths = [
                language_path(language, &schema.name),
                records_path(language, &schema.name),
            ];
            if paths
                .iter()
                .all(|p| base_blobs.get(p) == their_blobs.get(p))
            {
                continue;
            }
            let read = |tree: &Tree<'_>| texts_at(git, tree, schema, language, branch);
            let (base, theirs, ours) = (read(trees.base)?, read(trees.theirs)?, read(trees.ours)?);
            let fields = text_fields(schema);
            let ownership = Ownership::of(schema, owns);
            let owned: Vec<bool> = fields
                .iter()
                .map(|f| ownership.table || ownership.columns.contains(f))
                .collect();
            let mut outcome = merge_texts(&base, &theirs, &ours, &owned);
            let label = format!("{}@{language}", schema.name);
            let today = merged.iter().find(|t| t.name == schema.name);
            let mut unresolved = Vec::new();
            let mut resolved = 0;
            for conflict in std::mem::take(&mut outcome.conflicts) {
                let column = schema.fields[fields[conflict.position]].name.clone();
                let how = match resolutions.get(&(label.clone(), key_text(&conflict.key), column)) {
                    None => {
                        unresolved.push(conflict);
                        continue;
                    }
                    Some(Resolution::Ours) => Settle::Ours,
                    Some(Resolution::Theirs) => Settle::Theirs,
                    Some(Resolution::Value(text)) => {
                        let made_from = today
                            .and_then(|t| {
                                source_text(schema, t, &conflict.key, fields[conflict.position])
                            })
                            .unwrap_or_default();
                        Settle::Text(text.clone(), SourceRecord::of(&made_from))
                    }
                };
                settle(&mut outcome.merged, &theirs, &conflict, how);
                resolved += 1;
            }
            if !unresolved.is_empty() {
                result.conflicts.push(TableConflicts {
                    table: label.clone(),
                    fields: schema
                        .primary_key
                        .iter()
                        .chain(&fields)
                        .map(|&f| schema.fields[f].name.clone())
                        .collect(),
                    conflicts: unresolved
                        .into_iter()
                        .map(|c| Conflict {
                            kind: match c.kind {
                                TextConflictKind::Changed => ConflictKind::Cell,
                                TextConflictKind::DeletedUpstream => ConflictKind::DeletedUpstream,
                                TextConflictKind::DeletedInRegion => ConflictKind::DeletedInRegion,
                                TextConflictKind::BothAdded => ConflictKind::BothAdded,
                            },
                            field: schema.primary_key.len() + c.position,
                            key: c.key,
                            base: c.base.map(|t| Value::Str(t.into())),
                            ours: c.ours.map(|t| Value::Str(t.into())),
                            theirs: c.theirs.map(|t| Value::Str(t.into())),
                        })
                        .collect(),
                    reason: String::new(),
                });
            }
            if outcome.applied + outcome.kept + resolved > 0 {
                result.summary.push(TableRebase {
                    table: label,
                    applied: outcome.applied,
                    kept: outcome.kept,
                    resolved,
                    seeded: 0,
                });
            }
            let texts = (outcome.merged.texts_csv(schema)).map_err(StoreError::csv(&paths[0]))?;
            let records =
                (outcome.merged.records_csv(schema)).map_err(StoreError::csv(&paths[1]))?;
            result.files.push((paths[0].clone(), texts));
            result.files.push((paths[1].clone(), records));
        }
    }
    Ok(result)
}

/// Today's source text of a row's text field in a merged table.
fn source_text(schema: &TableSchema, table: &Table, key: &[Value], field: usize) -> Option<String> {
    let row = (0..table.row_count()).find(|&row| {
        schema
            .primary_key
            .iter()
            .zip(key)
            .all(|(&k, v)| table.value(row, k) == v)
    })?;
    table.value(row, field).as_str().map(str::to_string)
}
