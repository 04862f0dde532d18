//! A sheet turned to the vertical layout (`layout = "vertical"`): its first cell the
//! marker `##column`, then each column of the laid-out sheet a row — its header down the
//! first column, each record's value in a column beside it — as Luban's `##column`
//! sheets and a studio's constants sheet are written, and as import reads them back.
//!
//! A column's looks become its row's: its note on its name, its drop-down over the
//! row's records; the columns are sized anew.

use std::borrow::Cow;

use masterctl_schemas::schema::Layout;

use super::looks::Look;
use super::rows::{Cell, Rows, TooLarge};
use super::{Sheet, Workbook};

/// What the first cell of a vertical sheet says: the layout import reads it by.
const MARKER: &str = "##column";

/// `workbook` as a spreadsheet lays it out: each sheet of the vertical layout turned
/// (one of more records than a sheet has columns stays in rows); the workbook itself
/// when none is.
pub(super) fn laid_out(workbook: &Workbook) -> Result<Cow<'_, Workbook>, TooLarge> {
    if workbook.sheets.iter().all(|s| s.layout == Layout::Rows) {
        return Ok(Cow::Borrowed(workbook));
    }
    let mut sheets = Vec::with_capacity(workbook.sheets.len());
    for sheet in &workbook.sheets {
        sheets.push(turned(sheet)?.unwrap_or_else(|| sheet.clone()));
    }
    Ok(Cow::Owned(Workbook {
        path: workbook.path.clone(),
        sourced: workbook.sourced,
        sheets,
    }))
}

/// `sheet` turned vertical; `None` when it is not to be ([`Sheet::turns`]).
fn turned(sheet: &Sheet) -> Result<Option<Sheet>, TooLarge> {
    if !sheet.turns() {
        return Ok(None);
    }
    let width = sheet.rows.len() + 1;
    let columns = sheet.header.len();
    let mut rows = Rows::with_capacity(width, columns, 0);
    for (column, name) in sheet.header.iter().enumerate() {
        rows.push(Cell::Text(name))?;
        for record in sheet.rows.iter() {
            rows.push(record.get(column).unwrap_or(Cell::Empty))?;
        }
        rows.end_row();
    }
    let mut header = vec![String::new(); width];
    header[0] = MARKER.to_string();
    let mut turned = Sheet {
        table: sheet.table.clone(),
        name: sheet.name.clone(),
        header,
        rows,
        looks: vec![Look::default(); width],
        // Turned: written as it is now, each row with its field's looks.
        layout: Layout::Rows,
        row_looks: sheet.looks.clone(),
    };
    super::looks::size(&mut turned);
    Ok(Some(turned))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each column becomes a row, its header first; a sheet of more records than a
    /// sheet has columns stays as it is.
    #[test]
    fn a_sheet_is_turned_a_column_a_row() {
        let sheet = |records: usize| Sheet {
            table: "t".into(),
            name: "t".into(),
            header: vec!["id".into(), "name".into()],
            rows: Rows::of(
                2,
                (0..records).map(|r| [Cell::Number(r as f64), Cell::Text("x")]),
            )
            .unwrap(),
            looks: vec![Look::default(); 2],
            layout: Layout::Vertical,
            row_looks: Vec::new(),
        };
        let down = turned(&sheet(2)).unwrap().unwrap();
        assert_eq!(down.header, ["##column", "", ""]);
        let cells: Vec<Vec<Cell<'_>>> = down.rows.iter().map(|r| r.cells().collect()).collect();
        assert_eq!(
            cells,
            [
                vec![Cell::Text("id"), Cell::Number(0.0), Cell::Number(1.0)],
                vec![Cell::Text("name"), Cell::Text("x"), Cell::Text("x")],
            ]
        );
        assert_eq!(down.layout, Layout::Rows);
        assert!(
            turned(&sheet(super::super::MOST_COLUMNS))
                .unwrap()
                .is_none()
        );
    }
}
