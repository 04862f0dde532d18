//! An xlsx sheet of rows typed as it is unpacked, a piece of its XML at a time: each
//! piece's cells become a grid that the table's builder takes in turn, so that neither
//! the sheet's XML nor a grid of the whole sheet is ever held. Every column keeps the
//! first piece's origin, so that the builder's columns are one across pieces.
//!
//! What reading in pieces cannot tell as the whole sheet would is read whole instead:
//! a sheet whose first cell marks a column-wise layout (`##column`), one with a value
//! left of the first piece's first column (the whole sheet's columns would begin
//! there), and one a piece of which cannot be read (the whole sheet says exactly what
//! is wrong with it).

use super::sheet_grid::{Tally, cells_grid};
use super::xlsx;
use super::zipped::MAX_PART_BYTES;
use crate::diagnostic::Diagnostic;
use crate::grid::Grid;
use crate::table::Table;
use crate::typing::TableBuilder;

/// About this many bytes of a sheet's XML are read at a time (some 80,000 cells).
pub(super) const PIECE_BYTES: usize = 4 << 20;

/// The bytes a typed value takes in its column.
const VALUE_BYTES: usize = std::mem::size_of::<crate::value::Value>();

/// Sheet `sheet` of `workbook` typed into `builder`'s table a piece at a time; `None`
/// when it is to be read whole instead (see the module's words).
pub(super) fn type_in_pieces(
    workbook: &mut xlsx::Workbook,
    sheet: &str,
    mut builder: TableBuilder<'_>,
    piece_bytes: usize,
) -> Option<(Option<Table>, Vec<Diagnostic>)> {
    let mut tally = Tally::default();
    let mut origin: Option<u32> = None;
    let mut column_wise = false;
    let mut foreseen = false;
    let read = workbook.sheet_in_pieces(sheet, piece_bytes, &mut |cells, (through, size)| {
        let grid = cells_grid(cells, origin, &mut tally)?;
        if origin.is_none() {
            if grid.height() == 0 {
                // No value yet: the first piece holding one sets the origin.
                return Ok(true);
            }
            origin = Some(grid.column_position(0));
            if crate::vertical::is_marker(grid.cell(0, 0)) {
                column_wise = true;
                return Ok(false);
            }
        }
        builder.push_rows(&grid);
        // The table's rows foreseen from the first piece's, with a little to spare: its
        // columns are made once, not copied each time they outgrow their place.
        if !std::mem::replace(&mut foreseen, true) && through > 0 && (through as u64) < size {
            let held = builder.row_count();
            let rows = usize::try_from(held as u64 * size / through as u64).unwrap_or(0);
            // Never more room than a part's worth of values: a first piece of short
            // rows before long ones foresees too many.
            let most = MAX_PART_BYTES as usize / (builder.width().max(1) * VALUE_BYTES);
            builder.reserve((rows + rows / 32).min(most).saturating_sub(held));
        }
        Ok(true)
    });
    let moved = origin.is_some_and(|origin| tally.first.1 < origin);
    if read.is_err() || column_wise || moved {
        return None;
    }
    Some(builder.finish())
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::grid::Cell;
    use crate::read::sheet_grid::{SheetGrid, xlsx_grid};
    use crate::table::SourceFormat;

    fn open(path: &Path) -> Option<xlsx::Workbook> {
        let file = std::fs::File::open(path).ok()?;
        let archive = zip::ZipArchive::new(std::io::BufReader::new(file)).ok()?;
        xlsx::Workbook::of(archive).ok().flatten()
    }

    /// Every value of a grid at its place in the sheet.
    fn cells_of(grid: &SheetGrid<'_>, into: &mut Vec<(u64, u32, String)>) {
        for row in 0..grid.height() {
            for column in 0..grid.width(row) {
                let cell = grid.cell(row, column);
                if cell != Cell::Empty {
                    let at = (grid.row_position(row), grid.column_position(column));
                    into.push((at.0, at.1, format!("{cell:?}")));
                }
            }
        }
    }

    fn workbooks(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                workbooks(&path, found);
            } else if path.extension().is_some_and(|e| e == "xlsx" || e == "xlsm") {
                found.push(path);
            }
        }
    }

    /// Every sheet of every workbook the repository holds, read in pieces of a few
    /// hundred bytes (cut wherever a row ends), is the sheet read whole, value for
    /// value and place for place — or, where it could not be (a value left of the first
    /// piece's first column), it is read whole.
    #[test]
    fn a_sheet_read_in_pieces_is_the_sheet_read_whole() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let mut found = Vec::new();
        workbooks(&root, &mut found);
        assert!(found.len() > 100, "{found:?}");
        let mut sheets = 0;
        for path in &found {
            let Some(mut workbook) = open(path) else {
                continue;
            };
            for sheet in workbook.sheet_names() {
                let whole = workbook.sheet_xml(&sheet).and_then(|xml| {
                    let grid = xlsx_grid(workbook.cells(&xml)?)?;
                    let mut cells = Vec::new();
                    cells_of(&grid, &mut cells);
                    Ok(cells)
                });
                let (mut tally, mut origin, mut pieces) = (Tally::default(), None, Vec::new());
                let read = workbook.sheet_in_pieces(&sheet, 300, &mut |cells, _| {
                    let grid = cells_grid(cells, origin, &mut tally)?;
                    if origin.is_none() && grid.height() > 0 {
                        origin = Some(grid.column_position(0));
                    }
                    cells_of(&grid, &mut pieces);
                    Ok(true)
                });
                let where_ = format!("{} ({sheet})", path.display());
                let moved = origin.is_some_and(|o| tally.first.1 < o);
                match (whole, read) {
                    // Read whole instead: whatever the whole sheet is.
                    (_, Ok(())) if moved => {}
                    (Ok(whole), Ok(())) => {
                        assert_eq!(whole, pieces, "{where_}");
                        sheets += 1;
                    }
                    (Err(e), Ok(())) => panic!("{where_}: read in pieces, but not whole: {e}"),
                    (Ok(_), Err(e)) => panic!("{where_}: read whole, but not in pieces: {e}"),
                    (Err(_), Err(_)) => {}
                }
            }
        }
        assert!(sheets > 200, "{sheets} sheets compared");
    }

    /// A sheet typed a piece at a time is the sheet typed whole: its comment and empty
    /// rows, a list going on in the rows below its record, a wrong value and a value
    /// under no header far down, each said at its cell.
    #[test]
    fn a_sheet_typed_in_pieces_is_the_sheet_typed_whole() {
        let schema = "primary_key = [\"id\"]\nfields = [\n  { name = \"id\", type = \"int\" },\n  { name = \"name\", type = \"string\" },\n  { name = \"tags\", type = \"list<string>\", optional = true, multi_row = true },\n  { name = \"price\", type = \"int\", min = 0 },\n]\n";
        let project = crate::load::load_from_files(
            None,
            vec![(PathBuf::from("schemas/thing.toml"), schema.to_string())],
        )
        .unwrap();
        let schema = project.table("thing").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("thing.xlsx");
        let mut book = rust_xlsxwriter::Workbook::new();
        let sheet = book.add_worksheet().set_name("thing").unwrap();
        sheet
            .write_string(0, 1, "a title above the header")
            .unwrap();
        for (column, name) in ["id", "name", "tags", "price"].iter().enumerate() {
            sheet.write_string(2, column as u16 + 1, *name).unwrap();
        }
        let mut row = 3u32;
        for id in 1..=3_000u32 {
            row += 1;
            let c = |column: u16| column + 1;
            if id % 500 == 0 {
                sheet.write_string(row, c(0), "# a comment row").unwrap();
                row += 2;
            }
            sheet.write_number(row, c(0), f64::from(id)).unwrap();
            sheet
                .write_string(row, c(1), format!("thing {id}"))
                .unwrap();
            sheet.write_string(row, c(2), "a").unwrap();
            match id {
                1_777 => sheet.write_string(row, c(3), "cheap").unwrap(),
                2_888 => sheet.write_number(row, c(3), -1.0).unwrap(),
                _ => sheet.write_number(row, c(3), f64::from(id)).unwrap(),
            };
            if id % 7 == 0 {
                row += 1;
                sheet.write_string(row, c(2), "b|c").unwrap();
            }
            if id == 2_999 {
                sheet.write_string(row, c(5), "under no header").unwrap();
            }
        }
        book.save(&path).unwrap();
        let format = SourceFormat::Workbook {
            sheet: "thing".into(),
        };
        let builder = || TableBuilder::new(schema, &path, format.clone());
        let mut workbook = open(&path).unwrap();
        let xml = workbook.sheet_xml("thing").unwrap();
        let grid = xlsx_grid(workbook.cells(&xml).unwrap()).unwrap();
        let whole = crate::typing::build_table(builder(), &grid);
        for piece_bytes in [1_000, 50_000, PIECE_BYTES] {
            let pieces = type_in_pieces(&mut workbook, "thing", builder(), piece_bytes).unwrap();
            assert_eq!(pieces.0, whole.0, "{piece_bytes}");
            assert_eq!(pieces.1, whole.1, "{piece_bytes}");
        }
        assert_eq!(whole.0.as_ref().map(Table::row_count), Some(3_000));
        assert_eq!(whole.1.len(), 3, "{:#?}", whole.1);
    }
}
