//! Text as a workbook writes it: the shared strings (`<si>`) and inline strings
//! (`<is>`), each of plain or rich text runs (`<t>`, `<r><t>`) with phonetic runs
//! (`<rPh>`) left out, and the text of a value (`<v>`, `<f>`), references decoded.

use std::borrow::Cow;

use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};

use super::{document_type, xml_error, xml_reader};

/// The workbook's shared strings, in order.
pub(super) fn shared_strings(xml: &[u8]) -> Result<Vec<String>, String> {
    const PART: &str = "sharedStrings.xml";
    let mut reader = xml_reader(xml);
    let mut strings = Vec::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) if e.local_name().as_ref() == "si" => {
                strings.push(item(&mut reader, "si").map_err(|e| e.in_part(PART, &reader))?);
            }
            Ok(Event::DocType(_)) => return Err(document_type(PART)),
            Ok(Event::Eof) => return Ok(strings),
            Err(e) => return Err(xml_error(PART, &reader, e)),
            _ => {}
        }
    }
}

/// Why a piece of text could not be read.
pub(super) enum TextError {
    Xml(quick_xml::Error),
    /// The part ended inside the element named.
    Ended(&'static str),
    DocumentType,
}

impl From<quick_xml::Error> for TextError {
    fn from(e: quick_xml::Error) -> Self {
        TextError::Xml(e)
    }
}

impl TextError {
    pub(super) fn in_part(self, part: &str, reader: &Reader<&[u8]>) -> String {
        match self {
            TextError::Xml(e) => xml_error(part, reader, e),
            TextError::Ended(element) => {
                format!("its part `{part}` ends inside a `<{element}>` element")
            }
            TextError::DocumentType => document_type(part),
        }
    }
}

/// The text of a string item (`<si>`, `<is>`) whose start was just read, up to its end
/// (`closing`, a local name): its runs joined, each trimmed of ASCII white space unless
/// it preserves it, `_xHHHH_` escapes decoded.
pub(super) fn item(reader: &mut Reader<&[u8]>, closing: &'static str) -> Result<String, TextError> {
    let mut text = String::new();
    let mut phonetic = false;
    let mut run = String::new();
    loop {
        match reader.read_event()? {
            Event::Start(e) => match e.local_name().as_ref() {
                "rPh" => phonetic = true,
                "t" if !phonetic => {
                    let preserve =
                        super::package::attribute(&e, "xml:space").as_deref() == Some("preserve");
                    run.clear();
                    content(reader, "t", &mut run)?;
                    let run = if preserve {
                        &run[..]
                    } else {
                        run.trim_matches([' ', '\t', '\r', '\n'])
                    };
                    text.push_str(&unescape_excel(run));
                }
                _ => {}
            },
            Event::End(e) => match e.local_name().as_ref() {
                "rPh" => phonetic = false,
                name if name == closing => return Ok(text),
                _ => {}
            },
            Event::DocType(_) => return Err(TextError::DocumentType),
            Event::Eof => return Err(TextError::Ended(closing)),
            _ => {}
        }
    }
}

/// The text inside the element whose start was just read, up to its end (`closing`,
/// a local name), appended to `out`: text and CDATA with line ends as XML reads them,
/// references decoded; comments, processing instructions and elements inside left out.
pub(super) fn content(
    reader: &mut Reader<&[u8]>,
    closing: &'static str,
    out: &mut String,
) -> Result<(), TextError> {
    let mut depth = 0;
    while !step(reader.read_event()?, closing, out, &mut depth)? {}
    Ok(())
}

/// The text inside the element whose start was just read, as [`content`] reads it,
/// borrowed from the part when it is one piece of text (as a value is).
pub(super) fn simple_content<'a>(
    reader: &mut Reader<&'a [u8]>,
    closing: &'static str,
) -> Result<Cow<'a, str>, TextError> {
    let (mut text, mut depth) = (String::new(), 0);
    match reader.read_event()? {
        Event::Text(t) => {
            let first = t.xml_content(XmlVersion::Implicit1_0);
            let next = reader.read_event()?;
            if matches!(&next, Event::End(e) if e.local_name().as_ref() == closing) {
                return Ok(first);
            }
            text.push_str(&first);
            if step(next, closing, &mut text, &mut depth)? {
                return Ok(Cow::Owned(text));
            }
        }
        event => {
            if step(event, closing, &mut text, &mut depth)? {
                return Ok(Cow::Owned(text));
            }
        }
    }
    while !step(reader.read_event()?, closing, &mut text, &mut depth)? {}
    Ok(Cow::Owned(text))
}

/// One event inside an element whose text is read into `out`, `depth` elements down;
/// whether it ends the element (`closing`).
fn step(
    event: Event<'_>,
    closing: &'static str,
    out: &mut String,
    depth: &mut usize,
) -> Result<bool, TextError> {
    match event {
        Event::Text(t) => out.push_str(&t.xml_content(XmlVersion::Implicit1_0)),
        Event::CData(t) => out.push_str(&t.xml_content(XmlVersion::Implicit1_0)),
        Event::GeneralRef(r) => {
            if let Some(c) = r.resolve_char_ref()? {
                out.push(c);
            } else if let Some(entity) = quick_xml::escape::resolve_xml_entity(&r) {
                out.push_str(entity);
            } else {
                return Err(TextError::Xml(quick_xml::Error::Escape(
                    quick_xml::escape::EscapeError::UnrecognizedEntity(0..0, r.to_string()),
                )));
            }
        }
        Event::Start(_) => *depth += 1,
        Event::End(e) => {
            if *depth == 0 {
                return Ok(e.local_name().as_ref() == closing);
            }
            *depth -= 1;
        }
        Event::DocType(_) => return Err(TextError::DocumentType),
        Event::Eof => return Err(TextError::Ended(closing)),
        _ => {}
    }
    Ok(false)
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
        let strings = shared_strings(xml).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(strings, ["a", "x y ", "", "1&23<4>"]);
    }
}
