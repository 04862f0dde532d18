//! Plain CSV — valid UTF-8 without a single quote character, lines ending in LF or
//! CRLF — where records are lines and cells are split at commas. Most master data
//! exports are; they are read without a CSV state machine and without copying a byte,
//! and a large one is typed on every core: its text cut at line ends into pieces, each
//! piece typed straight into its place in the table's columns
//! ([`TableBuilder::push_pieces`]). Keys, uniqueness and references are checked on the
//! whole table, as for any other.

use masterctl_runtime::parallel::{parallel_map, workers};

use super::{BOM, CsvGrid};
use crate::typing::TableBuilder;

/// Records typed per piece: the piece's buffers are reused, so a large file costs the
/// memory of its table, not of a second copy of its text.
pub(super) const CHUNK_RECORDS: usize = 4096;

/// A file is cut into pieces of at least this many bytes (a smaller one is one piece):
/// below it, handing work to another core costs more than it saves.
const PIECE_BYTES: usize = 1 << 20;

/// Pieces per core, so that a core that finishes early takes another.
const PIECES_PER_CORE: usize = 4;

/// The file as text when it is plain CSV; anything else goes through the csv crate.
pub fn plain_text(bytes: &[u8]) -> Option<&str> {
    plain_piece(bytes.strip_prefix(BOM).unwrap_or(bytes))
}

/// The text of (a piece of) a file without its byte order mark when nothing in it needs
/// a CSV state machine — no quote, no CR but before an LF — and it is UTF-8.
fn plain_piece(bytes: &[u8]) -> Option<&str> {
    if memchr::memchr(b'"', bytes).is_some() {
        return None;
    }
    let lone_cr = memchr::memchr_iter(b'\r', bytes).any(|i| bytes.get(i + 1) != Some(&b'\n'));
    if lone_cr {
        return None;
    }
    // Master data is mostly CJK text, three bytes a character: checked with SIMD.
    simdutf8::basic::from_utf8(bytes).ok()
}

/// A plain file's text cut at line ends, each piece with the line it starts on and how
/// many line ends it holds.
pub(super) struct Piece<'a> {
    text: &'a str,
    line: u64,
    pub(super) line_ends: u64,
}

/// The file in pieces when it is plain CSV (see [`plain_text`]), each piece checked
/// and its lines counted on a core of its own; `None` when it is not plain.
pub(super) fn pieces(bytes: &[u8]) -> Option<Vec<Piece<'_>>> {
    pieces_at(bytes.strip_prefix(BOM).unwrap_or(bytes), 1)
}

/// [`pieces`] of text that starts on line `line` of its file (a segment of a file read
/// a segment at a time; no byte order mark).
pub(super) fn pieces_at(bytes: &[u8], line: u64) -> Option<Vec<Piece<'_>>> {
    let wanted = (bytes.len() / PIECE_BYTES).clamp(1, workers() * PIECES_PER_CORE);
    let size = bytes.len().div_ceil(wanted).max(1);
    let mut cut = Vec::with_capacity(wanted);
    let mut start = 0;
    while start < bytes.len() {
        // A piece ends after an LF, which is never inside a UTF-8 character (nor, in
        // plain CSV, inside a cell).
        let end = match memchr::memchr(b'\n', &bytes[(start + size).min(bytes.len())..]) {
            Some(at) => start + size + at + 1,
            None => bytes.len(),
        };
        cut.push(&bytes[start..end]);
        start = end;
    }
    let checked = parallel_map(&cut, |bytes| {
        let text = plain_piece(bytes)?;
        Some((text, memchr::memchr_iter(b'\n', bytes).count() as u64))
    });
    let mut line = line;
    checked
        .into_iter()
        .map(|piece| {
            let (text, lines) = piece?;
            line += lines;
            Some(Piece {
                text,
                line: line - lines,
                line_ends: lines,
            })
        })
        .collect()
}

