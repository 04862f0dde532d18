//! An exported sheet's rows: every cell in one run of slots and every text in one
//! string, so that laying out a table of a million cells allocates a few times, not
//! once a cell (a 51,200 × 30 sheet: 32 MB where a vector of cells, each text its own
//! string, took 75 MB).

/// One cell as a spreadsheet holds it, borrowed from the rows that hold it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    Empty,
    Number(f64),
    Bool(bool),
    Text(&'a str),
    /// A number of more significant digits than a spreadsheet keeps (15: Excel and
    /// LibreOffice round `0.30000000000000004` to `0.3` when they save), written as its
    /// canonical text in a cell formatted as text (`@`), which typing reads back exactly.
    Digits(&'a str),
}

/// A cell in the rows: a text is its place in [`Rows::texts`].
#[derive(Debug, Clone, Copy, PartialEq)]
enum Slot {
    Empty,
    Number(f64),
    Bool(bool),
    Text(Span),
    Digits(Span),
}

/// Where a text is in the rows' texts (bytes from `start`, `len` of them).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Span {
    start: u32,
    len: u32,
}

/// Rows of cells of one width.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rows {
    width: usize,
    count: usize,
    slots: Vec<Slot>,
    texts: String,
}

/// The rows' texts came to 4 GiB, more than a spreadsheet holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge;

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("its cells' texts come to 4 GiB or more, more than a spreadsheet holds")
    }
}

impl Rows {
    /// No rows, each of `width` cells; room for `rows` of them and `texts` bytes of text.
    pub(super) fn with_capacity(width: usize, rows: usize, texts: usize) -> Rows {
        Rows {
            width,
            count: 0,
            slots: Vec::with_capacity(width.saturating_mul(rows)),
            texts: String::with_capacity(texts),
        }
    }

    /// The rows given, each of `width` cells (a row shorter is filled with empty
    /// cells, one longer cut).
    pub fn of<'c, R>(width: usize, rows: impl IntoIterator<Item = R>) -> Result<Rows, TooLarge>
    where
        R: IntoIterator<Item = Cell<'c>>,
    {
        let mut all = Rows::with_capacity(width, 0, 0);
        for row in rows {
            for cell in row.into_iter().take(width) {
                all.push(cell)?;
            }
            all.end_row();
        }
        Ok(all)
    }

    /// How many cells a row has.
    pub fn width(&self) -> usize {
        self.width
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Each row's cells, in order.
    pub fn iter(&self) -> impl Iterator<Item = Row<'_>> {
        (0..self.count).map(|r| self.row(r))
    }

    /// Row `r` (from 0) of the rows; past the last, a row of no cells.
    pub fn row(&self, r: usize) -> Row<'_> {
        let from = r.saturating_mul(self.width).min(self.slots.len());
        let to = from.saturating_add(self.width).min(self.slots.len());
        Row {
            slots: &self.slots[from..to],
            texts: &self.texts,
        }
    }

    /// Add a cell to the row being laid out.
    pub(super) fn push(&mut self, cell: Cell<'_>) -> Result<(), TooLarge> {
        match cell {
            Cell::Empty => self.slots.push(Slot::Empty),
            Cell::Number(x) => self.slots.push(Slot::Number(x)),
            Cell::Bool(b) => self.slots.push(Slot::Bool(b)),
            Cell::Text(text) | Cell::Digits(text) => {
                let from = self.texts.len();
                self.texts.push_str(text);
                return self.push_written(from, matches!(cell, Cell::Digits(_)));
            }
        }
        Ok(())
    }

    /// The rows' texts, for a text cell to be written at their end: [`Rows::push_written`]
    /// then makes a cell of what was written since [`Rows::written_from`].
    pub(super) fn texts(&mut self) -> &mut String {
        &mut self.texts
    }

    /// Where a text written next starts.
    pub(super) fn written_from(&self) -> usize {
        self.texts.len()
    }

    /// What was written since `from`.
    pub(super) fn written(&self, from: usize) -> &str {
        self.texts.get(from..).unwrap_or_default()
    }

    /// Add what was written since `from` as a text cell (`digits`: a number kept as text).
    pub(super) fn push_written(&mut self, from: usize, digits: bool) -> Result<(), TooLarge> {
        let span = self.span_from(from)?;
        self.slots.push(if digits {
            Slot::Digits(span)
        } else {
            Slot::Text(span)
        });
        Ok(())
    }

    /// Take back what was written since `from` (the cell is not a text after all).
    pub(super) fn unwrite(&mut self, from: usize) {
        self.texts.truncate(from);
    }

    /// End the row being laid out: it is filled with empty cells to the rows' width.
    pub(super) fn end_row(&mut self) {
        self.count += 1;
        let end = self.count.saturating_mul(self.width);
        if self.slots.len() < end {
            self.slots.resize(end, Slot::Empty);
        }
    }

    fn span_from(&self, from: usize) -> Result<Span, TooLarge> {
        let start = u32::try_from(from).map_err(|_| TooLarge)?;
        let end = u32::try_from(self.texts.len()).map_err(|_| TooLarge)?;
        Ok(Span {
            start,
            len: end - start,
        })
    }
}

