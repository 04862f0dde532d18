//! Pseudo-localization: a language made from the source texts at build time, so that a
//! game can be played "translated" before a single translation exists. Latin letters
//! are accented (`Iron Sword` → `Ïŕöñ Šŵöŕð`), characters of East Asian scripts become
//! accented Latin syllables (a Japanese source gets a Latin form too), the text grows by
//! the expansion ratio with visible padding, and brackets show where it was cut off:
//! `[Ïŕöñ Šŵöŕð !!!]`. Placeholders, rich-text tags, printf conversions and ICU
//! plural/select structure are kept as written, so the checks a translation must pass
//! pass on the pseudo text.

use std::ops::Range;

use masterctl_schemas::audience::Audience;

/// The default growth: English to German, the usual worst case of a game's languages.
pub const DEFAULT_EXPANSION: f64 = 0.4;

/// The pseudo form of `text`, `expansion` longer (0.4: 40%).
pub fn pseudo(text: &str, expansion: f64) -> String {
    if text.is_empty() {
        return String::new();
    }
    let kept = masterctl_schemas::message::syntax(text).unwrap_or_else(|_| braces_and_tags(text));
    let mut out = String::with_capacity(text.len() * 2 + 8);
    out.push('[');
    let mut shown = 0usize;
    let mut at = 0;
    for range in kept
        .iter()
        .chain(std::iter::once(&(text.len()..text.len())))
    {
        if range.start < at {
            // Nested syntax (a choice inside a branch) already written.
            at = at.max(range.end);
            continue;
        }
        shown += accent(&text[at..range.start], &mut out);
        out.push_str(&text[range.clone()]);
        at = range.end;
    }
    // A hair under, so that 10 × 0.4 is 4 and not 5 by a rounding error.
    let padding = (shown as f64 * expansion.max(0.0) - 1e-9).ceil().max(0.0) as usize;
    pad(&mut out, padding);
    out.push(']');
    out
}

/// The text people read written accented into `out`; how many graphemes it shows.
fn accent(text: &str, out: &mut String) -> usize {
    let mut shown = 0;
    for c in text.chars() {
        match latin(c) {
            Some(accented) => {
                out.push(accented);
                shown += 1;
            }
            None if is_wide(c) => {
                // A wide character is about two Latin letters wide: a syllable.
                let [consonant, vowel] = syllable(c);
                out.push(consonant);
                out.push(vowel);
                shown += 2;
            }
            None => {
                out.push(c);
                // Combining marks and joiners are part of the grapheme before them.
                shown += usize::from(!is_mark(c));
            }
        }
    }
    shown
}

/// Visible padding of `count` characters: a space, then `!` in groups of three split by
/// spaces, never ending in a space (`!`, ` !`, ` !!!`, ` !!! !!`).
fn pad(out: &mut String, count: usize) {
    if count == 0 {
        return;
    }
    if count == 1 {
        out.push('!');
        return;
    }
    out.push(' ');
    let rest = count - 1;
    for i in 0..rest {
        let space = (i + 1) % 4 == 0 && i + 1 != rest;
        out.push(if space { ' ' } else { '!' });
    }
}

/// An accented form of an ASCII letter; none for anything else.
fn latin(c: char) -> Option<char> {
    const LOWER: [char; 26] = [
        'à', 'ƀ', 'ç', 'ð', 'é', 'ƒ', 'ĝ', 'ĥ', 'ï', 'ĵ', 'ķ', 'ĺ', 'ɱ', 'ñ', 'ö', 'þ', 'ǫ', 'ŕ',
        'š', 'ţ', 'û', 'ṽ', 'ŵ', 'ẋ', 'ý', 'ž',
    ];
    const UPPER: [char; 26] = [
        'Å', 'Ɓ', 'Ç', 'Ð', 'É', 'Ƒ', 'Ĝ', 'Ĥ', 'Ï', 'Ĵ', 'Ķ', 'Ļ', 'Ṁ', 'Ñ', 'Ö', 'Þ', 'Ǫ', 'Ŕ',
        'Š', 'Ţ', 'Û', 'Ṽ', 'Ŵ', 'Ẋ', 'Ý', 'Ž',
    ];
    match c {
        'a'..='z' => Some(LOWER[c as usize - 'a' as usize]),
        'A'..='Z' => Some(UPPER[c as usize - 'A' as usize]),
        _ => None,
    }
}

