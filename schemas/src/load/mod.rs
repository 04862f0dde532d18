//! Loading `masterctl.toml` and `schemas/*.toml` into a checked [`Project`].
//!
//! Each file is parsed with spans, so that every mistake — a TOML syntax error, an
//! unknown option or type, a reference to a missing table or field, a name that is not
//! a plain identifier — is reported with its file, line and column. All files are
//! checked before anything is returned: a broken schema set gives every error at once.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::diagnostic::{Code, Diagnostic, Location, Report};
use crate::schema::{GeneratedSchema, Project, TableSchema};
use crate::zone::Zone;

mod audience;
mod cases;
mod config;
mod fonts;
mod generated;
mod glossary;
mod order;
mod raw;
mod records;
mod source;
mod tables;
mod unions;

use raw::*;
use records::is_record;
use source::*;
use unions::is_union;

/// The file holding the project's configuration, at the root of a master repository.
pub const CONFIG_FILE: &str = "masterctl.toml";
/// The folder holding one schema file per table, beside [`CONFIG_FILE`].
pub const SCHEMAS_DIR: &str = "schemas";
/// The folder holding the font files `[fonts]` names, beside [`CONFIG_FILE`].
pub const FONTS_DIR: &str = "fonts";
/// The extensions of font files (TrueType, OpenType and their collections).
pub const FONT_EXTENSIONS: &[&str] = &["ttf", "otf", "ttc", "otc"];

/// Load a project from its root folder (holding `masterctl.toml` and `schemas/`).
pub fn load_project(root: &Path) -> Result<Project, Report> {
    let config_path = root.join(CONFIG_FILE);
    let config_text = read_text(&config_path).map_err(single)?;
    load_with_fonts(
        Some((config_path, config_text)),
        schema_files(&root.join(SCHEMAS_DIR)).map_err(single)?,
        font_files(&root.join(FONTS_DIR)).map_err(single)?,
    )
}

/// The font files of a `fonts/` folder (none when there is no such folder), by the
/// path `[fonts]` names them with (`fonts/<name>`): regular files with a font's
/// extension, dot files left out.
pub fn font_files(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        // A link is not followed: a font is a file of the repository.
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if !is_file || !is_font_name(&name) {
            continue;
        }
        let bytes = std::fs::read(&path).map_err(|e| {
            Diagnostic::new(
                Code::UnreadableFile,
                Location::file(&path),
                format!("cannot read the font: {e}"),
            )
        })?;
        files.push((format!("{FONTS_DIR}/{name}"), bytes));
    }
    files.sort();
    Ok(files)
}

/// Whether a file name is a font's (`x.ttf`, `x.OTF`), not a dot file.
pub fn is_font_name(name: &str) -> bool {
    !name.starts_with('.')
        && name.rsplit_once('.').is_some_and(|(stem, extension)| {
            !stem.is_empty()
                && FONT_EXTENSIONS
                    .iter()
                    .any(|e| extension.eq_ignore_ascii_case(e))
        })
}

/// Load from a folder of schema files alone (`--schemas DIR`). `masterctl.toml` is read
/// from the folder or its parent when present; without it, the configuration is empty.
pub fn load_schemas_dir(dir: &Path) -> Result<Project, Report> {
    if dir.join(CONFIG_FILE).is_file() && dir.join(SCHEMAS_DIR).is_dir() {
        return load_project(dir);
    }
    let config = [dir.join(CONFIG_FILE), dir.join("..").join(CONFIG_FILE)]
        .into_iter()
        .find(|p| p.is_file());
    let (config, fonts) = match config {
        Some(path) => {
            let text = read_text(&path).map_err(single)?;
            let fonts_dir = path.parent().unwrap_or(dir).join(FONTS_DIR);
            let fonts = font_files(&fonts_dir).map_err(single)?;
            (Some((path, text)), fonts)
        }
        None => (None, Vec::new()),
    };
    load_with_fonts(config, schema_files(dir).map_err(single)?, fonts)
}

/// Load from file contents already in memory (used for schemas read out of git).
/// `schemas` are `(path, text)` pairs; paths are only used in diagnostics and for
/// default table names (the file stem).
pub fn load_from_files(
    config: Option<(PathBuf, String)>,
    schemas: Vec<(PathBuf, String)>,
) -> Result<Project, Report> {
    load_with_fonts(config, schemas, Vec::new())
}

