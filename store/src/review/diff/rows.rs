//! Two canonical CSV files of one table, compared row by row: rows matched by their key
//! columns, equal rows passed over byte for byte, and only the rows that differ taken
//! apart cell by cell.

use std::collections::HashMap;

use masterctl_schemas::value::KeyHash;

use csv::ByteRecord;

/// One file's rows: its header and records, every cell's bytes packed in one buffer
/// (a million-row file is a few allocations, not a few per row).
pub struct Rows {
    pub header: Vec<String>,
    /// Every cell's bytes, record after record.
    bytes: Vec<u8>,
    /// Where each cell ends in `bytes`; record `r` is cells `r * width ..` (32 bits:
    /// files are at most [`LIMIT`] bytes).
    ends: Vec<u32>,
    width: usize,
    records: usize,
}

/// The largest canonical file diff and blame compare and a join (rebase, merge, pull)
/// merges: both (or three) versions of a table are held at once, each about twice its
/// size.
pub const LIMIT: u64 = 256 << 20;

/// Why a file of `size` bytes is not compared.
pub fn too_large(what: &str, size: u64) -> String {
    format!(
        "{what} is {size} bytes; diff, blame and a merge (rebase, merge, pull) take canonical files of up to {} MiB (compare it with `git diff --stat` instead, and split the table)",
        LIMIT >> 20
    )
}

impl Rows {
    /// No records, under `header`.
    pub fn empty(header: &[String]) -> Rows {
        Rows {
            header: header.to_vec(),
            bytes: Vec::new(),
            ends: Vec::new(),
            width: header.len(),
            records: 0,
        }
    }

    /// Read a canonical (or hand-edited) CSV file; `what` names it in an error (a record
    /// of another width than the header is one).
    pub fn read(bytes: &[u8], what: &str) -> Result<Rows, String> {
        if bytes.len() as u64 > LIMIT {
            return Err(too_large(what, bytes.len() as u64));
        }
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .from_reader(bytes);
        let header: Vec<String> = reader
            .byte_headers()
            .map_err(|e| format!("{what}: {e}"))?
            .iter()
            .map(|h| String::from_utf8_lossy(h).into_owned())
            .collect();
        let mut rows = Rows::empty(&header);
        rows.bytes.reserve(bytes.len());
        let mut record = ByteRecord::new();
        loop {
            match reader.read_byte_record(&mut record) {
                Ok(true) => {
                    for field in record.iter() {
                        rows.bytes.extend_from_slice(field);
                        // At most LIMIT bytes: fits.
                        rows.ends.push(rows.bytes.len() as u32);
                    }
                    rows.records += 1;
                }
                Ok(false) => break,
                Err(e) => return Err(format!("{what}: {e}")),
            }
        }
        Ok(rows)
    }

    /// How many records.
    pub fn len(&self) -> usize {
        self.records
    }

    /// Cell `column` of record `row`, as bytes.
    pub fn field(&self, row: usize, column: usize) -> &[u8] {
        let at = row * self.width + column;
        let start = if at == 0 {
            0
        } else {
            self.ends[at - 1] as usize
        };
        &self.bytes[start..self.ends[at] as usize]
    }

    /// All of record `row`'s bytes (its cells back to back) and their ends: equal for two
    /// records of one header exactly when their cells are.
    fn record(&self, row: usize) -> (&[u8], &[u32]) {
        let first = row * self.width;
        let start = if first == 0 { 0 } else { self.ends[first - 1] };
        let ends = &self.ends[first..first + self.width];
        let end = ends.last().copied().unwrap_or(start);
        (&self.bytes[start as usize..end as usize], ends)
    }

    /// The index of each named column, or `None` when one is missing.
    pub fn columns(&self, names: &[String]) -> Option<Vec<usize>> {
        names
            .iter()
            .map(|n| self.header.iter().position(|h| h == n))
            .collect()
    }

    /// The key of record `row`: its one key cell, or the key's cells joined by a unit
    /// separator.
    pub fn key(&self, row: usize, columns: &[usize]) -> std::borrow::Cow<'_, [u8]> {
        if let [column] = columns {
            return self.field(row, *column).into();
        }
        let mut key = Vec::new();
        for (i, &c) in columns.iter().enumerate() {
            if i > 0 {
                key.push(0x1f);
            }
            key.extend_from_slice(self.field(row, c));
        }
        key.into()
    }

    /// Cell `column` of record `row`, as text.
    pub fn cell(&self, row: usize, column: usize) -> String {
        String::from_utf8_lossy(self.field(row, column)).into_owned()
    }

    /// The cells of a key, as text.
    pub fn key_cells(&self, row: usize, columns: &[usize]) -> Vec<String> {
        columns.iter().map(|&c| self.cell(row, c)).collect()
    }
}

