//! A sheet's rows as SpreadsheetML, byte for byte as rust_xlsxwriter writes them in its
//! constant-memory mode: `<row r="…">` for a row holding a cell (none for an empty
//! one), and each cell not empty as `<c r="…">` — a number in its shortest text, a
//! boolean `t="b"`, a text inline (`t="inlineStr"`) with its leading or trailing spaces
//! kept, `&`, `<` and `>` escaped, a control character as `_xHHHH_` (and a text that
//! already reads `_xHHHH_` escaped so it is not taken for one), a digit text in the text
//! style. `frame.rs` writes the same cells through rust_xlsxwriter; the test in
//! `mod.rs` holds the two to the same bytes.

use std::io::Write as _;
use std::ops::Range;

use rust_xlsxwriter::utility::column_number_to_name;

use crate::export::{Cell, Rows};

/// The most UTF-16 units a spreadsheet cell holds (Excel's limit, which
/// rust_xlsxwriter keeps).
pub(super) const MOST_IN_A_CELL: usize = 32_767;

/// What a sheet's rows are written with: its columns' names (`A`, `B`, … `AD`) and the
/// number of the style of a digit text (`@`), when the sheet has one.
pub(super) struct Columns {
    names: Vec<String>,
    text_style: Option<u32>,
}

impl Columns {
    /// The first `width` columns' names, and the text style's number.
    pub(super) fn new(width: usize, text_style: Option<u32>) -> Columns {
        let names = (0..width)
            .map(|c| column_number_to_name(u16::try_from(c).unwrap_or(u16::MAX)))
            .collect();
        Columns { names, text_style }
    }
}

/// Write `rows`' rows in `range` (from 0: the header is the sheet's first row, so row
/// `r` is the sheet's `r + 2`) to `out`. A text longer than a cell holds is refused,
/// naming its cell.
pub(super) fn write(
    rows: &Rows,
    range: Range<usize>,
    columns: &Columns,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let mut integer = itoa::Buffer::new();
    for r in range {
        let row = rows.row(r);
        if row.cells().all(writes_nothing) {
            continue;
        }
        let number = integer.format(r + 2).to_owned();
        out.extend_from_slice(b"<row r=\"");
        out.extend_from_slice(number.as_bytes());
        out.extend_from_slice(b"\">");
        for (c, cell) in row.cells().enumerate() {
            let place = |out: &mut Vec<u8>| {
                let name = columns.names.get(c).map_or("", String::as_str);
                out.extend_from_slice(b"<c r=\"");
                out.extend_from_slice(name.as_bytes());
                out.extend_from_slice(number.as_bytes());
                out.push(b'"');
            };
            match cell {
                cell if writes_nothing(cell) => continue,
                Cell::Number(x) if x.is_finite() => {
                    place(out);
                    out.extend_from_slice(b"><v>");
                    write_number(out, x, &mut integer);
                    out.extend_from_slice(b"</v></c>");
                }
                // As rust_xlsxwriter writes a number a spreadsheet has no value for.
                Cell::Number(x) => {
                    let text = match x {
                        x if x.is_nan() => "NAN",
                        x if x > 0.0 => "INF",
                        _ => "-INF",
                    };
                    write_text(out, place, None, text);
                }
                Cell::Bool(b) => {
                    place(out);
                    out.extend_from_slice(if b {
                        b" t=\"b\"><v>1</v></c>"
                    } else {
                        b" t=\"b\"><v>0</v></c>"
                    });
                }
                Cell::Text(text) | Cell::Digits(text) => {
                    if text.encode_utf16().nth(MOST_IN_A_CELL).is_some() {
                        let name = columns.names.get(c).map_or("", String::as_str);
                        return Err(too_long(&format!("{name}{number}")));
                    }
                    let style = match cell {
                        Cell::Digits(_) => Some(columns.text_style.ok_or_else(|| {
                            "the text style of its digit texts was not written".to_string()
                        })?),
                        _ => None,
                    };
                    write_text(out, place, style, text);
                }
                Cell::Empty => continue,
            }
        }
        out.extend_from_slice(b"</row>");
    }
    Ok(())
}

