//! `masterctl migrate luban`: a Luban project (`luban.conf`, the definitions it lists,
//! the data workbooks) converted into a masterctl project — `masterctl.toml` and
//! `schemas/*.toml` that read the studio's workbooks where they are, unedited.
//!
//! What masterctl has no form for (polymorphic beans, maps, structured values, several
//! inputs per table, singleton tables, non-spreadsheet data) is listed with its reason,
//! table by table and field by field: nothing is dropped without a word. The converted
//! schemas are loaded by masterctl's own loader before they are handed back.

use masterctl_schemas::audience::Audiences;

mod defs;
mod groups;
mod unread;
pub(crate) use masterctl_schemas::type_expr as types;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;
use toml_writer::{ToTomlKey, ToTomlValue, TomlWrite, WriteTomlValue};

use crate::infer::{comment_text, free_name, identifier_from};
use defs::{Defs, SheetHeader, TableDef, VarDef, field_name_of, short_name};
use masterctl_schemas::load::is_identifier;
use masterctl_schemas::schema::TableKind;
use types::{Kind, primitive};

/// Choices the Luban project does not make: the region imported into, its languages.
#[derive(Debug, Clone)]
pub struct Options {
    /// The region to import into (`masters/<region>`).
    pub region: String,
    /// The source language first.
    pub languages: Vec<String>,
    /// Luban's l10n table (a workbook or CSV file: a `key` column and one per
    /// language): `text` fields are then checked against its keys.
    pub l10n: Option<PathBuf>,
    /// The header of the l10n table's key column (`key`, `ID`, `TID`…).
    pub l10n_key: String,
    /// How a Luban table's name becomes a masterctl table's.
    pub table_names: TableNames,
    /// What a datetime written without an offset means (`timezone` in masterctl.toml):
    /// the zone of the machines Luban exported on.
    pub timezone: Option<String>,
}

/// How a Luban table's name becomes a masterctl table's (each schema's first comment
/// records the Luban name either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TableNames {
    /// `demo.TbItem` → `item` (another module's `TbItem`: `demo_item`).
    #[default]
    Short,
    /// `demo.TbItem` → `demo_tb_item`: the studio's whole name.
    Full,
}

/// Luban's l10n table, as a masterctl table of keys.
#[derive(Debug, Clone)]
struct L10nTable {
    source: String,
    /// The key column's header, and each language column's.
    key: String,
    languages: Vec<String>,
}

/// Read the l10n table's header: the first row (of ten) with a cell naming its key
/// column (`key`, or `--l10n-key`'s). The file lies in the data folder: imports read it
/// there, by its path from it.
fn l10n_table(path: &Path, data_dir: &Path, key_column: &str) -> Result<L10nTable, MigrateError> {
    let other =
        |e: String| MigrateError::Conf(format!("the localization file {}: {e}", path.display()));
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let within =
        |p: &Path| std::fs::canonicalize(p).map_err(|e| other(format!("{}: {e}", p.display())));
    let (file, data) = (within(path)?, within(data_dir)?);
    let file_name = match file.strip_prefix(&data) {
        Ok(relative) => relative_path(Path::new(""), relative),
        Err(_) => {
            return Err(other(format!(
                "it is outside the data folder {}, where imports read it: put it there",
                data_dir.display()
            )));
        }
    };
    let mut found: Option<(String, Vec<String>)> = None;
    let mut first_row: Option<Vec<String>> = None;
    let mut look = |sheet: &str, grid: &dyn masterctl_schemas::grid::Grid| {
        if found.is_some() {
            return;
        }
        for row in 0..grid.height().min(10) {
            let cells: Vec<String> = (0..grid.width(row))
                .map(|c| grid.cell(row, c).display().trim().to_string())
                .collect();
            if first_row.is_none() && cells.iter().any(|c| !c.is_empty()) {
                first_row = Some(cells.clone());
            }
            if cells.iter().any(|c| c.eq_ignore_ascii_case(key_column)) {
                found = Some((sheet.to_string(), cells));
                return;
            }
        }
    };
    if is_csv {
        let bytes = read_bytes(path, 256 << 20).map_err(other)?;
        let grid = masterctl_schemas::read::csv::CsvGrid::parse_decoding(&bytes, path)
            .map(|(grid, _)| grid)
            .map_err(|d| other(d.first().map(|d| d.message.clone()).unwrap_or_default()))?;
        look("", &grid);
    } else {
        masterctl_schemas::read::workbook::for_each_sheet(path, |sheet, grid| {
            if let Ok(grid) = grid {
                look(sheet, grid);
            }
        })
        .map_err(|d| other(d.message))?;
    }
    let Some((sheet, cells)) = found else {
        let headers: Vec<String> = first_row
            .unwrap_or_default()
            .into_iter()
            .filter(|c| !c.is_empty())
            .collect();
        return Err(match headers.as_slice() {
            [] => other(format!(
                "it has no row naming a `{key_column}` column: it holds no header"
            )),
            headers => MigrateError::L10nKey(format!(
                "the localization file {}: no row of its first ten has a `{key_column}` column; its first row holds: {}",
                path.display(),
                headers.join(", ")
            )),
        });
    };
    let key = cells
        .iter()
        .find(|c| c.eq_ignore_ascii_case(key_column))
        .cloned()
        .unwrap_or_default();
    let languages: Vec<String> = cells
        .into_iter()
        .filter(|c| !c.is_empty() && !c.starts_with('#') && *c != key)
        .collect();
    if languages.is_empty() {
        return Err(other(format!(
            "it has a `{key}` column and no language column"
        )));
    }
    Ok(L10nTable {
        source: match sheet.as_str() {
            "" => file_name,
            sheet => format!("{file_name}#{sheet}"),
        },
        key,
        languages,
    })
}

/// A converted project, and what was not converted.
#[derive(Debug, Serialize)]
pub struct Migration {
    /// The Luban data folder the schemas' `source`s are relative to.
    pub data_dir: PathBuf,
    /// Files of the masterctl project: `masterctl.toml`, `schemas/<table>.toml`.
    #[serde(skip)]
    pub files: Vec<(String, String)>,
    pub tables: Vec<ConvertedTable>,
    /// Luban's l10n table, when `--l10n` gave it: the keys `text` fields are checked
    /// against.
    pub l10n_table: Option<ConvertedTable>,
    /// Luban enums used by converted fields.
    pub enums: usize,
    /// Luban beans written in one cell, converted into record types
    /// (`schemas/<record>.toml`, `kind = "record"`).
    pub records: Vec<ConvertedRecord>,
    /// Luban's polymorphic beans written in one cell, converted into union types
    /// (`kind = "union"`; each case a record of `records`).
    pub unions: Vec<ConvertedUnion>,
    pub not_converted: Vec<NotConverted>,
    /// Converted, with a change a person should know of (`text` read as `string`).
    pub notes: Vec<NotConverted>,
    /// Paths not read: links to folders (never followed: a link to `.` would be a
    /// loop), and files or links leading outside the Luban project's folder.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Refused>,
}

/// A path `migrate luban` did not read, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Refused {
    /// Relative to the Luban project's folder where it is inside it.
    pub path: String,
    pub reason: String,
}

/// The Luban project's folder, as the file system resolves it: nothing outside it is
/// read, and no link to a folder is followed.
struct Bounds {
    root: PathBuf,
    refused: Vec<Refused>,
}

impl Bounds {
    /// Whether `path` (resolved, links followed) is inside the project's folder.
    fn inside(&self, path: &Path) -> bool {
        std::fs::canonicalize(path).is_ok_and(|p| p.starts_with(&self.root))
    }

    fn refuse(&mut self, path: &Path, reason: &str) {
        self.refused.push(Refused {
            path: relative_path(&self.root, path),
            reason: reason.to_string(),
        });
    }

    /// The entries of `dir` to visit, sorted: a link to a folder, or to anything outside
    /// the project, is refused (listed) instead.
    fn entries(&mut self, dir: &Path) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut paths: Vec<(PathBuf, bool)> = entries
            .flatten()
            .map(|e| (e.path(), e.file_type().is_ok_and(|t| t.is_symlink())))
            .collect();
        paths.sort();
        let mut visit = Vec::new();
        for (path, link) in paths {
            if link && path.is_dir() {
                self.refuse(&path, "a link to a folder, not followed");
            } else if link && !self.inside(&path) {
                self.refuse(&path, "a link leading outside the Luban project's folder");
            } else {
                visit.push(path);
            }
        }
        visit
    }
}

/// A bean converted into a record type.
#[derive(Debug, Serialize)]
pub struct ConvertedRecord {
    /// `module.Bean`.
    pub luban: String,
    pub record: String,
    pub separator: String,
    pub fields: usize,
}

/// A polymorphic bean converted into a union type.
#[derive(Debug, Serialize)]
pub struct ConvertedUnion {
    /// `module.Bean`.
    pub luban: String,
    pub union: String,
    pub separator: String,
    pub cases: usize,
}

#[derive(Debug, Serialize)]
pub struct ConvertedTable {
    /// `module.TbName`.
    pub luban: String,
    pub table: String,
    pub source: String,
    pub fields: usize,
    /// `table` (keyed), `singleton` or `list`.
    pub kind: &'static str,
    pub primary_key: Vec<String>,
}

/// An input path as found in the data folder.
enum Resolved {
    /// As written.
    Exact,
    /// One file or folder differs from it only in letter case: its path.
    Cased(String),
    /// Several do: their paths.
    Ambiguous(Vec<String>),
    /// None does; the closest name in its folder, if any is close.
    Missing(Option<String>),
}

/// Find `file` (`/`-separated, inside `dir`), each part as written or, when the folder
/// has no such name, the one name that differs from it only in letter case.
fn resolve_case(dir: &Path, file: &str) -> Resolved {
    if dir.join(file).exists() {
        return Resolved::Exact;
    }
    let (mut at, mut real) = (dir.to_path_buf(), Vec::new());
    for part in file.split('/') {
        if at.join(part).exists() {
            at.push(part);
            real.push(part.to_string());
            continue;
        }
        let names: Vec<String> = std::fs::read_dir(&at)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        let same: Vec<&String> = names
            .iter()
            .filter(|n| n.to_lowercase() == part.to_lowercase())
            .collect();
        match same.as_slice() {
            [one] => {
                at.push(one.as_str());
                real.push(one.to_string());
            }
            [] => {
                let close = masterctl_schemas::suggest::did_you_mean(
                    part,
                    names.iter().map(String::as_str),
                );
                return Resolved::Missing(close.map(|c| {
                    let mut path = real.clone();
                    path.push(c.to_string());
                    path.join("/")
                }));
            }
            many => {
                let prefix = real.join("/");
                return Resolved::Ambiguous(
                    many.iter()
                        .map(|n| match prefix.is_empty() {
                            true => n.to_string(),
                            false => format!("{prefix}/{n}"),
                        })
                        .collect(),
                );
            }
        }
    }
    Resolved::Cased(real.join("/"))
}

/// What a Luban table becomes: `mode="one"` a singleton, `mode="list"` without an
/// `index` a list; any other a keyed table.
fn kind_of(table: &TableDef) -> TableKind {
    match table.mode.as_str() {
        "one" | "singleton" => TableKind::Singleton,
        "list" if table.index.trim().is_empty() => TableKind::List,
        _ => TableKind::Keyed,
    }
}

/// A table, a field or a check masterctl did not take, and why.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct NotConverted {
    /// `module.TbName`, the table it concerns.
    pub luban_table: String,
    /// The field, when only a field (or its check) was left out.
    pub field: Option<String>,
    pub reason: String,
}

#[derive(Debug)]
pub enum MigrateError {
    /// The folder holds no `luban.conf`, or it cannot be read.
    Conf(String),
    /// The l10n table has no column of the key's header (its first row is said).
    L10nKey(String),
    /// A definitions file cannot be read.
    Definitions { file: PathBuf, message: String },
    /// No table could be converted: nothing to write.
    Nothing(Vec<NotConverted>),
    /// The converted schemas do not load (a defect of the conversion, reported whole).
    Converted(masterctl_schemas::Report),
}

impl std::error::Error for MigrateError {}

/// A file's bytes, at most `limit` of them.
fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    masterctl_runtime::files::read_regular(path, limit)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "no such file".to_string())
}

/// A definitions or configuration file's text (at most 64 MiB; UTF-8, a BOM dropped).
fn read_text(path: &Path) -> Result<String, String> {
    String::from_utf8(read_bytes(path, 64 << 20)?)
        .map(|t| t.trim_start_matches('\u{feff}').to_string())
        .map_err(|_| "not UTF-8 text".to_string())
}

