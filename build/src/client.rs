//! The client export (`docs/CLIENT-FORMAT.md`): a table's, a generated master's or a
//! language's texts as a little-endian file that C#, Go and TypeScript loaders read with
//! their standard libraries, and the same data as JSON. Written from the data the
//! build's archives are made of, so both hold the same rows in the same order.

use std::collections::HashMap;
use std::sync::Arc;

use masterctl_runtime::format::{ColumnData, ColumnType, StringsData, TableData, Values};
use masterctl_runtime::{Date, DateTime};
use serde_json::{Value as Json, json};

/// The format's version, after the magic.
pub const CLIENT_FORMAT_VERSION: u16 = 1;
const MAGIC: &[u8; 4] = b"MCCL";
const KIND_TABLE: u16 = 1;
const KIND_TEXTS: u16 = 2;
const FLAG_LIST: u8 = 1;
const FLAG_NULLS: u8 = 2;
const FLAG_FALLBACK: u8 = 4;

/// Bytes little-endian, parts aligned to 8 from the start.
#[derive(Default)]
struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    fn str(&mut self, text: &str) {
        self.u32(text.len() as u32);
        self.bytes.extend_from_slice(text.as_bytes());
    }
    fn align(&mut self) {
        while !self.bytes.len().is_multiple_of(8) {
            self.bytes.push(0);
        }
    }
    fn all<T, const N: usize>(&mut self, values: &[T], bytes: impl Fn(&T) -> [u8; N]) {
        self.align();
        self.bytes.reserve(values.len() * N);
        for v in values {
            self.bytes.extend_from_slice(&bytes(v));
        }
    }
    fn header(&mut self, kind: u16, schema_hash: &str, name: &str, language: &str) {
        self.bytes.extend_from_slice(MAGIC);
        self.u16(CLIENT_FORMAT_VERSION);
        self.u16(kind);
        self.str(schema_hash);
        self.str(name);
        self.str(language);
    }
}

fn type_code(ty: ColumnType, enum_values: Option<&[Arc<str>]>) -> u8 {
    match (ty, enum_values) {
        (ColumnType::Str, Some(_)) => 7,
        (ColumnType::Int, _) => 1,
        (ColumnType::Float, _) => 2,
        (ColumnType::Bool, _) => 3,
        (ColumnType::Str, None) => 4,
        (ColumnType::Date, _) => 5,
        (ColumnType::DateTime, _) => 6,
    }
}

/// The null bitmap of `rows` rows, one bit per row, as whole words.
fn nulls(column: &ColumnData, rows: usize) -> Vec<u64> {
    let mut words = column.nulls.clone();
    words.resize(rows.div_ceil(64), 0);
    words
}

fn strings_part(w: &mut Writer, ends: &[u32], bytes: &[u8]) {
    w.all(ends, |e| e.to_le_bytes());
    w.bytes.extend_from_slice(bytes);
}

/// A table's (or a generated master's) client file. `enums`: each enum column's
/// values, in the schema's order, by column name.
pub fn table_file(
    schema_hash: &str,
    data: &TableData,
    enums: &HashMap<&str, &[Arc<str>]>,
) -> Vec<u8> {
    let rows = data.rows as usize;
    let mut w = Writer::default();
    w.header(KIND_TABLE, schema_hash, &data.name, "");
    w.u32(data.rows);
    w.u32(data.columns.len() as u32);
    for column in &data.columns {
        let values = enums.get(column.name.as_str()).copied();
        w.str(&column.name);
        w.u8(type_code(column.ty, values));
        let mut flags = 0;
        if column.list {
            flags |= FLAG_LIST;
        }
        if !column.nulls.is_empty() {
            flags |= FLAG_NULLS;
        }
        w.u8(flags);
        w.u16(0);
        if let Some(values) = values {
            w.u32(values.len() as u32);
            for value in values {
                w.str(value);
            }
        }
    }
    for column in &data.columns {
        if !column.nulls.is_empty() {
            w.all(&nulls(column, rows), |v| v.to_le_bytes());
        }
        if column.list {
            w.all(&column.offsets, |v| v.to_le_bytes());
        }
        match (&column.values, enums.get(column.name.as_str())) {
            (Values::Str(strings), Some(values)) => {
                let position: HashMap<&str, u32> = values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (&**v, i as u32))
                    .collect();
                let indexes: Vec<u32> = (0..strings.len())
                    .map(|i| {
                        position
                            .get(strings.get(i).unwrap_or_default())
                            .copied()
                            .unwrap_or(0)
                    })
                    .collect();
                w.all(&indexes, |v| v.to_le_bytes());
            }
            (Values::Str(strings), None) => strings_part(&mut w, &strings.ends, &strings.bytes),
            (Values::Int(v), _) => w.all(v, |x| x.to_le_bytes()),
            (Values::Float(v), _) => w.all(v, |x| x.to_le_bytes()),
            (Values::Bool(v), _) => w.all(v, |x| [u8::from(*x)]),
            (Values::Date(v), _) => w.all(v, |x| x.to_le_bytes()),
            (Values::DateTime(v), _) => w.all(v, |x| x.to_le_bytes()),
        }
    }
    w.bytes
}

