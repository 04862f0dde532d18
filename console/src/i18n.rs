//! The console's languages: English and Japanese, each page's words kept in Fluent files
//! (`console/locales/<language>.ftl`, compiled in). A visitor's language is the one
//! they chose (the `masterctl-lang` cookie, set by `/language`), else the first of their
//! browser's `Accept-Language` the console speaks, else English. A word a language
//! lacks is said in English, never as its id.

use std::sync::OnceLock;

use axum::http::{HeaderMap, header};
use cookie::Cookie;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource};

/// The cookie a chosen language is kept in.
pub const COOKIE: &str = "masterctl-lang";

/// A language the console speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
    Ja,
}

impl Lang {
    /// Every language, in the order the switch shows them.
    pub const ALL: [Lang; 2] = [Lang::Ja, Lang::En];

    /// Its tag (`ja`), as `<html lang>` and the cookie take it.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ja => "ja",
        }
    }

    /// Its name in itself (`日本語`), as the switch shows it.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Ja => "日本語",
        }
    }

    /// The language a tag names (`ja`, `ja-JP`, `en-US`…), when the console speaks it.
    pub fn of(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Lang::En),
            "ja" => Some(Lang::Ja),
            _ => None,
        }
    }

    /// The visitor's language: `chosen` (the cookie's), else the first of
    /// `accept_language` (by its weights) the console speaks, else English.
    pub fn negotiate(chosen: Option<&str>, accept_language: Option<&str>) -> Lang {
        if let Some(lang) = chosen.and_then(Lang::of) {
            return lang;
        }
        let mut offered: Vec<(f32, Lang)> = accept_language
            .unwrap_or_default()
            .split(',')
            .filter_map(|item| {
                let mut parts = item.split(';');
                let lang = Lang::of(parts.next()?)?;
                let weight = parts
                    .find_map(|p| p.trim().strip_prefix("q="))
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .unwrap_or(1.0);
                (weight > 0.0).then_some((weight, lang))
            })
            .collect();
        // The highest weight; among equals, the one named first.
        offered.sort_by(|a, b| b.0.total_cmp(&a.0));
        offered.first().map_or(Lang::En, |(_, lang)| *lang)
    }

    /// The words of `id`, which takes no arguments.
    pub fn t(self, id: &str) -> String {
        self.say(id, &[])
    }

    /// The words of `id`, with `args` (`{ $name }`) put in.
    pub fn say(self, id: &str, args: &[(&str, &str)]) -> String {
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            // A count is a number, for the plural its words take.
            match value.parse::<i64>() {
                Ok(number) => fluent_args.set(*name, number),
                Err(_) => fluent_args.set(*name, value.to_string()),
            }
        }
        let bundles = bundles();
        words(&bundles[self as usize], id, &fluent_args)
            .or_else(|| words(&bundles[Lang::En as usize], id, &fluent_args))
            .unwrap_or_else(|| id.to_string())
    }

    /// The words of `id` in this language alone, every argument put in as text (a key
    /// `007` stays `007`): none when the language lacks the message or the words would
    /// show an argument not given (`{$name}`), for the caller to say it otherwise.
    pub fn say_exactly(self, id: &str, args: &[(&str, &str)]) -> Option<String> {
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            fluent_args.set(*name, value.to_string());
        }
        words(&bundles()[self as usize], id, &fluent_args).filter(|said| !said.contains("{$"))
    }
}

/// The words of `id` in `bundle`, with `args` put in; none when it lacks the message.
fn words(bundle: &FluentBundle<FluentResource>, id: &str, args: &FluentArgs) -> Option<String> {
    let pattern = bundle.get_message(id)?.value()?;
    let mut errors = Vec::new();
    Some(
        bundle
            .format_pattern(pattern, Some(args), &mut errors)
            .into_owned(),
    )
}

/// The language a request asks for: the one chosen (its cookie), else its browser's.
pub fn language(headers: &HeaderMap) -> Lang {
    let chosen = (headers.get_all(header::COOKIE).iter())
        .filter_map(|v| v.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|cookie| cookie.name() == COOKIE)
        .map(|cookie| cookie.value().to_string());
    let accept = (headers.get(header::ACCEPT_LANGUAGE)).and_then(|v| v.to_str().ok());
    Lang::negotiate(chosen.as_deref(), accept)
}

/// The Fluent bundles, in [`Lang`]'s order, made once.
fn bundles() -> &'static [FluentBundle<FluentResource>; 2] {
    static BUNDLES: OnceLock<[FluentBundle<FluentResource>; 2]> = OnceLock::new();
    BUNDLES.get_or_init(|| {
        let bundle = |tag: &str, texts: &[&'static str]| {
            let language: unic_langid::LanguageIdentifier = tag.parse().unwrap_or_default();
            let mut bundle = FluentBundle::new_concurrent(vec![language]);
            // Words go into HTML, escaped there: no isolation marks around them.
            bundle.set_use_isolating(false);
            for text in texts {
                let resource = FluentResource::try_new(text.to_string())
                    .unwrap_or_else(|(resource, _)| resource);
                let _ = bundle.add_resource(resource);
            }
            bundle
        };
        // English mistakes are the sentences their diagnostics wrote: no file of them.
        [
            bundle("en", &[include_str!("../locales/en.ftl")]),
            bundle(
                "ja",
                &[
                    include_str!("../locales/ja.ftl"),
                    include_str!("../locales/mistakes.ja.ftl"),
                ],
            ),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_is_the_one_chosen_else_the_browsers_else_english() {
        assert_eq!(Lang::negotiate(Some("ja"), Some("en")), Lang::Ja);
        assert_eq!(
            Lang::negotiate(None, Some("ja-JP,ja;q=0.9,en;q=0.8")),
            Lang::Ja
        );
        assert_eq!(
            Lang::negotiate(None, Some("fr, en;q=0.5, ja;q=0.7")),
            Lang::Ja
        );
        assert_eq!(Lang::negotiate(None, Some("de")), Lang::En);
        assert_eq!(Lang::negotiate(Some("xx"), None), Lang::En);
        assert_eq!(Lang::negotiate(None, Some("ja;q=0")), Lang::En);
    }

    #[test]
    fn every_word_has_its_japanese_and_arguments_are_put_in() {
        let english = include_str!("../locales/en.ftl");
        let japanese = include_str!("../locales/ja.ftl");
        let ids = |text: &str| -> Vec<String> {
            text.lines()
                .filter(|l| !l.starts_with('#') && !l.starts_with(' ') && l.contains(" = "))
                .map(|l| l.split(" = ").next().unwrap_or_default().to_string())
                .collect()
        };
        assert_eq!(ids(english), ids(japanese), "the same words in both files");
        assert_eq!(
            Lang::Ja.say("tables-of", &[("branch", "masters/jp")]),
            "masters/jp のテーブル"
        );
        assert_eq!(Lang::En.say("sign-out", &[]), "Sign out");
        assert_eq!(Lang::Ja.say("no-such-word", &[]), "no-such-word");
    }
}
