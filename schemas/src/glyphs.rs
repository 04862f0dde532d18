//! Source texts against the fonts of the source language (`[fonts]`): a character no
//! font has a glyph for is a warning (`missing-glyph`) at the first cell using it,
//! naming the character, its code point, the fonts and how many texts use it.

use crate::diagnostic::{Code, Diagnostic, Location, Severity};
use crate::fonts::Coverage;
use crate::schema::{FieldType, Project, TableSchema};
use crate::table::Table;
use crate::value::Value;
use masterctl_runtime::parallel::parallel_map;

/// Every character of the tables' source texts the source language's fonts lack (none
/// when `[fonts]` names none for it): one warning per character, at the first cell that
/// uses it, counting the texts that do.
pub fn check_glyphs(project: &Project, tables: &[(&Table, &TableSchema)]) -> Vec<Diagnostic> {
    let language = &project.config.source_language;
    let Some(coverage) = project.config.fonts.get(language) else {
        return Vec::new();
    };
    let per_table = parallel_map(tables, |(table, schema)| {
        table_glyphs(table, schema, coverage)
    });
    // Each character once, at its first use in table order.
    let mut found: Vec<Missing> = Vec::new();
    let mut at: std::collections::HashMap<char, usize> = std::collections::HashMap::new();
    for missing in per_table.into_iter().flatten() {
        match at.get(&missing.character) {
            Some(&i) => found[i].texts += missing.texts,
            None => {
                at.insert(missing.character, found.len());
                found.push(missing);
            }
        }
    }
    found
        .into_iter()
        .map(|missing| {
            let uses = match missing.texts {
                1 => String::new(),
                n => format!("; {n} texts use it"),
            };
            let mut d = Diagnostic::new(
                Code::MissingGlyph,
                missing.location,
                format!("{}{uses}", missing_glyph(missing.character, language, coverage)),
            )
            .found(missing.text)
            .hint("use another character, or add the glyph to the font (a subset font: add the character to its character set, `masterctl l10n charset`)");
            d.severity = Severity::Warning;
            d
        })
        .collect()
}

/// A character the fonts lack: where it is first used, and by how many texts.
struct Missing {
    character: char,
    location: Location,
    text: String,
    texts: usize,
}

fn table_glyphs(table: &Table, schema: &TableSchema, coverage: &Coverage) -> Vec<Missing> {
    let mut found: Vec<Missing> = Vec::new();
    let mut at: std::collections::HashMap<char, usize> = std::collections::HashMap::new();
    for (index, field) in schema.fields.iter().enumerate() {
        if field.ty != FieldType::Text {
            continue;
        }
        for (row, value) in table.columns[index].iter().enumerate() {
            let Value::Str(text) = value else {
                continue;
            };
            for c in coverage.missing(text) {
                match at.get(&c) {
                    Some(&i) => found[i].texts += 1,
                    None => {
                        at.insert(c, found.len());
                        found.push(Missing {
                            character: c,
                            location: table.cell_location(row, index, &field.name),
                            text: text.to_string(),
                            texts: 1,
                        });
                    }
                }
            }
        }
    }
    found
}

/// `` `鑓` (U+9453) is not in the fonts of ja (fonts/a.otf, fonts/b.otf) ``.
pub fn missing_glyph(c: char, language: &str, coverage: &Coverage) -> String {
    format!(
        "`{c}` (U+{:04X}) is not in the fonts of {language} ({})",
        c as u32,
        coverage.files.join(", ")
    )
}
