//! The schema model: `masterctl.toml` and one `schemas/<table>.toml` per table or
//! generated master, checked and resolved (fields by index, references to real fields).
//!
//! [`crate::load`] builds it from files; everything downstream reads it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;

use crate::value::{Step, Value};

/// The whole structure of a master repository.
#[derive(Debug, Clone)]
pub struct Project {
    pub config: Config,
    pub tables: Vec<TableSchema>,
    pub generated: Vec<GeneratedSchema>,
    /// The record types fields may hold (`kind = "record"` schemas), by name.
    pub records: Vec<std::sync::Arc<RecordType>>,
    /// The union types fields may hold (`kind = "union"` schemas), by name.
    pub unions: Vec<std::sync::Arc<UnionType>>,
}

impl Project {
    pub fn table(&self, name: &str) -> Option<&TableSchema> {
        self.tables.iter().find(|t| t.name == name)
    }

    pub fn table_index(&self, name: &str) -> Option<usize> {
        self.tables.iter().position(|t| t.name == name)
    }

    /// The table a sheet (or CSV file stem) maps to by its name (tables given a
    /// `source` file are not mapped by sheet name alone).
    pub fn table_for_sheet(&self, sheet: &str) -> Option<&TableSchema> {
        self.tables
            .iter()
            .find(|t| t.source.is_none() && t.sheet == sheet)
    }

    /// The table sheet `sheet` (the file's first when `first`) of the file at `path`
    /// maps to: a table whose `source` names the file (and that sheet, or none and this is
    /// the first), or a table of that sheet name. Two candidates are
    /// [`SheetTable::Ambiguous`].
    pub fn table_for(&self, path: &Path, sheet: &str, first: bool) -> SheetTable<'_> {
        let sourced = self.tables.iter().filter(|t| {
            t.source.as_ref().is_some_and(|s| {
                s.names_file(path)
                    && match (&t.spread, &s.sheet) {
                        // Every sheet but notes (`#…`) and what `[unread]` names.
                        (Some(spread), _) if spread.sheets == Sheets::Every => {
                            !sheet.starts_with('#')
                                && self.config.unread.of(path, Some(sheet)).is_none()
                        }
                        (Some(spread), _) => spread.sheets.holds(sheet),
                        (None, Some(wanted)) => wanted == sheet,
                        (None, None) => first,
                    }
            })
        });
        let mut candidates = sourced.chain(self.table_for_sheet(sheet));
        match (candidates.next(), candidates.next()) {
            (None, _) => SheetTable::None,
            (Some(one), None) => SheetTable::One(one),
            (Some(a), Some(b)) => SheetTable::Ambiguous(a, b),
        }
    }

    /// The table a CSV file that export wrote for a sheet of a sourced workbook maps to
    /// (`items#Item.csv`, or `#Shop#Gems.csv` for `#Shop.xlsx`'s sheet `Gems`): the
    /// table that sheet of that workbook maps to, when one alone does.
    pub fn table_for_sheet_file(&self, path: &Path, stem: &str) -> Option<&TableSchema> {
        let (book, sheet) = stem.rsplit_once('#')?;
        let mut found = self.tables.iter().filter(|t| {
            let Some(source) = &t.source else {
                return false;
            };
            let Some((_, extension)) = source.file.rsplit_once('.') else {
                return false;
            };
            let workbook = path.with_file_name(format!("{book}.{extension}"));
            !extension.eq_ignore_ascii_case("csv")
                && source.names_file(&workbook)
                && match (&t.spread, &source.sheet) {
                    (Some(spread), _) => spread.sheets.holds(sheet),
                    (None, Some(wanted)) => wanted == sheet,
                    (None, None) => t.sheet == sheet,
                }
        });
        match (found.next(), found.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }
}

/// What a sheet maps to.
#[derive(Debug, Clone, Copy)]
pub enum SheetTable<'a> {
    None,
    One(&'a TableSchema),
    /// Two tables claim the sheet (a `source` and a sheet name, say): an error naming both.
    Ambiguous(&'a TableSchema, &'a TableSchema),
}

/// `source = "items.xlsx"` or `"item/道具.xlsx#Sheet1"`: the workbook (or CSV file) that
/// holds a table, by its name or the end of its path, and the sheet (the only or first
/// sheet when none is given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetSource {
    /// `/`-separated path components, the last the file's name.
    pub file: String,
    pub sheet: Option<String>,
}

impl SheetSource {
    /// Sheet `sheet` of the file at `path` (none: a CSV file) is this: the file, and the
    /// sheet when one is named.
    pub fn names_sheet(&self, path: &Path, sheet: Option<&str>) -> bool {
        self.names_file(path)
            && match (&self.sheet, sheet) {
                (None, _) => true,
                (Some(wanted), Some(sheet)) => wanted == sheet,
                (Some(_), None) => false,
            }
    }

