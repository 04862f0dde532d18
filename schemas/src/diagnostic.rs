//! Diagnostics: every mistake found in schemas or data, as a value.
//!
//! Nothing in this crate prints. Readers, schema loading and validation collect
//! [`Diagnostic`]s — a stable code, where it happened (file, sheet, cell or line,
//! table, field), what was found, what was expected and a hint — and the binary decides
//! how to show them (coloured text or JSON).

use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// A stable, machine-readable name for a kind of mistake. The string forms are part of
/// the JSON contract and never change meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Code {
    /// A schema or `masterctl.toml` file is not valid TOML or not of the expected shape.
    SchemaSyntax,
    /// A schema uses an option or key that does not exist.
    UnknownOption,
    /// A field declares a type that does not exist.
    UnknownType,
    /// A name is not a plain identifier (`[a-z][a-z0-9_]*`).
    InvalidName,
    /// Two tables, fields, sheets or indexes share a name.
    DuplicateName,
    /// A schema refers to a table or field that does not exist, or is not usable there.
    InvalidReference,
    /// A schema option has a value that cannot work (min above max, bad pattern, ...).
    InvalidOption,
    /// A file could not be read at all (broken, encrypted, not a spreadsheet).
    UnreadableFile,
    /// A CSV file is not valid UTF-8.
    InvalidUtf8,
    /// A CSV file saved in GBK or Shift_JIS, read as such (a warning).
    Decoded,
    /// The same table is supplied by two sheets or files.
    DuplicateTable,
    /// A sheet or CSV file maps to no table of the schema (a warning).
    UnmappedSheet,
    /// Files and sheets `masterctl.toml`'s `[unread]` says no table reads — definition
    /// workbooks, notes sheets — named together, once (a warning).
    Unread,
    /// A sheet a table is read from that the workbook hides (or very hides: only a
    /// macro shows it): read like any other, and said (a warning).
    HiddenSheet,
    /// Nothing in the input maps to a table: a gate that read nothing must not pass.
    NothingMatched,
    /// A sheet or file has no header row.
    MissingHeader,
    /// A header names a column that is not a field of the table.
    UnknownColumn,
    /// A required field has no column in the header.
    MissingColumn,
    /// The same column appears twice in a header.
    DuplicateColumn,
    /// A cell holds a spreadsheet error value (`#VALUE!`, `#REF!`, ...).
    ErrorCell,
    /// A formula cell has no cached value (the file was saved without calculating).
    FormulaWithoutValue,
    /// A value is not of the field's type.
    TypeError,
    /// A required field is empty.
    Required,
    /// A row fills a field of other cases than its own (a table's `case_field`).
    OtherCase,
    /// A value is not one of the enum's values.
    EnumValue,
    /// A number is below `min` or above `max`.
    OutOfRange,
    /// A text is shorter than `min_length` or longer than `max_length`.
    Length,
    /// A text does not match the field's `pattern`.
    Pattern,
    /// Two rows share a value in a `unique` field.
    Unique,
    /// Two rows share a primary key.
    DuplicateKey,
    /// A value refers to a row that does not exist in the referenced table.
    ForeignKey,
    /// Foreign keys into a table not supplied could not be checked (a warning).
    UncheckedReference,
    /// A translation lacks a placeholder or tag of its source, or adds one.
    Placeholder,
    /// A translation holds a control or zero-width character.
    InvisibleCharacter,
    /// A cell's text holds a control character (other than line feed, carriage return
    /// and tab): no exchange format, XML above all, can carry it.
    ControlCharacter,
    /// A plural message lacks a branch its language needs, or has one it does not use.
    PluralForms,
    /// A translation is not a well-formed message (an unclosed `{`).
    MessageSyntax,
    /// An exchange file names a table, field or key that has no source text.
    UnknownUnit,
    /// An exchange file holds the same unit twice.
    DuplicateUnit,
    /// An exchange file is not valid XLIFF, PO or CSV of the expected shape.
    ExchangeSyntax,
    /// An exchange file is for another language than the one asked for.
    WrongLanguage,
    /// A unit's source text changed since it was exported: its translation is kept as
    /// stale (a warning).
    SourceChanged,
    /// A workbook `export` wrote changes a cell (or row) that also changed on the branch
    /// since the commit it was exported from, differently.
    ExportConflict,
    /// A workbook `export` wrote names a commit this repository cannot use as its base.
    ExportRecord,
    /// A font `[fonts]` names is missing or is not a font.
    BadFont,
    /// A text holds a character its language's fonts have no glyph for (an error for a
    /// translation taken, a warning for a source text validated).
    MissingGlyph,
    /// A translation lacks the approved translation of a glossary term its source holds,
    /// or a term not to be translated (a warning unless `[checks] glossary = "error"`).
    Glossary,
    /// The same source text translated differently in one language (a warning).
    Inconsistent,
}

