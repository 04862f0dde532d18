//! One table's texts in one language, as a region branch stores them:
//!
//! - `locales/<lang>/<table>.csv`: the primary key columns and one column per text field
//!   (the source language's comes from imports; the others from translators);
//! - `locales/<lang>/<table>.sources.csv`, for every language but the source one: for
//!   each translated cell, the source text it was translated from — its hash and the text
//!   itself. Columns: the primary key, `field`, `source_hash`, `source`; one row per
//!   translated cell, in key then field order.
//!
//! Both are canonical CSV (LF, sorted by the typed key, minimal quoting), so they survive
//! clone and push and diff cell by cell. A translation is stale when its recorded source
//! is not the current source: no import or rebase needs to touch translations for that
//! to be known.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use masterctl_schemas::canonical::{read_language_table, stored_type};
use masterctl_schemas::parse::parse_text;
use masterctl_schemas::{FieldType, TableSchema, Value};

use crate::LocaleError;

/// `locales/<lang>/<table>.csv`
pub fn language_path(language: &str, table: &str) -> String {
    format!("locales/{language}/{table}.csv")
}

/// `locales/<lang>/<table>.sources.csv`
pub fn records_path(language: &str, table: &str) -> String {
    format!("locales/{language}/{table}.sources.csv")
}

/// Indexes of a schema's text fields, in schema order.
pub fn text_fields(schema: &TableSchema) -> Vec<usize> {
    (0..schema.fields.len())
        .filter(|&f| schema.fields[f].ty == FieldType::Text)
        .collect()
}

/// The hash recorded with a translation's source text: the first 64 bits of its BLAKE3
/// digest, in hex (enough to tell a change; the text itself is kept beside it).
pub fn source_hash(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = blake3::hash(text.as_bytes());
    let mut hex = String::with_capacity(16);
    for b in &digest.as_bytes()[..8] {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 15)]));
    }
    hex
}

/// The source text a translation was made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRecord {
    pub hash: String,
    pub text: String,
}

impl SourceRecord {
    pub fn of(text: &str) -> SourceRecord {
        SourceRecord {
            hash: source_hash(text),
            text: text.to_string(),
        }
    }

    /// Whether this record is of `text`.
    pub fn is_of(&self, text: &str) -> bool {
        self.hash == source_hash(text)
    }
}

/// A row's primary key values, typed as stored.
pub type Key = Vec<Value>;

/// One row's texts in one language: a value per text field (in [`text_fields`] order,
/// `Null` when absent) and, for translations, the source each was made from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextRow {
    pub texts: Vec<Value>,
    pub records: Vec<Option<SourceRecord>>,
}

impl TextRow {
    pub fn new(width: usize) -> TextRow {
        TextRow {
            texts: vec![Value::Null; width],
            records: vec![None; width],
        }
    }

    /// The text of a field (by text field position), if any.
    pub fn text(&self, position: usize) -> Option<&str> {
        self.texts
            .get(position)
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
    }

    /// The recorded source of a field's translation, if any.
    pub fn record(&self, position: usize) -> Option<&SourceRecord> {
        self.records.get(position).and_then(Option::as_ref)
    }
}

/// One table's texts in one language, by key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableTexts {
    pub rows: BTreeMap<Key, TextRow>,
    /// How many text fields each row has.
    pub width: usize,
}

impl TableTexts {
    /// Read the stored files (either may be absent).
    pub fn read(
        schema: &TableSchema,
        texts: Option<(&[u8], &str)>,
        records: Option<(&[u8], &str)>,
    ) -> Result<TableTexts, LocaleError> {
        let width = text_fields(schema).len();
        let mut result = TableTexts {
            rows: BTreeMap::new(),
            width,
        };
        let key_count = schema.primary_key.len();
        if let Some((bytes, path)) = texts {
            let table = read_language_table(schema, bytes, Path::new(path)).map_err(|d| {
                LocaleError::Broken {
                    path: path.to_string(),
                    message: d.first().map_or_else(String::new, ToString::to_string),
                }
            })?;
            let key_fields: Vec<usize> = (0..key_count).collect();
            for row in 0..table.row_count() {
                let mut texts = TextRow::new(width);
                for (position, text) in texts.texts.iter_mut().enumerate() {
                    if let Some(column) = table.columns.get(key_count + position) {
                        *text = column[row].clone();
                    }
                }
                result.rows.insert(table.key(row, &key_fields), texts);
            }
        }
        if let Some((bytes, path)) = records {
            read_records(schema, bytes, path, &mut result.rows)?;
        }
        Ok(result)
    }

    /// Only the text fields at `positions` (positions among the table's text fields,
    /// in order): the texts an audience's view of the table keeps.
    pub fn only(&self, positions: &[usize]) -> TableTexts {
        let rows = self
            .rows
            .iter()
            .map(|(key, row)| {
                let pick = |i: &usize| (row.texts[*i].clone(), row.records[*i].clone());
                let (texts, records) = positions.iter().map(pick).unzip();
                (key.clone(), TextRow { texts, records })
            })
            .collect();
        TableTexts {
            rows,
            width: positions.len(),
        }
    }

