//! Tables and their fields from schema files: names, types, options, keys, indexes,
//! and the references between tables.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

use regex::Regex;
use toml::Spanned;

use crate::diagnostic::Code;
use crate::schema::{
    BoolSpellings, Field, FieldType, Index, Layout, OtherColumns, Reference, SheetSource, Sheets,
    Spread, TableKind, TableSchema,
};
use crate::suggest::did_you_mean;
use crate::value::{self, Value};
use crate::zone::{Zone, read_datetime};

use super::*;

impl Builder {
    pub(super) fn build_tables(&mut self, parsed: &[(SourceText, RawSchema)]) {
        let mut names: Declared = HashMap::new();
        let mut sheets: Declared = HashMap::new();
        let mut sources: Declared = HashMap::new();
        for (source, raw) in parsed {
            let name = self.schema_name(source, raw, &mut names);
            let is_generated = raw.reverse.is_some() || raw.custom.is_some();
            if is_generated {
                if raw.fields.is_some() || raw.primary_key.is_some() || !raw.indexes.is_empty() {
                    let span = raw
                        .fields
                        .as_ref()
                        .map(Spanned::span)
                        .or(raw.primary_key.as_ref().map(Spanned::span))
                        .unwrap_or(0..0);
                    self.error(source.error(
                        Code::InvalidOption,
                        span,
                        "a generated master ([reverse] or [custom]) has no fields, primary_key or indexes of its own",
                    ));
                }
                if let (Some(r), Some(_)) = (&raw.reverse, &raw.custom) {
                    self.error(source.error(
                        Code::InvalidOption,
                        r.span(),
                        "a schema has either [reverse] or [custom], not both",
                    ));
                }
                continue;
            }
            let Some(name) = name else { continue };
            let (sheet_source, spread_over) = self.sheet_source(source, raw).unzip();
            let spread_over = spread_over.flatten();
            let sheet = match (&sheet_source, &raw.sheet) {
                (
                    Some(SheetSource {
                        sheet: Some(sheet), ..
                    }),
                    _,
                ) => sheet.clone(),
                (_, Some(sheet)) => sheet.get_ref().clone(),
                (_, None) => name.clone(),
            };
            if let Some(sheet_source) = &sheet_source {
                let span = raw.source.as_ref().map_or(0..0, Spanned::span);
                let claimed: Vec<String> = match &spread_over {
                    None => vec![sheet_source.to_string()],
                    Some(Sheets::Every) => vec![format!("{}#*", sheet_source.file)],
                    Some(Sheets::Named(names)) => (names.iter())
                        .map(|n| format!("{}#{n}", sheet_source.file))
                        .collect(),
                };
                for claim in claimed {
                    let key = format!("source {claim}");
                    if let Some(first) = sources.get(&key) {
                        self.error(
                            source
                                .error(
                                    Code::DuplicateName,
                                    span.clone(),
                                    format!("`{claim}` is already the source of another table"),
                                )
                                .hint(format!("first declared at {}", first.place())),
                        );
                    } else {
                        sources.insert(key, source.location(span.clone()));
                    }
                }
                match self.build_table(source, raw, name.clone(), sheet) {
                    Some(mut table) => {
                        table.source = Some(sheet_source.clone());
                        table.spread = self.spread(source, raw, spread_over, &table);
                        self.tables.push(table);
                    }
                    None => {
                        self.broken_tables.insert(name);
                    }
                }
                continue;
            }
            if sheet.trim().is_empty() {
                let span = raw.sheet.as_ref().map_or(0..0, Spanned::span);
                self.error(source.error(Code::InvalidName, span, "the sheet name is empty"));
            }
            let sheet_span = raw.sheet.as_ref().map_or(0..0, Spanned::span);
            if let Some(first) = sheets.get(&sheet) {
                self.error(
                    source
                        .error(
                            Code::DuplicateName,
                            sheet_span,
                            format!("sheet `{sheet}` is already the sheet of another table"),
                        )
                        .hint(format!("first declared at {}", first.place())),
                );
            } else {
                sheets.insert(sheet.clone(), source.location(sheet_span));
            }
            match self.build_table(source, raw, name.clone(), sheet) {
                Some(table) => {
                    self.spread(source, raw, None, &table);
                    self.tables.push(table);
                }
                None => {
                    self.broken_tables.insert(name);
                }
            }
        }
    }

    /// `source = "items.xlsx"` or `"item/道具.xlsx#Sheet1"`, checked: a spreadsheet file
    /// (by a known extension; the sheet after the `#` that follows it), a relative path
    /// of `/`-separated names, and not beside `sheet` (the sheet goes after the `#`).
    /// Several sheets of one workbook — `"shop.xlsx#*"`, every one, or a list of them —
    /// are the table's `Sheets`.
    fn sheet_source(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
    ) -> Option<(SheetSource, Option<Sheets>)> {
        let text = raw.source.as_ref()?;
        let parsed = match text.get_ref() {
            RawSources::One(one) => match one.strip_suffix("#*") {
                Some(file) => parse_sheet_source(file).and_then(|parsed| match parsed.sheet {
                    Some(_) => Err(format!("`{one}`: every sheet is `file#*`")),
                    None => Ok((parsed, Some(Sheets::Every))),
                }),
                None => parse_sheet_source(one).map(|parsed| (parsed, None)),
            },
            RawSources::Many(many) => parse_sheet_list(many),
        };
        let problem = match parsed {
            Err(problem) => problem,
            Ok((parsed, Some(_))) if parsed.file.to_lowercase().ends_with(".csv") => {
                format!("`{}` is a CSV file: it has one sheet", parsed.file)
            }
            Ok(_) if raw.sheet.is_some() => "a table is found by `source` or by `sheet`, not both: put the sheet after a `#` in `source`".to_string(),
            Ok(parsed) => return Some(parsed),
        };
        self.error(source.error(Code::InvalidOption, text.span(), problem));
        None
    }

