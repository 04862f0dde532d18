//! Export's xlsx workbooks. rust_xlsxwriter writes each workbook's frame — its
//! properties, each sheet's header, looks and notes, and a few of its rows
//! (`frame.rs`) —, and the rest of the rows are written here as the same SpreadsheetML
//! (`cells.rs`), in pieces on every core, compressed as they come and spliced into the
//! frame's sheets (`splice.rs`). The workbook's bytes are those rust_xlsxwriter writes
//! for every row itself (the test below); a 51,200 × 30 sheet's rows, written by the
//! library on one core then compressed, were two thirds of an export's time.

mod cells;
mod frame;
mod splice;

use std::io::Write;

use super::{Export, Workbook};

/// How hard every part is compressed: deflate was most of an export's time, and level 1
/// costs a few percent of size.
const COMPRESSION_LEVEL: u8 = 1;

/// `workbook` as an xlsx file into `out`.
pub(super) fn write(export: &Export, workbook: &Workbook, out: impl Write) -> Result<(), String> {
    let kept: Vec<frame::Kept> = workbook.sheets.iter().map(frame::kept).collect();
    let mut book = frame::frame(export, workbook, &kept)?;
    let framed = book.save_to_buffer().map_err(|e| e.to_string())?;
    splice::splice(&framed, workbook, &kept, out)
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Read as _};

    use super::*;
    use crate::export::{Cell, Choices, Look, Rows, Sheet};

    /// Every part of an xlsx file, by name in order, uncompressed; but the time it was
    /// made (`docProps/core.xml`, which the frame's is copied from: two files made a
    /// moment apart may be a second apart).
    fn parts(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
        (0..archive.len())
            .map(|i| {
                let mut part = archive.by_index(i).unwrap();
                let mut content = Vec::new();
                if part.name().unwrap() != "docProps/core.xml" {
                    part.read_to_end(&mut content).unwrap();
                }
                (part.name().unwrap().into_owned(), content)
            })
            .collect()
    }

    /// A sheet `name` of `rows` rows of every kind of cell: numbers whole, negative,
    /// past 10^15, with decimals and exponents; booleans; texts to escape; digit texts
    /// from row `digits_from`; empty cells and empty rows; and looks (a note, a
    /// drop-down, whole numbers).
    fn sheet(name: &str, rows: usize, digits_from: usize) -> Sheet {
        let texts = [
            "plain",
            "  leading",
            "trailing\n",
            "\ttab",
            "<b>&amp;</b> \"q\"",
            "bell\u{7} escape\u{1b} cr\r",
            "_x0041_ and _x00zz_ and _x12345",
            "not a char \u{FFFE}\u{FFFF} end",
            "竜の山 ✨",
            "",
        ];
        let numbers = [
            0.0,
            -0.0,
            1.0,
            -17.0,
            1e15,
            123_456_789_012_345.0,
            0.1,
            2.5e-7,
            1e300,
            -1.5,
        ];
        let row = |r: usize| -> Vec<Cell<'static>> {
            if r % 97 == 5 {
                return vec![Cell::Empty; 5];
            }
            vec![
                Cell::Number(r as f64),
                Cell::Number(numbers[r % numbers.len()]),
                if r.is_multiple_of(3) {
                    Cell::Empty
                } else {
                    Cell::Bool(r.is_multiple_of(2))
                },
                Cell::Text(texts[r % texts.len()]),
                if r >= digits_from && r.is_multiple_of(5) {
                    Cell::Digits("0.30000000000000004")
                } else {
                    Cell::Text("x")
                },
            ]
        };
        let header = ["id", "amount", "ok", "body", "exact"];
        Sheet {
            table: name.into(),
            name: name.into(),
            header: header.map(String::from).to_vec(),
            rows: Rows::of(5, (0..rows).map(row)).unwrap(),
            looks: header
                .map(|field| Look {
                    field: Some(field.into()),
                    note: (field == "body").then(|| "a note".into()),
                    choices: match field {
                        "ok" => Choices::Values(vec!["TRUE".into(), "FALSE".into()]),
                        _ => Choices::None,
                    },
                    whole: field == "id",
                    width: 12.0,
                })
                .to_vec(),
            layout: Default::default(),
            row_looks: Vec::new(),
        }
    }

    /// Every one of `rows` rows kept: the frame is the whole workbook.
    fn every_row(rows: usize) -> frame::Kept {
        frame::Kept {
            rows: (0..rows).collect(),
            first_digit: None,
        }
    }

    /// A workbook of these sheets, and its export.
    fn export(sheets: Vec<Sheet>) -> (Export, Workbook) {
        let workbook = Workbook {
            path: "book.xlsx".into(),
            sourced: false,
            sheets,
        };
        let export = Export {
            region: "jp".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            workbooks: vec![workbook.clone()],
        };
        (export, workbook)
    }

    /// The rows made in pieces and spliced into the frame make the file rust_xlsxwriter
    /// writes with every row itself: each part, in order, the same bytes — over several
    /// pieces and runs, digit texts first found deep in a sheet, an empty last row,
    /// a sheet of one row and one of none.
    #[test]
    fn a_workbook_is_the_one_rust_xlsxwriter_writes_row_by_row() {
        let mut empty_last = sheet("empty last", 1200, 0);
        empty_last.rows = Rows::of(
            5,
            (empty_last.rows.iter())
                .enumerate()
                .map(|(r, row)| match r {
                    1199 => vec![Cell::Empty; 5],
                    _ => row.cells().collect(),
                }),
        )
        .unwrap();
        let (export, workbook) = export(vec![
            sheet("Items", 3000, 2200),
            sheet("no digits", 2100, usize::MAX),
            empty_last,
            sheet("one", 1, 0),
            sheet("none", 0, 0),
        ]);
        let mut spliced = Vec::new();
        write(&export, &workbook, &mut spliced).unwrap();
        let every: Vec<frame::Kept> = (workbook.sheets.iter())
            .map(|sheet| every_row(sheet.rows.len()))
            .collect();
        let whole = frame::frame(&export, &workbook, &every)
            .unwrap()
            .save_to_buffer()
            .unwrap();
        let (spliced, whole) = (parts(&spliced), parts(&whole));
        let names =
            |parts: &[(String, Vec<u8>)]| parts.iter().map(|p| p.0.clone()).collect::<Vec<_>>();
        assert_eq!(names(&spliced), names(&whole));
        for ((name, ours), (_, theirs)) in spliced.iter().zip(&whole) {
            if ours != theirs {
                let at = (ours.iter().zip(theirs))
                    .take_while(|(a, b)| a == b)
                    .count();
                panic!(
                    "{name} differs at byte {at}: ours {:?}, rust_xlsxwriter's {:?}",
                    String::from_utf8_lossy(
                        &ours[at.saturating_sub(80)..(at + 80).min(ours.len())]
                    ),
                    String::from_utf8_lossy(
                        &theirs[at.saturating_sub(80)..(at + 80).min(theirs.len())]
                    ),
                );
            }
        }
        let sheet1 = String::from_utf8_lossy(
            &spliced
                .iter()
                .find(|p| p.0 == "xl/worksheets/sheet1.xml")
                .unwrap()
                .1,
        )
        .into_owned();
        assert!(sheet1.contains("<row r=\"3001\">"), "the last row written");
        assert!(
            sheet1.contains("_x005F_x0041_") && sheet1.contains("_x0007_"),
            "texts escaped"
        );
    }

    /// A cell of the property below: a number (any bits: whole, tiny, huge, NaN,
    /// infinite), a text or a digit text of the characters escaping is about, or none.
    fn any_cell() -> impl proptest::strategy::Strategy<Value = (u8, f64, String)> {
        use proptest::prelude::*;
        let alphabet = [
            '_', 'x', '0', '5', 'F', 'a', '&', '<', '>', ' ', '\t', '\n', '\r', '\u{1}', '\u{1f}',
            '\u{fffe}', '\u{ffff}', '竜', '"',
        ];
        let text = prop::collection::vec(prop::sample::select(alphabet.to_vec()), 0..14)
            .prop_map(|chars| chars.into_iter().collect::<String>());
        (0u8..5, any::<f64>(), text)
    }

    proptest::proptest! {
        /// Any cells, split in pieces and runs anywhere: the same bytes as
        /// rust_xlsxwriter's, row by row.
        #[test]
        fn any_rows_are_written_as_rust_xlsxwriter_writes_them(
            rows in proptest::collection::vec(proptest::collection::vec(any_cell(), 3), 0..40)
        ) {
            let cells = rows.iter().map(|row| {
                row.iter()
                    .map(|(kind, number, text)| match kind {
                        0 => Cell::Empty,
                        1 => Cell::Number(*number),
                        2 => Cell::Bool(number.is_sign_negative()),
                        3 => Cell::Digits(text),
                        _ => Cell::Text(text),
                    })
                    .collect::<Vec<_>>()
            });
            let mut random = sheet("random", 0, 0);
            random.header.truncate(3);
            random.looks.truncate(3);
            random.rows = Rows::of(3, cells).unwrap();
            let (export, workbook) = export(vec![random]);
            let mut spliced = Vec::new();
            write(&export, &workbook, &mut spliced).unwrap();
            let every = vec![every_row(workbook.sheets[0].rows.len())];
            let whole = frame::frame(&export, &workbook, &every).unwrap().save_to_buffer().unwrap();
            proptest::prop_assert_eq!(parts(&spliced), parts(&whole));
        }
    }

    /// A text longer than a cell holds is refused, naming its cell, wherever it is.
    #[test]
    fn a_text_longer_than_a_cell_holds_is_refused_by_its_cell() {
        let long = "x".repeat(cells::MOST_IN_A_CELL + 1);
        let rows = |at: usize| {
            Rows::of(
                1,
                (0..50).map(|r| {
                    [if r == at {
                        Cell::Text(&long)
                    } else {
                        Cell::Text("y")
                    }]
                }),
            )
            .unwrap()
        };
        for (at, cell) in [(10, "A12"), (49, "A51")] {
            let mut items = sheet("Items", 0, 0);
            items.header.truncate(1);
            items.looks.truncate(1);
            items.rows = rows(at);
            let (export, workbook) = export(vec![items]);
            let refused = write(&export, &workbook, &mut Vec::new()).unwrap_err();
            assert!(
                refused.starts_with(&format!("sheet Items: the text of cell {cell} is longer")),
                "{refused}"
            );
        }
    }
}