/// What happened to one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowEvent {
    Added(usize),
    Removed(usize),
    /// Old row, new row, and the columns whose cells differ.
    Changed(usize, usize, Vec<Column>),
}

/// A column both files have: its name and its index in each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub old: usize,
    pub new: usize,
}

/// Each row's key, and the row.
fn index<'k>(keys: &'k [std::borrow::Cow<'_, [u8]>]) -> HashMap<&'k [u8], usize, KeyHash> {
    keys.iter()
        .enumerate()
        .map(|(i, k)| (k.as_ref(), i))
        .collect()
}

/// The rows of `old` and `new` matched by their key columns (`old_key`, `new_key`), in
/// file order (a canonical file is sorted by its key, so the events come in key order).
/// Cells compare by column name over the columns both headers have.
pub fn diff_rows(old: &Rows, new: &Rows, old_key: &[usize], new_key: &[usize]) -> Vec<RowEvent> {
    let old_keys: Vec<_> = (0..old.len()).map(|r| old.key(r, old_key)).collect();
    let new_keys: Vec<_> = (0..new.len()).map(|r| new.key(r, new_key)).collect();
    // Each side's keys by row, built only when the two files stop walking in step (rows
    // added, removed or out of order): most diffs of canonical files never need them.
    let in_old = std::cell::OnceCell::new();
    let in_new = std::cell::OnceCell::new();
    let shared = shared_columns(old, new);
    let same_shape = old.header == new.header;
    let compare = |o: usize, n: usize| -> Option<RowEvent> {
        if same_shape && equal_records(old.record(o), new.record(n)) {
            return None;
        }
        changed(old, new, &shared, o, n)
    };
    let mut events = Vec::new();
    let mut matched_old = vec![false; old.len()];
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        if i < old.len() && matched_old[i] {
            i += 1;
            continue;
        }
        match (old_keys.get(i), new_keys.get(j)) {
            (Some(a), Some(b)) if a == b => {
                matched_old[i] = true;
                events.extend(compare(i, j));
                i += 1;
                j += 1;
            }
            (Some(a), _)
                if !in_new
                    .get_or_init(|| index(&new_keys))
                    .contains_key(a.as_ref()) =>
            {
                events.push(RowEvent::Removed(i));
                i += 1;
            }
            (_, Some(b)) => match in_old.get_or_init(|| index(&old_keys)).get(b.as_ref()) {
                None => {
                    events.push(RowEvent::Added(j));
                    j += 1;
                }
                // Out of order (a file not sorted as a canonical one is): matched anyway.
                Some(&o) => {
                    matched_old[o] = true;
                    events.extend(compare(o, j));
                    j += 1;
                }
            },
            (Some(_), None) => {
                // Its key is in `new` but was matched already (a duplicate key).
                events.push(RowEvent::Removed(i));
                i += 1;
            }
            (None, None) => break,
        }
    }
    events
}

/// The rows of two versions of a list (a table without a key) matched by place: the
/// longest run of rows both have unchanged, in order, is matched first (as `git diff`
/// matches lines); between two matched rows, the rows each side has there are paired
/// in order (changed), and what one side has more is added or removed. So a row
/// inserted in the middle is one row added, not every row after it changed.
pub fn diff_positions(old: &Rows, new: &Rows) -> Vec<RowEvent> {
    let shared = shared_columns(old, new);
    let text = |rows: &Rows, row: usize, side_of: fn(&Column) -> usize| -> Vec<u8> {
        let mut bytes = Vec::new();
        for column in &shared {
            bytes.extend_from_slice(rows.field(row, side_of(column)));
            bytes.push(0x1f);
        }
        bytes
    };
    let hash = |bytes: Vec<u8>| -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(bytes)
    };
    let old_rows: Vec<u64> = (0..old.len())
        .map(|r| hash(text(old, r, |c| c.old)))
        .collect();
    let new_rows: Vec<u64> = (0..new.len())
        .map(|r| hash(text(new, r, |c| c.new)))
        .collect();
    let compare = |o: usize, n: usize| changed(old, new, &shared, o, n);
    let mut events = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_rows, &new_rows) {
        let (_, old_range, new_range) = op.as_tag_tuple();
        if let similar::DiffTag::Equal = op.tag() {
            // Equal hashes: compared anyway, so that a collision is a change, not lost.
            events.extend(old_range.zip(new_range).filter_map(|(o, n)| compare(o, n)));
            continue;
        }
        let paired = old_range.len().min(new_range.len());
        for (o, n) in old_range.clone().zip(new_range.clone()) {
            events.extend(compare(o, n));
        }
        events.extend(old_range.skip(paired).map(RowEvent::Removed));
        events.extend(new_range.skip(paired).map(RowEvent::Added));
    }
    events
}

