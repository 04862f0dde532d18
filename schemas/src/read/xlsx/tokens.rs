//! The XML of a workbook's parts as tokens: start and end tags, text and CDATA, with
//! comments and processing instructions passed over. Made for the one grammar a sheet
//! holds a million times over (`<c r="B2" t="s"><v>7</v></c>`): a part is checked as
//! UTF-8 once, and a token is a slice of it — a tag's end found a byte at a time
//! (tags are short), text's with `memchr` — decoded only where it holds a reference or
//! a carriage return. An element written empty (`<v/>`) reads
//! as its start and its end; end tags are not matched against their start. A
//! document type declaration is refused (what it declares, no reader here expands).

use std::borrow::Cow;

/// A token of a part's XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token<'a> {
    /// A start tag: its local name (without a prefix) and its attributes as written.
    Start { name: &'a str, attributes: &'a str },
    /// An end tag (or the end of an element written empty): its local name.
    End(&'a str),
    /// Text as written: references and line ends not yet decoded ([`decoded`]).
    Text(&'a str),
    /// The inside of a CDATA section (line ends not yet normalised).
    CData(&'a str),
}

pub(super) struct Tokens<'a> {
    xml: &'a str,
    at: usize,
    /// The end of an element written empty, given after its start.
    pending: Option<&'a str>,
}

impl<'a> Tokens<'a> {
    /// The tokens of `xml`; an error when it is not UTF-8 (a byte order mark is
    /// passed over).
    pub(super) fn new(xml: &'a [u8]) -> Result<Tokens<'a>, String> {
        let xml = match simdutf8::basic::from_utf8(xml) {
            Ok(xml) => xml,
            Err(_) => std::str::from_utf8(xml)
                .map_err(|e| format!("it is not UTF-8 at byte {}", e.valid_up_to()))?,
        };
        let at = if xml.starts_with('\u{feff}') { 3 } else { 0 };
        Ok(Tokens {
            xml,
            at,
            pending: None,
        })
    }

    /// Where the next token starts (a byte offset), for messages.
    pub(super) fn position(&self) -> usize {
        self.at
    }

    /// The next token; `None` at the end of the part.
    pub(super) fn next(&mut self) -> Result<Option<Token<'a>>, String> {
        if let Some(name) = self.pending.take() {
            return Ok(Some(Token::End(name)));
        }
        loop {
            let rest = &self.xml.as_bytes()[self.at..];
            if rest.is_empty() {
                return Ok(None);
            }
            if rest[0] != b'<' {
                let end = memchr::memchr(b'<', rest).map_or(self.xml.len(), |n| self.at + n);
                let text = &self.xml[self.at..end];
                self.at = end;
                return Ok(Some(Token::Text(text)));
            }
            match rest.get(1) {
                Some(b'?') => self.skip_past(2, "?>", "a processing instruction")?,
                Some(b'!') => {
                    if rest.starts_with(b"<!--") {
                        self.skip_past(4, "-->", "a comment")?;
                    } else if rest.starts_with(b"<![CDATA[") {
                        let start = self.at + 9;
                        let end = self.find(start, "]]>", "a CDATA section")?;
                        self.at = end + 3;
                        return Ok(Some(Token::CData(&self.xml[start..end])));
                    } else if rest.starts_with(b"<!DOCTYPE") {
                        return Err("it declares a document type (`<!DOCTYPE`), which a workbook's parts may not hold".into());
                    } else {
                        return Err(format!(
                            "`<!` at byte {} begins no comment or CDATA section",
                            self.at
                        ));
                    }
                }
                Some(b'/') => {
                    let start = self.at + 2;
                    let end = rest[2..]
                        .iter()
                        .position(|&b| b == b'>')
                        .map(|n| start + n)
                        .ok_or_else(|| format!("the end tag at byte {} has no end", self.at))?;
                    self.at = end + 1;
                    return Ok(Some(Token::End(local(self.xml[start..end].trim_end()))));
                }
                _ => return self.start_tag().map(Some),
            }
        }
    }

    /// The text of the element whose start was just read when it holds nothing else
    /// (as a cell's value does: `<v>7</v>`), as written, with the reading past its end
    /// tag; `None`, nothing read, when it holds more (or was written empty).
    pub(super) fn simple_text(&mut self, closing: &str) -> Option<&'a str> {
        if self.pending.is_some() {
            return None;
        }
        let rest = &self.xml.as_bytes()[self.at..];
        // Values are short: the first bytes are looked at one by one.
        let lt = match rest.iter().take(32).position(|&b| b == b'<') {
            Some(lt) => lt,
            None => memchr::memchr(b'<', rest)?,
        };
        if rest.get(lt + 1) != Some(&b'/') {
            return None;
        }
        let gt = lt + rest[lt..].iter().position(|&b| b == b'>')?;
        let name = self.xml[self.at + lt + 2..self.at + gt].trim_end();
        if local(name) != closing {
            return None;
        }
        let text = &self.xml[self.at..self.at + lt];
        self.at += gt + 1;
        Some(text)
    }

    /// A cell's body as applications write it, right after its start tag: `<v>`, text
    /// alone (as [`Tokens::simple_text`] reads it), then `</` `closing` `>`. That text,
    /// as written, with the reading past the end tag; `None`, nothing read, for any
    /// other body (read token by token).
    pub(super) fn plain_value_then_end(&mut self, closing: &str) -> Option<&'a str> {
        if self.pending.is_some() || !self.xml.as_bytes()[self.at..].starts_with(b"<v>") {
            return None;
        }
        let start = self.at;
        self.at += 3;
        let ends = |rest: &[u8]| {
            rest.strip_prefix(b"</")
                .and_then(|r| r.strip_prefix(closing.as_bytes()))
                .is_some_and(|r| r.first() == Some(&b'>'))
        };
        match self.simple_text("v") {
            Some(text) if ends(&self.xml.as_bytes()[self.at..]) => {
                self.at += closing.len() + 3;
                Some(text)
            }
            _ => {
                self.at = start;
                None
            }
        }
    }

    /// The start tag at `self.at` (its `>` found outside quoted attribute values).
    fn start_tag(&mut self) -> Result<Token<'a>, String> {
        let bytes = self.xml.as_bytes();
        let start = self.at + 1;
        // A byte at a time: tags are short, and a vector search per quote costs more
        // than the few bytes between them.
        let mut quote = None;
        let Some(n) = bytes[start..].iter().position(|&b| match quote {
            Some(q) => {
                if b == q {
                    quote = None;
                }
                false
            }
            None if b == b'"' || b == b'\'' => {
                quote = Some(b);
                false
            }
            None => b == b'>',
        }) else {
            return Err(format!("the tag at byte {} has no end", self.at));
        };
        let end = start + n;
        let inside = &self.xml[start..end];
        let (inside, empty) = match inside.strip_suffix('/') {
            Some(inside) => (inside, true),
            None => (inside, false),
        };
        let name_end = inside
            .bytes()
            .position(|b| b.is_ascii_whitespace())
            .unwrap_or(inside.len());
        let name = local(&inside[..name_end]);
        if name.is_empty() {
            return Err(format!("the tag at byte {} has no name", self.at));
        }
        self.at = end + 1;
        if empty {
            self.pending = Some(name);
        }
        Ok(Token::Start {
            name,
            attributes: &inside[name_end..],
        })
    }

    /// Past the first `end` after `self.at + from` (the markup being `what`).
    fn skip_past(&mut self, from: usize, end: &str, what: &str) -> Result<(), String> {
        let at = self.find(self.at + from, end, what)?;
        self.at = at + end.len();
        Ok(())
    }

    /// Where the first `end` at or after `from` is.
    fn find(&self, from: usize, end: &str, what: &str) -> Result<usize, String> {
        memchr::memmem::find(
            &self.xml.as_bytes()[from.min(self.xml.len())..],
            end.as_bytes(),
        )
        .map(|n| from + n)
        .ok_or_else(|| format!("{what} at byte {} has no end", self.at))
    }
}