    /// The file at `path` ends with these components.
    pub fn names_file(&self, path: &Path) -> bool {
        let wanted: Vec<&str> = self.file.split('/').collect();
        let components: Vec<String> = path
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        components.len() >= wanted.len()
            && components[components.len() - wanted.len()..]
                .iter()
                .zip(&wanted)
                .all(|(a, b)| a == b)
    }
}

impl std::fmt::Display for SheetSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.sheet {
            Some(sheet) => write!(f, "{}#{sheet}", self.file),
            None => f.write_str(&self.file),
        }
    }
}

/// A table read from several sheets of one workbook, one table (Luban's `input` of a
/// workbook whose sheets together are a table): which sheets, and the field that
/// holds each row's sheet (`source_sheet = true`), so that export writes each row back
/// to its sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spread {
    pub sheets: Sheets,
    /// The index of the `source_sheet` field.
    pub field: usize,
}

/// Which sheets of its workbook a table is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sheets {
    /// Every sheet (`source = "shop.xlsx#*"`) but those `[unread]` names.
    Every,
    /// These, in this order (`source = ["shop.xlsx#Items", "shop.xlsx#Gems"]`).
    Named(Vec<String>),
}

impl Sheets {
    /// Whether the table is read from the sheet of this name.
    pub fn holds(&self, sheet: &str) -> bool {
        match self {
            Sheets::Every => true,
            Sheets::Named(names) => names.iter().any(|n| n == sheet),
        }
    }
}

/// `[unread]` in `masterctl.toml`: what the exports hold that no table reads, and why
/// (`migrate` writes it), so that a validation names each for what it is instead of
/// warning of sheets that map to no table.
#[derive(Debug, Clone, Default)]
pub struct Unread {
    /// Definition workbooks of the tool the project came from (Luban's `__tables__.xlsx`).
    pub definitions: Vec<SheetSource>,
    /// Sheets of notes beside a table's sheet (`说明`).
    pub notes: Vec<SheetSource>,
    /// Any other file or sheet, with why no table reads it.
    pub other: Vec<(SheetSource, String)>,
}

/// What `[unread]` says of a sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnreadAs<'a> {
    Definition,
    Notes,
    /// Why no table reads it; `whole`: the entry is the whole file.
    Other {
        why: &'a str,
        whole: bool,
    },
}

impl Unread {
    /// What `[unread]` says of sheet `sheet` of the file at `path` (none: a CSV file).
    pub fn of(&self, path: &Path, sheet: Option<&str>) -> Option<UnreadAs<'_>> {
        let named = |s: &SheetSource| s.names_sheet(path, sheet);
        if self.definitions.iter().any(named) {
            return Some(UnreadAs::Definition);
        }
        if self.notes.iter().any(named) {
            return Some(UnreadAs::Notes);
        }
        self.other
            .iter()
            .find(|(s, _)| named(s))
            .map(|(s, why)| UnreadAs::Other {
                why,
                whole: s.sheet.is_none(),
            })
    }
}

/// `masterctl.toml`.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Where it was read from, when it was read from a file.
    pub file: Option<PathBuf>,
    pub source_language: String,
    pub languages: Vec<String>,
    pub regions: BTreeMap<String, RegionConfig>,
    /// What a datetime without an offset means (`timezone`; UTC when none is set).
    pub timezone: crate::zone::Zone,
    /// Where builds are published (`[publish]`): what the console's releases page reads
    /// and what `publish`, `releases` and `rollback` use when given no store.
    pub publish: Option<PublishConfig>,
    /// The minisign public keys (their key lines) whose signed releases `fetch` takes
    /// when given no `--trust` (`[delivery] trusted_keys`); empty: any release.
    pub trusted_keys: Vec<String>,
    /// Who sees a table that names no audience (`audience`; servers and clients when
    /// none is set).
    pub audience: crate::audience::Audiences,
    /// What the exports hold that no table reads (`[unread]`).
    pub unread: Unread,
    /// Pseudo languages made from the source texts in every build (`[pseudo]`).
    pub pseudo: PseudoConfig,
    /// What the fonts each language is rendered with cover (`[fonts]`), by language.
    pub fonts: BTreeMap<String, crate::fonts::Coverage>,
    /// Whether a translation that lacks a glossary term's approved translation is
    /// refused (`[checks] glossary = "error"`), rather than warned about.
    pub glossary_is_error: bool,
    /// Where what happens is told (`[notify]`): a webhook a studio wires to its chat.
    pub notify: Option<NotifyConfig>,
}

/// `[pseudo]` in `masterctl.toml`: languages made at build time from the source texts
/// (accented, longer, bracketed), never translated.
#[derive(Debug, Clone, PartialEq)]
pub struct PseudoConfig {
    pub languages: Vec<String>,
    /// How much longer the pseudo texts are than their sources (0.4: 40%).
    pub expansion: f64,
}

impl Default for PseudoConfig {
    fn default() -> PseudoConfig {
        PseudoConfig {
            languages: Vec::new(),
            expansion: PseudoConfig::DEFAULT_EXPANSION,
        }
    }
}

