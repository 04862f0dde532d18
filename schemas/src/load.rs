//! Loading `masterctl.toml` and `schemas/*.toml` into a checked [`Project`].
//!
//! Each file is parsed with spans, so that every mistake — a TOML syntax error, an
//! unknown option or type, a reference to a missing table or field, a name that is not
//! a plain identifier — is reported with its file, line and column. All files are
//! checked before anything is returned: a broken schema set gives every error at once.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Deserialize;
use toml::Spanned;

use crate::diagnostic::{Code, Diagnostic, Location, Report};
use crate::schema::{
    Config, Custom, CustomKind, Field, FieldType, GeneratedKind, GeneratedSchema, Index, Project,
    Reference, RegionConfig, Reverse, ReverseSource, TableSchema,
};
use crate::suggest::did_you_mean;
use crate::value::{self, Value};

/// The file holding the project's configuration, at the root of a master repository.
pub const CONFIG_FILE: &str = "masterctl.toml";
/// The folder holding one schema file per table, beside [`CONFIG_FILE`].
pub const SCHEMAS_DIR: &str = "schemas";

/// Load a project from its root folder (holding `masterctl.toml` and `schemas/`).
pub fn load_project(root: &Path) -> Result<Project, Report> {
    let config_path = root.join(CONFIG_FILE);
    let config_text = read_text(&config_path).map_err(single)?;
    load_from_files(
        Some((config_path, config_text)),
        schema_files(&root.join(SCHEMAS_DIR)).map_err(single)?,
    )
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
    let config = match config {
        Some(path) => {
            let text = read_text(&path).map_err(single)?;
            Some((path, text))
        }
        None => None,
    };
    load_from_files(config, schema_files(dir).map_err(single)?)
}

/// Load from file contents already in memory (used for schemas read out of git).
/// `schemas` are `(path, text)` pairs; paths are only used in diagnostics and for
/// default table names (the file stem).
pub fn load_from_files(
    config: Option<(PathBuf, String)>,
    mut schemas: Vec<(PathBuf, String)>,
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
    for (path, text) in &schemas {
        let source = SourceText::new(path, text);
        match toml::from_str::<RawSchema>(text) {
            Ok(raw) => parsed.push((source, raw)),
            Err(e) => report.push(toml_error(&source, &e)),
        }
    }
    let mut builder = Builder {
        report,
        tables: Vec::new(),
        generated: Vec::new(),
        broken_tables: HashSet::new(),
    };
    builder.build_tables(&parsed);
    builder.check_references(&parsed);
    builder.build_generated(&parsed);
    let config = config.map(|c| builder.check_config(c));
    let Builder {
        report,
        tables,
        generated,
        ..
    } = builder;
    match config {
        Some(config) if !report.has_errors() => Ok(Project {
            config,
            tables,
            generated,
        }),
        _ => Err(report),
    }
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

/// A file's text, to turn byte spans into lines and columns.
struct SourceText<'a> {
    path: &'a Path,
    text: &'a str,
    /// Where each line starts, found once, on the first error.
    line_starts: std::cell::OnceCell<Vec<usize>>,
}

