//! `audience` in the schemas and `masterctl.toml`, checked: the names are `server`,
//! `client` and `design` (which stands alone: it never leaves the repository); a field
//! is seen by no one its table is not seen by, and a table's key by everyone who sees
//! the table; a reference, and a generated master, never lead an audience to data it
//! may not see (the chain is named).

use crate::audience::{Audience, Audiences};
use crate::diagnostic::Code;
use crate::schema::{Field, GeneratedKind, Project};

use super::*;

impl Builder {
    /// `audience` of `masterctl.toml`, the default of every table that names none.
    pub(super) fn project_audience(&mut self, config: Option<&RawConfigChecked>) {
        let Some(checked) = config else {
            return;
        };
        let Some(raw) = checked.config.as_ref().and_then(|c| c.audience.as_ref()) else {
            return;
        };
        let path = checked.file.clone().unwrap_or_default();
        let source = SourceText::new(&path, &checked.text);
        if let Some(audience) = self.audiences(&source, raw) {
            self.audience = audience;
        }
    }

    /// An `audience` list: known names, not empty, `design` alone.
    pub(super) fn audiences(
        &mut self,
        source: &SourceText,
        raw: &RawAudience,
    ) -> Option<Audiences> {
        let mut named = Vec::new();
        for name in raw.get_ref() {
            match Audience::of(name.get_ref()) {
                Some(audience) => named.push(audience),
                None => {
                    self.error(
                        source
                            .error(
                                Code::InvalidOption,
                                name.span(),
                                format!("`{}` is not an audience", name.get_ref()),
                            )
                            .expected("server, client or design"),
                    );
                    return None;
                }
            }
        }
        let audiences = Audiences::of(&named);
        let problem = if audiences.is_empty() {
            Some("an audience list names at least one audience")
        } else if audiences.contains(Audience::Design)
            && audiences != Audiences::of(&[Audience::Design])
        {
            Some("`design` stands alone: what designers alone see never leaves the repository")
        } else {
            None
        };
        if let Some(problem) = problem {
            self.error(source.error(Code::InvalidOption, raw.span(), problem));
            return None;
        }
        Some(audiences)
    }

    /// A table's audience (its own, else the project's), given to each of its fields
    /// that names none; a field's own must be within the table's, and a key field's is
    /// the table's.
    pub(super) fn table_audience(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        fields: &mut [Field],
        primary_key: Option<&[usize]>,
    ) -> Audiences {
        let table = match &raw.audience {
            Some(raw) => self.audiences(source, raw).unwrap_or(self.audience),
            None => self.audience,
        };
        let raw_fields = raw
            .fields
            .as_ref()
            .map(|f| f.get_ref().as_slice())
            .unwrap_or_default();
        for (index, (field, raw_field)) in fields.iter_mut().zip(raw_fields).enumerate() {
            let Some(raw) = &raw_field.get_ref().audience else {
                field.audience = table;
                continue;
            };
            let Some(own) = self.audiences(source, raw) else {
                field.audience = table;
                continue;
            };
            let is_key = primary_key.is_some_and(|key| key.contains(&index));
            // What designers alone see may sit in any table: it stays in the repository.
            let problem = if !own.is_within(table.and_also(Audience::Design)) {
                Some(format!(
                    "field `{}` is for {own}, but its table is for {table} only: {} would not see it",
                    field.name,
                    own.beyond(table)
                ))
            } else if is_key && own != table {
                Some(format!(
                    "field `{}` is the table's key: everyone who sees the table ({table}) sees it",
                    field.name
                ))
            } else {
                None
            };
            if let Some(problem) = problem {
                self.error(source.error(Code::InvalidOption, raw.span(), problem));
            }
            field.audience = own;
        }
        table
    }

    /// Why `table.field`'s reference leads an audience to data it may not see: the
    /// server build would name rows it lacks, or the client build would need data meant
    /// for the server alone.
    pub(super) fn reference_audience_problem(&self, table: &str, field: &str) -> Option<String> {
        let from_table = self.tables.iter().find(|t| t.name == table)?;
        let from = from_table.field(field)?;
        let reference = from.references.as_ref()?;
        let to_table = self.tables.iter().find(|t| t.name == reference.table)?;
        let to = to_table.field(&reference.field)?;
        let sees = to_table.audience.and(to.audience);
        let lacking = from.audience.beyond(sees);
        let lacking: Vec<Audience> = lacking.iter().filter(|a| *a != Audience::Design).collect();
        let first = lacking.first()?;
        Some(format!(
            "{first} sees `{table}.{field}`, which references `{reference}`, which {first} does not see (`{}` is for {sees}): give `{table}.{field}` the audience of what it references, or widen that",
            reference.table
        ))
    }

    /// A generated master's audience: its own (within everyone's who sees all it is made
    /// from), else exactly those.
    pub(super) fn generated_audience(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        name: &str,
        kind: &GeneratedKind,
    ) -> Audiences {
        // Everything it reads, and who sees each.
        let mut read: Vec<(String, Audiences)> = Vec::new();
        for (table, fields) in Project::generated_inputs(kind) {
            let Some(schema) = self.tables.iter().find(|t| t.name == table) else {
                continue;
            };
            read.push((table.to_string(), schema.audience));
            for f in fields {
                if let Some(field) = schema.field(f) {
                    read.push((format!("{table}.{f}"), field.audience));
                }
            }
        }
        let inputs = read
            .iter()
            .fold(Audiences::of(&Audience::ALL), |all, (_, a)| all.and(*a));
        let Some(raw) = &raw.audience else {
            return inputs;
        };
        let Some(own) = self.audiences(source, raw) else {
            return inputs;
        };
        if !own.is_within(inputs) {
            let beyond = own.beyond(inputs);
            let from = read
                .iter()
                .find(|(_, audience)| !own.is_within(*audience))
                .map(|(what, audience)| format!(" (`{what}` is for {audience})"))
                .unwrap_or_default();
            self.error(source.error(
                Code::InvalidOption,
                raw.span(),
                format!(
                    "generated master `{name}` is for {own}, but it is made from data {beyond} does not see{from}"
                ),
            ));
            return inputs;
        }
        own
    }
}