    /// The row of a key, made empty if there is none yet.
    pub fn row_mut(&mut self, key: &Key) -> &mut TextRow {
        let width = self.width;
        // The key is cloned only for a new row (a returned `get_mut` borrow cannot be
        // followed by an insert, so an existing row costs a second lookup).
        if self.rows.contains_key(key) {
            return self.rows.get_mut(key).expect("present");
        }
        self.rows
            .entry(key.clone())
            .or_insert_with(|| TextRow::new(width))
    }

    /// The text of a key's field (by text field position), if any.
    pub fn text(&self, key: &Key, position: usize) -> Option<&str> {
        self.rows.get(key).and_then(|row| row.text(position))
    }

    /// `locales/<lang>/<table>.csv` bytes; `None` when no row holds any text.
    pub fn texts_csv(&self, schema: &TableSchema) -> Result<Option<Vec<u8>>, csv::Error> {
        let fields = text_fields(schema);
        let rows: Vec<_> = self
            .rows
            .iter()
            .filter(|(_, row)| row.texts.iter().any(|v| !v.is_null()))
            .collect();
        if rows.is_empty() {
            return Ok(None);
        }
        let mut writer = canonical_writer(rows.len() * 32);
        let header = schema
            .primary_key
            .iter()
            .chain(&fields)
            .map(|&f| schema.fields[f].name.as_str());
        writer.write_record(header)?;
        let mut cell = String::new();
        for (key, row) in rows {
            for value in key.iter().chain(&row.texts) {
                cell.clear();
                let _ = write!(cell, "{value}");
                writer.write_field(&cell)?;
            }
            writer.write_record(None::<&[u8]>)?;
        }
        Ok(Some(masterctl_schemas::canonical::finish(writer)?))
    }

    /// `locales/<lang>/<table>.sources.csv` bytes; `None` when nothing is recorded.
    pub fn records_csv(&self, schema: &TableSchema) -> Result<Option<Vec<u8>>, csv::Error> {
        let count: usize = self
            .rows
            .values()
            .map(|row| row.records.iter().flatten().count())
            .sum();
        if count == 0 {
            return Ok(None);
        }
        let fields = text_fields(schema);
        let mut writer = canonical_writer(count * 48);
        let header = schema
            .primary_key
            .iter()
            .map(|&f| schema.fields[f].name.as_str())
            .chain(["field", "source_hash", "source"]);
        writer.write_record(header)?;
        let mut cell = String::new();
        for (key, row) in &self.rows {
            for (position, record) in row.records.iter().enumerate() {
                let Some(record) = record else { continue };
                for value in key {
                    cell.clear();
                    let _ = write!(cell, "{value}");
                    writer.write_field(&cell)?;
                }
                let field = fields.get(position).map_or("", |&f| &schema.fields[f].name);
                writer.write_field(field)?;
                writer.write_field(&record.hash)?;
                writer.write_field(&record.text)?;
                writer.write_record(None::<&[u8]>)?;
            }
        }
        Ok(Some(masterctl_schemas::canonical::finish(writer)?))
    }
}

fn canonical_writer(capacity: usize) -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::with_capacity(capacity))
}

/// Read a records file into the rows: key columns by position (a key field may be
/// called `field`), then `field`, `source_hash`, `source`. Records of fields that are no
/// longer text fields, or of cells without a translation, are let go.
fn read_records(
    schema: &TableSchema,
    bytes: &[u8],
    path: &str,
    rows: &mut BTreeMap<Key, TextRow>,
) -> Result<(), LocaleError> {
    let fields = text_fields(schema);
    let key_count = schema.primary_key.len();
    let key_types: Vec<FieldType> = schema
        .primary_key
        .iter()
        .map(|&f| stored_type(&schema.fields[f]))
        .collect();
    let broken = |line: u64, message: String| LocaleError::Broken {
        path: format!("{path}:{line}"),
        message,
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(bytes);
    let mut record = csv::StringRecord::new();
    loop {
        let line = reader.position().line();
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(broken(line, e.to_string())),
        }
        if record.len() != key_count + 3 {
            return Err(broken(
                line,
                format!("{} cells, expected {}", record.len(), key_count + 3),
            ));
        }
        let key = key_types
            .iter()
            .zip(record.iter())
            .map(|(ty, text)| parse_text(ty, text))
            .collect::<Result<Key, _>>()
            .map_err(|m| broken(line, format!("a key is not {}", m.expected)))?;
        let Some(position) = fields
            .iter()
            .position(|&f| schema.fields[f].name == record[key_count])
        else {
            continue;
        };
        if let Some(row) = rows.get_mut(&key)
            && row.text(position).is_some()
        {
            row.records[position] = Some(SourceRecord {
                hash: record[key_count + 1].to_string(),
                text: record[key_count + 2].to_string(),
            });
        }
    }
    Ok(())
}