impl std::fmt::Display for MigrateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MigrateError::Conf(message) | MigrateError::L10nKey(message) => f.write_str(message),
            MigrateError::Definitions { file, message } => {
                write!(f, "{}: {message}", file.display())
            }
            MigrateError::Nothing(skipped) => write!(
                f,
                "no table could be converted ({} declared, none in a form masterctl reads)",
                skipped.iter().filter(|n| n.field.is_none()).count()
            ),
            MigrateError::Converted(report) => write!(
                f,
                "the converted schemas do not load ({} errors)",
                report.error_count()
            ),
        }
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Conf {
    #[serde(default)]
    schema_files: Vec<SchemaFile>,
    data_dir: Option<String>,
    #[serde(default)]
    groups: Vec<groups::ConfGroup>,
    #[serde(default)]
    targets: Vec<groups::ConfTarget>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct SchemaFile {
    file_name: String,
    #[serde(rename = "type", default)]
    kind: String,
}

/// `luban.conf` as Luban reads it: JSON with comments and trailing commas.
fn read_conf(text: &str) -> Result<Conf, String> {
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
    };
    let value = jsonc_parser::parse_to_serde_value(text, &options)
        .map_err(|e| e.to_string())?
        .ok_or("it is empty")?;
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// Convert the Luban project in `dir` (the folder of `luban.conf`).
pub fn migrate(dir: &Path, options: &Options) -> Result<Migration, MigrateError> {
    let conf_path = dir.join("luban.conf");
    let text = read_text(&conf_path).map_err(|e| {
        MigrateError::Conf(format!(
            "{}: {e} (migrate luban takes the folder holding luban.conf)",
            conf_path.display()
        ))
    })?;
    let conf = read_conf(&text)
        .map_err(|e| MigrateError::Conf(format!("{}: {e}", conf_path.display())))?;
    let root = std::fs::canonicalize(dir)
        .map_err(|e| MigrateError::Conf(format!("{}: {e}", dir.display())))?;
    let mut bounds = Bounds {
        root,
        refused: Vec::new(),
    };
    let data_dir = dir.join(conf.data_dir.as_deref().unwrap_or("Datas"));
    if data_dir.exists() && !bounds.inside(&data_dir) {
        return Err(MigrateError::Conf(format!(
            "{}: its dataDir `{}` leads outside the project's folder; migrate reads only inside it",
            conf_path.display(),
            conf.data_dir.as_deref().unwrap_or("Datas").escape_debug()
        )));
    }
    let mut defs = Defs::default();
    for file in &conf.schema_files {
        let path = dir.join(&file.file_name);
        if path.exists() && !bounds.inside(&path) {
            bounds.refuse(
                &path,
                "a schema file of luban.conf outside the project's folder, not read",
            );
            continue;
        }
        read_definitions(&mut defs, &mut bounds, &path, &file.kind)?;
    }
    auto_import(&mut defs, &mut bounds, &data_dir, &data_dir);
    // Where each table was declared, as the project's own paths.
    for table in &mut defs.tables {
        table.declared_in = relative_path(dir, Path::new(&table.declared_in));
    }
    let l10n = match &options.l10n {
        Some(path) => Some(l10n_table(path, &data_dir, &options.l10n_key)?),
        None => None,
    };
    let mut converter = Converter::new(&defs, &data_dir, options);
    converter.l10n = l10n;
    // The definition workbooks validate will meet in the data folder.
    converter.definitions = conf
        .schema_files
        .iter()
        .filter(|f| matches!(f.kind.as_str(), "table" | "bean" | "enum"))
        .filter_map(|f| {
            dir.join(&f.file_name)
                .strip_prefix(&data_dir)
                .ok()
                .map(|p| relative_path(Path::new(""), p))
        })
        .collect();
    converter.groups = groups::Groups::of(&conf.groups, &conf.targets);
    converter.bounds = Some(bounds);
    converter.run()
}

fn definitions_error(file: &Path, message: impl Into<String>) -> MigrateError {
    MigrateError::Definitions {
        file: file.to_path_buf(),
        message: message.into(),
    }
}

fn read_definitions(
    defs: &mut Defs,
    bounds: &mut Bounds,
    path: &Path,
    kind: &str,
) -> Result<(), MigrateError> {
    if path.is_dir() {
        std::fs::read_dir(path).map_err(|e| definitions_error(path, e.to_string()))?;
        for entry in bounds.entries(path) {
            if entry.is_dir() || entry.extension().is_some_and(|e| e == "xml") {
                read_definitions(defs, bounds, &entry, kind)?;
            }
        }
        return Ok(());
    }
    match kind {
        "table" | "bean" | "enum" => {
            defs::read_workbook(defs, path, kind).map_err(|m| definitions_error(path, m))
        }
        _ => {
            let text = read_text(path).map_err(|e| definitions_error(path, e))?;
            defs::read_xml(defs, path, &text).map_err(|m| definitions_error(path, m))
        }
    }
}

/// `#Name.xlsx` workbooks anywhere under the data folder are tables whose `##var` and
/// `##type` rows define them (Luban's auto-import).
fn auto_import(defs: &mut Defs, bounds: &mut Bounds, data_dir: &Path, dir: &Path) {
    for path in bounds.entries(dir) {
        let Some(file_name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        // Luban passes over every file or folder whose name starts with `.`, `_` or `~`
        // (a spreadsheet's lock file `~$#Item.xlsx` among them).
        if file_name.starts_with(['.', '_', '~']) {
            continue;
        }
        if path.is_dir() {
            auto_import(defs, bounds, data_dir, &path);
            continue;
        }
        if !masterctl_schemas::read::SUPPORTED_EXTENSIONS
            .iter()
            .any(|e| path.extension().is_some_and(|x| x.eq_ignore_ascii_case(e)))
        {
            continue;
        }
        let stem = file_name
            .rsplit_once('.')
            .map_or(file_name, |(stem, _)| stem);
        let Some((raw_name, comment)) = auto_import_name(stem) else {
            continue;
        };
        // `#demo.item.xlsx`: the table `item` of the module `demo` (`demo.Tbitem`),
        // inside the module of its folder.
        let (raw_module, name) = raw_name.rsplit_once('.').unwrap_or(("", raw_name));
        let relative = relative_path(data_dir, &path);
        let folder_module = relative
            .rsplit_once('/')
            .map(|(d, _)| d.replace('/', "."))
            .unwrap_or_default();
        let module = [folder_module.as_str(), raw_module]
            .into_iter()
            .filter(|m| !m.is_empty())
            .collect::<Vec<_>>()
            .join(".");
        let full_name = match module.as_str() {
            "" => format!("Tb{name}"),
            m => format!("{m}.Tb{name}"),
        };
        defs.tables.push(TableDef {
            full_name,
            value: name.to_string(),
            index: String::new(),
            mode: String::new(),
            input: relative.clone(),
            comment,
            from_file: true,
            declared_in: path.display().to_string(),
            module,
            group: None,
        });
    }
}

/// A data file's name (without its extension) as Luban's default auto-import pattern,
/// `#([a-zA-Z0-9-._]+)(-.*)?$`, reads it: the table's name (`demo.item`), and the
/// comment after a `-` that is not part of the name (`#Item-道具` → `Item`, `道具`);
/// `None` when the pattern finds no name (`#道具`: Luban passes the file over).
fn auto_import_name(stem: &str) -> Option<(&str, Option<String>)> {
    let in_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
    // As a regular expression searches: from each `#` in turn, the longest name first.
    for (at, _) in stem.match_indices('#') {
        let rest = &stem[at + 1..];
        let run = rest.find(|c: char| !in_name(c)).unwrap_or(rest.len());
        if run == 0 {
            continue;
        }
        if run == rest.len() {
            return Some((rest, None));
        }
        // The name is shorter: it ends where a `-` starts the comment.
        if let Some(dash) = rest[..run].rfind('-').filter(|&d| d > 0) {
            let comment = rest[dash..].trim_start_matches('-').trim();
            let comment = Some(comment.to_string()).filter(|c| !c.is_empty());
            return Some((&rest[..dash], comment));
        }
    }
    None
}

fn relative_path(base: &Path, path: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// A number as TOML writes a float (`.01` → `0.01`, `1` → `1.0`), or `None` when it
/// is no finite number.
fn toml_float(text: &str) -> Option<f64> {
    let value: f64 = text.trim().parse().ok()?;
    value.is_finite().then_some(value)
}

/// A value a schema file gives a field (`min`, `max`, `default`), typed: written by
/// toml_writer as TOML writes it (`.01` becomes `0.01`, a text is quoted).
#[derive(Debug, Clone, PartialEq)]
enum Scalar {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
}

impl Scalar {
    fn as_f64(&self) -> Option<f64> {
        match self {
            Scalar::Int(n) => Some(*n as f64),
            Scalar::Float(x) => Some(*x),
            Scalar::Bool(_) | Scalar::Text(_) => None,
        }
    }
}

impl WriteTomlValue for Scalar {
    fn write_toml_value<W: TomlWrite + ?Sized>(&self, writer: &mut W) -> std::fmt::Result {
        match self {
            Scalar::Int(n) => n.write_toml_value(writer),
            Scalar::Float(x) => x.write_toml_value(writer),
            Scalar::Bool(b) => b.write_toml_value(writer),
            Scalar::Text(text) => text.write_toml_value(writer),
        }
    }
}

/// A field as masterctl will read it.
#[derive(Debug, Clone, Default)]
struct FieldOut {
    luban: String,
    name: String,
    /// The sheet's header, when it is not the field's name.
    column: Option<String>,
    /// Places right of that header (a bean's field spread over columns).
    column_offset: usize,
    ty: String,
    optional: bool,
    nulls: Vec<String>,
    separator: Option<String>,
    /// A map's, between a key and its value (the same as `separator`: they alternate).
    key_separator: Option<String>,
    /// A list going on in the rows below its record (`*name`).
    multi_row: bool,
    /// A list over its header's column and those right of it, this many (1: its own).
    column_span: usize,
    /// A multi-row list of beans over those columns: one bean a row, its parts there.
    parts_over_columns: bool,
    /// The enum's full name, for `values`.
    enum_name: Option<String>,
    min: Option<Scalar>,
    max: Option<Scalar>,
    default: Option<Scalar>,
    /// `#ref=module.TbName`, resolved once every table is planned.
    reference: Option<String>,
    unique: bool,
    description: Option<String>,
    /// Luban's `text`: a localization key, read as a string.
    text_key: bool,
    /// `#escape=1`: Luban turns the cells' `\n`, `\t` into line breaks and tabs.
    escaped: bool,
    /// Luban's export groups (`c,s`), as written.
    group: Option<String>,
    /// Holds each row's sheet (a table over every sheet of its workbook).
    source_sheet: bool,
    /// The cases whose rows alone fill it (a field of some cases of a polymorphic bean).
    cases: Vec<String>,
    /// The values of a table's case field (its polymorphic bean's cases), with the
    /// other names cells give each.
    case_values: Vec<(String, Vec<String>)>,
}

/// A bean written whole in one cell, as a record type (`kind = "record"`): its fields
/// one value each, separated by `separator`. Fields name it by [`record_token`] until
/// every table has its name; then it takes one no table has.
struct RecordOut {
    luban: String,
    separator: String,
    comment: Option<String>,
    fields: Vec<FieldOut>,
    name: String,
    /// What a cell may write before its parts, naming its type (an optional bean's
    /// `{}` and its names).
    names: Vec<String>,
}

/// A polymorphic bean written whole in one cell, as a union type (`kind = "union"`):
/// its cases, records by their index in the converter's records, with the names cells
/// give them. Named as records are.
struct UnionOut {
    luban: String,
    separator: String,
    comment: Option<String>,
    cases: Vec<(usize, Vec<String>)>,
    name: String,
}

/// The head of a record's or a union's schema file (`kind`): what it was converted from
/// (`from`), its name, description and separator.
fn type_schema_head(
    from: &str,
    kind: &str,
    name: &str,
    comment: Option<&str>,
    separator: &str,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Converted from {}, written whole in one cell.",
        comment_text(from)
    );
    let _ = writeln!(out, "kind = {}", kind.to_toml_value());
    let _ = writeln!(out, "name = {}", name.to_toml_value());
    if let Some(comment) = comment {
        let _ = writeln!(out, "description = {}", comment.to_toml_value());
    }
    let _ = writeln!(out, "separator = {}", separator.to_toml_value());
    out
}

/// A union's schema file: its cases, each a record with the names cells give it.
fn union_text(union: &UnionOut) -> String {
    let mut out = type_schema_head(
        &format!("Luban's polymorphic bean {}", union.luban),
        "union",
        &union.name,
        union.comment.as_deref(),
        &union.separator,
    );
    let _ = writeln!(out, "cases = [");
    for (_, names) in &union.cases {
        // The record's name first, then the other names cells give the case.
        let (record, others) = names.split_first().map_or(("", &[][..]), |(r, o)| (r, o));
        let _ = writeln!(
            out,
            "    {{ record = {}, names = {} }},",
            record.to_toml_value(),
            others.to_vec().to_toml_value()
        );
    }
    let _ = writeln!(out, "]");
    out
}

/// What a field's type says of the `index`th union until unions have their names.
fn union_token(index: usize) -> String {
    format!("\u{3}{index}\u{4}")
}

/// What a field's type says of the `index`th record until records have their names.
fn record_token(index: usize) -> String {
    format!("\u{1}{index}\u{2}")
}

/// A table ready to be written, before references are resolved.
struct Plan {
    /// Luban's `mode="one"`: a singleton; `mode="list"` without an index: a list.
    kind: TableKind,
    luban: String,
    name: String,
    source: String,
    comment: Option<String>,
    fields: Vec<FieldOut>,
    primary_key: Vec<String>,
    declared_in: String,
    /// Luban's export groups of the table, as written.
    group: Option<String>,
    /// Each `file#sheet` it is read from, when Luban's input names several sheets of
    /// one workbook (then `source` says them together).
    sources: Vec<String>,
    /// The field saying each row's case, when its record type is polymorphic.
    case_field: Option<String>,
    /// Its sheet is written down a column (`##column`): exported so too.
    vertical: bool,
}

/// A table of a polymorphic bean: each row is one of its cases (the bean's every bean
/// below it), chosen by the `__type__` column.
struct TableCases {
    /// The header of the column naming each row's case (`__type__` or `$type`).
    column: String,
    /// Each case's name (Luban's short name) and the other names a cell gives it (its
    /// full name, its aliases).
    cases: Vec<(String, Vec<String>)>,
    /// The cases whose rows fill each field not every case has, by Luban's field name.
    of_var: HashMap<String, Vec<String>>,
}

impl Plan {
    /// What it reads, as `[unread]` names files and sheets: its source, or each sheet.
    fn claims(&self) -> Vec<String> {
        match self.sources.is_empty() {
            true => vec![self.source.clone()],
            false => self.sources.clone(),
        }
    }
}

/// The workbook and its sheets when every input names a sheet of one workbook
/// (`a@x.xlsx,b@x.xlsx`; two at least).
fn sheets_of_one_workbook<'i>(inputs: &[&'i str]) -> Option<(&'i str, Vec<String>)> {
    let mut file = None;
    let mut sheets = Vec::new();
    for input in inputs {
        let (sheet, this) = input.split_once('@')?;
        let (sheet, this) = (sheet.trim(), this.trim());
        if sheet.is_empty() || sheet.starts_with('*') || file.is_some_and(|f| f != this) {
            return None;
        }
        file = Some(this);
        sheets.push(sheet.to_string());
    }
    (sheets.len() >= 2).then_some((file?, sheets))
}

struct Converter<'a> {
    defs: &'a Defs,
    data_dir: &'a Path,
    options: &'a Options,
    not_converted: Vec<NotConverted>,
    notes: Vec<NotConverted>,
    /// Data sheets of each workbook read, by path relative to the data folder.
    sheets: HashMap<String, Result<Vec<(String, SheetHeader)>, String>>,
    enums_used: HashSet<String>,
    l10n: Option<L10nTable>,
    /// The project's folder (`None` in tests of the conversion alone).
    bounds: Option<Bounds>,
    /// Luban's export groups, as audiences.
    groups: groups::Groups,
    /// Luban's definition workbooks (`__tables__.xlsx`…) in the data folder, by path
    /// from it.
    definitions: Vec<String>,
    /// Beans written whole in one cell, as records ([`Converter::record_of`]).
    records: Vec<RecordOut>,
    /// Polymorphic beans written whole in one cell, as unions ([`Converter::union_of`]).
    unions: Vec<UnionOut>,
    /// The beans being converted into records, innermost last, each with its
    /// separator: a bean field of no separator of its own shares its holder's parts.
    converting: Vec<(String, String)>,
}

