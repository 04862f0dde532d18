//! CSV for translators who work in a spreadsheet: UTF-8 with a byte order mark and CRLF
//! (Excel opens it right), a row per unit.
//!
//! Columns: `table`, `field`, `key`, `state`, `max_length`, `description`,
//! `source_<lang>`, `translation_<lang>`, `old_source`, `old_translation`, `problems`,
//! `glossary`, `memory` (close matches, with their scores). A unit the translation
//! memory fills is `suggested`: taken back only once its state is changed.
//! The translation column is empty for units that need work; the translation they had
//! is in `old_translation`. Anything typed into `translation_<lang>` is a translation.
//!
//! Cells that a spreadsheet would run as formulas are neutralised by the one rule every
//! CSV a spreadsheet opens follows ([`masterctl_schemas::sheet_csv`]).

use std::path::Path;

use masterctl_schemas::Diagnostic;
use masterctl_schemas::read::csv::LineCounter;
use masterctl_schemas::sheet_csv::{self, restore};

use super::{ExportInfo, ReturnedUnit, glossary, problems, syntax};
use crate::units::{State, Unit, UnitId};

/// The state of a unit whose translation the memory suggests: not taken back until the
/// translator changes it (to `translated`, or clears it).
pub const SUGGESTED: &str = "suggested";

pub fn write(units: &[&Unit<'_>], info: &ExportInfo<'_>) -> Result<Vec<u8>, ::csv::Error> {
    let mut writer = sheet_csv::writer(64 + units.len() * 160);
    let source_column = format!("source_{}", info.source_language);
    let translation_column = format!("translation_{}", info.language);
    sheet_csv::write_record(
        &mut writer,
        &[
            "table",
            "field",
            "key",
            "state",
            "max_length",
            "description",
            &source_column,
            &translation_column,
            "old_source",
            "old_translation",
            "problems",
            "glossary",
            "memory",
        ],
    )?;
    for unit in units {
        // The memory's exact match fills a unit without translation, marked
        // `suggested`: it is taken back once the translator changes the state.
        let suggestion = unit.suggestion();
        let current = (unit.state == State::Translated)
            .then_some(unit.translation)
            .flatten()
            .or(suggestion);
        let state = match suggestion {
            Some(_) => SUGGESTED,
            None => unit.state.as_str(),
        };
        let memory: String = unit
            .close_matches()
            .map(|m| format!("{}% {}: {} → {}", m.score, m.from, m.source, m.translation))
            .collect::<Vec<_>>()
            .join("; ");
        let old = (unit.state != State::Translated)
            .then_some(unit.translation)
            .flatten();
        let max = unit.max_length.map(|m| m.to_string()).unwrap_or_default();
        let problems = problems(unit).unwrap_or_default();
        let glossary = glossary(unit).unwrap_or_default();
        let cells = [
            unit.table,
            unit.field,
            &unit.key_text(),
            state,
            &max,
            unit.description.unwrap_or(""),
            unit.source,
            current.unwrap_or(""),
            unit.old_source.as_ref().map_or("", |o| o.text.as_str()),
            old.unwrap_or(""),
            &problems,
            &glossary,
            &memory,
        ];
        sheet_csv::write_record(&mut writer, &cells)?;
    }
    sheet_csv::finish(writer)
}

/// The separator of a file: spreadsheets in many European locales save CSV with `;`,
/// some tools with tabs. Whichever of `,`, `;` and tab the header line holds most of.
fn delimiter(text: &str) -> u8 {
    let header = text.lines().next().unwrap_or("");
    [b',', b';', b'\t']
        .into_iter()
        .max_by_key(|&d| (header.bytes().filter(|&b| b == d).count(), d == b','))
        .unwrap_or(b',')
}

pub fn read(
    text: &str,
    path: &Path,
) -> Result<(Option<String>, Vec<ReturnedUnit>), Vec<Diagnostic>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter(text))
        .from_reader(text.as_bytes());
    let mut records = reader.records();
    let header = match records.next() {
        Some(Ok(header)) => header,
        Some(Err(e)) => return Err(vec![syntax(path, 1, format!("not readable as CSV: {e}"))]),
        None => return Err(vec![syntax(path, 1, "the file is empty")]),
    };
    let find = |name: &str| header.iter().position(|h| h.trim() == name);
    let starting = |prefix: &str| {
        header
            .iter()
            .enumerate()
            .find_map(|(i, h)| Some((i, h.trim().strip_prefix(prefix)?.to_string())))
            .filter(|(_, language)| !language.is_empty())
    };
    let (Some(table), Some(field), Some(key), Some((translation, language))) = (
        find("table"),
        find("field"),
        find("key"),
        starting("translation_"),
    ) else {
        return Err(vec![
            syntax(path, 1, "the header lacks columns of a translation file")
                .expected("table, field, key and translation_<language> (as exported)")
                .found(header.iter().collect::<Vec<_>>().join(",")),
        ]);
    };
    let source = starting("source_").map(|(i, _)| i);
    let state = find("state");
    let mut units = Vec::new();
    let mut errors = Vec::new();
    // Lines from byte offsets: the reader's own line count is one short in CRLF files.
    let mut lines = LineCounter::new(text.as_bytes());
    for record in records {
        let record = match record {
            Ok(record) => record,
            Err(e) => {
                let line = e.position().map_or(0, |p| lines.line_at(p.byte()));
                errors.push(syntax(path, line, format!("not readable as CSV: {e}")));
                continue;
            }
        };
        let line = record.position().map_or(0, |p| lines.line_at(p.byte()));
        let cell = |i: usize| restore(record.get(i).unwrap_or(""));
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let (table, field, key) = (cell(table), cell(field), cell(key));
        if table.is_empty() || field.is_empty() {
            errors.push(
                syntax(path, line, "a row without its table or field")
                    .hint("keep the table, field and key columns as exported"),
            );
            continue;
        }
        units.push(ReturnedUnit {
            id: UnitId {
                table: table.to_string(),
                field: field.to_string(),
                key: key.to_string(),
            },
            source: source.map(|i| cell(i).to_string()),
            translation: Some(cell(translation).to_string()).filter(|t| !t.is_empty()),
            // A memory's suggestion the translator left as it was is not confirmed.
            confirmed: state.is_none_or(|i| cell(i).trim() != SUGGESTED),
            line,
        });
    }
    if errors.is_empty() {
        Ok((Some(language), units))
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semicolon_and_tab_separated_files_read_too() {
        for separator in [";", "\t"] {
            let text = ["table", "field", "key", "translation_en"].join(separator)
                + "\n"
                + &["item", "name", "1", "Iron Sword, the first"].join(separator)
                + "\n";
            let (language, units) = read(&text, Path::new("x.csv")).unwrap();
            assert_eq!(language.as_deref(), Some("en"));
            assert_eq!(
                units[0].translation.as_deref(),
                Some("Iron Sword, the first")
            );
        }
    }

    #[test]
    fn errors_name_the_line_in_crlf_files_too() {
        for newline in ["\n", "\r\n"] {
            let text = [
                "\u{feff}table,field,key,translation_en",
                "item,name,1,Sword",
                ",name,2,Shield",
                "",
            ]
            .join(newline);
            let errors = read(&text, Path::new("x.csv")).unwrap_err();
            assert_eq!(errors[0].location.line, Some(3), "{newline:?}");
        }
    }
}