impl Code {
    /// Every code, in the order they are declared.
    pub const ALL: [Code; 48] = [
        Code::SchemaSyntax,
        Code::UnknownOption,
        Code::UnknownType,
        Code::InvalidName,
        Code::DuplicateName,
        Code::InvalidReference,
        Code::InvalidOption,
        Code::UnreadableFile,
        Code::InvalidUtf8,
        Code::Decoded,
        Code::DuplicateTable,
        Code::UnmappedSheet,
        Code::Unread,
        Code::HiddenSheet,
        Code::NothingMatched,
        Code::MissingHeader,
        Code::UnknownColumn,
        Code::MissingColumn,
        Code::DuplicateColumn,
        Code::ErrorCell,
        Code::FormulaWithoutValue,
        Code::TypeError,
        Code::Required,
        Code::OtherCase,
        Code::EnumValue,
        Code::OutOfRange,
        Code::Length,
        Code::Pattern,
        Code::Unique,
        Code::DuplicateKey,
        Code::ForeignKey,
        Code::UncheckedReference,
        Code::Placeholder,
        Code::InvisibleCharacter,
        Code::ControlCharacter,
        Code::PluralForms,
        Code::MessageSyntax,
        Code::UnknownUnit,
        Code::DuplicateUnit,
        Code::ExchangeSyntax,
        Code::WrongLanguage,
        Code::SourceChanged,
        Code::ExportConflict,
        Code::ExportRecord,
        Code::BadFont,
        Code::MissingGlyph,
        Code::Glossary,
        Code::Inconsistent,
    ];

