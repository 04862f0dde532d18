//! An uploaded sheet as a grid, its bad cells highlighted with the message beside
//! them: what a diagnostic of the review links to. Read with the same readers an
//! import uses (their limits apply), shown bounded, every cell as text.

use std::path::Path;

use masterctl_schemas::Diagnostic;
use masterctl_schemas::diagnostic::{column_letters, parse_a1};
use masterctl_schemas::read::Grid;

/// The most rows and columns shown of a sheet.
const ROWS: usize = 1000;
const COLUMNS: usize = 100;

/// One cell shown: its text, and the messages of the diagnostics that name it.
pub struct ShownCell {
    pub text: String,
    pub messages: Vec<String>,
}

/// One row: its label as the planner knows it (the sheet's row number, or the CSV
/// line) and its cells.
pub struct ShownRow {
    pub label: u64,
    pub cells: Vec<ShownCell>,
}

/// A sheet: its column letters and rows, cut at the bounds (`more`: rows left out).
pub struct ShownSheet {
    pub columns: Vec<String>,
    pub rows: Vec<ShownRow>,
    pub more: usize,
}

/// The sheet `sheet` of the workbook at `path` (the CSV file's only one), with the
/// cells `diagnostics` name marked; `Err` says why it cannot be shown.
pub fn sheet(
    path: &Path,
    sheet: Option<&str>,
    diagnostics: &[Diagnostic],
) -> Result<ShownSheet, String> {
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    if is_csv {
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let grid = masterctl_schemas::read::csv::CsvGrid::parse(&bytes, path)
            .map_err(|d| d.first().map(ToString::to_string).unwrap_or_default())?;
        return Ok(shown(&grid, diagnostics, true));
    }
    let wanted = sheet.ok_or("name the sheet")?;
    let mut found = None;
    masterctl_schemas::read::workbook::for_each_sheet(path, |name, grid| {
        if name == wanted {
            found = Some(
                grid.map(|g| shown(g, diagnostics, false))
                    .map_err(|d| d.to_string()),
            );
        }
    })
    .map_err(|d| d.to_string())?;
    found.unwrap_or_else(|| Err("the workbook has no such sheet".to_string()))
}

/// The grid as shown, the cells the diagnostics name marked: a workbook's by their
/// cell (`F6`), a CSV file's by line and column name.
fn shown(grid: &dyn Grid, diagnostics: &[Diagnostic], csv: bool) -> ShownSheet {
    let height = grid.height();
    let width = (0..height.min(ROWS))
        .map(|r| grid.width(r))
        .max()
        .unwrap_or(0)
        .min(COLUMNS);
    let header: Vec<String> = (0..grid.width(0).min(COLUMNS))
        .map(|c| grid.cell(0, c).display())
        .collect();
    let mut rows = Vec::new();
    for row in 0..height.min(ROWS) {
        let position = grid.row_position(row);
        let mut cells: Vec<ShownCell> = (0..width)
            .map(|column| ShownCell {
                text: grid.cell(row, column).display(),
                messages: Vec::new(),
            })
            .collect();
        for d in diagnostics {
            let l = &d.location;
            let at = if csv {
                match l.line {
                    Some(line) if line == position => l
                        .field
                        .as_ref()
                        .and_then(|f| header.iter().position(|h| h == f))
                        .or(Some(0)),
                    _ => None,
                }
            } else {
                l.cell
                    .as_deref()
                    .and_then(parse_a1)
                    .filter(|(r, _)| u64::from(*r) == position)
                    .and_then(|(_, c)| (0..width).find(|&g| grid.column_position(g) == c))
            };
            if let Some(column) = at
                && let Some(cell) = cells.get_mut(column)
            {
                cell.messages.push(d.message.clone());
            }
        }
        rows.push(ShownRow {
            label: if csv { position } else { position + 1 },
            cells,
        });
    }
    ShownSheet {
        columns: (0..width)
            .map(|c| column_letters(grid.column_position(c)))
            .collect(),
        rows,
        more: height.saturating_sub(ROWS),
    }
}