impl PseudoConfig {
    /// English to German: the usual growth of a game's texts once translated.
    pub const DEFAULT_EXPANSION: f64 = 0.4;
    /// The most a project may ask for (4× as long).
    pub const MAX_EXPANSION: f64 = 3.0;
}

/// `[notify]` in `masterctl.toml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifyConfig {
    /// The `http(s)://` address each event is posted to, as JSON.
    pub webhook: String,
    /// The kinds of events told ([`NOTIFIED`]: all of them by default).
    pub events: Vec<String>,
}

/// The kinds of events a webhook is told of: a merge proposed or withdrawn, an import
/// or an edit committed, a rebase or merge committed, a release published or rolled
/// back.
pub const NOTIFIED: [&str; 4] = ["proposal", "import", "merge", "release"];

/// `[publish]` in `masterctl.toml`: where builds are published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishConfig {
    /// `s3://bucket/prefix`, `file:///path` or `http(s)://…`.
    pub store: String,
    /// An S3-compatible endpoint (MinIO, R2…), for `s3://` stores.
    pub endpoint: Option<String>,
}

impl Config {
    /// The project's languages, the source language first (the loader puts the source
    /// among them).
    pub fn languages_source_first(&self) -> impl Iterator<Item = &String> {
        let source = &self.source_language;
        std::iter::once(source).chain(self.languages.iter().filter(move |l| *l != source))
    }
}

/// `[regions.<name>]` in `masterctl.toml`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RegionConfig {
    pub branch: String,
    pub upstream: Option<String>,
    /// `table` or `table.column` entries the region owns.
    pub owns: Vec<String>,
    /// Fallback order of languages for this region; empty means the project's languages.
    pub languages: Vec<String>,
}

/// One table's schema.
#[derive(Debug, Clone)]
pub struct TableSchema {
    pub name: String,
    /// The sheet name (or CSV file stem) that holds this table in exports.
    pub sheet: String,
    /// The file (and sheet) that holds it, when given by `source` rather than by sheet
    /// name alone.
    pub source: Option<SheetSource>,
    /// The sheets of its `source` workbook it is read from, when more than one.
    pub spread: Option<Spread>,
    pub description: Option<String>,
    /// What a sheet's columns that name no field are: mistakes, or notes not read.
    pub other_columns: OtherColumns,
    /// What its rows are: keyed records (the default), one record, or an ordered list.
    pub kind: TableKind,
    /// How `export` lays its sheet out (`layout`); import reads either.
    pub layout: Layout,
    /// Indexes into `fields`, in key order (empty for a singleton or a list).
    pub primary_key: Vec<usize>,
    pub fields: Vec<Field>,
    pub indexes: Vec<Index>,
    /// Who may see it (`audience`; the project's default when it names none).
    pub audience: crate::audience::Audiences,
    /// A glossary (`glossary = true`): keyed by `term`, a column per language holding
    /// the approved translation, `do_not_translate` and `note` (see `locales::glossary`).
    pub glossary: bool,
    /// The enum field whose value says which case a row is (`case_field = "type"`):
    /// the fields of some cases alone (their `cases`) are filled by those rows only.
    pub case_field: Option<String>,
    /// The schema file it was read from.
    pub file: PathBuf,
}

impl TableSchema {
    /// The position of its `case_field`, when it has one (and the view holds it).
    pub fn case_field_index(&self) -> Option<usize> {
        self.field_index(self.case_field.as_deref()?)
    }

    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// The field a header cell (trimmed) names: by name, or by a `column` spelling.
    pub fn headed_field(&self, header: &str) -> Option<usize> {
        self.field_index(header)
            .or_else(|| self.fields.iter().position(|f| f.is_headed(header)))
    }

    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    pub fn primary_key_names(&self) -> Vec<&str> {
        self.primary_key
            .iter()
            .map(|&i| self.fields[i].name.as_str())
            .collect()
    }

    /// Where planners keep this table, as they would look for it: `items.xlsx (sheet
    /// Item)` when `source` names it, else the sheet (or CSV file) its name maps.
    pub fn planners_place(&self) -> String {
        match &self.source {
            Some(SheetSource {
                file,
                sheet: Some(sheet),
            }) => format!("{file} (sheet {sheet})"),
            Some(SheetSource { file, sheet: None }) => file.clone(),
            None => format!("the sheet {0} (or {0}.csv)", self.sheet),
        }
    }
}

/// What a table's rows are (`kind` in a schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TableKind {
    /// Records identified by a primary key (`kind = "table"`, the default).
    #[default]
    Keyed,
    /// Exactly one record (`kind = "singleton"`): a game's constants. Read from an
    /// ordinary one-row sheet or the vertical layout (field names in a column, values
    /// beside them); no key.
    Singleton,
    /// Rows in the order the sheet gives them, without a key (`kind = "list"`): diff and
    /// rebase match rows by their place (docs/guide/schemas.md, "Lists").
    List,
}

