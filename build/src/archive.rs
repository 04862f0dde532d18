//! The archive builder: a region snapshot's typed tables, translations and generated
//! masters in, the files of a build out (rkyv archives of
//! [`masterctl_runtime::format`], and the manifest's entries). Deterministic: the same
//! snapshot always gives the same bytes.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use masterctl_locales::TableTexts;
use masterctl_locales::pseudo::pseudo;
use masterctl_locales::texts::text_fields;
use masterctl_runtime::format::{
    ArchiveFile, Body, ColumnData, ColumnType, FORMAT_VERSION, GroupData, Identity, IndexData,
    MatrixData, Strings, StringsData, TableData, TextColumn, WeightedData, key_slot,
};
use masterctl_runtime::manifest::{Fallback, FileEntry, FileKind};
use masterctl_schemas::canonical::{data_fields, key_order};
use masterctl_schemas::schema::{CustomKind, GeneratedKind, Project};
use masterctl_schemas::{Field, FieldType, Table, TableSchema, Value};

use masterctl_generators::GeneratedTable;

use crate::columns::{column, column_type};
use masterctl_generators::custom::group_order;

/// One file of a build, before it is written.
#[derive(Debug, Clone)]
pub struct BuiltFile {
    pub path: String,
    pub kind: FileKind,
    pub name: String,
    pub language: Option<String>,
    pub table: Option<String>,
    pub rows: u64,
    pub bytes: Vec<u8>,
}

impl BuiltFile {
    /// The file's line in the manifest: what it is, its size and BLAKE3.
    pub fn manifest_entry(&self) -> FileEntry {
        FileEntry {
            path: self.path.clone(),
            kind: self.kind,
            name: self.name.clone(),
            language: self.language.clone(),
            table: self.table.clone(),
            blake3: blake3::hash(&self.bytes).to_hex().to_string(),
            size: self.bytes.len() as u64,
            rows: self.rows,
        }
    }
}

/// What a build reads: the snapshot's tables (typed, text fields holding the source
/// language), every other language's translations per table, the generated masters.
pub struct BuildInput<'a> {
    pub project: &'a Project,
    /// The region's languages, in fallback order.
    pub languages: &'a [String],
    /// Translations by language, then table.
    pub translations: &'a HashMap<String, HashMap<String, TableTexts>>,
    pub generated: &'a HashMap<String, GeneratedTable>,
    /// The manifest's schema hash, carried by every archive.
    pub schema_hash: &'a str,
    /// Also write the client export (`client/`, `docs/CLIENT-FORMAT.md`).
    pub client: bool,
    /// Pseudo languages (also in `languages`): made from the source texts, this much
    /// longer (`[pseudo]`).
    pub pseudo: &'a [String],
    pub expansion: f64,
}

/// Why a build could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("table `{table}` has {rows} rows; an archive holds at most 4,294,967,295")]
    TooManyRows { table: String, rows: usize },
    #[error("cannot serialize `{name}`: {source}")]
    Serialize {
        name: String,
        #[source]
        source: rkyv::rancor::Error,
    },
}

/// One archive, carrying what it is (checked against the manifest at open).
fn encode(
    input: &BuildInput<'_>,
    kind: FileKind,
    name: &str,
    language: Option<&str>,
    body: Body,
) -> Result<Vec<u8>, BuildError> {
    let file = ArchiveFile {
        version: FORMAT_VERSION,
        identity: Identity {
            kind: kind.as_str().to_string(),
            name: name.to_string(),
            language: language.map(str::to_string),
            schema_hash: input.schema_hash.to_string(),
        },
        body,
    };
    // Straight into the file's bytes: positions are aligned from the buffer's start, which
    // is all a file keeps (serialized into an aligned buffer and copied out, a large
    // table's archive was held twice).
    rkyv::api::high::to_bytes_in::<_, rkyv::rancor::Error>(&file, Vec::new()).map_err(|source| {
        BuildError::Serialize {
            name: name.to_string(),
            source,
        }
    })
}

/// The row order of a table in its archive, and each source row's archive position.
struct Order {
    rows: Vec<usize>,
    position: Vec<u32>,
}

fn order(schema: &TableSchema, table: &Table) -> Result<Order, BuildError> {
    if u32::try_from(table.row_count()).is_err() {
        return Err(BuildError::TooManyRows {
            table: table.name.clone(),
            rows: table.row_count(),
        });
    }
    let rows = key_order(schema, table);
    let mut position = vec![0u32; rows.len()];
    for (at, &row) in rows.iter().enumerate() {
        position[row] = at as u32;
    }
    Ok(Order { rows, position })
}

