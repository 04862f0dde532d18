//! What a build holds, read through the runtime loader as a game server reads it: a
//! summary of its manifest, a table's shape, one row with its texts (and the language
//! each came from) and the reverse lookups pointing at it, a generated master's rows for
//! a key, a matrix cell. The `inspect` command and the console render these outcomes.

use std::collections::BTreeMap;

use masterctl_runtime::manifest::{Fallback, FileEntry, SeenBy};
use masterctl_runtime::{FileKind, KeyError, Masters, Row, Table, ValueRef};
use serde::Serialize;

/// What to look up in a build.
#[derive(Debug, Clone, Copy, Default)]
pub struct Query<'a> {
    /// A table or generated master; none for the build's summary.
    pub name: Option<&'a str>,
    /// A table's primary key values, a group's key, a matrix's row and column.
    pub key: &'a [String],
    /// The language of texts; none for the first the build holds.
    pub language: Option<&'a str>,
}

/// What a lookup found. Its JSON is the inner value's.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Inspection<'a> {
    Summary(Summary<'a>),
    /// A table named without a key.
    Table(TableShape<'a>),
    /// A table's row at a key.
    Row(RowShown<'a>),
    /// A reverse lookup's rows for a referenced value.
    Reverse(Rows<'a, Row<'a>>),
    /// A group's (or weighted master's) rows for a key.
    Group(Rows<'a, GroupRow<'a>>),
    /// A whole matrix, row by row.
    Matrix(Rows<'a, MatrixRow<'a>>),
    /// One cell of a matrix.
    Cell(MatrixCell<'a>),
}

/// Why a lookup found nothing.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// No table or generated master of that name; `known` lists the build's.
    #[error("the build has no table or master `{name}`")]
    NoName { name: String, known: Vec<String> },
    /// Key text that does not look the table up (count, type, an empty value).
    #[error(transparent)]
    Key(#[from] KeyError),
    /// The name exists; nothing is at the key.
    #[error("{what}")]
    Missing {
        name: String,
        key: Vec<String>,
        what: String,
    },
    /// A matrix is looked up by a row and a column, or not at all.
    #[error("a matrix cell is named by its row and its column; {given} values given")]
    MatrixKey { name: String, given: usize },
}

/// Looks `query` up in `masters`.
pub fn inspect<'a>(
    masters: &'a Masters,
    query: &Query<'a>,
) -> Result<Inspection<'a>, InspectError> {
    let Some(name) = query.name else {
        return Ok(Inspection::Summary(Summary::of(masters)));
    };
    let manifest = masters.manifest();
    let Some(entry) = manifest
        .files
        .iter()
        .find(|f| f.name == name && f.kind != FileKind::Strings)
    else {
        return Err(InspectError::NoName {
            name: name.to_string(),
            known: manifest
                .files
                .iter()
                .filter(|f| f.kind != FileKind::Strings)
                .map(|f| f.name.clone())
                .collect(),
        });
    };
    let lookup = Lookup {
        masters,
        name,
        key: query.key,
    };
    let language = query
        .language
        .unwrap_or_else(|| manifest.reading_language());
    match entry.kind {
        FileKind::Table => lookup.table(language),
        FileKind::Reverse => lookup.reverse(),
        FileKind::Group | FileKind::Weighted => lookup.group(entry.kind),
        FileKind::Matrix => lookup.matrix(),
        // Not among the names looked up: strings are skipped above, client exports are
        // no archives.
        FileKind::Strings | FileKind::Client | FileKind::ClientJson => Err(lookup.missing(
            format!("`{name}` is a client export, not read through the loader"),
        )),
    }
}

/// One table or generated master of a build, looked up by a key.
struct Lookup<'a> {
    masters: &'a Masters,
    name: &'a str,
    key: &'a [String],
}

impl<'a> Lookup<'a> {
    fn missing(&self, what: String) -> InspectError {
        InspectError::Missing {
            name: self.name.to_string(),
            key: self.key.to_vec(),
            what,
        }
    }