    /// The stable kebab-case name, as in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::SchemaSyntax => "schema-syntax",
            Code::UnknownOption => "unknown-option",
            Code::UnknownType => "unknown-type",
            Code::InvalidName => "invalid-name",
            Code::DuplicateName => "duplicate-name",
            Code::InvalidReference => "invalid-reference",
            Code::InvalidOption => "invalid-option",
            Code::UnreadableFile => "unreadable-file",
            Code::InvalidUtf8 => "invalid-utf8",
            Code::Decoded => "decoded",
            Code::DuplicateTable => "duplicate-table",
            Code::UnmappedSheet => "unmapped-sheet",
            Code::Unread => "unread",
            Code::HiddenSheet => "hidden-sheet",
            Code::NothingMatched => "nothing-matched",
            Code::MissingHeader => "missing-header",
            Code::UnknownColumn => "unknown-column",
            Code::MissingColumn => "missing-column",
            Code::DuplicateColumn => "duplicate-column",
            Code::ErrorCell => "error-cell",
            Code::FormulaWithoutValue => "formula-without-value",
            Code::TypeError => "type-error",
            Code::Required => "required",
            Code::OtherCase => "other-case",
            Code::EnumValue => "enum-value",
            Code::OutOfRange => "out-of-range",
            Code::Length => "length",
            Code::Pattern => "pattern",
            Code::Unique => "unique",
            Code::DuplicateKey => "duplicate-key",
            Code::ForeignKey => "foreign-key",
            Code::UncheckedReference => "unchecked-reference",
            Code::Placeholder => "placeholder",
            Code::InvisibleCharacter => "invisible-character",
            Code::ControlCharacter => "control-character",
            Code::PluralForms => "plural-forms",
            Code::MessageSyntax => "message-syntax",
            Code::UnknownUnit => "unknown-unit",
            Code::DuplicateUnit => "duplicate-unit",
            Code::ExchangeSyntax => "exchange-syntax",
            Code::WrongLanguage => "wrong-language",
            Code::SourceChanged => "source-changed",
            Code::ExportConflict => "export-conflict",
            Code::ExportRecord => "export-record",
            Code::BadFont => "bad-font",
            Code::MissingGlyph => "missing-glyph",
            Code::Glossary => "glossary",
            Code::Inconsistent => "inconsistent",
        }
    }

    /// Whether a diagnostic of this code rejects the data (or the schema).
    pub fn severity(self) -> Severity {
        match self {
            Code::UnmappedSheet
            | Code::Decoded
            | Code::Unread
            | Code::HiddenSheet
            | Code::UncheckedReference
            | Code::SourceChanged
            | Code::Glossary
            | Code::Inconsistent => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Errors reject the data; warnings are shown and let it through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// Where a diagnostic points. Every part is optional: a schema error has a file and a
/// line, a cell error has a workbook, a sheet and a cell, a CSV error a file and a line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Location {
    /// The workbook, CSV or schema file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// The sheet inside a workbook.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sheet: Option<String>,
    /// The cell in A1 form (`F6`), without the sheet name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<String>,
    /// The 1-based line in a CSV or TOML file (for CSV, the line where the record starts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The 1-based column in a TOML file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    /// The table the data belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// The field (column) of the table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The row's primary key (canonical values joined by `|`), where a row is meant
    /// but no cell of a spreadsheet can be named (a translation unit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

impl Location {
    pub fn file(path: &Path) -> Location {
        Location {
            file: Some(path.to_path_buf()),
            ..Location::default()
        }
    }

    /// `Item!F6` for a workbook cell, `items.csv:12` for a CSV line, `item.toml:3:5` for
    /// a schema position; the most precise place a person can go and look.
    pub fn place(&self) -> String {
        let file_name = self
            .file
            .as_deref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        match (&self.sheet, &self.cell, self.line) {
            (Some(sheet), Some(cell), _) => format!("{file_name} {}!{cell}", quote_sheet(sheet)),
            (Some(sheet), None, _) => format!("{file_name} {}", quote_sheet(sheet)),
            (None, _, Some(line)) => match self.column {
                Some(column) => format!("{file_name}:{line}:{column}"),
                None => format!("{file_name}:{line}"),
            },
            _ => file_name,
        }
    }
}

/// Sheet names with spaces or punctuation are quoted the way spreadsheets do (`'My Sheet'!A1`).
fn quote_sheet(sheet: &str) -> String {
    if sheet.chars().all(|c| c.is_alphanumeric() || c == '_') {
        sheet.to_string()
    } else {
        format!("'{}'", sheet.replace('\'', "''"))
    }
}

/// One mistake (or warning), fully described.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    #[serde(flatten)]
    pub location: Location,
    /// What went wrong, in a sentence.
    pub message: String,
    /// The value found, as the user wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
    /// What would have been accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// How to fix it ("did you mean `rare`?").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The values its sentence and hint are made of, by name (`case` = `below`, `limit`
    /// = `0`; a hint's kind as `hint` = `full-width`): a reader that says it in another
    /// language (the console's Japanese) puts them into its own words for the code.
    /// Not part of the JSON contract.
    #[serde(skip)]
    pub said: Vec<(&'static str, String)>,
}

/// The most characters a diagnostic quotes of what it found.
pub const MAX_QUOTE: usize = 200;

impl Diagnostic {
    pub fn new(code: Code, location: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.severity(),
            location,
            message: message.into(),
            found: None,
            expected: None,
            hint: None,
            said: Vec::new(),
        }
    }

    /// One of the values its sentence is made of ([`Diagnostic::said`]); a name given
    /// again takes the later value.
    pub fn arg(mut self, name: &'static str, value: impl Into<String>) -> Diagnostic {
        let value = value.into();
        match self.said.iter_mut().find(|(n, _)| *n == name) {
            Some((_, earlier)) => *earlier = value,
            None => self.said.push((name, value)),
        }
        self
    }

    /// The value of `name` among [`Diagnostic::said`].
    pub fn said(&self, name: &str) -> Option<&str> {
        (self.said.iter())
            .find(|(n, _)| *n == name)
            .map(|(_, value)| value.as_str())
    }

    /// What was found, quoted up to [`MAX_QUOTE`] characters (a diagnostic about a
    /// 100 MB cell or translation quotes its beginning and says how much more there is).
    pub fn found(mut self, found: impl Into<String>) -> Diagnostic {
        let found = found.into();
        self.found = Some(match found.char_indices().nth(MAX_QUOTE) {
            Some((end, _)) => {
                let more = found[end..].chars().count();
                format!("{}… ({more} more characters)", &found[..end])
            }
            None => found,
        });
        self
    }

    pub fn expected(mut self, expected: impl Into<String>) -> Diagnostic {
        self.expected = Some(expected.into());
        self
    }

    /// The hint "did you mean `similar`?", with its value for another language's words.
    pub fn did_you_mean(self, similar: impl Into<String>) -> Diagnostic {
        let similar = similar.into();
        self.hint(format!("did you mean `{similar}`?"))
            .arg("hint", "did-you-mean")
            .arg("similar", similar)
    }

    /// Add a hint; one added to a diagnostic that has one already follows it (`a; b`),
    /// so no hint is lost.
    pub fn hint(mut self, hint: impl Into<String>) -> Diagnostic {
        let hint = hint.into();
        self.hint = Some(match self.hint.take() {
            Some(earlier) if !earlier.is_empty() && earlier != hint => format!("{earlier}; {hint}"),
            _ => hint,
        });
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} [{}]",
            self.location.place(),
            self.message,
            self.code
        )
    }
}

