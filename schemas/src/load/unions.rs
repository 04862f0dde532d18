//! Union types (`kind = "union"` schemas): cases, each a record type, of which a cell
//! holds one — its name, then its record's parts. Built once the records are.

use std::collections::HashSet;
use std::sync::Arc;

use toml::Spanned;

use crate::diagnostic::Code;
use crate::schema::{UnionCase, UnionType};

use super::records::DEFAULT_SEPARATOR;

use super::*;

/// Whether a schema declares a union type.
pub(super) fn is_union(raw: &RawSchema) -> bool {
    raw.kind.as_ref().is_some_and(|k| k.get_ref() == "union")
}

impl Builder {
    /// Every union schema of `unions` as a [`UnionType`] in `self.unions`; `taken` are
    /// the tables' and records' names, which a union may not take.
    pub(super) fn build_unions(
        &mut self,
        unions: &[(SourceText, RawSchema)],
        taken: &HashSet<String>,
    ) {
        let mut names: Declared = HashMap::new();
        for (source, raw) in unions {
            let Some(name) = self.type_name(source, raw, "union", taken, &mut names) else {
                continue;
            };
            let separator = self.record_separator(source, raw);
            let refused = self.refuse_table_options(source, raw, "union");
            let at = separator.as_deref().unwrap_or(DEFAULT_SEPARATOR);
            let cases = self.union_cases(source, raw, &name, at);
            match (separator, cases) {
                (Some(separator), Some(cases)) if !refused => {
                    let union = UnionType {
                        name: name.clone(),
                        description: raw.description.clone(),
                        separator,
                        cases,
                        file: source.path.to_path_buf(),
                    };
                    self.unions.insert(name, Arc::new(union));
                }
                _ => {
                    self.broken_records.insert(name);
                }
            }
        }
    }

    /// A union's cases: records of the project, each once, no two named alike, no name
    /// holding the `separator` that follows it; fields of its own it has none
    /// (`[[fields]]` refused).
    fn union_cases(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        name: &str,
        separator: &str,
    ) -> Option<Vec<UnionCase>> {
        if let Some(fields) = &raw.fields {
            self.error(
                source
                    .error(
                        Code::InvalidOption,
                        fields.span(),
                        format!("union `{name}` has cases, not fields"),
                    )
                    .hint("put the fields in each case's record; `cases = [{ record = \"circle\" }, …]`"),
            );
            return None;
        }
        let Some(raw_cases) = raw.cases.as_ref().filter(|c| !c.get_ref().is_empty()) else {
            let span = raw.cases.as_ref().map_or(0..0, Spanned::span);
            self.error(source.error(
                Code::SchemaSyntax,
                span,
                format!("union `{name}` has no cases"),
            ));
            return None;
        };
        let mut cases = Vec::new();
        let mut spelt: HashMap<String, String> = HashMap::new();
        for raw_case in raw_cases.get_ref() {
            let raw_case = raw_case.get_ref();
            let record = raw_case.record.get_ref();
            let Some(found) = self.records.get(record).cloned() else {
                if !self.broken_records.contains(record) {
                    let names = self.records.keys().map(String::as_str);
                    let mut d = source
                        .error(
                            Code::UnknownType,
                            raw_case.record.span(),
                            format!("case `{record}` of union `{name}` is no record type"),
                        )
                        .found(record.clone());
                    if let Some(similar) = crate::suggest::did_you_mean(record, names) {
                        d = d.did_you_mean(similar);
                    }
                    self.error(d);
                }
                return None;
            };
            for spelling in std::iter::once(record).chain(&raw_case.names) {
                let spelling = spelling.trim();
                let named_twice = spelt
                    .insert(spelling.to_string(), record.clone())
                    .is_some_and(|other| other != *record);
                let unusable = spelling.is_empty()
                    || spelling.contains(['|', '\n'])
                    || spelling.contains(separator);
                if named_twice || unusable {
                    self.error(
                        source
                            .error(
                                Code::InvalidOption,
                                raw_case.record.span(),
                                format!(
                                    "`{spelling}` cannot name case `{record}` of union `{name}`"
                                ),
                            )
                            .hint("a case's names are its own, not empty, and hold no separator"),
                    );
                    return None;
                }
            }
            cases.push(UnionCase {
                record: found,
                names: raw_case
                    .names
                    .iter()
                    .map(|n| n.trim().to_string())
                    .collect(),
            });
        }
        Some(cases)
    }
}
