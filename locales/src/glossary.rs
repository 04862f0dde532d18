//! The glossary: a project's terms and their approved translations (a table declared
//! `glossary = true`, keyed by `term`, a column per language — `en`, `zh_hant` for
//! `zh-Hant` — `do_not_translate` and `note`).
//!
//! A unit whose source holds a term must hold the term's approved translation in its
//! translation (`glossary`), or the term itself, verbatim, when it is not to be
//! translated. Texts in Latin script are matched ignoring case and letting a word end
//! differently by up to three letters (`sword` in `Swords`, `Schwert` in `Schwertes`);
//! any other script exactly (`剣` in `鉄の剣`).

use std::collections::BTreeMap;

use masterctl_schemas::{FieldType, Table, TableSchema, Value};

/// One term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub term: String,
    /// The approved translation, by language.
    pub translations: BTreeMap<String, String>,
    pub do_not_translate: bool,
    pub note: Option<String>,
}

impl Entry {
    /// What a translation into `language` must hold: the term itself when it is not
    /// translated, else its approved translation (none: nothing is asked).
    pub fn expected(&self, language: &str) -> Option<&str> {
        match self.do_not_translate {
            true => Some(&self.term),
            false => self.translations.get(language).map(String::as_str),
        }
    }

    /// How a translator sees it: `剣 → sword`, `Excalibur (do not translate)`, and the
    /// note after a dash.
    pub fn shown(&self, language: &str) -> String {
        let mut shown = match self.expected(language) {
            Some(expected) if !self.do_not_translate => format!("{} → {expected}", self.term),
            _ if self.do_not_translate => format!("{} (do not translate)", self.term),
            _ => self.term.clone(),
        };
        if let Some(note) = &self.note {
            shown.push_str(" — ");
            shown.push_str(note);
        }
        shown
    }
}

/// Every term of the project's glossary tables, indexed for finding them in texts.
#[derive(Debug, Clone, Default)]
pub struct Glossary {
    pub entries: Vec<Entry>,
    index: Index,
}

/// How terms are found: those in Latin script by their first word's first three
/// letters (then word by word), the others with one automaton over all of them.
#[derive(Debug, Clone, Default)]
struct Index {
    /// Each entry's term as lower-cased words, when it is in Latin script.
    words: Vec<Option<Vec<String>>>,
    /// Latin-script entries by the first three letters of their first word.
    by_start: std::collections::HashMap<String, Vec<usize>>,
    /// The other terms, and the entry each is.
    exact: Option<(aho_corasick::AhoCorasick, Vec<usize>)>,
}

/// A term whose approved translation a translation lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Miss {
    pub term: String,
    /// What the translation should hold.
    pub expected: String,
    pub do_not_translate: bool,
}

impl Glossary {
    /// The terms of a glossary table's rows; `languages` are the project's (a column
    /// named after one holds its translations).
    pub fn add_table(&mut self, schema: &TableSchema, table: &Table, languages: &[String]) {
        let column = |name: &str| schema.field_index(name);
        let Some(term) = column("term") else {
            return;
        };
        let do_not_translate = column("do_not_translate");
        let note = column("note");
        let translations: Vec<(String, usize)> = languages
            .iter()
            .filter_map(|language| {
                let field = column(&language.to_lowercase().replace('-', "_"))?;
                (schema.fields[field].ty == FieldType::String).then(|| (language.clone(), field))
            })
            .collect();
        let text = |row: usize, field: usize| match table.value(row, field) {
            Value::Str(text) if !text.trim().is_empty() => Some(text.to_string()),
            _ => None,
        };
        for row in 0..table.row_count() {
            let Some(term) = text(row, term) else {
                continue;
            };
            self.entries.push(Entry {
                term,
                translations: translations
                    .iter()
                    .filter_map(|(language, field)| Some((language.clone(), text(row, *field)?)))
                    .collect(),
                do_not_translate: do_not_translate
                    .is_some_and(|f| matches!(table.value(row, f), Value::Bool(true))),
                note: note.and_then(|f| text(row, f)),
            });
        }
        self.index = Index::of(&self.entries);
    }