impl<'a> Converter<'a> {
    fn new(defs: &'a Defs, data_dir: &'a Path, options: &'a Options) -> Converter<'a> {
        Converter {
            defs,
            data_dir,
            options,
            not_converted: Vec::new(),
            notes: Vec::new(),
            sheets: HashMap::new(),
            enums_used: HashSet::new(),
            l10n: None,
            bounds: None,
            groups: groups::Groups::default(),
            definitions: Vec::new(),
            records: Vec::new(),
            unions: Vec::new(),
            converting: Vec::new(),
        }
    }

    fn skip(&mut self, table: &str, field: Option<&str>, reason: impl Into<String>) {
        self.not_converted.push(NotConverted {
            luban_table: table.to_string(),
            field: field.map(str::to_string),
            reason: reason.into(),
        });
    }

    fn run(mut self) -> Result<Migration, MigrateError> {
        let mut plans: Vec<Plan> = Vec::new();
        let mut claimed: HashMap<String, String> = HashMap::new();
        let mut names: HashSet<String> = HashSet::new();
        let mut same_rows: HashMap<String, String> = HashMap::new();
        for table in &self.defs.tables {
            let Some(mut plan) = self.plan(table) else {
                continue;
            };
            if let Some(first) = claimed.get(&plan.source) {
                // Its records are the first's (Luban's export groups filter them): a
                // reference to it is a reference to the first.
                same_rows.insert(table.full_name.clone(), first.clone());
                let reason = format!(
                    "reads the same sheet as `{first}` ({}); masterctl reads a sheet into one table",
                    plan.source
                );
                self.skip(&table.full_name, None, reason);
                continue;
            }
            claimed.insert(plan.source.clone(), table.full_name.clone());
            plan.name = unique_name(&mut names, table, self.options.table_names);
            plans.push(plan);
        }
        // References, now that every table's name and key are known.
        let mut targets: HashMap<String, (String, Option<String>)> = plans
            .iter()
            .map(|p| {
                let key = match p.primary_key.as_slice() {
                    [one] => Some(one.clone()),
                    _ => None,
                };
                (p.luban.clone(), (p.name.clone(), key))
            })
            .collect();
        let l10n_name = self.l10n.as_ref().map(|_| {
            let name = free_name(&mut names, "l10n_text");
            targets.insert(L10N.to_string(), (name.clone(), Some("key".to_string())));
            name
        });
        let l10n_source = self.l10n.as_ref().map(|l| l.source.clone());
        let config = self.config() + &self.unread_section(&plans, l10n_source.as_deref());
        let mut files = vec![("masterctl.toml".to_string(), config)];
        let mut tables = Vec::new();
        for plan in &mut plans {
            for field in &mut plan.fields {
                self.resolve_reference(&plan.luban, field, &targets, &same_rows);
            }
        }
        let (records, unions) = self.settle_records(&mut plans, &mut names, &targets, &same_rows);
        for plan in &plans {
            let notes: Vec<&NotConverted> = self
                .not_converted
                .iter()
                .filter(|n| n.luban_table == plan.luban)
                .collect();
            let changes: Vec<&NotConverted> = self
                .notes
                .iter()
                .filter(|n| n.luban_table == plan.luban)
                .collect();
            files.push((
                format!("schemas/{}.toml", plan.name),
                self.schema_text(plan, &notes, &changes),
            ));
            tables.push(ConvertedTable {
                luban: plan.luban.clone(),
                table: plan.name.clone(),
                source: plan.source.clone(),
                fields: plan.fields.len(),
                kind: plan.kind.as_str(),
                primary_key: plan.primary_key.clone(),
            });
        }
        for record in &records {
            files.push((
                format!("schemas/{}.toml", record.name),
                self.record_text(record),
            ));
        }
        for union in &unions {
            files.push((format!("schemas/{}.toml", union.name), union_text(union)));
        }
        let mut l10n_table = None;
        if let (Some(l10n), Some(name)) = (&self.l10n, &l10n_name) {
            files.push((format!("schemas/{name}.toml"), l10n_schema(name, l10n)));
            l10n_table = Some(ConvertedTable {
                luban: "l10n".into(),
                table: name.clone(),
                source: l10n.source.clone(),
                fields: l10n.languages.len() + 1,
                kind: TableKind::Keyed.as_str(),
                primary_key: vec!["key".into()],
            });
        }
        if tables.is_empty() {
            return Err(MigrateError::Nothing(self.not_converted));
        }
        // The conversion is checked by the loader every command uses; a table whose
        // schema it refuses is listed with the loader's words, never the end of the
        // migration.
        self.drop_unloadable(&mut files, &mut tables)?;
        let in_files =
            |name: &str| (files.iter()).any(|(p, _)| *p == format!("schemas/{name}.toml"));
        let unions: Vec<ConvertedUnion> = (unions.iter())
            .filter(|u| in_files(&u.name))
            .map(|u| ConvertedUnion {
                luban: u.luban.clone(),
                union: u.name.clone(),
                separator: u.separator.clone(),
                cases: u.cases.len(),
            })
            .collect();
        let mut records = records;
        records.retain(|r| {
            files
                .iter()
                .any(|(p, _)| *p == format!("schemas/{}.toml", r.name))
        });
        if tables.is_empty() {
            return Err(MigrateError::Nothing(self.not_converted));
        }
        let mut not_converted = self.not_converted;
        not_converted.sort();
        not_converted.dedup();
        let mut notes = self.notes;
        notes.sort();
        notes.dedup();
        Ok(Migration {
            data_dir: self.data_dir.to_path_buf(),
            files,
            tables,
            l10n_table,
            enums: self.enums_used.len(),
            records: records
                .iter()
                .map(|r| ConvertedRecord {
                    luban: r.luban.clone(),
                    record: r.name.clone(),
                    separator: r.separator.clone(),
                    fields: r.fields.len(),
                })
                .collect(),
            unions,
            not_converted,
            notes,
            refused: self.bounds.take().map(|b| b.refused).unwrap_or_default(),
        })
    }

    /// `field`'s Luban reference (`#ref=item.TbItem`) as the converted table's key
    /// (`item.id`), or, when it names no converted table of one key, listed as not
    /// checked (under `owner`, the table or bean the field is of).
    fn resolve_reference(
        &mut self,
        owner: &str,
        field: &mut FieldOut,
        targets: &HashMap<String, (String, Option<String>)>,
        same_rows: &HashMap<String, String>,
    ) {
        let Some(target) = field.reference.take() else {
            return;
        };
        let target = target.trim_end_matches('?');
        let module = defs::module_of(owner);
        let resolved = [format!("{module}.{target}"), target.to_string()]
            .into_iter()
            .map(|t| same_rows.get(&t).cloned().unwrap_or(t))
            .find_map(|t| targets.get(&t));
        let reason = match resolved {
            Some((table, Some(key))) => {
                field.reference = Some(format!("{table}.{key}"));
                return;
            }
            Some((table, None)) => format!(
                "its reference to `{target}` is not checked: table `{table}` has a composite key"
            ),
            None => {
                let group = (self.defs.refgroups.iter())
                    .any(|g| g == target || g == &format!("{module}.{target}"));
                let why = match group {
                    true => "a reference group",
                    false => "a table that was not converted",
                };
                format!("its reference to `{target}` is not checked: {why}")
            }
        };
        self.not_converted.push(NotConverted {
            luban_table: owner.to_string(),
            field: Some(field.luban.clone()),
            reason,
        });
    }

    /// The records the planned tables' fields hold (and theirs), each given a name no
    /// table or built-in type has, named so in every field's type, their references
    /// resolved; in the order they were met.
    fn settle_records(
        &mut self,
        plans: &mut [Plan],
        names: &mut HashSet<String>,
        targets: &HashMap<String, (String, Option<String>)>,
        same_rows: &HashMap<String, String>,
    ) -> (Vec<RecordOut>, Vec<UnionOut>) {
        let mut records = std::mem::take(&mut self.records);
        let mut unions = std::mem::take(&mut self.unions);
        // Those a planned field names, and those they name in turn (a union its cases).
        let mut used = vec![false; records.len()];
        let mut used_unions = vec![false; unions.len()];
        let mut named: Vec<String> = (plans.iter())
            .flat_map(|p| p.fields.iter().map(|f| f.ty.clone()))
            .collect();
        while let Some(ty) = named.pop() {
            for (at, union) in unions.iter().enumerate() {
                if !used_unions[at] && ty.contains(&union_token(at)) {
                    used_unions[at] = true;
                    named.extend(union.cases.iter().map(|(case, _)| record_token(*case)));
                }
            }
            for (at, record) in records.iter().enumerate() {
                if !used[at] && ty.contains(&record_token(at)) {
                    used[at] = true;
                    named.extend(record.fields.iter().map(|f| f.ty.clone()));
                }
            }
        }
        // A record or union takes no built-in type's name (`list`, `date`…).
        for name in [
            "int", "float", "bool", "string", "text", "enum", "date", "datetime", "list", "map",
        ] {
            names.insert(name.to_string());
        }
        let mut name = |luban: &str, fallback: &str| {
            let base = identifier_from(short_name(luban))
                .filter(|n| is_identifier(n))
                .unwrap_or_else(|| fallback.to_string());
            free_name(names, &base)
        };
        for (record, _) in records.iter_mut().zip(&used).filter(|(_, used)| **used) {
            record.name = name(&record.luban, "record");
        }
        for (union, _) in unions
            .iter_mut()
            .zip(&used_unions)
            .filter(|(_, used)| **used)
        {
            union.name = name(&union.luban, "union");
        }
        let rename = |ty: &mut String, tokens: &[(String, String)]| {
            for (token, name) in tokens {
                if ty.contains(token.as_str()) {
                    *ty = ty.replace(token.as_str(), name);
                }
            }
        };
        let tokens: Vec<(String, String)> = (records.iter().enumerate())
            .map(|(at, r)| (record_token(at), r.name.clone()))
            .chain((unions.iter().enumerate()).map(|(at, u)| (union_token(at), u.name.clone())))
            .collect();
        for field in plans.iter_mut().flat_map(|p| p.fields.iter_mut()) {
            rename(&mut field.ty, &tokens);
        }
        // A union's cases by their records' names.
        for union in &mut unions {
            for (case, names) in &mut union.cases {
                names.insert(0, records[*case].name.clone());
            }
        }
        let mut kept = Vec::new();
        for (mut record, used) in records.into_iter().zip(used) {
            if !used {
                continue;
            }
            for field in &mut record.fields {
                rename(&mut field.ty, &tokens);
                self.resolve_reference(&record.luban, field, targets, same_rows);
            }
            kept.push(record);
        }
        let unions = (unions.into_iter().zip(used_unions))
            .filter_map(|(union, used)| used.then_some(union))
            .collect();
        (kept, unions)
    }

    /// Load the converted project as every command will; the tables whose schema files
    /// hold an error are taken out (listed as not converted, with the error) until the
    /// rest loads. An error in `masterctl.toml` itself is a defect of the conversion.
    fn drop_unloadable(
        &mut self,
        files: &mut Vec<(String, String)>,
        tables: &mut Vec<ConvertedTable>,
    ) -> Result<(), MigrateError> {
        loop {
            let config = Some((PathBuf::from(&files[0].0), files[0].1.clone()));
            let schemas = files[1..]
                .iter()
                .map(|(p, t)| (PathBuf::from(p), t.clone()))
                .collect();
            let report = match masterctl_schemas::load::load_from_files(config, schemas) {
                Ok(_) => return Ok(()),
                Err(report) => report,
            };
            let mut dropped = false;
            for diagnostic in report.diagnostics.iter().filter(|d| d.is_error()) {
                let Some(file) = diagnostic.location.file.as_deref() else {
                    continue;
                };
                let file = file.to_string_lossy().replace('\\', "/");
                let Some(at) = files.iter().skip(1).position(|(p, _)| *p == file) else {
                    continue;
                };
                files.remove(at + 1);
                let name = file
                    .trim_start_matches("schemas/")
                    .trim_end_matches(".toml");
                if let Some(t) = tables.iter().position(|t| t.table == name) {
                    let table = tables.remove(t);
                    self.not_converted.push(NotConverted {
                        luban_table: table.luban,
                        field: None,
                        reason: format!(
                            "its converted schema does not load: {}",
                            diagnostic.message
                        ),
                    });
                }
                dropped = true;
            }
            if !dropped {
                return Err(MigrateError::Converted(report));
            }
        }
    }

    fn config(&self) -> String {
        let groups = match self.groups.any() {
            true => format!(
                "# Luban's export groups, as audiences (by the targets that export them): {}.\n",
                self.groups.said()
            ),
            false => String::new(),
        };
        let timezone = match &self.options.timezone {
            Some(zone) => format!(
                "# Datetimes without an offset are in the zone Luban exported in.\ntimezone = {}\n",
                zone.to_toml_value()
            ),
            None => String::new(),
        };
        groups
            + &format!(
                "# Converted from a Luban project by `masterctl migrate luban`.\n\
             source_language = {}\n\
             languages = {}\n{timezone}\n\
             [regions.{}]\n\
             branch = {}\n",
                self.options.languages[0].to_toml_value(),
                self.options.languages.to_toml_value(),
                self.options.region.to_toml_key(),
                format!("masters/{}", self.options.region).to_toml_value(),
            )
    }

    /// The sheets of a workbook of the data folder, read once.
    fn data_sheets(&mut self, relative: &str) -> &Result<Vec<(String, SheetHeader)>, String> {
        let path = self.data_dir.join(relative);
        self.sheets
            .entry(relative.to_string())
            .or_insert_with(|| defs::data_sheets(&path))
    }

    /// The table's source and fields, or `None` (and why, recorded).
    fn plan(&mut self, table: &TableDef) -> Option<Plan> {
        let luban = table.full_name.as_str();
        let inputs: Vec<&str> = table
            .input
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        // Several sheets of one workbook (`a@x.xlsx,b@x.xlsx`): one table over them.
        let listed = sheets_of_one_workbook(&inputs);
        let input = match (inputs.as_slice(), &listed) {
            ([one], _) => *one,
            ([], _) => {
                self.skip(luban, None, "no input");
                return None;
            }
            (_, Some((file, _))) => file,
            (many, None) => {
                let reason = format!(
                    "its records come from {} inputs ({}); masterctl reads a table from one sheet",
                    many.len(),
                    many.join(", ")
                );
                self.skip(luban, None, reason);
                return None;
            }
        };
        let (sheet, file) = match input.split_once('@') {
            Some((sheet, file)) => (Some(sheet.trim()), file.trim()),
            None => (None, input),
        };
        // Projects made on Windows write `item\items.xlsx`.
        let file = file.replace('\\', "/");
        let file = file.trim_start_matches("./");
        if file
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
            || sheet.is_some_and(str::is_empty)
        {
            let reason = format!("its input `{input}` is not a file inside the data folder");
            self.skip(luban, None, reason);
            return None;
        }
        // Made on Windows, the input may differ from the file in letter case.
        let file = match resolve_case(self.data_dir, file) {
            Resolved::Exact => file.to_string(),
            Resolved::Cased(real) => {
                self.notes.push(NotConverted {
                    luban_table: luban.to_string(),
                    field: None,
                    reason: format!(
                        "its input `{file}` is `{real}` in the data folder (the names differ in letter case, which Windows does not tell apart): the schema names the file as it is"
                    ),
                });
                real
            }
            Resolved::Ambiguous(names) => {
                let reason = format!(
                    "its input `{file}` is none of the data folder's files, and several differ from it only in letter case ({}): name one exactly",
                    names.join(", ")
                );
                self.skip(luban, None, reason);
                return None;
            }
            Resolved::Missing(close) => {
                let reason = match close {
                    Some(close) => format!(
                        "its input `{file}` is not in the data folder (did you mean `{close}`?)"
                    ),
                    None => format!("its input `{file}` is not in the data folder"),
                };
                self.skip(luban, None, reason);
                return None;
            }
        };
        let file = file.as_str();
        let path = self.data_dir.join(file);
        if path.is_dir() {
            let reason = format!(
                "its records are the files of folder `{file}` ({}): not spreadsheet rows",
                folder_kinds(&path)
            );
            self.skip(luban, None, reason);
            return None;
        }
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if !path.is_file() {
            self.skip(
                luban,
                None,
                format!("its input `{file}` is not in the data folder"),
            );
            return None;
        }
        if self.bounds.as_ref().is_some_and(|b| !b.inside(&path)) {
            self.skip(
                luban,
                None,
                format!("its input `{file}` is a link leading outside the Luban project's folder"),
            );
            return None;
        }
        if !masterctl_schemas::read::SUPPORTED_EXTENSIONS.contains(&extension.as_str()) {
            let reason = format!("its input `{file}` is {extension} data, not a spreadsheet");
            self.skip(luban, None, reason);
            return None;
        }
        if sheet.is_some_and(|s| s.starts_with('*')) {
            self.skip(
                luban,
                None,
                "records spread over several sheets (`*sheet@file`)",
            );
            return None;
        }
        let sheets = match self.data_sheets(file) {
            Ok(sheets) => sheets.clone(),
            Err(message) => {
                let reason = format!("its workbook `{file}` cannot be read: {message}");
                self.skip(luban, None, reason);
                return None;
            }
        };
        // The data sheets its input names: one, several of one workbook, or (none
        // named) every one, which together are the table (`file#*`).
        let named: Option<Vec<&str>> = match (sheet, &listed) {
            (Some(name), _) => Some(vec![name]),
            (None, Some((_, names))) => Some(names.iter().map(String::as_str).collect()),
            (None, None) => None,
        };
        let chosen = match named {
            None => sheets,
            Some(names) => {
                let mut chosen = Vec::new();
                for name in names {
                    match sheets.iter().find(|(n, _)| n == name) {
                        Some(found) => chosen.push(found.clone()),
                        None => {
                            self.skip(luban, None, format!("`{file}` has no data sheet `{name}`"));
                            return None;
                        }
                    }
                }
                chosen
            }
        };
        let (sheet_name, header) = match chosen.as_slice() {
            [one] => one.clone(),
            [] => {
                self.skip(
                    luban,
                    None,
                    format!("`{file}` has no sheet in Luban's layout (a first cell `##var`)"),
                );
                return None;
            }
            many => match one_header(many) {
                Ok(header) => ("*".to_string(), header),
                // A sheet per case of a polymorphic bean, each with its case's columns.
                Err(reason) => match self
                    .is_polymorphic_table(table)
                    .then(|| merged_header(many))
                {
                    Some(Some(header)) => ("*".to_string(), header),
                    _ => {
                        let reason = format!(
                            "its records are in {} sheets of `{file}`: {reason}",
                            many.len()
                        );
                        self.skip(luban, None, reason);
                        return None;
                    }
                },
            },
        };
        let (vars, cases) = self.vars(table, &header)?;
        let mut fields = Vec::new();
        let mut field_names = HashSet::new();
        for var in &vars {
            let converted = match self
                .spread_map(var, &header)
                .or_else(|| self.spread_bean_list(var, &header))
                .or_else(|| self.spread_bean(var, &header))
            {
                Some(spread) => spread,
                None => self.field(var, &header).map(|f| vec![f]),
            };
            let converted = match converted {
                Ok(converted) => converted,
                Err(reason) => {
                    self.skip(luban, Some(&var.name), reason);
                    continue;
                }
            };
            if self.options.timezone.is_none()
                && converted.iter().any(|f| f.ty.contains("datetime"))
            {
                self.notes.push(NotConverted {
                    luban_table: luban.to_string(),
                    field: Some(var.name.clone()),
                    reason: "its datetimes without an offset are read in UTC; Luban read them in the time zone of the machine that exported them: set the project's `timezone` to that zone".into(),
                });
            }
            if let Some(field) = converted.iter().find(|f| {
                f.ty == "string" && f.default.is_some() && f.nulls.iter().any(|n| n == "\"\"")
            }) {
                let default = match &field.default {
                    Some(Scalar::Text(text)) => text.clone(),
                    _ => String::new(),
                };
                self.notes.push(NotConverted {
                    luban_table: luban.to_string(),
                    field: Some(var.name.clone()),
                    reason: format!("a cell written `\"\"` is no value, which takes the default `{default}`; Luban reads it as the empty string"),
                });
            }
            if converted.iter().any(|f| f.escaped && f.ty != "string") {
                self.notes.push(NotConverted {
                    luban_table: luban.to_string(),
                    field: Some(var.name.clone()),
                    reason: "its elements' escapes (`\\n`, `\\t`) are read as written, where Luban (`#escape=1`) turns them into line breaks and tabs (`escapes = true` is for a string field)".into(),
                });
            }
            if converted.iter().any(|f| f.text_key) {
                self.notes.push(NotConverted {
                    luban_table: luban.to_string(),
                    field: Some(var.name.clone()),
                    reason: match &self.l10n {
                        Some(_) => "text is a localization key in Luban: read as string (the key), checked against the l10n table".into(),
                        None => "text is a localization key in Luban: read as string (the key); the texts stay in Luban's l10n files (name them to check the keys)".into(),
                    },
                });
            }
            for mut field in converted {
                let name = free_name(&mut field_names, &field.name);
                if name != field.name {
                    field.column.get_or_insert_with(|| var.name.clone());
                    field.name = name;
                }
                fields.push(field);
            }
        }
        // A list going on in the rows below its record: multi-row, or the rows would
        // read as records without a key.
        for title in header.multi_row() {
            let luban_name = field_name_of(title);
            // The list itself, or the lists of its bean's fields (`item_list.weight`).
            let bean_fields = format!("{luban_name}.");
            let mut carried: Vec<&mut FieldOut> = fields
                .iter_mut()
                .filter(|f| f.luban == luban_name || f.luban.starts_with(&bean_fields))
                .collect();
            match carried.as_mut_slice() {
                lists
                    if !lists.is_empty()
                        && lists.iter().all(|f| {
                            f.ty.starts_with("list<")
                                && (f.column_span <= 1 || f.parts_over_columns)
                        }) =>
                {
                    lists.iter_mut().for_each(|f| f.multi_row = true)
                }
                none_or_other => {
                    let which = match none_or_other {
                        [] => "which is no converted field",
                        _ => {
                            "which is not converted as a list of single values, nor of beans one a row over its columns"
                        }
                    };
                    let reason = format!(
                        "multi-row records (`{title}`): its rows below a record carry `{luban_name}`, {which}"
                    );
                    self.skip(luban, None, reason);
                    return None;
                }
            }
        }
        let case_field = cases.map(|cases| case_field_of(cases, &mut fields, &mut field_names));
        if sheet_name == "*" {
            // Each row's sheet, for export to write it back there; not the game's.
            fields.push(FieldOut {
                name: free_name(&mut field_names, "sheet"),
                ty: "string".into(),
                source_sheet: true,
                ..FieldOut::default()
            });
        }
        let kind = kind_of(table);
        let primary_key = match kind {
            TableKind::Keyed => self.key(table, &vars, &mut fields)?,
            TableKind::Singleton | TableKind::List => Vec::new(),
        };
        Some(Plan {
            kind,
            luban: luban.to_string(),
            name: String::new(),
            // A CSV file is its one sheet: named by itself.
            source: match (&listed, sheet_name.is_empty()) {
                (Some((_, names)), _) => format!("{file}#{}", names.join(",")),
                (None, true) => file.to_string(),
                (None, false) => format!("{file}#{sheet_name}"),
            },
            comment: table.comment.clone(),
            fields,
            primary_key,
            declared_in: table.declared_in.clone(),
            group: table.group.clone(),
            sources: (listed.iter())
                .flat_map(|(_, names)| names.iter().map(|n| format!("{file}#{n}")))
                .collect(),
            case_field,
            vertical: header.vertical,
        })
    }

    /// Whether a table's record type is a polymorphic bean.
    fn is_polymorphic_table(&self, table: &TableDef) -> bool {
        !table.from_file
            && self
                .bean(&table.module, &table.value)
                .is_some_and(|bean| self.is_polymorphic(&bean.full_name))
    }

    /// The record's fields: the bean's (its parents' first), or the sheet's own rows.
    fn vars(
        &mut self,
        table: &TableDef,
        header: &SheetHeader,
    ) -> Option<(Vec<VarDef>, Option<TableCases>)> {
        let luban = table.full_name.as_str();
        if table.from_file {
            let vars: Vec<VarDef> = header
                .names
                .iter()
                .filter(|(_, n)| !n.starts_with('#'))
                .map(|(column, title)| {
                    let ty = header
                        .types
                        .iter()
                        .find(|(c, _)| c == column)
                        .map(|(_, t)| t.clone())
                        .unwrap_or_default();
                    let description = header
                        .descriptions
                        .iter()
                        .find(|(c, _)| c == column)
                        .map(|(_, d)| d.clone());
                    let group = header
                        .groups
                        .iter()
                        .find(|(c, _)| c == column)
                        .map(|(_, g)| g.clone());
                    VarDef {
                        module: table.module.clone(),
                        name: field_name_of(title).to_string(),
                        ty,
                        comment: description,
                        group,
                    }
                })
                .collect();
            if header.types.is_empty() {
                self.skip(luban, None, "its sheet declares no types (`##type` row)");
                return None;
            }
            return Some((vars, None));
        }
        let module = table.module.as_str();
        let Some(bean) = self.bean(module, &table.value) else {
            self.skip(
                luban,
                None,
                format!("its record type `{}` is not defined", table.value),
            );
            return None;
        };
        if self.is_polymorphic(&bean.full_name) {
            return match self.table_cases(bean, header) {
                Ok((vars, cases)) => Some((vars, Some(cases))),
                Err(reason) => {
                    self.skip(luban, None, reason);
                    None
                }
            };
        }
        let mut chain = vec![bean];
        while let Some(last) = chain.last()
            && let Some(parent) = last
                .parent
                .clone()
                .and_then(|p| self.bean(defs::module_of(&last.full_name), &p))
        {
            if chain.iter().any(|b| b.full_name == parent.full_name) {
                break;
            }
            chain.push(parent);
        }
        Some((
            chain
                .iter()
                .rev()
                .flat_map(|b| b.fields.iter().cloned())
                .collect(),
            None,
        ))
    }

    /// The fields of a table of a polymorphic bean (its ancestors', its own, then each
    /// case's, each once) and its cases: every bean below it, named by the sheet's
    /// `__type__` column. A field two cases declare alike is both cases'; declared
    /// otherwise, the table is not converted.
    fn table_cases(
        &self,
        root: &'a defs::BeanDef,
        header: &SheetHeader,
    ) -> Result<(Vec<VarDef>, TableCases), String> {
        let Some((_, column)) =
            (header.names.iter()).find(|(_, n)| matches!(n.trim(), "__type__" | "$type"))
        else {
            return Err(format!(
                "its record type `{}` is polymorphic (a bean with cases), and its sheet has no `__type__` column naming each row's case",
                root.full_name
            ));
        };
        let mut vars: Vec<VarDef> = Vec::new();
        for bean in self.lineage(root) {
            vars.extend(bean.fields.iter().cloned());
        }
        let common = vars.len();
        let mut cases = Vec::new();
        let mut of_var: HashMap<String, Vec<String>> = HashMap::new();
        for case in self.descendants(&root.full_name) {
            // Named by its short name; the others are what else cells call it.
            let mut names = case_names(case);
            let name = names.remove(0);
            for bean in self
                .lineage(case)
                .into_iter()
                .skip_while(|b| b.full_name != root.full_name)
                .skip(1)
            {
                for var in &bean.fields {
                    let at = match vars.iter().position(|v| v.name == var.name) {
                        Some(at) if at >= common && vars[at].ty != var.ty => {
                            return Err(format!(
                                "cases of its polymorphic record type `{}` declare field `{}` as {} and as {}",
                                root.full_name, var.name, vars[at].ty, var.ty
                            ));
                        }
                        Some(at) => at,
                        None => {
                            vars.push(var.clone());
                            vars.len() - 1
                        }
                    };
                    let filled = of_var.entry(var.name.clone()).or_default();
                    if at >= common && !filled.contains(&name) {
                        filled.push(name.clone());
                    }
                }
            }
            cases.push((name, names));
        }
        if cases.is_empty() {
            return Err(format!(
                "polymorphic bean `{}` has no cases",
                root.full_name
            ));
        }
        let every: Vec<&String> = cases.iter().map(|(name, _)| name).collect();
        // A field every case fills is a field of every row.
        of_var.retain(|_, filled| filled.len() < every.len());
        let cases = TableCases {
            column: column.trim().to_string(),
            cases,
            of_var,
        };
        Ok((vars, cases))
    }

    fn bean(&self, module: &str, name: &str) -> Option<&'a defs::BeanDef> {
        let qualified = format!("{module}.{name}");
        self.defs
            .beans
            .iter()
            .find(|b| b.full_name == qualified)
            .or_else(|| self.defs.beans.iter().find(|b| b.full_name == name))
    }