    /// A table read from several sheets has one `source_sheet` field to hold each
    /// row's; a table of one sheet has none.
    fn spread(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        sheets: Option<Sheets>,
        table: &TableSchema,
    ) -> Option<Spread> {
        let marked: Vec<usize> = (0..table.fields.len())
            .filter(|&f| table.fields[f].source_sheet)
            .collect();
        let span = raw.source.as_ref().map_or(0..0, Spanned::span);
        let problem = match (sheets, marked.as_slice()) {
            (Some(sheets), [field]) => {
                return Some(Spread {
                    sheets,
                    field: *field,
                });
            }
            (Some(_), []) => format!(
                "table `{}` is read from several sheets, and no field holds each row's: add a string field with `source_sheet = true`, so that export writes each row back to its sheet",
                table.name
            ),
            (Some(_), _) => format!(
                "table `{}` has {} fields with `source_sheet = true`: one holds each row's sheet",
                table.name,
                marked.len()
            ),
            (None, []) => return None,
            (None, [field, ..]) => format!(
                "field `{}` has `source_sheet = true`, and table `{}` is read from one sheet: `source_sheet` is for a table whose `source` is several sheets (`file#*`, or a list)",
                table.fields[*field].name, table.name
            ),
        };
        self.error(source.error(Code::InvalidOption, span, problem));
        None
    }

    /// The schema's name (or file stem), checked and registered; `None` when unusable.
    pub(super) fn schema_name(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        names: &mut Declared,
    ) -> Option<String> {
        let name = self.identifier_name(source, raw, "table")?;
        if let Some(first) = names.get(name.get_ref()) {
            self.error(
                source
                    .error(
                        Code::DuplicateName,
                        name.span(),
                        format!("table `{}` is declared twice", name.get_ref()),
                    )
                    .hint(format!("first declared at {}", first.place())),
            );
            return None;
        }
        names.insert(name.get_ref().clone(), source.location(name.span()));
        Some(name.into_inner())
    }

    /// A schema's `name` (or its file's stem): an identifier, else an error naming what
    /// the name is of (`table`, `record`).
    pub(super) fn identifier_name(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        of: &str,
    ) -> Option<Spanned<String>> {
        let name = match &raw.name {
            Some(n) => n.clone(),
            None => Spanned::new(0..0, source.stem()),
        };
        if is_identifier(name.get_ref()) {
            return Some(name);
        }
        let what = if raw.name.is_some() {
            format!("the {of} name")
        } else {
            format!("the file name (the default {of} name)")
        };
        self.error(identifier_error(source, &what, &name));
        None
    }

    /// `other_columns = "error"` (the default) or `"ignore"`.
    fn other_columns(&mut self, source: &SourceText, raw: &RawSchema) -> OtherColumns {
        let choices = [
            ("error", OtherColumns::Error),
            ("ignore", OtherColumns::Ignore),
        ];
        let hint =
            "`\"error\"` (a column no field names is an error) or `\"ignore\"` (it is not read)";
        self.one_of(
            source,
            ("other_columns", raw.other_columns.as_ref()),
            &choices,
            hint,
        )
    }

    /// `layout = "rows"` (the default) or `"vertical"`.
    fn layout(&mut self, source: &SourceText, raw: &RawSchema) -> Layout {
        let choices = [("rows", Layout::Rows), ("vertical", Layout::Vertical)];
        let hint = "`\"rows\"` (a header row, a row per record) or `\"vertical\"` (field names down the first column, a record in each column beside them)";
        self.one_of(source, ("layout", raw.layout.as_ref()), &choices, hint)
    }

    /// The value of an option of a few words (`choices`, the first the default when it
    /// is not written); another word is an error at its place, with `hint`.
    fn one_of<T: Copy>(
        &mut self,
        source: &SourceText,
        (option, written): (&str, Option<&Spanned<String>>),
        choices: &[(&str, T)],
        hint: &str,
    ) -> T {
        let Some(written) = written else {
            return choices[0].1;
        };
        let word = written.get_ref().as_str();
        if let Some((_, value)) = choices.iter().find(|(w, _)| *w == word) {
            return *value;
        }
        self.error(
            source
                .error(
                    Code::InvalidOption,
                    written.span(),
                    format!("{option} is `{word}`"),
                )
                .hint(hint),
        );
        choices[0].1
    }

    pub(super) fn build_table(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        name: String,
        sheet: String,
    ) -> Option<TableSchema> {
        let Some(raw_fields) = &raw.fields else {
            self.error(source.error(
                Code::SchemaSyntax,
                0..0,
                format!("table `{name}` has no [[fields]] (nor [reverse] or [custom])"),
            ));
            return None;
        };
        let mut fields = self.build_fields(source, raw_fields.get_ref())?;
        let kind = self.table_kind(source, raw, &fields);
        let primary_key = match kind {
            Some(TableKind::Keyed) => self.primary_key(source, raw, &name, &fields),
            Some(kind) => self.no_primary_key(source, raw, kind),
            // An unknown kind was reported; its key would be a guess.
            None => None,
        };
        let kind = kind.unwrap_or_default();
        let audience = self.table_audience(source, raw, &mut fields, primary_key.as_deref());
        let indexes = self.build_indexes(source, raw, &fields);
        let other_columns = self.other_columns(source, raw);
        let layout = self.layout(source, raw);
        let glossary = self.glossary(source, raw, &fields, primary_key.as_deref());
        let case_field = self.cases(source, raw, &mut fields, primary_key.as_deref());
        Some(TableSchema {
            name,
            sheet,
            source: None,
            spread: None,
            description: raw.description.clone(),
            other_columns,
            kind,
            layout,
            // A broken key was reported; the table stays so that its references are checked too.
            primary_key: primary_key.unwrap_or_default(),
            fields,
            indexes,
            audience,
            glossary,
            case_field,
            file: source.path.to_path_buf(),
        })
    }

    /// Every field of a table, or `None` when one is broken (keys and indexes would
    /// report fields that are merely broken as missing).
    pub(super) fn build_fields(
        &mut self,
        source: &SourceText,
        raw_fields: &[Spanned<RawField>],
    ) -> Option<Vec<Field>> {
        let mut fields = Vec::new();
        let mut seen: Declared = HashMap::new();
        for raw_field in raw_fields {
            let raw_field = raw_field.get_ref();
            let field_name = &raw_field.name;
            if !is_identifier(field_name.get_ref()) {
                self.error(identifier_error(source, "the field name", field_name));
                continue;
            }
            if let Some(first) = seen.get(field_name.get_ref()) {
                self.error(
                    source
                        .error(
                            Code::DuplicateName,
                            field_name.span(),
                            format!("field `{}` is declared twice", field_name.get_ref()),
                        )
                        .hint(format!("first declared at {}", first.place())),
                );
                continue;
            }
            seen.insert(
                field_name.get_ref().clone(),
                source.location(field_name.span()),
            );
            if let Some(field) = self.build_field(source, raw_field) {
                fields.push(field);
            }
        }
        // A header (and a place right of it) names one field: no `column` may be another
        // field's name or spelling at the same offset.
        let mut headers: HashMap<(&str, usize), &str> = HashMap::new();
        for field in &fields {
            headers.insert((&field.name, 0), &field.name);
        }
        for (raw_field, field) in raw_fields.iter().zip(&fields) {
            for spelling in &field.columns {
                match headers.insert((spelling, field.column_offset), &field.name) {
                    Some(other) if other != field.name => {
                        let span = raw_field
                            .get_ref()
                            .column
                            .as_ref()
                            .map_or(0..0, Spanned::span);
                        self.error(source.error(
                            Code::DuplicateName,
                            span,
                            format!(
                                "the header `{spelling}` would name both `{other}` and `{}`",
                                field.name
                            ),
                        ));
                    }
                    _ => {}
                }
            }
        }
        (fields.len() == raw_fields.len()).then_some(fields)
    }

