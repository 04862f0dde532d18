//! `masterctl inspect DIR [NAME [KEY...]]`: read a build through the runtime loader, as
//! a game server would. Without a name, a summary; with a table and its key, the row, its
//! texts and the reverse lookups pointing at it; with a generated master's name, its
//! group, draw table or matrix cell.

use std::path::PathBuf;

use masterctl_runtime::manifest::{Fallback, FileEntry};
use masterctl_runtime::{DateTime, FileKind, LoadCause, Masters, Row, Table, ValueRef};
use masterctl_schemas::Zone;
use serde::Serialize;
use std::collections::BTreeMap;

use super::Failure;
use crate::output::{Output, Render, counted};

#[derive(clap::Args)]
pub struct Args {
    /// A build directory (`masterctl build --out DIR`)
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// A table, or a generated master (reverse lookup, group, weighted, matrix)
    #[arg(value_name = "NAME")]
    name: Option<String>,
    /// The key: a table's primary key values, a group's key, a matrix's row and column
    /// (negative numbers as they are: `inspect DIR item -3`)
    #[arg(value_name = "KEY", allow_negative_numbers = true)]
    key: Vec<String>,
    /// The language of texts (default: the region's first language)
    #[arg(long, value_name = "L")]
    lang: Option<String>,
}

pub fn run(args: Args, output: &Output) -> Result<(), Failure> {
    let masters = Masters::open(&args.dir).map_err(|e| match e.cause {
        LoadCause::Io(_) => {
            Failure::usage(e.to_string()).hint("give the directory `masterctl build --out` wrote")
        }
        // Machines read JSON on standard output whatever happened.
        _ if output.is_json() => Failure::invalid(format!("rejected: {e}")),
        _ => {
            output.line(format!("{} {e}", output.bold("rejected:")));
            Failure::Shown
        }
    })?;
    let Some(name) = &args.name else {
        summary(&masters, output);
        return Ok(());
    };
    let manifest = masters.manifest();
    // The region's first language the build holds texts of (a fetch may have taken
    // some languages only).
    let held = |l: &&String| {
        manifest
            .files
            .iter()
            .any(|f| f.language.as_ref() == Some(*l))
    };
    let language = args
        .lang
        .clone()
        .or_else(|| manifest.languages.iter().find(held).cloned())
        .or_else(|| manifest.languages.first().cloned())
        .unwrap_or_default();
    let Some(entry) = manifest
        .files
        .iter()
        .find(|f| &f.name == name && f.kind != FileKind::Strings)
    else {
        let names: Vec<&str> = manifest
            .files
            .iter()
            .filter(|f| f.kind != FileKind::Strings)
            .map(|f| f.name.as_str())
            .collect();
        return Err(
            Failure::invalid(format!("the build has no table or master `{name}`"))
                .hint(format!("it has: {}", names.join(", "))),
        );
    };
    let lookup = Lookup {
        masters: &masters,
        name,
        key: &args.key,
        output,
    };
    match entry.kind {
        FileKind::Table => lookup.table(&language),
        FileKind::Reverse => lookup.reverse(),
        FileKind::Group | FileKind::Weighted => lookup.group(entry.kind),
        FileKind::Matrix => lookup.matrix(),
        // Not in the manifest the runtime reads.
        FileKind::Strings | FileKind::Client | FileKind::ClientJson => Ok(()),
    }
}

/// One table or generated master of a build, looked up by the key given.
struct Lookup<'a> {
    masters: &'a Masters,
    name: &'a str,
    key: &'a [String],
    output: &'a Output,
}

