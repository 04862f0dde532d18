//! Canonical CSV: the one byte-exact form a table takes in a region branch.
//!
//! `tables/<table>.csv` holds every field but `text` ones, in schema order;
//! `locales/<lang>/<table>.csv` holds the primary key and the text fields. Both are
//! UTF-8 without byte order mark, LF line ends with a final newline, a header row,
//! rows sorted by the typed primary key (1, 2, 10), minimal quoting, and one spelling
//! per value ([`crate::Value::canonical`]). The same data therefore always gives the
//! same bytes, whichever export it came from; and reading the files back gives the
//! same typed table.

use std::fmt::Write as _;
use std::path::Path;

use crate::diagnostic::{Code, Diagnostic};
use crate::read::csv::type_records;
use crate::schema::{FieldType, TableSchema};
use crate::table::{SourceFormat, Table};
use crate::typing::TableBuilder;
use crate::value::Value;

/// Row indexes of `table` in primary-key order.
pub fn key_order(schema: &TableSchema, table: &Table) -> Vec<usize> {
    let mut rows: Vec<usize> = (0..table.row_count()).collect();
    rows.sort_by(|&a, &b| {
        schema
            .primary_key
            .iter()
            .map(|&f| table.value(a, f).cmp(table.value(b, f)))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    rows
}

/// Field indexes stored in `tables/<table>.csv`: every field but text ones.
pub fn data_fields(schema: &TableSchema) -> Vec<usize> {
    (0..schema.fields.len())
        .filter(|&f| schema.fields[f].ty != FieldType::Text)
        .collect()
}

/// Field indexes stored in `locales/<lang>/<table>.csv`: the primary key, then the
/// text fields; `None` when the table has no text.
pub fn language_fields(schema: &TableSchema) -> Option<Vec<usize>> {
    let texts: Vec<usize> = (0..schema.fields.len())
        .filter(|&f| schema.fields[f].ty == FieldType::Text)
        .collect();
    if texts.is_empty() {
        return None;
    }
    Some(schema.primary_key.iter().copied().chain(texts).collect())
}

/// `tables/<table>.csv` for a table.
pub fn table_csv(schema: &TableSchema, table: &Table) -> Result<Vec<u8>, csv::Error> {
    write_csv(
        schema,
        table,
        &data_fields(schema),
        &key_order(schema, table),
    )
}

/// `locales/<lang>/<table>.csv` for the text the table holds, if it has text fields.
pub fn language_csv(schema: &TableSchema, table: &Table) -> Result<Option<Vec<u8>>, csv::Error> {
    language_fields(schema)
        .map(|fields| write_csv(schema, table, &fields, &key_order(schema, table)))
        .transpose()
}

/// Both canonical files of a table ([`table_csv`], [`language_csv`]), its rows put in
/// key order once for the two.
pub fn table_files(
    schema: &TableSchema,
    table: &Table,
) -> Result<(Vec<u8>, Option<Vec<u8>>), csv::Error> {
    let order = key_order(schema, table);
    let data = write_csv(schema, table, &data_fields(schema), &order)?;
    let text = language_fields(schema)
        .map(|fields| write_csv(schema, table, &fields, &order))
        .transpose()?;
    Ok((data, text))
}

/// The rows a canonical file's size is foreseen from.
const SAMPLED: usize = 256;

/// The cells a canonical file has before it is written in pieces on every core (a table
/// of 50,000 rows and 30 columns takes one core 70 ms).
const CELLS_IN_PIECES: usize = 200_000;

/// How many pieces each core writes of a file written in pieces. A round of one piece a
/// core is joined to the file before the next is written, so that only a round's pieces
/// are held beside it (one piece a core would hold a second copy of the file).
const PIECES_A_CORE: usize = 8;

/// The canonical file of `fields` of `table`, its header then the rows of `order`: a
/// large one in pieces of rows, as many at a time as there are cores, each round's
/// joined in order to the text before the next is written.
fn write_csv(
    schema: &TableSchema,
    table: &Table,
    fields: &[usize],
    order: &[usize],
) -> Result<Vec<u8>, csv::Error> {
    let header = fields.iter().map(|&f| schema.fields[f].name.as_str());
    let workers = masterctl_runtime::parallel::workers();
    if order.len() * fields.len() < CELLS_IN_PIECES || workers < 2 {
        return write_rows(table, fields, order, Some(header));
    }
    let pieces: Vec<&[usize]> = order
        .chunks(order.len().div_ceil(workers * PIECES_A_CORE))
        .collect();
    let mut text = write_rows(table, fields, &[], Some(header))?;
    for (round, rows) in pieces.chunks(workers).enumerate() {
        let written = masterctl_runtime::parallel::parallel_map(rows, |rows| {
            write_rows(table, fields, rows, None::<std::iter::Empty<&str>>)
        })
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
        if round == 0 {
            // The file's size foreseen from its first pieces, with a little to spare:
            // its text is made once, not copied each time it outgrows its place.
            let foreseen = written.iter().map(Vec::len).sum::<usize>() * pieces.len() / rows.len();
            text.reserve_exact((foreseen + foreseen / 16).saturating_sub(text.len()));
        }
        for piece in written {
            text.extend_from_slice(&piece);
        }
    }
    Ok(text)
}

/// The canonical lines of `rows` (and `header`'s first, when given).
fn write_rows<'h>(
    table: &Table,
    fields: &[usize],
    rows: &[usize],
    header: Option<impl Iterator<Item = &'h str>>,
) -> Result<Vec<u8>, csv::Error> {
    let builder = || {
        let mut builder = csv::WriterBuilder::new();
        builder.terminator(csv::Terminator::Any(b'\n'));
        builder
    };
    let mut writer = builder().from_writer(Vec::with_capacity(
        SAMPLED.min(rows.len()) * 16 * fields.len() + 4096,
    ));
    if let Some(header) = header {
        writer.write_record(header)?;
    }
    // One reused buffer for the cells that are formatted: a million rows are not a
    // million allocations.
    let (mut cell, mut integer) = (String::new(), itoa::Buffer::new());
    for (written, &row) in rows.iter().enumerate() {
        if written == SAMPLED && rows.len() > SAMPLED {
            // The file's size foreseen from its first rows, with a little to spare: its
            // text is made once, not copied each time it outgrows its place.
            let mut text = finish(writer)?;
            let foreseen = text.len() * rows.len() / SAMPLED;
            text.reserve_exact((foreseen + foreseen / 16).saturating_sub(text.len()));
            writer = builder().from_writer(text);
        }
        for &field in fields {
            writer.write_field(spelled(table.value(row, field), &mut cell, &mut integer))?;
        }
        writer.write_record(None::<&[u8]>)?;
    }
    finish(writer)
}

/// A value's canonical spelling ([`Value::canonical`]): text, integers and booleans as
/// they are, without the formatting machinery (most of a table's cells), the rest
/// written into `cell`.
fn spelled<'a>(value: &'a Value, cell: &'a mut String, integer: &'a mut itoa::Buffer) -> &'a str {
    match value {
        Value::Str(text) => text,
        Value::Int(n) => integer.format(*n),
        Value::Bool(b) => match b {
            true => "true",
            false => "false",
        },
        Value::Null => "",
        other => {
            cell.clear();
            let _ = write!(cell, "{other}");
            cell
        }
    }
}

