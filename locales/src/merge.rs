//! The three-way merge of one table's translations in one language, for a rebase: base
//! = upstream at the import point, theirs = upstream now, ours = the region.
//!
//! A cell is a translation together with the source it was made from: they move as one,
//! so a merge never pairs a translation with another source than its own (which would
//! hide that it is stale). A change on one side is taken, the same change on both is
//! taken, different changes are a conflict; cells of region-owned columns keep the
//! region's translation.

use std::collections::BTreeSet;

use crate::texts::{Key, SourceRecord, TableTexts, TextRow};

/// Why a translation could not be merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextConflictKind {
    /// Both sides changed the translation, differently.
    Changed,
    /// Upstream removed the translation; the region changed it.
    DeletedUpstream,
    /// The region removed the translation; upstream changed it.
    DeletedInRegion,
    /// Both sides translated a text that had no translation, differently.
    BothAdded,
}

/// One conflicting translation (texts only; the records travel with them).
#[derive(Debug, Clone, PartialEq)]
pub struct TextConflict {
    pub key: Key,
    /// The text field's position among the table's text fields.
    pub position: usize,
    pub kind: TextConflictKind,
    pub base: Option<String>,
    pub ours: Option<String>,
    pub theirs: Option<String>,
}

/// The merged translations: conflicting cells hold the region's until settled.
#[derive(Debug, Clone, Default)]
pub struct TextsMerge {
    pub merged: TableTexts,
    pub conflicts: Vec<TextConflict>,
    /// Translations taken from upstream.
    pub applied: usize,
    /// Upstream changes not taken because the region owns the column or the table.
    pub kept: usize,
}

type Cell<'a> = (Option<&'a str>, Option<&'a SourceRecord>);

fn cell<'a>(texts: &'a TableTexts, key: &Key, position: usize) -> Cell<'a> {
    match texts.rows.get(key) {
        Some(row) => (row.text(position), row.record(position)),
        None => (None, None),
    }
}

/// Merge one table's translations; `owned[position]` says the region owns that field.
pub fn merge_texts(
    base: &TableTexts,
    theirs: &TableTexts,
    ours: &TableTexts,
    owned: &[bool],
) -> TextsMerge {
    let width = ours.width.max(theirs.width);
    let mut result = TextsMerge {
        merged: TableTexts {
            width,
            ..TableTexts::default()
        },
        ..TextsMerge::default()
    };
    let keys: BTreeSet<&Key> = base
        .rows
        .keys()
        .chain(theirs.rows.keys())
        .chain(ours.rows.keys())
        .collect();
    for key in keys {
        let mut row = TextRow::new(width);
        for position in 0..width {
            let (b, t, o) = (
                cell(base, key, position),
                cell(theirs, key, position),
                cell(ours, key, position),
            );
            let chosen = if t == o || b == t {
                o
            } else if owned.get(position).copied().unwrap_or(false) {
                result.kept += 1;
                o
            } else if b == o {
                result.applied += 1;
                t
            } else {
                let kind = match (b.0, t.0, o.0) {
                    (None, _, _) => TextConflictKind::BothAdded,
                    (Some(_), None, _) => TextConflictKind::DeletedUpstream,
                    (Some(_), _, None) => TextConflictKind::DeletedInRegion,
                    _ => TextConflictKind::Changed,
                };
                result.conflicts.push(TextConflict {
                    key: key.clone(),
                    position,
                    kind,
                    base: b.0.map(str::to_string),
                    ours: o.0.map(str::to_string),
                    theirs: t.0.map(str::to_string),
                });
                o
            };
            if let Some(text) = chosen.0 {
                row.texts[position] = masterctl_schemas::Value::Str(text.into());
                row.records[position] = chosen.1.cloned();
            }
        }
        if row.texts.iter().any(|t| !t.is_null()) {
            result.merged.rows.insert(key.clone(), row);
        }
    }
    result
}

/// How a conflict is settled.
#[derive(Debug, Clone, PartialEq)]
pub enum Settle {
    Ours,
    Theirs,
    /// This translation, made from this source.
    Text(String, SourceRecord),
}

/// Settle one conflict in the merged translations.
pub fn settle(merged: &mut TableTexts, theirs: &TableTexts, conflict: &TextConflict, how: Settle) {
    let (text, record) = match how {
        // The merged cell already is the region's.
        Settle::Ours => return,
        Settle::Theirs => {
            let (text, record) = cell(theirs, &conflict.key, conflict.position);
            (text.map(str::to_string), record.cloned())
        }
        Settle::Text(text, record) => (Some(text), Some(record)),
    };
    let row = merged.row_mut(&conflict.key);
    row.texts[conflict.position] = text
        .map(|t| masterctl_schemas::Value::Str(t.into()))
        .unwrap_or(masterctl_schemas::Value::Null);
    row.records[conflict.position] = record.filter(|_| !row.texts[conflict.position].is_null());
    if row.texts.iter().all(masterctl_schemas::Value::is_null) {
        merged.rows.remove(&conflict.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use masterctl_schemas::Value;

    fn texts(rows: &[(i64, &str, &str)]) -> TableTexts {
        let mut texts = TableTexts {
            width: 1,
            ..TableTexts::default()
        };
        for &(id, text, source) in rows {
            let row = texts.row_mut(&vec![Value::Int(id)]);
            row.texts[0] = Value::Str(text.into());
            row.records[0] = Some(SourceRecord::of(source));
        }
        texts
    }

    #[test]
    fn one_sided_changes_are_taken_and_both_sided_ones_conflict() {
        let base = texts(&[(1, "Sword", "剣"), (2, "Shield", "盾"), (3, "Potion", "薬")]);
        let theirs = texts(&[
            (1, "Blade", "剣"),
            (2, "Shield", "盾"),
            (3, "Elixir", "薬"),
            (4, "Fang", "牙"),
        ]);
        let ours = texts(&[(1, "Sword", "剣"), (2, "Buckler", "盾"), (3, "Tonic", "薬")]);
        let result = merge_texts(&base, &theirs, &ours, &[false]);
        let merged = &result.merged;
        let text = |id: i64| merged.text(&vec![Value::Int(id)], 0);
        assert_eq!(text(1), Some("Blade"));
        assert_eq!(text(2), Some("Buckler"));
        assert_eq!(text(3), Some("Tonic"), "the region's until settled");
        assert_eq!(text(4), Some("Fang"));
        assert_eq!(result.applied, 2);
        assert_eq!(result.conflicts.len(), 1);
        assert_eq!(result.conflicts[0].kind, TextConflictKind::Changed);
        let mut settled = result.merged.clone();
        settle(&mut settled, &theirs, &result.conflicts[0], Settle::Theirs);
        assert_eq!(settled.text(&vec![Value::Int(3)], 0), Some("Elixir"));
        // Owned: the region's, never a conflict.
        let owned = merge_texts(&base, &theirs, &ours, &[true]);
        assert!(owned.conflicts.is_empty());
        assert_eq!(owned.merged.text(&vec![Value::Int(1)], 0), Some("Sword"));
    }

    #[test]
    fn a_translation_keeps_its_own_source() {
        // Upstream only re-recorded the source (the text is the same): that is a change,
        // and the region's untouched cell takes it with its record.
        let base = texts(&[(1, "Sword", "剣")]);
        let theirs = texts(&[(1, "Sword", "長剣")]);
        let ours = base.clone();
        let result = merge_texts(&base, &theirs, &ours, &[false]);
        let row = &result.merged.rows[&vec![Value::Int(1)]];
        assert!(row.record(0).unwrap().is_of("長剣"));
    }
}
