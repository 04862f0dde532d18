//! Typed, allocation-free access to a mapped table: rows by position or primary key,
//! values by column, secondary indexes by equality and range.

use std::cmp::Ordering;
use std::fmt;
use std::ops::Bound;

use rkyv::rend::u32_le;

use crate::Masters;
use crate::format::{ArchivedColumnData, ArchivedIndexData, ArchivedTableData, ArchivedValues};

/// A value as stored, borrowed from the archive. Also the key type of lookups.
#[derive(Clone, Copy, PartialEq)]
pub enum ValueRef<'a> {
    Null,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(&'a str),
    /// Days since 1970-01-01.
    Date(i32),
    /// Milliseconds since 1970-01-01T00:00:00.
    DateTime(i64),
    List(List<'a>),
}

impl fmt::Debug for ValueRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueRef::Null => f.write_str("Null"),
            ValueRef::Int(v) => write!(f, "Int({v})"),
            ValueRef::Float(v) => write!(f, "Float({v})"),
            ValueRef::Bool(v) => write!(f, "Bool({v})"),
            ValueRef::Str(v) => write!(f, "Str({v:?})"),
            ValueRef::Date(v) => write!(f, "Date({v})"),
            ValueRef::DateTime(v) => write!(f, "DateTime({v})"),
            ValueRef::List(list) => f.debug_list().entries(list.iter()).finish(),
        }
    }
}

impl<'a> ValueRef<'a> {
    pub fn as_int(&self) -> Option<i64> {
        match *self {
            ValueRef::Int(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_float(&self) -> Option<f64> {
        match *self {
            ValueRef::Float(v) => Some(v),
            ValueRef::Int(v) => Some(v as f64),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            ValueRef::Bool(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&'a str> {
        match *self {
            ValueRef::Str(v) => Some(v),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, ValueRef::Null)
    }

    fn rank(&self) -> u8 {
        match self {
            ValueRef::Null => 0,
            ValueRef::Bool(_) => 1,
            ValueRef::Int(_) => 2,
            ValueRef::Float(_) => 3,
            ValueRef::Str(_) => 4,
            ValueRef::Date(_) => 5,
            ValueRef::DateTime(_) => 6,
            ValueRef::List(_) => 7,
        }
    }

    /// The order rows are built in: numbers by value, text by code point, null first.
    pub fn order(&self, other: &ValueRef<'_>) -> Ordering {
        match (self, other) {
            (ValueRef::Bool(a), ValueRef::Bool(b)) => a.cmp(b),
            (ValueRef::Int(a), ValueRef::Int(b)) => a.cmp(b),
            (ValueRef::Float(a), ValueRef::Float(b)) => zero(*a).total_cmp(&zero(*b)),
            (ValueRef::Str(a), ValueRef::Str(b)) => a.cmp(b),
            (ValueRef::Date(a), ValueRef::Date(b)) => a.cmp(b),
            (ValueRef::DateTime(a), ValueRef::DateTime(b)) => a.cmp(b),
            (ValueRef::List(a), ValueRef::List(b)) => a.iter().cmp_by_order(b.iter()),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

fn zero(x: f64) -> f64 {
    if x == 0.0 { 0.0 } else { x }
}

trait OrderIter<'a>: Iterator<Item = ValueRef<'a>> + Sized {
    fn cmp_by_order<'b>(mut self, mut other: impl Iterator<Item = ValueRef<'b>>) -> Ordering {
        loop {
            match (self.next(), other.next()) {
                (None, None) => return Ordering::Equal,
                (None, Some(_)) => return Ordering::Less,
                (Some(_), None) => return Ordering::Greater,
                (Some(a), Some(b)) => match a.order(&b) {
                    Ordering::Equal => continue,
                    other => return other,
                },
            }
        }
    }
}

impl<'a, I: Iterator<Item = ValueRef<'a>>> OrderIter<'a> for I {}

/// A list cell: elements `start..end` of its column.
#[derive(Clone, Copy)]
pub struct List<'a> {
    column: &'a ArchivedColumnData,
    start: u32,
    end: u32,
}

impl PartialEq for List<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().cmp_by_order(other.iter()) == Ordering::Equal
    }
}

impl<'a> List<'a> {
    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    pub fn get(&self, i: usize) -> Option<ValueRef<'a>> {
        (i < self.len()).then(|| scalar(self.column, self.start as usize + i))
    }

    pub fn iter(&self) -> impl Iterator<Item = ValueRef<'a>> + use<'a> {
        let column = self.column;
        (self.start as usize..self.end as usize).map(move |i| scalar(column, i))
    }
}

/// Element `i` of a column's values (`Null` past the end: never a panic).
fn scalar(column: &ArchivedColumnData, i: usize) -> ValueRef<'_> {
    match &column.values {
        ArchivedValues::Int(v) => v
            .get(i)
            .map_or(ValueRef::Null, |x| ValueRef::Int(x.to_native())),
        ArchivedValues::Float(v) => v
            .get(i)
            .map_or(ValueRef::Null, |x| ValueRef::Float(x.to_native())),
        ArchivedValues::Bool(v) => v.get(i).map_or(ValueRef::Null, |x| ValueRef::Bool(*x)),
        ArchivedValues::Str(v) => v.get(i).map_or(ValueRef::Null, ValueRef::Str),
        ArchivedValues::Date(v) => v
            .get(i)
            .map_or(ValueRef::Null, |x| ValueRef::Date(x.to_native())),
        ArchivedValues::DateTime(v) => v
            .get(i)
            .map_or(ValueRef::Null, |x| ValueRef::DateTime(x.to_native())),
    }
}

/// A row's value in a column.
pub(crate) fn cell(column: &ArchivedColumnData, row: usize) -> ValueRef<'_> {
    let null = column
        .nulls
        .get(row / 64)
        .is_some_and(|word| (word.to_native() >> (row % 64)) & 1 == 1);
    if null {
        return ValueRef::Null;
    }
    if column.list {
        let (Some(start), Some(end)) = (column.offsets.get(row), column.offsets.get(row + 1))
        else {
            return ValueRef::Null;
        };
        return ValueRef::List(List {
            column,
            start: start.to_native(),
            end: end.to_native().max(start.to_native()),
        });
    }
    scalar(column, row)
}

/// A table of a build.
#[derive(Clone, Copy)]
pub struct Table<'a> {
    pub(crate) masters: &'a Masters,
    pub(crate) data: &'a ArchivedTableData,
}

