//! Translation units and their states.
//!
//! A unit is one source text to translate: a table's text field in one row, with a
//! non-empty source-language text. In a target language it is
//!
//! - **missing**: no translation;
//! - **stale**: translated, but from another source text than today's (or from a source
//!   nobody recorded) — the old source is at hand to see what changed;
//! - **failing**: translated from today's source, but a check fails ([`crate::checks`]);
//! - **translated**: none of the above.

use masterctl_schemas::audience::Audience;
use std::fmt;

use masterctl_schemas::value::LIST_SEPARATOR;
use masterctl_schemas::{TableSchema, Value};
use serde::Serialize;

use crate::checks::{Checker, Failure};
use crate::texts::{Key, SourceRecord, TableTexts, text_fields};

/// Where a unit stands in one language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Translated,
    Missing,
    Stale,
    Failing,
}

impl State {
    pub const ALL: [State; 4] = [
        State::Translated,
        State::Missing,
        State::Stale,
        State::Failing,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            State::Translated => "translated",
            State::Missing => "missing",
            State::Stale => "stale",
            State::Failing => "failing",
        }
    }

    /// Whether a translator has work to do on the unit.
    pub fn needs_work(self) -> bool {
        self != State::Translated
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A row's key as one text: canonical values joined by `|` (`10|3`).
pub fn key_text(key: &[Value]) -> String {
    let mut text = String::new();
    for (i, value) in key.iter().enumerate() {
        if i > 0 {
            text.push(LIST_SEPARATOR);
        }
        text.push_str(&value.canonical());
    }
    text
}

/// A unit's identity in exchange files: `table/field/key` (`item/name/1`,
/// `quest_drop/note/10|3`; a singleton's, without a key: `game_rules/welcome`). Table
/// and field names never hold `/`; the key may.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnitId {
    pub table: String,
    pub field: String,
    pub key: String,
}

impl UnitId {
    pub fn parse(text: &str) -> Option<UnitId> {
        let mut parts = text.splitn(3, '/');
        // A singleton's units have no key: `game_rules/welcome`.
        let (table, field, key) = (parts.next()?, parts.next()?, parts.next().unwrap_or(""));
        if table.is_empty() || field.is_empty() {
            return None;
        }
        Some(UnitId {
            table: table.to_string(),
            field: field.to_string(),
            key: key.to_string(),
        })
    }
}

impl fmt::Display for UnitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.key.is_empty() {
            true => write!(f, "{}/{}", self.table, self.field),
            false => write!(f, "{}/{}/{}", self.table, self.field, self.key),
        }
    }
}

/// The record of a translation nobody recorded a source for: treated as made from an
/// unknown older source (stale, with no old text to show).
pub static UNRECORDED: SourceRecord = SourceRecord {
    hash: String::new(),
    text: String::new(),
};

/// One unit in one target language, with everything a translator needs to see; it
/// borrows from the schema and the language tables it was read from.
#[derive(Debug, Clone)]
pub struct Unit<'a> {
    pub table: &'a str,
    pub field: &'a str,
    pub key: &'a Key,
    pub source: &'a str,
    pub translation: Option<&'a str>,
    /// The recorded source, when it is not today's (stale units).
    pub old_source: Option<&'a SourceRecord>,
    pub state: State,
    pub failures: Vec<Failure>,
    pub max_length: Option<u32>,
    pub description: Option<&'a str>,
    /// Who sees the text, when only servers or only clients do (a translator's context:
    /// a server-sent mail, a client's menu); `None` for both.
    pub audience: Option<masterctl_schemas::audience::Audiences>,
    /// The glossary terms its source holds, as a translator sees them (`剣 → sword`).
    pub glossary: Vec<String>,
    /// What is warned about its translation (a glossary miss, an inconsistency): it
    /// stays translated.
    pub warnings: Vec<Failure>,
    /// What the translation memory offers it (filled for an export): an exact match
    /// first, else close ones.
    pub memory: Vec<crate::memory::MemoryMatch>,
}

impl Unit<'_> {
    /// The memory's exact match, which an export offers as the unit's translation to
    /// review (a unit without translation only).
    pub fn suggestion(&self) -> Option<&str> {
        match (self.state, self.memory.first()) {
            (State::Missing, Some(m)) if m.score == 100 => Some(&m.translation),
            _ => None,
        }
    }

    /// The memory's close matches (below 100%).
    pub fn close_matches(&self) -> impl Iterator<Item = &crate::memory::MemoryMatch> {
        self.memory.iter().filter(|m| m.score < 100)
    }
}

impl Unit<'_> {
    /// The key as one text (`10|3`).
    pub fn key_text(&self) -> String {
        key_text(self.key)
    }

    pub fn id(&self) -> UnitId {
        UnitId {
            table: self.table.to_string(),
            field: self.field.to_string(),
            key: self.key_text(),
        }
    }
}