/// The type a column of generated values takes: that of its first value.
fn inferred_type<'v>(mut values: impl Iterator<Item = &'v Value>) -> (ColumnType, bool) {
    let scalar = |v: &Value| match v {
        Value::Int(_) => Some(ColumnType::Int),
        Value::Float(_) => Some(ColumnType::Float),
        Value::Bool(_) => Some(ColumnType::Bool),
        Value::Str(_) => Some(ColumnType::Str),
        Value::Date(_) => Some(ColumnType::Date),
        Value::DateTime(_) => Some(ColumnType::DateTime),
        Value::Null | Value::List(_) | Value::Map(_) | Value::Record(_) => None,
    };
    values
        .find_map(|v| match v {
            Value::List(items) => items.iter().find_map(scalar).map(|t| (t, true)),
            other => scalar(other).map(|t| (t, false)),
        })
        .unwrap_or((ColumnType::Str, false))
}

/// A schema field's column over some rows (a map's: its keys, see [`map_columns`]).
fn field_column<'v>(field: &Field, cells: impl ExactSizeIterator<Item = &'v Value>) -> ColumnData {
    if let FieldType::Map(key, _) = &field.ty {
        return map_columns(field, cells, key).0;
    }
    column(
        &field.name,
        column_type(&field.ty),
        matches!(field.ty, FieldType::List(_)),
        cells,
    )
}

use masterctl_runtime::format::MAP_VALUES;

/// A map field's two columns: its keys and its values, lists of the same lengths.
fn map_columns<'v>(
    field: &Field,
    cells: impl ExactSizeIterator<Item = &'v Value>,
    key: &FieldType,
) -> (ColumnData, ColumnData) {
    let (mut keys, mut values) = (Vec::with_capacity(cells.len()), Vec::new());
    for cell in cells {
        let (k, v): (Vec<Value>, Vec<Value>) = match cell {
            Value::Map(entries) => entries.iter().cloned().unzip(),
            _ => (Vec::new(), Vec::new()),
        };
        let null = cell.is_null();
        keys.push(if null {
            Value::Null
        } else {
            Value::List(k.into())
        });
        values.push(if null {
            Value::Null
        } else {
            Value::List(v.into())
        });
    }
    (
        column(&field.name, column_type(key), true, keys.iter()),
        column(
            &format!("{}{MAP_VALUES}", field.name),
            column_type(field.ty.scalar()),
            true,
            values.iter(),
        ),
    )
}