impl<'a> SourceText<'a> {
    fn new(path: &'a Path, text: &'a str) -> SourceText<'a> {
        SourceText {
            path,
            text,
            line_starts: std::cell::OnceCell::new(),
        }
    }

    fn location(&self, span: Range<usize>) -> Location {
        let start = span.start.min(self.text.len());
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', self.text.as_bytes()).map(|i| i + 1))
                .collect()
        });
        let line_index = starts.partition_point(|&s| s <= start).saturating_sub(1);
        let line = line_index as u64 + 1;
        let line_start = starts[line_index];
        let column = self.text[line_start..start].chars().count() as u64 + 1;
        Location {
            line: Some(line),
            column: Some(column),
            ..Location::file(self.path)
        }
    }

    fn error(&self, code: Code, span: Range<usize>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, self.location(span), message)
    }

    fn stem(&self) -> String {
        self.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

fn toml_error(source: &SourceText, error: &toml::de::Error) -> Diagnostic {
    let message = error.message().trim().to_string();
    let code = if message.starts_with("unknown field") {
        Code::UnknownOption
    } else {
        Code::SchemaSyntax
    };
    let location = match error.span() {
        Some(span) => source.location(span),
        None => Location::file(source.path),
    };
    Diagnostic::new(code, location, message)
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

fn identifier_error(source: &SourceText, what: &str, name: &Spanned<String>) -> Diagnostic {
    source
        .error(
            Code::InvalidName,
            name.span(),
            format!("{what} `{}` is not a plain identifier", name.get_ref()),
        )
        .found(name.get_ref().clone())
        .expected(format!(
            "lowercase letters, digits and `_`, starting with a letter, at most {MAX_NAME_LENGTH} characters"
        ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    source_language: Spanned<String>,
    #[serde(default)]
    languages: Vec<Spanned<String>>,
    #[serde(default)]
    regions: BTreeMap<String, Spanned<RawRegion>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegion {
    branch: Spanned<String>,
    upstream: Option<Spanned<String>>,
    #[serde(default)]
    owns: Vec<Spanned<String>>,
    #[serde(default)]
    languages: Vec<Spanned<String>>,
}

/// The configuration once it parsed, waiting for the tables to check `owns` against.
#[derive(Default)]
struct RawConfigChecked {
    file: Option<PathBuf>,
    text: String,
    config: Option<RawConfig>,
}

fn parse_config(source: &SourceText, report: &mut Report) -> Option<RawConfigChecked> {
    match toml::from_str::<RawConfig>(source.text) {
        Ok(config) => Some(RawConfigChecked {
            file: Some(source.path.to_path_buf()),
            text: source.text.to_string(),
            config: Some(config),
        }),
        Err(e) => {
            report.push(toml_error(source, &e));
            None
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchema {
    name: Option<Spanned<String>>,
    sheet: Option<Spanned<String>>,
    description: Option<String>,
    primary_key: Option<Spanned<Vec<Spanned<String>>>>,
    fields: Option<Spanned<Vec<Spanned<RawField>>>>,
    #[serde(default)]
    indexes: Vec<Spanned<RawIndex>>,
    reverse: Option<Spanned<RawReverse>>,
    custom: Option<Spanned<RawCustom>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    name: Spanned<String>,
    #[serde(rename = "type")]
    ty: Spanned<String>,
    #[serde(default)]
    optional: bool,
    default: Option<Spanned<toml::Value>>,
    min: Option<Spanned<toml::Value>>,
    max: Option<Spanned<toml::Value>>,
    min_length: Option<Spanned<i64>>,
    max_length: Option<Spanned<i64>>,
    pattern: Option<Spanned<String>>,
    values: Option<Spanned<Vec<Spanned<String>>>>,
    references: Option<Spanned<String>>,
    #[serde(default)]
    unique: bool,
    description: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIndex {
    fields: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    unique: bool,
    #[serde(default)]
    order_by: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReverse {
    target: Spanned<String>,
    sources: Spanned<Vec<Spanned<RawReverseSource>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReverseSource {
    table: Spanned<String>,
    field: Spanned<String>,
    #[serde(default)]
    columns: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCustom {
    kind: Spanned<String>,
    table: Spanned<String>,
    group_by: Option<Spanned<Vec<Spanned<String>>>>,
    order_by: Option<Spanned<Vec<Spanned<String>>>>,
    weight: Option<Spanned<String>>,
    row: Option<Spanned<String>>,
    column: Option<Spanned<String>>,
    value: Option<Spanned<String>>,
    default: Option<Spanned<toml::Value>>,
}

struct Builder {
    report: Report,
    tables: Vec<TableSchema>,
    generated: Vec<GeneratedSchema>,
    /// Tables declared but too broken to build: references to them are not reported
    /// again as references to a missing table.
    broken_tables: HashSet<String>,
}

/// Where each accepted name was declared, to name both places of a duplicate.
type Declared = HashMap<String, Location>;

impl Builder {
    fn error(&mut self, d: Diagnostic) {
        self.report.push(d);
    }

    fn build_tables(&mut self, parsed: &[(SourceText, RawSchema)]) {
        let mut names: Declared = HashMap::new();
        let mut sheets: Declared = HashMap::new();
        for (source, raw) in parsed {
            let name = self.schema_name(source, raw, &mut names);
            let is_generated = raw.reverse.is_some() || raw.custom.is_some();
            if is_generated {
                if raw.fields.is_some() || raw.primary_key.is_some() || !raw.indexes.is_empty() {
                    let span = raw
                        .fields
                        .as_ref()
                        .map(Spanned::span)
                        .or(raw.primary_key.as_ref().map(Spanned::span))
                        .unwrap_or(0..0);
                    self.error(source.error(
                        Code::InvalidOption,
                        span,
                        "a generated master ([reverse] or [custom]) has no fields, primary_key or indexes of its own",
                    ));
                }
                if let (Some(r), Some(_)) = (&raw.reverse, &raw.custom) {
                    self.error(source.error(
                        Code::InvalidOption,
                        r.span(),
                        "a schema has either [reverse] or [custom], not both",
                    ));
                }
                continue;
            }
            let Some(name) = name else { continue };
            let sheet = raw
                .sheet
                .as_ref()
                .map_or_else(|| name.clone(), |s| s.get_ref().clone());
            if sheet.trim().is_empty() {
                let span = raw.sheet.as_ref().map_or(0..0, Spanned::span);
                self.error(source.error(Code::InvalidName, span, "the sheet name is empty"));
            }
            let sheet_span = raw.sheet.as_ref().map_or(0..0, Spanned::span);
            if let Some(first) = sheets.get(&sheet) {
                self.error(
                    source
                        .error(
                            Code::DuplicateName,
                            sheet_span,
                            format!("sheet `{sheet}` is already the sheet of another table"),
                        )
                        .hint(format!("first declared at {}", first.place())),
                );
            } else {
                sheets.insert(sheet.clone(), source.location(sheet_span));
            }
            match self.build_table(source, raw, name.clone(), sheet) {
                Some(table) => self.tables.push(table),
                None => {
                    self.broken_tables.insert(name);
                }
            }
        }
    }

    /// The schema's name (or file stem), checked and registered; `None` when unusable.
    fn schema_name(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        names: &mut Declared,
    ) -> Option<String> {
        let name = match &raw.name {
            Some(n) => n.clone(),
            None => Spanned::new(0..0, source.stem()),
        };
        if !is_identifier(name.get_ref()) {
            let what = if raw.name.is_some() {
                "the table name"
            } else {
                "the file name (the default table name)"
            };
            self.error(identifier_error(source, what, &name));
            return None;
        }
        if let Some(first) = names.get(name.get_ref()) {
            self.error(
                source
                    .error(
                        Code::DuplicateName,
                        name.span(),
                        format!("table `{}` is declared twice", name.get_ref()),
                    )
                    .hint(format!("first declared at {}", first.place())),
            );
            return None;
        }
        names.insert(name.get_ref().clone(), source.location(name.span()));
        Some(name.into_inner())
    }

    fn build_table(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        name: String,
        sheet: String,
    ) -> Option<TableSchema> {
        let Some(raw_fields) = &raw.fields else {
            self.error(source.error(
                Code::SchemaSyntax,
                0..0,
                format!("table `{name}` has no [[fields]] (nor [reverse] or [custom])"),
            ));
            return None;
        };
        let mut fields = Vec::new();
        let mut seen: Declared = HashMap::new();
        for raw_field in raw_fields.get_ref() {
            let raw_field = raw_field.get_ref();
            let field_name = &raw_field.name;
            if !is_identifier(field_name.get_ref()) {
                self.error(identifier_error(source, "the field name", field_name));
                continue;
            }
            if let Some(first) = seen.get(field_name.get_ref()) {
                self.error(
                    source
                        .error(
                            Code::DuplicateName,
                            field_name.span(),
                            format!("field `{}` is declared twice", field_name.get_ref()),
                        )
                        .hint(format!("first declared at {}", first.place())),
                );
                continue;
            }
            seen.insert(
                field_name.get_ref().clone(),
                source.location(field_name.span()),
            );
            if let Some(field) = self.build_field(source, raw_field) {
                fields.push(field);
            }
        }
        if fields.len() != raw_fields.get_ref().len() {
            // Keys and indexes below would report fields that are merely broken as missing.
            return None;
        }
        let primary_key = match &raw.primary_key {
            None => {
                self.error(
                    source
                        .error(
                            Code::InvalidOption,
                            0..0,
                            format!("table `{name}` has no primary_key"),
                        )
                        .hint("add `primary_key = [\"id\"]` (several fields for a composite key)"),
                );
                None
            }
            Some(pk) if pk.get_ref().is_empty() => {
                self.error(source.error(Code::InvalidOption, pk.span(), "primary_key is empty"));
                None
            }
            Some(pk) => self.field_list(source, &fields, pk.get_ref(), "primary_key"),
        };
        if let Some(pk) = &primary_key {
            for (&i, spanned) in pk
                .iter()
                .zip(raw.primary_key.iter().flat_map(|p| p.get_ref()))
            {
                let field = &fields[i];
                let problem = match field.ty {
                    FieldType::Text => Some("a text field (it is localized)"),
                    FieldType::List(_) => Some("a list field"),
                    _ if field.optional => Some("an optional field"),
                    _ => None,
                };
                if let Some(problem) = problem {
                    self.error(source.error(
                        Code::InvalidOption,
                        spanned.span(),
                        format!("primary key field `{}` is {problem}", field.name),
                    ));
                }
            }
        }
        let mut indexes = Vec::new();
        for raw_index in &raw.indexes {
            let raw_index = raw_index.get_ref();
            let index_fields =
                self.field_list(source, &fields, raw_index.fields.get_ref(), "index");
            let order_by = self.field_list(source, &fields, &raw_index.order_by, "order_by");
            if raw_index.fields.get_ref().is_empty() {
                self.error(source.error(
                    Code::InvalidOption,
                    raw_index.fields.span(),
                    "an index needs at least one field",
                ));
            }
            if let (Some(fields_idx), Some(order_by)) = (index_fields, order_by) {
                for (&i, spanned) in fields_idx.iter().zip(raw_index.fields.get_ref()) {
                    if fields[i].ty == FieldType::Text {
                        self.error(source.error(
                            Code::InvalidOption,
                            spanned.span(),
                            format!(
                                "text field `{}` cannot be indexed (it is localized)",
                                fields[i].name
                            ),
                        ));
                    }
                }
                indexes.push(Index {
                    fields: fields_idx,
                    unique: raw_index.unique,
                    order_by,
                });
            }
        }
        Some(TableSchema {
            name,
            sheet,
            description: raw.description.clone(),
            // A broken key was reported; the table stays so that its references are checked too.
            primary_key: primary_key.unwrap_or_default(),
            fields,
            indexes,
            file: source.path.to_path_buf(),
        })
    }

    /// Resolve names to field indexes; report every missing or repeated one.
    fn field_list(
        &mut self,
        source: &SourceText,
        fields: &[Field],
        names: &[Spanned<String>],
        what: &str,
    ) -> Option<Vec<usize>> {
        let mut indexes = Vec::new();
        let mut ok = true;
        for name in names {
            match fields.iter().position(|f| &f.name == name.get_ref()) {
                Some(i) if indexes.contains(&i) => {
                    self.error(source.error(
                        Code::DuplicateName,
                        name.span(),
                        format!("{what} names field `{}` twice", name.get_ref()),
                    ));
                    ok = false;
                }
                Some(i) => indexes.push(i),
                None => {
                    let mut d = source
                        .error(
                            Code::InvalidReference,
                            name.span(),
                            format!(
                                "{what} names `{}`, which is not a field of this table",
                                name.get_ref()
                            ),
                        )
                        .found(name.get_ref().clone());
                    if let Some(similar) =
                        did_you_mean(name.get_ref(), fields.iter().map(|f| f.name.as_str()))
                    {
                        d = d.hint(format!("did you mean `{similar}`?"));
                    }
                    self.error(d);
                    ok = false;
                }
            }
        }
        ok.then_some(indexes)
    }

    fn build_field(&mut self, source: &SourceText, raw: &RawField) -> Option<Field> {
        let name = raw.name.get_ref().clone();
        let Some(ty) = FieldType::parse(raw.ty.get_ref()) else {
            let known = [
                "int", "float", "bool", "string", "text", "enum", "date", "datetime",
            ];
            let mut d = source
                .error(
                    Code::UnknownType,
                    raw.ty.span(),
                    format!("field `{name}` has unknown type `{}`", raw.ty.get_ref()),
                )
                .found(raw.ty.get_ref().clone())
                .expected("int, float, bool, string, text, enum, date, datetime or list<T>");
            if let Some(similar) = did_you_mean(raw.ty.get_ref(), known.into_iter()) {
                d = d.hint(format!("did you mean `{similar}`?"));
            }
            self.error(d);
            return None;
        };
        let errors_before = self.report.error_count();
        let misplaced = |this: &mut Builder, span: Range<usize>, option: &str, applies: &str| {
            this.error(source.error(
                Code::InvalidOption,
                span,
                format!("option `{option}` does not apply to field `{name}` of type {ty}; it applies to {applies}"),
            ));
        };
        let scalar = ty.scalar().clone();
        let min = raw
            .min
            .as_ref()
            .and_then(|m| self.option_value(source, &name, "min", &scalar, m));
        let max = raw
            .max
            .as_ref()
            .and_then(|m| self.option_value(source, &name, "max", &scalar, m));
        for (option, spanned) in [("min", &raw.min), ("max", &raw.max)] {
            if let Some(s) = spanned
                && !scalar.is_ordered_scalar()
            {
                misplaced(
                    self,
                    s.span(),
                    option,
                    "int, float, date and datetime fields",
                );
            }
        }
        if let (Some(lo), Some(hi)) = (&min, &max)
            && lo > hi
        {
            let span = raw.max.as_ref().map_or(0..0, Spanned::span);
            self.error(source.error(
                Code::InvalidOption,
                span,
                format!("field `{name}` has min {lo} above max {hi}"),
            ));
        }
        let length = |this: &mut Builder,
                      option: &str,
                      raw: &Option<Spanned<i64>>|
         -> Option<u32> {
            let spanned = raw.as_ref()?;
            if !scalar.is_textual() {
                misplaced(this, spanned.span(), option, "string, text and enum fields");
                return None;
            }
            match u32::try_from(*spanned.get_ref()) {
                Ok(n) => Some(n),
                Err(_) => {
                    this.error(source.error(
                        Code::InvalidOption,
                        spanned.span(),
                        format!("`{option}` of field `{name}` must be a non-negative whole number"),
                    ));
                    None
                }
            }
        };
        let min_length = length(self, "min_length", &raw.min_length);
        let max_length = length(self, "max_length", &raw.max_length);
        if let (Some(lo), Some(hi)) = (min_length, max_length)
            && lo > hi
        {
            let span = raw.max_length.as_ref().map_or(0..0, Spanned::span);
            self.error(source.error(
                Code::InvalidOption,
                span,
                format!("field `{name}` has min_length {lo} above max_length {hi}"),
            ));
        }
        let pattern = match &raw.pattern {
            None => None,
            Some(p) if !scalar.is_textual() => {
                misplaced(self, p.span(), "pattern", "string, text and enum fields");
                None
            }
            Some(p) => match Regex::new(&format!("^(?:{})$", p.get_ref())) {
                Ok(re) => Some((p.get_ref().clone(), re)),
                Err(e) => {
                    self.error(
                        source
                            .error(
                                Code::InvalidOption,
                                p.span(),
                                format!("the pattern of field `{name}` is not a valid regular expression"),
                            )
                            .found(p.get_ref().clone())
                            .hint(e.to_string().lines().last().unwrap_or_default().trim().to_string()),
                    );
                    None
                }
            },
        };
        let values = match (&raw.values, &scalar) {
            (Some(v), FieldType::Enum) => {
                let mut seen = HashSet::new();
                for value in v.get_ref() {
                    if value.get_ref().is_empty() {
                        self.error(source.error(
                            Code::InvalidOption,
                            value.span(),
                            format!("enum `{name}` has an empty value"),
                        ));
                    } else if !seen.insert(value.get_ref().as_str()) {
                        self.error(source.error(
                            Code::DuplicateName,
                            value.span(),
                            format!("enum `{name}` lists `{}` twice", value.get_ref()),
                        ));
                    }
                }
                if v.get_ref().is_empty() {
                    self.error(source.error(
                        Code::InvalidOption,
                        v.span(),
                        format!("enum `{name}` has no values"),
                    ));
                }
                v.get_ref()
                    .iter()
                    .map(|s| s.get_ref().as_str().into())
                    .collect()
            }
            (None, FieldType::Enum) => {
                self.error(
                    source
                        .error(
                            Code::InvalidOption,
                            raw.ty.span(),
                            format!("enum field `{name}` has no `values`"),
                        )
                        .hint("add `values = [\"a\", \"b\"]`"),
                );
                Vec::new()
            }
            (Some(v), _) => {
                misplaced(self, v.span(), "values", "enum fields");
                Vec::new()
            }
            (None, _) => Vec::new(),
        };
        let references = raw.references.as_ref().and_then(|r| {
            match r.get_ref().split_once('.') {
                Some((table, field)) if !table.is_empty() && !field.is_empty() => Some(Reference {
                    table: table.to_string(),
                    field: field.to_string(),
                }),
                _ => {
                    self.error(
                        source
                            .error(
                                Code::InvalidReference,
                                r.span(),
                                format!("`references` of field `{name}` is not of the form `table.field`"),
                            )
                            .found(r.get_ref().clone()),
                    );
                    None
                }
            }
        });
        let default = raw
            .default
            .as_ref()
            .and_then(|d| self.option_value(source, &name, "default", &ty, d));
        if self.report.error_count() != errors_before {
            return None;
        }
        let field = Field {
            name,
            ty,
            optional: raw.optional,
            default,
            min,
            max,
            min_length,
            max_length,
            pattern,
            values,
            references,
            unique: raw.unique,
            description: raw.description.clone(),
        };
        if let Some(default) = &field.default
            && let Err(problem) = crate::check::check_value(&field, default)
        {
            let span = raw.default.as_ref().map_or(0..0, Spanned::span);
            self.error(source.error(
                Code::InvalidOption,
                span,
                format!(
                    "the default of field `{}` is not a valid value: {}",
                    field.name, problem.message
                ),
            ));
            return None;
        }
        Some(field)
    }

    /// A `default`, `min` or `max` converted to the field's type.
    fn option_value(
        &mut self,
        source: &SourceText,
        field: &str,
        option: &str,
        ty: &FieldType,
        raw: &Spanned<toml::Value>,
    ) -> Option<Value> {
        match toml_value(ty, raw.get_ref()) {
            Some(v) => Some(v),
            None => {
                self.error(
                    source
                        .error(
                            Code::InvalidOption,
                            raw.span(),
                            format!(
                                "`{option}` of field `{field}` is not {}",
                                crate::parse::describe(ty)
                            ),
                        )
                        .found(source.text.get(raw.span()).unwrap_or_default().to_string()),
                );
                None
            }
        }
    }

    fn check_references(&mut self, parsed: &[(SourceText, RawSchema)]) {
        for (source, raw) in parsed {
            let Some(raw_fields) = &raw.fields else {
                continue;
            };
            let table_name = raw
                .name
                .as_ref()
                .map_or_else(|| source.stem(), |n| n.get_ref().clone());
            for raw_field in raw_fields.get_ref() {
                let raw_field = raw_field.get_ref();
                let Some(spanned) = &raw_field.references else {
                    continue;
                };
                let Some(field) = self
                    .tables
                    .iter()
                    .find(|t| t.name == table_name)
                    .and_then(|t| t.field(raw_field.name.get_ref()))
                else {
                    continue;
                };
                let Some(reference) = &field.references else {
                    continue;
                };
                if self.broken_tables.contains(&reference.table) {
                    continue;
                }
                if let Some(problem) = self.reference_problem(field, reference) {
                    let mut d = source
                        .error(
                            Code::InvalidReference,
                            spanned.span(),
                            format!("field `{}` references `{reference}`: {problem}", field.name),
                        )
                        .found(reference.to_string());
                    let candidates: Vec<String> = self
                        .tables
                        .iter()
                        .flat_map(|t| {
                            t.fields
                                .iter()
                                .map(move |f| format!("{}.{}", t.name, f.name))
                        })
                        .collect();
                    if let Some(similar) = did_you_mean(
                        &reference.to_string(),
                        candidates.iter().map(String::as_str),
                    ) {
                        d = d.hint(format!("did you mean `{similar}`?"));
                    }
                    self.error(d);
                }
            }
        }
    }

    fn reference_problem(&self, field: &Field, reference: &Reference) -> Option<String> {
        let Some(table) = self.tables.iter().find(|t| t.name == reference.table) else {
            return Some(format!("there is no table `{}`", reference.table));
        };
        let Some(target_index) = table.field_index(&reference.field) else {
            return Some(format!(
                "table `{}` has no field `{}`",
                table.name, reference.field
            ));
        };
        let target = &table.fields[target_index];
        let is_key = table.primary_key == [target_index] || target.unique;
        if !is_key {
            return Some(format!(
                "`{reference}` is neither the table's single-field primary key nor unique"
            ));
        }
        if field.ty == FieldType::Text || target.ty == FieldType::Text {
            return Some("text fields cannot be referenced (they are localized)".into());
        }
        if field.ty.scalar() != &target.ty {
            return Some(format!(
                "the field is {} but `{reference}` is {}",
                field.ty, target.ty
            ));
        }
        None
    }

    fn build_generated(&mut self, parsed: &[(SourceText, RawSchema)]) {
        for (source, raw) in parsed {
            let name = raw
                .name
                .as_ref()
                .map_or_else(|| source.stem(), |n| n.get_ref().clone());
            if !is_identifier(&name) || self.generated.iter().any(|g| g.name == name) {
                continue; // already reported by build_tables
            }
            let kind = if let Some(reverse) = &raw.reverse {
                self.build_reverse(source, reverse.get_ref())
                    .map(GeneratedKind::Reverse)
            } else if let Some(custom) = &raw.custom {
                self.build_custom(source, custom.get_ref())
                    .map(GeneratedKind::Custom)
            } else {
                continue;
            };
            if let Some(kind) = kind {
                self.generated.push(GeneratedSchema {
                    name,
                    description: raw.description.clone(),
                    kind,
                    file: source.path.to_path_buf(),
                });
            }
        }
    }

    fn table_ref(&mut self, source: &SourceText, name: &Spanned<String>) -> Option<TableSchema> {
        match self.tables.iter().find(|t| &t.name == name.get_ref()) {
            Some(t) => Some(t.clone()),
            None => {
                let mut d = source
                    .error(
                        Code::InvalidReference,
                        name.span(),
                        format!("there is no table `{}`", name.get_ref()),
                    )
                    .found(name.get_ref().clone());
                if let Some(similar) =
                    did_you_mean(name.get_ref(), self.tables.iter().map(|t| t.name.as_str()))
                {
                    d = d.hint(format!("did you mean `{similar}`?"));
                }
                self.error(d);
                None
            }
        }
    }

    fn field_ref<'t>(
        &mut self,
        source: &SourceText,
        table: &'t TableSchema,
        name: &Spanned<String>,
    ) -> Option<&'t Field> {
        let field = table.field(name.get_ref());
        if field.is_none() {
            let mut d = source
                .error(
                    Code::InvalidReference,
                    name.span(),
                    format!("table `{}` has no field `{}`", table.name, name.get_ref()),
                )
                .found(name.get_ref().clone());
            if let Some(similar) =
                did_you_mean(name.get_ref(), table.fields.iter().map(|f| f.name.as_str()))
            {
                d = d.hint(format!("did you mean `{similar}`?"));
            }
            self.error(d);
        }
        field
    }

    fn build_reverse(&mut self, source: &SourceText, raw: &RawReverse) -> Option<Reverse> {
        let target = self.table_ref(source, &raw.target)?;
        let key_type = match target.primary_key.as_slice() {
            [single] => target.fields[*single].ty.clone(),
            _ => {
                self.error(source.error(
                    Code::InvalidReference,
                    raw.target.span(),
                    format!("reverse target `{}` has a composite primary key; a reverse lookup needs a single-field key", target.name),
                ));
                return None;
            }
        };
        if raw.sources.get_ref().is_empty() {
            self.error(source.error(
                Code::InvalidOption,
                raw.sources.span(),
                "[reverse] has no sources",
            ));
            return None;
        }
        let mut sources = Vec::new();
        let mut ok = true;
        for spanned in raw.sources.get_ref() {
            let raw_source = spanned.get_ref();
            let Some(table) = self.table_ref(source, &raw_source.table) else {
                ok = false;
                continue;
            };
            match self.field_ref(source, &table, &raw_source.field) {
                Some(field) if field.ty.scalar() != &key_type => {
                    self.error(source.error(
                        Code::InvalidReference,
                        raw_source.field.span(),
                        format!(
                            "field `{}.{}` is {} but the key of `{}` is {key_type}",
                            table.name, field.name, field.ty, target.name
                        ),
                    ));
                    ok = false;
                }
                Some(_) => {}
                None => ok = false,
            }
            for column in &raw_source.columns {
                match self.field_ref(source, &table, column) {
                    Some(field) if field.ty == FieldType::Text => {
                        self.error(source.error(
                            Code::InvalidReference,
                            column.span(),
                            format!("text field `{}` cannot be copied into a generated master (text lives in language tables)", field.name),
                        ));
                        ok = false;
                    }
                    Some(_) => {}
                    None => ok = false,
                }
            }
            sources.push(ReverseSource {
                table: table.name.clone(),
                field: raw_source.field.get_ref().clone(),
                columns: raw_source
                    .columns
                    .iter()
                    .map(|c| c.get_ref().clone())
                    .collect(),
            });
        }
        ok.then(|| Reverse {
            target: target.name.clone(),
            sources,
        })
    }

    fn build_custom(&mut self, source: &SourceText, raw: &RawCustom) -> Option<Custom> {
        let table = self.table_ref(source, &raw.table)?;
        let kind_name = raw.kind.get_ref().as_str();
        let allowed: &[&str] = match kind_name {
            "group" => &["group_by", "order_by"],
            "weighted" => &["group_by", "weight"],
            "matrix" => &["row", "column", "value", "default"],
            other => {
                let mut d = source
                    .error(
                        Code::InvalidOption,
                        raw.kind.span(),
                        format!("unknown custom master kind `{other}`"),
                    )
                    .expected("group, weighted or matrix");
                if let Some(similar) =
                    did_you_mean(other, ["group", "weighted", "matrix"].into_iter())
                {
                    d = d.hint(format!("did you mean `{similar}`?"));
                }
                self.error(d);
                return None;
            }
        };
        let present: [(&str, Option<Range<usize>>); 7] = [
            ("group_by", raw.group_by.as_ref().map(Spanned::span)),
            ("order_by", raw.order_by.as_ref().map(Spanned::span)),
            ("weight", raw.weight.as_ref().map(Spanned::span)),
            ("row", raw.row.as_ref().map(Spanned::span)),
            ("column", raw.column.as_ref().map(Spanned::span)),
            ("value", raw.value.as_ref().map(Spanned::span)),
            ("default", raw.default.as_ref().map(Spanned::span)),
        ];
        let errors_before = self.report.error_count();
        for (option, span) in &present {
            if let Some(span) = span
                && !allowed.contains(option)
            {
                self.error(source.error(
                    Code::InvalidOption,
                    span.clone(),
                    format!("option `{option}` does not apply to a `{kind_name}` custom master"),
                ));
            }
        }
        let names = |this: &mut Builder,
                     list: &Option<Spanned<Vec<Spanned<String>>>>,
                     required: bool,
                     option: &str|
         -> Vec<String> {
            match list {
                Some(list) => {
                    for name in list.get_ref() {
                        this.field_ref(source, &table, name);
                    }
                    list.get_ref().iter().map(|n| n.get_ref().clone()).collect()
                }
                None => {
                    if required {
                        this.error(source.error(
                            Code::InvalidOption,
                            raw.kind.span(),
                            format!("a `{kind_name}` custom master needs `{option}`"),
                        ));
                    }
                    Vec::new()
                }
            }
        };
        let one =
            |this: &mut Builder, name: &Option<Spanned<String>>, option: &str| -> Option<Field> {
                match name {
                    Some(name) => this.field_ref(source, &table, name).cloned(),
                    None => {
                        this.error(source.error(
                            Code::InvalidOption,
                            raw.kind.span(),
                            format!("a `{kind_name}` custom master needs `{option}`"),
                        ));
                        None
                    }
                }
            };
        let kind = match kind_name {
            "group" => CustomKind::Group {
                group_by: names(self, &raw.group_by, true, "group_by"),
                order_by: names(self, &raw.order_by, false, "order_by"),
            },
            "weighted" => {
                let group_by = names(self, &raw.group_by, true, "group_by");
                let weight = one(self, &raw.weight, "weight");
                if let (Some(w), Some(span)) = (&weight, raw.weight.as_ref().map(Spanned::span))
                    && !w.ty.is_numeric()
                {
                    self.error(source.error(
                        Code::InvalidOption,
                        span,
                        format!("weight field `{}` is {}, not a number", w.name, w.ty),
                    ));
                }
                CustomKind::Weighted {
                    group_by,
                    weight: weight.map(|w| w.name).unwrap_or_default(),
                }
            }
            _ => {
                let row = one(self, &raw.row, "row");
                let column = one(self, &raw.column, "column");
                let value = one(self, &raw.value, "value");
                for (field, spanned) in [(&row, &raw.row), (&column, &raw.column)] {
                    if let (Some(f), Some(s)) = (field, spanned)
                        && f.ty != FieldType::Enum
                    {
                        self.error(source.error(
                            Code::InvalidOption,
                            s.span(),
                            format!("matrix axis `{}` is {}, not an enum", f.name, f.ty),
                        ));
                    }
                }
                let default = match (&value, &raw.default) {
                    (Some(v), Some(d)) => self.option_value(source, &v.name, "default", &v.ty, d),
                    _ => None,
                };
                CustomKind::Matrix {
                    row: row.map(|f| f.name).unwrap_or_default(),
                    column: column.map(|f| f.name).unwrap_or_default(),
                    value: value.map(|f| f.name).unwrap_or_default(),
                    default,
                }
            }
        };
        (self.report.error_count() == errors_before).then(|| Custom {
            table: table.name.clone(),
            kind,
        })
    }

    fn check_config(&mut self, checked: RawConfigChecked) -> Config {
        let Some(raw) = checked.config else {
            return Config::default();
        };
        let path = checked.file.clone().unwrap_or_default();
        let source = SourceText::new(&path, &checked.text);
        let source_language = raw.source_language.get_ref().clone();
        let mut languages: Vec<String> =
            raw.languages.iter().map(|l| l.get_ref().clone()).collect();
        for language in &raw.languages {
            if !is_language_tag(language.get_ref()) {
                self.error(
                    source
                        .error(
                            Code::InvalidName,
                            language.span(),
                            format!("`{}` is not a language tag", language.get_ref()),
                        )
                        .expected("a tag like ja, en or zh-Hant"),
                );
            }
        }
        if !is_language_tag(&source_language) {
            self.error(
                source
                    .error(
                        Code::InvalidName,
                        raw.source_language.span(),
                        format!("`{source_language}` is not a language tag"),
                    )
                    .expected("a tag like ja, en or zh-Hant"),
            );
        }
        if languages.is_empty() {
            languages.push(source_language.clone());
        } else if !languages.contains(&source_language) {
            self.error(source.error(
                Code::InvalidReference,
                raw.source_language.span(),
                format!("source_language `{source_language}` is not in `languages`"),
            ));
        }
        let mut regions = BTreeMap::new();
        let mut branches: HashMap<String, String> = HashMap::new();
        for (name, spanned) in &raw.regions {
            let region = spanned.get_ref();
            let span = spanned.span();
            if !is_identifier(name) {
                self.error(identifier_error(
                    &source,
                    "the region name",
                    &Spanned::new(span.clone(), name.clone()),
                ));
            }
            let branch = region.branch.get_ref();
            if !is_branch_name(branch) {
                self.error(
                    source
                        .error(
                            Code::InvalidName,
                            region.branch.span(),
                            format!("`{branch}` is not a usable branch name"),
                        )
                        .expected("a git branch name like masters/jp"),
                );
            } else if let Some(other) = branches.insert(branch.clone(), name.clone()) {
                self.error(source.error(
                    Code::DuplicateName,
                    region.branch.span(),
                    format!("regions `{other}` and `{name}` share branch `{branch}`"),
                ));
            }
            if let Some(upstream) = &region.upstream
                && !raw.regions.contains_key(upstream.get_ref())
            {
                self.error(source.error(
                    Code::InvalidReference,
                    upstream.span(),
                    format!(
                        "region `{name}` follows `{}`, which is not a region",
                        upstream.get_ref()
                    ),
                ));
            }
            for owned in &region.owns {
                if let Some(problem) = self.owned_problem(owned.get_ref()) {
                    self.error(
                        source
                            .error(
                                Code::InvalidReference,
                                owned.span(),
                                format!("region `{name}` owns `{}`: {problem}", owned.get_ref()),
                            )
                            .found(owned.get_ref().clone()),
                    );
                }
            }
            for language in &region.languages {
                if !languages.contains(language.get_ref()) {
                    self.error(source.error(
                        Code::InvalidReference,
                        language.span(),
                        format!(
                            "region `{name}` uses language `{}`, which is not in `languages`",
                            language.get_ref()
                        ),
                    ));
                }
            }
            regions.insert(
                name.clone(),
                RegionConfig {
                    branch: branch.clone(),
                    upstream: region.upstream.as_ref().map(|u| u.get_ref().clone()),
                    owns: region.owns.iter().map(|o| o.get_ref().clone()).collect(),
                    languages: region
                        .languages
                        .iter()
                        .map(|l| l.get_ref().clone())
                        .collect(),
                },
            );
        }
        self.check_upstream_cycles(&source, &raw.regions);
        Config {
            file: checked.file,
            source_language,
            languages,
            regions,
        }
    }

    fn owned_problem(&self, owned: &str) -> Option<String> {
        let (table, column) = match owned.split_once('.') {
            Some((t, c)) => (t, Some(c)),
            None => (owned, None),
        };
        let Some(schema) = self.tables.iter().find(|t| t.name == table) else {
            return Some(format!("there is no table `{table}`"));
        };
        match column {
            Some(column) if schema.field(column).is_none() => {
                Some(format!("table `{table}` has no field `{column}`"))
            }
            Some(column) if schema.primary_key_names().contains(&column) => {
                Some("a primary key column cannot be owned; own the whole table".into())
            }
            _ => None,
        }
    }

    /// Every region on a cycle of upstreams, named with its cycle. Each region follows at
    /// most one other, so one walk per region, never revisiting one already settled, is
    /// linear in the number of regions.
    fn check_upstream_cycles(
        &mut self,
        source: &SourceText,
        regions: &BTreeMap<String, Spanned<RawRegion>>,
    ) {
        let upstream_of = |name: &str| {
            regions
                .get(name)
                .and_then(|r| r.get_ref().upstream.as_ref())
                .map(|u| u.get_ref().as_str())
                .filter(|u| regions.contains_key(*u))
        };
        let mut settled: HashSet<&str> = HashSet::new();
        for start in regions.keys() {
            let mut path: Vec<&str> = Vec::new();
            let mut position: HashMap<&str, usize> = HashMap::new();
            let mut current = Some(start.as_str());
            while let Some(name) = current {
                if settled.contains(name) {
                    break;
                }
                if let Some(&first) = position.get(name) {
                    let cycle = &path[first..];
                    for (i, member) in cycle.iter().enumerate() {
                        // The cycle from this region on, at most eight steps of it.
                        let steps = cycle[i..].iter().chain(&cycle[..i]);
                        let mut shown: Vec<&str> = steps.take(8).copied().collect();
                        if cycle.len() > 8 {
                            shown.push("…");
                        }
                        self.error(source.error(
                            Code::InvalidReference,
                            regions[*member].span(),
                            format!(
                                "region `{member}` follows itself through upstreams ({} regions): {} → {member}",
                                cycle.len(),
                                shown.join(" → ")
                            ),
                        ));
                    }
                    break;
                }
                position.insert(name, path.len());
                path.push(name);
                current = upstream_of(name);
            }
            settled.extend(path);
        }
    }
}

/// A BCP 47-like tag: letters, digits and `-`, starting with a letter; it becomes a
/// folder name (`locales/<lang>/`), so nothing else.
fn is_language_tag(tag: &str) -> bool {
    let mut chars = tag.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-')
        && tag.len() <= 35
}

/// Conservative git branch names: path segments of `[A-Za-z0-9._-]`, no `..`, no
/// segment starting with `.` or ending with `.lock`.
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

/// Convert a TOML value written in a schema (`default`, `min`, `max`) to the type.
fn toml_value(ty: &FieldType, raw: &toml::Value) -> Option<Value> {
    match (ty, raw) {
        (FieldType::Int, toml::Value::Integer(i)) => Some(Value::Int(*i)),
        (FieldType::Int, toml::Value::Float(f)) => value::float_to_int(*f).map(Value::Int),
        (FieldType::Float, toml::Value::Integer(i)) => Some(Value::Float(*i as f64)),
        (FieldType::Float, toml::Value::Float(f)) if f.is_finite() => Some(Value::Float(*f)),
        (FieldType::Bool, toml::Value::Boolean(b)) => Some(Value::Bool(*b)),
        (FieldType::String | FieldType::Text | FieldType::Enum, toml::Value::String(s)) => {
            Some(Value::Str(s.as_str().into()))
        }
        (FieldType::Date, toml::Value::String(s)) => value::parse_date(s).map(Value::Date),
        (FieldType::Date, toml::Value::Datetime(d)) => {
            value::parse_date(&d.to_string()).map(Value::Date)
        }
        (FieldType::DateTime, toml::Value::String(s)) => {
            value::parse_datetime(s).map(Value::DateTime)
        }
        (FieldType::DateTime, toml::Value::Datetime(d)) => {
            value::parse_datetime(&d.to_string()).map(Value::DateTime)
        }
        (FieldType::List(inner), toml::Value::Array(items)) => items
            .iter()
            .map(|item| toml_value(inner, item))
            .collect::<Option<Vec<_>>>()
            .map(|v| Value::List(v.into())),
        (FieldType::List(_), toml::Value::String(s)) => crate::parse::parse_text(ty, s).ok(),
        _ => None,
    }
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

    #[test]
    fn typos_find_their_word() {
        let values = ["common", "rare", "epic", "legendary"];
        assert_eq!(did_you_mean("raer", values.into_iter()), Some("rare"));
        assert_eq!(
            did_you_mean("Legendery", values.into_iter()),
            Some("legendary")
        );
        assert_eq!(did_you_mean("zzz", values.into_iter()), None);
    }
}
