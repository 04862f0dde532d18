//! Text tables that are not comma-separated UTF-8: tab-separated files (`.tsv`, and
//! `.txt` as Excel saves “Unicode Text” and Game Framework keeps its data tables) and
//! files saved in UTF-16 with a byte order mark. Each is rewritten as CSV text in memory
//! — record for record on the same lines, cell for cell in the same columns — before it
//! is read, so every place and mistake is said as in the file itself.

use std::borrow::Cow;
use std::path::Path;

use crate::diagnostic::{Code, Diagnostic, Location};

/// Extensions of tab-separated files.
pub const EXTENSIONS: [&str; 2] = ["tsv", "txt"];

/// Whether the file at `path` is read as tab-separated (by its extension).
pub fn is_tab_separated(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// Whether `bytes` begin with a UTF-16 byte order mark.
pub fn is_utf16(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF")
}

/// Whether the file at `path` is a text file of notes, not a table: a `.txt` file whose
/// first line (within its first 4 KiB) holds no tab. A folder's `README.txt` maps to no
/// table and is passed over without a word.
pub fn is_notes(path: &Path) -> bool {
    use std::io::Read;
    let is_txt = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("txt"));
    if !is_txt {
        return false;
    }
    let mut start = Vec::with_capacity(4096);
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut start));
    if read.is_err() {
        return false;
    }
    // Decoded as far as read (a character cut at the end is no tab, nor is a byte of
    // another encoding that UTF-8 does not read).
    let (text, _) = match start.as_slice() {
        [0xFF, 0xFE, rest @ ..] => encoding_rs::UTF_16LE.decode_without_bom_handling(rest),
        [0xFE, 0xFF, rest @ ..] => encoding_rs::UTF_16BE.decode_without_bom_handling(rest),
        bytes => encoding_rs::UTF_8.decode_without_bom_handling(bytes),
    };
    !text.lines().next().unwrap_or_default().contains('\t')
}

/// A file's text rewritten as CSV.
pub struct Rewritten {
    pub text: String,
    /// The encoding a file neither UTF-8 nor UTF-16 was read in (GBK, Shift_JIS).
    pub decoded_from: Option<&'static str>,
}

/// `bytes` of the file at `path` as CSV text when they are UTF-16 or tab-separated;
/// `None` when they are to be read as they are. Text that is not valid UTF-16 (or of
/// no encoding [`super::encoding`] reads), or a record that cannot be parsed, is the
/// error, at its line.
pub fn as_csv(bytes: &[u8], path: &Path) -> Option<Result<Rewritten, Diagnostic>> {
    let tabs = is_tab_separated(path);
    if !tabs && !is_utf16(bytes) {
        return None;
    }
    Some(decoded(bytes, path).and_then(|(text, decoded_from)| {
        let text = match tabs {
            true => rewritten(&text, path)?,
            false => text.into_owned(),
        };
        Ok(Rewritten { text, decoded_from })
    }))
}

/// The file's text (its byte order mark left out) and the legacy encoding it was read
/// in, if any: UTF-16 and UTF-8 as they are, anything else as GBK or Shift_JIS when it
/// reads so.
fn decoded<'a>(
    bytes: &'a [u8],
    path: &Path,
) -> Result<(Cow<'a, str>, Option<&'static str>), Diagnostic> {
    let encoding = match bytes {
        [0xFF, 0xFE, ..] => encoding_rs::UTF_16LE,
        [0xFE, 0xFF, ..] => encoding_rs::UTF_16BE,
        _ => {
            let bytes = bytes.strip_prefix(super::BOM).unwrap_or(bytes);
            if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
                return Ok((Cow::Borrowed(text), None));
            }
            return match super::encoding::decode(bytes) {
                Some(decoded) => Ok((Cow::Owned(decoded.text), Some(decoded.encoding))),
                None => Err(not_text(bytes, path, encoding_rs::UTF_8)),
            };
        }
    };
    match encoding.decode_without_bom_handling_and_without_replacement(&bytes[2..]) {
        Some(text) => Ok((text, None)),
        None => Err(not_text(&bytes[2..], path, encoding)),
    }
}

/// `bytes` are not text of `encoding`: said at the line of the first that is not.
fn not_text(bytes: &[u8], path: &Path, encoding: &'static encoding_rs::Encoding) -> Diagnostic {
    let (text, _) = encoding.decode_without_bom_handling(bytes);
    let line = text
        .split('\u{FFFD}')
        .next()
        .map_or(1, |before| 1 + before.matches('\n').count() as u64);
    Diagnostic::new(
        Code::InvalidUtf8,
        Location {
            line: Some(line),
            ..Location::file(path)
        },
        format!("this line is not valid {}", encoding.name()),
    )
    .hint("save the file as Unicode text, or as CSV UTF-8")
}