    /// `kind = "table" | "singleton" | "list"`, and what each kind may not have: a list
    /// keeps no translations (they are kept by key), a singleton has no index (it has
    /// one record).
    fn table_kind(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        fields: &[Field],
    ) -> Option<TableKind> {
        let Some(written) = &raw.kind else {
            return Some(TableKind::Keyed);
        };
        let Some(kind) = TableKind::parse(written.get_ref()) else {
            let mut d = source
                .error(
                    Code::InvalidOption,
                    written.span(),
                    format!("`{}` is no kind of table", written.get_ref()),
                )
                .expected(TableKind::NAMES.join(", "));
            if let Some(close) = did_you_mean(written.get_ref(), TableKind::NAMES.into_iter()) {
                d = d.did_you_mean(close);
            }
            self.error(d);
            return None;
        };
        if kind == TableKind::List
            && let Some(text) = fields.iter().find(|f| f.ty == FieldType::Text)
        {
            self.error(
                source
                    .error(
                        Code::InvalidOption,
                        written.span(),
                        format!(
                            "a list has no key to keep translations by, and field `{}` is text",
                            text.name
                        ),
                    )
                    .hint("give the table a primary_key (a keyed table), or make the field a `string` if it is never translated"),
            );
        }
        if kind == TableKind::List
            && let Some(field) = fields.iter().find(|f| f.multi_row)
        {
            self.error(
                source
                    .error(
                        Code::InvalidOption,
                        written.span(),
                        format!(
                            "field `{}` is multi_row, and a list has no key whose empty cells would say that a row goes on with the one above",
                            field.name
                        ),
                    )
                    .hint("give the table a primary_key, or write the list in one cell"),
            );
        }
        if kind == TableKind::Singleton
            && let Some(index) = raw.indexes.first()
        {
            self.error(
                source
                    .error(
                        Code::InvalidOption,
                        index.span(),
                        "a singleton has one record: it has no indexes",
                    )
                    .hint("remove the [[indexes]]"),
            );
        }
        Some(kind)
    }

    /// A singleton or a list declares no key: its rows are found by place.
    fn no_primary_key(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        kind: TableKind,
    ) -> Option<Vec<usize>> {
        if let Some(pk) = &raw.primary_key {
            self.error(
                source
                    .error(
                        Code::InvalidOption,
                        pk.span(),
                        format!("a {} has no primary_key", kind.as_str()),
                    )
                    .hint(match kind {
                        TableKind::Singleton => "a singleton holds one record, read without a key: remove primary_key (or `kind` for a keyed table)",
                        _ => "a list's rows are found by their place: remove primary_key (or `kind` for a keyed table)",
                    }),
            );
        }
        Some(Vec::new())
    }

    /// The primary key's field positions: declared, not empty, of fields that are
    /// always there and compare as one value (not text, lists or optional fields).
    fn primary_key(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        name: &str,
        fields: &[Field],
    ) -> Option<Vec<usize>> {
        let primary_key = match &raw.primary_key {
            None => {
                self.error(
                    source
                        .error(
                            Code::InvalidOption,
                            0..0,
                            format!("table `{name}` has no primary_key"),
                        )
                        .hint("add `primary_key = [\"id\"]` (several fields for a composite key); `kind = \"list\"` for rows without a key, `kind = \"singleton\"` for one record"),
                );
                return None;
            }
            Some(pk) if pk.get_ref().is_empty() => {
                self.error(source.error(Code::InvalidOption, pk.span(), "primary_key is empty"));
                return None;
            }
            Some(pk) => self.field_list(source, fields, pk.get_ref(), "primary_key")?,
        };
        for (&i, spanned) in primary_key
            .iter()
            .zip(raw.primary_key.iter().flat_map(|p| p.get_ref()))
        {
            let field = &fields[i];
            let problem = match field.ty {
                FieldType::Text => Some("a text field (it is localized)"),
                FieldType::List(_) => Some("a list field"),
                FieldType::Map(..) => Some("a map field"),
                FieldType::Record(_) => Some("a record field"),
                FieldType::Union(_) => Some("a union field"),
                _ if field.optional => Some("an optional field"),
                _ => None,
            };
            if let Some(problem) = problem {
                self.error(source.error(
                    Code::InvalidOption,
                    spanned.span(),
                    format!("primary key field `{}` is {problem}", field.name),
                ));
            }
        }
        Some(primary_key)
    }

    /// Secondary indexes: fields and `order_by` that exist, no text field.
    fn build_indexes(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        fields: &[Field],
    ) -> Vec<Index> {
        let mut indexes = Vec::new();
        for raw_index in &raw.indexes {
            let raw_index = raw_index.get_ref();
            let index_fields = self.field_list(source, fields, raw_index.fields.get_ref(), "index");
            let order_by = self.field_list(source, fields, &raw_index.order_by, "order_by");
            if raw_index.fields.get_ref().is_empty() {
                self.error(source.error(
                    Code::InvalidOption,
                    raw_index.fields.span(),
                    "an index needs at least one field",
                ));
            }
            let (Some(index_fields), Some(order_by)) = (index_fields, order_by) else {
                continue;
            };
            for (&i, spanned) in index_fields.iter().zip(raw_index.fields.get_ref()) {
                let problem = match fields[i].ty {
                    FieldType::Text => Some("text field `{}` cannot be indexed (it is localized)"),
                    FieldType::Map(..) => {
                        Some("map field `{}` cannot be indexed (look a key up in it instead)")
                    }
                    FieldType::Record(_) => {
                        Some("record field `{}` cannot be indexed (index a table by one value)")
                    }
                    FieldType::Union(_) => {
                        Some("union field `{}` cannot be indexed (index a table by one value)")
                    }
                    _ => None,
                };
                if let Some(problem) = problem {
                    self.error(source.error(
                        Code::InvalidOption,
                        spanned.span(),
                        problem.replace("{}", &fields[i].name),
                    ));
                }
            }
            indexes.push(Index {
                fields: index_fields,
                unique: raw_index.unique,
                order_by,
            });
        }
        indexes
    }