impl Lookup<'_> {
    /// Nothing at the key: said (in JSON too), exit 1.
    fn missing(&self, error: String) -> Failure {
        self.output.show(&NotFound {
            ok: false,
            name: self.name,
            key: self.key,
            error,
        });
        Failure::Shown
    }

    /// Key text typed as the key's columns are.
    fn parse<'k>(
        &'k self,
        table: &Table<'_>,
        columns: &[usize],
    ) -> Result<Vec<ValueRef<'k>>, Failure> {
        table
            .parse_key(columns, self.key)
            .map_err(|e| Failure::invalid(e.to_string()))
    }

    /// A table's shape, or one row with its texts and the lookups pointing at it.
    fn table(&self, language: &str) -> Result<(), Failure> {
        let name = self.name;
        let table = self
            .masters
            .table(name)
            .ok_or_else(|| self.missing(format!("table `{name}`")))?;
        if self.key.is_empty() {
            describe_table(&table, self.output);
            return Ok(());
        }
        let key = self.parse(&table, &table.primary_key().collect::<Vec<_>>())?;
        let row = table.get(&key).ok_or_else(|| {
            self.missing(format!(
                "`{name}` has no row with key {}",
                self.key.join(" ")
            ))
        })?;
        show_row(self.masters, &row, self.key, language, self.output);
        Ok(())
    }

    /// The rows of a reverse lookup for one referenced value.
    fn reverse(&self) -> Result<(), Failure> {
        let reverse = self
            .masters
            .reverse(self.name)
            .ok_or_else(|| self.missing(self.name.to_string()))?;
        let key = self.parse(&reverse.table(), &[0])?;
        let rows: Vec<Row<'_>> = reverse.get(key[0]).collect();
        print_rows(self.output, self.name, self.key, rows);
        Ok(())
    }

    /// A group's rows; a weighted table's with the group's total weight, to read each
    /// row's chance by.
    fn group(&self, kind: FileKind) -> Result<(), Failure> {
        let name = self.name;
        let group = match kind {
            FileKind::Group => self.masters.group(name),
            _ => self.masters.weighted(name).map(|w| w.group()),
        }
        .ok_or_else(|| self.missing(name.to_string()))?;
        let keys = group.keys();
        let key = self.parse(&keys, &keys.primary_key().collect::<Vec<_>>())?;
        let rows = group.get(&key);
        if rows.is_empty() {
            return Err(self.missing(format!("`{name}` has no group {}", self.key.join(" "))));
        }
        let total = self.masters.weighted(name).and_then(|w| w.total(&key));
        let list: Vec<GroupRow<'_>> = rows
            .map(|row| GroupRow {
                row,
                total_weight: total,
            })
            .collect();
        print_rows(self.output, name, self.key, list);
        Ok(())
    }

    /// One cell of a matrix, or the whole matrix.
    fn matrix(&self) -> Result<(), Failure> {
        let name = self.name;
        let matrix = self
            .masters
            .matrix(name)
            .ok_or_else(|| self.missing(name.to_string()))?;
        match self.key {
            [row, column] => {
                let cell = matrix.get(row, column).ok_or_else(|| {
                    self.missing(format!("`{name}` has no cell ({row}, {column})"))
                })?;
                self.output.render(&MatrixCell {
                    name,
                    row,
                    column,
                    value: cell,
                    text: shown(&cell, &zone_of(self.masters)),
                });
            }
            [] => {
                let columns: Vec<&str> = matrix.columns().collect();
                let rows: Vec<MatrixRow<'_>> = matrix
                    .rows()
                    .map(|row| MatrixRow {
                        cells: columns
                            .iter()
                            .map(|&c| (c, matrix.get(row, c).unwrap_or(ValueRef::Null)))
                            .collect(),
                        row,
                    })
                    .collect();
                print_rows(self.output, name, self.key, rows);
            }
            _ => {
                return Err(
                    Failure::usage("a matrix cell is named by its row and its column")
                        .hint(format!("masterctl inspect DIR {name} ROW COLUMN")),
                );
            }
        }
        Ok(())
    }
}

fn summary(masters: &Masters, output: &Output) {
    let manifest = masters.manifest();
    // A fetch of some languages keeps the region's order in `languages`; the texts it
    // holds are those of its strings.
    let held: Vec<String> = manifest
        .languages
        .iter()
        .filter(|l| {
            manifest
                .files
                .iter()
                .any(|f| f.language.as_ref() == Some(*l))
        })
        .cloned()
        .collect();
    output.render(&Summary {
        region: &manifest.region,
        source_commit: &manifest.source_commit,
        schema_hash: &manifest.schema_hash,
        format: manifest.format,
        languages: &manifest.languages,
        held_languages: held,
        bytes: manifest
            .files
            .iter()
            .fold(0u64, |total, f| total.saturating_add(f.size)),
        files: &manifest.files,
        fallbacks: &manifest.fallbacks,
        timezone: manifest.timezone.as_deref(),
    });
}

/// A build as its manifest describes it.
#[derive(Serialize)]
struct Summary<'a> {
    region: &'a str,
    source_commit: &'a str,
    schema_hash: &'a str,
    format: u32,
    /// The region's languages, in fallback order.
    languages: &'a [String],
    /// The languages whose texts the build holds (fewer after `fetch --lang`).
    held_languages: Vec<String>,
    bytes: u64,
    files: &'a [FileEntry],
    fallbacks: &'a [Fallback],
    /// The project's time zone, when it is not UTC (datetimes are shown in it).
    #[serde(skip_serializing_if = "Option::is_none")]
    timezone: Option<&'a str>,
}