    fn enum_def(&self, module: &str, name: &str) -> Option<&'a defs::EnumDef> {
        let qualified = format!("{module}.{name}");
        self.defs
            .enums
            .iter()
            .find(|e| e.full_name == qualified)
            .or_else(|| self.defs.enums.iter().find(|e| e.full_name == name))
            .or_else(|| {
                // A name without its module, unique across modules.
                let mut found = self
                    .defs
                    .enums
                    .iter()
                    .filter(|e| short_name(&e.full_name) == name);
                match (found.next(), found.next()) {
                    (Some(one), None) if !name.contains('.') => Some(one),
                    _ => None,
                }
            })
    }

    fn is_polymorphic(&self, full_name: &str) -> bool {
        self.defs.beans.iter().any(|b| {
            b.nested_in.as_deref() == Some(full_name)
                || b.parent.as_deref().is_some_and(|p| {
                    p == full_name || format!("{}.{p}", defs::module_of(&b.full_name)) == full_name
                })
        })
    }

    /// A bean spread over columns under its header, as flat fields (`reward_item_id`,
    /// `reward_count`, each `column_offset` places right of `reward`); `None` when the
    /// type is not a plain bean (the field is converted, or refused, as any other).
    fn spread_bean(
        &mut self,
        var: &VarDef,
        header: &SheetHeader,
    ) -> Option<Result<Vec<FieldOut>, String>> {
        let ty = types::parse(&var.ty).ok()?;
        let Kind::Named(name) = &ty.kind else {
            return None;
        };
        let bean = self.bean(&var.module, name)?;
        if self.is_polymorphic(&bean.full_name) {
            return None;
        }
        // A bean of several fields whose header is one cell wide: written whole in its
        // cell, a record (a bean of one field is its field's column either way).
        if let Some((column, _)) = header.column_of(&var.name)
            && header.spread(column).is_empty()
            && bean.fields.len() > 1
        {
            return None;
        }
        Some((|| {
            if ty.nullable {
                return Err(format!(
                    "an optional bean (`{name}?`): its cells may say `null` or `{{}}`"
                ));
            }
            let Some((column, title)) = header.column_of(&var.name) else {
                return Err(format!("no column of the sheet is headed `{}`", var.name));
            };
            let prefix = identifier_from(&var.name).unwrap_or_else(|| "field".into());
            let leaves = self.leaves(bean, &prefix, &var.name, 0)?;
            let width = header.spread(column).len() + 1;
            if leaves.len() != width {
                return Err(format!(
                    "bean `{}` has {} fields, and its header `{title}` spans {width} column{}",
                    bean.full_name,
                    leaves.len(),
                    if width == 1 { " (one cell)" } else { "s" }
                ));
            }
            let mut fields = Vec::new();
            for (offset, (luban, leaf)) in leaves.iter().enumerate() {
                let mut field = self.field(leaf, &SheetHeader::default())?;
                self.check_cells(&field.ty, header.texts.get(&(column + offset)))
                    .map_err(|e| format!("`{luban}`: {e}"))?;
                field.luban = luban.clone();
                field.column = Some(title.to_string());
                field.column_offset = offset;
                // A bean's field is exported in its own groups, else in the bean's.
                if field.group.is_none() {
                    field.group = var.group.clone();
                }
                fields.push(field);
            }
            Ok(fields)
        })())
    }

    /// Luban's map spread over columns, each headed by its key in the second `##var` row
    /// (`Lans` over `EN`, `zh-CN`: a language table): a field per key (`lans_en`,
    /// `lans_zh_cn`) of the value's type, read from its place.
    fn spread_map(
        &mut self,
        var: &VarDef,
        header: &SheetHeader,
    ) -> Option<Result<Vec<FieldOut>, String>> {
        let ty = types::parse(&var.ty).ok()?;
        let Kind::Container { name, elements } = &ty.kind else {
            return None;
        };
        let (column, title) = header.column_of(&var.name)?;
        let spread = header.spread(column);
        if name != "map" || !header.holds_values(spread.clone()) {
            return None;
        }
        let keys: Vec<(usize, &str)> = (column..spread.end)
            .filter_map(|c| {
                header
                    .sub_names
                    .iter()
                    .find(|(at, _)| *at == c)
                    .map(|(_, key)| (c, key.as_str()))
            })
            .collect();
        if keys.len() != spread.len() + 1 {
            return None;
        }
        Some((|| {
            let [_, value] = elements.as_slice() else {
                return Err(format!(
                    "`{}` is not a map of a key and a value type",
                    var.ty
                ));
            };
            let Kind::Named(value_type) = &value.kind else {
                return Err(format!("a map of containers (`{}`)", var.ty));
            };
            let prefix = identifier_from(&var.name).unwrap_or_else(|| "field".into());
            let mut fields = Vec::new();
            for (at, key) in keys {
                // A key's column may be empty: its value optional (a bean's, as a record
                // field may be; `Bean?` in Luban's cells is another layout).
                let bean = self.bean(&var.module, value_type).is_some();
                let leaf = VarDef {
                    module: var.module.clone(),
                    name: format!("{}.{key}", var.name),
                    ty: if bean {
                        value_type.clone()
                    } else {
                        format!("{value_type}?")
                    },
                    comment: var.comment.clone(),
                    group: var.group.clone(),
                };
                let mut field = self.field(&leaf, &SheetHeader::default())?;
                field.optional = true;
                self.check_cells(&field.ty, header.texts.get(&at))
                    .map_err(|e| format!("`{}`: {e}", leaf.name))?;
                field.name = format!(
                    "{prefix}_{}",
                    identifier_from(key).unwrap_or_else(|| format!("{}", at - column + 1))
                );
                field.luban = leaf.name;
                field.column = Some(title.to_string());
                field.column_offset = at - column;
                fields.push(field);
            }
            Ok(fields)
        })())
    }

    /// A list of beans spread over columns, one bean per row (Luban's `*item_list` over
    /// `item_id`, `weight`, its records going on in the rows below): a list per bean
    /// field (`item_list_item_id`, `item_list_weight`), each read from its place, the
    /// lists aligned by position.
    fn spread_bean_list(
        &mut self,
        var: &VarDef,
        header: &SheetHeader,
    ) -> Option<Result<Vec<FieldOut>, String>> {
        let ty = types::parse(&var.ty).ok()?;
        let Kind::Container { name, elements } = &ty.kind else {
            return None;
        };
        let [element] = elements.as_slice() else {
            return None;
        };
        let Kind::Named(bean_name) = &element.kind else {
            return None;
        };
        if !matches!(name.as_str(), "list" | "array") {
            return None;
        }
        let bean = self.bean(&var.module, bean_name)?;
        if self.is_polymorphic(&bean.full_name) {
            return None;
        }
        let (column, title) = header.column_of(&var.name)?;
        // Its columns are its bean's fields when the second `##var` row names them
        // (else each column is an element: not this layout).
        let width = header.spread(column).len() + 1;
        let named = (column..column + width).all(|c| {
            header.sub_names.iter().any(|(at, name)| {
                *at == c && bean.fields.iter().any(|f| f.name == field_name_of(name))
            })
        });
        if !named {
            return None;
        }
        Some((|| {
            let prefix = identifier_from(&var.name).unwrap_or_else(|| "field".into());
            let leaves = self.leaves(bean, &prefix, &var.name, 0)?;
            if leaves.len() != width {
                return Err(format!(
                    "a list of bean `{}` ({} fields), and its header `{title}` spans {width} column{}",
                    bean.full_name,
                    leaves.len(),
                    if width == 1 { " (one cell)" } else { "s" }
                ));
            }
            let mut fields = Vec::new();
            for (offset, (luban, leaf)) in leaves.iter().enumerate() {
                let mut field = self.field(leaf, &SheetHeader::default())?;
                if field.ty.starts_with("list<") || field.ty.starts_with("map<") {
                    return Err(format!("`{luban}` is itself a list: a list of lists"));
                }
                self.check_cells(&field.ty, header.texts.get(&(column + offset)))
                    .map_err(|e| format!("`{luban}`: {e}"))?;
                field.ty = format!("list<{}>", field.ty);
                field.optional = true;
                field.default = None;
                field.nulls.clear();
                // Each column a list of its field's values (`1,2,3` under `x`).
                field.separator = ty.attr("sep").filter(|s| *s != "|").map(str::to_string);
                field.luban = luban.clone();
                field.column = Some(title.to_string());
                field.column_offset = offset;
                if field.group.is_none() {
                    field.group = var.group.clone();
                }
                fields.push(field);
            }
            Ok(fields)
        })())
    }

    /// A bean's scalar fields, nested beans flattened (`reward_item_id`), with their
    /// Luban paths (`reward.item_id`).
    fn leaves(
        &self,
        bean: &defs::BeanDef,
        prefix: &str,
        path: &str,
        depth: usize,
    ) -> Result<Vec<(String, VarDef)>, String> {
        if depth > 4 {
            return Err(format!("bean `{}` nests too deep", bean.full_name));
        }
        if bean.parent.is_some() || self.is_polymorphic(&bean.full_name) {
            return Err(format!(
                "bean `{}` is one case of a polymorphic type",
                bean.full_name
            ));
        }
        let module = defs::module_of(&bean.full_name);
        let mut leaves = Vec::new();
        for field in &bean.fields {
            let name = format!(
                "{prefix}_{}",
                identifier_from(&field.name).unwrap_or_else(|| "field".into())
            );
            let luban = format!("{path}.{}", field.name);
            let ty = types::parse(&field.ty)
                .map_err(|e| format!("bean `{}`'s `{}`: {e}", bean.full_name, field.name))?;
            match &ty.kind {
                Kind::Named(n) if primitive(n).is_some() || self.enum_def(module, n).is_some() => {
                    leaves.push((
                        luban,
                        VarDef {
                            name,
                            module: module.to_string(),
                            ty: field.ty.clone(),
                            comment: field.comment.clone(),
                            group: field.group.clone(),
                        },
                    ));
                }
                Kind::Named(n) => match self.bean(module, n) {
                    Some(inner) if !ty.nullable => {
                        leaves.extend(self.leaves(inner, &name, &luban, depth + 1)?)
                    }
                    _ => {
                        return Err(format!(
                            "bean `{}`'s `{}` is `{}`",
                            bean.full_name, field.name, field.ty
                        ));
                    }
                },
                Kind::Container { .. } => {
                    return Err(format!(
                        "bean `{}`'s `{}` is a container (`{}`)",
                        bean.full_name, field.name, field.ty
                    ));
                }
            }
        }
        Ok(leaves)
    }

    /// One field, or why it cannot be converted.
    fn field(&mut self, var: &VarDef, header: &SheetHeader) -> Result<FieldOut, String> {
        let mut ty = types::parse(&var.ty).map_err(|e| format!("its type `{}`: {e}", var.ty))?;
        let found = header.column_of(&var.name);
        // `k1#sep=;`, `x5#default=10`: attributes written on the header are the type's.
        if let Some((_, title)) = found
            && let Some((_, attrs)) = title.split_once('#')
            && let Ok(titled) = types::parse(&format!("int#{attrs}"))
        {
            ty.attrs.extend(titled.attrs);
        }
        if let Some(format) = ty.attr("format") {
            return Err(format!(
                "its cells are written as {format} (`format={format}`), not as masterctl reads them"
            ));
        }
        let escaped = ty
            .attr("escape")
            .is_some_and(|e| matches!(e.trim(), "1" | "true"));
        let column = found.map(|(c, _)| c);
        // The header as written (`k1#sep=;`), when it is not the field's name.
        let title = found
            .map(|(_, t)| t.trim().to_string())
            .unwrap_or(var.name.clone());
        let name = identifier_from(&var.name).unwrap_or_else(|| "field".to_string());
        let mut out = FieldOut {
            luban: var.name.clone(),
            column: (name != title).then_some(title),
            name,
            optional: ty.nullable,
            description: var.comment.clone().filter(|c| !c.trim().is_empty()),
            text_key: matches!(&ty.kind, Kind::Named(n) if n.eq_ignore_ascii_case("text")),
            escaped,
            group: var.group.clone(),
            ..FieldOut::default()
        };
        if ty.nullable {
            out.nulls.push("null".into());
        }
        // The module the type's names are resolved in first.
        let module = var.module.clone();
        if var.name.contains('@') {
            return Err(format!(
                "a field variant (`{}`): one of several spellings of a field, chosen at export",
                var.name
            ));
        }
        match &ty.kind {
            Kind::Named(name) => match self.bean(&module, name) {
                // Its type, then its fields, one a column (`DemoD5`, `1`, …), no row of
                // sub-titles naming them: joined as a list of them one a row is.
                Some(bean)
                    if self.is_polymorphic(&bean.full_name)
                        && bean.parent.is_none()
                        && let Some(span) = column.and_then(|c| header.parts_over(c)) =>
                {
                    out.column_span = span;
                    let sep = ty.attr("sep").map(str::to_string);
                    let sep = sep.unwrap_or_else(|| self.joined_separator(bean));
                    out.ty = self.union_of(bean, Some(&sep))?
                }
                Some(bean) if self.is_polymorphic(&bean.full_name) && bean.parent.is_none() => {
                    out.ty = self.union_of(bean, ty.attr("sep"))?
                }
                // Its cells may say `null`, or name its type before its fields.
                Some(bean) if ty.nullable => {
                    out.ty = self.optional_record_of(bean, ty.attr("sep"))?
                }
                Some(bean) => out.ty = self.record_of(bean, ty.attr("sep"))?,
                None => out.ty = self.scalar(&module, name, &mut out)?.to_string(),
            },
            Kind::Container { name, elements } if name == "map" => {
                if let Some(spread) = column.map(|c| header.spread(c))
                    && header.holds_values(spread.clone())
                {
                    return Err(format!(
                        "its entries are spread over {} columns; masterctl reads a map from one cell",
                        spread.len() + 1
                    ));
                }
                out = self.map_field(&module, var, &ty, elements, out)?;
            }
            Kind::Container { name, elements } => {
                if !matches!(name.as_str(), "list" | "array" | "arrary" | "set") {
                    return Err(format!("a {name} (`{}`) is not converted", var.ty));
                }
                let [element] = elements.as_slice() else {
                    return Err(format!("`{}` is not a list of one type", var.ty));
                };
                let Kind::Named(element_name) = &element.kind else {
                    return Err(format!("a list of lists (`{}`)", var.ty));
                };
                // Elements over the columns its header spans (`column_span`), when a row
                // holds values there.
                if let Some(spread) = column.map(|c| header.spread(c))
                    && header.holds_values(spread.clone())
                {
                    out.column_span = spread.len() + 1;
                }
                if let Some(set) = element.attr("set") {
                    return Err(format!(
                        "its allowed values (`set={set}`) are not converted"
                    ));
                }
                let separator = ty.attr("sep").unwrap_or(",");
                // One bean a row, its parts over the columns its header spans (`*shapes`
                // over four), no row of sub-titles naming them: no cell separates them;
                // they are joined by the separator of the bean's type as it is already
                // converted, else `,`.
                let over_columns = column.and_then(|c| header.parts_over(c)).is_some()
                    && found.is_some_and(|(_, title)| defs::is_multi_row(title));
                // A bean of no separator of its own takes its parts from the list's
                // (Luban's `list,vec3` over `1,2,3,4,5,6`: one record after another).
                let scalar = match self.bean(&module, element_name) {
                    Some(bean) if self.is_polymorphic(&bean.full_name) && bean.parent.is_none() => {
                        out.parts_over_columns = over_columns;
                        let sep = element.attr("sep").map(str::to_string);
                        let sep = sep.or_else(|| over_columns.then(|| self.joined_separator(bean)));
                        self.union_of(bean, sep.as_deref())?
                    }
                    Some(bean) => {
                        out.parts_over_columns = over_columns;
                        let sep = element.attr("sep").or(bean.sep.as_deref());
                        self.record_of(bean, Some(sep.unwrap_or(separator)))?
                    }
                    None => self.scalar(&module, element_name, &mut out)?.to_string(),
                };
                if separator.chars().count() != 1 {
                    return Err(format!(
                        "separators `{separator}` (nested levels): masterctl lists have one"
                    ));
                }
                // A list of a bean a row is written whole in one cell only on export,
                // between masterctl's own separators.
                if separator != "|" && !out.parts_over_columns {
                    out.separator = Some(separator.to_string());
                }
                // Luban reads quotes and empty elements in a list of strings (`'a'`,
                // `""`, `a,,b`); masterctl takes the text between separators as it is.
                let spanned = column.map_or(0..0, |c| c..c + out.column_span.max(1));
                let texts: Vec<&String> = spanned
                    .filter_map(|c| header.texts.get(&c))
                    .flatten()
                    .collect();
                if scalar == "string"
                    && let Some(text) = texts.iter().find(|t| {
                        t.split(separator)
                            .any(|e| e.trim().is_empty() || e.trim().starts_with(['\'', '"']))
                    })
                {
                    return Err(format!(
                        "its cells quote elements or leave them empty (`{text}`), which Luban reads and masterctl does not"
                    ));
                }
                out.ty = format!("list<{scalar}>");
                out.optional = true;
                if let Some(reference) = element.attr("ref") {
                    out.reference = Some(reference.to_string());
                }
            }
        }
        self.check_cells(&out.ty, column.and_then(|c| header.texts.get(&c)))?;
        self.check_record_cells(&out, column.and_then(|c| header.texts.get(&c)))?;
        if out.ty == "string" {
            // An empty cell, or `""`, is Luban's empty string: masterctl's no value.
            out.optional = true;
            out.nulls.push("\"\"".into());
        }
        if let Some(reference) = ty.attr("ref") {
            out.reference = Some(reference.to_string());
        }
        if self.l10n.is_some() && out.text_key {
            out.reference = Some(L10N.to_string());
        }
        if let Some(range) = ty.attr("range") {
            self.range(range, &mut out)?;
        }
        if let Some(default) = ty.attr("default") {
            out.default = Some(match out.ty.as_str() {
                "int" => default
                    .trim()
                    .parse::<i64>()
                    .map(Scalar::Int)
                    .map_err(|_| format!("its default `{default}` is not a whole number"))?,
                "float" => toml_float(default)
                    .map(Scalar::Float)
                    .ok_or_else(|| format!("its default `{default}` is not a number"))?,
                "bool" => match default.trim().to_ascii_lowercase().as_str() {
                    "true" | "1" | "y" | "yes" => Scalar::Bool(true),
                    "false" | "0" | "n" | "no" => Scalar::Bool(false),
                    _ => return Err(format!("its default `{default}` is not true or false")),
                },
                _ => Scalar::Text(default.to_string()),
            });
            if out.enum_name.is_some() {
                // The default must be a value's name, not an alias.
                let e = out.enum_name.clone().unwrap_or_default();
                if let Some(def) = self.enum_def("", &e)
                    && !def.items.iter().any(|i| i.name == default)
                {
                    return Err(format!("its default `{default}` is not a value of `{e}`"));
                }
            }
        }
        // An empty cell is Luban's default value of the type.
        if !ty.nullable && out.default.is_none() {
            out.default = match out.ty.as_str() {
                // Not where a range leaves 0 out (an empty cell is then an error).
                "int" | "float" if !out_of_range(&out, 0.0) => Some(Scalar::Int(0)),
                "bool" => Some(Scalar::Bool(false)),
                "enum" => out
                    .enum_name
                    .as_deref()
                    .and_then(|e| self.enum_def("", e))
                    .and_then(zero_value)
                    .map(Scalar::Text),
                _ => None,
            };
        }
        Ok(out)
    }

    /// What a numeric column's cells write that Luban reads and masterctl does not:
    /// constants (`ITEM0`, a constalias), hexadecimal numbers (`0x100`).
    fn check_cells(&self, ty: &str, texts: Option<&BTreeSet<String>>) -> Result<(), String> {
        let Some(texts) = texts.filter(|_| matches!(ty, "int" | "float")) else {
            return Ok(());
        };
        if let Some(constant) = self.defs.constants.iter().find(|k| texts.contains(*k)) {
            return Err(format!(
                "its cells name constants (`{constant}`, a constalias): masterctl reads numbers"
            ));
        }
        if let Some(hex) = texts
            .iter()
            .find(|t| t.starts_with("0x") || t.starts_with("0X"))
        {
            return Err(format!(
                "its cells write hexadecimal numbers (`{hex}`), which masterctl does not read"
            ));
        }
        Ok(())
    }

    /// A field of a record holding a text, whose cells quote a part (`4,"",'  '`):
    /// Luban reads the quotes away, masterctl would keep them.
    fn check_record_cells(
        &self,
        out: &FieldOut,
        texts: Option<&BTreeSet<String>>,
    ) -> Result<(), String> {
        let Some(texts) = texts else { return Ok(()) };
        let Some(record) = (self.records.iter().enumerate())
            .find(|(at, _)| out.ty.contains(&record_token(*at)))
            .map(|(_, r)| r)
        else {
            return Ok(());
        };
        if !record.fields.iter().any(|f| f.ty == "string") {
            return Ok(());
        }
        let separators: Vec<&str> = [Some(record.separator.as_str()), out.separator.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        let quoted = texts.iter().find(|text| {
            let mut parts = vec![text.as_str()];
            for separator in &separators {
                parts = parts.iter().flat_map(|p| p.split(separator)).collect();
            }
            parts.iter().any(|p| p.trim().starts_with(['\'', '"']))
        });
        match quoted {
            Some(text) => Err(format!(
                "its cells quote a text (`{text}`), which Luban reads and masterctl does not"
            )),
            None => Ok(()),
        }
    }

    /// A primitive or an enum, as a masterctl type name.
    /// Luban's `(map#sep=,),K,V` in one cell: keys and values alternate between the
    /// separators (`1,100,2,250`), which `separator` and `key_separator` both say.
    fn map_field(
        &mut self,
        module: &str,
        var: &VarDef,
        ty: &types::LubanType,
        elements: &[types::LubanType],
        out: FieldOut,
    ) -> Result<FieldOut, String> {
        let [key, value] = elements else {
            return Err(format!(
                "`{}` is not a map of a key and a value type",
                var.ty
            ));
        };
        let (Kind::Named(key_name), Kind::Named(value_name)) = (&key.kind, &value.kind) else {
            return Err(format!("a map of containers (`{}`)", var.ty));
        };
        // Each part typed on its own copy: an enum part brings its values along.
        let (mut key_out, mut value_out) = (out.clone(), out);
        let key_type = self.scalar(module, key_name.as_str(), &mut key_out)?;
        let value_type = self.scalar(module, value_name.as_str(), &mut value_out)?;
        if !matches!(key_type, "int" | "string" | "enum" | "bool") {
            return Err(format!("a map whose keys are {key_type} (`{}`)", var.ty));
        }
        if key_type == "enum" && value_type == "enum" {
            return Err(format!("a map of enums to enums (`{}`)", var.ty));
        }
        let separator = ty.attr("sep").unwrap_or(",");
        if separator.chars().count() != 1 {
            return Err(format!(
                "separators `{separator}` (nested levels): masterctl maps have one"
            ));
        }
        let mut out = if value_type == "enum" {
            value_out
        } else {
            key_out
        };
        out.ty = format!("map<{key_type}, {value_type}>");
        out.separator = Some(separator.to_string());
        out.key_separator = Some(separator.to_string());
        out.optional = true;
        if let Some(reference) = key.attr("ref") {
            out.reference = Some(reference.to_string());
        }
        Ok(out)
    }

    /// The record type a bean written whole in one cell is (its [`record_token`]):
    /// its fields separated by `sep` (the field type's), else its own `sep`, else its
    /// holder's (a bean in a bean shares its parts); one record per bean and separator.
    fn record_of(&mut self, bean: &'a defs::BeanDef, sep: Option<&str>) -> Result<String, String> {
        if bean.parent.is_some() || self.is_polymorphic(&bean.full_name) {
            return Err(format!(
                "a polymorphic bean (`{}`): its cells choose a type",
                bean.full_name
            ));
        }
        let inherited = self.converting.last().map(|(_, s)| s.as_str());
        let separator = match (sep.or(bean.sep.as_deref()).or(inherited), bean.fields.len()) {
            (Some(separator), _) => separator.to_string(),
            (None, 1) => ",".to_string(),
            (None, fields) => {
                return Err(format!(
                    "bean `{}` is written in one cell without a separator (`sep`), and it has {fields} fields",
                    bean.full_name
                ));
            }
        };
        if separator.contains('|') {
            return Err(format!(
                "bean `{}` is separated by `|`, which separates a list's records in masterctl",
                bean.full_name
            ));
        }
        if let Some(at) = (self.records.iter())
            .position(|r| r.luban == bean.full_name && r.separator == separator)
        {
            return Ok(record_token(at));
        }
        if self.converting.iter().any(|(b, _)| *b == bean.full_name) {
            return Err(format!("bean `{}` holds itself", bean.full_name));
        }
        self.converting
            .push((bean.full_name.clone(), separator.clone()));
        let fields = self.record_fields(bean);
        self.converting.pop();
        self.records.push(RecordOut {
            luban: bean.full_name.clone(),
            separator,
            comment: bean.comment.clone(),
            fields: fields?,
            name: String::new(),
            names: Vec::new(),
        });
        Ok(record_token(self.records.len() - 1))
    }

    /// The record type of an optional bean (`vec3?`): a bean's, whose cells may name it
    /// before its fields, as Luban reads them (`{}`, its name, its full name).
    fn optional_record_of(
        &mut self,
        bean: &'a defs::BeanDef,
        sep: Option<&str>,
    ) -> Result<String, String> {
        let token = self.record_of(bean, sep)?;
        let at = (0..self.records.len()).find(|&at| record_token(at) == token);
        if let Some(record) = at.and_then(|at| self.records.get_mut(at)) {
            let short = short_name(&bean.full_name).to_string();
            for name in ["{}".to_string(), short, bean.full_name.clone()] {
                if !record.names.contains(&name) && !name.contains(record.separator.as_str()) {
                    record.names.push(name);
                }
            }
        }
        Ok(token)
    }

    /// The separator that joins a polymorphic bean's parts spread over columns (no cell
    /// separates them): the one its union has as already converted, else `,`.
    fn joined_separator(&self, root: &defs::BeanDef) -> String {
        let converted = self.unions.iter().find(|u| u.luban == root.full_name);
        converted.map_or_else(|| ",".to_string(), |u| u.separator.clone())
    }

    /// The union type a polymorphic bean written whole in one cell is (its
    /// [`union_token`]): a case per bean below it (its ancestors' fields, then its own,
    /// a record of the union's separator), named by its name and its `alias`.
    fn union_of(&mut self, root: &'a defs::BeanDef, sep: Option<&str>) -> Result<String, String> {
        let inherited = self.converting.last().map(|(_, s)| s.as_str());
        let Some(separator) = sep
            .or(root.sep.as_deref())
            .or(inherited)
            .map(str::to_string)
        else {
            return Err(format!(
                "a polymorphic bean (`{}`) written in one cell without a separator (`sep`)",
                root.full_name
            ));
        };
        if separator.contains('|') {
            return Err(format!(
                "bean `{}` is separated by `|`, which separates a list's records in masterctl",
                root.full_name
            ));
        }
        if let Some(at) =
            (self.unions.iter()).position(|u| u.luban == root.full_name && u.separator == separator)
        {
            return Ok(union_token(at));
        }
        let mut cases = Vec::new();
        for case in self.descendants(&root.full_name) {
            let mut vars = Vec::new();
            for bean in self.lineage(case) {
                vars.extend(bean.fields.iter().cloned());
            }
            self.converting
                .push((case.full_name.clone(), separator.clone()));
            let fields = self.fields_of(&case.full_name, &vars);
            self.converting.pop();
            let fields = fields?;
            if fields.is_empty() {
                return Err(format!(
                    "case `{}` of polymorphic bean `{}` has no fields",
                    case.full_name, root.full_name
                ));
            }
            self.records.push(RecordOut {
                luban: case.full_name.clone(),
                separator: separator.clone(),
                comment: case.comment.clone(),
                fields,
                name: String::new(),
                names: Vec::new(),
            });
            cases.push((self.records.len() - 1, case_names(case)));
        }
        if cases.is_empty() {
            return Err(format!(
                "polymorphic bean `{}` has no cases",
                root.full_name
            ));
        }
        self.unions.push(UnionOut {
            luban: root.full_name.clone(),
            separator,
            comment: root.comment.clone(),
            cases,
            name: String::new(),
        });
        Ok(union_token(self.unions.len() - 1))
    }

    /// Every bean below `full_name` (declared inside it, or naming it as `parent`), depth
    /// first.
    fn descendants(&self, full_name: &str) -> Vec<&'a defs::BeanDef> {
        let mut found = Vec::new();
        let defs = self.defs;
        for bean in &defs.beans {
            let parent = bean.nested_in.as_deref().or(bean.parent.as_deref());
            let below = parent.is_some_and(|p| {
                p == full_name || format!("{}.{p}", defs::module_of(&bean.full_name)) == full_name
            });
            if below
                && !found
                    .iter()
                    .any(|b: &&defs::BeanDef| b.full_name == bean.full_name)
            {
                found.push(bean);
                found.extend(self.descendants(&bean.full_name));
            }
        }
        found
    }

    /// A bean and its ancestors, the first ancestor first.
    fn lineage(&self, bean: &'a defs::BeanDef) -> Vec<&'a defs::BeanDef> {
        let mut line = vec![bean];
        while let Some(parent) = line.last().and_then(|b| b.parent.clone()) {
            let module =
                defs::module_of(line.last().map_or("", |b| b.full_name.as_str())).to_string();
            match self.bean(&module, &parent) {
                Some(up) if !line.iter().any(|b| b.full_name == up.full_name) => line.push(up),
                _ => break,
            }
        }
        line.reverse();
        line
    }

    /// A bean's fields as a record's: one value each, read from a part of its cell.
    fn record_fields(&mut self, bean: &defs::BeanDef) -> Result<Vec<FieldOut>, String> {
        self.fields_of(&bean.full_name, &bean.fields)
    }

    /// Fields of a bean (`of`) as a record's: one value each, read from a part of its
    /// cell.
    fn fields_of(&mut self, of: &str, vars: &[VarDef]) -> Result<Vec<FieldOut>, String> {
        let mut fields = Vec::new();
        for var in vars {
            let mut field = self
                .field(var, &SheetHeader::default())
                .map_err(|e| format!("bean `{of}`'s `{}`: {e}", var.name))?;
            if field.ty.starts_with("list<") || field.ty.starts_with("map<") {
                return Err(format!(
                    "bean `{of}`'s `{}` is {} in one cell: a record's fields hold one value",
                    var.name, var.ty
                ));
            }
            // A part of a cell: no column, separators or spellings of its own.
            field.column = None;
            field.nulls.clear();
            field.escaped = false;
            fields.push(field);
        }
        Ok(fields)
    }

    fn scalar(
        &mut self,
        module: &str,
        name: &str,
        out: &mut FieldOut,
    ) -> Result<&'static str, String> {
        if let Some(ty) = primitive(name) {
            return Ok(ty);
        }
        if let Some(e) = self.enum_def(module, name) {
            if e.flags {
                return Err(format!(
                    "flags enum `{}`: cells combine values (`A|B`)",
                    e.full_name
                ));
            }
            if e.items.is_empty() {
                return Err(format!("enum `{}` has no values", e.full_name));
            }
            self.enums_used.insert(e.full_name.clone());
            out.enum_name = Some(e.full_name.clone());
            return Ok("enum");
        }
        if name.eq_ignore_ascii_case("bigint") {
            return Err("bigint: numbers beyond 64 bits".into());
        }
        if let Some(bean) = self.bean(module, name) {
            let kind = if self.is_polymorphic(&bean.full_name) {
                "a polymorphic bean"
            } else {
                "a bean"
            };
            return Err(format!(
                "{kind} (`{}`) as a map's key or value: Luban's map cells alternate keys and values",
                bean.full_name
            ));
        }
        Err(format!("type `{name}` is not defined"))
    }

    fn range(&self, range: &str, out: &mut FieldOut) -> Result<(), String> {
        let range = range.trim();
        let (open, close) = (range.chars().next(), range.chars().last());
        let inner = range
            .trim_start_matches(['[', '('])
            .trim_end_matches([']', ')']);
        let (low, high) = inner.split_once(',').unwrap_or((inner, inner));
        let bound = |text: &str, exclusive: bool, step: i64| -> Result<Option<Scalar>, String> {
            let text = text.trim();
            if text.is_empty() {
                return Ok(None);
            }
            if out.ty == "int" {
                let n: i64 = text
                    .parse()
                    .map_err(|_| format!("its range `{range}` is not whole numbers"))?;
                let n = match exclusive {
                    true => n
                        .checked_add(step)
                        .ok_or_else(|| format!("its range `{range}` excludes the last number"))?,
                    false => n,
                };
                return Ok(Some(Scalar::Int(n)));
            }
            if exclusive {
                return Err(format!("its range `{range}` excludes a bound of a float"));
            }
            toml_float(text)
                .map(|x| Some(Scalar::Float(x)))
                .ok_or_else(|| format!("its range `{range}` is not numbers"))
        };
        if !matches!(out.ty.as_str(), "int" | "float") {
            return Err(format!("a range (`{range}`) on a {}", out.ty));
        }
        out.min = bound(low, open == Some('('), 1)?;
        out.max = bound(high, close == Some(')'), -1)?;
        Ok(())
    }

    /// The primary key (and unique fields) from `index` and `mode`.
    fn key(
        &mut self,
        table: &TableDef,
        vars: &[VarDef],
        fields: &mut [FieldOut],
    ) -> Option<Vec<String>> {
        let luban = table.full_name.as_str();
        let index = table.index.trim();
        let (key, unique): (Vec<&str>, Vec<&str>) = if index.is_empty() {
            (
                vars.first().map(|v| v.name.as_str()).into_iter().collect(),
                Vec::new(),
            )
        } else if index.contains(['+', '&']) {
            (index.split(['+', '&']).map(str::trim).collect(), Vec::new())
        } else {
            let mut parts = index.split([',', '|']).map(str::trim);
            (parts.next().into_iter().collect(), parts.collect())
        };
        let mut names = Vec::new();
        for luban_name in &key {
            let Some(field) = fields.iter_mut().find(|f| f.luban == *luban_name) else {
                self.skip(
                    luban,
                    None,
                    format!("its key `{luban_name}` was not converted"),
                );
                return None;
            };
            if !matches!(
                field.ty.as_str(),
                "int" | "string" | "enum" | "bool" | "datetime"
            ) {
                self.skip(
                    luban,
                    None,
                    format!("its key `{luban_name}` is a {}", field.ty),
                );
                return None;
            }
            if field.nulls.iter().any(|n| n == "null") {
                self.skip(luban, None, format!("its key `{luban_name}` may be null"));
                return None;
            }
            field.optional = false;
            field.nulls.clear();
            field.default = None;
            names.push(field.name.clone());
        }
        for luban_name in unique {
            if let Some(field) = fields.iter_mut().find(|f| f.luban == luban_name) {
                field.unique = true;
            }
        }
        Some(names)
    }

    fn schema_text(
        &self,
        plan: &Plan,
        notes: &[&NotConverted],
        changes: &[&NotConverted],
    ) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Converted from Luban table {} (declared in {}).",
            comment_text(&plan.luban),
            comment_text(&plan.declared_in)
        );
        for note in notes {
            let what = match &note.field {
                Some(field) => format!("field `{}`", comment_text(field)),
                None => "table".into(),
            };
            let _ = writeln!(
                out,
                "# Not converted: {what}: {}",
                comment_text(&note.reason)
            );
        }
        for change in changes {
            let field = change.field.as_deref().unwrap_or_default();
            let _ = writeln!(
                out,
                "# Converted with a change: field `{}`: {}",
                comment_text(field),
                comment_text(&change.reason)
            );
        }
        let _ = writeln!(out, "name = {}", plan.name.to_toml_value());
        let source = match plan.sources.is_empty() {
            true => plan.source.to_toml_value(),
            false => plan.sources.to_toml_value(),
        };
        let _ = writeln!(out, "source = {source}");
        if let Some(comment) = &plan.comment {
            let _ = writeln!(out, "description = {}", comment.to_toml_value());
        }
        match plan.kind {
            TableKind::Keyed => {
                let _ = writeln!(out, "primary_key = {}", plan.primary_key.to_toml_value());
            }
            kind => {
                let _ = writeln!(out, "kind = {}", kind.as_str().to_toml_value());
            }
        }
        // Luban's export groups, as audiences (masterctl.toml says how they were read).
        let everyone = Audiences::default();
        let table = self.groups.audience(plan.group.as_deref(), everyone);
        if table != everyone {
            let _ = writeln!(out, "audience = {}", audience_list(table));
        }
        if let Some(case_field) = &plan.case_field {
            let _ = writeln!(out, "case_field = {}", case_field.to_toml_value());
        }
        if plan.vertical {
            let _ = writeln!(out, "# Its sheet is written down a column (`##column`).");
            let _ = writeln!(out, "layout = \"vertical\"");
        }
        let _ = writeln!(out, "# Luban reads only the columns its fields name.");
        let _ = writeln!(out, "other_columns = \"ignore\"");
        for field in &plan.fields {
            let _ = writeln!(out, "\n[[fields]]");
            let _ = writeln!(out, "name = {}", field.name.to_toml_value());
            let own = self.groups.audience(field.group.as_deref(), table);
            if field.source_sheet {
                let _ = writeln!(out, "audience = [\"design\"]");
                let _ = writeln!(out, "source_sheet = true");
            } else if own != table && !plan.primary_key.contains(&field.name) {
                let _ = writeln!(out, "audience = {}", audience_list(own));
            }
            self.field_lines(&mut out, field);
        }
        out
    }

    /// A record's schema file: the bean's fields, one value each, in one cell.
    fn record_text(&self, record: &RecordOut) -> String {
        let mut out = type_schema_head(
            &format!("Luban bean {}", record.luban),
            "record",
            &record.name,
            record.comment.as_deref(),
            &record.separator,
        );
        if !record.names.is_empty() {
            let _ = writeln!(
                out,
                "# What its cells may write before its fields, as Luban reads an optional bean."
            );
            let _ = writeln!(out, "names = {}", record.names.to_toml_value());
        }
        for field in &record.fields {
            let _ = writeln!(out, "\n[[fields]]");
            let _ = writeln!(out, "name = {}", field.name.to_toml_value());
            self.field_lines(&mut out, field);
        }
        out
    }

    /// A field's options after its name (and audience) in a schema file (a table's or a
    /// record's).
    fn field_lines(&self, out: &mut String, field: &FieldOut) {
        if let Some(column) = &field.column {
            let _ = writeln!(out, "column = {}", column.to_toml_value());
        }
        if field.column_offset > 0 {
            let _ = writeln!(out, "column_offset = {}", field.column_offset);
        }
        let _ = writeln!(out, "type = {}", field.ty.to_toml_value());
        if let Some(e) = field
            .enum_name
            .as_deref()
            .and_then(|e| self.enum_def("", e))
        {
            let values = enum_values(e);
            match values.len() {
                0..=3 => {
                    let _ = writeln!(out, "values = [{}]", values.join(", "));
                }
                _ => {
                    let _ = writeln!(out, "values = [\n    {},\n]", values.join(",\n    "));
                }
            }
        }
        if !field.case_values.is_empty() {
            let values: Vec<String> = (field.case_values.iter())
                .map(|(value, names)| match names.is_empty() {
                    true => value.to_toml_value(),
                    false => format!(
                        "{{ value = {}, aliases = {} }}",
                        value.to_toml_value(),
                        names.to_toml_value()
                    ),
                })
                .collect();
            let _ = writeln!(out, "values = [\n    {},\n]", values.join(",\n    "));
        }
        if !field.cases.is_empty() {
            let _ = writeln!(out, "cases = {}", field.cases.to_toml_value());
        }
        if field.optional {
            let _ = writeln!(out, "optional = true");
        }
        if !field.nulls.is_empty() {
            let _ = writeln!(out, "null = {}", field.nulls.to_toml_value());
        }
        if let Some(separator) = &field.separator {
            let _ = writeln!(out, "separator = {}", separator.to_toml_value());
        }
        if let Some(separator) = &field.key_separator {
            let _ = writeln!(out, "key_separator = {}", separator.to_toml_value());
        }
        if field.multi_row {
            let _ = writeln!(out, "multi_row = true");
        }
        if field.column_span > 1 {
            let _ = writeln!(out, "column_span = {}", field.column_span);
        }
        if field.escaped && field.ty == "string" {
            let _ = writeln!(out, "escapes = true");
        }
        // Luban reads a bool written y, yes, n or no too (in any letter case), in a
        // bean's part of a cell as well.
        if field.ty == "bool" || field.ty == "list<bool>" {
            let _ = writeln!(out, "bool_spellings = \"luban\"");
        }
        for (key, value) in [
            ("min", &field.min),
            ("max", &field.max),
            ("default", &field.default),
        ] {
            if let Some(value) = value {
                let _ = writeln!(out, "{key} = {}", value.to_toml_value());
            }
        }
        if let Some(reference) = &field.reference {
            let _ = writeln!(out, "references = {}", reference.to_toml_value());
        }
        if field.unique {
            let _ = writeln!(out, "unique = true");
        }
        if let Some(description) = &field.description {
            let _ = writeln!(out, "description = {}", description.to_toml_value());
        }
    }
}