    /// Resolve names to field indexes; report every missing or repeated one.
    pub(super) fn field_list(
        &mut self,
        source: &SourceText,
        fields: &[Field],
        names: &[Spanned<String>],
        what: &str,
    ) -> Option<Vec<usize>> {
        let mut indexes = Vec::new();
        let mut ok = true;
        for name in names {
            match fields.iter().position(|f| &f.name == name.get_ref()) {
                Some(i) if indexes.contains(&i) => {
                    self.error(source.error(
                        Code::DuplicateName,
                        name.span(),
                        format!("{what} names field `{}` twice", name.get_ref()),
                    ));
                    ok = false;
                }
                Some(i) => indexes.push(i),
                None => {
                    let mut d = source
                        .error(
                            Code::InvalidReference,
                            name.span(),
                            format!(
                                "{what} names `{}`, which is not a field of this table",
                                name.get_ref()
                            ),
                        )
                        .found(name.get_ref().clone());
                    if let Some(similar) =
                        did_you_mean(name.get_ref(), fields.iter().map(|f| f.name.as_str()))
                    {
                        d = d.did_you_mean(similar);
                    }
                    self.error(d);
                    ok = false;
                }
            }
        }
        ok.then_some(indexes)
    }

    pub(super) fn build_field(&mut self, source: &SourceText, raw: &RawField) -> Option<Field> {
        let name = raw.name.get_ref().clone();
        let ty = self.field_type(source, raw)?;
        let errors_before = self.report.error_count();
        let at = FieldSite {
            source,
            name: &name,
            ty: &ty,
        };
        let (min, max) = self.field_range(&at, raw);
        let (min_length, max_length) = self.field_lengths(&at, raw);
        let pattern = self.field_pattern(&at, raw);
        let values = self.enum_values(&at, raw);
        // Aliases and numbers of the enum's values, by the text cells write.
        let aliases = raw
            .values
            .iter()
            .flat_map(|v| v.get_ref())
            .flat_map(|v| {
                let value: Arc<str> = v.get_ref().name().into();
                v.get_ref()
                    .spellings()
                    .into_iter()
                    .map(move |s| (s, value.clone()))
            })
            .collect();
        let columns = self.field_columns(&at, raw);
        let column_offset = self.column_offset(&at, raw, &columns);
        let nulls = raw
            .null
            .as_ref()
            .map_or_else(|| self.nulls.clone(), |n| n.get_ref().to_vec());
        let separator = self.field_separator(&at, raw);
        let key_separator = self.key_separator(&at, raw);
        let multi_row = self.multi_row(&at, raw);
        let repeated_header = self.repeated_header(&at, raw, multi_row || column_offset > 0);
        let column_span = self.column_span(&at, raw, multi_row, repeated_header);
        let source_sheet = self.source_sheet(&at, raw);
        let escapes = self.escapes(&at, raw);
        let bool_spellings = self.bool_spellings(&at, raw);
        let references = self.field_reference(&at, raw);
        let default = raw
            .default
            .as_ref()
            .and_then(|d| self.option_value(source, &name, "default", &ty, d));
        if self.report.error_count() != errors_before {
            return None;
        }
        let field = Field {
            name,
            ty,
            optional: raw.optional,
            default,
            min,
            max,
            min_length,
            max_length,
            pattern,
            values,
            references,
            unique: raw.unique,
            description: raw.description.clone(),
            columns,
            column_offset,
            nulls,
            separator,
            key_separator,
            multi_row,
            repeated_header,
            column_span,
            source_sheet,
            escapes,
            aliases,
            bool_spellings,
            zone: self.zone.clone(),
            // Its table's, or its own: settled with the table (`table_audience`).
            audience: Default::default(),
            // The values of its table's `case_field`: settled with the table (`cases`).
            cases: Vec::new(),
        };
        if let Some(default) = &field.default
            && let Err(problem) = crate::check::check_value(&field, default)
        {
            let span = raw.default.as_ref().map_or(0..0, Spanned::span);
            self.error(source.error(
                Code::InvalidOption,
                span,
                format!(
                    "the default of field `{}` is not a valid value: {}",
                    field.name, problem.message
                ),
            ));
            return None;
        }
        Some(field)
    }

    /// The record or union type of a name, when the project has one so named.
    pub(super) fn named_type(&self, name: &str) -> Option<FieldType> {
        match (self.records.get(name), self.unions.get(name)) {
            (Some(record), _) => Some(FieldType::Record(record.clone())),
            (None, Some(union)) => Some(FieldType::Union(union.clone())),
            (None, None) => None,
        }
    }

    /// The field's type, or an error naming the closest known one.
    fn field_type(&mut self, source: &SourceText, raw: &RawField) -> Option<FieldType> {
        if let Some(ty) = FieldType::parse_in(raw.ty.get_ref(), &|name| self.named_type(name)) {
            return Some(ty);
        }
        // A broken record was reported: a field of it is broken, and said no more of.
        let broken = &self.broken_records;
        let named_broken = Cell::new(false);
        FieldType::parse_in(raw.ty.get_ref(), &|name| {
            named_broken.set(named_broken.get() || broken.contains(name));
            None
        });
        if named_broken.get() {
            return None;
        }
        let known = [
            "int", "float", "bool", "string", "text", "enum", "date", "datetime",
        ];
        let mut d = source
            .error(
                Code::UnknownType,
                raw.ty.span(),
                format!(
                    "field `{}` has unknown type `{}`",
                    raw.name.get_ref(),
                    raw.ty.get_ref()
                ),
            )
            .found(raw.ty.get_ref().clone())
            .expected("int, float, bool, string, text, enum, date, datetime, list<T>, map<K, V> or a record's name");
        if raw.ty.get_ref().trim().starts_with("map<") {
            d = d.hint("a map's key is int, string, enum or bool, its value any type but text, a list or a map (and not an enum when the key is one)");
        }
        let names = known
            .into_iter()
            .chain(self.records.keys().map(String::as_str));
        if let Some(similar) = similar_type(raw.ty.get_ref(), names) {
            d = d.did_you_mean(similar);
        }
        self.error(d);
        None
    }

