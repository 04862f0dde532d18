//! A large CSV file read a segment at a time into one buffer, each plain segment typed
//! on every core before the next is read over it. Read whole, a file of 40 MB is 40 MB
//! of memory the kernel hands out page by page and zeroes first, in the one step no
//! other core can share (an eighth of the time of validating a 200,000-row text table);
//! a segment's buffer is handed out once and stays warm. The values
//! typed are copies (text cells are values of their own), so nothing borrows a segment
//! once it is typed. A segment that is not plain CSV (a quote, a lone CR, bytes that
//! are not UTF-8) hands the rest of the file, from its first line, to the csv crate.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::BOM;
use super::plain::{pieces_at, type_pieces};
use crate::diagnostic::Diagnostic;
use crate::typing::TableBuilder;

/// The bytes read at a time: a few pieces per core (see [`super::plain`]).
pub(super) const SEGMENT_BYTES: usize = 8 << 20;

/// Type the records of the file at `path` (open as `file`, `size` bytes when it was
/// opened), `segment` bytes at a time: plain CSV on every core, and from the first
/// segment that is not plain on, the rest through the csv crate. The file's own
/// mistakes are the inner error (see [`super::type_records`]).
pub(super) fn type_file(
    builder: &mut TableBuilder<'_>,
    file: &mut File,
    size: u64,
    segment: usize,
    path: &Path,
) -> std::io::Result<Result<(), Vec<Diagnostic>>> {
    Ok(match type_segments(builder, file, size, segment)? {
        Segments::Typed => Ok(()),
        Segments::NotPlain { rest, line } => super::type_quoted(builder, &rest, path, line),
    })
}

/// How a file read in segments ended.
enum Segments {
    /// Every record was typed.
    Typed,
    /// The segment starting on `line` is not plain CSV: `rest` holds it and everything
    /// after it, untyped.
    NotPlain { rest: Vec<u8>, line: u64 },
}

/// Type the records of `file` (`size` bytes when it was opened: a guess for the
/// table's size, nothing more), `segment` bytes after `segment` bytes, as long as they
/// are plain.
fn type_segments(
    builder: &mut TableBuilder<'_>,
    file: &mut File,
    size: u64,
    segment: usize,
) -> std::io::Result<Segments> {
    let mut buffer = vec![0u8; segment];
    let (mut filled, mut line, mut read) = (0, 1u64, 0u64);
    loop {
        let before = filled;
        let end_of_file = fill(file, &mut buffer, &mut filled)?;
        read += (filled - before) as u64;
        // A segment ends after its last LF (never inside a character, nor, in plain
        // CSV, inside a cell); the file's last segment at its end.
        let end = match memchr::memrchr(b'\n', &buffer[..filled]) {
            _ if end_of_file => filled,
            Some(at) => at + 1,
            // A line longer than the buffer: a larger buffer.
            None => {
                buffer.resize(buffer.len() * 2, 0);
                continue;
            }
        };
        let skip = match line {
            1 if buffer.starts_with(BOM) => BOM.len(),
            _ => 0,
        };
        let Some(pieces) = pieces_at(&buffer[skip..end], line) else {
            buffer.truncate(filled);
            file.read_to_end(&mut buffer)?;
            return Ok(Segments::NotPlain { rest: buffer, line });
        };
        let lines: u64 = pieces.iter().map(|p| p.line_ends).sum();
        // Room for the rows of the whole file, as far as this segment tells (a row a
        // line), so that the columns are never moved as they grow.
        let rows_left = size.saturating_sub(read) as f64 / end.max(1) as f64 * lines as f64;
        builder.reserve(lines as usize + (rows_left * 1.05) as usize + 1);
        type_pieces(builder, &pieces);
        if end_of_file {
            return Ok(Segments::Typed);
        }
        line += lines;
        buffer.copy_within(end..filled, 0);
        filled -= end;
    }
}