impl TableKind {
    pub const NAMES: [&'static str; 3] = ["table", "singleton", "list"];

    pub fn parse(name: &str) -> Option<TableKind> {
        match name {
            "table" => Some(TableKind::Keyed),
            "singleton" => Some(TableKind::Singleton),
            "list" => Some(TableKind::List),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TableKind::Keyed => "table",
            TableKind::Singleton => "singleton",
            TableKind::List => "list",
        }
    }

    /// Whether rows are found by a primary key.
    pub fn is_keyed(self) -> bool {
        self == TableKind::Keyed
    }
}

/// How a table's sheet is laid out when `export` writes it (`layout` in a schema); import
/// reads a sheet of either layout whatever the schema says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// A header row, then a row per record.
    #[default]
    Rows,
    /// Field names down the first column, a record in each column beside them, the first
    /// cell marking it so (`##column`): the layout studios write constants in, and Luban's
    /// `##column` sheets.
    Vertical,
}

/// A sheet's columns that name no field of the table (`other_columns` in a schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OtherColumns {
    /// An error, with a hint to mark the column as a comment (`#`): the default, since
    /// a misspelt header would otherwise lose its column.
    #[default]
    Error,
    /// Not read, like Luban: a studio's notes beside the data, in columns headed or not.
    Ignore,
}

/// One column of a table.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub ty: FieldType,
    pub optional: bool,
    pub default: Option<Value>,
    pub min: Option<Value>,
    pub max: Option<Value>,
    pub min_length: Option<u32>,
    pub max_length: Option<u32>,
    /// The `pattern` as written, and compiled to match the whole value.
    pub pattern: Option<(String, Regex)>,
    /// Allowed values of an `enum` (or `list<enum>`) field, shared with the rows.
    pub values: Vec<std::sync::Arc<str>>,
    pub references: Option<Reference>,
    pub unique: bool,
    pub description: Option<String>,
    /// Headers the sheets give the field besides its name (`column = "アイテムID"`).
    pub columns: Vec<String>,
    /// Read `column_offset` places right of a `column` header (`0`: under it).
    pub column_offset: usize,
    /// Cell texts read as an empty cell (`null = ["NULL"]`: the field's, else the
    /// project's; none by default).
    pub nulls: Vec<String>,
    /// What separates a list's elements (a map's entries) in the sheets (`|` by
    /// default; canonical files always use `|`).
    pub separator: Option<String>,
    /// What separates a map entry's key from its value in the sheets (`:` by default;
    /// the same as `separator`: keys and values alternate, as Luban writes maps).
    pub key_separator: Option<String>,
    /// A list whose elements may go on in the rows below its record, while their key
    /// cells are empty (`multi_row = true`; Luban's `*field`). Its header may be written
    /// `*name`.
    pub multi_row: bool,
    /// A list the sheets spread over columns that repeat its header (`BuffID`,
    /// `BuffID`, as tabtoy writes one): its elements are every such column's, in column
    /// order (`repeated_header = true`).
    pub repeated_header: bool,
    /// A list the sheets spread over its header's column and those right of it, this
    /// many in all (`column_span = 5`: a header merged over five columns, as Luban
    /// writes a list over columns); 1: its own column alone.
    pub column_span: usize,
    /// The name of the sheet a row was read from (`source_sheet = true`, in a table read
    /// from several sheets): no column holds it.
    pub source_sheet: bool,
    /// The sheets write a string's line breaks, tabs and backslashes as `\n`, `\t`,
    /// `\\` (`escapes = true`; Luban's `#escape=1`). Canonical files hold the text itself.
    pub escapes: bool,
    /// Other texts cells write an enum's values as (aliases, numbers), and the value.
    pub aliases: Vec<(String, std::sync::Arc<str>)>,
    /// Which texts a bool's cells may write besides TRUE, FALSE, 1 and 0
    /// (`bool_spellings`: the field's, else the project's).
    pub bool_spellings: BoolSpellings,
    /// What a datetime without an offset means in this field: the project's `timezone`.
    pub zone: crate::zone::Zone,
    /// Who may see it (`audience`; its table's when it names none).
    pub audience: crate::audience::Audiences,
    /// The cases whose rows fill it (`cases = ["item"]`: values of its table's
    /// `case_field`); a row of another case leaves it empty. Empty: every row's field.
    pub cases: Vec<std::sync::Arc<str>>,
}

/// A field whose `references` a field's values make: the field itself, or a field of
/// the records it holds (at `path`; of a union's `case` alone).
pub struct Referring<'f> {
    pub field: &'f Field,
    pub reference: &'f Reference,
    /// Where it is in the field's records and unions (empty: the field itself).
    pub path: Vec<Step<'f>>,
}

