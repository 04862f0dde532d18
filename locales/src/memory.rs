//! Translation memory: what a language's confirmed translations offer a unit not
//! translated yet. The same source text translated elsewhere is an exact match (found by
//! hash), offered as the unit's translation to review; a source at least 75% alike is a
//! close match (found through an index of the sources' character trigrams, then scored
//! by edit distance: never every pair), offered beside it with its score.

use std::collections::HashMap;

use masterctl_schemas::value::KeyHash;

/// How alike a close match's source must be, in percent.
pub const CLOSE: u8 = 75;
/// Close matches offered per unit at most.
const OFFERED: usize = 3;
/// A trigram in more sources than this says little about any of them: not indexed.
const COMMON: usize = 1_000;
/// The rarest trigrams of a source its candidates are found by.
const RAREST: usize = 8;
/// Postings read per source at most (past the first list).
const BUDGET: usize = 600;
/// Candidates scored per unit at most (those sharing the most of them).
const SCORED: usize = 8;

/// A confirmed translation another unit may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryMatch {
    /// How alike the sources are, in percent (100: the same text).
    pub score: u8,
    pub source: String,
    pub translation: String,
    /// The unit it was confirmed for (`table/field/key`).
    pub from: String,
}

/// The confirmed translations of one language, indexed.
pub struct Memory {
    /// Source text, translation, unit id.
    entries: Vec<(String, String, String)>,
    exact: HashMap<String, usize>,
    trigrams: HashMap<u64, Vec<u32>, KeyHash>,
}

impl Memory {
    /// The memory of confirmed translations: each source text, its translation and the
    /// unit it was confirmed for (`table/field/key`). A source given twice keeps its
    /// first translation.
    pub fn of<'a>(confirmed: impl IntoIterator<Item = (&'a str, &'a str, String)>) -> Memory {
        let mut memory = Memory {
            entries: Vec::new(),
            exact: HashMap::new(),
            trigrams: HashMap::default(),
        };
        for (source, translation, unit) in confirmed {
            if memory.exact.contains_key(source) {
                continue;
            }
            let index = memory.entries.len();
            memory.exact.insert(source.to_string(), index);
            for trigram in trigrams(source) {
                memory
                    .trigrams
                    .entry(trigram)
                    .or_default()
                    .push(index as u32);
            }
            memory
                .entries
                .push((source.to_string(), translation.to_string(), unit));
        }
        for postings in memory.trigrams.values_mut() {
            postings.dedup();
        }
        memory
            .trigrams
            .retain(|_, postings| postings.len() <= COMMON);
        memory
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// What the memory offers a source: its exact match first, else close matches,
    /// best first.
    pub fn offer(&self, source: &str) -> Vec<MemoryMatch> {
        let entry = |i: usize, score: u8| {
            let (source, translation, from) = &self.entries[i];
            MemoryMatch {
                score,
                source: source.clone(),
                translation: translation.clone(),
                from: from.clone(),
            }
        };
        if let Some(&i) = self.exact.get(source) {
            return vec![entry(i, 100)];
        }
        // Candidates from the source's rarest trigrams (those few sources share), by how
        // many of them they share, within a budget of postings read: a common trigram
        // says little and costs much.
        let mut lists: Vec<&Vec<u32>> = trigrams(source)
            .iter()
            .filter_map(|t| self.trigrams.get(t))
            .collect();
        if lists.is_empty() {
            return Vec::new();
        }
        lists.sort_unstable_by_key(|postings| postings.len());
        let mut shared: HashMap<u32, u32, KeyHash> = HashMap::default();
        shared.reserve(BUDGET.min(lists[0].len() * 2));
        let mut read = 0;
        for postings in lists.iter().take(RAREST) {
            if read > 0 && read + postings.len() > BUDGET {
                break;
            }
            read += postings.len();
            for &i in postings.iter() {
                *shared.entry(i).or_default() += 1;
            }
        }
        let mut candidates: Vec<(u32, u32)> = shared.into_iter().collect();
        let most_shared = |a: &(u32, u32), b: &(u32, u32)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
        if candidates.len() > SCORED {
            candidates.select_nth_unstable_by(SCORED, most_shared);
            candidates.truncate(SCORED);
        }
        candidates.sort_unstable_by(most_shared);
        let source_chars: Vec<char> = source.chars().collect();
        let mut offered: Vec<MemoryMatch> = candidates
            .into_iter()
            .filter_map(|(i, _)| {
                let other: Vec<char> = self.entries[i as usize].0.chars().collect();
                let score = close_score(&source_chars, &other)?;
                Some(entry(i as usize, score))
            })
            .collect();
        offered.sort_by(|a, b| b.score.cmp(&a.score).then(a.from.cmp(&b.from)));
        offered.truncate(OFFERED);
        offered
    }
}