/// [`load_from_files`], with the font files `[fonts]` may name (`fonts/<name>`, bytes).
pub fn load_with_fonts(
    config: Option<(PathBuf, String)>,
    mut schemas: Vec<(PathBuf, String)>,
    fonts: Vec<(String, Vec<u8>)>,
) -> Result<Project, Report> {
    // Tables take the order of their files' names, whatever order the files came in
    // (a git tree walk, a directory listing).
    schemas.sort_by(|a, b| a.0.cmp(&b.0));
    let mut report = Report::default();
    let config = match &config {
        Some((path, text)) => parse_config(&SourceText::new(path, text), &mut report),
        None => Some(RawConfigChecked::default()),
    };
    let mut parsed = Vec::new();
    // Files that do not parse: the tables they declare (by their stem, the default
    // name) are broken, and references to them are not errors of their own.
    let mut unreadable = HashSet::new();
    for (path, text) in &schemas {
        let source = SourceText::new(path, text);
        match toml::from_str::<RawSchema>(text) {
            Ok(raw) => parsed.push((source, raw)),
            Err(e) => {
                report.push(toml_error(&source, &e));
                unreadable.insert(source.stem());
            }
        }
    }
    // The project's null spellings, which every field takes unless it has its own.
    let nulls = config
        .as_ref()
        .and_then(|c| c.config.as_ref())
        .and_then(|c| c.null.as_ref())
        .map(|n| n.get_ref().to_vec())
        .unwrap_or_default();
    let zone = project_zone(config.as_ref(), &mut report);
    let bool_spellings = project_bool_spellings(config.as_ref(), &mut report);
    let mut builder = Builder {
        report,
        tables: Vec::new(),
        generated: Vec::new(),
        broken_tables: unreadable,
        nulls,
        zone,
        bool_spellings,
        audience: Default::default(),
        font_files: fonts,
        records: HashMap::new(),
        broken_records: HashSet::new(),
        unions: HashMap::new(),
    };
    builder.project_audience(config.as_ref());
    let (records, parsed): (Vec<_>, Vec<_>) =
        parsed.into_iter().partition(|(_, raw)| is_record(raw));
    let (unions, parsed): (Vec<_>, Vec<_>) = parsed.into_iter().partition(|(_, raw)| is_union(raw));
    // One namespace: a record, a union and a table each take a name no other has.
    let tables: HashSet<String> = (parsed.iter())
        .map(|(source, raw)| declared_name(source, raw))
        .collect();
    builder.build_types(&records, &unions, &tables);
    builder.build_tables(&parsed);
    builder.check_references(&parsed);
    builder.check_record_references(&records);
    builder.build_generated(&parsed);
    let config = config.map(|c| builder.check_config(c));
    let Builder {
        report,
        tables,
        generated,
        records,
        unions,
        ..
    } = builder;
    let mut records: Vec<_> = records.into_values().collect();
    records.sort_by(|a, b| a.name.cmp(&b.name));
    let mut unions: Vec<_> = unions.into_values().collect();
    unions.sort_by(|a, b| a.name.cmp(&b.name));
    match config {
        Some(config) if !report.has_errors() => Ok(Project {
            config,
            tables,
            generated,
            records,
            unions,
        }),
        _ => Err(report),
    }
}

/// The project's `timezone`: UTC when none is set; a name the time zone database does
/// not hold is an error at its place in `masterctl.toml`.
fn project_zone(config: Option<&RawConfigChecked>, report: &mut Report) -> Zone {
    let Some(checked) = config else {
        return Zone::utc();
    };
    let Some(name) = checked.config.as_ref().and_then(|c| c.timezone.as_ref()) else {
        return Zone::utc();
    };
    match Zone::named(name.get_ref()) {
        Ok(zone) => zone,
        Err(_) => {
            let path = checked.file.clone().unwrap_or_default();
            let source = SourceText::new(&path, &checked.text);
            report.push(
                source
                    .error(
                        Code::InvalidOption,
                        name.span(),
                        format!("`{}` is not a time zone", name.get_ref()),
                    )
                    .expected("an IANA time zone name like Asia/Tokyo, America/Los_Angeles or UTC"),
            );
            Zone::utc()
        }
    }
}

/// `bool_spellings` of `masterctl.toml` (plain when none is set).
fn project_bool_spellings(
    config: Option<&RawConfigChecked>,
    report: &mut Report,
) -> crate::schema::BoolSpellings {
    let Some(checked) = config else {
        return Default::default();
    };
    let Some(spellings) = checked
        .config
        .as_ref()
        .and_then(|c| c.bool_spellings.as_ref())
    else {
        return Default::default();
    };
    match crate::schema::BoolSpellings::parse(spellings.get_ref()) {
        Some(spellings) => spellings,
        None => {
            let path = checked.file.clone().unwrap_or_default();
            let source = SourceText::new(&path, &checked.text);
            report.push(bool_spellings_refused(&source, spellings));
            Default::default()
        }
    }
}

/// A `bool_spellings` that names no set of spellings.
fn bool_spellings_refused(
    source: &SourceText<'_>,
    spellings: &toml::Spanned<String>,
) -> Diagnostic {
    source
        .error(
            Code::InvalidOption,
            spellings.span(),
            format!("`{}` is not a set of bool spellings", spellings.get_ref()),
        )
        .expected("\"luban\" (y, yes, n, no besides TRUE, FALSE, 1, 0) or \"plain\"")
}