    /// A glossary of these entries.
    pub fn of(entries: Vec<Entry>) -> Glossary {
        let index = Index::of(&entries);
        Glossary { entries, index }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The terms a source text holds, in glossary order.
    pub fn terms_in(&self, source: &str) -> Vec<&Entry> {
        if self.entries.is_empty() {
            return Vec::new();
        }
        let mut found: Vec<usize> = Vec::new();
        if let Some((automaton, entries)) = &self.index.exact {
            for m in automaton.find_overlapping_iter(source) {
                found.push(entries[m.pattern().as_usize()]);
            }
        }
        if !self.index.by_start.is_empty() {
            let words = Words::of(source);
            for (at, word) in words.0.iter().enumerate() {
                let Some(candidates) = start(word).and_then(|s| self.index.by_start.get(s)) else {
                    continue;
                };
                for &entry in candidates {
                    let wanted = self.index.words[entry].as_deref().unwrap_or_default();
                    if words.0[at..].len() >= wanted.len()
                        && words.0[at..at + wanted.len()]
                            .iter()
                            .zip(wanted)
                            .all(|(have, want)| inflected(have, want))
                    {
                        found.push(entry);
                    }
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|i| &self.entries[i]).collect()
    }

    /// The terms of `source` whose approved translation (or the term itself, when it is
    /// not translated) `translation` lacks.
    pub fn misses(&self, language: &str, source: &str, translation: &str) -> Vec<Miss> {
        let terms = self.terms_in(source);
        if terms.is_empty() {
            return Vec::new();
        }
        let words = Words::of(translation);
        terms
            .into_iter()
            .filter_map(|entry| {
                let expected = entry.expected(language)?;
                let found = match entry.do_not_translate {
                    true => translation.contains(expected),
                    false => holds(translation, &words, expected),
                };
                (!found).then(|| Miss {
                    term: entry.term.clone(),
                    expected: expected.to_string(),
                    do_not_translate: entry.do_not_translate,
                })
            })
            .collect()
    }
}

impl Index {
    fn of(entries: &[Entry]) -> Index {
        let mut index = Index::default();
        let mut exact: Vec<(&str, usize)> = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let words = is_latin(&entry.term).then(|| Words::of(&entry.term).0);
            match words
                .as_deref()
                .and_then(|w| w.first())
                .and_then(|w| start(w))
            {
                Some(first) => index.by_start.entry(first.to_string()).or_default().push(i),
                None => exact.push((&entry.term, i)),
            }
            index.words.push(words);
        }
        if !exact.is_empty() {
            let automaton = aho_corasick::AhoCorasick::new(exact.iter().map(|(t, _)| *t))
                .expect("terms of a glossary make an automaton");
            index.exact = Some((automaton, exact.into_iter().map(|(_, i)| i).collect()));
        }
        index
    }
}

/// The first three letters of a word: what an inflected form shares with it. Shorter
/// words are their own start.
fn start(word: &str) -> Option<&str> {
    let end = word.char_indices().nth(3).map_or(word.len(), |(at, _)| at);
    (!word.is_empty()).then(|| &word[..end])
}

/// A text's words in Latin script, lower-cased: any other character ends a word
/// (`HPの薬` holds the word `hp`).
struct Words(Vec<String>);

impl Words {
    fn of(text: &str) -> Words {
        Words(
            text.split(|c: char| !(c.is_alphanumeric() && is_latin_char(c)))
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect(),
        )
    }
}

/// Whether `text` holds `needle`: in Latin script, its words in a row, each ignoring case
/// and up to three letters of ending; in any other script, exactly.
fn holds(text: &str, words: &Words, needle: &str) -> bool {
    if !is_latin(needle) {
        return text.contains(needle);
    }
    let wanted = Words::of(needle).0;
    if wanted.is_empty() {
        return false;
    }
    words.0.windows(wanted.len()).any(|run| {
        run.iter()
            .zip(&wanted)
            .all(|(have, want)| inflected(have, want))
    })
}

/// Whether `have` is `want` with another ending: equal, or one begins with the other
/// (of at least three letters) and they differ by at most three letters.
fn inflected(have: &str, want: &str) -> bool {
    if have == want {
        return true;
    }
    let (short, long) = match have.chars().count() <= want.chars().count() {
        true => (have, want),
        false => (want, have),
    };
    let (short_len, long_len) = (short.chars().count(), long.chars().count());
    short_len >= 3 && long_len - short_len <= 3 && long.starts_with(short)
}

/// Whether every letter of a text is of the Latin script.
fn is_latin(text: &str) -> bool {
    text.chars()
        .filter(|c| c.is_alphabetic())
        .all(is_latin_char)
}

/// Whether a character is a digit, or a letter of the Latin script.
fn is_latin_char(c: char) -> bool {
    c.is_ascii_digit()
        || matches!(c as u32, 0x41..=0x5A | 0x61..=0x7A | 0xAA | 0xBA | 0xC0..=0x24F | 0x1E00..=0x1EFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glossary() -> Glossary {
        let entry = |term: &str, en: Option<&str>, de: Option<&str>, keep: bool| Entry {
            term: term.into(),
            translations: [("en", en), ("de", de)]
                .into_iter()
                .filter_map(|(l, t)| Some((l.to_string(), t?.to_string())))
                .collect(),
            do_not_translate: keep,
            note: None,
        };
        Glossary::of(vec![
            entry("剣", Some("sword"), Some("Schwert"), false),
            entry("鉄の鎧", Some("iron armor"), None, false),
            entry("Excalibur", None, None, true),
        ])
    }

    #[test]
    fn terms_are_found_exactly_in_other_scripts() {
        let g = glossary();
        let terms: Vec<&str> = g
            .terms_in("鉄の剣と鉄の鎧")
            .iter()
            .map(|e| e.term.as_str())
            .collect();
        assert_eq!(terms, ["剣", "鉄の鎧"]);
        assert!(g.terms_in("鉄の盾").is_empty());
    }

    #[test]
    fn latin_translations_match_ignoring_case_and_endings() {
        let g = glossary();
        assert!(g.misses("en", "鉄の剣", "Iron Sword").is_empty());
        assert!(g.misses("en", "剣が三本", "Three SWORDS").is_empty());
        assert!(g.misses("de", "剣", "des Schwertes").is_empty());
        assert!(g.misses("en", "鉄の鎧", "Iron armors of old").is_empty());
        let missed = g.misses("en", "鉄の剣", "Iron Blade");
        assert_eq!(missed.len(), 1);
        assert_eq!(
            (missed[0].term.as_str(), missed[0].expected.as_str()),
            ("剣", "sword")
        );
        // Not a prefix of another word, nor words out of order.
        assert_eq!(g.misses("en", "剣", "Swordfishermen").len(), 1);
        assert_eq!(g.misses("en", "鉄の鎧", "armor of iron").len(), 1);
        // No approved translation into a language: nothing is asked.
        assert!(g.misses("fr", "剣", "Épée").is_empty());
    }

    #[test]
    fn a_term_not_to_translate_is_kept_verbatim() {
        let g = glossary();
        assert!(
            g.misses("en", "Excalibur を抜く", "Draw Excalibur")
                .is_empty()
        );
        let missed = g.misses("en", "Excalibur を抜く", "Draw the sword of kings");
        assert!(missed[0].do_not_translate, "{missed:?}");
        assert_eq!(g.terms_in("Excaliburを抜く")[0].term, "Excalibur");
        // Verbatim: case counts.
        assert_eq!(g.misses("en", "Excalibur", "EXCALIBUR").len(), 1);
        assert_eq!(g.entries[2].shown("en"), "Excalibur (do not translate)");
        assert_eq!(g.entries[0].shown("de"), "剣 → Schwert");
    }
}
