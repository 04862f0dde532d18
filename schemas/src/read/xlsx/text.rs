//! Text as a workbook writes it: the shared strings (`<si>`) and inline strings
//! (`<is>`), each of plain or rich text runs (`<t>`, `<r><t>`) with phonetic runs
//! (`<rPh>`) left out, and the text of a value (`<v>`, `<f>`), references decoded.

use std::borrow::Cow;

use super::tokens::{Token, Tokens, attribute, cdata, decoded};

/// The workbook's shared strings, in order, held end to end in one buffer: an item
/// costs its text and an offset, not an allocation of its own (a workbook may have
/// millions).
#[derive(Debug, Default)]
pub(super) struct SharedStrings {
    text: String,
    ends: Vec<usize>,
}

impl SharedStrings {
    /// The string at `index`, if there is one.
    pub(super) fn get(&self, index: usize) -> Option<&str> {
        let end = *self.ends.get(index)?;
        let start = index.checked_sub(1).map_or(0, |i| self.ends[i]);
        Some(&self.text[start..end])
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }
}

/// The workbook's shared strings.
pub(super) fn shared_strings(tokens: &mut Tokens<'_>) -> Result<SharedStrings, String> {
    let mut strings = SharedStrings::default();
    while let Some(token) = tokens.next()? {
        if let Token::Start { name: "si", .. } = token {
            item_into(tokens, "si", &mut strings.text)?;
            strings.ends.push(strings.text.len());
        }
    }
    Ok(strings)
}

/// The text of a string item (`<si>`, `<is>`) whose start was just read, up to its end
/// (`closing`, a local name): its runs joined, each trimmed of ASCII white space unless
/// it preserves it, `_xHHHH_` escapes decoded.
pub(super) fn item(tokens: &mut Tokens<'_>, closing: &str) -> Result<String, String> {
    let mut text = String::new();
    item_into(tokens, closing, &mut text)?;
    Ok(text)
}

/// [`item`], appended to `text`.
fn item_into(tokens: &mut Tokens<'_>, closing: &str, text: &mut String) -> Result<(), String> {
    let mut phonetic = false;
    loop {
        match tokens.next()?.ok_or_else(|| ended(closing))? {
            Token::Start { name: "rPh", .. } => phonetic = true,
            Token::Start {
                name: "t",
                attributes,
            } if !phonetic => {
                let preserve = attribute(attributes, "xml:space")?.as_deref() == Some("preserve");
                let run = content(tokens, "t")?;
                let run = if preserve {
                    &run[..]
                } else {
                    run.trim_matches([' ', '\t', '\r', '\n'])
                };
                text.push_str(&unescape_excel(run));
            }
            Token::End("rPh") => phonetic = false,
            Token::End(name) if name == closing => return Ok(()),
            _ => {}
        }
    }
}

/// The text inside the element whose start was just read, up to its end (`closing`,
/// a local name): text and CDATA with line ends as XML reads them, references decoded;
/// comments, processing instructions and the tags of elements inside left out.
/// Borrowed from the part when it is one piece of text without references (as a
/// value is).
pub(super) fn content<'a>(tokens: &mut Tokens<'a>, closing: &str) -> Result<Cow<'a, str>, String> {
    if let Some(text) = tokens.simple_text(closing) {
        return decoded(text);
    }
    let first = tokens.next()?.ok_or_else(|| ended(closing))?;
    let mut text = String::new();
    rest(tokens, closing, first, &mut text)?;
    Ok(Cow::Owned(text))
}

/// The rest of an element's text from `token` on, into `text`, up to its end.
fn rest<'a>(
    tokens: &mut Tokens<'a>,
    closing: &str,
    mut token: Token<'a>,
    text: &mut String,
) -> Result<(), String> {
    let mut depth = 0usize;
    loop {
        match token {
            Token::Text(t) => text.push_str(&decoded(t)?),
            Token::CData(t) => text.push_str(&cdata(t)),
            Token::Start { .. } => depth += 1,
            Token::End(name) => {
                if depth == 0 {
                    if name == closing {
                        return Ok(());
                    }
                } else {
                    depth -= 1;
                }
            }
        }
        token = tokens.next()?.ok_or_else(|| ended(closing))?;
    }
}

/// The part ended inside an element.
fn ended(element: &str) -> String {
    format!("it ends inside a `<{element}>` element")
}

/// Text with Excel's escapes decoded: `_xHHHH_` is the UTF-16 unit HHHH (a pair of
/// them a character beyond the BMP; one left alone U+FFFD), so `_x000D_` is a carriage
/// return and `_x005F_` an underscore.
pub(super) fn unescape_excel(text: &str) -> Cow<'_, str> {
    let Some(first) = next_escape(text, 0) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut at) = (0, Some(first));
    while let Some((index, unit)) = at {
        out.push_str(&text[copied..index]);
        let mut next = index + ESCAPE;
        let c = match unit {
            0xD800..=0xDBFF => match escape_at(text, next) {
                Some(low @ 0xDC00..=0xDFFF) => {
                    next += ESCAPE;
                    let code =
                        0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    char::from_u32(code)
                }
                _ => None,
            },
            unit => char::from_u32(u32::from(unit)),
        };
        out.push(c.unwrap_or(char::REPLACEMENT_CHARACTER));
        copied = next;
        at = next_escape(text, next);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// The length of `_xHHHH_`.
const ESCAPE: usize = 7;

fn next_escape(text: &str, from: usize) -> Option<(usize, u16)> {
    let mut start = from;
    while let Some(offset) = memchr::memchr(b'_', &text.as_bytes()[start..]) {
        let index = start + offset;
        if let Some(unit) = escape_at(text, index) {
            return Some((index, unit));
        }
        start = index + 1;
    }
    None
}

fn escape_at(text: &str, index: usize) -> Option<u16> {
    let bytes = text.as_bytes().get(index..index + ESCAPE)?;
    let hex = &bytes[2..6];
    if bytes[0] != b'_'
        || bytes[1] != b'x'
        || bytes[6] != b'_'
        || !hex.iter().all(u8::is_ascii_hexdigit)
    {
        return None;
    }
    hex.iter().try_fold(0u16, |n, &d| {
        Some(n * 16 + (d as char).to_digit(16)? as u16)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excel_escapes_are_decoded_and_the_rest_left_alone() {
        let cases = [
            ("a_x000D_b", "a\rb"),
            ("_x005F_x000D_", "_x000D_"),
            ("_xD83D__xDCF7_", "📷"),
            ("_xD83D_x", "\u{FFFD}x"),
            ("_x00_ plain _x0041", "_x00_ plain _x0041"),
        ];
        for (written, read) in cases {
            assert_eq!(unescape_excel(written), read, "{written}");
        }
        assert!(matches!(unescape_excel("nothing"), Cow::Borrowed(_)));
    }

    #[test]
    fn string_items_join_their_runs_without_phonetic_ones() {
        let xml = br#"<sst><si><t> a </t></si><si><r><t>x</t></r><r><t xml:space="preserve"> y </t></r><rPh><t>ignored</t></rPh></si><si/><si><t>1&amp;2&#51;<![CDATA[<4>]]></t></si></sst>"#;
        let mut tokens = Tokens::new(xml).unwrap();
        let strings = shared_strings(&mut tokens).unwrap_or_else(|e| panic!("{e}"));
        let read: Vec<&str> = (0..strings.len()).filter_map(|i| strings.get(i)).collect();
        assert_eq!(read, ["a", "x y ", "", "1&23<4>"]);
        assert_eq!(strings.get(4), None);
    }
}
