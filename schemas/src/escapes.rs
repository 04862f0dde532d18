//! Backslash escapes in the cells of an `escapes = true` field: sheets write a line
//! break as `\n` (Luban's `#escape=1`), canonical files hold the text itself.
//!
//! Read: `\n` line break, `\r` carriage return, `\t` tab, `\uXXXX` (or `\u{X…}`) a
//! character by code point, and a backslash before any other ASCII punctuation (`\\`,
//! `\"`, `\|`) that character. A backslash before a letter or digit that is none of
//! these, or at the end, is refused: it is a mistyped escape, not text.

use std::borrow::Cow;

/// Why a cell's escapes do not read.
#[derive(Debug, PartialEq, Eq)]
pub struct BadEscape {
    /// The escape as written (`\q`, `\u12`, a lone `\` at the end).
    pub written: String,
}

/// The text a cell's escapes stand for.
pub fn unescape(text: &str) -> Result<Cow<'_, str>, BadEscape> {
    if !text.contains('\\') {
        return Ok(Cow::Borrowed(text));
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let bad = |written: &str| BadEscape {
            written: written.to_owned(),
        };
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('u') => out.push(code_point(&mut chars)?),
            Some(p) if p.is_ascii_punctuation() => out.push(p),
            Some(other) => return Err(bad(&format!("\\{other}"))),
            None => return Err(bad("\\")),
        }
    }
    Ok(Cow::Owned(out))
}

/// The character of `\uXXXX` or `\u{X…}`, after the `u`.
fn code_point(chars: &mut std::str::Chars<'_>) -> Result<char, BadEscape> {
    let rest = chars.as_str();
    let (digits, used) = match rest.strip_prefix('{') {
        Some(braced) => match braced.find('}') {
            Some(end) if (1..=6).contains(&end) => (&braced[..end], end + 2),
            _ => ("", 0),
        },
        None => match rest.get(..4) {
            Some(four) => (four, 4),
            None => ("", 0),
        },
    };
    let c = (used > 0 && digits.chars().all(|d| d.is_ascii_hexdigit()))
        .then(|| u32::from_str_radix(digits, 16).ok())
        .flatten()
        .and_then(char::from_u32);
    match c {
        Some(c) => {
            *chars = rest[used..].chars();
            Ok(c)
        }
        None => {
            let shown: String = rest.chars().take(4).collect();
            Err(BadEscape {
                written: format!("\\u{shown}"),
            })
        }
    }
}

/// The cell text that reads back as `text`: backslashes doubled, line breaks, carriage
/// returns and tabs written `\n`, `\r`, `\t`.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.contains(['\\', '\n', '\r', '\t']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            other => out.push(other),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_read_as_the_characters_they_stand_for() {
        assert_eq!(unescape("plain").unwrap(), "plain");
        assert_eq!(unescape(r"a\nb\tc\rd").unwrap(), "a\nb\tc\rd");
        assert_eq!(unescape(r#"\\ \" \| \["#).unwrap(), r#"\ " | ["#);
        assert_eq!(unescape(r"\u00e9t\u{1F600}").unwrap(), "ét😀");
    }

    #[test]
    fn a_mistyped_escape_is_refused_as_written() {
        let written = |text: &str| unescape(text).unwrap_err().written;
        assert_eq!(written(r"C:\path"), r"\p");
        assert_eq!(written("ends\\"), "\\");
        assert_eq!(written(r"\u12"), r"\u12");
        assert_eq!(written(r"\uzzzz"), r"\uzzzz");
        assert_eq!(written(r"\u{110000}"), r"\u{110");
        assert_eq!(written(r"\u{}"), r"\u{}");
        assert_eq!(written(r"\7"), r"\7");
    }

    #[test]
    fn escaping_reads_back_as_the_text() {
        for text in [
            "",
            "plain",
            "two\nlines\tand\\slash\r",
            "末尾\\",
            "\\n as written",
        ] {
            assert_eq!(unescape(&escape(text)).unwrap(), text, "{text:?}");
        }
    }
}
