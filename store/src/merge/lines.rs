//! The keyed merge on canonical text, for a table whose key is one integer field: its
//! data file (`tables/<table>.csv`) and its source-language file (`locales/<source>/
//! <table>.csv`, the key then the texts) merged as lines when all three versions of each
//! are plain (no quoted cell) with the expected header. A line equal in two versions is
//! an equal row (canonical CSV has one spelling per value), so only rows both sides
//! changed are split into cells, by the same rules as [`super::merge_table`] and with the
//! same outcome — which a property test holds it to.

use masterctl_schemas::TableSchema;
use masterctl_schemas::canonical::{data_fields, language_fields};
use masterctl_schemas::parse::parse_text_in;

use super::{B, Conflict, O, Ownership, RowChoice, T, merge_row};

/// A table merged as lines: its merged files (rows that conflict hold the region's
/// cells, as in [`super::merge_table`]), conflicts and counts.
#[derive(Debug, Clone, PartialEq)]
pub struct LinesMerge {
    pub data: Vec<u8>,
    /// The source-language file, for a table with text fields.
    pub language: Option<Vec<u8>>,
    pub conflicts: Vec<Conflict>,
    pub applied: usize,
    pub kept: usize,
    pub seeded: usize,
}

/// A table without text fields merged as lines; `None` when it does not qualify and
/// [`super::merge_table`] must do it.
pub fn merge_canonical(
    schema: &TableSchema,
    base: &[u8],
    theirs: &[u8],
    ours: &[u8],
    ownership: &Ownership,
) -> Option<LinesMerge> {
    merge_canonical_files(schema, [base, theirs, ours], None, ownership)
}

/// A table merged as lines: `data` and (for a table with text fields) `language` are
/// the three versions (base, theirs, ours) of its data file and its source-language
/// file. `None` when it does not qualify — an owned table, another key, a file not
/// plain or not canonical, a table with text without its three language files — or when
/// the two files' merges disagree on which rows there are (a row deleted on one side
/// and edited in the other file on the other): then [`super::merge_table`] decides.
pub fn merge_canonical_files(
    schema: &TableSchema,
    data: [&[u8]; 3],
    language: Option<[&[u8]; 3]>,
    ownership: &Ownership,
) -> Option<LinesMerge> {
    if ownership.table {
        return None; // an owned table is simply the region's
    }
    let [key_field] = schema.primary_key[..] else {
        return None;
    };
    if schema.fields[key_field].ty != masterctl_schemas::FieldType::Int {
        return None;
    }
    let data_file = FileShape::of(schema, data_fields(schema), key_field)?;
    let data = merge_file(schema, &data_file, data, ownership, true)?;
    let texts = match (language_fields(schema), language) {
        (None, _) => None,
        (Some(_), None) => return None,
        (Some(columns), Some(versions)) => {
            let file = FileShape::of(schema, columns, key_field)?;
            let texts = merge_file(schema, &file, versions, ownership, false)?;
            if texts.keys != data.keys {
                return None;
            }
            Some(texts)
        }
    };
    let mut merged = LinesMerge {
        data: data.bytes,
        language: None,
        conflicts: data.conflicts,
        applied: data.applied,
        kept: data.kept,
        seeded: data.seeded,
    };
    if let Some(texts) = texts {
        merged.language = Some(texts.bytes);
        merged.conflicts.extend(texts.conflicts);
        // In the typed merge's order: by key, then by field.
        merged
            .conflicts
            .sort_by(|a, b| a.key.cmp(&b.key).then(a.field.cmp(&b.field)));
        merged.applied += texts.applied;
        merged.kept += texts.kept;
    }
    Some(merged)
}

/// The header and key column of a table without text fields whose canonical file can be
/// handled as lines (an integer single-field key).
pub(crate) fn line_shape(schema: &TableSchema) -> Option<(String, usize)> {
    let [key_field] = schema.primary_key[..] else {
        return None;
    };
    if data_fields(schema).len() != schema.fields.len()
        || schema.fields[key_field].ty != masterctl_schemas::FieldType::Int
    {
        return None;
    }
    let file = FileShape::of(schema, (0..schema.fields.len()).collect(), key_field)?;
    Some((file.header, file.key_column))
}

/// The records of a plain canonical file with this header, keyed by the integer in
/// column `key_field`, if the file is that and sorted by it.
pub(crate) fn canonical_lines<'x>(
    bytes: &'x [u8],
    header: &str,
    key_field: usize,
) -> Option<Vec<(i64, &'x str)>> {
    let text = masterctl_schemas::read::csv::plain_text(bytes)?;
    let mut lines = text.split('\n');
    if lines.next()? != header {
        return None;
    }
    let mut rows = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let key = line.split(',').nth(key_field)?.parse().ok()?;
        rows.push((key, line));
    }
    // Canonical files are sorted by key; anything else is not for this path.
    rows.windows(2).all(|w| w[0].0 < w[1].0).then_some(rows)
}