    /// An option written on a field whose type it does not apply to.
    fn misplaced(&mut self, at: &FieldSite<'_>, span: Range<usize>, option: &str, applies: &str) {
        self.error(at.source.error(
            Code::InvalidOption,
            span,
            format!(
                "option `{option}` does not apply to field `{}` of type {}; it applies to {applies}",
                at.name, at.ty
            ),
        ));
    }

    /// `min` and `max`: of the field's scalar type, on ordered types, not crossed.
    fn field_range(
        &mut self,
        at: &FieldSite<'_>,
        raw: &RawField,
    ) -> (Option<Value>, Option<Value>) {
        let scalar = at.ty.scalar();
        let min = raw
            .min
            .as_ref()
            .and_then(|m| self.option_value(at.source, at.name, "min", scalar, m));
        let max = raw
            .max
            .as_ref()
            .and_then(|m| self.option_value(at.source, at.name, "max", scalar, m));
        for (option, spanned) in [("min", &raw.min), ("max", &raw.max)] {
            if let Some(s) = spanned
                && !scalar.is_ordered_scalar()
            {
                self.misplaced(at, s.span(), option, "int, float, date and datetime fields");
            }
        }
        if let (Some(lo), Some(hi)) = (&min, &max)
            && lo > hi
        {
            let span = raw.max.as_ref().map_or(0..0, Spanned::span);
            self.error(at.source.error(
                Code::InvalidOption,
                span,
                format!("field `{}` has min {lo} above max {hi}", at.name),
            ));
        }
        (min, max)
    }

    /// `min_length` and `max_length`: on textual types, non-negative, not crossed.
    fn field_lengths(&mut self, at: &FieldSite<'_>, raw: &RawField) -> (Option<u32>, Option<u32>) {
        let min_length = self.length(at, "min_length", &raw.min_length);
        let max_length = self.length(at, "max_length", &raw.max_length);
        if let (Some(lo), Some(hi)) = (min_length, max_length)
            && lo > hi
        {
            let span = raw.max_length.as_ref().map_or(0..0, Spanned::span);
            self.error(at.source.error(
                Code::InvalidOption,
                span,
                format!(
                    "field `{}` has min_length {lo} above max_length {hi}",
                    at.name
                ),
            ));
        }
        (min_length, max_length)
    }

    fn length(
        &mut self,
        at: &FieldSite<'_>,
        option: &str,
        raw: &Option<Spanned<i64>>,
    ) -> Option<u32> {
        let spanned = raw.as_ref()?;
        if !at.ty.scalar().is_textual() {
            self.misplaced(at, spanned.span(), option, "string, text and enum fields");
            return None;
        }
        match u32::try_from(*spanned.get_ref()) {
            Ok(n) => Some(n),
            Err(_) => {
                self.error(at.source.error(
                    Code::InvalidOption,
                    spanned.span(),
                    format!(
                        "`{option}` of field `{}` must be a non-negative whole number",
                        at.name
                    ),
                ));
                None
            }
        }
    }

    /// `pattern`: on textual types, a regular expression matched against the whole value.
    fn field_pattern(&mut self, at: &FieldSite<'_>, raw: &RawField) -> Option<(String, Regex)> {
        let p = raw.pattern.as_ref()?;
        if !at.ty.scalar().is_textual() {
            self.misplaced(at, p.span(), "pattern", "string, text and enum fields");
            return None;
        }
        match Regex::new(&format!("^(?:{})$", p.get_ref())) {
            Ok(re) => Some((p.get_ref().clone(), re)),
            Err(e) => {
                self.error(
                    at.source
                        .error(
                            Code::InvalidOption,
                            p.span(),
                            format!(
                                "the pattern of field `{}` is not a valid regular expression",
                                at.name
                            ),
                        )
                        .found(p.get_ref().clone())
                        .hint(
                            e.to_string()
                                .lines()
                                .last()
                                .unwrap_or_default()
                                .trim()
                                .to_string(),
                        ),
                );
                None
            }
        }
    }

    /// An enum's `values`: required on enums, only on enums, none empty or repeated.
    /// `separator`: on a list, a short text other than spaces; `|` needs no saying.
    fn field_separator(&mut self, at: &FieldSite<'_>, raw: &RawField) -> Option<String> {
        let separator = raw.separator.as_ref()?;
        let fits = matches!(at.ty, FieldType::List(_) | FieldType::Map(..));
        self.separator_option(at, separator, fits, "separator", "a list or map")
            .filter(|text| text != "|")
    }

    /// `multi_row`: on a list.
    fn multi_row(&mut self, at: &FieldSite<'_>, raw: &RawField) -> bool {
        let Some(multi_row) = &raw.multi_row else {
            return false;
        };
        if *multi_row.get_ref() && !matches!(at.ty, FieldType::List(_)) {
            self.error(at.source.error(
                Code::InvalidOption,
                multi_row.span(),
                format!(
                    "field `{}` is not a list: `multi_row` is for a list whose elements go on in the rows below",
                    at.name
                ),
            ));
            return false;
        }
        *multi_row.get_ref()
    }

    /// `repeated_header`: on a list read from its own header's columns (not a place
    /// right of another's, not going on in the rows below).
    fn repeated_header(&mut self, at: &FieldSite<'_>, raw: &RawField, placed: bool) -> bool {
        let refused = match () {
            () if !matches!(at.ty, FieldType::List(_)) => Some(
                "is not a list: `repeated_header` is for a list whose elements are spread over columns that repeat its header",
            ),
            () if placed => Some(
                "is multi_row or has a column_offset: a list spread over repeated headers is read under its own header, on its record's row",
            ),
            () => None,
        };
        self.flag(at, raw.repeated_header.as_ref(), refused)
    }