impl<'a> Table<'a> {
    pub fn name(&self) -> &'a str {
        self.data.name.as_str()
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.data.rows.to_native() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Column names, in schema order (text fields are in the language files).
    pub fn columns(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        self.data.columns.iter().map(|c| c.name.as_str())
    }

    /// The columns that are fields, with their positions: not a map's values (shown
    /// with its keys, [`crate::format::MAP_VALUES`]) nor a record's fields (in its
    /// text, [`crate::format::RECORD_FIELD`]).
    pub fn field_columns(&self) -> impl Iterator<Item = (usize, &'a str)> + use<'a> {
        let table = *self;
        self.columns().enumerate().filter(move |(_, name)| {
            let part_of = |field: Option<&str>| field.is_some_and(|f| table.column(f).is_some());
            !part_of(name.strip_suffix(crate::format::MAP_VALUES))
                && !part_of(name.split_once(crate::format::RECORD_FIELD).map(|(f, _)| f))
        })
    }

    /// The position of a column (resolve once, then read rows by position).
    pub fn column(&self, name: &str) -> Option<usize> {
        self.data.columns.iter().position(|c| c.name == name)
    }

    /// A column's scalar type, and whether it holds lists.
    pub fn column_type(&self, column: usize) -> Option<(crate::format::ColumnType, bool)> {
        let data = self.data.columns.get(column)?;
        let ty = match data.ty {
            crate::format::ArchivedColumnType::Int => crate::format::ColumnType::Int,
            crate::format::ArchivedColumnType::Float => crate::format::ColumnType::Float,
            crate::format::ArchivedColumnType::Bool => crate::format::ColumnType::Bool,
            crate::format::ArchivedColumnType::Str => crate::format::ColumnType::Str,
            crate::format::ArchivedColumnType::Date => crate::format::ColumnType::Date,
            crate::format::ArchivedColumnType::DateTime => crate::format::ColumnType::DateTime,
        };
        Some((ty, data.list))
    }

    /// The primary key's column positions.
    pub fn primary_key(&self) -> impl Iterator<Item = usize> + use<'a> {
        self.data.primary_key.iter().map(|c| c.to_native() as usize)
    }

