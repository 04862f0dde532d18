//! Cells calamine reads otherwise than they are written, without a word. A cell whose
//! value calamine takes from the raw text of `<v>` (types `n`, `s`, `b`, `e`, or none)
//! is read up to the first reference, comment or CDATA in it (`<v>&#49;</v>` reads as
//! empty, `<v>3&amp;x</v>` as 3), and one of type `s` whose value is not an index
//! (`<v>x</v>`, `<v> 7 </v>`, `<v>+7</v>`) as the workbook's first shared string. Such
//! a cell is found here first, in the XML of each of the workbook's parts (a sheet may
//! be kept anywhere its relationships say) as it is unpacked, a piece at a time (a part
//! is never held whole).
//!
//! The XML is followed as calamine's reader (quick-xml) reads it, not by looking for the
//! spelling applications write: markup is told apart the way quick-xml tells it
//! (quotes in tags, comments, CDATA, processing instructions), elements by their local
//! name whatever their prefix, a cell's type by calamine's reading of its attributes
//! (either quote, space around `=`), and a value by the text quick-xml gives first
//! (up to `<` or `&`). A sheet declaring a document type (which packages may not hold)
//! is refused: its declaration is where a reader like this one and quick-xml could part.

use std::io::Read;

use crate::diagnostic::a1;

/// The first cell of a part's XML that calamine would misread, read from `part`
/// (`buffer`: room for its pieces, reused from part to part), as the message naming it;
/// `None` when there is none (or the part is no XML calamine could read).
pub(super) fn scan(part: &mut impl Read, buffer: &mut Vec<u8>) -> Option<String> {
    const PIECE: u64 = 1 << 20;
    let mut scan = Scan::default();
    buffer.clear();
    loop {
        // A piece more, or as much again as is held when one token outgrew the pieces
        // read so far (each byte is then looked at a bounded number of times); only
        // what is read is initialised.
        let wanted = PIECE.max(buffer.len() as u64);
        let read = (&mut *part).take(wanted).read_to_end(buffer).unwrap_or(0);
        match scan.feed(buffer) {
            Err(problem) => return Some(problem),
            // Markup quick-xml refuses: calamine reports the part when it reads there,
            // before any cell that follows.
            Ok(Fed::Stop) => return None,
            Ok(Fed::Upto(done)) => {
                if (read as u64) < wanted {
                    return None;
                }
                buffer.drain(..done);
            }
        }
    }
}

/// How far a piece was read.
enum Fed {
    /// Every token before this offset (the rest is one unfinished, read with more).
    Upto(usize),
    /// Nothing further to follow.
    Stop,
}

/// Where calamine's reader stands, as far as naming a cell goes.
#[derive(Default)]
struct Scan {
    /// The running position of cells written without `r` (0-based row, column).
    row: u32,
    column: u32,
    /// Inside a cell whose value calamine reads from its raw text.
    cell: Option<RawCell>,
}

/// A cell whose value calamine reads from the raw text of its `<v>` (types `n`, `s`,
/// `b`, `e`, or none): where it is (0-based row, column), and whether that text is a
/// shared-string index.
struct RawCell {
    at: (u32, u32),
    shared: bool,
}

/// A cell's place (0-based row, column) as applications name it (`B12`).
pub(super) fn cell_name(row: u64, column: u64) -> String {
    match (u32::try_from(row), u32::try_from(column)) {
        (Ok(row), Ok(column)) => a1(row, column),
        _ => format!("at row {}, column {}", row + 1, column + 1),
    }
}

impl Scan {
    /// Follow the tokens of `xml` that end within it.
    fn feed(&mut self, xml: &[u8]) -> Result<Fed, String> {
        let mut at = 0;
        while let Some(start) = next_markup(xml, at) {
            match self.token(xml, start)? {
                Token::Next(next) => at = next,
                Token::Unfinished => return Ok(Fed::Upto(start)),
                Token::Malformed => return Ok(Fed::Stop),
                Token::DocumentType => {
                    return Err("it declares a document type (`<!DOCTYPE`), which a workbook's parts may not hold".into());
                }
            }
        }
        Ok(Fed::Upto(xml.len()))
    }