impl Field {
    /// Every field whose references this field's values make: its own, its records'
    /// fields', its union's cases' fields'.
    pub fn referring(&self) -> Vec<Referring<'_>> {
        let mut found: Vec<Referring<'_>> = Vec::new();
        if let Some(reference) = &self.references {
            found.push(Referring {
                field: self,
                reference,
                path: Vec::new(),
            });
        }
        for leaf in self.ty.leaves() {
            if let Some(field) = leaf.field
                && let Some(reference) = &field.references
            {
                found.push(Referring {
                    field,
                    reference,
                    path: leaf.path,
                });
            }
        }
        found
    }

    /// Each reference a value of this field makes — its own, and its records' fields'
    /// (`costs.item_id`) — with the values it refers with (none when it has none).
    pub fn references_of<'f, 'v>(
        &'f self,
        value: &'v Value,
    ) -> Vec<(&'f Reference, Vec<&'v Value>)> {
        self.referring()
            .into_iter()
            .map(|r| {
                let mut values = Vec::new();
                referring_values(value, &r.path, &mut values);
                (r.reference, values)
            })
            .collect()
    }
}

/// The values a field's value refers with at `path` in its records and unions (the
/// empty path: a single value, a list's elements, a map's keys; else the value at
/// `path` of the record or union, of a list's, of a map's values — through a union, of
/// the case the path names alone), nulls left out.
pub fn referring_values<'v>(value: &'v Value, path: &[Step<'_>], out: &mut Vec<&'v Value>) {
    let at = |record: &'v Value, out: &mut Vec<&'v Value>| {
        out.extend(record.at(path).filter(|v| !v.is_null()));
    };
    match (value, path.is_empty()) {
        (Value::Null, _) => {}
        (Value::List(items), true) => out.extend(items.iter()),
        (Value::Map(entries), true) => out.extend(entries.iter().map(|(k, _)| k)),
        (single, true) => out.push(single),
        (Value::List(items), false) => items.iter().for_each(|v| at(v, out)),
        (Value::Map(entries), false) => entries.iter().for_each(|(_, v)| at(v, out)),
        (single, false) => at(single, out),
    }
}

/// Which texts a bool's cells may write, besides `TRUE`, `FALSE`, `1` and `0` in any
/// letter case. Canonical files always write `true` and `false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoolSpellings {
    /// No others.
    #[default]
    Plain,
    /// What Luban's reader takes too: `y` and `yes`, `n` and `no`, in any letter case
    /// (`bool_spellings = "luban"`, which `migrate luban` writes).
    Luban,
}

impl BoolSpellings {
    /// The spelling as `bool_spellings` takes it.
    pub fn parse(text: &str) -> Option<BoolSpellings> {
        match text {
            "plain" => Some(BoolSpellings::Plain),
            "luban" => Some(BoolSpellings::Luban),
            _ => None,
        }
    }

    /// The value a cell's text spells beyond the plain spellings, if it spells one.
    pub fn read(self, text: &str) -> Option<bool> {
        let text = text.trim();
        match self {
            BoolSpellings::Plain => None,
            BoolSpellings::Luban => {
                let is = |word: &str| text.eq_ignore_ascii_case(word);
                match () {
                    () if is("y") || is("yes") => Some(true),
                    () if is("n") || is("no") => Some(false),
                    () => None,
                }
            }
        }
    }

    /// What a cell may write, as said to a planner.
    pub fn described(self) -> &'static str {
        match self {
            BoolSpellings::Plain => "TRUE or FALSE",
            BoolSpellings::Luban => "TRUE or FALSE (or 1 and 0, y and n, yes and no)",
        }
    }
}

impl Field {
    /// Whether the field is read from several columns of a row (a list over repeated
    /// headers, or over the columns its header spans).
    pub fn spread_over_columns(&self) -> bool {
        (self.repeated_header || self.column_span > 1) && self.element_over_columns().is_none()
    }

    /// The separator that joins the parts of one record or union spread over the
    /// columns its header spans (`column_span`: Luban's polymorphic bean over `circle`,
    /// `1.5`, …): the field's own value, or one element a row of a multi-row list;
    /// `None` for every other field.
    pub fn element_over_columns(&self) -> Option<&str> {
        if self.column_span < 2 {
            return None;
        }
        match &self.ty {
            FieldType::List(element) if self.multi_row => element.parts_separator(),
            FieldType::List(_) => None,
            ty => ty.parts_separator(),
        }
    }

    /// A field is required unless it is optional or has a default, or is filled by the
    /// rows of some cases only (then [`Field::required_in`] says which).
    pub fn required(&self) -> bool {
        !self.optional && self.default.is_none() && self.cases.is_empty()
    }

    /// Whether a row of `case` fills this field.
    pub fn in_case(&self, case: &str) -> bool {
        self.cases.is_empty() || self.cases.iter().any(|c| &**c == case)
    }

    /// Whether a row of `case` must fill this field.
    pub fn required_in(&self, case: &str) -> bool {
        !self.optional && self.default.is_none() && self.in_case(case)
    }

