//! The files as written: serde types with spans, before any check.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use toml::Spanned;

use crate::diagnostic::Report;

use super::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    pub(super) source_language: Spanned<String>,
    #[serde(default)]
    pub(super) languages: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) regions: BTreeMap<String, Spanned<RawRegion>>,
    /// Cell texts that mean an empty cell in every field (`null = ["NULL"]`).
    pub(super) null: Option<Spanned<RawSpellings>>,
    /// Other spellings of a bool's values every bool field takes (`"luban"`).
    pub(super) bool_spellings: Option<Spanned<String>>,
    /// What a datetime without an offset means (IANA: `Asia/Tokyo`).
    pub(super) timezone: Option<Spanned<String>>,
    /// Where the project's builds are published (`[publish]`).
    pub(super) publish: Option<RawPublish>,
    /// The keys whose signed releases a fetch takes (`[delivery]`).
    pub(super) delivery: Option<RawDelivery>,
    /// Who is told of what happens (`[notify]`).
    pub(super) notify: Option<RawNotify>,
    /// Who sees a table that names no audience.
    pub(super) audience: Option<RawAudience>,
    /// What the exports hold that no table reads (`[unread]`).
    pub(super) unread: Option<RawUnread>,
    /// Pseudo languages every build holds (`[pseudo]`).
    pub(super) pseudo: Option<RawPseudo>,
    /// The font files each language is rendered with (`[fonts]`: `ja = "fonts/x.otf"`).
    pub(super) fonts: Option<BTreeMap<String, Spanned<RawSpellings>>>,
    /// How the translation checks that warn by default weigh (`[checks]`).
    pub(super) checks: Option<RawChecks>,
}

/// `[checks]`: `glossary = "warning"` (the default) or `"error"`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawChecks {
    pub(super) glossary: Option<Spanned<String>>,
}

/// `[pseudo]`: `languages = ["qps"]`, `expansion = 0.4`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPseudo {
    #[serde(default)]
    pub(super) languages: Vec<Spanned<String>>,
    pub(super) expansion: Option<Spanned<f64>>,
}

/// `[unread]`: `definitions` and `notes` (files or `file#sheet`s), and any other file or
/// sheet with why (`"demo.xlsx" = "no Luban table reads it"`) under `[unread.other]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawUnread {
    #[serde(default)]
    pub(super) definitions: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) notes: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) other: BTreeMap<String, Spanned<String>>,
}

