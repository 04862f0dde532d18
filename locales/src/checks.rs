//! The checks a translation passes before it is accepted (and that `l10n status` runs on
//! every stored translation): the same placeholders and tags as its source, no longer
//! than the field's `max_length` in grapheme clusters, no control or invisible
//! characters, and plural messages complete for the language's CLDR categories.

use icu_locale_core::Locale;
use icu_plurals::{PluralCategory, PluralRuleType, PluralRules, PluralRulesOptions};
use masterctl_schemas::Code;
use std::sync::Arc;

use masterctl_schemas::fonts::Coverage;
use masterctl_schemas::schema::Config;

use crate::glossary::{Glossary, Miss};
use crate::message::{self, ChoiceKind, Message};

/// Why a translation is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Placeholders or tags of the source missing from the translation, or extra ones.
    Placeholders {
        missing: Vec<String>,
        extra: Vec<String>,
    },
    /// Longer than the field's `max_length`: the text, or its longest variant (one
    /// branch of each plural or select) when `variants`.
    TooLong {
        length: usize,
        max: u32,
        variants: bool,
    },
    /// A control or zero-width character (by its 1-based character position).
    Invisible { character: char, position: usize },
    /// A plural argument lacks branches the language needs.
    PluralMissing {
        argument: String,
        missing: Vec<&'static str>,
    },
    /// A plural argument has a branch for a category the language does not have.
    PluralUnknown { argument: String, selector: String },
    /// The translation is not a well-formed message.
    Syntax(String),
    /// Characters the language's fonts have no glyph for (`[fonts]`).
    MissingGlyph {
        characters: Vec<char>,
        fonts: Vec<String>,
    },
    /// Glossary terms of the source whose approved translation (or, for a term not to
    /// translate, the term itself) the translation lacks.
    Glossary(Vec<Miss>),
    /// The same source text translated otherwise in other units: theirs, by unit id.
    Inconsistent { others: Vec<(String, String)> },
}

impl Failure {
    /// The stable diagnostic code.
    pub fn code(&self) -> Code {
        match self {
            Failure::Placeholders { .. } => Code::Placeholder,
            Failure::TooLong { .. } => Code::Length,
            Failure::Invisible { .. } => Code::InvisibleCharacter,
            Failure::PluralMissing { .. } | Failure::PluralUnknown { .. } => Code::PluralForms,
            Failure::Syntax(_) => Code::MessageSyntax,
            Failure::MissingGlyph { .. } => Code::MissingGlyph,
            Failure::Glossary(_) => Code::Glossary,
            Failure::Inconsistent { .. } => Code::Inconsistent,
        }
    }