    /// Whether a header cell (trimmed) names this field: its name or a `column` spelling.
    pub fn is_headed(&self, header: &str) -> bool {
        self.name == header || self.columns.iter().any(|c| c == header)
    }

    /// Its name, and its other spellings in parentheses: `item_id (アイテムID)`, or
    /// `reward_count (1 right of reward)`.
    pub fn header_names(&self) -> String {
        match (self.columns.as_slice(), self.column_offset) {
            ([], _) => self.name.clone(),
            (spellings, 0) => format!("{} ({})", self.name, spellings.join(", ")),
            (spellings, n) => format!("{} ({n} right of {})", self.name, spellings.join(", ")),
        }
    }
}

/// `references = "table.field"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub table: String,
    pub field: String,
}

impl std::fmt::Display for Reference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.table, self.field)
    }
}

/// The types a field may have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldType {
    Int,
    Float,
    Bool,
    String,
    /// Localized text: lives in language tables, not in `tables/`.
    Text,
    Enum,
    Date,
    DateTime,
    List(Box<FieldType>),
    /// `map<K, V>`: keys of `K` (int, string, enum or bool), each with a value of `V`
    /// (a scalar or a record); written `k:v|k:v`, canonical sorted by key.
    Map(Box<FieldType>, Box<FieldType>),
    /// A record type's name (`item_cost`): its fields in one cell (`20001,1`).
    Record(std::sync::Arc<RecordType>),
    /// A union type's name (`shape`): one of its cases, named first in the cell, then
    /// that case's record (`circle:1.5`).
    Union(std::sync::Arc<UnionType>),
}

/// A union type (`kind = "union"`): cases, each a record type, of which a cell holds
/// one — its name first, then the record's parts, separated by the union's
/// `separator` (`triangle:1:2:3`, `circle:1.5`; Luban's polymorphic bean in one cell).
#[derive(Debug)]
pub struct UnionType {
    pub name: String,
    pub description: Option<String>,
    pub separator: std::sync::Arc<str>,
    pub cases: Vec<UnionCase>,
    pub file: PathBuf,
}

/// A case of a union: its record type, and the other texts a cell may name it by
/// (`Triangle`, `三角形`); canonical files name it by its record's name.
#[derive(Debug)]
pub struct UnionCase {
    pub record: std::sync::Arc<RecordType>,
    pub names: Vec<String>,
}

/// A single value a record or union holds, as the build keeps it in a column of its
/// own: a field of one value, or the case of a union.
#[derive(Debug, Clone)]
pub struct Leaf<'t> {
    /// Where it is, from the record or union value.
    pub path: Vec<Step<'t>>,
    /// The names on the way to it (a record's field by its name, a union's case by its
    /// record's): what its column is called under the field's.
    pub names: Vec<&'t str>,
    /// The field it is; `None` for the case of the union at `path`.
    pub field: Option<&'t Field>,
}

impl<'t> Leaf<'t> {
    /// The leaf one step further in: below `step`, named `name` there.
    fn under(mut self, step: Step<'t>, name: &'t str) -> Self {
        self.path.insert(0, step);
        self.names.insert(0, name);
        self
    }
}

impl UnionType {
    /// Its single values: its case, then each case's record's leaves (below the case).
    pub fn leaves(&self) -> Vec<Leaf<'_>> {
        let case = Leaf {
            path: Vec::new(),
            names: Vec::new(),
            field: None,
        };
        let cases = self.cases.iter().flat_map(|c| {
            let name = c.record.name.as_str();
            (c.record.leaves().into_iter()).map(move |leaf| leaf.under(Step::Case(name), name))
        });
        std::iter::once(case).chain(cases).collect()
    }

    /// The case a cell's first part names (its record's name, or one of its names).
    pub fn case(&self, named: &str) -> Option<&UnionCase> {
        let named = named.trim();
        self.cases
            .iter()
            .find(|c| c.record.name == named || c.names.iter().any(|n| n == named))
    }

    /// How its cells are written (`triangle:a:b:c`, `circle:radius`).
    pub fn layout(&self) -> String {
        let cases: Vec<String> = self
            .cases
            .iter()
            .map(|c| format!("{}{}{}", c.record.name, self.separator, c.record.layout()))
            .collect();
        cases.join(" or ")
    }
}