    fn rows<T>(&self, rows: Vec<T>) -> Rows<'a, T> {
        Rows {
            name: self.name,
            key: self.key,
            rows,
        }
    }

    /// A table's shape, or one row with its texts and the lookups pointing at it.
    fn table(&self, language: &'a str) -> Result<Inspection<'a>, InspectError> {
        let name = self.name;
        let table = self
            .masters
            .table(name)
            .ok_or_else(|| self.missing(format!("table `{name}`")))?;
        if self.key.is_empty() {
            return Ok(Inspection::Table(TableShape::of(self.masters, &table)));
        }
        let row = match self.key {
            // A table without a key (a list, a singleton): a row by its place.
            [place] if table.primary_key().next().is_none() => place
                .strip_prefix('#')
                .unwrap_or(place)
                .parse::<usize>()
                .ok()
                .and_then(|place| table.row(place.checked_sub(1)?))
                .ok_or_else(|| {
                    self.missing(format!(
                        "`{name}` has no key: a row is found by its place, #1 to #{}; `{place}` is none",
                        table.len()
                    ))
                })?,
            _ => {
                let key = table.parse_primary_key(self.key)?;
                table.get(&key).ok_or_else(|| {
                    self.missing(format!(
                        "`{name}` has no row with key {}",
                        self.key.join(" ")
                    ))
                })?
            }
        };
        Ok(Inspection::Row(RowShown::of(
            self.masters,
            row,
            self.key,
            language,
        )))
    }

    /// The rows of a reverse lookup for one referenced value.
    fn reverse(&self) -> Result<Inspection<'a>, InspectError> {
        let reverse = self
            .masters
            .reverse(self.name)
            .ok_or_else(|| self.missing(self.name.to_string()))?;
        let key = reverse.table().parse_key(&[0], self.key)?;
        let rows = reverse.get(key[0]).collect();
        Ok(Inspection::Reverse(self.rows(rows)))
    }

    /// A group's rows; a weighted master's with the group's total weight, to read each
    /// row's chance by.
    fn group(&self, kind: FileKind) -> Result<Inspection<'a>, InspectError> {
        let name = self.name;
        let group = match kind {
            FileKind::Group => self.masters.group(name),
            _ => self.masters.weighted(name).map(|w| w.group()),
        }
        .ok_or_else(|| self.missing(name.to_string()))?;
        let key = group.keys().parse_primary_key(self.key)?;
        let rows = group.get(&key);
        if rows.is_empty() {
            return Err(self.missing(format!("`{name}` has no group {}", self.key.join(" "))));
        }
        let total_weight = self.masters.weighted(name).and_then(|w| w.total(&key));
        let rows = rows.map(|row| GroupRow { row, total_weight }).collect();
        Ok(Inspection::Group(self.rows(rows)))
    }

    /// One cell of a matrix, or the whole matrix.
    fn matrix(&self) -> Result<Inspection<'a>, InspectError> {
        let name = self.name;
        let matrix = self
            .masters
            .matrix(name)
            .ok_or_else(|| self.missing(name.to_string()))?;
        match self.key {
            [row, column] => {
                let value = matrix.get(row, column).ok_or_else(|| {
                    self.missing(format!("`{name}` has no cell ({row}, {column})"))
                })?;
                Ok(Inspection::Cell(MatrixCell {
                    name,
                    row,
                    column,
                    value,
                    timezone: self.masters.manifest().timezone.as_deref(),
                }))
            }
            [] => {
                let columns: Vec<&str> = matrix.columns().collect();
                let rows = matrix
                    .rows()
                    .map(|row| MatrixRow {
                        cells: columns
                            .iter()
                            .map(|&c| (c, matrix.get(row, c).unwrap_or(ValueRef::Null)))
                            .collect(),
                        row,
                    })
                    .collect();
                Ok(Inspection::Matrix(self.rows(rows)))
            }
            _ => Err(InspectError::MatrixKey {
                name: name.to_string(),
                given: self.key.len(),
            }),
        }
    }
}

/// A build as its manifest describes it.
#[derive(Serialize)]
pub struct Summary<'a> {
    pub region: &'a str,
    pub source_commit: &'a str,
    pub schema_hash: &'a str,
    pub format: u32,
    /// The region's languages, in fallback order.
    pub languages: &'a [String],
    /// The languages whose texts the build holds (fewer after `fetch --lang`).
    pub held_languages: Vec<&'a str>,
    pub bytes: u64,
    pub files: &'a [FileEntry],
    pub fallbacks: &'a [Fallback],
    /// The project's time zone, when it is not UTC (datetimes are shown in it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timezone: Option<&'a str>,
    /// Whose build it is, when the project's audiences narrow it (`server`, `client`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<&'a str>,
    /// What the build holds that not every audience sees, and who does.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub seen_by: &'a [SeenBy],
}