/// Row `o` of `old` and row `n` of `new` compared over the columns both have: the
/// columns whose cells differ, if any.
fn changed(old: &Rows, new: &Rows, shared: &[Column], o: usize, n: usize) -> Option<RowEvent> {
    let changed: Vec<Column> = shared
        .iter()
        .filter(|c| old.field(o, c.old) != new.field(n, c.new))
        .cloned()
        .collect();
    (!changed.is_empty()).then_some(RowEvent::Changed(o, n, changed))
}

/// The columns both files have, by name, in the new file's order.
fn shared_columns(old: &Rows, new: &Rows) -> Vec<Column> {
    new.header
        .iter()
        .enumerate()
        .filter_map(|(n, name)| {
            let o = old.header.iter().position(|h| h == name)?;
            Some(Column {
                name: name.clone(),
                old: o,
                new: n,
            })
        })
        .collect()
}

/// Whether two records' cells are equal: the same bytes, cut at the same places
/// (relative to where each record starts).
fn equal_records((a, a_ends): (&[u8], &[u32]), (b, b_ends): (&[u8], &[u32])) -> bool {
    let start = |ends: &[u32], bytes: &[u8]| ends.last().map_or(0, |e| e - bytes.len() as u32);
    let (a_start, b_start) = (start(a_ends, a), start(b_ends, b));
    a == b
        && a_ends.len() == b_ends.len()
        && a_ends
            .iter()
            .zip(b_ends)
            .all(|(x, y)| x - a_start == y - b_start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, old: usize, new: usize) -> Column {
        Column {
            name: name.into(),
            old,
            new,
        }
    }

    fn rows(text: &str) -> Rows {
        Rows::read(text.as_bytes(), "test").unwrap()
    }

    /// The events of two files keyed by their first column.
    fn by_first_column(old: &str, new: &str) -> Vec<RowEvent> {
        diff_rows(&rows(old), &rows(new), &[0], &[0])
    }

    #[test]
    fn rows_are_matched_by_key_and_only_differing_cells_named() {
        assert_eq!(
            by_first_column(
                "id,name,price\n1,a,10\n2,b,20\n3,c,30\n",
                "id,name,price\n1,a,10\n3,c,35\n4,d,40\n"
            ),
            vec![
                RowEvent::Removed(1),
                RowEvent::Changed(2, 1, vec![column("price", 2, 2)]),
                RowEvent::Added(2),
            ]
        );
    }

    /// Rows out of key order (a file not written as a canonical one) still match by key.
    #[test]
    fn rows_out_of_order_are_matched_by_key() {
        let old = "id,price\n1,10\n2,20\n3,30\n";
        assert_eq!(
            by_first_column(old, "id,price\n3,30\n1,11\n2,20\n"),
            vec![RowEvent::Changed(0, 1, vec![column("price", 1, 1)])]
        );
        assert_eq!(by_first_column(old, old), vec![]);
    }

    #[test]
    fn list_rows_are_matched_by_place_around_what_both_have() {
        let old = rows("item,count\n1,10\n2,20\n3,30\n4,40\n");
        // A row inserted second, the third changed, the last removed.
        let new = rows("item,count\n1,10\n9,90\n2,20\n3,35\n");
        assert_eq!(
            diff_positions(&old, &new),
            vec![
                RowEvent::Added(1),
                RowEvent::Changed(2, 3, vec![column("count", 1, 1)]),
                RowEvent::Removed(3),
            ]
        );
        // Repeated rows are rows like any other.
        let old = rows("item,count\n1,1\n1,1\n");
        let new = rows("item,count\n1,1\n1,1\n1,1\n");
        assert_eq!(diff_positions(&old, &new), vec![RowEvent::Added(2)]);
    }

    #[test]
    fn headers_that_differ_compare_the_columns_both_have() {
        let old = rows("id,name,price\n1,a,10\n");
        let new = rows("id,price,rarity\n1,12,rare\n");
        let events = diff_rows(&old, &new, &[0], &[0]);
        assert_eq!(
            events,
            vec![RowEvent::Changed(0, 0, vec![column("price", 2, 1)])]
        );
        // Quoted cells with commas and line breaks are cells like any other.
        let old = rows("id,note\n1,\"a,\nb\"\n");
        let new = rows("id,note\n1,\"a,\nc\"\n");
        assert_eq!(
            diff_rows(&old, &new, &[0], &[0]),
            vec![RowEvent::Changed(0, 0, vec![column("note", 1, 1)])]
        );
    }
}