/// Two union types are one when they have one name (a project names each once).
impl PartialEq for UnionType {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for UnionType {}

/// A record type (`kind = "record"`): named fields written together in one cell,
/// separated by its `separator` (`item_id,count`: `20001,1`), in the sheets and in
/// canonical files alike. A field of another record type whose separator is the same
/// goes on in the same parts (its fields follow on, as Luban reads a bean in a bean);
/// one whose separator differs takes one part, split at its own separator
/// (`10:00:00;12:00:00`).
#[derive(Debug)]
pub struct RecordType {
    pub name: String,
    pub description: Option<String>,
    pub separator: std::sync::Arc<str>,
    /// Its fields: a scalar, a record or a union each, with their options (`optional`,
    /// `default`, `min`, `values`, `references`...).
    pub fields: Vec<Field>,
    /// Texts a cell may write before its parts, naming its type (`names = ["{}",
    /// "vec3"]`: Luban's optional bean written `vec3,1,2,3`); not kept.
    pub names: Vec<String>,
    pub file: PathBuf,
}

impl RecordType {
    /// How many parts a cell of it has: its fields', a record field of the same
    /// separator counting its own; `None` when that depends on the cell (a union of its
    /// separator in it: its case's name, then as many parts as that case has).
    pub fn parts(&self) -> Option<usize> {
        self.fields
            .iter()
            .map(|f| match &f.ty {
                FieldType::Record(inner) if inner.separator == self.separator => inner.parts(),
                FieldType::Union(union) if union.separator == self.separator => None,
                _ => Some(1),
            })
            .sum()
    }

    /// Its single values, nested records and unions opened (every one, whatever its
    /// separator), in order: each field of one value, and each union's case.
    pub fn leaves(&self) -> Vec<Leaf<'_>> {
        let mut found = Vec::new();
        for (at, field) in self.fields.iter().enumerate() {
            let inner = match &field.ty {
                FieldType::Record(inner) => inner.leaves(),
                FieldType::Union(inner) => inner.leaves(),
                _ => vec![Leaf {
                    path: Vec::new(),
                    names: Vec::new(),
                    field: Some(field),
                }],
            };
            found.extend(
                inner
                    .into_iter()
                    .map(|leaf| leaf.under(Step::Field(at), &field.name)),
            );
        }
        found
    }

    /// Its parts' names as a cell writes them (`item_id,count`; a record field of the
    /// same separator by its own parts' names).
    pub fn layout(&self) -> String {
        let mut names = Vec::new();
        for field in &self.fields {
            match &field.ty {
                FieldType::Record(inner) if inner.separator == self.separator => {
                    names.push(inner.layout())
                }
                _ => names.push(field.name.clone()),
            }
        }
        names.join(&self.separator)
    }
}

/// Two record types are one when they have one name (a project names each once).
impl PartialEq for RecordType {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for RecordType {}

impl FieldType {
    /// The separator between a record's or a union's parts in one cell; `None` for a
    /// type of no parts.
    pub fn parts_separator(&self) -> Option<&str> {
        match self {
            FieldType::Record(record) => Some(&record.separator),
            FieldType::Union(union) => Some(&union.separator),
            _ => None,
        }
    }

    /// `int`, `list<enum>`, ... as written in schemas.
    pub fn parse(text: &str) -> Option<FieldType> {
        FieldType::parse_in(text, &|_| None)
    }

    /// [`FieldType::parse`], a name that is no built-in type looked up among the
    /// project's record and union types (`item_cost`, `list<item_cost>`, `map<int,
    /// shape>`): `named` gives the type a name is.
    pub fn parse_in(text: &str, records: &dyn Fn(&str) -> Option<FieldType>) -> Option<FieldType> {
        let text = text.trim();
        if let Some(inner) = text.strip_prefix("list<").and_then(|t| t.strip_suffix('>')) {
            let inner = FieldType::parse_in(inner, records)?;
            return match inner {
                FieldType::List(_) | FieldType::Map(..) | FieldType::Text => None,
                scalar => Some(FieldType::List(Box::new(scalar))),
            };
        }
        if let Some(inner) = text.strip_prefix("map<").and_then(|t| t.strip_suffix('>')) {
            let (key, value) = inner.split_once(',')?;
            let key = FieldType::parse(key)?;
            let value = FieldType::parse_in(value, records)?;
            let key_fits = matches!(
                key,
                FieldType::Int | FieldType::String | FieldType::Enum | FieldType::Bool
            );
            let value_fits = !matches!(
                value,
                FieldType::List(_) | FieldType::Map(..) | FieldType::Text
            );
            // One field has one list of enum values: the key's or the value's.
            let one_enum = !(key == FieldType::Enum && value == FieldType::Enum);
            return (key_fits && value_fits && one_enum)
                .then(|| FieldType::Map(Box::new(key), Box::new(value)));
        }
        Some(match text {
            "int" => FieldType::Int,
            "float" => FieldType::Float,
            "bool" => FieldType::Bool,
            "string" => FieldType::String,
            "text" => FieldType::Text,
            "enum" => FieldType::Enum,
            "date" => FieldType::Date,
            "datetime" => FieldType::DateTime,
            name => records(name)?,
        })
    }

    /// The union type it holds: itself, a list's elements, a map's values.
    pub fn union(&self) -> Option<&std::sync::Arc<UnionType>> {
        match self.scalar() {
            FieldType::Union(union) => Some(union),
            _ => None,
        }
    }

