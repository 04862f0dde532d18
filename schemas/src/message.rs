//! The parts of a message a translation must keep: placeholders (`{name}`, `{0}`,
//! printf's `%d` and `%1$s`), rich-text tags (`<color=red>`, `</color>`, `<br/>`) and
//! ICU plural and select arguments (`{count, plural, one {# item} other {# items}}`).
//!
//! A translation may reorder them but not lose, add or change one. Inside a plural or
//! select argument every branch repeats the message in its own words, and languages
//! have different numbers of branches; so what the branches hold counts once per
//! argument (as a set), while everything outside counts as often as it appears.
//!
//! ICU's apostrophe quoting is honoured: `'{'` is a literal brace and `''` an
//! apostrophe; any other apostrophe ("Hero's sword") is plain text.
//!
//! A message with choices is shown as one of its variants (one branch of each choice), so
//! its length is that of its shortest and its longest variant ([`Lengths`]): what is
//! shown, in grapheme clusters, with the choice syntax and quoting apostrophes left out.
//! A placeholder, a tag and a plural's `#` count as written.

use std::collections::BTreeSet;

use unicode_segmentation::UnicodeSegmentation;

/// What kind of choice an ICU argument makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChoiceKind {
    /// `plural`: branches per CLDR cardinal category (`one`, `few`, `other`...) or `=N`.
    Cardinal,
    /// `selectordinal`: branches per CLDR ordinal category.
    Ordinal,
    /// `select`: branches per free keyword, `other` required.
    Select,
}

/// One plural or select argument and the selectors of its branches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub argument: String,
    pub kind: ChoiceKind,
    pub selectors: Vec<String>,
}

/// The structure of a message: its placeholders and tags (a sorted multiset, each in the
/// form it is shown to people: `{name}`, `%d`, `<b>`), its choices, and the lengths of
/// its variants.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Message {
    pub tokens: Vec<String>,
    pub choices: Vec<Choice>,
    pub lengths: Lengths,
}

/// The length in grapheme clusters of a message's shortest and longest variant (equal
/// for a message without choices).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lengths {
    pub shortest: usize,
    pub longest: usize,
}

impl Lengths {
    fn fixed(length: usize) -> Lengths {
        Lengths {
            shortest: length,
            longest: length,
        }
    }

    fn add(&mut self, other: Lengths) {
        self.shortest += other.shortest;
        self.longest += other.longest;
    }
}

impl Lengths {
    /// A text that is not a well-formed message (a stray brace in planners' prose): one
    /// variant, counted as written.
    pub fn as_written(text: &str) -> Lengths {
        Lengths::fixed(graphemes(text))
    }
}

/// The lengths of a text's variants ([`Lengths::as_written`] when it is not a message).
pub fn lengths(text: &str) -> Lengths {
    // Without braces or apostrophes (most texts) nothing is choice syntax or quoting:
    // the one variant is the text as written.
    if !text.contains(['{', '}', '\'']) {
        return Lengths::as_written(text);
    }
    parse(text).map_or_else(|_| Lengths::as_written(text), |message| message.lengths)
}

/// The number of grapheme clusters (characters as a person counts them) in a text.
pub fn graphemes(text: &str) -> usize {
    // ASCII (most texts) has one grapheme per byte but for CR LF.
    if text.is_ascii() && !text.contains('\r') {
        return text.len();
    }
    let mut count = 0;
    for c in text.chars() {
        if !stands_alone(c) {
            return text.graphemes(true).count();
        }
        count += 1;
    }
    count
}

/// Whether a character is a grapheme cluster of its own beside any other character of
/// which this is true: Unicode's cluster rules join characters only around combining
/// marks, joiners, CR LF, Hangul jamo, regional indicators and prepended or spacing
/// marks, and none of these is here. Latin-1 and Latin Extended, CJK punctuation (but
/// its combining tone marks), kana (but the combining voicing marks), CJK ideographs,
/// Hangul syllables (which join only with jamo) and full-width forms (but the
/// half-width voicing marks): the texts of the games' languages, counted a character
/// at a time.
fn stands_alone(c: char) -> bool {
    matches!(c as u32,
        0x00..=0x0C | 0x0E..=0x24F
        | 0x3000..=0x3029 | 0x3030..=0x303F
        | 0x3041..=0x3096 | 0x309B..=0x30FF
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xAC00..=0xD7A3
        | 0xFF01..=0xFF9D)
}