/// The outcome of loading or validating: all diagnostics, errors and warnings together.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    pub fn extend(&mut self, diagnostics: impl IntoIterator<Item = Diagnostic>) {
        self.diagnostics.extend(diagnostics);
    }

    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    pub fn warning_count(&self) -> usize {
        self.diagnostics.len() - self.error_count()
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Diagnostics in reading order: by table, then file, sheet, row and column.
    pub fn sort(&mut self) {
        self.diagnostics.sort_by(|a, b| {
            let key = |d: &Diagnostic| {
                (
                    d.location.table.clone(),
                    d.location.file.clone(),
                    d.location.sheet.clone(),
                    d.location.line,
                    d.location.cell.as_deref().map(parse_a1),
                )
            };
            key(a).cmp(&key(b))
        });
    }
}

/// `F6` → (5, 5): an A1 cell reference as a 0-based row and column, the column's letters
/// in either case (as applications write them); `None` for anything else.
pub fn parse_a1(reference: &str) -> Option<(u32, u32)> {
    let letters = reference
        .bytes()
        .take_while(u8::is_ascii_alphabetic)
        .count();
    if letters == 0 {
        return None;
    }
    let column = reference.as_bytes()[..letters]
        .iter()
        .try_fold(0u32, |n, &b| {
            n.checked_mul(26)?
                .checked_add(u32::from(b.to_ascii_uppercase() - b'A') + 1)
        })?;
    let row = row_index(&reference[letters..])?;
    Some((row, column - 1))
}

/// A row number as written (1-based, digits only) as a 0-based row.
pub fn row_index(written: &str) -> Option<u32> {
    if written.is_empty() || !written.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    written.parse::<u32>().ok()?.checked_sub(1)
}