    /// The row at a position (primary-key order).
    pub fn row(&self, index: usize) -> Option<Row<'a>> {
        (index < self.len()).then_some(Row {
            table: *self,
            index: index as u32,
        })
    }

    /// Every row, in primary-key order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = Row<'a>> + use<'a> {
        let table = *self;
        (0..self.len() as u32).map(move |index| Row { table, index })
    }

    /// The row whose primary key is `key` (one value per key field).
    pub fn get(&self, key: &[ValueRef<'_>]) -> Option<Row<'a>> {
        let pk = &self.data.primary_key;
        if pk.is_empty() || key.len() != pk.len() {
            return None;
        }
        // One integer key without nulls: its hash table, else a binary search over the
        // column itself.
        if let ([field], [ValueRef::Int(wanted)]) = (pk.as_slice(), key)
            && let Some(column) = self.data.columns.get(field.to_native() as usize)
            && let ArchivedValues::Int(values) = &column.values
            && !column.list
            && column.nulls.is_empty()
        {
            let slots = self.data.key_hash.as_slice();
            if slots.len().is_power_of_two() {
                let mask = slots.len() - 1;
                let mut slot = crate::format::key_slot(*wanted, slots.len().trailing_zeros());
                // At most one pass over the table, whatever the file holds.
                for _ in 0..slots.len() {
                    let id = slots[slot & mask].to_native();
                    if id == u32::MAX {
                        return None;
                    }
                    if values.get(id as usize).map(|v| v.to_native()) == Some(*wanted) {
                        return self.row(id as usize);
                    }
                    slot = (slot & mask) + 1;
                }
                return None;
            }
            let at = values.partition_point(|v| v.to_native() < *wanted);
            return (values.get(at).map(|v| v.to_native()) == Some(*wanted))
                .then(|| self.row(at))
                .flatten();
        }
        let at = partition(self.len(), |row| {
            self.compare(row, pk.as_slice(), key) == Ordering::Less
        });
        (at < self.len() && self.compare(at, pk.as_slice(), key) == Ordering::Equal)
            .then(|| self.row(at))
            .flatten()
    }

    /// A row's values in `columns` against `key` (a prefix of them may be given).
    fn compare(&self, row: usize, columns: &[u32_le], key: &[ValueRef<'_>]) -> Ordering {
        for (column, wanted) in columns.iter().zip(key) {
            let Some(column) = self.data.columns.get(column.to_native() as usize) else {
                return Ordering::Less;
            };
            match cell(column, row).order(wanted) {
                Ordering::Equal => continue,
                other => return other,
            }
        }
        Ordering::Equal
    }

    /// The secondary index over exactly these columns.
    pub fn index(&self, columns: &[&str]) -> Option<Index<'a>> {
        self.data
            .indexes
            .iter()
            .find(|index| {
                index.columns.len() == columns.len()
                    && index.columns.iter().zip(columns).all(|(c, name)| {
                        self.data
                            .columns
                            .get(c.to_native() as usize)
                            .is_some_and(|c| c.name == *name)
                    })
            })
            .map(|data| Index { table: *self, data })
    }

    /// The table's indexes.
    pub fn indexes(&self) -> impl Iterator<Item = Index<'a>> + use<'a> {
        let table = *self;
        self.data
            .indexes
            .iter()
            .map(move |data| Index { table, data })
    }
}

/// The first position in `0..len` where `before` is false (`before` must be true, then
/// false, along the range).
fn partition(len: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let middle = low + (high - low) / 2;
        if before(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// One row of a table.
#[derive(Clone, Copy)]
pub struct Row<'a> {
    table: Table<'a>,
    index: u32,
}

impl fmt::Debug for Row<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (position, name) in self.table.columns().enumerate() {
            map.entry(&name, &self.value(position));
        }
        map.finish()
    }
}

impl<'a> Row<'a> {
    /// Its position in the table (primary-key order).
    pub fn index(&self) -> usize {
        self.index as usize
    }

