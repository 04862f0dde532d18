//! Union types (`kind = "union"` schemas): cases, each a record type, of which a cell
//! holds one — its name, then its record's parts. Built once its cases' records are
//! (`order.rs`).

use std::collections::HashSet;
use std::sync::Arc;

use toml::Spanned;

use crate::diagnostic::Code;
use crate::schema::{UnionCase, UnionType};

use super::*;

/// Whether a schema declares a union type.
pub(super) fn is_union(raw: &RawSchema) -> bool {
    raw.kind.as_ref().is_some_and(|k| k.get_ref() == "union")
}

/// A union schema whose name and separator are read, waiting to be built once its
/// cases' records are.
pub(super) struct DeclaredUnion<'s> {
    pub(super) source: &'s SourceText<'s>,
    pub(super) raw: &'s RawSchema,
    pub(super) name: String,
    separator: Arc<str>,
}

impl DeclaredUnion<'_> {
    /// The records its cases name.
    pub(super) fn case_records(&self) -> impl Iterator<Item = &str> {
        (self.raw.cases.iter())
            .flat_map(|cases| cases.get_ref())
            .map(|case| case.get_ref().record.get_ref().as_str())
    }
}

impl Builder {
    /// The union schemas of `unions` whose name (none of `taken`, the other schemas'
    /// names) and separator are right, to be built in turn; the others are broken.
    pub(super) fn declare_unions<'s>(
        &mut self,
        unions: &'s [(SourceText, RawSchema)],
        taken: &HashSet<String>,
    ) -> Vec<DeclaredUnion<'s>> {
        let mut names: Declared = HashMap::new();
        let mut declared = Vec::new();
        for (source, raw) in unions {
            let Some(name) = self.type_name(source, raw, "union", taken, &mut names) else {
                continue;
            };
            let separator = self.record_separator(source, raw);
            let refused = self.refuse_table_options(source, raw, "union");
            match separator {
                Some(separator) if !refused => declared.push(DeclaredUnion {
                    source,
                    raw,
                    name,
                    separator,
                }),
                _ => {
                    self.broken_records.insert(name);
                }
            }
        }
        declared
    }

    /// A declared union as a [`UnionType`] in `self.unions` (its cases' records built
    /// before it), or broken.
    pub(super) fn build_declared_union(&mut self, declared: DeclaredUnion<'_>) {
        let DeclaredUnion {
            source,
            raw,
            name,
            separator,
        } = declared;
        match self.union_cases(source, raw, &name, &separator) {
            Some(cases) => {
                let union = UnionType {
                    name: name.clone(),
                    description: raw.description.clone(),
                    separator,
                    cases,
                    file: source.path.to_path_buf(),
                };
                self.unions.insert(name, Arc::new(union));
            }
            None => {
                self.broken_records.insert(name);
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