    /// `column_span`: on a list not over repeated headers, or a record or union, two
    /// columns or more (at most a sheet's width). A list read from its own row takes an
    /// element (or several) from each column; a record or union, its parts, one a
    /// column; a multi-row list of records or unions, one element a row, its parts over
    /// the columns.
    fn column_span(
        &mut self,
        at: &FieldSite<'_>,
        raw: &RawField,
        multi_row: bool,
        repeated_header: bool,
    ) -> usize {
        let Some(span) = &raw.column_span else {
            return 1;
        };
        let problem = match (*span.get_ref(), at.ty) {
            (_, ty) if !matches!(ty, FieldType::List(_)) && ty.parts_separator().is_none() => {
                "is neither a list nor a record or union: `column_span` is for a list whose elements, or a record whose parts, are spread over the columns its header spans".to_string()
            }
            _ if repeated_header => "has repeated_header: `column_span` is for a list read from its own header's columns".to_string(),
            (_, FieldType::List(element)) if multi_row && element.parts_separator().is_none() => {
                "is multi_row: a multi-row list spread over columns holds records or unions, one a row, its parts over the columns".to_string()
            }
            (n @ 2..=16384, _) => return n as usize,
            (n, _) => format!("has column_span {n}: two columns or more (a list over its header's column and the next)"),
        };
        self.error(at.source.error(
            Code::InvalidOption,
            span.span(),
            format!("field `{}` {problem}", at.name),
        ));
        1
    }

    /// `source_sheet`: on a string or enum, which no column holds.
    fn source_sheet(&mut self, at: &FieldSite<'_>, raw: &RawField) -> bool {
        let placed = raw.column.is_some()
            || raw.column_offset.is_some()
            || raw.multi_row.is_some()
            || raw.repeated_header.is_some();
        let refused = match () {
            () if !matches!(at.ty, FieldType::String | FieldType::Enum) => Some(
                "is not a string or enum: `source_sheet` holds the name of the sheet a row was read from",
            ),
            () if placed => Some(
                "has `source_sheet = true`: no column holds it (no `column`, `column_offset`, `multi_row` or `repeated_header`)",
            ),
            () => None,
        };
        self.flag(at, raw.source_sheet.as_ref(), refused)
    }

    /// A field's option of `true` or `false`: `true` when set so and nothing about the
    /// field `refused` it (else said, naming the field, and `false`).
    fn flag(
        &mut self,
        at: &FieldSite<'_>,
        flag: Option<&Spanned<bool>>,
        refused: Option<&str>,
    ) -> bool {
        let Some(flag) = flag.filter(|f| *f.get_ref()) else {
            return false;
        };
        let Some(why) = refused else {
            return true;
        };
        self.error(at.source.error(
            Code::InvalidOption,
            flag.span(),
            format!("field `{}` {why}", at.name),
        ));
        false
    }

    /// `escapes`: on a string or text.
    fn escapes(&mut self, at: &FieldSite<'_>, raw: &RawField) -> bool {
        let Some(escapes) = &raw.escapes else {
            return false;
        };
        if *escapes.get_ref() && !matches!(at.ty, FieldType::String | FieldType::Text) {
            self.error(at.source.error(
                Code::InvalidOption,
                escapes.span(),
                format!(
                    "field `{}` is not a string or text: `escapes` is for texts whose cells write line breaks as `\\n`",
                    at.name
                ),
            ));
            return false;
        }
        *escapes.get_ref()
    }

    /// `bool_spellings`: on a bool or a list of bools; the project's otherwise.
    fn bool_spellings(&mut self, at: &FieldSite<'_>, raw: &RawField) -> BoolSpellings {
        let of_bools = match at.ty {
            FieldType::Bool => true,
            FieldType::List(inner) => **inner == FieldType::Bool,
            _ => false,
        };
        let Some(spellings) = &raw.bool_spellings else {
            return match of_bools {
                true => self.bool_spellings,
                false => BoolSpellings::Plain,
            };
        };
        let Some(parsed) = BoolSpellings::parse(spellings.get_ref()) else {
            self.error(super::bool_spellings_refused(at.source, spellings));
            return BoolSpellings::Plain;
        };
        if !of_bools {
            self.error(at.source.error(
                Code::InvalidOption,
                spellings.span(),
                format!(
                    "field `{}` is not a bool: `bool_spellings` says how a bool's cells spell true and false",
                    at.name
                ),
            ));
            return BoolSpellings::Plain;
        }
        parsed
    }

    /// `key_separator`: on a map, like `separator`; `:` needs no saying.
    fn key_separator(&mut self, at: &FieldSite<'_>, raw: &RawField) -> Option<String> {
        let separator = raw.key_separator.as_ref()?;
        let fits = matches!(at.ty, FieldType::Map(..));
        self.separator_option(at, separator, fits, "key_separator", "a map")
            .filter(|text| text != ":")
    }