/// One language's texts of a table, as a client file.
pub fn texts_file(schema_hash: &str, data: &StringsData) -> Vec<u8> {
    let rows = data.rows as usize;
    let mut w = Writer::default();
    w.header(KIND_TEXTS, schema_hash, &data.table, &data.language);
    w.u32(data.rows);
    w.u32(data.fields.len() as u32);
    let empty = |column: &masterctl_runtime::format::TextColumn| {
        (0..column.values.len()).any(|i| column.values.get(i).unwrap_or_default().is_empty())
    };
    for column in &data.fields {
        w.str(&column.name);
        w.u8(4);
        let mut flags = 0;
        if empty(column) {
            flags |= FLAG_NULLS;
        }
        if !column.fallback.is_empty() {
            flags |= FLAG_FALLBACK;
        }
        w.u8(flags);
        w.u16(0);
    }
    for column in &data.fields {
        if empty(column) {
            let mut words = vec![0u64; rows.div_ceil(64)];
            for i in 0..column.values.len() {
                if column.values.get(i).unwrap_or_default().is_empty() {
                    words[i / 64] |= 1 << (i % 64);
                }
            }
            w.all(&words, |v| v.to_le_bytes());
        }
        strings_part(&mut w, &column.values.ends, &column.values.bytes);
        if !column.fallback.is_empty() {
            w.all(&column.fallback, |v| [*v]);
        }
    }
    w.bytes
}

/// Element `i` of a column's values, as JSON.
fn element(values: &Values, i: usize) -> Json {
    match values {
        Values::Int(v) => json!(v[i]),
        Values::Float(v) => json!(v[i]),
        Values::Bool(v) => json!(v[i]),
        Values::Str(s) => json!(s.get(i).unwrap_or_default()),
        Values::Date(v) => json!(Date(v[i]).to_string()),
        Values::DateTime(v) => json!(DateTime(v[i]).to_string()),
    }
}

fn is_null(column: &ColumnData, row: usize) -> bool {
    column
        .nulls
        .get(row / 64)
        .is_some_and(|word| (word >> (row % 64)) & 1 == 1)
}

/// A table's (or a generated master's) client file as JSON.
pub fn table_json(schema_hash: &str, data: &TableData) -> Vec<u8> {
    let rows: Vec<Json> = (0..data.rows as usize)
        .map(|row| {
            let cells = data.columns.iter().map(|column| {
                if is_null(column, row) {
                    Json::Null
                } else if column.list {
                    let (start, end) = (
                        column.offsets[row] as usize,
                        column.offsets[row + 1] as usize,
                    );
                    Json::Array((start..end).map(|i| element(&column.values, i)).collect())
                } else {
                    element(&column.values, row)
                }
            });
            Json::Array(cells.collect())
        })
        .collect();
    let columns: Vec<&str> = data.columns.iter().map(|c| c.name.as_str()).collect();
    let document = json!({
        "format": CLIENT_FORMAT_VERSION,
        "kind": "table",
        "schema_hash": schema_hash,
        "name": data.name,
        "language": Json::Null,
        "columns": columns,
        "rows": rows,
    });
    serde_json::to_vec(&document).unwrap_or_default()
}

/// One language's texts of a table as JSON.
pub fn texts_json(schema_hash: &str, data: &StringsData) -> Vec<u8> {
    let rows: Vec<Json> = (0..data.rows as usize)
        .map(|row| {
            let cells =
                data.fields
                    .iter()
                    .map(|column| match column.values.get(row).unwrap_or_default() {
                        "" => Json::Null,
                        text => json!(text),
                    });
            Json::Array(cells.collect())
        })
        .collect();
    let columns: Vec<&str> = data.fields.iter().map(|c| c.name.as_str()).collect();
    let document = json!({
        "format": CLIENT_FORMAT_VERSION,
        "kind": "texts",
        "schema_hash": schema_hash,
        "name": data.table,
        "language": data.language,
        "columns": columns,
        "rows": rows,
    });
    serde_json::to_vec(&document).unwrap_or_default()
}