/// Tab-separated `text` as CSV: each record on the line it began on (blank lines kept),
/// each cell in its column, quoted where CSV needs it.
fn rewritten(text: &str, path: &Path) -> Result<String, Diagnostic> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut lines = super::LineCounter::new(text.as_bytes());
    // Lines written so far, and the record read.
    let (mut written, mut record) = (1u64, csv::StringRecord::new());
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => return Ok(out),
            Ok(true) => {
                let line = lines.line_at(record.position().map_or(0, |p| p.byte()));
                while written < line {
                    out.push('\n');
                    written += 1;
                }
                for (column, cell) in record.iter().enumerate() {
                    if column > 0 {
                        out.push(',');
                    }
                    push_cell(&mut out, cell);
                    // A quoted cell may hold line breaks, written again as they were.
                    written += cell.matches('\n').count() as u64;
                }
                out.push('\n');
                written += 1;
            }
            Err(e) => {
                let line = lines.line_at(e.position().map_or(0, |p| p.byte()));
                return Err(Diagnostic::new(
                    Code::UnreadableFile,
                    Location {
                        line: Some(line),
                        ..Location::file(path)
                    },
                    format!("the tab-separated file cannot be parsed: {e}"),
                ));
            }
        }
    }
}

/// `cell` as a CSV cell: quoted when it holds a comma, a quote or a line break (the
/// csv crate's writer quotes alike, but writes no blank line, which [`rewritten`] keeps).
fn push_cell(out: &mut String, cell: &str) {
    if !cell.contains([',', '"', '\n', '\r']) {
        out.push_str(cell);
        return;
    }
    out.push('"');
    for c in cell.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use masterctl_testing::utf16;

    fn csv_of(bytes: &[u8], name: &str) -> String {
        as_csv(bytes, Path::new(name)).unwrap().unwrap().text
    }

    #[test]
    fn unicode_text_is_csv_on_the_same_lines_and_columns() {
        // Excel's “Unicode Text”: UTF-16, tabs, a cell quoted where it holds a break.
        let text = "#\t飞机表\r\n#\tId\t\tName\r\n\r\n\t1\t备注, 一\t\"two\r\nlines\"\r\n\t2\t\"say \"\"hi\"\"\"\t5\"\r\n";
        let expected = "#,飞机表\n#,Id,,Name\n\n,1,\"备注, 一\",\"two\r\nlines\"\n,2,\"say \"\"hi\"\"\",\"5\"\"\"\n";
        for little_endian in [true, false] {
            assert_eq!(
                csv_of(&utf16(text, little_endian), "Aircraft.txt"),
                expected
            );
        }
        assert_eq!(csv_of(text.as_bytes(), "Aircraft.tsv"), expected);
        // A UTF-16 file of commas is only decoded.
        assert_eq!(
            csv_of(&utf16("a,b\r\n1,2\r\n", true), "a.csv"),
            "a,b\r\n1,2\r\n"
        );
        // UTF-8 commas are read as they are.
        assert!(as_csv(b"a,b\n", Path::new("a.csv")).is_none());
    }

    #[test]
    fn a_tab_separated_file_in_gbk_is_decoded_and_said() {
        let (gbk, _, _) = encoding_rs::GBK.encode("编号\t名称\n1\t扎克镇\n2\t阿努比斯神庙\n");
        let rewritten = as_csv(&gbk, Path::new("town.tsv")).unwrap().unwrap();
        assert_eq!(rewritten.text, "编号,名称\n1,扎克镇\n2,阿努比斯神庙\n");
        assert_eq!(rewritten.decoded_from, Some("GBK"));
    }

    #[test]
    fn text_that_is_not_its_encoding_is_refused_at_its_line() {
        let mut bytes = utf16("a\tb\n1\t2\n", true);
        // An unpaired high surrogate on the second line.
        bytes.extend([0x00, 0xD8, b'x', 0x00]);
        let refused = as_csv(&bytes, Path::new("a.txt")).unwrap().err().unwrap();
        assert_eq!(refused.code, Code::InvalidUtf8);
        assert_eq!(refused.location.line, Some(3));
        assert!(refused.message.contains("UTF-16LE"), "{}", refused.message);
        let refused = as_csv(b"a\tb\n\xFF\xFF\xFF\n", Path::new("a.tsv"))
            .unwrap()
            .err()
            .unwrap();
        assert_eq!(refused.location.line, Some(2));
    }

    #[test]
    fn a_text_file_without_a_tab_on_its_first_line_is_notes() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        assert!(is_notes(&write(
            "README.txt",
            b"How to edit these tables\n\ta\tb\n"
        )));
        assert!(!is_notes(&write("Item.txt", b"id\tname\n1\tx\n")));
        assert!(!is_notes(&write("Item2.txt", &utf16("#\tItems\r\n", true))));
        assert!(is_notes(&write(
            "Notes.txt",
            &utf16("notes\r\n\t\r\n", false)
        )));
        // A tab's bytes across two characters are no tab: U+0941 then U+4E00 are
        // `41 09 00 4E` in UTF-16LE, whose bytes hold `09 00` but no unit 0x0009.
        assert!(is_notes(&write(
            "Han.txt",
            &utf16("\u{0941}\u{4E00}\r\n", true)
        )));
        // Only `.txt`: a `.tsv` is a table by its name.
        assert!(!is_notes(&write("README.tsv", b"notes\n")));
    }
}