impl Render for Summary<'_> {
    fn text(&self, output: &Output) {
        let languages = if self.held_languages.is_empty()
            || self.held_languages.len() == self.languages.len()
        {
            self.languages.join(", ")
        } else {
            format!(
                "{} (of the region's {})",
                self.held_languages.join(", "),
                self.languages.join(", ")
            )
        };
        output.line(format!(
            "{} built from {} (format {}), languages {languages}, {} files, {} bytes",
            output.bold(self.region),
            masterctl_store::names::one_line(masterctl_store::short_id(self.source_commit)),
            self.format,
            self.files.len(),
            self.bytes
        ));
        if let Some(zone) = self.timezone {
            output.line(format!(
                "datetimes shown in {zone} (stored as UTC instants)"
            ));
        }
        let names: Vec<(String, String)> = self
            .files
            .iter()
            .map(|file| {
                let kind = format!("{:?}", file.kind).to_lowercase();
                let of = match (&file.language, &file.table) {
                    (Some(language), _) => format!(" ({language})"),
                    (None, Some(table)) if kind != "table" => format!(" (of {table})"),
                    _ => String::new(),
                };
                (kind, format!("{}{of}", file.name))
            })
            .collect();
        let width = names
            .iter()
            .map(|(_, n)| n.chars().count())
            .max()
            .unwrap_or(0);
        for (file, (kind, name)) in self.files.iter().zip(&names) {
            output.line(format!(
                "  {kind:<9} {name:<width$} {:>9} rows {:>11} bytes",
                file.rows, file.size
            ));
        }
        for fallback in self.fallbacks {
            output.line(format!(
                "  fallback: {}.{} in {}: {} from {}",
                fallback.table, fallback.field, fallback.language, fallback.count, fallback.from
            ));
        }
    }
}

fn describe_table(table: &Table<'_>, output: &Output) {
    let columns: Vec<&str> = table.columns().collect();
    let indexes: Vec<String> = table
        .indexes()
        .map(|i| i.columns().collect::<Vec<_>>().join(", "))
        .collect();
    output.render(&TableShape {
        table: table.name(),
        rows: table.len(),
        columns,
        indexes,
    });
}

/// A table's shape: rows, columns, indexes.
#[derive(Serialize)]
struct TableShape<'a> {
    table: &'a str,
    rows: usize,
    columns: Vec<&'a str>,
    indexes: Vec<String>,
}

impl Render for TableShape<'_> {
    fn text(&self, output: &Output) {
        output.line(format!("{}: {} rows", output.bold(self.table), self.rows));
        output.line(format!("  columns: {}", self.columns.join(", ")));
        for index in &self.indexes {
            output.line(format!("  index: {index}"));
        }
    }
}

/// A key not in the build.
#[derive(Serialize)]
struct NotFound<'a> {
    ok: bool,
    name: &'a str,
    key: &'a [String],
    error: String,
}

impl Render for NotFound<'_> {
    fn text(&self, output: &Output) {
        output.line(format!("{} {}", output.bold("not found:"), self.error));
    }
}

/// One cell of a matrix.
#[derive(Serialize)]
struct MatrixCell<'a> {
    name: &'a str,
    row: &'a str,
    column: &'a str,
    value: ValueRef<'a>,
    #[serde(skip)]
    text: String,
}

/// A row of a group, or of a weighted master with its group's total weight (to read the
/// row's chance by).
#[derive(Serialize)]
struct GroupRow<'a> {
    #[serde(flatten)]
    row: Row<'a>,
    #[serde(rename = "_total_weight", skip_serializing_if = "Option::is_none")]
    total_weight: Option<f64>,
}

/// A row of a matrix: its row value and a cell per column (`null` where none is set).
#[derive(Serialize)]
struct MatrixRow<'a> {
    cells: BTreeMap<&'a str, ValueRef<'a>>,
    row: &'a str,
}

impl Render for MatrixCell<'_> {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} ({}, {}) = {}",
            self.name, self.row, self.column, self.text
        ));
    }
}

fn print_rows<T: Serialize>(output: &Output, name: &str, key: &[String], rows: Vec<T>) {
    output.render(&Rows { name, key, rows });
}