/// A name without its prefix (`x:c` is `c`).
fn local(name: &str) -> &str {
    match name.bytes().rposition(|b| b == b':') {
        Some(colon) => &name[colon + 1..],
        None => name,
    }
}

/// The attributes of a start tag as written (`key`, raw value), in order; reading stops
/// at the first that is not `key="value"` or `key='value'`.
pub(super) fn attributes(written: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let bytes = written.as_bytes();
        let space = |from: usize| {
            bytes[from..]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .map_or(bytes.len(), |n| from + n)
        };
        let key_start = space(at);
        let key_end = bytes[key_start..]
            .iter()
            .position(|&b| b == b'=' || b.is_ascii_whitespace())
            .map_or(bytes.len(), |n| key_start + n);
        let equals = space(key_end);
        if key_end == key_start || bytes.get(equals) != Some(&b'=') {
            return None;
        }
        let key = &written[key_start..key_end];
        let open = space(equals + 1);
        let quote = *bytes.get(open).filter(|&&q| q == b'"' || q == b'\'')?;
        let close = open + 1 + bytes[open + 1..].iter().position(|&b| b == quote)?;
        at = close + 1;
        Some((key, &written[open + 1..close]))
    })
}

/// The value of attribute `key` (the last, if written twice), decoded; `None` when
/// there is none.
pub(super) fn attribute<'a>(written: &'a str, key: &str) -> Result<Option<Cow<'a, str>>, String> {
    match attributes(written).filter(|(k, _)| *k == key).last() {
        None => Ok(None),
        Some((_, value)) => {
            let decoded = decoded(value)?;
            // White space in an attribute's value reads as spaces (XML's normalisation).
            Ok(Some(if decoded.contains(['\t', '\n']) {
                Cow::Owned(decoded.replace(['\t', '\n'], " "))
            } else {
                decoded
            }))
        }
    }
}