    /// A separator option checked: on a field of the type it is `for`, one to three
    /// characters, not spaces.
    fn separator_option(
        &mut self,
        at: &FieldSite<'_>,
        separator: &Spanned<String>,
        fits: bool,
        option: &str,
        type_for: &str,
    ) -> Option<String> {
        let text = separator.get_ref();
        let problem = if !fits {
            Some(format!(
                "field `{}` is not {type_for}: `{option}` is for {type_for} field",
                at.name
            ))
        } else if text.trim().is_empty()
            || text.chars().count() > 3
            || text.contains(char::is_control)
        {
            Some(format!(
                "field `{}` has {option} `{}`: one to three characters, not spaces",
                at.name,
                text.escape_debug()
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            self.error(
                at.source
                    .error(Code::InvalidOption, separator.span(), problem),
            );
            return None;
        }
        Some(text.clone())
    }

    /// `column_offset`: a count of columns right of a `column` header, which it needs.
    fn column_offset(&mut self, at: &FieldSite<'_>, raw: &RawField, columns: &[String]) -> usize {
        let Some(offset) = &raw.column_offset else {
            return 0;
        };
        let problem = match *offset.get_ref() {
            _ if columns.is_empty() => "needs a `column`: the header it counts from",
            n if !(0..=16_384).contains(&n) => "is not a count of columns (0 to 16384)",
            n => return n as usize,
        };
        self.error(at.source.error(
            Code::InvalidOption,
            offset.span(),
            format!("field `{}`'s column_offset {problem}", at.name),
        ));
        0
    }

    /// `column`: the headers the sheets give the field, each written once, on one line.
    fn field_columns(&mut self, at: &FieldSite<'_>, raw: &RawField) -> Vec<String> {
        let Some(column) = &raw.column else {
            return Vec::new();
        };
        let spellings = column.get_ref().to_vec();
        let mut seen = HashSet::new();
        for spelling in &spellings {
            let problem = if spelling.trim().is_empty() {
                Some("an empty header".to_string())
            } else if spelling.trim() != spelling || spelling.contains(char::is_control) {
                Some(format!(
                    "`{}`: a header is matched trimmed, on one line",
                    spelling.escape_debug()
                ))
            } else if !seen.insert(spelling.as_str()) {
                Some(format!("`{spelling}` twice"))
            } else {
                None
            };
            if let Some(problem) = problem {
                self.error(at.source.error(
                    Code::InvalidOption,
                    column.span(),
                    format!("field `{}` has column {problem}", at.name),
                ));
            }
        }
        spellings
    }

    fn enum_values(&mut self, at: &FieldSite<'_>, raw: &RawField) -> Vec<Arc<str>> {
        let name = at.name;
        let kind = match at.ty.holds_enum() {
            true => &FieldType::Enum,
            false => at.ty.scalar(),
        };
        match (&raw.values, kind) {
            (Some(v), FieldType::Enum) => {
                // Values, aliases and numbers: each text names one value.
                let mut seen = HashSet::new();
                for value in v.get_ref() {
                    let written = value.get_ref();
                    if written.name().is_empty() {
                        self.error(at.source.error(
                            Code::InvalidOption,
                            value.span(),
                            format!("enum `{name}` has an empty value"),
                        ));
                    }
                    for text in
                        std::iter::once(written.name().to_string()).chain(written.spellings())
                    {
                        if text.is_empty() {
                            continue;
                        }
                        if !seen.insert(text.clone()) {
                            self.error(at.source.error(
                                Code::DuplicateName,
                                value.span(),
                                format!("enum `{name}` lists `{text}` twice (as a value, alias or number)"),
                            ));
                        }
                    }
                }
                if v.get_ref().is_empty() {
                    self.error(at.source.error(
                        Code::InvalidOption,
                        v.span(),
                        format!("enum `{name}` has no values"),
                    ));
                }
                v.get_ref()
                    .iter()
                    .map(|s| s.get_ref().name().into())
                    .collect()
            }
            (None, FieldType::Enum) => {
                self.error(
                    at.source
                        .error(
                            Code::InvalidOption,
                            raw.ty.span(),
                            format!("enum field `{name}` has no `values`"),
                        )
                        .hint("add `values = [\"a\", \"b\"]`"),
                );
                Vec::new()
            }
            (Some(v), _) => {
                self.misplaced(at, v.span(), "values", "enum fields");
                Vec::new()
            }
            (None, _) => Vec::new(),
        }
    }

    /// `references = "table.field"`, as written; whether it names a real field is
    /// checked once every table is built (`check_references`).
    fn field_reference(&mut self, at: &FieldSite<'_>, raw: &RawField) -> Option<Reference> {
        let r = raw.references.as_ref()?;
        match r.get_ref().split_once('.') {
            Some((table, field)) if !table.is_empty() && !field.is_empty() => Some(Reference {
                table: table.to_string(),
                field: field.to_string(),
            }),
            _ => {
                self.error(
                    at.source
                        .error(
                            Code::InvalidReference,
                            r.span(),
                            format!(
                                "`references` of field `{}` is not of the form `table.field`",
                                at.name
                            ),
                        )
                        .found(r.get_ref().clone()),
                );
                None
            }
        }
    }

    /// A `default`, `min` or `max` converted to the field's type.
    pub(super) fn option_value(
        &mut self,
        source: &SourceText,
        field: &str,
        option: &str,
        ty: &FieldType,
        raw: &Spanned<toml::Value>,
    ) -> Option<Value> {
        match toml_value(ty, raw.get_ref(), &self.zone) {
            Some(v) => Some(v),
            None => {
                self.error(
                    source
                        .error(
                            Code::InvalidOption,
                            raw.span(),
                            format!(
                                "`{option}` of field `{field}` is not {}",
                                crate::parse::describe(ty)
                            ),
                        )
                        .found(source.text.get(raw.span()).unwrap_or_default().to_string()),
                );
                None
            }
        }
    }

    pub(super) fn check_references(&mut self, parsed: &[(SourceText, RawSchema)]) {
        for (source, raw) in parsed {
            let Some(raw_fields) = &raw.fields else {
                continue;
            };
            let table_name = raw
                .name
                .as_ref()
                .map_or_else(|| source.stem(), |n| n.get_ref().clone());
            for raw_field in raw_fields.get_ref() {
                let raw_field = raw_field.get_ref();
                let Some(spanned) = &raw_field.references else {
                    continue;
                };
                let Some(field) = self
                    .tables
                    .iter()
                    .find(|t| t.name == table_name)
                    .and_then(|t| t.field(raw_field.name.get_ref()))
                else {
                    continue;
                };
                let Some(reference) = &field.references else {
                    continue;
                };
                if self.broken_tables.contains(&reference.table) {
                    continue;
                }
                let audience_problem =
                    self.reference_audience_problem(&table_name, raw_field.name.get_ref());
                if let Some(problem) = audience_problem {
                    let d = source.error(Code::InvalidReference, spanned.span(), problem);
                    self.report.push(d);
                    continue;
                }
                if let Some(problem) = self.reference_problem(field, reference) {
                    let mut d = source
                        .error(
                            Code::InvalidReference,
                            spanned.span(),
                            format!("field `{}` references `{reference}`: {problem}", field.name),
                        )
                        .found(reference.to_string());
                    let candidates: Vec<String> = self
                        .tables
                        .iter()
                        .flat_map(|t| {
                            t.fields
                                .iter()
                                .map(move |f| format!("{}.{}", t.name, f.name))
                        })
                        .collect();
                    if let Some(similar) = did_you_mean(
                        &reference.to_string(),
                        candidates.iter().map(String::as_str),
                    ) {
                        d = d.did_you_mean(similar);
                    }
                    self.error(d);
                }
            }
        }
    }

    pub(super) fn reference_problem(&self, field: &Field, reference: &Reference) -> Option<String> {
        let Some(table) = self.tables.iter().find(|t| t.name == reference.table) else {
            return Some(format!("there is no table `{}`", reference.table));
        };
        let Some(target_index) = table.field_index(&reference.field) else {
            return Some(format!(
                "table `{}` has no field `{}`",
                table.name, reference.field
            ));
        };
        let target = &table.fields[target_index];
        let is_key = table.primary_key == [target_index] || target.unique;
        if !is_key {
            return Some(format!(
                "`{reference}` is neither the table's single-field primary key nor unique"
            ));
        }
        if field.ty == FieldType::Text || target.ty == FieldType::Text {
            return Some("text fields cannot be referenced (they are localized)".into());
        }
        if field.ty.referenced() != &target.ty {
            return Some(format!(
                "the field is {} but `{reference}` is {}",
                field.ty, target.ty
            ));
        }
        None
    }
}

/// Convert a TOML value written in a schema (`default`, `min`, `max`) to the type.
/// A datetime without an offset is a wall-clock time in `zone`.
fn toml_value(ty: &FieldType, raw: &toml::Value, zone: &Zone) -> Option<Value> {
    match (ty, raw) {
        (FieldType::Int, toml::Value::Integer(i)) => Some(Value::Int(*i)),
        (FieldType::Int, toml::Value::Float(f)) => value::float_to_int(*f).map(Value::Int),
        (FieldType::Float, toml::Value::Integer(i)) => Some(Value::Float(*i as f64)),
        (FieldType::Float, toml::Value::Float(f)) if f.is_finite() => Some(Value::Float(*f)),
        (FieldType::Bool, toml::Value::Boolean(b)) => Some(Value::Bool(*b)),
        (FieldType::String | FieldType::Text | FieldType::Enum, toml::Value::String(s)) => {
            Some(Value::Str(s.as_str().into()))
        }
        (FieldType::Date, toml::Value::String(s)) => value::parse_date(s).map(Value::Date),
        (FieldType::Date, toml::Value::Datetime(d)) => {
            value::parse_date(&d.to_string()).map(Value::Date)
        }
        (FieldType::DateTime, toml::Value::String(s)) => {
            read_datetime(s.trim(), Some(zone)).map(Value::DateTime)
        }
        (FieldType::DateTime, toml::Value::Datetime(d)) => {
            read_datetime(&d.to_string(), Some(zone)).map(Value::DateTime)
        }
        (FieldType::List(inner), toml::Value::Array(items)) => items
            .iter()
            .map(|item| toml_value(inner, item, zone))
            .collect::<Option<Vec<_>>>()
            .map(|v| Value::List(v.into())),
        (
            FieldType::List(_) | FieldType::Map(..) | FieldType::Record(_),
            toml::Value::String(s),
        ) => crate::parse::parse_text_in(ty, s, Some(zone)).ok(),
        // `default = { 1 = 100, 2 = 250 }`: TOML keys are text, read as the key type.
        (FieldType::Map(key, value), toml::Value::Table(entries)) => {
            let mut out = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let k = crate::parse::parse_text_in(key, k, Some(zone)).ok()?;
                out.push((k, toml_value(value, v, zone)?));
            }
            out.sort_by(|a, b| a.0.cmp(&b.0));
            Some(Value::Map(out.into()))
        }
        _ => None,
    }
}

/// The type closest to `written`: a built-in type's or a record's name, in the list or
/// map it is written in (`list<item_cots>`: `list<item_cost>`).
fn similar_type<'n>(written: &str, names: impl Iterator<Item = &'n str> + Clone) -> Option<String> {
    let written = written.trim();
    if let Some(similar) = did_you_mean(written, names.clone()) {
        return Some(similar.to_string());
    }
    // The last name of a container: a list's elements, a map's values.
    let inner = written.strip_suffix('>')?;
    let start = inner.rfind(['<', ','])? + 1;
    let name = inner[start..].trim();
    let similar = did_you_mean(name, names)?;
    Some(format!("{}{similar}>", &inner[..inner.len() - name.len()]))
}