/// Read into `buffer` after its first `filled` bytes until it is full or the file ends;
/// whether it ended.
fn fill(file: &mut File, buffer: &mut [u8], filled: &mut usize) -> std::io::Result<bool> {
    while *filled < buffer.len() {
        match file.read(&mut buffer[*filled..]) {
            Ok(0) => return Ok(true),
            Ok(n) => *filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::schema::Project;
    use crate::table::{SourceFormat, Table};

    fn project() -> Project {
        let config = "source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";
        let item = "name = \"item\"\nprimary_key = [\"id\"]\n\n\
            [[fields]]\nname = \"id\"\ntype = \"int\"\n\n\
            [[fields]]\nname = \"name\"\ntype = \"text\"\nmax_length = 8\n\n\
            [[fields]]\nname = \"price\"\ntype = \"int\"\n";
        crate::load::load_from_files(
            Some((PathBuf::from("masterctl.toml"), config.to_string())),
            vec![(PathBuf::from("schemas/item.toml"), item.to_string())],
        )
        .unwrap()
    }

    /// `rows` rows with mistakes, blank lines, comment rows, CRLF endings and a value
    /// beyond the header spread over them; `quoted_at` writes that row's name quoted.
    fn csv(rows: u32, quoted_at: Option<u32>) -> String {
        let mut text = "\u{feff}id,name,price\n".to_string();
        for id in 1..=rows {
            let name = match id {
                _ if Some(id) == quoted_at => "\"剣,盾\"".to_string(),
                _ if id % 97 == 0 => "とても長すぎる名前の剣です".to_string(),
                _ => format!("剣{}", id % 100),
            };
            let price = if id % 61 == 0 {
                "many".to_string()
            } else {
                id.to_string()
            };
            let beyond = if id % 4_001 == 0 { ",stray" } else { "" };
            let end = if id % 3 == 0 { "\r\n" } else { "\n" };
            text.push_str(&format!("{id},{name},{price}{beyond}{end}"));
            if id % 1_009 == 0 {
                text.push_str("\n# a planner's note\n");
            }
        }
        text.pop();
        text
    }

    /// The table and what was said of `text`, typed whole, or `segment` bytes at a time.
    fn typed(text: &str, segment: Option<usize>) -> (Table, Vec<String>) {
        let project = project();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("item.csv");
        std::fs::write(&path, text).unwrap();
        let mut builder = TableBuilder::new(&project.tables[0], &path, SourceFormat::Csv);
        let typed = match segment {
            None => super::super::type_records(&mut builder, text.as_bytes(), &path),
            Some(segment) => {
                let mut file = File::open(&path).unwrap();
                let size = text.len() as u64;
                type_file(&mut builder, &mut file, size, segment, &path).unwrap()
            }
        };
        typed.unwrap();
        let (table, diagnostics) = builder.finish();
        let said = diagnostics
            .iter()
            .map(|d| format!("{:?} line {:?} {}", d.code, d.location.line, d.message))
            .collect();
        (table.unwrap(), said)
    }

    #[test]
    fn a_file_typed_a_segment_at_a_time_is_the_file_typed_whole() {
        // Segments of one piece (on this thread), of two (on every core: 4.5 MB in
        // segments of 2.25 MB), a segment shorter than a line, and a quote half-way
        // that hands the rest to the csv crate.
        let cases = [
            (csv(3_000, None), 4 << 10),
            (csv(250_000, None), 9 << 18),
            (csv(300, None), 16),
            (csv(3_000, Some(2_000)), 4 << 10),
        ];
        for (text, segment) in cases {
            let (whole, whole_said) = typed(&text, None);
            let (segmented, segmented_said) = typed(&text, Some(segment));
            assert_eq!(whole.columns, segmented.columns, "segments of {segment}");
            assert_eq!(whole.origin.rows, segmented.origin.rows);
            assert_eq!(whole_said, segmented_said);
            assert!(!whole_said.is_empty());
        }
    }
}
