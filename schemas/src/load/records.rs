//! Record types (`kind = "record"` schemas): named fields a table's field holds in one
//! cell. Each is built after the types it names (`order.rs`).

use std::cell::Cell;
use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use toml::Spanned;

use crate::diagnostic::Code;
use crate::schema::{Field, FieldType, RecordType, UnionType};

use super::*;

/// What separates a record's fields when its schema names nothing.
pub const DEFAULT_SEPARATOR: &str = ",";

/// Whether a schema declares a record type rather than a table.
pub(super) fn is_record(raw: &RawSchema) -> bool {
    raw.kind.as_ref().is_some_and(|k| k.get_ref() == "record")
}

/// The built-in types' names, which no record may take.
const BUILT_IN: [&str; 10] = [
    "int", "float", "bool", "string", "text", "enum", "date", "datetime", "list", "map",
];

/// A record schema whose name and separator are read, waiting to be built once the
/// types it names are.
pub(super) struct DeclaredRecord<'s> {
    pub(super) source: &'s SourceText<'s>,
    pub(super) raw: &'s RawSchema,
    pub(super) name: String,
    separator: Arc<str>,
}

impl Builder {
    /// The record schemas of `records` whose name (none of `taken`, the other schemas'
    /// names) and separator are right, to be built in turn; the others are broken.
    pub(super) fn declare_records<'s>(
        &mut self,
        records: &'s [(SourceText, RawSchema)],
        taken: &HashSet<String>,
    ) -> Vec<DeclaredRecord<'s>> {
        let mut names: Declared = HashMap::new();
        let mut declared = Vec::new();
        for (source, raw) in records {
            let Some(name) = self.type_name(source, raw, "record", taken, &mut names) else {
                continue;
            };
            let separator = self.record_separator(source, raw);
            let refused = self.refuse_table_options(source, raw, "record");
            match separator {
                Some(separator) if !refused => declared.push(DeclaredRecord {
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

    /// A declared record as a [`RecordType`] in `self.records` (the types it names
    /// built before it), or broken.
    pub(super) fn build_declared_record(&mut self, declared: DeclaredRecord<'_>) {
        let DeclaredRecord {
            source,
            raw,
            name,
            separator,
        } = declared;
        match self.build_record(source, raw, name.clone(), separator) {
            Some(record) => {
                self.records.insert(name, Arc::new(record));
            }
            None => {
                self.broken_records.insert(name);
            }
        }
    }

    /// A record's or a union's name (or file stem): an identifier no built-in type, and
    /// no other schema, has.
    pub(super) fn type_name(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        of: &str,
        taken: &HashSet<String>,
        names: &mut Declared,
    ) -> Option<String> {
        let name = self.identifier_name(source, raw, of)?;
        let problem = if BUILT_IN.contains(&name.get_ref().as_str()) {
            Some(format!("`{}` is a built-in type", name.get_ref()))
        } else if taken.contains(name.get_ref()) {
            Some(format!("`{}` is another schema's name", name.get_ref()))
        } else {
            names.get(name.get_ref()).map(|first| {
                format!(
                    "{of} `{}` is declared twice (first at {})",
                    name.get_ref(),
                    first.place()
                )
            })
        };
        if let Some(problem) = problem {
            self.error(
                source
                    .error(Code::DuplicateName, name.span(), problem)
                    .hint(format!(
                        "give the {of} a name of its own: field types name it"
                    )),
            );
            return None;
        }
        names.insert(name.get_ref().clone(), source.location(name.span()));
        Some(name.into_inner())
    }

    /// `separator`: not empty, no `|` (lists of records are split at it) and no line
    /// break.
    pub(super) fn record_separator(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
    ) -> Option<Arc<str>> {
        let Some(separator) = &raw.separator else {
            return Some(DEFAULT_SEPARATOR.into());
        };
        let text = separator.get_ref();
        let problem = if text.is_empty() {
            "a record's separator is not empty"
        } else if text.contains('|') {
            "`|` separates the records of a list: a record's separator is another"
        } else if text.contains(['\n', '\r']) {
            "a record's separator is on one line"
        } else {
            return Some(text.as_str().into());
        };
        self.error(
            source
                .error(Code::InvalidOption, separator.span(), problem)
                .found(text.clone())
                .expected("`,` (the default), `;`, `:`, `~`…"),
        );
        None
    }

    /// A table's options written on a record or a union (`of`: no sheet of its own);
    /// whether any was.
    pub(super) fn refuse_table_options(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        of: &str,
    ) -> bool {
        let written = [
            ("sheet", raw.sheet.as_ref().map(Spanned::span)),
            ("source", raw.source.as_ref().map(Spanned::span)),
            (
                "other_columns",
                raw.other_columns.as_ref().map(Spanned::span),
            ),
            ("primary_key", raw.primary_key.as_ref().map(Spanned::span)),
            ("indexes", raw.indexes.first().map(Spanned::span)),
            ("reverse", raw.reverse.as_ref().map(Spanned::span)),
            ("custom", raw.custom.as_ref().map(Spanned::span)),
            ("audience", raw.audience.as_ref().map(Spanned::span)),
            ("glossary", raw.glossary.as_ref().map(Spanned::span)),
            ("layout", raw.layout.as_ref().map(Spanned::span)),
            ("case_field", raw.case_field.as_ref().map(Spanned::span)),
            // A union's cases have names of their own; a union none.
            (
                "names",
                raw.names
                    .as_ref()
                    .filter(|_| of == "union")
                    .map(Spanned::span),
            ),
        ];
        let has = match of {
            "union" => "a separator and its cases",
            _ => "a separator and [[fields]]",
        };
        self.refuse_written(
            source,
            &written,
            &|option| {
                format!(
                    "a {of} has no `{option}`: it is a type, read where a table's field holds it"
                )
            },
            &format!("a {of} has a name, a description, {has}"),
        )
    }

    /// An error at each option of `written` that is written, saying `why` of it with
    /// `hint`; whether any was.
    pub(super) fn refuse_written(
        &mut self,
        source: &SourceText,
        written: &[(&str, Option<Range<usize>>)],
        why: &dyn Fn(&str) -> String,
        hint: &str,
    ) -> bool {
        let mut refused = false;
        for (option, at) in written {
            let Some(at) = at else { continue };
            refused = true;
            self.error(
                source
                    .error(Code::InvalidOption, at.clone(), why(option))
                    .hint(hint),
            );
        }
        refused
    }

    fn build_record(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        name: String,
        separator: Arc<str>,
    ) -> Option<RecordType> {
        let raw_fields = match &raw.fields {
            Some(fields) if !fields.get_ref().is_empty() => fields.get_ref(),
            other => {
                let span = other.as_ref().map_or(0..0, Spanned::span);
                self.error(source.error(
                    Code::SchemaSyntax,
                    span,
                    format!("record `{name}` has no [[fields]]"),
                ));
                return None;
            }
        };
        let errors_before = self.report.error_count();
        for raw_field in raw_fields {
            self.refuse_column_options(source, raw_field.get_ref());
        }
        let fields = self.build_fields(source, raw_fields)?;
        for (raw_field, field) in raw_fields.iter().zip(&fields) {
            let one_value = !matches!(
                field.ty,
                FieldType::Text | FieldType::List(_) | FieldType::Map(..)
            );
            if !one_value {
                self.error(
                    source
                        .error(
                            Code::UnknownType,
                            raw_field.get_ref().ty.span(),
                            format!(
                                "field `{}` of record `{name}` is {}: a record's field holds one value",
                                field.name, field.ty
                            ),
                        )
                        .hint("int, float, bool, string, enum, date, datetime, another record or a union (a text is translated in its table's own field)"),
                );
            }
        }
        for (raw_field, field) in raw_fields.iter().zip(&fields) {
            self.refuse_separator_within(source, raw_field, field, (&name, &separator));
        }
        let names = self.record_names(source, raw, &separator);
        if self.report.error_count() != errors_before {
            return None;
        }
        Some(RecordType {
            name,
            description: raw.description.clone(),
            separator,
            fields,
            names,
            file: source.path.to_path_buf(),
        })
    }

    /// A field of record `of` whose value is one part of its cell (a union, a record
    /// of another separator), when the texts written within that value (separators,
    /// names) hold the record's separator: the cell would be split inside the part.
    fn refuse_separator_within(
        &mut self,
        source: &SourceText,
        raw_field: &Spanned<RawField>,
        field: &Field,
        (of, separator): (&str, &str),
    ) {
        let within = match &field.ty {
            FieldType::Record(inner) if *inner.separator == *separator => return,
            FieldType::Record(inner) => record_texts(inner),
            // Its case's name and parts are the record's parts; a case's record of
            // another separator one part.
            FieldType::Union(union) if *union.separator == *separator => (union.cases.iter())
                .filter(|case| *case.record.separator != *separator)
                .flat_map(|case| record_texts(&case.record))
                .collect(),
            FieldType::Union(union) => union_texts(union),
            _ => return,
        };
        if within.iter().any(|text| text.contains(separator)) {
            self.error(
                source
                    .error(
                        Code::InvalidOption,
                        raw_field.get_ref().ty.span(),
                        format!(
                            "field `{}` of record `{of}` is a `{}`, whose text holds `{separator}`, which separates `{of}`'s parts",
                            field.name, field.ty
                        ),
                    )
                    .hint(format!(
                        "give `{}` (and the records in it) a separator other than `{separator}`, or `{of}` another",
                        field.ty
                    )),
            );
        }
    }

    /// `names`: texts a cell may write before a record's parts, each on one line,
    /// holding no separator (its own, or a list's `|`), not empty, none twice.
    fn record_names(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        separator: &str,
    ) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for name in raw.names.iter().flat_map(|n| n.get_ref()) {
            let text = name.get_ref();
            let problem = if text.trim().is_empty() {
                Some("a record's name in its cells is not empty".to_string())
            } else if text.contains(separator) || text.contains('|') || text.contains(['\n', '\r'])
            {
                Some(format!(
                    "`{text}` cannot name the record in its cells: it holds its separator `{separator}`, `|` or a line break"
                ))
            } else if names.contains(text) {
                Some(format!("`{text}` is named twice"))
            } else {
                None
            };
            match problem {
                Some(problem) => {
                    self.error(source.error(Code::InvalidOption, name.span(), problem))
                }
                None => names.push(text.clone()),
            }
        }
        names
    }

    /// A field's options that place it in a sheet, written on a record's field (which
    /// is a part of its cell).
    fn refuse_column_options(&mut self, source: &SourceText, raw: &RawField) {
        let written = [
            ("column", raw.column.as_ref().map(Spanned::span)),
            (
                "column_offset",
                raw.column_offset.as_ref().map(Spanned::span),
            ),
            ("separator", raw.separator.as_ref().map(Spanned::span)),
            (
                "key_separator",
                raw.key_separator.as_ref().map(Spanned::span),
            ),
            ("multi_row", raw.multi_row.as_ref().map(Spanned::span)),
            (
                "repeated_header",
                raw.repeated_header.as_ref().map(Spanned::span),
            ),
            ("column_span", raw.column_span.as_ref().map(Spanned::span)),
            ("source_sheet", raw.source_sheet.as_ref().map(Spanned::span)),
            ("escapes", raw.escapes.as_ref().map(Spanned::span)),
            ("null", raw.null.as_ref().map(Spanned::span)),
            ("audience", raw.audience.as_ref().map(Spanned::span)),
            ("unique", raw.unique.then(|| raw.name.span())),
            ("cases", raw.cases.as_ref().map(Spanned::span)),
        ];
        self.refuse_written(
            source,
            &written,
            &|option| {
                format!(
                    "option `{option}` does not apply to field `{}` of a record: it is a part of one cell",
                    raw.name.get_ref()
                )
            },
            "a record's field takes optional, default, min, max, min_length, max_length, pattern, values, references, bool_spellings and description",
        );
    }

    /// The `references` of records' fields, checked once the tables are built.
    pub(super) fn check_record_references(&mut self, records: &[(SourceText, RawSchema)]) {
        for (source, raw) in records {
            let name = raw
                .name
                .as_ref()
                .map_or_else(|| source.stem(), |n| n.get_ref().clone());
            let Some(record) = self.records.get(&name).cloned() else {
                continue;
            };
            let raw_fields = raw.fields.as_ref().map(|f| f.get_ref().as_slice());
            for (raw_field, field) in raw_fields.unwrap_or_default().iter().zip(&record.fields) {
                let (Some(reference), Some(spanned)) =
                    (&field.references, &raw_field.get_ref().references)
                else {
                    continue;
                };
                if self.broken_tables.contains(&reference.table) {
                    continue;
                }
                if let Some(problem) = self.reference_problem(field, reference) {
                    self.error(
                        source
                            .error(
                                Code::InvalidReference,
                                spanned.span(),
                                format!(
                                    "field `{}` of record `{name}` references `{reference}`: {problem}",
                                    field.name
                                ),
                            )
                            .found(reference.to_string()),
                    );
                }
            }
        }
    }
}

/// Whether a record's fields name any of `types` (as a type, a list's elements, a
/// map's values).
pub(super) fn names_any(raw: &RawSchema, types: &HashSet<&str>) -> bool {
    let named = Cell::new(false);
    let fields = raw.fields.as_ref().map(|f| f.get_ref().as_slice());
    for field in fields.unwrap_or_default() {
        FieldType::parse_in(field.get_ref().ty.get_ref(), &|name| {
            named.set(named.get() || types.contains(name));
            None
        });
    }
    named.get()
}

/// The texts a record's value writes within its cell's text: its separator, the names
/// it may be written with, and those of the records and unions in it.
fn record_texts(record: &RecordType) -> Vec<&str> {
    let own = std::iter::once(&*record.separator).chain(record.names.iter().map(String::as_str));
    let inner = record.fields.iter().flat_map(|f| match &f.ty {
        FieldType::Record(inner) => record_texts(inner),
        FieldType::Union(union) => union_texts(union),
        _ => Vec::new(),
    });
    own.chain(inner).collect()
}

/// The texts a union's value writes within its cell's text: its separator, its cases'
/// names, and each case's record's texts.
fn union_texts(union: &UnionType) -> Vec<&str> {
    let cases = union.cases.iter().flat_map(|case| {
        let names =
            std::iter::once(case.record.name.as_str()).chain(case.names.iter().map(String::as_str));
        names.chain(record_texts(&case.record))
    });
    std::iter::once(&*union.separator).chain(cases).collect()
}