pub use crate::sheet_csv::finish;

/// Read a table back from its canonical files: `tables/<table>.csv` and, when the table
/// has text fields, `locales/<lang>/<table>.csv` (rows without text get null text).
/// `data_path` and `language_path` only name the files in diagnostics.
pub fn read_table(
    schema: &TableSchema,
    data: &[u8],
    data_path: &Path,
    language: Option<(&[u8], &Path)>,
) -> Result<Table, Vec<Diagnostic>> {
    let data_schema = sub_schema(schema, &data_fields(schema));
    let mut table = read_part(&data_schema, data, data_path)?;
    // Back to the full field order, text columns empty until the language table fills them.
    let mut columns: Vec<Vec<Value>> = Vec::with_capacity(schema.fields.len());
    let mut origin_columns = Vec::with_capacity(schema.fields.len());
    let mut data_columns = std::mem::take(&mut table.columns).into_iter();
    let mut source_columns = table.origin.columns.iter().copied();
    for field in &schema.fields {
        if field.ty == FieldType::Text {
            columns.push(vec![Value::Null; table.row_count()]);
            origin_columns.push(None);
        } else {
            columns.push(data_columns.next().unwrap_or_default());
            origin_columns.push(source_columns.next().flatten());
        }
    }
    table.columns = columns;
    table.origin.columns = origin_columns;
    table.name = schema.name.clone();
    if let (Some(fields), Some((bytes, path))) = (language_fields(schema), language) {
        let language_schema = sub_schema(schema, &fields);
        let texts = read_part(&language_schema, bytes, path)?;
        let key_count = schema.primary_key.len();
        let rows: std::collections::HashMap<Vec<Value>, usize> = (0..table.row_count())
            .map(|row| (table.key(row, &schema.primary_key), row))
            .collect();
        for text_row in 0..texts.row_count() {
            let key: Vec<Value> = (0..key_count)
                .map(|k| texts.value(text_row, k).clone())
                .collect();
            let Some(&row) = rows.get(&key) else { continue };
            for (i, &field) in fields[key_count..].iter().enumerate() {
                table.columns[field][row] = texts.value(text_row, key_count + i).clone();
            }
        }
    }
    Ok(table)
}

