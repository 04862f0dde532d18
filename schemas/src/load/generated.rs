//! Generated masters from schema files: reverse lookups and custom masters (groups,
//! weighted tables, matrices), checked against the tables they read.

use std::ops::Range;

use toml::Spanned;

use crate::diagnostic::Code;
use crate::schema::{
    Custom, CustomKind, Field, FieldType, GeneratedKind, GeneratedSchema, Reverse, ReverseSource,
    TableSchema,
};
use crate::suggest::did_you_mean;

use super::*;

impl Builder {
    pub(super) fn build_generated(&mut self, parsed: &[(SourceText, RawSchema)]) {
        for (source, raw) in parsed {
            let name = raw
                .name
                .as_ref()
                .map_or_else(|| source.stem(), |n| n.get_ref().clone());
            if !is_identifier(&name) || self.generated.iter().any(|g| g.name == name) {
                continue; // already reported by build_tables
            }
            let kind = if let Some(reverse) = &raw.reverse {
                self.build_reverse(source, reverse.get_ref())
                    .map(GeneratedKind::Reverse)
            } else if let Some(custom) = &raw.custom {
                self.build_custom(source, custom.get_ref())
                    .map(GeneratedKind::Custom)
            } else {
                continue;
            };
            if let Some(kind) = kind {
                let audience = self.generated_audience(source, raw, &name, &kind);
                self.generated.push(GeneratedSchema {
                    name,
                    description: raw.description.clone(),
                    kind,
                    audience,
                    file: source.path.to_path_buf(),
                });
            }
        }
    }

    pub(super) fn table_ref(
        &mut self,
        source: &SourceText,
        name: &Spanned<String>,
    ) -> Option<TableSchema> {
        match self.tables.iter().find(|t| &t.name == name.get_ref()) {
            Some(t) => Some(t.clone()),
            // Declared, and too broken to build: its own errors say why.
            None if self.broken_tables.contains(name.get_ref()) => None,
            None => {
                let mut d = source
                    .error(
                        Code::InvalidReference,
                        name.span(),
                        format!("there is no table `{}`", name.get_ref()),
                    )
                    .found(name.get_ref().clone());
                if let Some(similar) =
                    did_you_mean(name.get_ref(), self.tables.iter().map(|t| t.name.as_str()))
                {
                    d = d.did_you_mean(similar);
                }
                self.error(d);
                None
            }
        }
    }