/// `audience = ["server", "client"]`.
pub(super) type RawAudience = Spanned<Vec<Spanned<String>>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNotify {
    pub(super) webhook: Spanned<String>,
    pub(super) events: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDelivery {
    #[serde(default)]
    pub(super) trusted_keys: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPublish {
    pub(super) store: Spanned<String>,
    pub(super) endpoint: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRegion {
    pub(super) branch: Spanned<String>,
    pub(super) upstream: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) owns: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) languages: Vec<Spanned<String>>,
}

/// The configuration once it parsed, waiting for the tables to check `owns` against.
#[derive(Default)]
pub(super) struct RawConfigChecked {
    pub(super) file: Option<PathBuf>,
    pub(super) text: String,
    pub(super) config: Option<RawConfig>,
}

pub(super) fn parse_config(source: &SourceText, report: &mut Report) -> Option<RawConfigChecked> {
    match toml::from_str::<RawConfig>(source.text) {
        Ok(config) => Some(RawConfigChecked {
            file: Some(source.path.to_path_buf()),
            text: source.text.to_string(),
            config: Some(config),
        }),
        Err(e) => {
            report.push(toml_error(source, &e));
            None
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSchema {
    pub(super) name: Option<Spanned<String>>,
    pub(super) sheet: Option<Spanned<String>>,
    /// One `source`, or several sheets of one workbook.
    pub(super) source: Option<Spanned<RawSources>>,
    pub(super) description: Option<String>,
    /// `"ignore"`: the sheet's columns no field names are not read (a studio's notes).
    pub(super) other_columns: Option<Spanned<String>>,
    /// `"table"` (keyed, the default), `"singleton"` or `"list"`.
    pub(super) kind: Option<Spanned<String>>,
    /// `"rows"` (the default) or `"vertical"`: how `export` lays its sheet out.
    pub(super) layout: Option<Spanned<String>>,
    pub(super) primary_key: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) fields: Option<Spanned<Vec<Spanned<RawField>>>>,
    #[serde(default)]
    pub(super) indexes: Vec<Spanned<RawIndex>>,
    pub(super) reverse: Option<Spanned<RawReverse>>,
    pub(super) custom: Option<Spanned<RawCustom>>,
    /// Who may see the table or generated master.
    pub(super) audience: Option<RawAudience>,
    /// The project's approved translations of its terms (`glossary = true`).
    pub(super) glossary: Option<Spanned<bool>>,
    /// What separates a record's fields in its cells (`kind = "record"`; `,` by default),
    /// a union's case from its record's (`kind = "union"`).
    pub(super) separator: Option<Spanned<String>>,
    /// A union's cases (`kind = "union"`): each a record type, and the other texts a
    /// cell may name it by.
    pub(super) cases: Option<Spanned<Vec<Spanned<RawCase>>>>,
    /// The enum field saying which case each row is (`case_field = "type"`).
    pub(super) case_field: Option<Spanned<String>>,
    /// Texts a record's cell may write before its parts, naming its type.
    pub(super) names: Option<Spanned<Vec<Spanned<String>>>>,
}

/// `{ record = "triangle", names = ["Triangle", "三角形"] }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCase {
    pub(super) record: Spanned<String>,
    #[serde(default)]
    pub(super) names: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawField {
    pub(super) name: Spanned<String>,
    #[serde(rename = "type")]
    pub(super) ty: Spanned<String>,
    #[serde(default)]
    pub(super) optional: bool,
    pub(super) default: Option<Spanned<toml::Value>>,
    pub(super) min: Option<Spanned<toml::Value>>,
    pub(super) max: Option<Spanned<toml::Value>>,
    pub(super) min_length: Option<Spanned<i64>>,
    pub(super) max_length: Option<Spanned<i64>>,
    pub(super) pattern: Option<Spanned<String>>,
    pub(super) values: Option<Spanned<Vec<Spanned<RawEnumValue>>>>,
    pub(super) references: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) unique: bool,
    pub(super) description: Option<String>,
    /// The header the sheet gives the field, when not its name: one spelling or several.
    pub(super) column: Option<Spanned<RawSpellings>>,
    /// Read from the column this many places right of the `column` header (a structure
    /// spread over columns under one header).
    pub(super) column_offset: Option<Spanned<i64>>,
    /// Cell texts that mean an empty cell in this field (instead of the project's).
    pub(super) null: Option<Spanned<RawSpellings>>,
    /// What separates a list's elements in the sheets (`|` by default).
    pub(super) separator: Option<Spanned<String>>,
    /// What separates a map entry's key from its value in the sheets (`:` by default).
    pub(super) key_separator: Option<Spanned<String>>,
    /// A list continued in the rows below its record (Luban's `*field`).
    pub(super) multi_row: Option<Spanned<bool>>,
    /// A list over every column that repeats its header (tabtoy's `BuffID`, `BuffID`).
    pub(super) repeated_header: Option<Spanned<bool>>,
    /// A list over its header's column and those right of it, this many in all.
    pub(super) column_span: Option<Spanned<i64>>,
    /// The field holds the name of the sheet its row was read from.
    pub(super) source_sheet: Option<Spanned<bool>>,
    /// The sheets write line breaks and tabs as `\n`, `\t` (Luban's `#escape=1`).
    pub(super) escapes: Option<Spanned<bool>>,
    /// Other spellings of a bool's values the sheets write (`"luban"`: y, yes, n, no).
    pub(super) bool_spellings: Option<Spanned<String>>,
    /// Who may see the field (its table's audience when none is given).
    pub(super) audience: Option<RawAudience>,
    /// The cases whose rows fill the field (values of the table's `case_field`).
    pub(super) cases: Option<Spanned<Vec<Spanned<String>>>>,
}

/// `column = "アイテムID"` or `column = ["アイテムID", "Item ID"]`.
#[derive(Deserialize)]
#[serde(untagged, expecting = "a header (a string) or a list of headers")]
pub(super) enum RawSpellings {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawIndex {
    pub(super) fields: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    pub(super) unique: bool,
    #[serde(default)]
    pub(super) order_by: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawReverse {
    pub(super) target: Spanned<String>,
    pub(super) sources: Spanned<Vec<Spanned<RawReverseSource>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawReverseSource {
    pub(super) table: Spanned<String>,
    pub(super) field: Spanned<String>,
    #[serde(default)]
    pub(super) columns: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCustom {
    pub(super) kind: Spanned<String>,
    pub(super) table: Spanned<String>,
    pub(super) group_by: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) order_by: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) weight: Option<Spanned<String>>,
    pub(super) row: Option<Spanned<String>>,
    pub(super) column: Option<Spanned<String>>,
    pub(super) value: Option<Spanned<String>>,
    pub(super) default: Option<Spanned<toml::Value>>,
}

/// `source = "shop.xlsx"`, or sheets of one workbook: `["shop.xlsx#A", "shop.xlsx#B"]`.
#[derive(Deserialize)]
#[serde(
    untagged,
    expecting = "a file (a string), or a list of sheets of one workbook (`[\"shop.xlsx#Items\", \"shop.xlsx#Gems\"]`)"
)]
pub(super) enum RawSources {
    One(String),
    Many(Vec<String>),
}

impl RawSpellings {
    pub(super) fn to_vec(&self) -> Vec<String> {
        match self {
            RawSpellings::One(one) => vec![one.clone()],
            RawSpellings::Many(many) => many.clone(),
        }
    }
}

/// An enum value: `"red"`, or `{ value = "red", aliases = ["红"], number = 1 }` — the
/// other ways cells write it.
#[derive(Deserialize)]
#[serde(
    untagged,
    expecting = "a value (a string) or { value, aliases, number }"
)]
pub(super) enum RawEnumValue {
    Name(String),
    Full(RawEnumSpellings),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEnumSpellings {
    pub(super) value: String,
    #[serde(default)]
    pub(super) aliases: Vec<String>,
    pub(super) number: Option<i64>,
}

impl RawEnumValue {
    /// The value as canonical files write it.
    pub(super) fn name(&self) -> &str {
        match self {
            RawEnumValue::Name(name) => name,
            RawEnumValue::Full(full) => &full.value,
        }
    }

    /// The other texts cells write it as: its aliases and its number.
    pub(super) fn spellings(&self) -> Vec<String> {
        match self {
            RawEnumValue::Name(_) => Vec::new(),
            RawEnumValue::Full(full) => full
                .aliases
                .iter()
                .cloned()
                .chain(full.number.map(|n| n.to_string()))
                .collect(),
        }
    }
}