/// Every unit of one table in one target language, in key then field order.
pub fn table_units<'a>(
    schema: &'a TableSchema,
    source: &'a TableTexts,
    target: &'a TableTexts,
    checker: &Checker,
) -> Vec<Unit<'a>> {
    let fields = text_fields(schema);
    let mut units = Vec::with_capacity(source.rows.len() * fields.len());
    let both = masterctl_schemas::audience::Audiences::default();
    for (key, row) in &source.rows {
        let translated = target.rows.get(key);
        for (position, &f) in fields.iter().enumerate() {
            let Some(text) = row.text(position) else {
                continue;
            };
            let field = &schema.fields[f];
            // What designers alone see is never sent out to be translated.
            if !field.audience.contains(Audience::Server)
                && !field.audience.contains(Audience::Client)
            {
                continue;
            }
            let translation = translated.and_then(|t| t.text(position));
            let record = translated.and_then(|t| t.record(position));
            let mut warnings = Vec::new();
            let (state, failures, old_source) = match translation {
                None => (State::Missing, Vec::new(), None),
                Some(translation) => match record {
                    Some(record) if record.is_of(text) => {
                        let failures = checker.check(text, translation, field.max_length);
                        let state = if failures.is_empty() {
                            State::Translated
                        } else {
                            State::Failing
                        };
                        warnings = checker.warnings(text, translation);
                        (state, failures, None)
                    }
                    _ => (
                        State::Stale,
                        Vec::new(),
                        Some(record.unwrap_or(&UNRECORDED)),
                    ),
                },
            };
            units.push(Unit {
                table: &schema.name,
                field: &field.name,
                key,
                source: text,
                translation,
                old_source,
                state,
                failures,
                max_length: field.max_length,
                description: field.description.as_deref(),
                audience: (field.audience != both).then_some(field.audience),
                glossary: checker.glossary_terms(text),
                warnings,
                memory: Vec::new(),
            });
        }
    }
    units
}

/// Mark the units of one language whose source text is translated otherwise elsewhere
/// (`inconsistent`, a warning): each names the others of its source, up to five.
pub fn mark_inconsistent(units: &mut [Vec<Unit<'_>>]) {
    use std::collections::HashMap;
    const NAMED: usize = 5;
    // Every translated source text, and its units' places and translations.
    let mut by_source: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for (t, table) in units.iter().enumerate() {
        for (u, unit) in table.iter().enumerate() {
            if unit.translation.is_some() && unit.old_source.is_none() {
                by_source.entry(unit.source).or_default().push((t, u));
            }
        }
    }
    let mut marks: Vec<((usize, usize), Failure)> = Vec::new();
    for places in by_source.values().filter(|p| p.len() > 1) {
        let translation = |&(t, u): &(usize, usize)| units[t][u].translation.unwrap_or("");
        let first = translation(&places[0]);
        if places.iter().all(|p| translation(p) == first) {
            continue;
        }
        for place in places {
            let others = places
                .iter()
                .filter(|other| translation(other) != translation(place))
                .take(NAMED)
                .map(|&(t, u)| {
                    let unit = &units[t][u];
                    (
                        unit.id().to_string(),
                        unit.translation.unwrap_or("").to_string(),
                    )
                })
                .collect();
            marks.push((*place, Failure::Inconsistent { others }));
        }
    }
    for ((t, u), failure) in marks {
        units[t][u].warnings.push(failure);
    }
}

/// Units per state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub translated: usize,
    pub missing: usize,
    pub stale: usize,
    pub failing: usize,
}

impl Counts {
    pub fn add(&mut self, state: State) {
        *self.get_mut(state) += 1;
    }

    pub fn get(&self, state: State) -> usize {
        match state {
            State::Translated => self.translated,
            State::Missing => self.missing,
            State::Stale => self.stale,
            State::Failing => self.failing,
        }
    }

    fn get_mut(&mut self, state: State) -> &mut usize {
        match state {
            State::Translated => &mut self.translated,
            State::Missing => &mut self.missing,
            State::Stale => &mut self.stale,
            State::Failing => &mut self.failing,
        }
    }

    pub fn total(&self) -> usize {
        self.translated + self.missing + self.stale + self.failing
    }

    pub fn merge(&mut self, other: &Counts) {
        for state in State::ALL {
            *self.get_mut(state) += other.get(state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_ids_round_trip_keys_with_slashes() {
        let id = UnitId::parse("shop/name/a/b|2").unwrap();
        assert_eq!(id.table, "shop");
        assert_eq!(id.field, "name");
        assert_eq!(id.key, "a/b|2");
        assert_eq!(id.to_string(), "shop/name/a/b|2");
        // A singleton's: no key.
        let id = UnitId::parse("game_rules/welcome").unwrap();
        assert_eq!((id.field.as_str(), id.key.as_str()), ("welcome", ""));
        assert_eq!(id.to_string(), "game_rules/welcome");
        assert!(UnitId::parse("shop").is_none());
        assert!(UnitId::parse("/name/1").is_none());
    }
}