/// A field being built: where it is written, its name and type, for the messages.
struct FieldSite<'s> {
    source: &'s SourceText<'s>,
    name: &'s str,
    ty: &'s FieldType,
}

/// `items.xlsx` or `item/道具.xlsx#Sheet1` as a schema's `source` (or an `[unread]`
/// entry) writes it: a spreadsheet file (by a known extension; the sheet after the
/// `#` that follows it), a relative path of `/`-separated names.
/// `source = ["shop.xlsx#Items", "shop.xlsx#Gems"]`: sheets of one workbook, each
/// named once (one alone is an ordinary `source`).
fn parse_sheet_list(texts: &[String]) -> Result<(SheetSource, Option<Sheets>), String> {
    let mut parsed = Vec::new();
    for text in texts {
        let source = parse_sheet_source(text)?;
        let Some(sheet) = source.sheet.clone() else {
            return Err(format!(
                "`{text}`: each of several sources names a sheet after `#`"
            ));
        };
        if parsed.iter().any(|(_, s)| *s == sheet) {
            return Err(format!("`{text}` is named twice"));
        }
        parsed.push((source, sheet));
    }
    let Some((first, _)) = parsed.first() else {
        return Err("`source` is an empty list: name a file, or sheets of one".into());
    };
    if let Some((other, _)) = parsed.iter().find(|(s, _)| s.file != first.file) {
        return Err(format!(
            "the sheets of one table are in one workbook: `{}` and `{}` are two",
            first.file, other.file
        ));
    }
    let first = first.clone();
    Ok(match parsed.len() {
        1 => (first, None),
        _ => (
            first,
            Some(Sheets::Named(parsed.into_iter().map(|(_, s)| s).collect())),
        ),
    })
}

pub(super) fn parse_sheet_source(text: &str) -> Result<SheetSource, String> {
    let lower = text.to_lowercase();
    let split = crate::read::SUPPORTED_EXTENSIONS
        .iter()
        .find_map(|extension| {
            let marker = format!(".{extension}#");
            lower.find(&marker).map(|at| at + marker.len() - 1)
        });
    let (file, sheet) = match split {
        Some(at) => (&text[..at], Some(text[at + 1..].to_string())),
        None => (text, None),
    };
    let known = crate::read::SUPPORTED_EXTENSIONS
        .iter()
        .any(|e| file.to_lowercase().ends_with(&format!(".{e}")));
    if !known {
        return Err(format!(
            "`{text}` names no spreadsheet file: one of {} (a sheet after `#`)",
            crate::read::SUPPORTED_EXTENSIONS.join(", ")
        ));
    }
    if file
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == ".." || part.contains('\\'))
    {
        return Err(format!(
            "`{text}`: a file name, or a relative path of `/`-separated names"
        ));
    }
    if sheet.as_deref().is_some_and(|s| s.trim().is_empty()) {
        return Err(format!("`{text}`: the sheet after `#` is empty"));
    }
    Ok(SheetSource {
        file: file.to_string(),
        sheet,
    })
}
