//! The frame's parts copied as they are compressed, except each sheet's, into which its
//! rows made in pieces are spliced: a round of pieces made on every core while the
//! round before is compressed, so that neither waits for the other and the sheet is
//! never held whole (a 51,200 × 30 sheet is 74 MB of XML).

use std::io::{Cursor, Read as _, Write};
use std::ops::Range;

use masterctl_runtime::parallel::{parallel_map, workers};
use zip::write::{PreparedZipFile, ZipFileBuilder};
use zip::{ZipArchive, ZipWriter};

use super::cells::{self, Columns};
use super::frame::Kept;
use crate::export::{Sheet, Workbook};

/// Rows a piece holds (a 30-column row is about 1.5 kB of XML).
const PIECE_ROWS: usize = 1024;

/// The framed workbook (`framed`, its sheets written with only their rows `kept`) into
/// `out`, each sheet's other rows spliced into it in order.
pub(super) fn splice(
    framed: &[u8],
    workbook: &Workbook,
    kept: &[Kept],
    out: impl Write,
) -> Result<(), String> {
    let zipped = |e: zip::result::ZipError| e.to_string();
    let mut frame = ZipArchive::new(Cursor::new(framed)).map_err(zipped)?;
    let mut zip = ZipWriter::new_stream(out);
    for i in 0..frame.len() {
        let name = match frame.name_for_index(i) {
            Some(name) => name.map_err(zipped)?.into_owned(),
            None => continue,
        };
        let sheet = sheet_of(&name).and_then(|s| Some((workbook.sheets.get(s)?, kept.get(s)?)));
        let gaps = sheet
            .map(|(sheet, kept)| gaps(sheet, &kept.rows))
            .unwrap_or_default();
        match sheet {
            Some((sheet, kept)) if !gaps.is_empty() => {
                let mut part = frame.by_index(i).map_err(zipped)?;
                let options =
                    (part.options()).compression_level(Some(i64::from(super::COMPRESSION_LEVEL)));
                let mut xml = String::new();
                part.read_to_string(&mut xml).map_err(|e| e.to_string())?;
                let builder = ZipFileBuilder::new(&name, options).map_err(zipped)?;
                let style = text_style(&xml, kept.first_digit);
                let spliced = spliced(builder, &xml, sheet, &gaps, style)
                    .map_err(|e| format!("sheet {}: {e}", sheet.name))?;
                zip.add_prepared_file(spliced).map_err(zipped)?;
            }
            _ => zip
                .raw_copy_file(frame.by_index_raw(i).map_err(zipped)?)
                .map_err(zipped)?,
        }
    }
    zip.finish().map_err(zipped)?;
    Ok(())
}

/// Which sheet of the workbook (from 0) the part `name` is: `xl/worksheets/sheet<n>.xml`.
fn sheet_of(name: &str) -> Option<usize> {
    let n = name
        .strip_prefix("xl/worksheets/sheet")?
        .strip_suffix(".xml")?;
    n.parse::<usize>().ok()?.checked_sub(1)
}

/// The runs of `sheet`'s rows the frame did not write: those before each row it kept.
fn gaps(sheet: &Sheet, kept: &[usize]) -> Vec<Range<usize>> {
    let mut from = 0;
    let mut gaps = Vec::new();
    for &k in kept {
        if from < k {
            gaps.push(from..k);
        }
        from = k + 1;
    }
    if from < sheet.rows.len() {
        gaps.push(from..sheet.rows.len());
    }
    gaps
}

/// The sheet's part: the frame's `xml` with each run of the other rows spliced in at
/// its place (a digit text in `text_style`), compressed as it is written.
fn spliced(
    mut part: ZipFileBuilder,
    xml: &str,
    sheet: &Sheet,
    gaps: &[Range<usize>],
    text_style: Option<u32>,
) -> Result<PreparedZipFile, String> {
    let io = |e: std::io::Error| e.to_string();
    let columns = Columns::new(sheet.rows.width(), text_style);
    let mut at = 0;
    for gap in gaps.iter().cloned() {
        let place = place_before(xml, at, gap.end)?;
        part.write_all(&xml.as_bytes()[at..place]).map_err(io)?;
        compressed_rows(&mut part, sheet, gap, &columns)?;
        at = place;
    }
    part.write_all(&xml.as_bytes()[at..]).map_err(io)?;
    part.finish().map_err(|e| e.to_string())
}

/// The number of the text style, as the frame wrote it on the sheet's first digit text
/// at `first_digit` (`<c r="B7" s="1" …`: the frame keeps its row); none when the sheet
/// has no digit text.
fn text_style(xml: &str, first_digit: Option<(usize, usize)>) -> Option<u32> {
    let (r, c) = first_digit?;
    let name = rust_xlsxwriter::utility::column_number_to_name(u16::try_from(c).ok()?);
    let cell = format!("<c r=\"{name}{}\" s=\"", r + 2);
    let style = &xml[xml.find(&cell)? + cell.len()..];
    style[..style.find('"')?].parse().ok()
}

/// Where the sheet's rows from `row` (from 0, under the header) go in the frame's
/// `xml`, looking from `at`: before the first row the frame wrote below them, or at the
/// end of its rows.
fn place_before(xml: &str, at: usize, row: usize) -> Result<usize, String> {
    let mut from = at;
    while let Some(found) = xml[from..].find("<row r=\"") {
        let start = from + found;
        let number = &xml[start + 8..];
        let number = number[..number.find('"').unwrap_or(0)].parse::<usize>();
        if number.is_ok_and(|n| n >= row + 2) {
            return Ok(start);
        }
        from = start + 8;
    }
    (xml[at..].find("</sheetData>").map(|end| at + end))
        .ok_or_else(|| "the sheet written has no place for its rows".to_string())
}

/// `range`'s rows written into `part` in rounds: a piece a core made while the round
/// before is compressed.
fn compressed_rows(
    part: &mut ZipFileBuilder,
    sheet: &Sheet,
    range: Range<usize>,
    columns: &Columns,
) -> Result<(), String> {
    let pieces: Vec<Range<usize>> = (range.clone().step_by(PIECE_ROWS))
        .map(|start| start..(start + PIECE_ROWS).min(range.end))
        .collect();
    let made = |rows: &Range<usize>| {
        let mut xml = Vec::with_capacity(rows.len() * 64 * sheet.rows.width().max(1));
        cells::write(&sheet.rows, rows.clone(), columns, &mut xml).map(|()| xml)
    };
    let mut ready: Vec<Vec<u8>> = Vec::new();
    for round in pieces.chunks(workers().max(1)) {
        let (written, next) = rayon::join(
            || ready.iter().try_for_each(|xml| part.write_all(xml)),
            || parallel_map(round, made),
        );
        written.map_err(|e| e.to_string())?;
        ready = next.into_iter().collect::<Result<_, _>>()?;
    }
    (ready.iter())
        .try_for_each(|xml| part.write_all(xml))
        .map_err(|e| e.to_string())
}
