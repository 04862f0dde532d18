//! The archive format: what `masterctl build` writes and this crate maps. Every file is
//! one rkyv archive of [`ArchiveFile`]; its `version` is checked before anything else.
//!
//! Tables are columnar. Rows are stored in primary-key order (so a key lookup is a
//! binary search), each column as one typed vector with a null bitmap (empty when the
//! column has no null); list columns add offsets into a flat vector of elements.
//! Secondary indexes are row permutations sorted by the index fields, then `order_by`,
//! then the primary key. Texts live in separate files per language, aligned with the
//! table's rows.

use rkyv::{Archive, Serialize};

/// The archive format's version; a build of another version is refused at open.
pub const FORMAT_VERSION: u32 = 3;

/// One file of a build.
#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
pub struct ArchiveFile {
    pub version: u32,
    pub identity: Identity,
    pub body: Body,
}

/// What a file is, carried inside it and checked against the manifest at open: a file
/// swapped for another, or renamed in the manifest, never loads as something else.
#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
pub struct Identity {
    /// The manifest's kind (`table`, `strings`, `reverse`...).
    pub kind: String,
    /// The table or generated master.
    pub name: String,
    /// For strings: the language.
    pub language: Option<String>,
    /// The build's schema hash (the manifest's `schema_hash`).
    pub schema_hash: String,
}

/// What a file holds.
#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
pub enum Body {
    /// A table, or a reverse lookup (a table with an index on its target key).
    Table(TableData),
    /// One language's texts of a table.
    Strings(StringsData),
    /// Rows of a table grouped by key fields, ordered inside each group.
    Group(GroupData),
    /// Per group, rows with cumulative weights, for weighted draws.
    Weighted(WeightedData),
    /// A dense table over two enums.
    Matrix(MatrixData),
}

/// A table's rows, in primary-key order.
#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
pub struct TableData {
    pub name: String,
    pub rows: u32,
    pub columns: Vec<ColumnData>,
    /// Column indexes of the primary key, in key order (empty: no key lookups).
    pub primary_key: Vec<u32>,
    pub indexes: Vec<IndexData>,
    /// For a single integer primary key: an open-addressing hash table of row ids
    /// (`u32::MAX` = empty slot; a power-of-two length at least twice the rows; slot
    /// [`key_slot`] and then the next ones). Empty for other keys, found by binary search.
    pub key_hash: Vec<u32>,
}