    /// The single values of the record or union it holds (itself, a list's elements, a
    /// map's values), each in a column of its own in the build; none for other types.
    pub fn leaves(&self) -> Vec<Leaf<'_>> {
        match self.scalar() {
            FieldType::Record(record) => record.leaves(),
            FieldType::Union(union) => union.leaves(),
            _ => Vec::new(),
        }
    }

    /// The record type it holds: itself, a list's elements, a map's values.
    pub fn record(&self) -> Option<&std::sync::Arc<RecordType>> {
        match self.scalar() {
            FieldType::Record(record) => Some(record),
            _ => None,
        }
    }

    pub fn is_numeric(&self) -> bool {
        matches!(self, FieldType::Int | FieldType::Float)
    }

    /// Whether `min`/`max` apply to the value itself (numbers, dates).
    pub fn is_ordered_scalar(&self) -> bool {
        matches!(
            self,
            FieldType::Int | FieldType::Float | FieldType::Date | FieldType::DateTime
        )
    }

    /// Whether `min_length`/`max_length`/`pattern` apply (text-like values).
    pub fn is_textual(&self) -> bool {
        matches!(self, FieldType::String | FieldType::Text | FieldType::Enum)
    }

    /// The element type of a list, a map's value type, or the type itself.
    pub fn scalar(&self) -> &FieldType {
        match self {
            FieldType::List(inner) | FieldType::Map(_, inner) => inner,
            other => other,
        }
    }

    /// The type of the values a `references` checks: a list's elements, a map's keys.
    pub fn referenced(&self) -> &FieldType {
        match self {
            FieldType::Map(key, _) => key,
            other => other.scalar(),
        }
    }

    /// A map's key type.
    pub fn map_key(&self) -> Option<&FieldType> {
        match self {
            FieldType::Map(key, _) => Some(key),
            _ => None,
        }
    }

    /// Whether a field of this type holds an enum value somewhere: itself, its
    /// elements, a map's keys or values.
    pub fn holds_enum(&self) -> bool {
        self.scalar() == &FieldType::Enum || self.map_key() == Some(&FieldType::Enum)
    }
}

impl std::fmt::Display for FieldType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldType::Int => f.write_str("int"),
            FieldType::Float => f.write_str("float"),
            FieldType::Bool => f.write_str("bool"),
            FieldType::String => f.write_str("string"),
            FieldType::Text => f.write_str("text"),
            FieldType::Enum => f.write_str("enum"),
            FieldType::Date => f.write_str("date"),
            FieldType::DateTime => f.write_str("datetime"),
            FieldType::List(inner) => write!(f, "list<{inner}>"),
            FieldType::Map(key, value) => write!(f, "map<{key}, {value}>"),
            FieldType::Record(record) => f.write_str(&record.name),
            FieldType::Union(union) => f.write_str(&union.name),
        }
    }
}

/// `[[indexes]]`: a secondary index built into the runtime archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    pub fields: Vec<usize>,
    pub unique: bool,
    pub order_by: Vec<usize>,
}

/// A master computed from other tables on every import.
#[derive(Debug, Clone)]
pub struct GeneratedSchema {
    pub name: String,
    pub description: Option<String>,
    pub kind: GeneratedKind,
    /// Who may see it (`audience`; by default, everyone who sees all it is made from).
    pub audience: crate::audience::Audiences,
    pub file: PathBuf,
}

#[derive(Debug, Clone, PartialEq)]
pub enum GeneratedKind {
    Reverse(Reverse),
    Custom(Custom),
}

/// `[reverse]`: for each row of `target`, which rows of the sources point at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reverse {
    pub target: String,
    pub sources: Vec<ReverseSource>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReverseSource {
    pub table: String,
    /// The source field holding the target's key.
    pub field: String,
    /// Extra source columns copied into each output row.
    pub columns: Vec<String>,
}

/// `[custom]`: a precomputed view of one table.
#[derive(Debug, Clone, PartialEq)]
pub struct Custom {
    pub table: String,
    pub kind: CustomKind,
}

impl CustomKind {
    /// The fields of its table a custom master reads (besides the primary key).
    pub fn fields(&self) -> Vec<&str> {
        match self {
            CustomKind::Group { group_by, order_by } => group_by
                .iter()
                .chain(order_by)
                .map(String::as_str)
                .collect(),
            CustomKind::Weighted { group_by, weight } => group_by
                .iter()
                .map(String::as_str)
                .chain([weight.as_str()])
                .collect(),
            CustomKind::Matrix {
                row, column, value, ..
            } => vec![row.as_str(), column.as_str(), value.as_str()],
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum CustomKind {
    /// Rows grouped by key fields, ordered by others inside each group.
    Group {
        group_by: Vec<String>,
        order_by: Vec<String>,
    },
    /// Cumulative weights per group, for O(log n) weighted draws.
    Weighted {
        group_by: Vec<String>,
        weight: String,
    },
    /// A dense table over two enum fields.
    Matrix {
        row: String,
        column: String,
        value: String,
        default: Option<Value>,
    },
}