/// Whether `cell` is written as nothing: empty, or an empty text (as a spreadsheet
/// keeps it; an empty digit text, in its style, is a blank cell).
pub(super) fn writes_nothing(cell: Cell<'_>) -> bool {
    matches!(cell, Cell::Empty | Cell::Text(""))
}

/// Why a text is not written in `cell`.
pub(super) fn too_long(cell: &str) -> String {
    format!("the text of cell {cell} is longer than a cell holds ({MOST_IN_A_CELL} characters)")
}

/// A number as Rust writes it (its shortest text, never with an exponent): a whole one
/// under 10^15 through `itoa`, the rest through `Display`.
fn write_number(out: &mut Vec<u8>, x: f64, integer: &mut itoa::Buffer) {
    if x.fract() == 0.0 && x.abs() < 1e15 && !(x == 0.0 && x.is_sign_negative()) {
        out.extend_from_slice(integer.format(x as i64).as_bytes());
    } else {
        // Writing to a vector does not fail.
        let _ = write!(out, "{x}");
    }
}

/// A text's cell: inline, in `style` when given, its leading or trailing spaces kept.
fn write_text(out: &mut Vec<u8>, place: impl Fn(&mut Vec<u8>), style: Option<u32>, text: &str) {
    place(out);
    if let Some(style) = style {
        out.extend_from_slice(b" s=\"");
        out.extend_from_slice(itoa::Buffer::new().format(style).as_bytes());
        out.push(b'"');
        if text.is_empty() {
            out.extend_from_slice(b"/>");
            return;
        }
    }
    let spaces = [' ', '\t', '\n'];
    out.extend_from_slice(if text.starts_with(spaces) || text.ends_with(spaces) {
        b" t=\"inlineStr\"><is><t xml:space=\"preserve\">"
    } else {
        b" t=\"inlineStr\"><is><t>"
    });
    escape(out, text);
    out.extend_from_slice(b"</t></is></c>");
}

/// `text` escaped for a cell's `<t>`: `&`, `<` and `>`; a control character other than
/// a tab or a line break, and U+FFFE and U+FFFF, as `_xHHHH_`; and `_x005F` before a
/// `_xHHHH_` the text holds, so that it reads back as written.
fn escape(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    let mut from = 0;
    let mut i = 0;
    while i < bytes.len() {
        let (escaped, skip): (&[u8], usize) = match bytes[i] {
            b'&' => (b"&amp;", 1),
            b'<' => (b"&lt;", 1),
            b'>' => (b"&gt;", 1),
            b'\t' | b'\n' => {
                i += 1;
                continue;
            }
            control @ 0..=0x1F => (CONTROLS[usize::from(control)].as_bytes(), 1),
            b'_' if reads_as_escape(&bytes[i..]) => (b"_x005F_", 1),
            0xEF if bytes[i + 1..].starts_with(&[0xBF, 0xBE]) => (b"_xFFFE_", 3),
            0xEF if bytes[i + 1..].starts_with(&[0xBF, 0xBF]) => (b"_xFFFF_", 3),
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[from..i]);
        out.extend_from_slice(escaped);
        i += skip;
        from = i;
    }
    out.extend_from_slice(&bytes[from..]);
}

/// Whether `text` starts with `_xHHHH_` (four hexadecimal digits).
fn reads_as_escape(text: &[u8]) -> bool {
    matches!(text, [b'_', b'x', a, b, c, d, b'_', ..]
        if [a, b, c, d].iter().all(|h| h.is_ascii_hexdigit()))
}

/// The escapes of the control characters U+0000 to U+001F (a tab and a line break are
/// written as they are).
const CONTROLS: [&str; 32] = [
    "_x0000_", "_x0001_", "_x0002_", "_x0003_", "_x0004_", "_x0005_", "_x0006_", "_x0007_",
    "_x0008_", "\t", "\n", "_x000B_", "_x000C_", "_x000D_", "_x000E_", "_x000F_", "_x0010_",
    "_x0011_", "_x0012_", "_x0013_", "_x0014_", "_x0015_", "_x0016_", "_x0017_", "_x0018_",
    "_x0019_", "_x001A_", "_x001B_", "_x001C_", "_x001D_", "_x001E_", "_x001F_",
];