    /// The markup at `start` (a `<`), followed.
    fn token(&mut self, xml: &[u8], start: usize) -> Result<Token, String> {
        let rest = &xml[start..];
        let Some(&kind) = rest.get(1) else {
            return Ok(Token::Unfinished);
        };
        match kind {
            b'!' => return Ok(bang(rest, start)),
            b'?' => {
                // Up to the first `?>` after the `<`.
                return Ok(match memchr::memmem::find(&rest[1..], b"?>") {
                    Some(at) => Token::Next(start + 1 + at + 2),
                    None => Token::Unfinished,
                });
            }
            _ => {}
        }
        let Some(tag) = Tag::at(rest) else {
            return Ok(Token::Unfinished);
        };
        let next = start + tag.end + 1;
        if tag.closing {
            self.end(local(tag.name));
            return Ok(Token::Next(next));
        }
        let (name, attributes, empty) = (tag.name, tag.attributes, tag.empty);
        match local(name) {
            b"row" => {
                if let Some(r) = row_number(attributes) {
                    self.row = r;
                }
            }
            b"c" => self.cell = self.cell_start(attributes),
            b"v" if !empty && let Some(cell) = &self.cell => {
                // The text quick-xml gives first: up to markup or a reference.
                let text = &xml[next..];
                let Some(stop) = text_end(text) else {
                    return Ok(Token::Unfinished);
                };
                let value = &text[..stop];
                // Then the value's end, or what calamine's reader leaves out: a
                // reference, a comment, CDATA (the value reads as empty, or as the text
                // before it).
                let end = match text[stop] {
                    b'<' => match Tag::at(&text[stop..]) {
                        Some(end) => Some(end),
                        None => return Ok(Token::Unfinished),
                    },
                    _ => None,
                };
                let at = || a1(cell.at.0, cell.at.1);
                let Some(end) = end.filter(|end| end.closing && end.name == name) else {
                    let written = &text[..text.len().min(stop + 40)];
                    return Err(format!(
                        "cell {} holds `{}`, which the reader would take in part or as empty",
                        at(),
                        shown(written)
                    ));
                };
                if cell.shared && !value.is_empty() && !is_index(value) {
                    return Err(format!(
                        "cell {} refers to shared string `{}`, which is not an index",
                        at(),
                        shown(value)
                    ));
                }
                // Past the value's end tag, read here already (it changes nothing).
                return Ok(Token::Next(next + stop + end.end + 1));
            }
            _ => {}
        }
        if empty {
            self.end(local(name));
        }
        Ok(Token::Next(next))
    }

    /// A cell begins: where it is (its `r`, or the running position) when calamine
    /// reads its value from raw text, the running position moved as calamine moves it.
    fn cell_start(&mut self, attributes: &[u8]) -> Option<RawCell> {
        let CellAttributes { r, t } = cell_attributes(attributes)?;
        let at = match r.and_then(cell_position) {
            Some((row, column)) => (row, column),
            None => (self.row, self.column),
        };
        self.column = at.1;
        let raw = matches!(t, None | Some(b"n" | b"s" | b"b" | b"e"));
        raw.then_some(RawCell {
            at,
            shared: t == Some(&b"s"[..]),
        })
    }

    /// An element ends.
    fn end(&mut self, local: &[u8]) {
        match local {
            b"row" => {
                self.row = self.row.saturating_add(1);
                self.column = 0;
            }
            b"c" => {
                self.cell = None;
                self.column = self.column.saturating_add(1);
            }
            _ => {}
        }
    }
}

/// Up to 40 characters of what a cell holds, for a message.
fn shown(written: &[u8]) -> String {
    String::from_utf8_lossy(written).chars().take(40).collect()
}

/// Where the next markup from `at` begins.
fn next_markup(xml: &[u8], at: usize) -> Option<usize> {
    let found = first_near(
        xml.get(at..)?,
        |b| b == b'<',
        |far| memchr::memchr(b'<', far),
    )?;
    Some(at + found)
}

/// Where a text ends (markup or a reference).
fn text_end(text: &[u8]) -> Option<usize> {
    first_near(
        text,
        |b| b == b'<' || b == b'&',
        |far| memchr::memchr2(b'<', b'&', far),
    )
}

/// The first byte of `bytes` that `is` takes: mostly a few bytes on (a value between
/// two tags), so looked for byte by byte over the first 16, then by `search`.
fn first_near(
    bytes: &[u8],
    is: impl Fn(u8) -> bool,
    search: impl Fn(&[u8]) -> Option<usize>,
) -> Option<usize> {
    match bytes.iter().take(16).position(|&b| is(b)) {
        Some(found) => Some(found),
        None => Some(16 + search(bytes.get(16..)?)?),
    }
}