/// Text as XML reads it: references (`&amp;`, `&#49;`, `&#x31;`) decoded, line ends
/// (`\r\n`, a lone `\r`) read as `\n`. Borrowed when there is neither.
pub(super) fn decoded(text: &str) -> Result<Cow<'_, str>, String> {
    if memchr::memchr2(b'&', b'\r', text.as_bytes()).is_none() {
        return Ok(Cow::Borrowed(text));
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = memchr::memchr2(b'&', b'\r', rest.as_bytes()) {
        out.push_str(&rest[..at]);
        if rest.as_bytes()[at] == b'\r' {
            out.push('\n');
            rest = rest[at + 1..].strip_prefix('\n').unwrap_or(&rest[at + 1..]);
            continue;
        }
        let end = rest[at..]
            .find(';')
            .map(|n| at + n)
            .ok_or_else(|| format!("`{}` is no reference", shown(&rest[at..])))?;
        out.push(reference(&rest[at + 1..end])?);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Ok(Cow::Owned(out))
}

/// CDATA as XML reads it: line ends read as `\n`.
pub(super) fn cdata(text: &str) -> Cow<'_, str> {
    if memchr::memchr(b'\r', text.as_bytes()).is_none() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// The character a reference (between `&` and `;`) stands for.
fn reference(name: &str) -> Result<char, String> {
    let number = match name {
        "lt" => return Ok('<'),
        "gt" => return Ok('>'),
        "amp" => return Ok('&'),
        "apos" => return Ok('\''),
        "quot" => return Ok('"'),
        _ => match name.strip_prefix("#x") {
            Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                u32::from_str_radix(hex, 16).ok()
            }
            Some(_) => None,
            None => name
                .strip_prefix('#')
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|d| d.parse::<u32>().ok()),
        },
    };
    number
        .filter(|&n| n != 0)
        .and_then(char::from_u32)
        .ok_or_else(|| format!("`&{};` is no reference XML knows", shown(name)))
}

