//! The terms of a glossary table (`glossary = true`): each one a term, none twice. A
//! term of nothing but spaces finds nothing; two terms that differ only in case,
//! spacing or punctuation between words are the same term to the checks (Latin script
//! is matched ignoring case), and would give a translator two approved translations.

use std::collections::HashMap;

use crate::diagnostic::{Code, Diagnostic, Report};
use crate::schema::TableSchema;
use crate::table::Table;
use crate::value::Value;

/// Every blank term and every term that repeats another, naming both rows.
pub(crate) fn check_terms(schema: &TableSchema, table: &Table, report: &mut Report) {
    let Some(field) = schema.field_index("term") else {
        return;
    };
    let mut first: HashMap<String, usize> = HashMap::new();
    for (row, value) in table.columns[field].iter().enumerate() {
        let Value::Str(term) = value else {
            continue; // an empty key cell is reported as required
        };
        let location = || table.cell_location(row, field, "term");
        let Some(identity) = identity(term) else {
            report.push(
                Diagnostic::new(Code::Required, location(), "a glossary term of only spaces")
                    .found(format!("{term:?}"))
                    .expected("the term, as the source texts write it"),
            );
            continue;
        };
        match first.get(&identity) {
            Some(&at) => {
                let place = table.cell_location(at, field, "term").place();
                let other = table.value(at, field).to_string();
                report.push(
                    Diagnostic::new(
                        Code::DuplicateKey,
                        location(),
                        format!("glossary term {term:?} is the term {other:?} at {place} again (the checks ignore case and the spacing between words)"),
                    )
                    .found(term.to_string())
                    .expected("each term once, with one approved translation")
                    .hint(format!("merge this row into the one at {place}")),
                );
            }
            None => {
                first.insert(identity, row);
            }
        }
    }
}

/// What the glossary checks see of a term: its words lower-cased, one space between
/// them (a term without letters or digits: itself, trimmed). None for a blank term.
fn identity(term: &str) -> Option<String> {
    let words: Vec<String> = term
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    match words.is_empty() {
        true => Some(term.trim().to_string()).filter(|t| !t.is_empty()),
        false => Some(words.join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::identity;

    #[test]
    fn a_terms_identity_ignores_case_and_spacing() {
        assert_eq!(identity("Iron  Sword").as_deref(), Some("iron sword"));
        assert_eq!(identity("iron-sword"), identity("Iron Sword"));
        assert_eq!(identity(" 鉄の剣 ").as_deref(), Some("鉄の剣"));
        assert_eq!(identity("★★").as_deref(), Some("★★"));
        assert_eq!(identity("  "), None);
    }
}
