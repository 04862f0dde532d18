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
                self.generated.push(GeneratedSchema {
                    name,
                    description: raw.description.clone(),
                    kind,
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
                    d = d.hint(format!("did you mean `{similar}`?"));
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
                d = d.hint(format!("did you mean `{similar}`?"));
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
            match self.field_ref(source, &table, &raw_source.field) {
                Some(field) if field.ty.scalar() != &key_type => {
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
                    Some(_) => {}
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
        let kind_name = raw.kind.get_ref().as_str();
        let allowed: &[&str] = match kind_name {
            "group" => &["group_by", "order_by"],
            "weighted" => &["group_by", "weight"],
            "matrix" => &["row", "column", "value", "default"],
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
                    d = d.hint(format!("did you mean `{similar}`?"));
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
        let errors_before = self.report.error_count();
        for (option, span) in &present {
            if let Some(span) = span
                && !allowed.contains(option)
            {
                self.error(source.error(
                    Code::InvalidOption,
                    span.clone(),
                    format!("option `{option}` does not apply to a `{kind_name}` custom master"),
                ));
            }
        }
        let names = |this: &mut Builder,
                     list: &Option<Spanned<Vec<Spanned<String>>>>,
                     required: bool,
                     option: &str|
         -> Vec<String> {
            match list {
                Some(list) => {
                    for name in list.get_ref() {
                        this.field_ref(source, &table, name);
                    }
                    list.get_ref().iter().map(|n| n.get_ref().clone()).collect()
                }
                None => {
                    if required {
                        this.error(source.error(
                            Code::InvalidOption,
                            raw.kind.span(),
                            format!("a `{kind_name}` custom master needs `{option}`"),
                        ));
                    }
                    Vec::new()
                }
            }
        };
        let one =
            |this: &mut Builder, name: &Option<Spanned<String>>, option: &str| -> Option<Field> {
                match name {
                    Some(name) => this.field_ref(source, &table, name).cloned(),
                    None => {
                        this.error(source.error(
                            Code::InvalidOption,
                            raw.kind.span(),
                            format!("a `{kind_name}` custom master needs `{option}`"),
                        ));
                        None
                    }
                }
            };
        let kind = match kind_name {
            "group" => CustomKind::Group {
                group_by: names(self, &raw.group_by, true, "group_by"),
                order_by: names(self, &raw.order_by, false, "order_by"),
            },
            "weighted" => {
                let group_by = names(self, &raw.group_by, true, "group_by");
                let weight = one(self, &raw.weight, "weight");
                if let (Some(w), Some(span)) = (&weight, raw.weight.as_ref().map(Spanned::span))
                    && !w.ty.is_numeric()
                {
                    self.error(source.error(
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
            _ => {
                let row = one(self, &raw.row, "row");
                let column = one(self, &raw.column, "column");
                let value = one(self, &raw.value, "value");
                for (field, spanned) in [(&row, &raw.row), (&column, &raw.column)] {
                    if let (Some(f), Some(s)) = (field, spanned)
                        && f.ty != FieldType::Enum
                    {
                        self.error(source.error(
                            Code::InvalidOption,
                            s.span(),
                            format!("matrix axis `{}` is {}, not an enum", f.name, f.ty),
                        ));
                    }
                }
                let default = match (&value, &raw.default) {
                    (Some(v), Some(d)) => self.option_value(source, &v.name, "default", &v.ty, d),
                    _ => None,
                };
                CustomKind::Matrix {
                    row: row.map(|f| f.name).unwrap_or_default(),
                    column: column.map(|f| f.name).unwrap_or_default(),
                    value: value.map(|f| f.name).unwrap_or_default(),
                    default,
                }
            }
        };
        (self.report.error_count() == errors_before).then(|| Custom {
            table: table.name.clone(),
            kind,
        })
    }
}