/// The archive of a table: its non-text columns in key order, key and indexes.
fn table_data(schema: &TableSchema, table: &Table, order: &Order) -> TableData {
    let fields = data_fields(schema);
    let cells = |f: usize| order.rows.iter().map(move |&row| table.value(row, f));
    let mut columns: Vec<ColumnData> = fields
        .iter()
        .map(|&f| field_column(&schema.fields[f], cells(f)))
        .collect();
    // Maps' values and records' fields after every field's column, so that a field's
    // column is at its place.
    for &f in &fields {
        if let FieldType::Map(key, _) = &schema.fields[f].ty {
            columns.push(map_columns(&schema.fields[f], cells(f), key).1);
        }
    }
    for &f in &fields {
        columns.extend(crate::parts::part_columns(&schema.fields[f], cells(f)));
    }
    let position_of = |field: usize| fields.iter().position(|&f| f == field).map(|p| p as u32);
    let indexes = schema
        .indexes
        .iter()
        .map(|index| {
            let mut rows: Vec<u32> = (0..order.rows.len() as u32).collect();
            let by: Vec<usize> = index
                .fields
                .iter()
                .chain(&index.order_by)
                .copied()
                .collect();
            // Rows are in key order already: a stable sort by the index keeps it for ties.
            rows.sort_by(|&a, &b| {
                let (a, b) = (order.rows[a as usize], order.rows[b as usize]);
                by.iter()
                    .map(|&f| table.value(a, f).cmp(table.value(b, f)))
                    .find(|o| o.is_ne())
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            IndexData {
                columns: index
                    .fields
                    .iter()
                    .filter_map(|&f| position_of(f))
                    .collect(),
                order_by: index
                    .order_by
                    .iter()
                    .filter_map(|&f| position_of(f))
                    .collect(),
                unique: index.unique,
                rows,
            }
        })
        .collect();
    let key_hash = match schema.primary_key.as_slice() {
        [key] if schema.fields[*key].ty == FieldType::Int => {
            key_hash(order.rows.iter().map(|&row| table.value(row, *key)))
        }
        _ => Vec::new(),
    };
    TableData {
        name: schema.name.clone(),
        rows: order.rows.len() as u32,
        columns,
        primary_key: schema
            .primary_key
            .iter()
            .filter_map(|&f| position_of(f))
            .collect(),
        indexes,
        key_hash,
    }
}

/// The hash table of a single integer key (see `TableData::key_hash`): twice the rows,
/// rounded up to a power of two, linear probing.
fn key_hash<'v>(keys: impl ExactSizeIterator<Item = &'v Value>) -> Vec<u32> {
    let slots = (keys.len() * 2).next_power_of_two().max(2);
    let bits = slots.trailing_zeros();
    let mask = slots - 1;
    let mut table = vec![u32::MAX; slots];
    for (id, key) in keys.enumerate() {
        let Value::Int(key) = key else {
            return Vec::new();
        };
        let mut slot = key_slot(*key, bits);
        while table[slot] != u32::MAX {
            slot = (slot + 1) & mask;
        }
        table[slot] = id as u32;
    }
    table
}

/// A table of generated rows (a reverse lookup), with an index on its first column.
fn generated_data(name: &str, generated: &GeneratedTable) -> TableData {
    let columns: Vec<ColumnData> = generated
        .header
        .iter()
        .enumerate()
        .map(|(c, header)| {
            let (ty, list) = inferred_type(generated.rows.iter().filter_map(|r| r.get(c)));
            column(
                header,
                ty,
                list,
                generated
                    .rows
                    .iter()
                    .map(|r| r.get(c).unwrap_or(&Value::Null))
                    .collect::<Vec<_>>()
                    .into_iter(),
            )
        })
        .collect();
    let rows = generated.rows.len() as u32;
    TableData {
        name: name.to_string(),
        rows,
        columns,
        primary_key: Vec::new(),
        key_hash: Vec::new(),
        indexes: vec![IndexData {
            columns: vec![0],
            order_by: Vec::new(),
            unique: false,
            rows: (0..rows).collect(),
        }],
    }
}

/// Groups of a table's rows: keys (one row per group, in key order), offsets, row ids.
fn group_data(
    name: &str,
    schema: &TableSchema,
    table: &Table,
    order: &Order,
    group_by: &[usize],
    order_by: &[usize],
) -> GroupData {
    let (rows, starts) = group_order(schema, table, group_by, order_by);
    let firsts: Vec<usize> = starts.iter().map(|&i| rows[i]).collect();
    let mut offsets: Vec<u32> = starts.iter().map(|&i| i as u32).collect();
    offsets.push(rows.len() as u32);
    let keys = TableData {
        name: format!("{name} keys"),
        rows: firsts.len() as u32,
        columns: group_by
            .iter()
            .map(|&f| {
                field_column(
                    &schema.fields[f],
                    firsts.iter().map(|&row| table.value(row, f)),
                )
            })
            .collect(),
        primary_key: (0..group_by.len() as u32).collect(),
        indexes: Vec::new(),
        key_hash: Vec::new(),
    };
    GroupData {
        name: name.to_string(),
        table: schema.name.clone(),
        keys,
        offsets,
        rows: rows.iter().map(|&row| order.position[row]).collect(),
    }
}

/// Build every file of `tables` (one per schema table present). Texts: for each
/// language of the region, each row's text from that language, else from the first
/// language of the region's order that has one (each such fallback counted in the
/// returned list). Each table is freed once what its archives hold is taken from it,
/// before they are encoded.
pub fn build(
    input: &BuildInput<'_>,
    tables: Vec<Table>,
) -> Result<(Vec<BuiltFile>, Vec<Fallback>), BuildError> {
    let project = input.project;
    let by_name: HashMap<&str, &Table> = tables.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut orders: HashMap<&str, Order> = HashMap::new();
    for schema in &project.tables {
        if let Some(table) = by_name.get(schema.name.as_str()) {
            orders.insert(&schema.name, order(schema, table)?);
        }
    }
    // The generated masters first: a custom one reads its table.
    let mut files = generated_files(input, &by_name, &orders)?;
    drop(by_name);
    let mut owned: HashMap<String, Table> =
        tables.into_iter().map(|t| (t.name.clone(), t)).collect();
    let present: Vec<(&TableSchema, Mutex<Option<Table>>)> = (project.tables.iter())
        .filter_map(|s| Some((s, Mutex::new(Some(owned.remove(&s.name)?)))))
        .collect();
    let built = masterctl_schemas::read::parallel_map(&present, |(schema, table)| {
        // Each item is handed to one worker once: its table is there.
        let taken = table.lock().unwrap_or_else(PoisonError::into_inner).take();
        match taken {
            Some(table) => table_files(input, schema, table, &orders[schema.name.as_str()]),
            None => Ok((Vec::new(), Vec::new())),
        }
    });
    let mut fallbacks = Vec::new();
    for result in built {
        let (built, taken) = result?;
        files.extend(built);
        fallbacks.extend(taken);
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((files, fallbacks))
}

/// The files of the generated masters (a custom one made from its table in `by_name`).
fn generated_files(
    input: &BuildInput<'_>,
    by_name: &HashMap<&str, &Table>,
    orders: &HashMap<&str, Order>,
) -> Result<Vec<BuiltFile>, BuildError> {
    let project = input.project;
    let mut files = Vec::new();
    for generated in &project.generated {
        if let Some(file) = generated_file(input, generated, by_name, orders)? {
            files.push(file);
        }
        if let (true, Some(rows)) = (input.client, input.generated.get(&generated.name)) {
            let data = generated_data(&generated.name, rows);
            files.extend(client_files(
                ("generated", &generated.name, None, None),
                data.rows as u64,
                crate::client::table_file(input.schema_hash, &data, &HashMap::new()),
                crate::client::table_json(input.schema_hash, &data),
            ));
        }
    }
    Ok(files)
}

/// The client export's two files of one table, generated master or language's texts:
/// `client/<folder>/[<language>/]<name>.bin` and the same under `client/json/` as JSON.
/// `what`: (folder, name, language, table).
fn client_files(
    what: (&str, &str, Option<&String>, Option<&String>),
    rows: u64,
    binary: Vec<u8>,
    json: Vec<u8>,
) -> [BuiltFile; 2] {
    let (folder, name, language, table) = what;
    let within = match language {
        Some(language) => format!("{folder}/{language}/{name}"),
        None => format!("{folder}/{name}"),
    };
    let file = |path: String, kind: FileKind, bytes: Vec<u8>| BuiltFile {
        path,
        kind,
        name: name.to_string(),
        language: language.cloned(),
        table: table.cloned(),
        rows,
        bytes,
    };
    [
        file(format!("client/{within}.bin"), FileKind::Client, binary),
        file(
            format!("client/json/{within}.json"),
            FileKind::ClientJson,
            json,
        ),
    ]
}

/// A table's archive, and one strings archive per language when it has text fields
/// (with the fallbacks taken).
fn table_files(
    input: &BuildInput<'_>,
    schema: &TableSchema,
    table: Table,
    order: &Order,
) -> Result<(Vec<BuiltFile>, Vec<Fallback>), BuildError> {
    let data = table_data(schema, &table, order);
    let (strings, fallbacks) = strings_of(input, schema, &table, order);
    // All the archives hold is taken: the table's values are freed before they are made
    // (freed on a thread of their own, they were still held as the archives grew).
    drop(table);
    let mut client = Vec::new();
    if input.client {
        // Each enum column's values: a map's keys are its field's column, its values
        // the `.values` one.
        let value_columns: Vec<(String, &[std::sync::Arc<str>])> = schema
            .fields
            .iter()
            .filter(|f| f.ty.map_key().is_some() && *f.ty.scalar() == FieldType::Enum)
            .map(|f| (format!("{}{MAP_VALUES}", f.name), f.values.as_slice()))
            .collect();
        let record_enums: Vec<(String, &[std::sync::Arc<str>])> = (schema.fields.iter())
            .flat_map(crate::parts::part_enums)
            .collect();
        let enums: HashMap<&str, &[std::sync::Arc<str>]> = schema
            .fields
            .iter()
            .filter(|f| match f.ty.map_key() {
                Some(key) => *key == FieldType::Enum,
                None => *f.ty.scalar() == FieldType::Enum,
            })
            .map(|f| (f.name.as_str(), f.values.as_slice()))
            .chain(value_columns.iter().map(|(n, v)| (n.as_str(), *v)))
            .chain(record_enums.iter().map(|(n, v)| (n.as_str(), *v)))
            .collect();
        client.extend(client_files(
            ("tables", &schema.name, None, None),
            data.rows as u64,
            crate::client::table_file(input.schema_hash, &data, &enums),
            crate::client::table_json(input.schema_hash, &data),
        ));
    }
    let mut files = vec![BuiltFile {
        path: format!("tables/{}.rkyv", schema.name),
        kind: FileKind::Table,
        name: schema.name.clone(),
        language: None,
        table: None,
        rows: order.rows.len() as u64,
        bytes: encode(
            input,
            FileKind::Table,
            &schema.name,
            None,
            Body::Table(data),
        )?,
    }];
    files.append(&mut client);
    for strings in strings {
        let language = strings.language.clone();
        if input.client {
            files.extend(client_files(
                ("strings", &schema.name, Some(&language), Some(&schema.name)),
                strings.rows as u64,
                crate::client::texts_file(input.schema_hash, &strings),
                crate::client::texts_json(input.schema_hash, &strings),
            ));
        }
        files.push(BuiltFile {
            path: format!("strings/{language}/{}.rkyv", schema.name),
            kind: FileKind::Strings,
            name: schema.name.clone(),
            language: Some(language.clone()),
            table: Some(schema.name.clone()),
            rows: order.rows.len() as u64,
            bytes: encode(
                input,
                FileKind::Strings,
                &schema.name,
                Some(&language),
                Body::Strings(strings),
            )?,
        });
    }
    Ok((files, fallbacks))
}

/// A table's texts in each of the region's languages (none when it has no text field),
/// and the fallbacks taken.
fn strings_of(
    input: &BuildInput<'_>,
    schema: &TableSchema,
    table: &Table,
    order: &Order,
) -> (Vec<StringsData>, Vec<Fallback>) {
    let fields = text_fields(schema);
    let mut fallbacks = Vec::new();
    if fields.is_empty() {
        return (Vec::new(), fallbacks);
    }
    let texts = Texts {
        input,
        schema,
        table,
        fields: &fields,
    };
    let strings = input.languages.iter().map(|language| {
        let mut columns = Vec::with_capacity(fields.len());
        for position in 0..fields.len() {
            let (column, taken) = texts.column(language, position, order);
            columns.push(column);
            fallbacks.extend(taken);
        }
        StringsData {
            table: schema.name.clone(),
            language: language.clone(),
            rows: order.rows.len() as u32,
            fields: columns,
        }
    });
    (strings.collect(), fallbacks)
}

/// The texts of one table in every language: the source language's from the table,
/// the others' from their translations.
struct Texts<'a> {
    input: &'a BuildInput<'a>,
    schema: &'a TableSchema,
    table: &'a Table,
    /// The text fields, by position.
    fields: &'a [usize],
}

impl Texts<'_> {
    /// A row's text of the field at `position` in `language`, if it has one.
    fn text(&self, language: &str, row: usize, position: usize) -> Option<String> {
        let source = || {
            self.table
                .value(row, self.fields[position])
                .as_str()
                .filter(|t| !t.is_empty())
        };
        if language == self.input.project.config.source_language {
            return source().map(str::to_string);
        }
        if self.input.pseudo.iter().any(|p| p == language) {
            return source().map(|text| pseudo(text, self.input.expansion));
        }
        let texts = self
            .input
            .translations
            .get(language)?
            .get(&self.schema.name)?;
        texts
            .text(&self.table.key(row, &self.schema.primary_key), position)
            .map(str::to_string)
    }

    /// One text field in `language`, rows in archive order: a row without its own text
    /// takes the first language of the region's order that has one, and says which
    /// (the fallbacks taken, counted per language they came from).
    fn column(
        &self,
        language: &str,
        position: usize,
        order: &Order,
    ) -> (TextColumn, Vec<Fallback>) {
        let languages = self.input.languages;
        let mut values = Strings::with_capacity(order.rows.len());
        let mut fallback = Vec::with_capacity(order.rows.len());
        let mut taken: Vec<u64> = vec![0; languages.len()];
        for &row in &order.rows {
            let own = self.text(language, row, position).map(|t| (t, 0u8));
            let found = own.or_else(|| {
                languages
                    .iter()
                    .enumerate()
                    .filter(|(_, other)| *other != language)
                    .find_map(|(i, other)| {
                        self.text(other, row, position).map(|t| {
                            taken[i] += 1;
                            (t, i as u8 + 1)
                        })
                    })
            });
            let (text, from) = found.unwrap_or_default();
            values.push(&text);
            fallback.push(from);
        }
        let field = &self.schema.fields[self.fields[position]].name;
        let fallbacks = taken
            .iter()
            .enumerate()
            .filter(|(_, count)| **count > 0)
            .map(|(i, &count)| Fallback {
                table: self.schema.name.clone(),
                field: field.clone(),
                language: language.to_string(),
                from: languages[i].clone(),
                count,
            })
            .collect();
        if fallback.iter().all(|&f| f == 0) {
            fallback.clear();
        }
        let column = TextColumn {
            name: field.clone(),
            values,
            fallback,
        };
        (column, fallbacks)
    }
}