/// A language table (`locales/<lang>/<table>.csv`) on its own: columns are the primary
/// key fields, then the text fields ([`language_fields`]), typed as the key's fields are.
pub fn read_language_table(
    schema: &TableSchema,
    bytes: &[u8],
    path: &Path,
) -> Result<Table, Vec<Diagnostic>> {
    let fields = language_fields(schema).unwrap_or_else(|| schema.primary_key.clone());
    read_part(&sub_schema(schema, &fields), bytes, path)
}

/// The type a key field's value has once read back from a canonical file: what
/// [`read_table`] and [`read_language_table`] give (enum values are read as strings).
pub fn stored_type(field: &crate::Field) -> FieldType {
    match &field.ty {
        FieldType::Enum => FieldType::String,
        FieldType::List(inner) if **inner == FieldType::Enum => {
            FieldType::List(Box::new(FieldType::String))
        }
        other => other.clone(),
    }
}

/// The schema restricted to some fields (for one of a table's files), with types only:
/// the file reads as written (a column added since takes its default); [`crate::validate::check_rows`]
/// checks the result against the full schema.
fn sub_schema(schema: &TableSchema, fields: &[usize]) -> TableSchema {
    let mut part = schema.clone();
    part.fields = fields
        .iter()
        .map(|&f| {
            let mut field = schema.fields[f].clone();
            field.optional = true;
            // Only types matter when reading: the constraints of today's schema are
            // checked afterwards, with diagnostics, on the tables that are kept.
            field.min = None;
            field.max = None;
            field.min_length = None;
            field.max_length = None;
            field.pattern = None;
            // Canonical files write lists with `|` (maps `k:v|k:v`), empty cells empty
            // and enum values by name: the sheets' own spellings do not apply.
            field.separator = None;
            field.key_separator = None;
            field.escapes = false;
            field.bool_spellings = Default::default();
            field.nulls.clear();
            field.aliases.clear();
            // A list in one cell; a row's sheet in its column.
            field.repeated_header = false;
            field.column_span = 1;
            field.source_sheet = false;
            field.ty = stored_type(&field);
            field
        })
        .collect();
    part.spread = None;
    part.primary_key = schema
        .primary_key
        .iter()
        .filter_map(|k| fields.iter().position(|f| f == k))
        .collect();
    part.indexes.clear();
    part
}

fn read_part(schema: &TableSchema, bytes: &[u8], path: &Path) -> Result<Table, Vec<Diagnostic>> {
    let mut builder = TableBuilder::new(schema, path, SourceFormat::Csv);
    type_records(&mut builder, bytes, path)?;
    let (table, diagnostics) = builder.finish();
    // A snapshot written under an older schema may lack a new column or hold a dropped
    // one: the new column takes its default (or null) and the old one is let go; the
    // whole table is checked against the current schema afterwards.
    let errors: Vec<Diagnostic> = diagnostics
        .into_iter()
        .filter(|d| d.is_error() && !matches!(d.code, Code::MissingColumn | Code::UnknownColumn))
        .collect();
    match table {
        Some(table) if errors.is_empty() => Ok(table),
        _ => Err(errors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Date, DateTime};

    #[test]
    fn a_cell_is_spelled_as_its_value_displays() {
        let values = [
            Value::Null,
            Value::Bool(false),
            Value::Bool(true),
            Value::Int(0),
            Value::Int(-42),
            Value::Int(i64::MIN),
            Value::Int(i64::MAX),
            Value::Float(-0.0),
            Value::Float(2.5e-8),
            Value::Str("鉄の剣, \"名\"".into()),
            Value::Str("".into()),
            Value::Date(Date::from_ymd(2026, 12, 3).unwrap()),
            Value::DateTime(DateTime(1_700_000_000_123)),
            Value::List(vec![Value::Int(1), Value::Str("a".into())].into()),
            Value::Map(vec![(Value::Int(1), Value::Float(0.5))].into()),
        ];
        let (mut cell, mut integer) = (String::new(), itoa::Buffer::new());
        for value in &values {
            assert_eq!(spelled(value, &mut cell, &mut integer), value.to_string());
        }
    }
}