    pub(super) fn field_ref<'t>(
        &mut self,
        source: &SourceText,
        table: &'t TableSchema,
        name: &Spanned<String>,
    ) -> Option<&'t Field> {
        let field = table.field(name.get_ref());
        if field.is_none() {
            let mut d = source
                .error(
                    Code::InvalidReference,
                    name.span(),
                    format!("table `{}` has no field `{}`", table.name, name.get_ref()),
                )
                .found(name.get_ref().clone());
            if let Some(similar) =
                did_you_mean(name.get_ref(), table.fields.iter().map(|f| f.name.as_str()))
            {
                d = d.did_you_mean(similar);
            }
            self.error(d);
        }
        field
    }

    pub(super) fn build_reverse(
        &mut self,
        source: &SourceText,
        raw: &RawReverse,
    ) -> Option<Reverse> {
        let target = self.table_ref(source, &raw.target)?;
        let key_type = match target.primary_key.as_slice() {
            [single] => target.fields[*single].ty.clone(),
            [] => {
                self.error(source.error(
                    Code::InvalidReference,
                    raw.target.span(),
                    format!(
                        "reverse target `{}` is a {}: it has no key to look rows up by",
                        target.name,
                        target.kind.as_str()
                    ),
                ));
                return None;
            }
            _ => {
                self.error(source.error(
                    Code::InvalidReference,
                    raw.target.span(),
                    format!("reverse target `{}` has a composite primary key; a reverse lookup needs a single-field key", target.name),
                ));
                return None;
            }
        };
        if raw.sources.get_ref().is_empty() {
            self.error(source.error(
                Code::InvalidOption,
                raw.sources.span(),
                "[reverse] has no sources",
            ));
            return None;
        }
        let mut sources = Vec::new();
        let mut ok = true;
        for spanned in raw.sources.get_ref() {
            let raw_source = spanned.get_ref();
            let Some(table) = self.table_ref(source, &raw_source.table) else {
                ok = false;
                continue;
            };
            if !table.kind.is_keyed() {
                self.error(source.error(
                    Code::InvalidReference,
                    raw_source.table.span(),
                    format!(
                        "source `{}` is a {}: a reverse lookup names each source row by its key, and it has none",
                        table.name,
                        table.kind.as_str()
                    ),
                ));
                ok = false;
                continue;
            }
            match self.field_ref(source, &table, &raw_source.field) {
                Some(field) if field.ty.referenced() != &key_type => {
                    self.error(source.error(
                        Code::InvalidReference,
                        raw_source.field.span(),
                        format!(
                            "field `{}.{}` is {} but the key of `{}` is {key_type}",
                            table.name, field.name, field.ty, target.name
                        ),
                    ));
                    ok = false;
                }
                Some(_) => {}
                None => ok = false,
            }
            for column in &raw_source.columns {
                match self.field_ref(source, &table, column) {
                    Some(field) if field.ty == FieldType::Text => {
                        self.error(source.error(
                            Code::InvalidReference,
                            column.span(),
                            format!("text field `{}` cannot be copied into a generated master (text lives in language tables)", field.name),
                        ));
                        ok = false;
                    }
                    Some(field) => {
                        if let Some(what) = structured(&field.ty) {
                            self.error(source.error(
                                Code::InvalidReference,
                                column.span(),
                                format!("{what} field `{}` cannot be copied into a generated master (it holds single values)", field.name),
                            ));
                            ok = false;
                        }
                    }
                    None => ok = false,
                }
            }
            sources.push(ReverseSource {
                table: table.name.clone(),
                field: raw_source.field.get_ref().clone(),
                columns: raw_source
                    .columns
                    .iter()
                    .map(|c| c.get_ref().clone())
                    .collect(),
            });
        }
        ok.then(|| Reverse {
            target: target.name.clone(),
            sources,
        })
    }

    pub(super) fn build_custom(&mut self, source: &SourceText, raw: &RawCustom) -> Option<Custom> {
        let table = self.table_ref(source, &raw.table)?;
        let errors_before = self.report.error_count();
        let kind_name = self.custom_kind(source, raw)?;
        let at = CustomSite {
            source,
            raw,
            table: &table,
            kind: kind_name,
        };
        let kind = match kind_name {
            "group" => CustomKind::Group {
                group_by: self.custom_fields(&at, &raw.group_by, "group_by", true),
                order_by: self.custom_fields(&at, &raw.order_by, "order_by", false),
            },
            "weighted" => self.weighted(&at),
            _ => self.matrix(&at),
        };
        (self.report.error_count() == errors_before).then(|| Custom {
            table: table.name.clone(),
            kind,
        })
    }

    /// The custom master's kind, with an error for each option that does not apply to
    /// it; `None` for an unknown kind.
    fn custom_kind(&mut self, source: &SourceText, raw: &RawCustom) -> Option<&'static str> {
        let (kind, allowed): (&str, &[&str]) = match raw.kind.get_ref().as_str() {
            "group" => ("group", &["group_by", "order_by"]),
            "weighted" => ("weighted", &["group_by", "weight"]),
            "matrix" => ("matrix", &["row", "column", "value", "default"]),
            other => {
                let mut d = source
                    .error(
                        Code::InvalidOption,
                        raw.kind.span(),
                        format!("unknown custom master kind `{other}`"),
                    )
                    .expected("group, weighted or matrix");
                if let Some(similar) =
                    did_you_mean(other, ["group", "weighted", "matrix"].into_iter())
                {
                    d = d.did_you_mean(similar);
                }
                self.error(d);
                return None;
            }
        };
        let present: [(&str, Option<Range<usize>>); 7] = [
            ("group_by", raw.group_by.as_ref().map(Spanned::span)),
            ("order_by", raw.order_by.as_ref().map(Spanned::span)),
            ("weight", raw.weight.as_ref().map(Spanned::span)),
            ("row", raw.row.as_ref().map(Spanned::span)),
            ("column", raw.column.as_ref().map(Spanned::span)),
            ("value", raw.value.as_ref().map(Spanned::span)),
            ("default", raw.default.as_ref().map(Spanned::span)),
        ];
        for (option, span) in &present {
            if let Some(span) = span
                && !allowed.contains(option)
            {
                self.error(source.error(
                    Code::InvalidOption,
                    span.clone(),
                    format!("option `{option}` does not apply to a `{kind}` custom master"),
                ));
            }
        }
        Some(kind)
    }

    /// An option the kind needs and the master does not give.
    fn custom_needs(&mut self, at: &CustomSite<'_>, option: &str) {
        self.error(at.source.error(
            Code::InvalidOption,
            at.raw.kind.span(),
            format!("a `{}` custom master needs `{option}`", at.kind),
        ));
    }

    /// A list of the table's fields (`group_by`, `order_by`), each checked.
    fn custom_fields(
        &mut self,
        at: &CustomSite<'_>,
        list: &Option<Spanned<Vec<Spanned<String>>>>,
        option: &str,
        required: bool,
    ) -> Vec<String> {
        let Some(list) = list else {
            if required {
                self.custom_needs(at, option);
            }
            return Vec::new();
        };
        for name in list.get_ref() {
            if let Some(field) = self.field_ref(at.source, at.table, name) {
                let field = field.clone();
                self.not_a_map(at, &field, name.span(), option);
            }
        }
        list.get_ref().iter().map(|n| n.get_ref().clone()).collect()
    }

    /// A generated master is made of single values: a map, record or union field is
    /// refused by name.
    fn not_a_map(
        &mut self,
        at: &CustomSite<'_>,
        field: &Field,
        span: std::ops::Range<usize>,
        option: &str,
    ) {
        if let Some(what) = structured(&field.ty) {
            self.error(at.source.error(
                Code::InvalidOption,
                span,
                format!(
                    "`{option}` names `{}`, a {what}: a generated master groups, weighs and looks up single values",
                    field.name
                ),
            ));
        }
    }

    /// One of the table's fields (`weight`, a matrix's `row`, `column`, `value`).
    fn custom_field(
        &mut self,
        at: &CustomSite<'_>,
        name: &Option<Spanned<String>>,
        option: &str,
    ) -> Option<Field> {
        let Some(name) = name else {
            self.custom_needs(at, option);
            return None;
        };
        let field = self.field_ref(at.source, at.table, name).cloned()?;
        self.not_a_map(at, &field, name.span(), option);
        Some(field)
    }

    /// Groups with a numeric weight per row.
    fn weighted(&mut self, at: &CustomSite<'_>) -> CustomKind {
        let raw = at.raw;
        let group_by = self.custom_fields(at, &raw.group_by, "group_by", true);
        let weight = self.custom_field(at, &raw.weight, "weight");
        if let (Some(w), Some(span)) = (&weight, raw.weight.as_ref().map(Spanned::span))
            && !w.ty.is_numeric()
        {
            self.error(at.source.error(
                Code::InvalidOption,
                span,
                format!("weight field `{}` is {}, not a number", w.name, w.ty),
            ));
        }
        CustomKind::Weighted {
            group_by,
            weight: weight.map(|w| w.name).unwrap_or_default(),
        }
    }

    /// A value per pair of enum values (row, column), with a default for the others.
    fn matrix(&mut self, at: &CustomSite<'_>) -> CustomKind {
        let raw = at.raw;
        let row = self.custom_field(at, &raw.row, "row");
        let column = self.custom_field(at, &raw.column, "column");
        let value = self.custom_field(at, &raw.value, "value");
        for (field, spanned) in [(&row, &raw.row), (&column, &raw.column)] {
            if let (Some(f), Some(s)) = (field, spanned)
                && f.ty != FieldType::Enum
            {
                self.error(at.source.error(
                    Code::InvalidOption,
                    s.span(),
                    format!("matrix axis `{}` is {}, not an enum", f.name, f.ty),
                ));
            }
        }
        let default = match (&value, &raw.default) {
            (Some(v), Some(d)) => self.option_value(at.source, &v.name, "default", &v.ty, d),
            _ => None,
        };
        CustomKind::Matrix {
            row: row.map(|f| f.name).unwrap_or_default(),
            column: column.map(|f| f.name).unwrap_or_default(),
            value: value.map(|f| f.name).unwrap_or_default(),
            default,
        }
    }
}

/// A custom master being built: where it is written, its table and kind.
struct CustomSite<'s> {
    source: &'s SourceText<'s>,
    raw: &'s RawCustom,
    table: &'s TableSchema,
    kind: &'static str,
}

/// What a field holds that is no single value, which a generated master neither copies
/// nor groups by: a map, records, unions (`None`: single values, or lists of them).
fn structured(ty: &FieldType) -> Option<&'static str> {
    match ty {
        FieldType::Map(..) => Some("map"),
        _ if ty.union().is_some() => Some("union"),
        _ if ty.record().is_some() => Some("record"),
        _ => None,
    }
}