/// The archive of a generated master (`None` when its table is not in the build).
fn generated_file(
    input: &BuildInput<'_>,
    generated: &masterctl_schemas::schema::GeneratedSchema,
    by_name: &HashMap<&str, &Table>,
    orders: &HashMap<&str, Order>,
) -> Result<Option<BuiltFile>, BuildError> {
    let name = &generated.name;
    let (kind, table_name, rows, body) = match &generated.kind {
        GeneratedKind::Reverse(reverse) => {
            let Some(rows) = input.generated.get(name) else {
                return Ok(None);
            };
            let data = generated_data(name, rows);
            (
                FileKind::Reverse,
                reverse.target.clone(),
                rows.rows.len(),
                Body::Table(data),
            )
        }
        GeneratedKind::Custom(custom) => {
            let (Some(schema), Some(table), Some(order)) = (
                input.project.table(&custom.table),
                by_name.get(custom.table.as_str()),
                orders.get(custom.table.as_str()),
            ) else {
                return Ok(None);
            };
            let Some((kind, rows, body)) = custom_body(input, name, custom, schema, table, order)
            else {
                return Ok(None);
            };
            (kind, custom.table.clone(), rows, body)
        }
    };
    Ok(Some(BuiltFile {
        path: format!("generated/{name}.rkyv"),
        kind,
        name: name.clone(),
        language: None,
        table: Some(table_name),
        rows: rows as u64,
        bytes: encode(input, kind, name, None, body)?,
    }))
}

