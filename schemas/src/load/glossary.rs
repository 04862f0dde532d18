//! `glossary = true`: a table of terms and their approved translations. Keyed by a
//! `string` field `term`; `do_not_translate` a `bool`, `note` and every other field a
//! `string` (a field named after a language, `en` or `zh_hant` for `zh-Hant`, holds the
//! approved translation into it).

use toml::Spanned;

use crate::diagnostic::Code;
use crate::schema::{Field, FieldType};

use super::*;

impl Builder {
    pub(super) fn glossary(
        &mut self,
        source: &SourceText,
        raw: &RawSchema,
        fields: &[Field],
        primary_key: Option<&[usize]>,
    ) -> bool {
        let Some(glossary) = raw.glossary.as_ref().filter(|g| *g.get_ref()) else {
            return false;
        };
        let keyed_by_term = primary_key.is_some_and(|key| {
            key.len() == 1
                && fields[key[0]].name == "term"
                && fields[key[0]].ty == FieldType::String
        });
        let problem = if !keyed_by_term {
            Some("a glossary is keyed by a `string` field `term` (`primary_key = [\"term\"]`): one row per term, none twice".to_string())
        } else {
            fields.iter().find_map(|field| {
                let expected = match field.name.as_str() {
                    "do_not_translate" => FieldType::Bool,
                    _ => FieldType::String,
                };
                (field.ty != expected).then(|| {
                    format!(
                        "field `{}` of a glossary is {}: a glossary holds strings (the term, a translation per language, `note`) and the bool `do_not_translate`",
                        field.name,
                        crate::parse::describe(&field.ty)
                    )
                })
            })
        };
        match problem {
            Some(problem) => {
                self.error(source.error(Code::InvalidOption, Spanned::span(glossary), problem));
                false
            }
            None => true,
        }
    }
}