/// The distinct character trigrams of a text, each packed in a `u64` (a text of one or
/// two characters: itself, padded).
fn trigrams(text: &str) -> Vec<u64> {
    let pack =
        |a: char, b: char, c: char| (u64::from(a) << 42) | (u64::from(b) << 21) | u64::from(c);
    let chars: Vec<char> = text.chars().collect();
    let mut found: Vec<u64> = match chars.len() {
        0 => Vec::new(),
        1 => vec![pack(chars[0], '\0', '\0')],
        2 => vec![pack(chars[0], chars[1], '\0')],
        _ => chars.windows(3).map(|w| pack(w[0], w[1], w[2])).collect(),
    };
    found.sort_unstable();
    found.dedup();
    found
}

/// 100 less `distance` per character of `longest`, rounded down.
fn percent(distance: usize, longest: usize) -> u8 {
    (100 - (distance * 100).div_ceil(longest).min(100)) as u8
}

/// The similarity of two texts when it is at least [`CLOSE`]: the edit distance computed
/// only within the band that can reach it (never the whole table of two long texts).
fn close_score(a: &[char], b: &[char]) -> Option<u8> {
    let longest = a.len().max(b.len());
    if longest == 0 {
        return Some(100);
    }
    // The most edits that still leave CLOSE percent.
    let most = longest * usize::from(100 - CLOSE) / 100;
    if a.len().abs_diff(b.len()) > most {
        return None;
    }
    let distance = bounded_levenshtein(a, b, most)?;
    let score = percent(distance, longest);
    (score >= CLOSE).then_some(score)
}

/// The edit distance of `a` and `b` when it is at most `most`: cells farther than `most`
/// from the diagonal are never computed (Ukkonen's band).
fn bounded_levenshtein(a: &[char], b: &[char], most: usize) -> Option<usize> {
    const FAR: usize = usize::MAX / 2;
    let (n, m) = (a.len(), b.len());
    let mut previous: Vec<usize> = (0..=m).map(|j| if j <= most { j } else { FAR }).collect();
    let mut current = vec![FAR; m + 1];
    for i in 1..=n {
        let low = i.saturating_sub(most).max(1);
        let high = (i + most).min(m);
        current.fill(FAR);
        if i <= most {
            current[0] = i;
        }
        let mut best = current[0];
        for j in low..=high {
            let substitution = previous[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let value = substitution.min(previous[j] + 1).min(current[j - 1] + 1);
            current[j] = value;
            best = best.min(value);
        }
        if best > most {
            return None;
        }
        std::mem::swap(&mut previous, &mut current);
    }
    (previous[m] <= most).then_some(previous[m])
}

/// What a unit's source counts for in words saved: the words of text in spaced scripts,
/// and each character of the scripts written without spaces (CJK, kana, Thai...).
pub fn words(text: &str) -> usize {
    let unspaced = text.chars().filter(|&c| is_unspaced(c)).count();
    let spaced = text
        .split(|c: char| c.is_whitespace() || is_unspaced(c))
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count();
    unspaced + spaced
}

/// A character of a script written without spaces between words.
fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF | 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How alike two texts are, in percent, over the whole edit-distance table.
    fn similarity(a: &str, b: &str) -> u8 {
        let longest = a.chars().count().max(b.chars().count());
        if longest == 0 {
            return 100;
        }
        percent(strsim::levenshtein(a, b), longest)
    }

    #[test]
    fn similarity_is_edit_distance_per_character() {
        assert_eq!(similarity("鉄の剣", "鉄の剣"), 100);
        assert_eq!(similarity("鉄の剣", "鋼の剣"), 66);
        assert_eq!(similarity("Iron Sword", "Iron Swords"), 90);
        assert_eq!(similarity("", ""), 100);
        assert_eq!(similarity("abc", ""), 0);
    }

    #[test]
    fn the_banded_distance_is_the_distance_within_its_band() {
        let chars = |t: &str| t.chars().collect::<Vec<_>>();
        for (a, b) in [
            ("kitten", "sitting"),
            ("鉄の剣だ", "鉄の剣"),
            ("<b>{name}</b>が1234番目", "<b>{name}</b>が1235番目"),
            ("abc", "xyz"),
            ("", "ab"),
        ] {
            let full = strsim::levenshtein(a, b);
            for most in 0..8 {
                let banded = bounded_levenshtein(&chars(a), &chars(b), most);
                assert_eq!(banded, (full <= most).then_some(full), "{a} {b} {most}");
            }
        }
        assert_eq!(close_score(&chars("鉄の剣だ"), &chars("鉄の剣")), Some(75));
        assert_eq!(close_score(&chars("鉄の剣"), &chars("鋼の剣")), None);
    }

    #[test]
    fn words_count_spaced_words_and_unspaced_characters() {
        assert_eq!(words("Iron Sword of kings"), 4);
        assert_eq!(words("鉄の剣"), 3);
        assert_eq!(words("<b>{name}</b> が 3 番目"), 5);
    }
}