/// The first slot of an integer key in a `key_hash` table of `2^bits` slots (Fibonacci
/// hashing: consecutive ids spread evenly).
pub fn key_slot(key: i64, bits: u32) -> usize {
    if bits == 0 {
        return 0;
    }
    ((key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

/// The scalar type of a column (or of a list column's elements).
#[derive(Archive, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Int,
    Float,
    Bool,
    /// `string` and `enum` fields.
    Str,
    /// Days since 1970-01-01.
    Date,
    /// Milliseconds since 1970-01-01T00:00:00.
    DateTime,
}

/// The suffix of the column holding a map field's values: column `bonus` holds its
/// keys (a list per row, in the canonical order), `bonus.values` the value of each, in
/// the same places. Field names hold no `.`, so it names no field.
pub const MAP_VALUES: &str = ".values";

/// What joins a record field's name and its fields' names in the columns that hold
/// them. A field of a record type (`cost`, `kind = "record"` schemas) has its column of
/// the cells' canonical texts (`20001,1`; a list's, a map's values', as lists), and one
/// column per field of the record (`cost/item_id`, `cost/count`; a record's in it
/// further: `bonus/cost/item_id`), typed, in the same places (for a list or a map, lists
/// of the same lengths; an empty field in a list is its type's zero there, and the
/// text keeps it empty). Field names hold no `/`, so these name no field. A field of
/// a union type has, beside its text, `<field>/$case` (each value's case, by its
/// record's name) and for each case a column per field of its record
/// (`<field>/<case>/<name>`), empty where a value is of another case.
pub const RECORD_FIELD: &str = "/";

/// The name of a union field's column of cases (`shape/$case`): no field is so named.
pub const RECORD_CASE: &str = "$case";

/// One column.
#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
pub struct ColumnData {
    pub name: String,
    pub ty: ColumnType,
    /// A list column: `offsets` has `rows + 1` entries into `values`.
    pub list: bool,
    /// Bit `row % 64` of word `row / 64` is set when the row's value is null; empty when
    /// no value is.
    pub nulls: Vec<u64>,
    pub offsets: Vec<u32>,
    pub values: Values,
}

/// A column's values (a list column's elements, flattened).
#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
pub enum Values {
    Int(Vec<i64>),
    Float(Vec<f64>),
    Bool(Vec<bool>),
    Str(Strings),
    Date(Vec<i32>),
    DateTime(Vec<i64>),
}

/// Strings one after the other in one buffer, and where each ends. At open this is one
/// UTF-8 check of the buffer (SIMD-accelerated) and a pass over the ends, where a vector
/// of strings would be a pointer, a range claim and a UTF-8 check per string (most of a
/// validated open's time on text-heavy builds).
#[derive(Archive, Serialize, Debug, Clone, PartialEq, Default)]
pub struct Strings {
    /// UTF-8 text; bytes for the archive, so that the open checks it once, fast.
    pub bytes: Vec<u8>,
    /// The end of each string in `bytes`; string `i` starts where `i - 1` ends.
    pub ends: Vec<u32>,
}

impl Strings {
    pub fn with_capacity(strings: usize) -> Strings {
        Strings {
            bytes: Vec::new(),
            ends: Vec::with_capacity(strings),
        }
    }

    /// Add a string. Past 4 GiB the ends stop growing, but no such archive is ever
    /// written: archives use 32-bit offsets, and serializing one that large fails.
    pub fn push(&mut self, text: &str) {
        self.bytes.extend_from_slice(text.as_bytes());
        self.ends
            .push(u32::try_from(self.bytes.len()).unwrap_or(u32::MAX));
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// String `i` (`None` past the end, or where the ends do not cut at characters).
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = match i {
            0 => 0,
            _ => *self.ends.get(i - 1)? as usize,
        };
        std::str::from_utf8(self.bytes.get(start..end)?).ok()
    }
}

impl<'a> FromIterator<&'a str> for Strings {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Strings {
        let mut strings = Strings::default();
        for text in iter {
            strings.push(text);
        }
        strings
    }
}

impl ArchivedStrings {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// String `i` (`None` past the end, or where the ends do not fall between
    /// characters: never a panic).
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = self.ends.get(i)?.to_native() as usize;
        let start = match i {
            0 => 0,
            _ => self.ends.get(i - 1)?.to_native() as usize,
        };
        let bytes = self.bytes.as_slice();
        let slice = bytes.get(start..end)?;
        if !starts_a_character(bytes, start) || !starts_a_character(bytes, end) {
            return None;
        }
        // SAFETY: the buffer is UTF-8 — `is_well_formed` proved it when the build was
        // opened validated, and the manifest's hash vouched for it otherwise (or the
        // caller did, with `open_unchecked`) — and the slice runs from one character's
        // start to another's, so it is UTF-8 too.
        Some(unsafe { std::str::from_utf8_unchecked(slice) })
    }

    /// Whether the buffer is UTF-8 and the ends rise, stay inside it and fall between
    /// characters.
    pub fn is_well_formed(&self) -> bool {
        let bytes = self.bytes.as_slice();
        if simdutf8::basic::from_utf8(bytes).is_err() {
            return false;
        }
        let mut previous = 0u32;
        self.ends.iter().all(|end| {
            let end = end.to_native();
            let fine = end >= previous && starts_a_character(bytes, end as usize);
            previous = end;
            fine
        })
    }
}

/// Whether `at` is the start of a character of UTF-8 `bytes` (or their end).
fn starts_a_character(bytes: &[u8], at: usize) -> bool {
    match bytes.get(at) {
        Some(&b) => (b as i8) >= -0x40,
        None => at == bytes.len(),
    }
}

/// A secondary index (or a reverse lookup's target index).
#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
pub struct IndexData {
    /// Column indexes compared for equality and ranges.
    pub columns: Vec<u32>,
    /// Column indexes ordering the rows of one index key.
    pub order_by: Vec<u32>,
    pub unique: bool,
    /// Every row index, sorted by `columns`, then `order_by`, then primary key.
    pub rows: Vec<u32>,
}

/// One language's texts of a table, aligned with the table's rows.
#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
pub struct StringsData {
    pub table: String,
    pub language: String,
    pub rows: u32,
    pub fields: Vec<TextColumn>,
}

/// One text field in one language.
#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
pub struct TextColumn {
    pub name: String,
    /// Per row; empty for a row without text in any language of the fallback order.
    pub values: Strings,
    /// Per row: 0 when the text is this language's own, else 1 + the position in the
    /// manifest's `languages` of the language it was taken from. Empty when every text
    /// is this language's own.
    pub fallback: Vec<u8>,
}

/// Groups of a table's rows.
#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
pub struct GroupData {
    pub name: String,
    pub table: String,
    /// The group keys, one row per group, in key order.
    pub keys: TableData,
    /// `groups + 1` offsets into `rows`.
    pub offsets: Vec<u32>,
    /// Row indexes into the table, group after group, ordered inside each.
    pub rows: Vec<u32>,
}

/// Groups of rows with cumulative weights.
#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
pub struct WeightedData {
    pub group: GroupData,
    /// Aligned with `group.rows`: the running sum of weights inside each group.
    pub cumulative: Vec<f64>,
}

/// A dense matrix over two enums.
#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
pub struct MatrixData {
    pub name: String,
    pub table: String,
    pub row_values: Vec<String>,
    pub column_values: Vec<String>,
    /// `row_values.len() × column_values.len()` cells, row-major, as one column.
    pub cells: ColumnData,
}