/// A tag as quick-xml reads it (`<…>`, quotes respected): its name (up to XML
/// whitespace; an end tag's whole content less trailing whitespace), its attributes,
/// whether it closes an element or is one (`<x/>`, read as `<x></x>`), and the offset
/// of its `>`.
struct Tag<'x> {
    name: &'x [u8],
    attributes: &'x [u8],
    closing: bool,
    empty: bool,
    end: usize,
}

impl<'x> Tag<'x> {
    /// The tag `rest` begins with, unless it does not end within `rest`.
    fn at(rest: &'x [u8]) -> Option<Tag<'x>> {
        let closing = rest.get(1) == Some(&b'/');
        let from = if closing { 2 } else { 1 };
        // Most tags: a name, then `>` or a space before attributes.
        let length = rest[from..]
            .iter()
            .position(|&b| is_whitespace(b) || matches!(b, b'>' | b'"' | b'\''))?;
        let stop = from + length;
        // No quote before `stop`: the tag's end is looked for from there.
        let end = if rest[stop] == b'>' {
            stop
        } else {
            stop + tag_end(&rest[stop..])?
        };
        let content = &rest[from..end];
        if closing {
            return Some(Tag {
                name: trim_end(content),
                attributes: &[],
                closing,
                empty: false,
                end,
            });
        }
        let (content, empty) = match content.strip_suffix(b"/") {
            Some(content) => (content, true),
            None => (content, false),
        };
        let length = content
            .iter()
            .position(|&b| is_whitespace(b))
            .unwrap_or(content.len());
        let (name, attributes) = content.split_at(length);
        Some(Tag {
            name,
            attributes,
            closing,
            empty,
            end,
        })
    }
}

/// What the markup at a `<` turned out to be.
enum Token {
    /// Followed: the next token begins at or after this offset.
    Next(usize),
    /// It does not end within what was read yet.
    Unfinished,
    /// Not markup quick-xml reads.
    Malformed,
    /// `<!DOCTYPE`: quick-xml reads past it, a reader like this one could part from it.
    DocumentType,
}

/// `<!…` as quick-xml reads it: a comment (`<!-` … the first `--` `>` six or more bytes
/// in), CDATA (`<![` … the first `]]>`), a document type (`<!DOCTYPE`, any case),
/// anything else malformed.
fn bang(rest: &[u8], start: usize) -> Token {
    match rest.get(2) {
        None => Token::Unfinished,
        Some(b'-') => memchr::memchr_iter(b'>', rest)
            .find(|&i| i > 5 && rest[..i].ends_with(b"--"))
            .map_or(Token::Unfinished, |i| Token::Next(start + i + 1)),
        Some(b'[') => memchr::memmem::find(rest, b"]]>")
            .map_or(Token::Unfinished, |i| Token::Next(start + i + 3)),
        Some(b'D' | b'd') => match rest.get(..9) {
            None => Token::Unfinished,
            Some(opening) if opening.eq_ignore_ascii_case(b"<!DOCTYPE") => Token::DocumentType,
            Some(_) => Token::Malformed,
        },
        Some(_) => Token::Malformed,
    }
}

/// The offset of the `>` that ends the tag `rest` begins (quotes respected, as
/// quick-xml does). Byte by byte: most tags end within a few.
fn tag_end(rest: &[u8]) -> Option<usize> {
    let mut quote = 0;
    for (i, &b) in rest.iter().enumerate() {
        if quote == 0 {
            match b {
                b'>' => return Some(i),
                b'"' | b'\'' => quote = b,
                _ => {}
            }
        } else if b == quote {
            quote = 0;
        }
    }
    None
}

/// XML's whitespace, as quick-xml ends a name at it.
fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\r' | b'\n' | b'\t')
}

fn trim_end(name: &[u8]) -> &[u8] {
    let kept = name
        .iter()
        .rposition(|&b| !is_whitespace(b))
        .map_or(0, |i| i + 1);
    &name[..kept]
}

/// A name without its prefix (after the first `:`).
fn local(name: &[u8]) -> &[u8] {
    match name.iter().position(|&b| b == b':') {
        Some(colon) => &name[colon + 1..],
        None => name,
    }
}