/// Rows of a generated master for a key (or a whole matrix), as JSON objects.
#[derive(Serialize)]
struct Rows<'a, T> {
    name: &'a str,
    key: &'a [String],
    rows: Vec<T>,
}

impl<T: Serialize> Render for Rows<'_, T> {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} {}: {}",
            output.bold(self.name),
            self.key.join(" "),
            counted(self.rows.len(), "row")
        ));
        for row in &self.rows {
            output.line(format!("  {}", one_json_line(row)));
        }
    }
}

fn show_row(masters: &Masters, row: &Row<'_>, key: &[String], language: &str, output: &Output) {
    let table = row.table();
    let languages = &masters.manifest().languages;
    // Texts in the order of the schema's fields, each with the language it came from
    // (another one when the build fell back).
    let mut texts: Vec<(&str, Option<&str>, &str)> = Vec::new();
    if let Some(strings) = masters.texts(table.name(), language) {
        for field in strings.fields() {
            let from = match strings.fallback(field, row.index()) {
                Some(n) if n > 0 => languages
                    .get(usize::from(n) - 1)
                    .map_or(strings.language(), String::as_str),
                _ => strings.language(),
            };
            texts.push((field, strings.get(field, row.index()), from));
        }
    }
    // Reverse lookups that point at this table, by its (first) key value.
    let first_key = table.primary_key().next().map(|c| row.value(c));
    let lookups: BTreeMap<&str, Vec<Row<'_>>> = match first_key {
        Some(first_key) => masters
            .reverses_of(table.name())
            .into_iter()
            .map(|(name, reverse)| (name, reverse.get(first_key).collect()))
            .collect(),
        None => BTreeMap::new(),
    };
    let zone = zone_of(masters);
    output.render(&RowShown {
        table: table.name(),
        key,
        row: *row,
        language,
        texts: texts
            .iter()
            .map(|&(field, text, from)| TextShown {
                field,
                text,
                language: from,
            })
            .collect(),
        reverse: lookups,
        cells: table
            .columns()
            .enumerate()
            .map(|(i, name)| (name, shown(&row.value(i), &zone)))
            .collect(),
    });
}

/// The zone people read a build's datetimes in: the project's (UTC when none is set, or
/// when the build names one this masterctl does not know).
fn zone_of(masters: &Masters) -> Zone {
    masters
        .manifest()
        .timezone
        .as_deref()
        .and_then(|name| Zone::named(name).ok())
        .unwrap_or_default()
}

/// A value as people read it: a datetime in `zone`, with its offset; the rest as built.
fn shown(value: &ValueRef<'_>, zone: &Zone) -> String {
    match value {
        ValueRef::DateTime(ms) => zone.show(DateTime(*ms)),
        other => other.to_string(),
    }
}

/// One row of a table: its values, its texts in a language, the reverse lookups that
/// point at it.
#[derive(Serialize)]
struct RowShown<'a> {
    table: &'a str,
    key: &'a [String],
    row: Row<'a>,
    language: &'a str,
    texts: Vec<TextShown<'a>>,
    reverse: BTreeMap<&'a str, Vec<Row<'a>>>,
    /// The values as text, column by column, for people.
    #[serde(skip)]
    cells: Vec<(&'a str, String)>,
}

/// A text of a row, and the language it came from (another one after a fallback).
#[derive(Serialize)]
struct TextShown<'a> {
    field: &'a str,
    text: Option<&'a str>,
    language: &'a str,
}

impl Render for RowShown<'_> {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} {}",
            output.bold(self.table),
            self.key.join(" ")
        ));
        for (name, value) in &self.cells {
            output.line(format!("  {name:<20} {value}"));
        }
        for text in &self.texts {
            let label = if text.language == self.language {
                format!("{} ({})", text.field, self.language)
            } else {
                format!("{} ({}, from {})", text.field, self.language, text.language)
            };
            output.line(format!("  {label:<20} {}", text.text.unwrap_or("")));
        }
        for (name, rows) in &self.reverse {
            output.line(format!("  {name}: {}", counted(rows.len(), "reference")));
            for r in rows {
                output.line(format!("    {}", one_json_line(r)));
            }
        }
    }
}

/// A row as one line of JSON, as the text view shows generated masters' rows.
fn one_json_line(row: &impl Serialize) -> String {
    serde_json::to_string(row).unwrap_or_default()
}