/// A character of a script written in wide cells: CJK ideographs, kana, Hangul, and
/// the full-width forms.
fn is_wide(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x115F            // Hangul Jamo
        | 0x2E80..=0x303E          // CJK radicals, punctuation
        | 0x3041..=0x33FF          // kana, CJK symbols
        | 0x3400..=0x4DBF          // CJK extension A
        | 0x4E00..=0x9FFF          // CJK ideographs
        | 0xA960..=0xA97F          // Hangul Jamo extended
        | 0xAC00..=0xD7A3          // Hangul syllables
        | 0xF900..=0xFAFF          // CJK compatibility ideographs
        | 0xFF01..=0xFF60          // full-width forms
        | 0xFFE0..=0xFFE6
        | 0x20000..=0x3FFFD // CJK extensions B onwards
    )
}

/// A combining mark or joiner, shown with the character before it.
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x200C | 0x200D | 0xFE00..=0xFE0F)
}

/// The accented Latin syllable a wide character stands as: the same character always
/// gives the same syllable.
fn syllable(c: char) -> [char; 2] {
    const CONSONANTS: [char; 12] = ['ƀ', 'ķ', 'ŝ', 'ţ', 'ñ', 'ĥ', 'ɱ', 'ŕ', 'ĝ', 'ž', 'ð', 'þ'];
    const VOWELS: [char; 5] = ['à', 'ï', 'û', 'é', 'ö'];
    let n = c as usize;
    [
        CONSONANTS[n % CONSONANTS.len()],
        VOWELS[(n / CONSONANTS.len()) % VOWELS.len()],
    ]
}

/// The syntax of a text that is not a well-formed message: what braces and tags hold
/// is left as written (a placeholder of a broken message is still one).
fn braces_and_tags(text: &str) -> Vec<Range<usize>> {
    let mut kept = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let close = match bytes[at] {
            b'{' => b'}',
            b'<' => b'>',
            b'%' => {
                // `%d`, `%s`, `%1$s`: up to the first letter.
                let end = bytes[at + 1..]
                    .iter()
                    .position(|b| b.is_ascii_alphabetic() || *b == b'@')
                    .map(|p| at + 1 + p);
                if let Some(end) = end.filter(|&e| e - at <= 6) {
                    kept.push(at..end + 1);
                    at = end + 1;
                } else {
                    at += 1;
                }
                continue;
            }
            _ => {
                at += 1;
                continue;
            }
        };
        match bytes[at + 1..].iter().position(|&b| b == close) {
            Some(p) => {
                kept.push(at..at + p + 2);
                at += p + 2;
            }
            None => at += 1,
        }
    }
    kept
}

/// A source text whose pseudo form (as long as a translation `expansion` longer) does
/// not fit its field's `max_length`: the box is too small for the translation to come.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ExpansionRisk {
    pub table: String,
    pub field: String,
    /// The row's key (`10|3`).
    pub key: String,
    /// The pseudo form's length, in grapheme clusters, brackets left out.
    pub length: usize,
    pub max_length: u32,
}