    /// What was expected instead, for the source text `source` — the limit for a text
    /// too long, the glossary's terms, the translation given elsewhere, else a
    /// translation of the source — in words, and what they are made of, for another
    /// language's words (`expected-kind`: `at-most`, `glossary`, `as-elsewhere`,
    /// `translation-of`; and `max`, `terms`, `other`, `source`).
    pub fn expected(&self, source: &str) -> (String, Vec<(&'static str, String)>) {
        let (words, kind, value) = match self {
            Failure::TooLong { max, .. } => (
                format!("at most {max} characters (the field's max_length)"),
                "at-most",
                Some(("max", max.to_string())),
            ),
            Failure::Glossary(misses) => {
                let terms = (misses.iter())
                    .map(|m| format!("`{}`", m.expected))
                    .collect::<Vec<_>>()
                    .join(", ");
                (terms.clone(), "glossary", Some(("terms", terms)))
            }
            Failure::Inconsistent { others } if !others.is_empty() => {
                let translation = &others[0].1;
                (
                    format!("`{translation}`, as elsewhere"),
                    "as-elsewhere",
                    Some(("other", translation.clone())),
                )
            }
            _ => (
                format!("a translation of: {source}"),
                "translation-of",
                None,
            ),
        };
        let mut said = vec![("expected-kind", kind.to_string())];
        said.extend(value);
        said.push(("source", source.to_string()));
        (words, said)
    }

    /// Whether [`Failure::expected`] quotes the source text (a limit does not: the source
    /// then goes with the failure as a hint).
    pub fn expected_names_source(&self) -> bool {
        !matches!(
            self,
            Failure::TooLong { .. } | Failure::Glossary(_) | Failure::Inconsistent { .. }
        )
    }

    /// One sentence saying what is wrong.
    pub fn message(&self) -> String {
        match self {
            Failure::Placeholders { missing, extra } => {
                let list = |items: &[String]| {
                    items
                        .iter()
                        .map(|t| format!("`{t}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                match (missing.is_empty(), extra.is_empty()) {
                    (false, true) => {
                        format!("the translation lacks {} of the source", list(missing))
                    }
                    (true, false) => {
                        format!("the translation adds {}, not in the source", list(extra))
                    }
                    _ => format!(
                        "the translation lacks {} of the source and adds {}",
                        list(missing),
                        list(extra)
                    ),
                }
            }
            Failure::TooLong {
                length,
                max,
                variants: false,
            } => format!("the translation is {length} characters long; at most {max} fit"),
            Failure::TooLong {
                length,
                max,
                variants: true,
            } => format!(
                "the translation's longest variant is {length} characters long; at most {max} fit"
            ),
            Failure::Invisible {
                character,
                position,
            } => format!(
                "the translation holds the invisible character U+{:04X} ({}) at character {position}",
                u32::from(*character),
                invisible_name(*character)
            ),
            Failure::PluralMissing { argument, missing } => format!(
                "the plural `{argument}` lacks the branch{} {} this language needs",
                if missing.len() == 1 { "" } else { "es" },
                missing
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Failure::PluralUnknown { argument, selector } => format!(
                "the plural `{argument}` has a branch `{selector}`, a category this language does not use"
            ),
            Failure::Syntax(why) => format!("the translation is not a well-formed message: {why}"),
            Failure::Glossary(misses) => misses
                .iter()
                .map(|m| match m.do_not_translate {
                    true => format!(
                        "the translation lacks `{}`, a term not to translate (the glossary)",
                        m.term
                    ),
                    false => format!(
                        "the translation lacks `{}`, the glossary's translation of `{}`",
                        m.expected, m.term
                    ),
                })
                .collect::<Vec<_>>()
                .join("; "),
            Failure::Inconsistent { others } => format!(
                "the same source is translated otherwise in {}",
                others
                    .iter()
                    .map(|(id, translation)| format!("{id} (`{translation}`)"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Failure::MissingGlyph { characters, fonts } => format!(
                "the translation holds {}, which the language's fonts ({}) have no glyph for",
                characters
                    .iter()
                    .map(|c| format!("`{c}` (U+{:04X})", u32::from(*c)))
                    .collect::<Vec<_>>()
                    .join(", "),
                fonts.join(", ")
            ),
        }
    }
}

/// Whether a character may not appear in a translation: control characters other than
/// line feed and tab, zero-width characters, the byte order mark and bidirectional
/// overrides (they hide text, or reorder it, where nobody reviewing can see).
pub fn is_invisible(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{200B}'..='\u{200D}'
                | '\u{2060}'..='\u{2064}'
                | '\u{FEFF}'
                | '\u{180E}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

fn invisible_name(c: char) -> &'static str {
    match c {
        '\r' => "carriage return",
        '\u{200B}' => "zero width space",
        '\u{200C}' => "zero width non-joiner",
        '\u{200D}' => "zero width joiner",
        '\u{2060}' => "word joiner",
        '\u{FEFF}' => "byte order mark",
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => "bidirectional control",
        c if c.is_control() => "control character",
        _ => "invisible character",
    }
}

fn category_name(category: PluralCategory) -> &'static str {
    match category {
        PluralCategory::Zero => "zero",
        PluralCategory::One => "one",
        PluralCategory::Two => "two",
        PluralCategory::Few => "few",
        PluralCategory::Many => "many",
        PluralCategory::Other => "other",
    }
}

/// The checks for one target language (its CLDR plural categories loaded once).
#[derive(Debug, Clone)]
pub struct Checker {
    cardinal: Vec<&'static str>,
    ordinal: Vec<&'static str>,
    /// What the language's fonts cover, when `[fonts]` names them.
    fonts: Option<Coverage>,
    /// The language checked (for the glossary's translations into it).
    language: String,
    /// The project's glossary, and whether a miss refuses the translation.
    glossary: Option<(Arc<Glossary>, bool)>,
}

impl Checker {
    /// Checks for `language` (a BCP 47 tag: `en`, `pt-BR`, `zh-Hant`). A language CLDR
    /// does not know has only the `other` category.
    pub fn new(language: &str) -> Checker {
        let locale = Locale::try_from_str(language).unwrap_or(Locale::UNKNOWN);
        let categories = |rule_type: PluralRuleType| {
            let mut options = PluralRulesOptions::default();
            options.rule_type = Some(rule_type);
            PluralRules::try_new((&locale).into(), options)
                .map(|rules| rules.categories().map(category_name).collect())
                .unwrap_or_else(|_| vec!["other"])
        };
        Checker {
            cardinal: categories(PluralRuleType::Cardinal),
            ordinal: categories(PluralRuleType::Ordinal),
            fonts: None,
            language: language.to_string(),
            glossary: None,
        }
    }

    /// These checks with the project's glossary (`error`: a miss refuses the
    /// translation; else it is a warning).
    pub fn with_glossary(mut self, glossary: Arc<Glossary>, error: bool) -> Checker {
        self.glossary = (!glossary.is_empty()).then_some((glossary, error));
        self
    }

    /// The glossary terms a source text holds, as a translator sees them (`剣 → sword`).
    pub fn glossary_terms(&self, source: &str) -> Vec<String> {
        match &self.glossary {
            Some((glossary, _)) => glossary
                .terms_in(source)
                .iter()
                .map(|entry| entry.shown(&self.language))
                .collect(),
            None => Vec::new(),
        }
    }

    /// What a translation is warned about (a glossary miss, unless it is an error).
    pub fn warnings(&self, source: &str, translation: &str) -> Vec<Failure> {
        match &self.glossary {
            Some((glossary, false)) => self.glossary_miss(glossary, source, translation),
            _ => None,
        }
        .into_iter()
        .collect()
    }

    fn glossary_miss(
        &self,
        glossary: &Glossary,
        source: &str,
        translation: &str,
    ) -> Option<Failure> {
        let misses = glossary.misses(&self.language, source, translation);
        (!misses.is_empty()).then_some(Failure::Glossary(misses))
    }

    /// Checks for `language` of a project: with its fonts (`[fonts]`), when it names any.
    pub fn of_project(config: &Config, language: &str) -> Checker {
        Checker {
            fonts: config.fonts.get(language).cloned(),
            ..Checker::new(language)
        }
    }

    /// The language's cardinal plural categories (`one`, `other` for English).
    pub fn cardinal_categories(&self) -> &[&'static str] {
        &self.cardinal
    }

    /// Every reason `translation` cannot stand for `source`; empty when it can.
    pub fn check(&self, source: &str, translation: &str, max_length: Option<u32>) -> Vec<Failure> {
        let mut failures = Vec::new();
        if let Some((index, character)) = translation
            .chars()
            .enumerate()
            .find(|(_, c)| is_invisible(*c))
        {
            failures.push(Failure::Invisible {
                character,
                position: index + 1,
            });
        }
        if let Some((glossary, true)) = &self.glossary
            && let Some(failure) = self.glossary_miss(glossary, source, translation)
        {
            failures.push(failure);
        }
        if let Some(fonts) = &self.fonts {
            let characters = fonts.missing(translation);
            if !characters.is_empty() {
                failures.push(Failure::MissingGlyph {
                    characters,
                    fonts: fonts.files.clone(),
                });
            }
        }
        let parsed = message::parse(translation);
        if let Some(max) = max_length
            && translation.len() > max as usize
        {
            // What counts is what a player sees: the longest variant of a plural or
            // select (a text never has more graphemes than bytes, so most skip this).
            let length = match &parsed {
                Ok(message) => message.lengths.longest,
                // Not a message: parsed once already, so counted as written here.
                Err(_) => message::Lengths::as_written(translation).longest,
            };
            if length > max as usize {
                let variants = parsed.as_ref().is_ok_and(|m| !m.choices.is_empty());
                failures.push(Failure::TooLong {
                    length,
                    max,
                    variants,
                });
            }
        }
        let translated = match parsed {
            Ok(message) => message,
            Err(why) => {
                failures.push(Failure::Syntax(why));
                return failures;
            }
        };
        // A source that is not a well-formed message (a stray brace in planners' text)
        // is compared without its braces: tags and printf placeholders still count.
        let original = message::parse(source).unwrap_or_else(|_| {
            let mut lenient = message::parse(&source.replace(['{', '}'], "")).unwrap_or_default();
            lenient.choices.clear();
            lenient
        });
        if let Some(failure) = compare_tokens(&original, &translated) {
            failures.push(failure);
        }
        self.check_choices(&translated, &mut failures);
        failures
    }

    fn check_choices(&self, message: &Message, failures: &mut Vec<Failure>) {
        for choice in &message.choices {
            let categories: &[&'static str] = match choice.kind {
                ChoiceKind::Cardinal => &self.cardinal,
                ChoiceKind::Ordinal => &self.ordinal,
                ChoiceKind::Select => &["other"],
            };
            let missing: Vec<&'static str> = categories
                .iter()
                .copied()
                .filter(|c| !choice.selectors.iter().any(|s| s == c))
                .collect();
            if !missing.is_empty() {
                failures.push(Failure::PluralMissing {
                    argument: choice.argument.clone(),
                    missing,
                });
            }
            if choice.kind != ChoiceKind::Select {
                for selector in &choice.selectors {
                    let explicit = selector.strip_prefix('=').is_some_and(|n| !n.is_empty());
                    if !explicit && !categories.contains(&selector.as_str()) {
                        failures.push(Failure::PluralUnknown {
                            argument: choice.argument.clone(),
                            selector: selector.clone(),
                        });
                    }
                }
            }
        }
    }
}

/// The multiset difference of two sorted token lists, as a failure when not equal.
fn compare_tokens(source: &Message, translation: &Message) -> Option<Failure> {
    if source.tokens == translation.tokens {
        return None;
    }
    let (mut missing, mut extra) = (Vec::new(), Vec::new());
    let (a, b) = (&source.tokens, &translation.tokens);
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                missing.push(x.clone());
                i += 1;
            }
            (Some(x), None) => {
                missing.push(x.clone());
                i += 1;
            }
            (_, Some(y)) => {
                extra.push(y.clone());
                j += 1;
            }
            (None, None) => break,
        }
    }
    Some(Failure::Placeholders { missing, extra })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_faithful_translation_passes() {
        let en = Checker::new("en");
        assert!(
            en.check(
                "{name}に<b>{amount}</b>ゴールド",
                "<b>{amount}</b> gold for {name}",
                Some(40)
            )
            .is_empty()
        );
    }

    #[test]
    fn each_check_names_its_reason() {
        let en = Checker::new("en");
        let failures = en.check("{name}を倒せ", "Defeat {nam}", None);
        assert_eq!(
            failures,
            [Failure::Placeholders {
                missing: vec!["{name}".into()],
                extra: vec!["{nam}".into()]
            }]
        );
        assert!(matches!(
            en.check("剣", "Sword\u{200B}", None)[..],
            [Failure::Invisible {
                character: '\u{200B}',
                position: 6
            }]
        ));
        // Graphemes, not bytes or code points: "é" written as e + combining accent is one.
        assert!(en.check("剣", "Epe\u{301}e", Some(4)).is_empty());
        assert!(matches!(
            en.check("剣", "Sword", Some(4))[..],
            [Failure::TooLong {
                length: 5,
                max: 4,
                variants: false
            }]
        ));
        // A plural is as long as its longest branch, not its syntax: two 31-character
        // branches fit 31 (94 characters as written).
        let source = "{count, plural, other {#枚の竜の鱗を見つけた}}";
        let plural = "{count, plural, one {You found # shiny dragon scale} other {You found # shiny dragon scales}}";
        assert!(en.check(source, plural, Some(31)).is_empty());
        let failures = en.check(source, plural, Some(30));
        assert!(matches!(
            failures[..],
            [Failure::TooLong {
                length: 31,
                max: 30,
                variants: true
            }]
        ));
        assert_eq!(
            failures[0].message(),
            "the translation's longest variant is 31 characters long; at most 30 fit"
        );
        assert!(matches!(
            en.check("剣", "{oops", None)[..],
            [Failure::Syntax(_)]
        ));
        // A conversion a translator adds is refused, `%n` (which writes) first of all.
        for added in ["%n", "%hhn", "%1$n", "%x", "%s", "%p"] {
            let failures = en.check("剣", &format!("Sword {added}"), None);
            assert_eq!(
                failures,
                [Failure::Placeholders {
                    missing: vec![],
                    extra: vec![added.into()]
                }],
                "{added}"
            );
        }
    }

    #[test]
    fn plurals_follow_the_language() {
        let source = "{count, plural, other {#個}}";
        let en = Checker::new("en");
        assert!(
            en.check(
                source,
                "{count, plural, one {# piece} other {# pieces}}",
                None
            )
            .is_empty()
        );
        assert_eq!(
            en.check(source, "{count, plural, other {# pieces}}", None),
            [Failure::PluralMissing {
                argument: "count".into(),
                missing: vec!["one"]
            }]
        );
        let ru = Checker::new("ru");
        assert_eq!(ru.cardinal_categories(), ["one", "few", "many", "other"]);
        assert!(matches!(
            en.check(source, "{count, plural, one {#} few {#} other {#}}", None)[..],
            [Failure::PluralUnknown { .. }]
        ));
        assert!(
            en.check(source, "{count, plural, =0 {none} one {#} other {#}}", None)
                .is_empty()
        );
        // Japanese needs only `other`.
        assert!(Checker::new("ja").check(source, source, None).is_empty());
    }
}