/// One row's cells.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    slots: &'a [Slot],
    texts: &'a str,
}

impl<'a> Row<'a> {
    /// Its cells, in order.
    pub fn cells(self) -> impl Iterator<Item = Cell<'a>> {
        self.slots.iter().map(move |slot| self.cell_of(*slot))
    }

    /// Its cell in column `c` (from 0).
    pub fn get(self, c: usize) -> Option<Cell<'a>> {
        self.slots.get(c).map(|slot| self.cell_of(*slot))
    }

    fn cell_of(self, slot: Slot) -> Cell<'a> {
        let text = |span: Span| {
            let start = span.start as usize;
            self.texts
                .get(start..start + span.len as usize)
                .unwrap_or_default()
        };
        match slot {
            Slot::Empty => Cell::Empty,
            Slot::Number(x) => Cell::Number(x),
            Slot::Bool(b) => Cell::Bool(b),
            Slot::Text(span) => Cell::Text(text(span)),
            Slot::Digits(span) => Cell::Digits(text(span)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(rows: &Rows) -> Vec<Vec<Cell<'_>>> {
        rows.iter().map(|row| row.cells().collect()).collect()
    }

    #[test]
    fn rows_keep_their_cells_and_texts_in_place() {
        let mut rows = Rows::with_capacity(3, 2, 16);
        rows.push(Cell::Number(1.5)).unwrap();
        rows.push(Cell::Text("竜の山")).unwrap();
        rows.push(Cell::Bool(true)).unwrap();
        rows.end_row();
        // A short row is filled; a text written in place, and one taken back.
        let from = rows.written_from();
        rows.texts().push_str("0.30000000000000004");
        assert_eq!(rows.written(from), "0.30000000000000004");
        rows.push_written(from, true).unwrap();
        let from = rows.written_from();
        rows.texts().push_str("12");
        rows.unwrite(from);
        rows.push(Cell::Number(12.0)).unwrap();
        rows.end_row();
        // A row of nothing.
        rows.end_row();
        assert_eq!(rows.len(), 3);
        assert_eq!(
            cells(&rows),
            [
                vec![Cell::Number(1.5), Cell::Text("竜の山"), Cell::Bool(true)],
                vec![
                    Cell::Digits("0.30000000000000004"),
                    Cell::Number(12.0),
                    Cell::Empty
                ],
                vec![Cell::Empty; 3],
            ]
        );
        assert_eq!(
            rows.row(1).get(0),
            Some(Cell::Digits("0.30000000000000004"))
        );
        assert_eq!(rows.row(1).get(3), None);
        assert_eq!(rows.row(9).cells().count(), 0);
        let again = Rows::of(3, cells(&rows)).unwrap();
        assert_eq!(cells(&again), cells(&rows));
    }

    #[test]
    fn rows_of_no_columns_still_count() {
        let rows = Rows::of(0, [Vec::<Cell>::new(), vec![Cell::Text("cut")]]).unwrap();
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|row| row.cells().next().is_none()));
    }
}
