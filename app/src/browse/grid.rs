//! One table's cells as text — what a page shows — held compactly (one string, the
//! cells' ends), with the orders and key indexes pages ask for made once per column
//! and kept with it.

use std::collections::HashMap;
use std::sync::OnceLock;

use masterctl_schemas::{FieldType, Table, TableSchema};

/// A table's cells as canonical text, row by row.
pub struct TextGrid {
    width: usize,
    rows: usize,
    text: String,
    /// Each cell's end in `text`; a cell starts where the one before it ends.
    ends: Vec<u32>,
    /// Rows in each column's ascending order, made when first asked for.
    orders: Vec<OnceLock<Vec<u32>>>,
    /// Each column's cells to the first row holding them, made when first asked for.
    indexes: Vec<OnceLock<HashMap<Box<str>, u32>>>,
    numeric: Vec<bool>,
}

/// A table too large to hold as one grid (4 GiB of text).
#[derive(Debug)]
pub struct TooLarge;

impl TextGrid {
    /// `table`'s cells as text (a null is empty).
    pub fn of(schema: &TableSchema, table: &Table) -> Result<TextGrid, TooLarge> {
        let width = table.columns.len();
        let rows = table.row_count();
        let mut text = String::new();
        let mut ends = Vec::with_capacity(width * rows);
        for row in 0..rows {
            for column in &table.columns {
                let value = &column[row];
                if !value.is_null() {
                    text.push_str(&value.canonical());
                }
                ends.push(u32::try_from(text.len()).map_err(|_| TooLarge)?);
            }
        }
        let numeric = (schema.fields.iter())
            .map(|f| matches!(f.ty, FieldType::Int | FieldType::Float))
            .collect();
        Ok(TextGrid {
            width,
            rows,
            text,
            ends,
            orders: (0..width).map(|_| OnceLock::new()).collect(),
            indexes: (0..width).map(|_| OnceLock::new()).collect(),
            numeric,
        })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The text of one cell.
    pub fn cell(&self, row: usize, column: usize) -> &str {
        let at = row * self.width + column;
        let start = match at {
            0 => 0,
            at => self.ends[at - 1] as usize,
        };
        &self.text[start..self.ends[at] as usize]
    }

    /// The rows in `column`'s ascending order: numbers by value (empty cells first),
    /// other cells by their text; equal cells in row order.
    pub fn order(&self, column: usize) -> &[u32] {
        self.orders[column].get_or_init(|| {
            let mut rows: Vec<u32> = (0..self.rows as u32).collect();
            if self.numeric[column] {
                let number = |row: u32| {
                    let cell = self.cell(row as usize, column);
                    (!cell.is_empty()).then(|| cell.parse::<f64>().unwrap_or(f64::NAN))
                };
                let keys: Vec<Option<f64>> = rows.iter().map(|&r| number(r)).collect();
                rows.sort_by(|&a, &b| {
                    let (a, b) = (keys[a as usize], keys[b as usize]);
                    match (a, b) {
                        (Some(a), Some(b)) => a.total_cmp(&b),
                        (a, b) => a.is_some().cmp(&b.is_some()),
                    }
                });
            } else {
                rows.sort_by(|&a, &b| {
                    self.cell(a as usize, column)
                        .cmp(self.cell(b as usize, column))
                });
            }
            rows
        })
    }

    /// The first row whose `column` holds exactly `text`.
    pub fn find(&self, column: usize, text: &str) -> Option<usize> {
        let index = self.indexes[column].get_or_init(|| {
            let mut index = HashMap::with_capacity(self.rows);
            for row in (0..self.rows).rev() {
                index.insert(self.cell(row, column).into(), row as u32);
            }
            index
        });
        index.get(text).map(|&row| row as usize)
    }
}

/// `haystack` holds `needle`, ASCII letters matched in either case.
pub fn holds(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    n.is_empty() || (h.len() >= n.len() && h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n)))
}

#[cfg(test)]
mod tests {
    use super::holds;

    #[test]
    fn holding_matches_ascii_in_either_case_and_other_text_exactly() {
        assert!(holds("Iron Sword", "sword"));
        assert!(holds("鉄の剣", "の剣"));
        assert!(!holds("鉄の剣", "鋼"));
        assert!(holds("abc", ""));
        assert!(!holds("ab", "abc"));
    }
}