/// The header of a table's data sheets, which are its records together: one header
/// (the same names in the same columns on each), the cells seen on any; else why not.
fn one_header(sheets: &[(String, SheetHeader)]) -> Result<SheetHeader, String> {
    let [(first_name, first), rest @ ..] = sheets else {
        return Err("no sheet".into());
    };
    let mut header = first.clone();
    for (name, other) in rest {
        if other.names != first.names || other.vertical != first.vertical {
            let names = |h: &SheetHeader| -> Vec<String> {
                h.names.iter().map(|(_, n)| n.clone()).collect()
            };
            let (ours, theirs) = (names(first), names(other));
            let lacks: Vec<&str> = (ours.iter())
                .filter(|n| !theirs.contains(n))
                .map(String::as_str)
                .collect();
            let adds: Vec<&str> = (theirs.iter())
                .filter(|n| !ours.contains(n))
                .map(String::as_str)
                .collect();
            let difference = match (lacks.is_empty(), adds.is_empty()) {
                (true, true) => "the same columns in another order or layout".to_string(),
                (false, true) => format!("no {}", lacks.join(", ")),
                (true, false) => format!("also {}", adds.join(", ")),
                (false, false) => format!("no {} but {}", lacks.join(", "), adds.join(", ")),
            };
            return Err(format!(
                "their columns differ (`{name}` has {difference}, beside `{first_name}`), and masterctl reads one table's sheets under one header"
            ));
        }
        for (used, also) in header.used.iter_mut().zip(&other.used) {
            *used |= also;
        }
        for (column, texts) in &other.texts {
            header
                .texts
                .entry(*column)
                .or_default()
                .extend(texts.iter().cloned());
        }
    }
    Ok(header)
}

