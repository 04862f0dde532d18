//! Typed values: what a cell holds once it has been checked against its field's type.
//!
//! Every reader ends here: a CSV cell is text parsed by [`crate::parse::parse_text`], a workbook cell
//! is converted by the typing stage, and both give the same [`Value`] for the same
//! data, so an xlsx, an ods and a csv export of one sheet become the same table.
//! [`Value::canonical`] is the one spelling each value has in canonical CSV.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

mod hash;

pub use hash::{KeyHash, KeyHasher};
pub use masterctl_runtime::calendar::{Date, DateTime, parse_date, parse_datetime};
pub use masterctl_runtime::text::{
    LIST_SEPARATOR, MAP_SEPARATOR, float_to_int, format_float, normalize_zero,
};

/// One typed cell value. `Str` holds `string`, `text` and `enum` values; it is shared,
/// so enum values and keys are not copied for every row that holds them.
#[derive(Debug, Clone)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Arc<str>),
    Date(Date),
    DateTime(DateTime),
    List(Box<[Value]>),
    /// A map's entries, sorted by key, each key once.
    Map(Box<[(Value, Value)]>),
    /// A record's fields, in its type's order.
    Record(Box<Record>),
}

/// A step from a record or union value to a value in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'t> {
    /// A record's field, by its place in the record.
    Field(usize),
    /// A union's case's record, when the value is of that case (named by its record).
    Case(&'t str),
}

/// The fields of a record value, and the separator its cells write between them
/// (its type's: a value is spelled without its type at hand). Values compare, order
/// and hash by their fields alone.
#[derive(Debug, Clone)]
pub struct Record {
    pub separator: Arc<str>,
    pub fields: Box<[Value]>,
}

impl Value {
    /// A union's value: the case it names, and the case's record (a union's value is a
    /// record of the two); `None` for any other value.
    pub fn union_case(&self) -> Option<(&Arc<str>, &Value)> {
        match self {
            Value::Record(union) => match &union.fields[..] {
                [Value::Str(case), record] => Some((case, record)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The value at `path` in a record or union value (the empty path: the value
    /// itself); `None` where there is no record, or the union is of another case.
    pub fn at(&self, path: &[Step<'_>]) -> Option<&Value> {
        match (self, path.split_first()) {
            (value, None) => Some(value),
            (Value::Record(record), Some((Step::Field(at), rest))) => {
                record.fields.get(*at)?.at(rest)
            }
            (union, Some((Step::Case(case), rest))) => match union.union_case() {
                Some((named, record)) if **named == **case => record.at(rest),
                _ => None,
            },
            _ => None,
        }
    }

    /// A record value of these fields, written with `separator` between them.
    pub fn record(separator: Arc<str>, fields: Vec<Value>) -> Value {
        Value::Record(Box::new(Record {
            separator,
            fields: fields.into(),
        }))
    }
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The number as a float, for range checks and weights.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The canonical spelling: `true`/`false`, integers without `.0`, floats in shortest
    /// round-trip form, ISO dates, list elements joined by `|`, null as the empty string.
    pub fn canonical(&self) -> String {
        self.to_string()
    }

    fn rank(&self) -> u8 {
        match self {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Int(_) => 2,
            Value::Float(_) => 3,
            Value::Str(_) => 4,
            Value::Date(_) => 5,
            Value::DateTime(_) => 6,
            Value::List(_) => 7,
            Value::Map(_) => 8,
            Value::Record(_) => 9,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => Ok(()),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            // `format_float`'s spelling, written without a string of its own.
            Value::Float(x) if *x == 0.0 => f.write_str("0"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Str(s) => f.write_str(s),
            Value::Date(d) => write!(f, "{d}"),
            Value::DateTime(dt) => write!(f, "{dt}"),
            Value::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, "{LIST_SEPARATOR}")?;
                    }
                    write!(f, "{item}")?;
                }
                Ok(())
            }
            Value::Map(entries) => {
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        write!(f, "{LIST_SEPARATOR}")?;
                    }
                    write!(f, "{key}{MAP_SEPARATOR}{value}")?;
                }
                Ok(())
            }
            Value::Record(record) => {
                for (i, field) in record.fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(&record.separator)?;
                    }
                    write!(f, "{field}")?;
                }
                Ok(())
            }
        }
    }
}

impl Ord for Value {
    /// Typed order: numbers by value (1, 2, 10), text by code point, dates in time.
    /// Values of different kinds order by kind, so the order is total.
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Float(a), Value::Float(b)) => normalize_zero(*a).total_cmp(&normalize_zero(*b)),
            (Value::Str(a), Value::Str(b)) => a.cmp(b),
            (Value::Date(a), Value::Date(b)) => a.cmp(b),
            (Value::DateTime(a), Value::DateTime(b)) => a.cmp(b),
            (Value::List(a), Value::List(b)) => a.cmp(b),
            (Value::Map(a), Value::Map(b)) => a.cmp(b),
            (Value::Record(a), Value::Record(b)) => a.fields.cmp(&b.fields),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            _ => self.cmp(other) == Ordering::Equal,
        }
    }
}

impl Eq for Value {}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u8(self.rank());
        match self {
            Value::Null => {}
            Value::Bool(b) => b.hash(state),
            Value::Int(i) => i.hash(state),
            Value::Float(x) => normalize_zero(*x).to_bits().hash(state),
            Value::Str(s) => s.hash(state),
            Value::Date(d) => d.hash(state),
            Value::DateTime(dt) => dt.hash(state),
            Value::List(items) => items.hash(state),
            Value::Map(entries) => entries.hash(state),
            Value::Record(record) => record.fields.hash(state),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_spellings_are_unique() {
        assert_eq!(Value::Float(12.0).canonical(), "12");
        assert_eq!(Value::Float(-0.0).canonical(), "0");
        assert_eq!(Value::Float(0.1).canonical(), "0.1");
        assert_eq!(Value::Bool(true).canonical(), "true");
        assert_eq!(Value::Null.canonical(), "");
        // A float is spelled as `format_float` spells it, whatever its size.
        for x in [
            1e21,
            -1e21,
            1e-7,
            123.456,
            -2.5,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.0,
        ] {
            assert_eq!(Value::Float(x).canonical(), format_float(x));
        }
    }

    #[test]
    fn typed_order_is_numeric() {
        let mut values = vec![Value::Int(10), Value::Int(2), Value::Int(1)];
        values.sort();
        assert_eq!(values, vec![Value::Int(1), Value::Int(2), Value::Int(10)]);
        assert_eq!(Value::Float(0.0), Value::Float(-0.0));
    }
}