/// `0 → A`, `25 → Z`, `26 → AA`: spreadsheet column letters for a 0-based index.
pub fn column_letters(index: u32) -> String {
    let mut n = u64::from(index) + 1;
    let mut letters = Vec::new();
    while n > 0 {
        let rem = ((n - 1) % 26) as u8;
        letters.push(b'A' + rem);
        n = (n - 1) / 26;
    }
    letters.reverse();
    String::from_utf8(letters).unwrap_or_default()
}

/// A1 reference for a 0-based row and column.
pub fn a1(row: u32, column: u32) -> String {
    format!("{}{}", column_letters(column), u64::from(row) + 1)
}

/// A cell's place (0-based row, column) as applications name it (`B12`), or in words
/// past what A1 names reach.
pub(crate) fn cell_name(row: u64, column: u64) -> String {
    match (u32::try_from(row), u32::try_from(column)) {
        (Ok(row), Ok(column)) => a1(row, column),
        _ => format!("at row {}, column {}", row + 1, column + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_hint_follows_the_first() {
        let d = Diagnostic::new(Code::TypeError, Location::default(), "m")
            .hint("remove the thousands separators")
            .hint("the field is an int");
        assert_eq!(
            d.hint.as_deref(),
            Some("remove the thousands separators; the field is an int")
        );
        let same = Diagnostic::new(Code::TypeError, Location::default(), "m")
            .hint("a")
            .hint("a");
        assert_eq!(same.hint.as_deref(), Some("a"));
    }

    #[test]
    fn a_long_finding_is_quoted_in_part() {
        let long = "語".repeat(100_000);
        let d = Diagnostic::new(Code::Length, Location::file(std::path::Path::new("x")), "m")
            .found(long);
        let found = d.found.unwrap();
        assert!(found.starts_with(&"語".repeat(MAX_QUOTE)));
        assert!(found.ends_with("… (99800 more characters)"), "{found}");
        let short = Diagnostic::new(Code::Length, Location::file(std::path::Path::new("x")), "m")
            .found("abc");
        assert_eq!(short.found.as_deref(), Some("abc"));
    }

    #[test]
    fn column_letters_follow_spreadsheets() {
        assert_eq!(column_letters(0), "A");
        assert_eq!(column_letters(25), "Z");
        assert_eq!(column_letters(26), "AA");
        assert_eq!(column_letters(701), "ZZ");
        assert_eq!(column_letters(702), "AAA");
        assert_eq!(a1(5, 5), "F6");
    }

    #[test]
    fn cells_sort_by_row_then_column() {
        assert!(parse_a1("B2") < parse_a1("A3"));
        assert!(parse_a1("Z9") < parse_a1("AA9"));
    }

    #[test]
    fn cell_references_name_rows_and_columns_from_zero() {
        assert_eq!(parse_a1("A1"), Some((0, 0)));
        assert_eq!(parse_a1("F6"), Some((5, 5)));
        assert_eq!(parse_a1("AA1"), Some((0, 26)));
        assert_eq!(parse_a1("b12"), Some((11, 1)));
        assert_eq!(parse_a1("XFD1048576"), Some((1_048_575, 16_383)));
        for bad in [
            "",
            "A",
            "1",
            "6",
            "A0",
            "A-1",
            "A1B",
            "ZZZZZZZZ1",
            "A99999999999",
        ] {
            assert_eq!(parse_a1(bad), None, "{bad}");
        }
    }

    #[test]
    fn places_read_like_spreadsheets() {
        let mut location = Location::file(Path::new("items.xlsx"));
        location.sheet = Some("Item".into());
        location.cell = Some("F6".into());
        assert_eq!(location.place(), "items.xlsx Item!F6");
        location.sheet = Some("My Items".into());
        assert_eq!(location.place(), "items.xlsx 'My Items'!F6");
        let csv = Location {
            line: Some(12),
            ..Location::file(Path::new("Item.csv"))
        };
        assert_eq!(csv.place(), "Item.csv:12");
    }
}