/// What cells call a case of a polymorphic bean: its name, its name with its module
/// (`test.login.RoleInfo`), its `alias`es.
fn case_names(case: &defs::BeanDef) -> Vec<String> {
    let mut names = vec![short_name(&case.full_name).to_string()];
    if case.full_name.contains('.') {
        names.push(case.full_name.clone());
    }
    let aliases = case.alias.iter().flat_map(|a| a.split([',', ';']));
    names.extend(
        (aliases.map(str::trim))
            .filter(|a| !a.is_empty())
            .map(str::to_string),
    );
    names
}

/// The header of a polymorphic bean's sheets, whose columns differ (a sheet per case,
/// each with its case's fields): each name once, in the order first seen, with what
/// every sheet declares and holds under it; `None` when a sheet is vertical or spreads
/// a value over columns (their places would be lost).
fn merged_header(sheets: &[(String, SheetHeader)]) -> Option<SheetHeader> {
    let mut merged = SheetHeader::default();
    let mut places: HashMap<String, usize> = HashMap::new();
    for (_, sheet) in sheets {
        if sheet.vertical || !sheet.sub_names.is_empty() {
            return None;
        }
        let mut moved: HashMap<usize, usize> = HashMap::new();
        for (column, name) in &sheet.names {
            let next = places.len();
            let place = *places.entry(name.trim().to_string()).or_insert(next);
            if place == next {
                merged.names.push((place, name.clone()));
            }
            moved.insert(*column, place);
        }
        for (own, into) in [
            (&sheet.types, &mut merged.types),
            (&sheet.descriptions, &mut merged.descriptions),
            (&sheet.groups, &mut merged.groups),
        ] {
            for (column, text) in own {
                if let Some(&place) = moved.get(column)
                    && !into.iter().any(|(c, _)| *c == place)
                {
                    into.push((place, text.clone()));
                }
            }
        }
        merged.used.resize(places.len(), false);
        for (column, used) in sheet.used.iter().enumerate() {
            if let (true, Some(&place)) = (*used, moved.get(&column)) {
                merged.used[place] = true;
            }
        }
        for (column, texts) in &sheet.texts {
            if let Some(&place) = moved.get(column) {
                let into = merged.texts.entry(place).or_default();
                into.extend(texts.iter().cloned());
            }
        }
        merged.var_rows = merged.var_rows.max(sheet.var_rows);
    }
    Some(merged)
}