impl<'a> Summary<'a> {
    fn of(masters: &'a Masters) -> Summary<'a> {
        let manifest = masters.manifest();
        Summary {
            region: &manifest.region,
            source_commit: &manifest.source_commit,
            schema_hash: &manifest.schema_hash,
            format: manifest.format,
            languages: &manifest.languages,
            held_languages: manifest.held_languages(),
            bytes: manifest
                .files
                .iter()
                .fold(0u64, |total, f| total.saturating_add(f.size)),
            files: &manifest.files,
            fallbacks: &manifest.fallbacks,
            timezone: manifest.timezone.as_deref(),
            audience: manifest.audience.as_deref(),
            seen_by: &manifest.seen_by,
        }
    }
}

/// A table's shape: rows, columns, indexes.
#[derive(Serialize)]
pub struct TableShape<'a> {
    pub table: &'a str,
    pub rows: usize,
    pub columns: Vec<&'a str>,
    /// Each index's columns, joined by `, `.
    pub indexes: Vec<String>,
    /// Who sees the table, when not every audience does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<&'a [String]>,
    /// Who sees a column, when not all who see the table do.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub column_audiences: BTreeMap<&'a str, &'a [String]>,
}

impl<'a> TableShape<'a> {
    fn of(masters: &'a Masters, table: &Table<'a>) -> TableShape<'a> {
        TableShape {
            table: table.name(),
            rows: table.len(),
            audience: masters.manifest().seen_by(table.name(), None),
            column_audiences: column_audiences(masters, table),
            columns: table.columns().collect(),
            indexes: table
                .indexes()
                .map(|i| i.columns().collect::<Vec<_>>().join(", "))
                .collect(),
        }
    }
}

/// One row of a table: its values, its texts in a language, the reverse lookups that
/// point at it.
#[derive(Serialize)]
pub struct RowShown<'a> {
    pub table: &'a str,
    pub key: &'a [String],
    pub row: Row<'a>,
    pub language: &'a str,
    pub texts: Vec<TextShown<'a>>,
    pub reverse: BTreeMap<&'a str, Vec<Row<'a>>>,
    /// The project's time zone, which people read datetimes in (not in the JSON: its
    /// values are instants).
    #[serde(skip)]
    pub timezone: Option<&'a str>,
    /// Who sees a field (a column or a text), when not all who see the table do.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub audiences: BTreeMap<&'a str, &'a [String]>,
}

impl<'a> RowShown<'a> {
    fn of(masters: &'a Masters, row: Row<'a>, key: &'a [String], language: &'a str) -> Self {
        let table = row.table();
        // Texts in the order of the schema's fields, each with the language it came from.
        let texts = masters
            .texts(table.name(), language)
            .map(|strings| {
                strings
                    .fields()
                    .map(|field| TextShown {
                        field,
                        text: strings.get(field, row.index()),
                        language: strings
                            .source_language(field, row.index())
                            .unwrap_or(strings.language()),
                    })
                    .collect()
            })
            .unwrap_or_default();
        RowShown {
            table: table.name(),
            key,
            row,
            language,
            texts,
            reverse: masters.references(&row).into_iter().collect(),
            timezone: masters.manifest().timezone.as_deref(),
            audiences: column_audiences(masters, &table),
        }
    }
}

/// Who sees each field of `table`, when not all who see the table do.
fn column_audiences<'a>(
    masters: &'a Masters,
    table: &Table<'a>,
) -> BTreeMap<&'a str, &'a [String]> {
    let manifest = masters.manifest();
    manifest
        .seen_by
        .iter()
        .filter(|s| s.table == table.name())
        .filter_map(|s| Some((s.field.as_deref()?, s.audience.as_slice())))
        .collect()
}

/// A text of a row, and the language it came from (another one after a fallback).
#[derive(Serialize)]
pub struct TextShown<'a> {
    pub field: &'a str,
    pub text: Option<&'a str>,
    pub language: &'a str,
}

/// Rows of a generated master for a key (or a whole matrix).
#[derive(Serialize)]
pub struct Rows<'a, T> {
    pub name: &'a str,
    pub key: &'a [String],
    pub rows: Vec<T>,
}

/// A row of a group, or of a weighted master with its group's total weight (to read the
/// row's chance by).
#[derive(Serialize)]
pub struct GroupRow<'a> {
    #[serde(flatten)]
    pub row: Row<'a>,
    #[serde(rename = "_total_weight", skip_serializing_if = "Option::is_none")]
    pub total_weight: Option<f64>,
}

/// A row of a matrix: its row value and a cell per column (`null` where none is set).
#[derive(Serialize)]
pub struct MatrixRow<'a> {
    pub cells: BTreeMap<&'a str, ValueRef<'a>>,
    pub row: &'a str,
}

/// One cell of a matrix.
#[derive(Serialize)]
pub struct MatrixCell<'a> {
    pub name: &'a str,
    pub row: &'a str,
    pub column: &'a str,
    pub value: ValueRef<'a>,
    /// The project's time zone (see [`RowShown::timezone`]).
    #[serde(skip)]
    pub timezone: Option<&'a str>,
}