/// The name a schema declares: its `name`, or its file's stem.
fn declared_name(source: &SourceText, raw: &RawSchema) -> String {
    raw.name
        .as_ref()
        .map_or_else(|| source.stem(), |n| n.get_ref().clone())
}

/// The `*.toml` files of a schema folder, sorted by name.
pub fn schema_files(dir: &Path) -> Result<Vec<(PathBuf, String)>, Diagnostic> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Diagnostic::new(
            Code::UnreadableFile,
            Location::file(dir),
            format!("cannot read the schema folder: {e}"),
        )
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "toml")
                && p.is_file()
                && !p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with('.'))
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| read_text(&p).map(|text| (p, text)))
        .collect()
}

fn read_text(path: &Path) -> Result<String, Diagnostic> {
    let bytes = std::fs::read(path).map_err(|e| {
        Diagnostic::new(
            Code::UnreadableFile,
            Location::file(path),
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let prefix = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = prefix.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        Diagnostic::new(
            Code::InvalidUtf8,
            Location {
                line: Some(line),
                ..Location::file(path)
            },
            "the file is not valid UTF-8",
        )
    })
}

fn single(d: Diagnostic) -> Report {
    Report {
        diagnostics: vec![d],
    }
}

/// The longest name a table, field or region may have: names become file names
/// (`locales/<lang>/<table>.sources.csv`, `<table>.rkyv`) that every file system and git
/// host must take.
pub const MAX_NAME_LENGTH: usize = 64;

/// `[a-z][a-z0-9_]*`, at most [`MAX_NAME_LENGTH`] bytes: names become file names and code
/// identifiers, so nothing else.
pub fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    name.len() <= MAX_NAME_LENGTH
        && matches!(bytes.next(), Some(b'a'..=b'z'))
        && bytes.all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}

struct Builder {
    report: Report,
    tables: Vec<TableSchema>,
    generated: Vec<GeneratedSchema>,
    /// Tables declared but too broken to build: references to them are not reported
    /// again as references to a missing table.
    broken_tables: HashSet<String>,
    /// `null` of `masterctl.toml`.
    nulls: Vec<String>,
    /// `timezone` of `masterctl.toml` (UTC when none is set).
    zone: Zone,
    /// `bool_spellings` of `masterctl.toml`: what every bool field takes unless it has
    /// its own.
    bool_spellings: crate::schema::BoolSpellings,
    /// `audience` of `masterctl.toml`: who sees a table that names no audience.
    audience: crate::audience::Audiences,
    /// The font files of the project's `fonts/` folder, by path.
    font_files: Vec<(String, Vec<u8>)>,
    /// The record types built so far, by name (`kind = "record"` schemas).
    records: HashMap<String, std::sync::Arc<crate::schema::RecordType>>,
    /// Records whose schema is broken (reported): a field naming one is not reported
    /// again as of an unknown type. Broken unions too.
    broken_records: HashSet<String>,
    /// The union types built (`kind = "union"` schemas), by name.
    unions: HashMap<String, std::sync::Arc<crate::schema::UnionType>>,
}

/// Where each accepted name was declared, to name both places of a duplicate.
type Declared = HashMap<String, Location>;

impl Builder {
    fn error(&mut self, d: Diagnostic) {
        self.report.push(d);
    }
}

/// A BCP 47-like tag: letters, digits and `-`, starting with a letter; it becomes a
/// folder name (`locales/<lang>/`), so nothing else.
pub fn is_language_tag(tag: &str) -> bool {
    let mut chars = tag.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-')
        && tag.len() <= 35
}

/// A branch name git accepts (`git check-ref-format --branch`) in a plainer alphabet:
/// ASCII letters, digits, `.`, `_`, `-` in `/`-separated segments; not `HEAD`, no
/// segment starting with `.` or `-` or ending with `.lock` or `.`; at most 200 bytes.
pub fn is_branch_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 200
        && name != "HEAD"
        && name.split('/').all(|segment| {
            !segment.is_empty()
                && !segment.starts_with('.')
                && !segment.starts_with('-')
                && !segment.ends_with('.')
                && !segment.ends_with(".lock")
                && !segment.contains("..")
                && segment
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_plain() {
        assert!(is_identifier("item"));
        assert!(is_identifier("shop_item2"));
        assert!(!is_identifier("Item"));
        assert!(!is_identifier("../etc"));
        assert!(!is_identifier("2item"));
        assert!(!is_identifier(""));
    }

    #[test]
    fn branch_names_are_conservative() {
        assert!(is_branch_name("masters/jp"));
        assert!(!is_branch_name("masters/../x"));
        assert!(!is_branch_name("masters//jp"));
        assert!(!is_branch_name("masters/jp.lock"));
        assert!(!is_branch_name("a b"));
    }
}