/// A polymorphic bean's table's case field, first (an enum of its cases read from the
/// `__type__` column), and its fields of some cases marked with them; its name.
fn case_field_of(
    cases: TableCases,
    fields: &mut Vec<FieldOut>,
    field_names: &mut HashSet<String>,
) -> String {
    for field in fields.iter_mut() {
        // A bean spread over columns is its Luban field's (`reward.item_id`).
        let luban = field.luban.split('.').next().unwrap_or_default();
        if let Some(filled) = cases.of_var.get(luban) {
            field.cases = filled.clone();
            // Optional in Luban's sense stays; required is said per case.
        }
    }
    let name = free_name(field_names, "type");
    fields.insert(
        0,
        FieldOut {
            luban: cases.column.clone(),
            name: name.clone(),
            column: Some(cases.column),
            ty: "enum".into(),
            description: Some("The case each row is (Luban's `__type__`)".into()),
            case_values: cases.cases,
            ..FieldOut::default()
        },
    );
    name
}

/// An enum's items with their numbers: a number not written counts on from the
/// previous one, from 0, as Luban numbers them.
/// `["server", "client"]`.
fn audience_list(audience: Audiences) -> String {
    let names: Vec<String> = audience.iter().map(|a| a.name().to_string()).collect();
    names.to_toml_value()
}