/// A tag's attributes as calamine reads them: key (up to `=`, trailing space trimmed)
/// and value between either quote. `None` at a malformed one.
fn attributes(raw: &[u8]) -> impl Iterator<Item = Option<(&[u8], &[u8])>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        while raw.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        if at >= raw.len() {
            return None;
        }
        let Some(equals) = memchr::memchr(b'=', &raw[at..]) else {
            at = raw.len();
            return Some(None);
        };
        let key = raw[at..at + equals].trim_ascii_end();
        at += equals + 1;
        while raw.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        let quote = match raw.get(at) {
            Some(&q @ (b'"' | b'\'')) => q,
            _ => {
                at = raw.len();
                return Some(None);
            }
        };
        at += 1;
        let length = memchr::memchr(quote, &raw[at..]).unwrap_or(raw.len() - at);
        let value = &raw[at..at + length];
        at = (at + length + 1).min(raw.len());
        Some(Some((key, value)))
    })
}

/// A cell's `r` and `t` as calamine takes them: the attributes are read until `r`, `s`
/// and `t` were seen three times in all (a repeated key counts, the last one read
/// holds). `None` when an attribute it reads is malformed (calamine reports it).
fn cell_attributes(raw: &[u8]) -> Option<CellAttributes<'_>> {
    // Most cells: ` r="B2"`, then perhaps ` t="s"`, as applications write them.
    if let Some(rest) = raw.strip_prefix(b" r=\"")
        && let Some(end) = rest.iter().position(|&b| b == b'"')
    {
        let (r, after) = (&rest[..end], &rest[end + 1..]);
        if after.is_empty() {
            return Some(CellAttributes {
                r: Some(r),
                t: None,
            });
        }
        if let Some(t) = after
            .strip_prefix(b" t=\"")
            .and_then(|t| t.strip_suffix(b"\""))
            .filter(|t| !t.contains(&b'"'))
        {
            return Some(CellAttributes {
                r: Some(r),
                t: Some(t),
            });
        }
    }
    let (mut r, mut t, mut seen) = (None, None, 0);
    for attribute in attributes(raw) {
        let (key, value) = attribute?;
        match key {
            b"r" => r = Some(value),
            b"t" => t = Some(value),
            b"s" => {}
            _ => continue,
        }
        seen += 1;
        if seen == 3 {
            break;
        }
    }
    Some(CellAttributes { r, t })
}

/// The attributes of a cell that say where it is and what type it holds.
struct CellAttributes<'x> {
    r: Option<&'x [u8]>,
    t: Option<&'x [u8]>,
}

/// A row's `r` (its first, as calamine's reader takes it), 0-based.
fn row_number(raw: &[u8]) -> Option<u32> {
    let (_, value) = attributes(raw)
        .map_while(|a| a)
        .find(|(key, _)| *key == b"r")?;
    number(value)?.checked_sub(1)
}

/// A cell reference (`B12`) as a 0-based (row, column).
fn cell_position(r: &[u8]) -> Option<(u32, u32)> {
    let letters = r.iter().take_while(|b| b.is_ascii_uppercase()).count();
    let column = r[..letters].iter().try_fold(0u32, |n, &b| {
        n.checked_mul(26)?.checked_add(u32::from(b - b'A') + 1)
    })?;
    let row = number(&r[letters..])?;
    Some((row.checked_sub(1)?, column.checked_sub(1)?))
}

/// ASCII digits as a number, when they are one that fits.
fn number(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u32, |n, &b| {
        let digit = b.checked_sub(b'0').filter(|d| *d < 10)?;
        n.checked_mul(10)?.checked_add(u32::from(digit))
    })
}