/// Type a plain file's records, piece after piece: on this thread until the header is
/// read and every row after it is a record of its own ([`TableBuilder::settled`]), the
/// rest on every core.
pub(super) fn type_pieces(builder: &mut TableBuilder<'_>, pieces: &[Piece<'_>]) {
    let mut chunk = CsvGrid::default();
    let mut rest: Vec<PlainLines<'_>> = Vec::with_capacity(pieces.len());
    let mut pieces = pieces.iter();
    for piece in pieces.by_ref() {
        let mut lines = PlainLines::at(piece.text, piece.line);
        // A few records at a time until the header is read, to find where the rows
        // settle; then as many as usual (a table with multi-row fields never does).
        loop {
            let max = match builder.header_read() {
                true => CHUNK_RECORDS,
                false => HEADER_RECORDS,
            };
            if builder.settled() || !lines.fill(&mut chunk, max) {
                break;
            }
            builder.push_rows(&chunk);
        }
        if builder.settled() {
            rest.push(lines);
            break;
        }
    }
    rest.extend(pieces.map(PlainLines::of_piece));
    if rest.len() <= 1 {
        for lines in rest {
            push_all(lines, &mut chunk, builder);
        }
        return;
    }
    builder.push_pieces(&rest, PlainLines::remaining, |lines, piece| {
        push_all(lines.clone(), &mut CsvGrid::default(), piece);
    });
}

/// Every record left in `lines`, given to `builder` a piece at a time through `chunk`.
fn push_all<'a>(
    mut lines: PlainLines<'a>,
    chunk: &mut CsvGrid<'a>,
    builder: &mut TableBuilder<'_>,
) {
    while lines.fill(chunk, CHUNK_RECORDS) {
        builder.push_rows(chunk);
    }
}

/// Records read at a time until the header is read: it is usually the first.
const HEADER_RECORDS: usize = 16;

/// Lines of plain CSV text (see [`plain_text`]) handed out as [`CsvGrid`]s that borrow it.
#[derive(Clone)]
pub(super) struct PlainLines<'a> {
    text: &'a str,
    offset: usize,
    line: u64,
    /// How many line ends `text` holds, when they were counted already.
    line_ends: Option<u64>,
}

impl<'a> PlainLines<'a> {
    pub(super) fn new(text: &'a str) -> PlainLines<'a> {
        PlainLines::at(text, 1)
    }

    /// The lines of `text`, the first of which is line `line` of its file.
    fn at(text: &'a str, line: u64) -> PlainLines<'a> {
        PlainLines {
            text,
            offset: 0,
            line,
            line_ends: None,
        }
    }

    /// The lines of a piece, not read yet.
    fn of_piece(piece: &Piece<'a>) -> PlainLines<'a> {
        PlainLines {
            line_ends: Some(piece.line_ends),
            ..PlainLines::at(piece.text, piece.line)
        }
    }

    /// The lines left to read (at most one record each).
    fn remaining(&self) -> usize {
        let rest = &self.text.as_bytes()[self.offset..];
        let line_ends = match self.line_ends {
            Some(counted) if self.offset == 0 => counted as usize,
            _ => memchr::memchr_iter(b'\n', rest).count(),
        };
        line_ends + usize::from(!rest.ends_with(b"\n"))
    }

    /// Replace the grid's contents with up to `max` records (empty lines are no
    /// records, as in the csv crate); false when the text had no more.
    pub(super) fn fill(&mut self, grid: &mut CsvGrid<'a>, max: usize) -> bool {
        grid.clear();
        grid.text = std::borrow::Cow::Borrowed(self.text);
        let bytes = self.text.as_bytes();
        while grid.lines.len() < max && self.offset < bytes.len() {
            let start = self.offset;
            let newline = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            let mut end = newline;
            if end > start && bytes[end - 1] == b'\r' {
                end -= 1;
            }
            if end > start {
                let mut field_start = start;
                for comma in memchr::memchr_iter(b',', &bytes[start..end]) {
                    grid.fields.push((field_start, start + comma));
                    field_start = start + comma + 1;
                }
                grid.fields.push((field_start, end));
                grid.record_starts.push(grid.fields.len());
                grid.lines.push(self.line);
            }
            self.offset = newline + 1;
            self.line += 1;
        }
        !grid.lines.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A piece not read yet bounds its records by the line ends counted when it was
    /// checked; the bound is what counting them again gives.
    #[test]
    fn a_piece_bounds_its_records_by_the_lines_counted_when_it_was_cut() {
        let text: String = (0..300_000).map(|i| format!("{i},剣{}\n", i % 7)).collect();
        let text = format!("{text}300000,盾");
        let pieces = pieces_at(text.as_bytes(), 1).expect("plain");
        assert!(pieces.len() > 1);
        for piece in &pieces {
            let counted = PlainLines::of_piece(piece).remaining();
            assert_eq!(counted, PlainLines::at(piece.text, piece.line).remaining());
        }
    }
}
