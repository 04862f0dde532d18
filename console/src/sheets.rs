//! An uploaded sheet as a grid, its bad cells highlighted with the message beside
//! them: what a diagnostic of the review links to. Read with the same readers an
//! import uses (their limits apply), shown a window of rows at a time — the window
//! holding the mistake asked for, wherever in the sheet it is — with every mistake's
//! row listed to jump to. Every cell as text.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use masterctl_schemas::Diagnostic;
use masterctl_schemas::diagnostic::{column_letters, parse_a1};
use masterctl_schemas::read::Grid;

/// The most rows shown at once, and columns.
const ROWS: usize = 500;
const COLUMNS: usize = 100;
/// Rows shown above the one asked for.
const ABOVE: usize = 10;
/// The most mistakes' rows listed to jump to.
const LISTED: usize = 1000;

/// One cell shown: its text, and the messages of the diagnostics that name it.
pub struct ShownCell {
    pub text: String,
    pub messages: Vec<String>,
}

/// One row: its label as the planner knows it (the sheet's row number, or the CSV
/// line) and its cells.
pub struct ShownRow {
    pub label: u64,
    /// The row asked for ([`Window::At`]).
    pub asked: bool,
    pub cells: Vec<ShownCell>,
}

/// A row with mistakes, to jump to: its label and how many.
pub struct BadRow {
    pub label: u64,
    pub count: usize,
}

/// A window of a sheet: its column letters, its header row (kept above a window that
/// starts lower), the window's rows, where the windows before and after it start
/// (grid rows), and every row with mistakes.
pub struct ShownSheet {
    pub columns: Vec<String>,
    pub header: Option<ShownRow>,
    pub rows: Vec<ShownRow>,
    /// Rows of the sheet (grid rows: its header included).
    pub total: usize,
    pub earlier: Option<usize>,
    pub later: Option<usize>,
    pub bad_rows: Vec<BadRow>,
    /// Rows with mistakes beyond those listed.
    pub more_bad_rows: usize,
}

/// Which rows to show: the window starting at a grid row, or the one holding a row by
/// its label (a diagnostic's).
#[derive(Debug, Clone, Copy)]
pub enum Window {
    From(usize),
    At(u64),
}

/// The sheet `sheet` of the workbook at `path` (the CSV file's only one), with the
/// cells `diagnostics` name marked; `Err` says why it cannot be shown.
pub fn sheet(
    path: &Path,
    sheet: Option<&str>,
    diagnostics: &[Diagnostic],
    window: Window,
) -> Result<ShownSheet, String> {
    // A CSV or tab-separated file (saved in UTF-16 or GBK too), read as validate reads it.
    if masterctl_schemas::read::is_csv(path) {
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let (grid, _) = masterctl_schemas::read::csv::CsvGrid::parse_decoding(&bytes, path)
            .map_err(|d| d.first().map(ToString::to_string).unwrap_or_default())?;
        return Ok(shown(&grid, diagnostics, true, window));
    }
    let wanted = sheet.ok_or("name the sheet")?;
    let mut found = None;
    masterctl_schemas::read::workbook::for_each_sheet(path, |name, grid| {
        if name == wanted {
            found = Some(
                grid.map(|g| shown(g, diagnostics, false, window))
                    .map_err(|d| d.to_string()),
            );
        }
    })
    .map_err(|d| d.to_string())?;
    found.unwrap_or_else(|| Err("the workbook has no such sheet".to_string()))
}

/// A row's label: a workbook's row number (1-based), or a CSV file's line.
fn label(grid: &dyn Grid, row: usize, csv: bool) -> u64 {
    let position = grid.row_position(row);
    if csv { position } else { position + 1 }
}

