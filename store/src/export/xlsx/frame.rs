//! The workbook rust_xlsxwriter writes around the rows made in pieces: its commit and
//! region as document properties, and each sheet with its header, the rows kept for it
//! ([`kept`]) and its looks ([`looks::apply`]).

use rust_xlsxwriter::{DocProperties, Format, Workbook as Book, Worksheet, XlsxError};

use super::cells;
use crate::export::{COMMIT_PROPERTY, Cell, Export, REGION_PROPERTY, Sheet, Workbook, looks};

/// The rows of a sheet the frame writes itself, in order, and where its first digit
/// text is (row and column, from 0), whose cell gives the text style its number.
pub(super) struct Kept {
    pub rows: Vec<usize>,
    pub first_digit: Option<(usize, usize)>,
}

/// The rows of `sheet` the frame writes itself: the first holding a digit text and the
/// last holding a cell (which gives the sheet its extent). The others are made in
/// pieces and spliced between.
pub(super) fn kept(sheet: &Sheet) -> Kept {
    let holding = |r: &usize| (sheet.rows.row(*r).cells()).any(|c| !cells::writes_nothing(c));
    let first_digit = first_digit_text(sheet);
    let last = (0..sheet.rows.len()).rev().find(holding);
    let mut rows: Vec<usize> = first_digit
        .map(|(r, _)| r)
        .into_iter()
        .chain(last)
        .collect();
    rows.dedup();
    Kept { rows, first_digit }
}

/// Where the sheet's first digit text is: its row and column (from 0).
fn first_digit_text(sheet: &Sheet) -> Option<(usize, usize)> {
    (0..sheet.rows.len()).find_map(|r| {
        let c = (sheet.rows.row(r).cells()).position(|cell| matches!(cell, Cell::Digits(_)))?;
        Some((r, c))
    })
}

/// `workbook` as rust_xlsxwriter writes it, each sheet with only the rows `kept` names
/// (one a sheet).
pub(super) fn frame(export: &Export, workbook: &Workbook, kept: &[Kept]) -> Result<Book, String> {
    let mut book = Book::new();
    book.set_zip_compression_level(super::COMPRESSION_LEVEL);
    let properties = DocProperties::new()
        .set_custom_property(COMMIT_PROPERTY, export.commit.as_str())
        .set_custom_property(REGION_PROPERTY, export.region.as_str());
    book.set_properties(&properties);
    for (sheet, kept) in workbook.sheets.iter().zip(kept) {
        // Rows go out as they are written (the library keeps one row, in a temporary
        // file), texts inline: the rows made in pieces are written alike.
        let page = book
            .add_worksheet_with_constant_memory()
            .and_then(|page| page.set_name(&sheet.name))
            .map_err(|e| e.to_string())?;
        write_sheet(page, sheet, &kept.rows).map_err(|e| format!("sheet {}: {e}", sheet.name))?;
    }
    Ok(book)
}

/// The header of `sheet`, its rows `kept` and its looks onto `page`.
fn write_sheet(page: &mut Worksheet, sheet: &Sheet, kept: &[usize]) -> Result<(), String> {
    let as_text = Format::new().set_num_format("@");
    let name = |r: u32, c: u16| {
        let column = rust_xlsxwriter::utility::column_number_to_name(c);
        format!("{column}{}", r + 1)
    };
    // A cell's refusal names the cell.
    let refused = |r: u32, c: u16| {
        move |error: XlsxError| match error {
            XlsxError::MaxStringLengthExceeded => cells::too_long(&name(r, c)),
            other => format!("cell {}: {other}", name(r, c)),
        }
    };
    for (c, header) in sheet.header.iter().enumerate() {
        let c = u16::try_from(c).unwrap_or(u16::MAX);
        page.write_string(0, c, header).map_err(refused(0, c))?;
    }
    for &r in kept {
        let row = sheet.rows.row(r);
        let r = u32::try_from(r + 1).unwrap_or(u32::MAX);
        for (c, cell) in row.cells().enumerate() {
            let c = u16::try_from(c).unwrap_or(u16::MAX);
            match cell {
                Cell::Empty => continue,
                Cell::Number(x) => page.write_number(r, c, x),
                Cell::Bool(b) => page.write_boolean(r, c, b),
                Cell::Text(t) => page.write_string(r, c, t),
                Cell::Digits(t) => page.write_string_with_format(r, c, t, &as_text),
            }
            .map_err(refused(r, c))?;
        }
    }
    looks::apply(page, sheet).map_err(|e| e.to_string())
}