/// One canonical file of a table: the schema field of each column, its header, the
/// column holding the key.
struct FileShape {
    columns: Vec<usize>,
    header: String,
    key_column: usize,
}

impl FileShape {
    fn of(schema: &TableSchema, columns: Vec<usize>, key_field: usize) -> Option<FileShape> {
        let key_column = columns.iter().position(|&f| f == key_field)?;
        let header = columns
            .iter()
            .map(|&f| schema.fields[f].name.as_str())
            .collect::<Vec<_>>()
            .join(",");
        Some(FileShape {
            columns,
            header,
            key_column,
        })
    }
}

/// One file's merge: its bytes, the keys it holds, conflicts (by schema field), counts.
struct FileMerge {
    bytes: Vec<u8>,
    keys: Vec<i64>,
    conflicts: Vec<Conflict>,
    applied: usize,
    kept: usize,
    seeded: usize,
}

/// Merge the three versions of one canonical file as lines. `rows_count`: whether rows
/// added or deleted by upstream count as applied here (a table's second file leaves
/// that to its first, as the typed merge counts a row once).
fn merge_file(
    schema: &TableSchema,
    file: &FileShape,
    [base, theirs, ours]: [&[u8]; 3],
    ownership: &Ownership,
    rows_count: bool,
) -> Option<FileMerge> {
    let split = |bytes| canonical_lines(bytes, &file.header, file.key_column);
    let (b, t, o) = (split(base)?, split(theirs)?, split(ours)?);
    let value = |column: usize, text: &str| {
        let field = &schema.fields[file.columns[column]];
        parse_text_in(&field.ty, text, Some(&field.zone)).ok()
    };
    let mut out = String::with_capacity(ours.len() + ours.len() / 8);
    out.push_str(&file.header);
    out.push('\n');
    let mut merge = FileMerge {
        bytes: Vec::new(),
        keys: Vec::with_capacity(o.len().max(t.len())),
        conflicts: Vec::new(),
        applied: 0,
        kept: 0,
        seeded: 0,
    };
    let owned = |column: usize| ownership.columns.contains(&file.columns[column]);
    let (mut i, mut j, mut k) = (0, 0, 0);
    loop {
        let key = [b.get(i), t.get(j), o.get(k)]
            .into_iter()
            .flatten()
            .map(|r| r.0)
            .min();
        let Some(key) = key else { break };
        let take = |rows: &Vec<(i64, &'_ str)>, at: &mut usize| -> Option<usize> {
            (rows.get(*at).map(|r| r.0) == Some(key)).then(|| {
                *at += 1;
                *at - 1
            })
        };
        let (bi, ti, oi) = (take(&b, &mut i), take(&t, &mut j), take(&o, &mut k));
        let (bl, tl, ol) = (bi.map(|a| b[a].1), ti.map(|a| t[a].1), oi.map(|a| o[a].1));
        let key_value = || vec![masterctl_schemas::Value::Int(key)];
        let mut push = |l: &str| {
            out.push_str(l);
            out.push('\n');
            merge.keys.push(key);
        };
        // Equal lines are equal rows: most keys are settled without splitting a line
        // (each shortcut is what `merge_row` decides for it).
        match (bl, tl, ol) {
            (Some(b), Some(t), None) if t == b => continue,
            (Some(b), None, Some(o)) if o == b => {
                merge.applied += usize::from(rows_count);
                continue;
            }
            (b, Some(t), Some(o)) if t == o || Some(t) == b => {
                push(o);
                continue;
            }
            _ => {}
        }
        let lines = [bl, tl, ol].map(|l| l.map(|l| l.split(',').collect::<Vec<&str>>()));
        let cell = |side: usize, column: usize| lines[side].as_ref().map(|cells| cells[column]);
        let present = [bl.is_some(), tl.is_some(), ol.is_some()];
        if present == [false, true, false] && !ownership.columns.is_empty() && rows_count {
            merge.seeded += 1;
        }
        let row = merge_row(present, file.columns.len(), cell, owned);
        // A whole row's arrival or removal counts once, in the table's first file.
        if rows_count || present == [true, true, true] {
            merge.applied += row.applied;
        }
        merge.kept += row.kept;
        for (kind, column) in row.conflicts {
            let parsed = |side: usize| cell(side, column).and_then(|text| value(column, text));
            merge.conflicts.push(Conflict {
                kind,
                key: key_value(),
                field: file.columns[column],
                base: parsed(B),
                ours: parsed(O),
                theirs: parsed(T),
            });
        }
        match row.choice {
            RowChoice::Drop => {}
            RowChoice::Whole(side) => push([bl, tl, ol][side].unwrap_or_default()),
            RowChoice::Cells(sides) => {
                let cells: Vec<&str> = sides
                    .iter()
                    .enumerate()
                    .map(|(column, &side)| cell(side, column).unwrap_or_default())
                    .collect();
                push(&cells.join(","));
            }
        }
    }
    merge.bytes = out.into_bytes();
    Some(merge)
}
