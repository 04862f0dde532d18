//! Tables whose rows are of several cases (`case_field = "type"`): the enum field whose
//! value says which case a row is, and the fields only some cases' rows fill
//! (`cases = ["item"]`). The rule on the rows is [`crate::cases`].

use std::sync::Arc;

use toml::Spanned;

use crate::diagnostic::Code;
use crate::schema::{Field, FieldType};
use crate::suggest::did_you_mean;

use super::*;

impl Builder {
    /// The table's `case_field`, checked, with each field's `cases` settled: a required
    /// enum field of the table (not itself of some cases), whose values the fields'
    /// `cases` name; no key field is of some cases, and the case field is seen by
    /// whoever sees a field of some cases.
    pub(super) fn cases(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        fields: &mut [Field],
        primary_key: Option<&[usize]>,
    ) -> Option<String> {
        self.refuse_union_options(source, raw);
        let raw_fields: Vec<&RawField> = (raw.fields.iter())
            .flat_map(|f| f.get_ref())
            .map(Spanned::get_ref)
            .collect();
        let Some(written) = &raw.case_field else {
            for raw_field in &raw_fields {
                if let Some(cases) = &raw_field.cases {
                    self.error(
                        source
                            .error(
                                Code::InvalidOption,
                                cases.span(),
                                format!(
                                    "field `{}` is filled by some cases' rows, and the table has no `case_field` saying a row's case",
                                    raw_field.name.get_ref()
                                ),
                            )
                            .hint("add `case_field = \"<an enum field>\"` to the table: its values are the cases"),
                    );
                }
            }
            return None;
        };
        let at = self.case_field_at(source, written, fields)?;
        let case_values = fields[at].values.clone();
        let case_audience = fields[at].audience;
        let mut ok = true;
        for (index, raw_field) in raw_fields.iter().enumerate() {
            let Some(cases) = &raw_field.cases else {
                continue;
            };
            let Some(field) = fields.get_mut(index) else {
                continue;
            };
            let problem = if index == at {
                Some(format!(
                    "field `{}` is the case field: every row has a case",
                    field.name
                ))
            } else if primary_key.is_some_and(|key| key.contains(&index)) {
                Some(format!(
                    "field `{}` is in the primary key: every row has one",
                    field.name
                ))
            } else if cases.get_ref().is_empty() {
                Some(format!("field `{}` names no case", field.name))
            } else if !field.audience.is_within(case_audience) {
                Some(format!(
                    "field `{}` is for {}, and the case field `{written}` is for {case_audience} only: {} would not see a row's case",
                    field.name,
                    field.audience,
                    field.audience.beyond(case_audience),
                    written = written.get_ref()
                ))
            } else {
                None
            };
            if let Some(problem) = problem {
                self.error(source.error(Code::InvalidOption, cases.span(), problem));
                ok = false;
                continue;
            }
            let mut named: Vec<Arc<str>> = Vec::new();
            for case in cases.get_ref() {
                match case_values.iter().find(|v| ***v == **case.get_ref()) {
                    Some(value) if named.contains(value) => {
                        self.error(source.error(
                            Code::DuplicateName,
                            case.span(),
                            format!("field `{}` names case `{value}` twice", field.name),
                        ));
                        ok = false;
                    }
                    Some(value) => named.push(value.clone()),
                    None => {
                        let mut d = source
                            .error(
                                Code::InvalidReference,
                                case.span(),
                                format!(
                                    "`{}` is not a case: the case field `{}` has no such value",
                                    case.get_ref(),
                                    written.get_ref()
                                ),
                            )
                            .found(case.get_ref().clone())
                            .expected(case_values.join(", "));
                        let names = case_values.iter().map(|v| &**v);
                        if let Some(close) = did_you_mean(case.get_ref(), names) {
                            d = d.did_you_mean(close);
                        }
                        self.error(d);
                        ok = false;
                    }
                }
            }
            field.cases = named;
        }
        ok.then(|| written.get_ref().clone())
    }

    /// The position of the field `case_field` names, when it is a required enum.
    fn case_field_at(
        &mut self,
        source: &SourceText,
        written: &Spanned<String>,
        fields: &[Field],
    ) -> Option<usize> {
        let name = written.get_ref();
        let Some(at) = fields.iter().position(|f| &f.name == name) else {
            let mut d = source
                .error(
                    Code::InvalidReference,
                    written.span(),
                    format!("case_field names `{name}`, which is not a field of this table"),
                )
                .found(name.clone());
            if let Some(close) = did_you_mean(name, fields.iter().map(|f| f.name.as_str())) {
                d = d.did_you_mean(close);
            }
            self.error(d);
            return None;
        };
        let field = &fields[at];
        let problem = if field.ty != FieldType::Enum {
            Some(format!(
                "the case field `{name}` is {}: a row's case is one of an enum's values",
                crate::parse::describe(&field.ty)
            ))
        } else if !field.required() {
            Some(format!(
                "the case field `{name}` is optional or has a default: every row says its case"
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            self.error(
                source
                    .error(Code::InvalidOption, written.span(), problem)
                    .hint("make it a required `enum` field whose values are the cases"),
            );
            return None;
        }
        Some(at)
    }

    /// A record's or a union's options (`separator`, `cases`, `names`) written on a table.
    fn refuse_union_options(&mut self, source: &SourceText, raw: &RawSchema) {
        let written = [
            ("separator", raw.separator.as_ref().map(Spanned::span)),
            ("cases", raw.cases.as_ref().map(Spanned::span)),
            ("names", raw.names.as_ref().map(Spanned::span)),
        ];
        self.refuse_written(
            source,
            &written,
            &|option| format!("a table has no `{option}`: it is a record's or a union type's option"),
            "a table whose rows are of several cases names its enum field saying each row's case (`case_field`), and each field of some cases names them (`cases = [\"item\"]`)",
        );
    }
}