/// The texts of one table whose pseudo forms overflow their fields' `max_length`.
pub fn expansion_risks(
    schema: &masterctl_schemas::TableSchema,
    source: &crate::TableTexts,
    expansion: f64,
) -> Vec<ExpansionRisk> {
    let fields = crate::texts::text_fields(schema);
    let limited: Vec<(usize, &masterctl_schemas::Field, u32)> = fields
        .iter()
        .enumerate()
        .filter_map(|(position, &f)| {
            let field = &schema.fields[f];
            // What designers alone see is never translated.
            let translated = field.audience.contains(Audience::Server)
                || field.audience.contains(Audience::Client);
            Some((position, field, field.max_length.filter(|_| translated)?))
        })
        .collect();
    if limited.is_empty() {
        return Vec::new();
    }
    let mut risks = Vec::new();
    for (key, row) in &source.rows {
        for &(position, field, max_length) in &limited {
            let Some(text) = row.text(position) else {
                continue;
            };
            let shown = masterctl_schemas::message::lengths(&pseudo(text, expansion)).longest;
            let length = shown.saturating_sub(2);
            if length > max_length as usize {
                risks.push(ExpansionRisk {
                    table: schema.name.clone(),
                    field: field.name.clone(),
                    key: crate::units::key_text(key),
                    length,
                    max_length,
                });
            }
        }
    }
    risks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_letters_are_accented_padded_and_bracketed() {
        assert_eq!(pseudo("Iron Sword", 0.4), "[Ïŕöñ Šŵöŕð !!!]");
        assert_eq!(pseudo("Iron Sword", 0.0), "[Ïŕöñ Šŵöŕð]");
        assert_eq!(pseudo("Go", 0.4), "[Ĝö!]");
        assert_eq!(pseudo("Gold", 0.4), "[Ĝöĺð !]");
        assert_eq!(pseudo("A long name", 0.6), "[Å ĺöñĝ ñàɱé !!! !!]");
        assert_eq!(pseudo("", 0.4), "");
        // 20 shown, 8 of padding.
        assert_eq!(
            pseudo("abcdefghijklmnopqrst", 0.4).chars().count(),
            20 + 8 + 2
        );
    }

    #[test]
    fn placeholders_tags_and_plural_structure_are_kept() {
        assert_eq!(
            pseudo("<color=red>{name}</color> has %d", 0.0),
            "[<color=red>{name}</color> ĥàš %d]"
        );
        assert_eq!(
            pseudo("{count, plural, one {# gem} other {# gems}}", 0.0),
            "[{count, plural, one {# ĝéɱ} other {# ĝéɱš}}]"
        );
        assert_eq!(
            pseudo(
                "{g, select, f {She {n, plural, one {one} other {#}}} other {They}}",
                0.0
            ),
            "[{g, select, f {Šĥé {n, plural, one {öñé} other {#}}} other {Ţĥéý}}]"
        );
        // Not a message: braces and tags kept all the same.
        assert_eq!(pseudo("{oops <b>x", 0.0), "[{ööþš <b>ẋ]");
        assert_eq!(pseudo("x {y} z}", 0.0), "[ẋ {y} ž}]");
    }

    #[test]
    fn the_checks_a_translation_passes_pass_on_the_pseudo_text() {
        let checker = crate::Checker::new("en");
        for source in [
            "<color=red>{name}</color> has %1$s and %d",
            "{count, plural, one {You found # scale} other {You found # scales}}",
            "Hero's '{sword}' {n, number}",
            "鉄の剣を{count}本",
        ] {
            let failures = checker.check(source, &pseudo(source, 0.4), None);
            assert!(failures.is_empty(), "{source}: {failures:?}");
        }
    }

    #[test]
    fn wide_scripts_get_a_latin_form_twice_as_wide() {
        let sword = pseudo("鉄の剣", 0.0);
        assert!(
            sword.chars().skip(1).take(6).all(|c| !is_wide(c)),
            "{sword}"
        );
        assert_eq!(sword.chars().count(), 6 + 2);
        assert_eq!(pseudo("鉄の剣", 0.0), pseudo("鉄の剣", 0.0));
        assert_eq!(pseudo("{n}個の鉄", 0.0).matches("{n}").count(), 1);
    }
}
