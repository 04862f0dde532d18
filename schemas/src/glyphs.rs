//! Source texts against the fonts of the source language (`[fonts]`): a character no
//! font has a glyph for is a warning at its cell (`missing-glyph`), naming the
//! character, its code point and the font.

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::fonts::Coverage;
use crate::schema::{FieldType, Project, TableSchema};
use crate::table::Table;
use crate::value::Value;
use masterctl_runtime::parallel::parallel_map;

/// Every character of the tables' source texts the source language's fonts lack (none
/// when `[fonts]` names none for it).
pub fn check_glyphs(project: &Project, tables: &[(&Table, &TableSchema)]) -> Vec<Diagnostic> {
    let language = &project.config.source_language;
    let Some(coverage) = project.config.fonts.get(language) else {
        return Vec::new();
    };
    parallel_map(tables, |(table, schema)| {
        table_glyphs(table, schema, language, coverage)
    })
    .into_iter()
    .flatten()
    .collect()
}

fn table_glyphs(
    table: &Table,
    schema: &TableSchema,
    language: &str,
    coverage: &Coverage,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for (index, field) in schema.fields.iter().enumerate() {
        if field.ty != FieldType::Text {
            continue;
        }
        for (row, value) in table.columns[index].iter().enumerate() {
            let Value::Str(text) = value else {
                continue;
            };
            for c in coverage.missing(text) {
                let mut d = Diagnostic::new(
                    Code::MissingGlyph,
                    table.cell_location(row, index, &field.name),
                    missing_glyph(c, language, coverage),
                )
                .found(text.to_string())
                .hint("use another character, or add the glyph to the font (a subset font: add the character to its character set, `masterctl l10n charset`)");
                d.severity = Severity::Warning;
                diagnostics.push(d);
            }
        }
    }
    diagnostics
}

/// `` `鑓` (U+9453) is not in the fonts of ja (fonts/a.otf, fonts/b.otf) ``.
pub fn missing_glyph(c: char, language: &str, coverage: &Coverage) -> String {
    format!(
        "`{c}` (U+{:04X}) is not in the fonts of {language} ({})",
        c as u32,
        coverage.files.join(", ")
    )
}