/// Text from a workbook as a message shows it: at most 40 characters, control
/// characters escaped.
pub(super) fn shown(text: &str) -> String {
    let mut out: String = text.chars().take(40).flat_map(char::escape_debug).collect();
    if text.chars().nth(40).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(xml: &str) -> Result<Vec<Token<'_>>, String> {
        let mut tokens = Tokens::new(xml.as_bytes())?;
        let mut all = Vec::new();
        while let Some(token) = tokens.next()? {
            all.push(token);
        }
        Ok(all)
    }

    #[test]
    fn markup_reads_as_tokens_and_comments_pass() {
        use Token::*;
        let xml = "\u{feff}<?xml version=\"1.0\"?><x:c r=\"B2\" note='>' t = \"s\"><!-- <v>x</v> --><!----><v/>1<![CDATA[<2>]]></x:c >";
        assert_eq!(
            all(xml).unwrap(),
            [
                Start {
                    name: "c",
                    attributes: " r=\"B2\" note='>' t = \"s\""
                },
                Start {
                    name: "v",
                    attributes: ""
                },
                End("v"),
                Text("1"),
                CData("<2>"),
                End("c"),
            ]
        );
        // `<!-->` opens a comment and does not end it.
        assert_eq!(
            all("<!--><a>--><b/>").unwrap(),
            [
                Start {
                    name: "b",
                    attributes: ""
                },
                End("b")
            ]
        );
    }

    /// What `read` makes of `xml` past its first token, and the token after.
    fn past_start<'a>(
        xml: &'a str,
        read: impl FnOnce(&mut Tokens<'a>) -> Option<&'a str>,
    ) -> (Option<String>, Option<String>) {
        let mut tokens = Tokens::new(xml.as_bytes()).unwrap();
        tokens.next().unwrap();
        let text = read(&mut tokens).map(str::to_string);
        (text, tokens.next().unwrap().map(|t| format!("{t:?}")))
    }

    fn start(name: &str) -> Option<String> {
        Some(format!(
            "{:?}",
            Token::Start {
                name,
                attributes: ""
            }
        ))
    }

    /// An element of text alone (`simple_text`), and a cell's plain body
    /// (`plain_value_then_end`), read at once; anything else left to be read token by
    /// token, nothing read.
    #[test]
    fn text_alone_is_read_at_once() {
        type Read = fn(&mut Tokens<'static>) -> Option<&'static str>;
        let element: Read = |t| t.simple_text("v");
        let cell: Read = |t| t.plain_value_then_end("c");
        let shown = |t: Token<'_>| Some(format!("{t:?}"));
        let (seven, v_ends) = (shown(Token::Text("7")), shown(Token::End("v")));
        let cases: [(Read, &'static str, Option<&str>, Option<String>); 14] = [
            (element, "<v>7</v><c>", Some("7"), start("c")),
            (element, "<v></x:v ><c>", Some(""), start("c")),
            (element, "<v>1&amp;2</v><c>", Some("1&amp;2"), start("c")),
            (element, "<v>7<!-- 8 --></v>", None, seven.clone()),
            (element, "<v>7</w>", None, seven),
            (element, "<v/><c>", None, v_ends),
            (cell, "<c><v>7</v></c><d>", Some("7"), start("d")),
            (cell, "<c><v></v></c><d>", Some(""), start("d")),
            (
                cell,
                "<c><v>1&amp;2</v></c><d>",
                Some("1&amp;2"),
                start("d"),
            ),
            (cell, "<c><v>7</v></cc>", None, start("v")),
            (cell, "<c><v>7</v><f>A1</f></c>", None, start("v")),
            (cell, "<c><v>7</v></c >", None, start("v")),
            (cell, "<c><v>7<!-- --></v></c>", None, start("v")),
            (cell, "<c/><d>", None, shown(Token::End("c"))),
        ];
        for (read, xml, text, next) in cases {
            assert_eq!(
                past_start(xml, read),
                (text.map(str::to_string), next),
                "{xml}"
            );
        }
    }

    #[test]
    fn what_is_no_xml_is_refused() {
        for xml in [
            "<!DOCTYPE x []><a/>",
            "<a",
            "<a b='>",
            "<!-- x",
            "<![CDATA[x",
            "</a",
            "<!x>",
            "< >",
            "<?x",
        ] {
            assert!(all(xml).is_err(), "{xml}");
        }
        assert!(Tokens::new(b"<a>\xff</a>").is_err());
    }

    #[test]
    fn attributes_read_in_either_quote_and_the_last_counts() {
        let written = " r=\"B2\"\tt = 's' s=\"1\" t=\"n\" x:t=\"q\" v=\"a&amp;b\tc\"";
        let found: Vec<_> = attributes(written).collect();
        assert_eq!(
            found,
            [
                ("r", "B2"),
                ("t", "s"),
                ("s", "1"),
                ("t", "n"),
                ("x:t", "q"),
                ("v", "a&amp;b\tc")
            ]
        );
        assert_eq!(attribute(written, "t").unwrap().as_deref(), Some("n"));
        assert_eq!(attribute(written, "v").unwrap().as_deref(), Some("a&b c"));
        assert_eq!(attribute(written, "w").unwrap(), None);
    }

    #[test]
    fn references_and_line_ends_decode() {
        assert_eq!(
            decoded("1&amp;2&#51;&#x34;&lt;&gt;&apos;&quot;").unwrap(),
            "1&234<>'\""
        );
        assert_eq!(decoded("a\r\nb\rc").unwrap(), "a\nb\nc");
        assert!(matches!(decoded("plain").unwrap(), Cow::Borrowed("plain")));
        for bad in [
            "&nbsp;", "&#0;", "&#xD800;", "&#-1;", "&#x+1;", "&amp", "&;",
        ] {
            assert!(decoded(bad).is_err(), "{bad}");
        }
        assert_eq!(cdata("a\r\nb"), "a\nb");
    }
}