fn numbered(e: &defs::EnumDef) -> impl Iterator<Item = (&defs::EnumItem, i64)> {
    e.items.iter().scan(0i64, |next, item| {
        let number = item.value.unwrap_or(*next);
        *next = number.saturating_add(1);
        Some((item, number))
    })
}

/// An enum's values with their aliases and numbers.
fn enum_values(e: &defs::EnumDef) -> Vec<String> {
    let mut taken: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for (item, number) in numbered(e) {
        taken.insert(item.name.clone());
        let aliases: Vec<&String> = item
            .aliases
            .iter()
            .filter(|a| taken.insert((*a).clone()))
            .collect();
        let number = if taken.insert(number.to_string()) {
            format!(", number = {number}")
        } else {
            String::new()
        };
        let aliases = match aliases.is_empty() {
            true => String::new(),
            false => format!(", aliases = {}", aliases.to_toml_value()),
        };
        out.push(format!(
            "{{ value = {}{aliases}{number} }}",
            item.name.to_toml_value()
        ));
    }
    out
}

fn out_of_range(field: &FieldOut, value: f64) -> bool {
    let bound = |b: &Option<Scalar>| b.as_ref().and_then(Scalar::as_f64);
    bound(&field.min).is_some_and(|min| value < min)
        || bound(&field.max).is_some_and(|max| value > max)
}

/// The reference target of `text` fields when Luban's l10n table is given.
const L10N: &str = "#l10n";

/// The l10n table's schema: its keys, and a string per language.
fn l10n_schema(name: &str, l10n: &L10nTable) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Luban's l10n table: the keys `text` fields hold.");
    let _ = writeln!(out, "name = {}", name.to_toml_value());
    let _ = writeln!(out, "source = {}", l10n.source.to_toml_value());
    let _ = writeln!(out, "primary_key = [\"key\"]");
    let _ = writeln!(out, "other_columns = \"ignore\"");
    let _ = writeln!(out, "\n[[fields]]\nname = \"key\"\ntype = \"string\"");
    if l10n.key != "key" {
        let _ = writeln!(out, "column = {}", l10n.key.to_toml_value());
    }
    let mut taken: HashSet<String> = HashSet::from(["key".to_string()]);
    for language in &l10n.languages {
        let base = identifier_from(language).unwrap_or_else(|| "language".into());
        let name = free_name(&mut taken, &base);
        let _ = writeln!(
            out,
            "\n[[fields]]\nname = {}\ntype = \"string\"\noptional = true",
            name.to_toml_value()
        );
        if &name != language {
            let _ = writeln!(out, "column = {}", language.to_toml_value());
        }
    }
    out
}

/// The value numbered 0, an enum's default.
fn zero_value(e: &defs::EnumDef) -> Option<String> {
    numbered(e)
        .find(|(_, number)| *number == 0)
        .map(|(item, _)| item.name.clone())
}

/// A masterctl table name for a Luban table: `TbItem` → `item`, unique.
fn unique_name(names: &mut HashSet<String>, table: &TableDef, style: TableNames) -> String {
    if style == TableNames::Full {
        // `demo.TbItem` → `demo_tb_item`: the studio's whole name, in snake case.
        let base = identifier_from(&table.full_name.replace('.', "_"))
            .filter(|n| is_identifier(n))
            .unwrap_or_else(|| "table".to_string());
        return free_name(names, &base);
    }
    let short = short_name(&table.full_name);
    let short = match short.strip_prefix("Tb") {
        // An auto-imported table's `Tb` is the one Luban put before its file's name
        // (`#item.xlsx` → `Tbitem`).
        Some(rest) if table.from_file && !rest.is_empty() => rest,
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit()) => {
            rest
        }
        _ => short,
    };
    let base = identifier_from(short)
        .filter(|n| is_identifier(n))
        .unwrap_or_else(|| "table".to_string());
    if names.insert(base.clone()) {
        return base;
    }
    // Another module's table of this name: prefixed by its module, or numbered.
    if let Some(module) = identifier_from(&table.module.replace('.', "_"))
        && names.insert(format!("{module}_{base}"))
    {
        return format!("{module}_{base}");
    }
    free_name(names, &base)
}

/// What a folder of records holds: `3 json, 1 lua`.
fn folder_kinds(dir: &Path) -> String {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            // A link to a folder is not followed (`a -> .` would never end).
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            } else {
                let ext = path
                    .extension()
                    .map(|e| e.to_string_lossy().to_ascii_lowercase())
                    .unwrap_or_else(|| "other".into());
                *counts.entry(ext).or_default() += 1;
            }
        }
    }
    if counts.is_empty() {
        return "empty".into();
    }
    counts
        .iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod auto_import_names {
    use super::auto_import_name;

    #[test]
    fn names_are_read_as_lubans_pattern_reads_them() {
        let comment = |c: &str| Some(c.to_string());
        assert_eq!(auto_import_name("#Item"), Some(("Item", None)));
        assert_eq!(auto_import_name("#demo.item"), Some(("demo.item", None)));
        assert_eq!(
            auto_import_name("#AutoImport3-自动导入的表"),
            Some(("AutoImport3", comment("自动导入的表")))
        );
        // A comment of name characters only is part of the name, as in Luban.
        assert_eq!(auto_import_name("#Item-extra"), Some(("Item-extra", None)));
        assert_eq!(
            auto_import_name("#Item-x-道具 "),
            Some(("Item-x", comment("道具")))
        );
        // What the pattern finds no name in is no table.
        assert_eq!(auto_import_name("#道具"), None);
        assert_eq!(auto_import_name("#-道具"), None);
        assert_eq!(auto_import_name("Item"), None);
        // The pattern is searched: a `#` later in the name counts too.
        assert_eq!(auto_import_name("old#Item"), Some(("Item", None)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn converter_field(ty: &str) -> FieldOut {
        FieldOut {
            luban: "x".into(),
            name: "x".into(),
            ty: ty.into(),
            ..FieldOut::default()
        }
    }

    #[test]
    fn ranges_become_min_and_max() {
        let defs = Defs::default();
        let options = Options {
            region: "main".into(),
            languages: vec!["zh".into()],
            l10n: None,
            l10n_key: "key".into(),
            table_names: TableNames::Short,
            timezone: None,
        };
        let converter = Converter::new(&defs, Path::new("."), &options);
        let mut field = converter_field("int");
        converter.range("(1, 10]", &mut field).unwrap();
        assert_eq!(
            (field.min, field.max),
            (Some(Scalar::Int(2)), Some(Scalar::Int(10)))
        );
        let mut field = converter_field("int");
        converter.range("[1,]", &mut field).unwrap();
        assert_eq!((field.min, field.max), (Some(Scalar::Int(1)), None));
        // Bounds at the edge of 64 bits are refused, not overflowed.
        let mut field = converter_field("int");
        assert!(
            converter
                .range("[1, 9223372036854775807)", &mut field)
                .is_ok()
        );
        let mut field = converter_field("int");
        assert!(
            converter
                .range("(9223372036854775807, 1]", &mut field)
                .is_err()
        );
        let mut field = converter_field("float");
        assert!(converter.range("(1.5, 2]", &mut field).is_err());
        let mut field = converter_field("string");
        assert!(converter.range("[1,2]", &mut field).is_err());
        // Floats as Luban's projects write them, as TOML writes floats.
        let mut field = converter_field("float");
        converter.range("[.01, .02]", &mut field).unwrap();
        let written = |value: &Option<Scalar>| value.as_ref().map(|v| v.to_toml_value());
        assert_eq!(
            (written(&field.min), written(&field.max)),
            (Some("0.01".to_string()), Some("0.02".to_string()))
        );
        let mut field = converter_field("float");
        assert!(converter.range("[inf, 1]", &mut field).is_err());
        assert_eq!(
            written(&toml_float("1").map(Scalar::Float)).as_deref(),
            Some("1.0")
        );
        assert_eq!(
            written(&toml_float("-.5e3").map(Scalar::Float)).as_deref(),
            Some("-500.0")
        );
        assert_eq!(toml_float("NaN"), None);
        // Texts are quoted as TOML needs, whatever they hold.
        let text = Scalar::Text("say \"hi\"\\\n".into()).to_toml_value();
        let parsed: toml::Table = format!("v = {text}").parse().unwrap();
        assert_eq!(parsed["v"].as_str(), Some("say \"hi\"\\\n"));
    }

    #[test]
    fn enum_numbers_count_on_and_names_are_tables_words() {
        let e = defs::EnumDef {
            full_name: "item.EQuality".into(),
            flags: false,
            items: vec![
                defs::EnumItem {
                    name: "WHITE".into(),
                    aliases: vec!["白".into()],
                    value: None,
                },
                defs::EnumItem {
                    name: "GREEN".into(),
                    aliases: vec![],
                    value: Some(5),
                },
                defs::EnumItem {
                    name: "BLUE".into(),
                    aliases: vec!["白".into()],
                    value: None,
                },
            ],
        };
        assert_eq!(
            enum_values(&e),
            [
                "{ value = \"WHITE\", aliases = [\"白\"], number = 0 }",
                "{ value = \"GREEN\", number = 5 }",
                // An alias another value has is not given twice.
                "{ value = \"BLUE\", number = 6 }",
            ]
        );
        assert_eq!(zero_value(&e).as_deref(), Some("WHITE"));
        let table = |name: &str, module: &str| TableDef {
            full_name: format!("{module}.{name}"),
            value: String::new(),
            index: String::new(),
            mode: String::new(),
            input: String::new(),
            comment: None,
            from_file: false,
            declared_in: String::new(),
            module: module.into(),
            group: None,
        };
        let mut names = HashSet::new();
        assert_eq!(
            unique_name(&mut names, &table("TbItem", "item"), TableNames::Short),
            "item"
        );
        assert_eq!(
            unique_name(&mut names, &table("TbItem", "test"), TableNames::Short),
            "test_item"
        );
        assert_eq!(
            unique_name(&mut names, &table("TbItem", "test"), TableNames::Short),
            "item_2"
        );
        assert_eq!(
            unique_name(&mut names, &table("TbItem", "demo"), TableNames::Full),
            "demo_tb_item"
        );
        assert_eq!(
            unique_name(&mut names, &table("Tbx", ""), TableNames::Short),
            "tbx"
        );
        assert_eq!(
            unique_name(&mut names, &table("道具", ""), TableNames::Short),
            "table"
        );
    }
}
