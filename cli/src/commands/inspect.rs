//! `masterctl inspect DIR [NAME [KEY...]]`: read a build through the runtime loader, as
//! a game server would. Without a name, a summary; with a table and its key, the row, its
//! texts and the reverse lookups pointing at it; with a generated master's name, its
//! group, draw table or matrix cell.

use std::collections::BTreeMap;
use std::path::PathBuf;

use masterctl_build::inspect::{
    InspectError, Inspection, MatrixCell, Query, RowShown, Rows, Summary, TableShape, inspect,
};
use masterctl_runtime::format::MAP_VALUES;
use masterctl_runtime::{DateTime, LoadCause, Masters, ValueRef};
use masterctl_schemas::Zone;
use serde::Serialize;

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
    /// (negative numbers as they are: `inspect DIR item -3`); a table without a key (a
    /// singleton, a list): a row's place, `#1` for the first
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
    let query = Query {
        name: args.name.as_deref(),
        key: &args.key,
        language: args.lang.as_deref(),
    };
    match inspect(&masters, &query) {
        Ok(Inspection::Summary(summary)) => output.render(&summary),
        Ok(Inspection::Table(shape)) => output.render(&shape),
        Ok(Inspection::Row(row)) => output.render(&row),
        Ok(Inspection::Reverse(rows)) => output.render(&rows),
        Ok(Inspection::Group(rows)) => output.render(&rows),
        Ok(Inspection::Matrix(rows)) => output.render(&rows),
        Ok(Inspection::Cell(cell)) => output.render(&cell),
        Err(error) => return Err(failure(error, output)),
    }
    Ok(())
}

/// A lookup that found nothing: a missing key is said (in JSON too) and exits 1.
fn failure(error: InspectError, output: &Output) -> Failure {
    match error {
        InspectError::NoName { ref known, .. } => {
            let hint = format!("it has: {}", known.join(", "));
            Failure::invalid(error.to_string()).hint(hint)
        }
        InspectError::Key(_) => Failure::invalid(error.to_string()),
        InspectError::Missing { name, key, what } => {
            output.show(&NotFound {
                ok: false,
                name: &name,
                key: &key,
                error: what,
            });
            Failure::Shown
        }
        InspectError::MatrixKey { ref name, .. } => Failure::usage(error.to_string())
            .hint(format!("masterctl inspect DIR {name} ROW COLUMN")),
    }
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
        if let Some(audience) = self.audience {
            output.line(format!(
                "the {audience}s' build: only what the project's audiences let {audience}s see"
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
        for seen in self.seen_by {
            let name = match &seen.field {
                Some(field) => format!("{}.{field}", seen.table),
                None => seen.table.clone(),
            };
            output.line(format!("  for {} only: {name}", seen.audience.join(", ")));
        }
        for fallback in self.fallbacks {
            output.line(format!(
                "  fallback: {}.{} in {}: {} from {}",
                fallback.table, fallback.field, fallback.language, fallback.count, fallback.from
            ));
        }
    }
}

impl Render for TableShape<'_> {
    fn text(&self, output: &Output) {
        output.line(format!("{}: {} rows", output.bold(self.table), self.rows));
        if let Some(audience) = self.audience {
            output.line(format!("  for: {}", audience.join(", ")));
        }
        let columns: Vec<String> = self
            .columns
            .iter()
            .map(|c| with_audience(c, &self.column_audiences))
            .collect();
        output.line(format!("  columns: {}", columns.join(", ")));
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

impl Render for MatrixCell<'_> {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} ({}, {}) = {}",
            self.name,
            self.row,
            self.column,
            shown(&self.value, &zone(self.timezone))
        ));
    }
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

impl Render for RowShown<'_> {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} {}",
            output.bold(self.table),
            self.key.join(" ")
        ));
        let zone = zone(self.timezone);
        let table = self.row.table();
        // A map's values are shown with its keys (`1:0|2:100`), a record's fields in
        // its text, not apart.
        for (i, name) in table.field_columns() {
            let value = match table.column(&format!("{name}{MAP_VALUES}")) {
                Some(values) => map_shown(&self.row.value(i), &self.row.value(values), &zone),
                None => shown(&self.row.value(i), &zone),
            };
            let name = with_audience(name, &self.audiences);
            output.line(format!("  {name:<20} {value}"));
        }
        for text in &self.texts {
            let field = with_audience(text.field, &self.audiences);
            let label = if text.language == self.language {
                format!("{field} ({})", self.language)
            } else {
                format!("{field} ({}, from {})", self.language, text.language)
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

/// A field's name, with who sees it when not all who see its table do (`hp [server]`).
fn with_audience(name: &str, audiences: &BTreeMap<&str, &[String]>) -> String {
    match audiences.get(name) {
        Some(audience) => format!("{name} [{}]", audience.join(", ")),
        None => name.to_string(),
    }
}

/// The zone people read a build's datetimes in: the project's (UTC when none is set, or
/// when the build names one this masterctl does not know).
fn zone(name: Option<&str>) -> Zone {
    name.and_then(|name| Zone::named(name).ok())
        .unwrap_or_default()
}

/// A map cell as people read it: `key:value` entries joined by `|`.
fn map_shown(keys: &ValueRef<'_>, values: &ValueRef<'_>, zone: &Zone) -> String {
    match (keys, values) {
        (ValueRef::List(keys), ValueRef::List(values)) => keys
            .iter()
            .zip(values.iter())
            .map(|(k, v)| format!("{}:{}", shown(&k, zone), shown(&v, zone)))
            .collect::<Vec<_>>()
            .join("|"),
        _ => String::new(),
    }
}

/// A value as people read it: a datetime in `zone`, with its offset; the rest as built.
fn shown(value: &ValueRef<'_>, zone: &Zone) -> String {
    match value {
        ValueRef::DateTime(ms) => zone.show(DateTime(*ms)),
        other => other.to_string(),
    }
}

/// A row as one line of JSON, as the text view shows generated masters' rows.
fn one_json_line(row: &impl Serialize) -> String {
    serde_json::to_string(row).unwrap_or_default()
}