/// The window of the grid as shown, the cells the diagnostics name marked: a
/// workbook's by their cell (`F6`), a CSV file's by line and column name.
fn shown(grid: &dyn Grid, diagnostics: &[Diagnostic], csv: bool, window: Window) -> ShownSheet {
    let total = grid.height();
    let header_names: Vec<String> = (0..grid.width(0).min(COLUMNS))
        .map(|c| grid.cell(0, c).display())
        .collect();
    let marks = marks(grid, diagnostics, csv, &header_names);
    let start = match window {
        Window::From(row) => row,
        Window::At(wanted) => (0..total)
            .find(|&row| label(grid, row, csv) == wanted)
            .unwrap_or(0)
            .saturating_sub(ABOVE),
    }
    .min(total.saturating_sub(1));
    let end = (start + ROWS).min(total);
    let width = (start..end)
        .chain(std::iter::once(0))
        .map(|r| grid.width(r))
        .max()
        .unwrap_or(0)
        .min(COLUMNS);
    let asked = match window {
        Window::At(wanted) => Some(wanted),
        Window::From(_) => None,
    };
    let row = |r: usize| ShownRow {
        label: label(grid, r, csv),
        asked: asked == Some(label(grid, r, csv)),
        cells: (0..width)
            .map(|column| ShownCell {
                text: grid.cell(r, column).display(),
                messages: marks.get(&(r, column)).cloned().unwrap_or_default(),
            })
            .collect(),
    };
    let mut per_row: BTreeMap<usize, usize> = BTreeMap::new();
    for ((r, _), messages) in &marks {
        *per_row.entry(*r).or_default() += messages.len();
    }
    let bad_rows: Vec<BadRow> = per_row
        .iter()
        .take(LISTED)
        .map(|(&r, &count)| BadRow {
            label: label(grid, r, csv),
            count,
        })
        .collect();
    ShownSheet {
        columns: (0..width)
            .map(|c| column_letters(grid.column_position(c)))
            .collect(),
        header: (start > 0 && total > 0).then(|| row(0)),
        rows: (start..end).map(row).collect(),
        total,
        earlier: (start > 0).then(|| start.saturating_sub(ROWS)),
        later: (end < total).then_some(end),
        more_bad_rows: per_row.len().saturating_sub(bad_rows.len()),
        bad_rows,
    }
}

/// The messages of the diagnostics, by the grid's (row, column) they name.
fn marks(
    grid: &dyn Grid,
    diagnostics: &[Diagnostic],
    csv: bool,
    header: &[String],
) -> HashMap<(usize, usize), Vec<String>> {
    // Where each diagnostic points: (sheet row or CSV line, its column).
    let wanted: Vec<(u64, Option<u32>, &str)> = diagnostics
        .iter()
        .filter_map(|d| {
            let l = &d.location;
            if csv {
                let column = l
                    .field
                    .as_ref()
                    .and_then(|f| header.iter().position(|h| h == f))
                    .map_or(0, |c| grid.column_position(c));
                l.line.map(|line| (line, Some(column), d.message.as_str()))
            } else {
                let (row, column) = l.cell.as_deref().and_then(parse_a1)?;
                Some((u64::from(row), Some(column), d.message.as_str()))
            }
        })
        .collect();
    if wanted.is_empty() {
        return HashMap::new();
    }
    let rows: HashMap<u64, usize> = (0..grid.height())
        .map(|r| (grid.row_position(r), r))
        .collect();
    let mut marks: HashMap<(usize, usize), Vec<String>> = HashMap::new();
    for (position, column, message) in wanted {
        let Some(&row) = rows.get(&position) else {
            continue;
        };
        let at = column
            .and_then(|c| (0..grid.width(row).min(COLUMNS)).find(|&g| grid.column_position(g) == c))
            .unwrap_or(0);
        marks
            .entry((row, at))
            .or_default()
            .push(message.to_string());
    }
    marks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of Excel's “Unicode Text” (UTF-16, tabs) is shown as its cells, each on
    /// its own line's row.
    #[test]
    fn unicode_text_is_shown_as_its_cells() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Scene.txt");
        let text = "#\tId\tAssetName\r\n\t1\tMenu\r\n\t2\t\"Main, 2\"\r\n";
        std::fs::write(&path, masterctl_testing::utf16(text, true)).unwrap();
        let shown = sheet(&path, None, &[], Window::From(0)).unwrap();
        let rows: Vec<(u64, Vec<&str>)> = shown
            .header
            .iter()
            .chain(&shown.rows)
            .map(|r| (r.label, r.cells.iter().map(|c| c.text.as_str()).collect()))
            .collect();
        assert!(rows.contains(&(2, vec!["", "1", "Menu"])), "{rows:?}");
        assert!(rows.contains(&(3, vec!["", "2", "Main, 2"])), "{rows:?}");
    }
}
