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
    /// `text` with its ASCII letters in lower case (the same length, every cell where
    /// it was), made when a search first needs it.
    lower: OnceLock<String>,
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
        Ok(TextGrid::made(schema, rows, text, ends))
    }

    /// A keyed table's cells read straight from its canonical files — `data`, and the
    /// source-language `texts` joined to it by key — as they are written (canonical
    /// text already: [`TextGrid::of`] gives the same grid, without typing a cell).
    /// `None` for what this reading does not cover (a header other than the schema's, a
    /// list's or a singleton's texts, a row of another width): read it typed instead.
    pub fn from_canonical(
        schema: &TableSchema,
        data: &[u8],
        texts: Option<&[u8]>,
    ) -> Option<TextGrid> {
        let width = schema.fields.len();
        let is_text = |f: &usize| schema.fields[*f].ty == FieldType::Text;
        let data_fields: Vec<usize> = (0..width).filter(|f| !is_text(f)).collect();
        let text_fields: Vec<usize> = (0..width).filter(is_text).collect();
        let texts = match (text_fields.is_empty(), texts) {
            (true, _) => None,
            (false, Some(bytes)) if !schema.primary_key.is_empty() => {
                Some(read_texts(schema, &text_fields, bytes)?)
            }
            (false, _) => return None,
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(data);
        let header = reader.byte_headers().ok()?;
        if header.len() != data_fields.len()
            || !header
                .iter()
                .zip(&data_fields)
                .all(|(name, &f)| name == schema.fields[f].name.as_bytes())
        {
            return None;
        }
        // Where each key field stands among the data columns (texts join on them).
        let key_columns = match texts {
            Some(_) => (schema.primary_key.iter())
                .map(|f| data_fields.iter().position(|d| d == f))
                .collect::<Option<Vec<usize>>>()?,
            None => Vec::new(),
        };
        let mut text = String::with_capacity(data.len());
        let mut ends = Vec::new();
        let mut record = csv::StringRecord::new();
        let mut rows = 0;
        let mut key = String::new();
        while reader.read_record(&mut record).ok()? {
            if record.len() != data_fields.len() {
                return None;
            }
            let row_texts = match &texts {
                Some(texts) => {
                    key.clear();
                    for (at, &column) in key_columns.iter().enumerate() {
                        if at > 0 {
                            key.push('\u{1f}');
                        }
                        key.push_str(&record[column]);
                    }
                    texts.get(key.as_str())
                }
                None => None,
            };
            let (mut in_data, mut in_texts) = (0, 0);
            for field in 0..width {
                if is_text(&field) {
                    if let Some(cells) = row_texts {
                        text.push_str(&cells[in_texts]);
                    }
                    in_texts += 1;
                } else {
                    text.push_str(&record[in_data]);
                    in_data += 1;
                }
                ends.push(u32::try_from(text.len()).ok()?);
            }
            rows += 1;
        }
        Some(TextGrid::made(schema, rows, text, ends))
    }

    /// A grid of `rows` rows whose cells end at `ends` in `text`.
    fn made(schema: &TableSchema, rows: usize, text: String, ends: Vec<u32>) -> TextGrid {
        let width = schema.fields.len();
        TextGrid {
            width,
            rows,
            text,
            ends,
            orders: (0..width).map(|_| OnceLock::new()).collect(),
            indexes: (0..width).map(|_| OnceLock::new()).collect(),
            lower: OnceLock::new(),
            numeric: (schema.fields.iter())
                .map(|f| matches!(f.ty, FieldType::Int | FieldType::Float))
                .collect(),
        }
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

/// A language file's texts by their row's key (its cells joined by U+001F), each row's
/// texts in field order; `None` when its header is not the key and the text fields.
fn read_texts(
    schema: &TableSchema,
    text_fields: &[usize],
    bytes: &[u8],
) -> Option<HashMap<String, Vec<String>>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(bytes);
    let keys = schema.primary_key.len();
    let expected: Vec<&str> = (schema.primary_key.iter().chain(text_fields))
        .map(|&f| schema.fields[f].name.as_str())
        .collect();
    let header = reader.headers().ok()?;
    if header.iter().ne(expected.iter().copied()) {
        return None;
    }
    let mut texts = HashMap::new();
    for record in reader.records() {
        let record = record.ok()?;
        if record.len() != expected.len() {
            return None;
        }
        let key = (0..keys)
            .map(|k| &record[k])
            .collect::<Vec<_>>()
            .join("\u{1f}");
        texts.insert(key, record.iter().skip(keys).map(str::to_string).collect());
    }
    Some(texts)
}

impl TextGrid {
    /// Whether each row has a cell — of `column`, or any — holding `needle` (ASCII
    /// letters matched in either case): every match in the table's text found in one
    /// pass, each kept when it lies inside one cell.
    pub fn holding(&self, needle: &str, column: Option<usize>) -> Vec<bool> {
        let mut rows = vec![false; self.rows];
        if needle.is_empty() {
            rows.fill(true);
            return rows;
        }
        let lowered = needle.to_ascii_lowercase();
        let haystack = if needle.bytes().any(|b| b.is_ascii_alphabetic()) {
            self.lower
                .get_or_init(|| self.text.to_ascii_lowercase())
                .as_bytes()
        } else {
            self.text.as_bytes()
        };
        let needle = lowered.as_bytes();
        for start in memchr::memmem::find_iter(haystack, needle) {
            // The cell the match starts in: the first whose end lies beyond it.
            let cell = self.ends.partition_point(|&end| end as usize <= start);
            if cell >= self.ends.len() || start + needle.len() > self.ends[cell] as usize {
                continue;
            }
            if column.is_none_or(|c| cell % self.width == c) {
                rows[cell / self.width] = true;
            }
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use masterctl_schemas::Value;
    use masterctl_schemas::table::{Origin, SourceFormat};

    use super::*;

    /// A grid of two string columns from these rows.
    fn grid(rows: &[[&str; 2]]) -> TextGrid {
        let project = masterctl_schemas::load::load_from_files(
            Some((
                "masterctl.toml".into(),
                "source_language = \"ja\"\nlanguages = [\"ja\"]\n".into(),
            )),
            vec![(
                "schemas/t.toml".into(),
                "name = \"t\"\nprimary_key = [\"a\"]\n\n[[fields]]\nname = \"a\"\ntype = \"string\"\n\n[[fields]]\nname = \"b\"\ntype = \"string\"\noptional = true\n".into(),
            )],
        )
        .unwrap();
        let schema = project.table("t").unwrap();
        let column = |c: usize| {
            rows.iter()
                .map(|r| match r[c] {
                    "" => Value::Null,
                    text => Value::Str(text.into()),
                })
                .collect()
        };
        let table = Table {
            name: "t".into(),
            columns: vec![column(0), column(1)],
            origin: Origin {
                file: "t.csv".into(),
                format: SourceFormat::Csv,
                columns: vec![Some(0), Some(1)],
                rows: (0..rows.len() as u64).collect(),
                vertical: false,
                kept_in: None,
                sheets: None,
            },
        };
        TextGrid::of(schema, &table).unwrap()
    }

    #[test]
    fn a_search_finds_text_inside_one_cell_only_ascii_in_either_case() {
        let g = grid(&[
            ["Iron Sword", "鉄の剣"],
            ["ab", "cd"],
            ["x", ""],
            ["", "SWORDS"],
        ]);
        assert_eq!(g.holding("sword", None), [true, false, false, true]);
        assert_eq!(g.holding("sword", Some(0)), [true, false, false, false]);
        assert_eq!(g.holding("の剣", None), [true, false, false, false]);
        // Across two cells is no match.
        assert_eq!(g.holding("bc", None), [false; 4]);
        assert_eq!(g.holding("", Some(1)), [true; 4]);
        assert_eq!(g.cell(2, 1), "");
        assert_eq!(g.cell(3, 1), "SWORDS");
    }
}