/// Whether calamine reads `value` as an index: ASCII digits only (leading zeros
/// allowed) whose number fits a `usize`.
fn is_index(value: &[u8]) -> bool {
    if !value.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let digits = &value[value.iter().take_while(|&&b| b == b'0').count()..];
    // Any number of up to nine digits fits; longer ones are compared with the largest
    // (digit strings of one length compare as their numbers do).
    digits.len() <= 9 || {
        let most = usize::MAX.to_string();
        digits.len() < most.len() || (digits.len() == most.len() && digits <= most.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(xml: &str) -> Option<String> {
        scan(&mut xml.as_bytes(), &mut Vec::new())
    }

    /// A cell written without `r` is named by where calamine places it.
    #[test]
    fn a_cell_without_its_reference_is_named_by_its_place() {
        let xml = r#"<sheetData><row r="7"><c><v>1</v></c><c r="C7"/><c t="s"><v>x</v></c></row>
            <row><c t="s"><v>1</v></c><c t="s"><v>y</v></c></row></sheetData>"#;
        assert!(found(xml).is_some_and(|p| p.contains("cell D7 ")));
        let xml = xml.replace("<v>x</v>", "<v>2</v>");
        assert!(found(&xml).is_some_and(|p| p.contains("cell B8 ")));
    }

    /// A document type is where two readers could part: the sheet is refused. Markup
    /// quick-xml refuses ends the scan (calamine then reports the part).
    #[test]
    fn a_document_type_is_refused_and_malformed_markup_left_to_calamine() {
        let xml = r#"<!DOCTYPE x [<!ENTITY y "'">]><c r="B2" t="s"><v>1</v></c>"#;
        assert!(found(xml).is_some_and(|p| p.contains("document type")));
        let xml = r#"<!x><c r="B2" t="s"><v>x</v></c>"#;
        assert!(matches!(
            Scan::default().feed(xml.as_bytes()),
            Ok(Fed::Stop)
        ));
    }

    /// Reads at most 7,000 bytes at a time, as an unpacking reader may.
    struct Trickle<'a>(&'a [u8]);

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, into: &mut [u8]) -> std::io::Result<usize> {
            let n = into.len().min(self.0.len()).min(7_000);
            into[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// A sheet of several pieces, read a little at a time: the cell that is no index is
    /// found wherever it lies, cut by a piece's edge anywhere in it included (and after
    /// a formula, a comment or an attribute longer than a piece), and a sheet without
    /// one passes.
    #[test]
    fn a_sheet_is_scanned_whole_across_its_pieces() {
        let good = |row: usize| format!(r#"<c r="A{row}" t="s"><v>{row}</v></c>"#);
        let cells: Vec<String> = (1..=90_000).map(good).collect();
        let sheet = cells.concat();
        assert!(sheet.len() > 2 << 20);
        let mut buffer = Vec::new();
        assert_eq!(scan(&mut Trickle(sheet.as_bytes()), &mut buffer), None);
        let bad = r#"<c r="Z9" t="s"><v>x</v></c>"#;
        for first in [0, 1, 10, 16, 19, 20, 21, 23, bad.len() - 1] {
            // A comment long enough for the piece's edge to fall `first` bytes into
            // the cell.
            let pad = format!("<!--{}-->", "p".repeat((1 << 20) - first - 7));
            let whole = format!("{pad}{bad}{sheet}");
            let found = scan(&mut Trickle(whole.as_bytes()), &mut buffer);
            assert!(found.is_some_and(|p| p.contains("cell Z9 ")), "{first}");
            // A good cell cut about its value's end passes.
            if (19..24).contains(&first) {
                let whole = whole.replacen("<v>x</v>", "<v>7</v>", 1);
                assert_eq!(scan(&mut Trickle(whole.as_bytes()), &mut buffer), None);
            }
        }
        let last = format!("{sheet}{bad}");
        assert!(scan(&mut Trickle(last.as_bytes()), &mut buffer).is_some());
        let long = "y".repeat(3 << 20);
        for before in [
            format!(r#"<c r="Z9" t="s"><f>{long}</f><v>x</v></c>"#),
            format!(r#"<!--{long}--><c r="Z9" t="s"><v>x</v></c>"#),
            format!(r#"<c r="Z9" t="s" note="{long}"><v>x</v></c>"#),
        ] {
            let found = scan(&mut Trickle(before.as_bytes()), &mut buffer);
            assert!(found.is_some_and(|p| p.contains("cell Z9 ")));
        }
    }

    #[test]
    fn cell_references_are_read_as_calamine_places_them() {
        assert_eq!(cell_position(b"A1"), Some((0, 0)));
        assert_eq!(cell_position(b"AB12"), Some((11, 27)));
        assert_eq!(cell_position(b"a1"), None);
        assert_eq!(cell_name(11, 27), "AB12");
        assert_eq!(cell_name(0, 701), "ZZ1");
        assert_eq!(cell_name(0, 702), "AAA1");
    }
}
