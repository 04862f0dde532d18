//! Translation memory: what a language's confirmed translations offer a unit not
//! translated yet. The same source text translated elsewhere is an exact match (found by
//! hash), offered as the unit's translation to review; a source at least 75% alike is a
//! close match (found through an index of the sources' character trigrams, then scored
//! by edit distance: never every pair), offered beside it with its score.

use std::collections::HashMap;

use masterctl_runtime::parallel::parallel_map;
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

/// A confirmed translation: its source (and the source's characters, which close
/// matches are scored on), the translation and the unit it was confirmed for.
struct Entry<'a> {
    source: &'a str,
    chars: Box<[char]>,
    translation: &'a str,
    unit: String,
}

/// The confirmed translations of one language, indexed.
pub struct Memory<'a> {
    entries: Vec<Entry<'a>>,
    exact: HashMap<&'a str, usize, KeyHash>,
    /// Each trigram's postings (the entries holding it), in [`SHARDS`] shards.
    trigrams: Vec<HashMap<u64, Vec<u32>, KeyHash>>,
}

impl<'a> Memory<'a> {
    /// The memory of confirmed translations: each source text, its translation and the
    /// unit it was confirmed for (`table/field/key`). A source given twice keeps its
    /// first translation.
    pub fn of(confirmed: impl IntoIterator<Item = (&'a str, &'a str, String)>) -> Memory<'a> {
        // Each source once, then its characters and trigrams on every core.
        let mut exact: HashMap<&'a str, usize, KeyHash> = HashMap::default();
        let mut firsts: Vec<(&'a str, &'a str, String)> = Vec::new();
        for (source, translation, unit) in confirmed {
            if let std::collections::hash_map::Entry::Vacant(slot) = exact.entry(source) {
                slot.insert(firsts.len());
                firsts.push((source, translation, unit));
            }
        }
        let read = parallel_map(&firsts, |(source, _, _)| {
            let chars: Box<[char]> = source.chars().collect();
            let trigrams = trigrams(&chars);
            (chars, trigrams)
        });
        // The postings of each trigram, built in shards of the trigrams on every core.
        let shards: Vec<usize> = (0..SHARDS).collect();
        let trigrams = parallel_map(&shards, |&shard| {
            let mut postings: HashMap<u64, Vec<u32>, KeyHash> = HashMap::default();
            for (i, (_, trigrams)) in read.iter().enumerate() {
                for &trigram in trigrams.iter().filter(|&&t| shard_of(t) == shard) {
                    postings.entry(trigram).or_default().push(i as u32);
                }
            }
            postings.retain(|_, postings| postings.len() <= COMMON);
            postings
        });
        let entries = firsts
            .into_iter()
            .zip(read)
            .map(|((source, translation, unit), (chars, _))| Entry {
                source,
                chars,
                translation,
                unit,
            })
            .collect();
        Memory {
            entries,
            exact,
            trigrams,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// What the memory offers a source: its exact match first, else close matches,
    /// best first.
    pub fn offer(&self, source: &str) -> Vec<MemoryMatch> {
        let entry = |i: usize, score: u8| {
            let entry = &self.entries[i];
            MemoryMatch {
                score,
                source: entry.source.to_string(),
                translation: entry.translation.to_string(),
                from: entry.unit.clone(),
            }
        };
        if let Some(&i) = self.exact.get(source) {
            return vec![entry(i, 100)];
        }
        let source_chars: Vec<char> = source.chars().collect();
        let candidates = self.candidates(&source_chars);
        // Scored best-shared first; once OFFERED matches are found, a candidate must beat
        // the worst of them, which narrows the band its distance is computed in.
        let mut offered: Vec<(u8, usize)> = Vec::with_capacity(OFFERED + 1);
        for i in candidates {
            let least = match offered.len() {
                OFFERED => offered[OFFERED - 1].0,
                _ => CLOSE,
            };
            let Some(score) = close_score(&source_chars, &self.entries[i].chars, least) else {
                continue;
            };
            offered.push((score, i));
            offered.sort_by(|a, b| {
                b.0.cmp(&a.0)
                    .then_with(|| self.entries[a.1].unit.cmp(&self.entries[b.1].unit))
            });
            offered.truncate(OFFERED);
        }
        offered
            .into_iter()
            .map(|(score, i)| entry(i, score))
            .collect()
    }

    /// The entries sharing the most of a source's rarest trigrams (those few sources
    /// share), at most SCORED, most shared first; the postings read are bounded by a
    /// budget, since a common trigram says little and costs much.
    fn candidates(&self, source: &[char]) -> Vec<usize> {
        let mut lists: Vec<&Vec<u32>> = trigrams(source)
            .iter()
            .filter_map(|&t| self.trigrams[shard_of(t)].get(&t))
            .collect();
        if lists.is_empty() {
            return Vec::new();
        }
        lists.sort_unstable_by_key(|postings| postings.len());
        // How many of the lists read each entry is in, counted in this thread's tally
        // (a counter per entry; those touched are set back to zero after).
        let mut shared: Vec<(u32, u32)> = TALLY.with_borrow_mut(|tally| {
            let Tally { counts, touched } = tally;
            if counts.len() < self.entries.len() {
                counts.resize(self.entries.len(), 0);
            }
            let mut read = 0;
            for postings in lists.iter().take(RAREST) {
                if read > 0 && read + postings.len() > BUDGET {
                    break;
                }
                read += postings.len();
                for &i in postings.iter() {
                    let count = &mut counts[i as usize];
                    if *count == 0 {
                        touched.push(i);
                    }
                    *count += 1;
                }
            }
            touched
                .drain(..)
                .map(|i| (std::mem::take(&mut counts[i as usize]), i))
                .collect()
        });
        let most_shared = |a: &(u32, u32), b: &(u32, u32)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        if shared.len() > SCORED {
            shared.select_nth_unstable_by(SCORED, most_shared);
            shared.truncate(SCORED);
        }
        shared.sort_unstable_by(most_shared);
        shared.into_iter().map(|(_, i)| i as usize).collect()
    }
}

/// The shards the trigram index is built in, in parallel.
const SHARDS: usize = 16;

/// The shard of a trigram.
fn shard_of(trigram: u64) -> usize {
    (trigram.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60) as usize
}

/// A thread's counters of shared trigrams, one per entry of the memory looked up.
#[derive(Default)]
struct Tally {
    counts: Vec<u32>,
    /// The entries whose counter is not zero.
    touched: Vec<u32>,
}

thread_local! {
    static TALLY: std::cell::RefCell<Tally> = std::cell::RefCell::default();
}

/// The distinct character trigrams of a text, each packed in a `u64` (a text of one or
/// two characters: itself, padded).
fn trigrams(chars: &[char]) -> Vec<u64> {
    let pack =
        |a: char, b: char, c: char| (u64::from(a) << 42) | (u64::from(b) << 21) | u64::from(c);
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

/// The similarity of two texts when it is at least `least` percent: the edit distance
/// computed only within the band that can reach it (never the whole table of two long
/// texts).
fn close_score(a: &[char], b: &[char], least: u8) -> Option<u8> {
    let longest = a.len().max(b.len());
    if longest == 0 {
        return Some(100);
    }
    // The most edits that still leave `least` percent.
    let most = longest * usize::from(100 - least) / 100;
    if a.len().abs_diff(b.len()) > most {
        return None;
    }
    let distance = bounded_levenshtein(a, b, most)?;
    let score = percent(distance, longest);
    (score >= least).then_some(score)
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
        assert_eq!(
            close_score(&chars("鉄の剣だ"), &chars("鉄の剣"), CLOSE),
            Some(75)
        );
        assert_eq!(close_score(&chars("鉄の剣"), &chars("鋼の剣"), CLOSE), None);
    }

    /// What is offered is scored right and best first, an exact match alone; and a source
    /// with a close match in the memory is offered one.
    #[test]
    fn offers_are_scored_right_and_best_first() {
        let sources: Vec<String> = (0..400)
            .map(|i| format!("<b>{{name}}</b>が{i}番目に見つけた宝 Lv.{}", i % 7))
            .chain((0..50).map(|i| format!("鉄の剣{}", "だ".repeat(i % 4))))
            .collect();
        let translations: Vec<String> = (0..sources.len()).map(|i| format!("t{i}")).collect();
        let memory = Memory::of(
            sources
                .iter()
                .zip(&translations)
                .enumerate()
                .map(|(i, (s, t))| (s.as_str(), t.as_str(), format!("item/name/{i}"))),
        );
        let exact = memory.offer(&sources[3]);
        assert_eq!(exact.len(), 1);
        assert_eq!((exact[0].score, exact[0].translation.as_str()), (100, "t3"));
        for query in [
            "<b>{name}</b>が12番目に見つけた宝 Lv.6",
            "鉄の剣だだだだ",
            "<b>{name}</b>が9999番目",
        ] {
            let offered = memory.offer(query);
            for m in &offered {
                assert_eq!(m.score, similarity(query, &m.source), "{query}: {m:?}");
                assert!(m.score >= CLOSE && m.score < 100, "{query}: {m:?}");
            }
            assert!(
                offered.windows(2).all(|w| w[0].score >= w[1].score),
                "{offered:?}"
            );
            let best = sources.iter().map(|s| similarity(query, s)).max().unwrap();
            match offered.first() {
                Some(first) => assert_eq!(first.score, best, "{query}"),
                None => assert!(best < CLOSE, "{query}: {best}"),
            }
        }
        assert_eq!(
            memory.offer("<b>{name}</b>が12番目に見つけた宝 Lv.6").len(),
            OFFERED
        );
    }

    #[test]
    fn words_count_spaced_words_and_unspaced_characters() {
        assert_eq!(words("Iron Sword of kings"), 4);
        assert_eq!(words("鉄の剣"), 3);
        assert_eq!(words("<b>{name}</b> が 3 番目"), 5);
    }
}