/// Whether a message's braces nest deeper than [`MAX_NESTING`] choices could (each
/// choice opens two: its own and its branch's), read without parsing it.
pub fn too_deep(text: &str) -> bool {
    // Most texts hold no brace, or too few to nest that deep: found without reading
    // them a byte at a time.
    let limit = 2 * MAX_NESTING + 1;
    if memchr::memchr_iter(b'{', text.as_bytes())
        .nth(limit)
        .is_none()
    {
        return false;
    }
    let (mut depth, mut deepest) = (0usize, 0usize);
    for byte in text.bytes() {
        match byte {
            b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest > limit
}

/// Parse a message; the error says what is malformed (an unclosed `{`, a `}` without
/// its `{`, a plural without branches).
pub fn parse(text: &str) -> Result<Message, String> {
    let mut parser = Parser::new(text);
    let mut tokens = Vec::new();
    let lengths = parser.message(false, false, &mut tokens)?;
    tokens.sort();
    Ok(Message {
        tokens,
        choices: parser.choices,
        lengths,
    })
}

/// The byte ranges of a message that are syntax, in order: placeholders, tags, printf
/// conversions, a choice's argument, kind and selectors (not its branches' text) and
/// quoted runs. What lies between them is text a person reads.
pub fn syntax(text: &str) -> Result<Vec<std::ops::Range<usize>>, String> {
    // Most texts hold no syntax at all: nothing to parse.
    if !text.contains(['{', '}', '<', '%', '\'']) {
        return Ok(Vec::new());
    }
    let mut parser = Parser::new(text);
    parser.message(false, false, &mut Vec::new())?;
    let mut kept = parser.kept;
    kept.sort_by_key(|r| r.start);
    Ok(kept)
}

/// How deep choices may nest (`{a, select, x {{b, plural, …}}}`): ICU itself stops
/// deeper; a message nested thousands deep would otherwise exhaust the stack.
pub const MAX_NESTING: usize = 32;

struct Parser<'a> {
    /// Choices open around the current position.
    depth: usize,
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    choices: Vec<Choice>,
    /// The byte ranges that are syntax (see [`syntax`]).
    kept: Vec<std::ops::Range<usize>>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        Parser {
            depth: 0,
            text,
            bytes: text.as_bytes(),
            pos: 0,
            choices: Vec::new(),
            kept: Vec::new(),
        }
    }

    /// Read message text up to its end (or, inside a branch, up to the closing `}`),
    /// pushing what it holds to `tokens`; the lengths of what it shows. Only ASCII bytes
    /// are syntax, so walking bytes never splits a character.
    fn message(
        &mut self,
        in_branch: bool,
        in_plural: bool,
        tokens: &mut Vec<String>,
    ) -> Result<Lengths, String> {
        let opened = self.pos;
        let mut lengths = Lengths::default();
        // Plain text since the last syntax, counted when syntax interrupts it.
        let mut text_from = self.pos;
        while let Some(&byte) = self.bytes.get(self.pos) {
            match byte {
                b'}' if in_branch => {
                    lengths.add(Lengths::fixed(graphemes(&self.text[text_from..self.pos])));
                    self.pos += 1;
                    return Ok(lengths);
                }
                b'}' => {
                    return Err(format!(
                        "`}}` at character {} has no matching `{{`",
                        self.character(self.pos)
                    ));
                }
                b'{' => {
                    lengths.add(Lengths::fixed(graphemes(&self.text[text_from..self.pos])));
                    lengths.add(self.argument(tokens)?);
                    text_from = self.pos;
                }
                b'\'' => {
                    let start = self.pos;
                    let shown = self.apostrophe(in_plural);
                    if let Some(shown) = shown {
                        lengths.add(Lengths::fixed(graphemes(&self.text[text_from..start])));
                        lengths.add(Lengths::fixed(shown));
                        text_from = self.pos;
                        self.kept.push(start..self.pos);
                    }
                }
                b'%' => self.printf(tokens),
                b'<' => self.tag(tokens),
                _ => self.pos += 1,
            }
        }
        if in_branch {
            return Err(format!(
                "the branch opened at character {} is never closed with `}}`",
                self.character(opened)
            ));
        }
        lengths.add(Lengths::fixed(graphemes(&self.text[text_from..])));
        Ok(lengths)
    }

    /// 1-based character position of a byte offset, for messages.
    fn character(&self, at: usize) -> usize {
        self.text[..at].chars().count() + 1
    }

    fn skip_space(&mut self) {
        while self
            .bytes
            .get(self.pos)
            .is_some_and(u8::is_ascii_whitespace)
        {
            self.pos += 1;
        }
    }

    /// A word up to whitespace or one of `stops`.
    fn word(&mut self, stops: &[u8]) -> &str {
        let start = self.pos;
        while let Some(&b) = self.bytes.get(self.pos) {
            if b.is_ascii_whitespace() || stops.contains(&b) {
                break;
            }
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    /// `{name}`, `{name, type[, style]}` or `{name, plural|select|selectordinal, ...}`;
    /// a placeholder shows as written, a choice as one of its branches.
    fn argument(&mut self, tokens: &mut Vec<String>) -> Result<Lengths, String> {
        let open = self.pos;
        self.pos += 1;
        self.skip_space();
        let name = self.word(b",{}").to_string();
        if name.is_empty() {
            return Err(format!(
                "the placeholder at character {} has no name",
                self.character(open)
            ));
        }
        self.skip_space();
        match self.bytes.get(self.pos) {
            Some(b'}') => {
                self.pos += 1;
                tokens.push(format!("{{{name}}}"));
                self.kept.push(open..self.pos);
                return Ok(Lengths::fixed(graphemes(&self.text[open..self.pos])));
            }
            Some(b',') => self.pos += 1,
            _ => return Err(self.unclosed(open)),
        }
        self.skip_space();
        let kind = self.word(b",{}").to_string();
        self.skip_space();
        let choice = match kind.as_str() {
            "plural" => ChoiceKind::Cardinal,
            "selectordinal" => ChoiceKind::Ordinal,
            "select" => ChoiceKind::Select,
            _ => {
                // A formatted argument (`number`, `date`...): its style runs to the `}`.
                let mut depth = 0usize;
                while let Some(&b) = self.bytes.get(self.pos) {
                    self.pos += 1;
                    match b {
                        b'{' => depth += 1,
                        b'}' if depth == 0 => {
                            tokens.push(format!("{{{name}, {kind}}}"));
                            self.kept.push(open..self.pos);
                            return Ok(Lengths::fixed(graphemes(&self.text[open..self.pos])));
                        }
                        b'}' => depth -= 1,
                        _ => {}
                    }
                }
                return Err(self.unclosed(open));
            }
        };
        if self.bytes.get(self.pos) != Some(&b',') {
            return Err(format!(
                "the {kind} argument `{name}` at character {} has no branches",
                self.character(open)
            ));
        }
        self.pos += 1;
        let mut selectors = Vec::new();
        let mut inner = BTreeSet::new();
        let mut shown: Option<Lengths> = None;
        // The syntax since the last branch's text (first: the argument and its kind).
        let mut syntax_from = open;
        loop {
            self.skip_space();
            match self.bytes.get(self.pos) {
                None => return Err(self.unclosed(open)),
                Some(b'}') => {
                    self.pos += 1;
                    self.kept.push(syntax_from..self.pos);
                    break;
                }
                _ => {}
            }
            let selector = self.word(b"{}").to_string();
            if selector.starts_with("offset:") {
                continue;
            }
            self.skip_space();
            if self.bytes.get(self.pos) != Some(&b'{') {
                return Err(format!(
                    "the branch `{selector}` of `{name}` at character {} has no `{{message}}`",
                    self.character(open)
                ));
            }
            self.pos += 1;
            self.kept.push(syntax_from..self.pos);
            let mut branch = Vec::new();
            if self.depth >= MAX_NESTING {
                return Err(format!(
                    "the {kind} argument `{name}` at character {} is nested more than {MAX_NESTING} choices deep",
                    self.character(open)
                ));
            }
            self.depth += 1;
            let lengths = self.message(true, choice != ChoiceKind::Select, &mut branch);
            self.depth -= 1;
            let lengths = lengths?;
            // The branch's closing `}` is syntax again.
            syntax_from = self.pos - 1;
            shown = Some(shown.map_or(lengths, |so_far| Lengths {
                shortest: so_far.shortest.min(lengths.shortest),
                longest: so_far.longest.max(lengths.longest),
            }));
            inner.extend(branch);
            selectors.push(selector);
        }
        if selectors.is_empty() {
            return Err(format!(
                "the {kind} argument `{name}` at character {} has no branches",
                self.character(open)
            ));
        }
        tokens.push(format!("{{{name}, {kind}}}"));
        tokens.extend(inner);
        self.choices.push(Choice {
            argument: name,
            kind: choice,
            selectors,
        });
        Ok(shown.unwrap_or_default())
    }

    fn unclosed(&self, open: usize) -> String {
        format!(
            "the `{{` at character {} is never closed",
            self.character(open)
        )
    }

    /// `''` is an apostrophe; `'` before `{`, `}` (or `#` in a plural) quotes up to the
    /// next apostrophe; any other apostrophe is text (`None`: counted with the text
    /// around it). Quoting: the length of what it shows.
    fn apostrophe(&mut self, in_plural: bool) -> Option<usize> {
        match self.bytes.get(self.pos + 1) {
            Some(b'\'') => {
                self.pos += 2;
                Some(1)
            }
            Some(b'{' | b'}') => Some(self.quoted()),
            Some(b'#') if in_plural => Some(self.quoted()),
            _ => {
                self.pos += 1;
                None
            }
        }
    }

    /// Skip a quoted run; the length of what it shows (`''` inside is one apostrophe).
    fn quoted(&mut self) -> usize {
        self.pos += 1;
        let mut shown = 0;
        let mut from = self.pos;
        while let Some(&b) = self.bytes.get(self.pos) {
            self.pos += 1;
            if b == b'\'' {
                shown += graphemes(&self.text[from..self.pos - 1]);
                if self.bytes.get(self.pos) == Some(&b'\'') {
                    self.pos += 1;
                    shown += 1;
                    from = self.pos;
                } else {
                    return shown;
                }
            }
        }
        shown + graphemes(&self.text[from..])
    }

    /// `%d`, `%s`, `%1$s`, `%05.2f`, `%lld`, `%@`, and `%n` (which writes through its
    /// argument: a translator adding one is the dangerous case); `%%` is a percent sign, and a `%`
    /// that starts no conversion (`50%OFF`) is text. A space is not taken as a flag:
    /// "100% sure" is text.
    fn printf(&mut self, tokens: &mut Vec<String>) {
        let start = self.pos;
        let bytes = self.bytes;
        let mut at = start + 1;
        if bytes.get(at) == Some(&b'%') {
            self.pos = at + 1;
            return;
        }
        let digits = |mut at: usize| {
            while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            at
        };
        // Position: `1$`.
        let after = digits(at);
        if after > at && bytes.get(after) == Some(&b'$') {
            at = after + 1;
        }
        while bytes.get(at).is_some_and(|b| b"-+0#".contains(b)) {
            at += 1;
        }
        at = if bytes.get(at) == Some(&b'*') {
            at + 1
        } else {
            digits(at)
        };
        if bytes.get(at) == Some(&b'.') {
            at = if bytes.get(at + 1) == Some(&b'*') {
                at + 2
            } else {
                digits(at + 1)
            };
        }
        for length in [&b"hh"[..], b"ll", b"h", b"l", b"z", b"j", b"t", b"L"] {
            if bytes[at.min(bytes.len())..].starts_with(length) {
                at += length.len();
                break;
            }
        }
        match bytes.get(at) {
            Some(b) if b"diouxXeEfFgGaAcspn@".contains(b) => {
                tokens.push(self.text[start..=at].to_string());
                self.kept.push(start..at + 1);
                self.pos = at + 1;
            }
            _ => self.pos = start + 1,
        }
    }

    /// `<b>`, `</b>`, `<color=#ff0000>`, `<br/>`: a `<` followed by a letter (or `/` and a
    /// letter) up to the next `>` on the same line; any other `<` is text ("a < b").
    fn tag(&mut self, tokens: &mut Vec<String>) {
        let start = self.pos;
        let mut at = start + 1;
        if self.bytes.get(at) == Some(&b'/') {
            at += 1;
        }
        if !self.bytes.get(at).is_some_and(u8::is_ascii_alphabetic) {
            self.pos = start + 1;
            return;
        }
        while let Some(&b) = self.bytes.get(at) {
            match b {
                b'>' => {
                    tokens.push(self.text[start..=at].to_string());
                    self.kept.push(start..at + 1);
                    self.pos = at + 1;
                    return;
                }
                b'<' | b'\n' => break,
                _ => at += 1,
            }
        }
        self.pos = start + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<String> {
        parse(text).expect("parses").tokens
    }

    /// Every character counted a character at a time is one cluster beside every
    /// other such character (each range's ends and middle, ASCII, itself) and after
    /// CR; and a text holding any other character is counted by the full rules.
    #[test]
    fn characters_that_stand_alone_are_one_cluster_beside_each_other() {
        let ranges = [
            (0x00, 0x0C),
            (0x0E, 0x24F),
            (0x3000, 0x3029),
            (0x3030, 0x303F),
            (0x3041, 0x3096),
            (0x309B, 0x30FF),
            (0x3400, 0x4DBF),
            (0x4E00, 0x9FFF),
            (0xAC00, 0xD7A3),
            (0xFF01, 0xFF9D),
        ];
        let probes: Vec<char> = ranges
            .iter()
            .flat_map(|&(lo, hi)| [lo, (lo + hi) / 2, hi])
            .chain([u32::from('a'), 0x0A])
            .filter_map(char::from_u32)
            .collect();
        for &(lo, hi) in &ranges {
            for c in (lo..=hi).filter_map(char::from_u32) {
                assert!(stands_alone(c), "{c:?}");
                for &p in &probes {
                    for text in [format!("{c}{p}"), format!("{p}{c}"), format!("{c}{c}")] {
                        assert_eq!(text.graphemes(true).count(), 2, "{text:?}");
                        assert_eq!(graphemes(&text), 2, "{text:?}");
                    }
                }
            }
        }
        for text in [
            "か\u{3099}",
            "ｶﾞ",
            "e\u{301}",
            "a\r\nb",
            "👍🏽",
            "🇯🇵",
            "ᄀ\u{1161}",
            "各\u{302A}",
            "가\u{11A8}",
        ] {
            assert_eq!(graphemes(text), text.graphemes(true).count(), "{text:?}");
            assert_eq!(
                lengths(text).longest,
                text.graphemes(true).count(),
                "{text:?}"
            );
        }
        assert_eq!(graphemes("英雄の鎧、Ａ１"), 7);
    }

    #[test]
    fn placeholders_tags_and_printf_are_found() {
        assert_eq!(
            tokens("<color=red>{name}</color> gets %d of %1$s, 100% sure, 50%OFF, %%"),
            ["%1$s", "%d", "</color>", "<color=red>", "{name}"]
        );
        assert_eq!(tokens("{0} and {0}"), ["{0}", "{0}"]);
        // Every conversion of C's printf is one placeholder, `%n` in all its spellings.
        assert_eq!(
            tokens("%n %hhn %1$n %ln %-8.3Lf %*d %.*s %zu %jd %tx %c %p"),
            [
                "%*d", "%-8.3Lf", "%.*s", "%1$n", "%c", "%hhn", "%jd", "%ln", "%n", "%p", "%tx",
                "%zu"
            ]
        );
        assert_eq!(tokens("a < b, x<3"), Vec::<String>::new());
    }

    #[test]
    fn plural_branches_count_once() {
        let message = parse("{count, plural, one {# {item}} other {# {item}s <b>!</b>}}").unwrap();
        assert_eq!(message.tokens, ["</b>", "<b>", "{count, plural}", "{item}"]);
        assert_eq!(message.choices[0].selectors, ["one", "other"]);
        assert_eq!(message.choices[0].kind, ChoiceKind::Cardinal);
    }

    #[test]
    fn lengths_are_those_of_the_shown_variants() {
        let fixed = |n| Lengths {
            shortest: n,
            longest: n,
        };
        assert_eq!(lengths("鉄の剣"), fixed(3));
        assert_eq!(lengths("Hi {name}!"), fixed(10));
        // Two 31-character branches: the message shows 31, not the 94 it is written in.
        let english = "{count, plural, one {You found # shiny dragon scale} other {You found # shiny dragon scales}}";
        assert_eq!(
            lengths(english),
            Lengths {
                shortest: 30,
                longest: 31
            }
        );
        // Text around a choice counts in every variant; nested choices take their own.
        assert_eq!(
            lengths("Ah, {n, plural, one {a {g, select, f {she} other {they}}} other {many}}!"),
            Lengths {
                shortest: 9,
                longest: 11
            }
        );
        // Quoting apostrophes are not shown: '{x}' shows {x}, '' shows '.
        assert_eq!(lengths("'{x}' and Hero''s"), fixed(14));
        // Not a message: counted as written.
        assert_eq!(lengths("oops}"), fixed(5));
    }

    #[test]
    fn apostrophes_quote_only_syntax() {
        assert_eq!(tokens("Hero's '{sword}' and ''{x}''"), ["{x}"]);
    }

    #[test]
    fn syntax_is_everything_but_the_text_people_read() {
        let text = "<b>{n}</b> got %d {count, plural, one {# gem} other {# gems}} '{x}'";
        let kept: Vec<&str> = syntax(text)
            .unwrap()
            .into_iter()
            .map(|r| &text[r])
            .collect();
        assert_eq!(
            kept,
            [
                "<b>",
                "{n}",
                "</b>",
                "%d",
                "{count, plural, one {",
                "} other {",
                "}}",
                "'{x}'"
            ]
        );
        assert!(syntax("{oops").is_err());
    }

    #[test]
    fn choices_nest_at_most_so_deep_and_any_deeper_is_an_error_not_a_crash() {
        let nested = |depth: usize| {
            let mut text = String::from("x");
            for _ in 0..depth {
                text = format!("{{g, select, other {{{text}}}}}");
            }
            text
        };
        assert!(parse(&nested(MAX_NESTING)).is_ok());
        assert!(!too_deep(&nested(MAX_NESTING)));
        assert!(too_deep(&nested(MAX_NESTING + 1)));
        // Many choices side by side are not deep, however many braces they hold.
        let side_by_side = nested(1).repeat(4 * MAX_NESTING);
        assert!(!too_deep(&side_by_side));
        assert!(parse(&side_by_side).is_ok());
        for depth in [MAX_NESTING + 1, 20_000] {
            let error = parse(&nested(depth)).unwrap_err();
            assert!(error.contains("nested more than 32"), "{error}");
            assert!(syntax(&nested(depth)).is_err());
        }
    }

    #[test]
    fn malformed_messages_say_where() {
        assert!(parse("{name").unwrap_err().contains("character 1"));
        assert!(parse("oops}").unwrap_err().contains("no matching"));
        assert!(parse("{n, plural, one}").is_err());
        assert!(parse("{}").unwrap_err().contains("no name"));
    }
}