    pub fn table(&self) -> Table<'a> {
        self.table
    }

    /// The value in a column by position (`Null` for a column that does not exist).
    pub fn value(&self, column: usize) -> ValueRef<'a> {
        self.table
            .data
            .columns
            .get(column)
            .map_or(ValueRef::Null, |c| cell(c, self.index as usize))
    }

    /// The value in a column by name.
    pub fn get(&self, column: &str) -> Option<ValueRef<'a>> {
        self.table.column(column).map(|c| self.value(c))
    }

    pub fn int(&self, column: &str) -> Option<i64> {
        self.get(column)?.as_int()
    }

    pub fn float(&self, column: &str) -> Option<f64> {
        self.get(column)?.as_float()
    }

    pub fn bool(&self, column: &str) -> Option<bool> {
        self.get(column)?.as_bool()
    }

    pub fn str(&self, column: &str) -> Option<&'a str> {
        self.get(column)?.as_str()
    }

    /// A text field in a language (the region's first language when the build has none
    /// of that language); `None` when the row has no text there, fallbacks included.
    pub fn text(&self, field: &str, language: &str) -> Option<&'a str> {
        self.table
            .masters
            .texts(self.table.name(), language)?
            .get(field, self.index as usize)
    }
}

/// A secondary index.
#[derive(Clone, Copy)]
pub struct Index<'a> {
    table: Table<'a>,
    data: &'a ArchivedIndexData,
}

impl<'a> Index<'a> {
    pub fn is_unique(&self) -> bool {
        self.data.unique
    }

    /// Names of the indexed columns.
    pub fn columns(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        let table = self.table;
        self.data.columns.iter().filter_map(move |c| {
            table
                .data
                .columns
                .get(c.to_native() as usize)
                .map(|c| c.name.as_str())
        })
    }

    /// Rows whose indexed values equal `key` (or start with it, for a shorter key), in
    /// `order_by` order.
    pub fn eq(&self, key: &[ValueRef<'_>]) -> Rows<'a> {
        let ids = self.data.rows.as_slice();
        let columns = self.data.columns.as_slice();
        let key = &key[..key.len().min(columns.len())];
        let order = |id: &u32_le| self.table.compare(id.to_native() as usize, columns, key);
        let start = ids.partition_point(|id| order(id) == Ordering::Less);
        let end = start + ids[start..].partition_point(|id| order(id) != Ordering::Greater);
        Rows {
            table: self.table,
            ids: &ids[start..end],
        }
    }

    /// Rows whose first indexed value is within the bounds, in index order.
    pub fn range(&self, from: Bound<ValueRef<'_>>, to: Bound<ValueRef<'_>>) -> Rows<'a> {
        let ids = self.data.rows.as_slice();
        let Some(&column) = self.data.columns.first() else {
            return Rows {
                table: self.table,
                ids: &[],
            };
        };
        let value = |id: &u32_le| {
            self.table
                .data
                .columns
                .get(column.to_native() as usize)
                .map_or(ValueRef::Null, |c| cell(c, id.to_native() as usize))
        };
        let start = match from {
            Bound::Unbounded => 0,
            Bound::Included(low) => ids.partition_point(|id| value(id).order(&low).is_lt()),
            Bound::Excluded(low) => ids.partition_point(|id| value(id).order(&low).is_le()),
        };
        let end = match to {
            Bound::Unbounded => ids.len(),
            Bound::Included(high) => ids.partition_point(|id| value(id).order(&high).is_le()),
            Bound::Excluded(high) => ids.partition_point(|id| value(id).order(&high).is_lt()),
        };
        Rows {
            table: self.table,
            ids: ids.get(start..end.max(start)).unwrap_or(&[]),
        }
    }
}

/// Rows of a table picked by an index, a group or a reverse lookup.
#[derive(Clone)]
pub struct Rows<'a> {
    pub(crate) table: Table<'a>,
    pub(crate) ids: &'a [u32_le],
}

impl<'a> Rows<'a> {
    /// How many rows (every id was checked against the table when the build was opened).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn first(&self) -> Option<Row<'a>> {
        self.ids
            .first()
            .and_then(|id| self.table.row(id.to_native() as usize))
    }

    pub fn get(&self, i: usize) -> Option<Row<'a>> {
        self.ids
            .get(i)
            .and_then(|id| self.table.row(id.to_native() as usize))
    }
}

impl<'a> Iterator for Rows<'a> {
    type Item = Row<'a>;

    fn next(&mut self) -> Option<Row<'a>> {
        loop {
            let (first, rest) = self.ids.split_first()?;
            self.ids = rest;
            if let Some(row) = self.table.row(first.to_native() as usize) {
                return Some(row);
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.ids.len()))
    }
}
