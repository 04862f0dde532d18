//! Exchange files: what translators receive and hand back, in the formats their tools
//! read — XLIFF 1.2, gettext PO, and CSV for spreadsheets.
//!
//! Every unit carries its id (`table/field/key`, see [`UnitId`]), the source text, the
//! current translation if any, the field's `max_length` and description, and for stale
//! units the old source and the translation made from it. A unit whose translation is
//! not confirmed yet (stale or failing: PO `#, fuzzy`, XLIFF
//! `state="needs-review-translation"`) comes back unconfirmed unless the translator
//! confirms it, and unconfirmed units are not taken.

pub mod csv;
pub mod po;
pub mod xliff;

use std::path::Path;

use masterctl_schemas::{Code, Diagnostic, Location};

use crate::units::{Unit, UnitId};

/// An exchange format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Xliff,
    Po,
    Csv,
}

impl Format {
    pub fn parse(name: &str) -> Option<Format> {
        match name {
            "xliff" | "xlf" => Some(Format::Xliff),
            "po" => Some(Format::Po),
            "csv" => Some(Format::Csv),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Xliff => "xliff",
            Format::Po => "po",
            Format::Csv => "csv",
        }
    }

    /// The format of a file, from its content: XML is XLIFF; `msgid` entries are PO;
    /// anything else is read as CSV.
    pub fn detect(bytes: &[u8]) -> Format {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
        let text = text.trim_start_matches('\u{FEFF}').trim_start();
        if text.starts_with("<?xml") || text.starts_with("<xliff") {
            return Format::Xliff;
        }
        let po = text.lines().any(|line| {
            let line = line.trim_start();
            line.starts_with("msgid ") || line.starts_with("msgctxt ")
        });
        if po { Format::Po } else { Format::Csv }
    }
}

/// What an export says about itself.
#[derive(Debug, Clone)]
pub struct ExportInfo<'a> {
    pub region: &'a str,
    pub source_language: &'a str,
    pub language: &'a str,
    /// The commit the units were read from, and its time (seconds since 1970, UTC):
    /// the same commit always gives the same file.
    pub commit: &'a str,
    pub commit_time: i64,
}

/// Write units in a format. Only CSV can fail: a record of another length than the
/// header's (which the csv crate refuses) is an error, never a file missing rows.
pub fn write(
    format: Format,
    units: &[&Unit<'_>],
    info: &ExportInfo<'_>,
) -> Result<Vec<u8>, ::csv::Error> {
    match format {
        Format::Xliff => Ok(xliff::write(units, info)),
        Format::Po => Ok(po::write(units, info)),
        Format::Csv => csv::write(units, info),
    }
}

/// One unit as a translator handed it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnedUnit {
    pub id: UnitId,
    /// The source text the translator saw, when the file carries it.
    pub source: Option<String>,
    /// The translation; `None` or empty when there is none.
    pub translation: Option<String>,
    /// Whether the translator confirmed the translation (not fuzzy, not needing review).
    pub confirmed: bool,
    /// Where the unit starts in the file (1-based line).
    pub line: u64,
}

/// An exchange file, read.
#[derive(Debug, Clone)]
pub struct ExchangeFile {
    pub format: Format,
    /// The target language the file declares (XLIFF `target-language`, PO `Language`,
    /// the CSV's `translation_<lang>` column).
    pub language: Option<String>,
    pub units: Vec<ReturnedUnit>,
}

/// Read an exchange file of any format (detected from its content). Errors say where.
pub fn read(bytes: &[u8], path: &Path) -> Result<ExchangeFile, Vec<Diagnostic>> {
    let format = Format::detect(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        vec![syntax(
            path,
            line_of(bytes, e.valid_up_to()),
            "the file is not UTF-8 text",
        )]
    })?;
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let (language, units) = match format {
        Format::Xliff => xliff::read(text, path)?,
        Format::Po => po::read(text, path)?,
        Format::Csv => csv::read(text, path)?,
    };
    Ok(ExchangeFile {
        format,
        language,
        units,
    })
}

/// An `exchange-syntax` diagnostic at a line of a file.
pub(crate) fn syntax(path: &Path, line: u64, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(
        Code::ExchangeSyntax,
        Location {
            line: Some(line),
            ..Location::file(path)
        },
        message,
    )
}

/// The 1-based line of a byte offset.
pub(crate) fn line_of(bytes: &[u8], offset: usize) -> u64 {
    Lines::default().line(bytes, offset)
}

/// Lines of offsets met in increasing order, counted once over the whole file.
#[derive(Default)]
pub(crate) struct Lines {
    offset: usize,
    line: u64,
}

impl Lines {
    pub(crate) fn line(&mut self, bytes: &[u8], offset: usize) -> u64 {
        let offset = offset.min(bytes.len());
        if offset < self.offset {
            *self = Lines::default();
        }
        self.line += bytes[self.offset..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64;
        self.offset = offset;
        self.line + 1
    }
}

/// Notes for a unit that needs work: its problems, and what the source was.
pub(crate) fn problems(unit: &Unit<'_>) -> Option<String> {
    if unit.failures.is_empty() && unit.warnings.is_empty() {
        return None;
    }
    Some(
        unit.failures
            .iter()
            .chain(&unit.warnings)
            .map(|f| f.message())
            .collect::<Vec<_>>()
            .join("; "),
    )
}

/// The glossary terms a unit's source holds, with their approved translations, for a
/// translator's notes (`剣 → sword; Excalibur (do not translate)`).
pub(crate) fn glossary(unit: &Unit<'_>) -> Option<String> {
    (!unit.glossary.is_empty()).then(|| unit.glossary.join("; "))
}