/// A custom master's archive body: a group, a weighted table (cumulative weights per
/// group) or a matrix; `None` when what it needs is missing.
fn custom_body(
    input: &BuildInput<'_>,
    name: &str,
    custom: &masterctl_schemas::schema::Custom,
    schema: &TableSchema,
    table: &Table,
    order: &Order,
) -> Option<(FileKind, usize, Body)> {
    let fields = |names: &[String]| -> Vec<usize> {
        names.iter().filter_map(|n| schema.field_index(n)).collect()
    };
    Some(match &custom.kind {
        CustomKind::Group { group_by, order_by } => {
            let group = group_data(
                name,
                schema,
                table,
                order,
                &fields(group_by),
                &fields(order_by),
            );
            let rows = group.rows.len();
            (FileKind::Group, rows, Body::Group(group))
        }
        CustomKind::Weighted { group_by, weight } => {
            let group = group_data(
                name,
                schema,
                table,
                order,
                &fields(group_by),
                &schema.primary_key,
            );
            let weight = schema.field_index(weight);
            let mut cumulative = Vec::with_capacity(group.rows.len());
            for window in group.offsets.windows(2) {
                let mut sum = 0.0;
                for &id in &group.rows[window[0] as usize..window[1] as usize] {
                    let row = order.rows[id as usize];
                    sum += weight
                        .and_then(|w| table.value(row, w).as_f64())
                        .unwrap_or(0.0);
                    cumulative.push(sum);
                }
            }
            let rows = group.rows.len();
            (
                FileKind::Weighted,
                rows,
                Body::Weighted(WeightedData { group, cumulative }),
            )
        }
        CustomKind::Matrix {
            row,
            column: column_name,
            value,
            ..
        } => {
            let generated_rows = input.generated.get(name)?;
            let (r, c, v) = (
                schema.field(row)?,
                schema.field(column_name)?,
                schema.field(value)?,
            );
            let cells: Vec<&Value> = generated_rows
                .rows
                .iter()
                .flat_map(|cells| cells.iter().skip(1))
                .collect();
            let data = MatrixData {
                name: name.to_string(),
                table: custom.table.clone(),
                row_values: r.values.iter().map(|v| v.to_string()).collect(),
                column_values: c.values.iter().map(|v| v.to_string()).collect(),
                cells: field_column(v, cells.into_iter()),
            };
            (
                FileKind::Matrix,
                generated_rows.rows.len(),
                Body::Matrix(data),
            )
        }
    })
}
