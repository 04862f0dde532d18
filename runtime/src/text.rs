//! Values as text: the one spelling each value has (in canonical CSV, on a terminal, in
//! JSON for dates) and the rules that read text back as a typed value. The CSV writer,
//! the schemas' cell parser and anyone showing or looking up a build share them, so a
//! key typed on a command line finds the row its CSV cell made.

use std::fmt;

use crate::calendar::{Date, DateTime, parse_date, parse_datetime};
use crate::format::ColumnType;
use crate::table::{Table, ValueRef};

/// The separator between the elements of a list cell: `1|2|3`. Not a comma, because
/// spreadsheets in many locales read `1,234` as a number.
pub const LIST_SEPARATOR: char = '|';

/// The separator between a map entry's key and value: `1:100|2:250` (the key holds
/// none; a value may, a time of day among them).
pub const MAP_SEPARATOR: char = ':';

/// Shortest text that parses back to the same float; `-0` is written `0`.
pub fn format_float(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    // Rust's Display is the shortest round-trip form, without exponent.
    format!("{x}")
}

/// `-0.0` as `0.0`, so the two zeros order, hash and print as one.
pub fn normalize_zero(x: f64) -> f64 {
    if x == 0.0 { 0.0 } else { x }
}

/// A float that is exactly a whole number within i64 range.
pub fn float_to_int(f: f64) -> Option<i64> {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    (f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f)).then_some(f as i64)
}

/// A whole number: `12`, and `12.0` as some exports write it; not `12.5`.
pub fn parse_int(text: &str) -> Option<i64> {
    // Digits alone, as most numbers are written, and too few to overflow.
    let digits = text.as_bytes();
    if (1..=18).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit) {
        return Some(digits.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')));
    }
    let t = text.trim();
    t.parse::<i64>().ok().or_else(|| {
        t.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .and_then(float_to_int)
    })
}

/// A finite number; `-0` reads as `0`.
pub fn parse_float(text: &str) -> Option<f64> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .map(normalize_zero)
}

/// `TRUE`/`FALSE` in any case, or `1`/`0`. Not `yes`.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.trim() {
        "1" => Some(true),
        "0" => Some(false),
        t if t.eq_ignore_ascii_case("true") => Some(true),
        t if t.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

/// The canonical spelling, as in canonical CSV: null is empty, list elements are
/// joined by `|`.
impl fmt::Display for ValueRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueRef::Null => Ok(()),
            ValueRef::Int(v) => write!(f, "{v}"),
            ValueRef::Float(v) => f.write_str(&format_float(*v)),
            ValueRef::Bool(v) => write!(f, "{v}"),
            ValueRef::Str(v) => f.write_str(v),
            ValueRef::Date(v) => write!(f, "{}", Date(*v)),
            ValueRef::DateTime(v) => write!(f, "{}", DateTime(*v)),
            ValueRef::List(list) => {
                for (i, item) in list.iter().enumerate() {
                    if i > 0 {
                        write!(f, "{LIST_SEPARATOR}")?;
                    }
                    write!(f, "{item}")?;
                }
                Ok(())
            }
        }
    }
}

/// Why key text does not look up a table.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyError {
    /// Not as many values as the key has columns.
    Count {
        table: String,
        columns: Vec<String>,
        given: usize,
    },
    /// A value that is not of its column's type.
    Type {
        table: String,
        column: String,
        text: String,
        expected: &'static str,
    },
    /// An empty value for a key column, which is never empty.
    Empty { table: String, column: String },
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::Count {
                table,
                columns,
                given,
            } => write!(
                f,
                "`{table}` is looked up by {} value{} ({}); {given} given",
                columns.len(),
                if columns.len() == 1 { "" } else { "s" },
                columns.join(", ")
            ),
            KeyError::Type {
                table,
                column,
                text,
                expected,
            } => write!(
                f,
                "`{text}` is not a key of `{table}`: `{column}` is {expected}"
            ),
            KeyError::Empty { table, column } => {
                write!(f, "`{column}` of `{table}` is never empty: give its value")
            }
        }
    }
}

impl std::error::Error for KeyError {}

impl<'a> Table<'a> {
    /// Key values written as text (a command line, a URL), typed as the columns at
    /// `columns` are, by the rules cells are read by: `yes` is not a bool, `1.0` is an
    /// int, `2024/4/1` is a date.
    pub fn parse_key<'k, S: AsRef<str>>(
        &self,
        columns: &[usize],
        texts: &'k [S],
    ) -> Result<Vec<ValueRef<'k>>, KeyError> {
        let name = |c: usize| self.columns().nth(c).unwrap_or_default().to_string();
        if texts.len() != columns.len() {
            return Err(KeyError::Count {
                table: self.name().to_string(),
                columns: columns.iter().map(|&c| name(c)).collect(),
                given: texts.len(),
            });
        }
        columns
            .iter()
            .zip(texts)
            .map(|(&c, text)| {
                let text = text.as_ref();
                let ty = self.column_type(c).map_or(ColumnType::Str, |(ty, _)| ty);
                if text.is_empty() || (ty != ColumnType::Str && text.trim().is_empty()) {
                    return Err(KeyError::Empty {
                        table: self.name().to_string(),
                        column: name(c),
                    });
                }
                let (value, expected) = match ty {
                    ColumnType::Str => (Some(ValueRef::Str(text)), ""),
                    ColumnType::Int => (parse_int(text).map(ValueRef::Int), "a whole number"),
                    ColumnType::Float => (parse_float(text).map(ValueRef::Float), "a number"),
                    ColumnType::Bool => (parse_bool(text).map(ValueRef::Bool), "TRUE or FALSE"),
                    ColumnType::Date => (
                        parse_date(text.trim()).map(|d| ValueRef::Date(d.0)),
                        "a date like 2024-04-01",
                    ),
                    ColumnType::DateTime => (
                        parse_datetime(text.trim()).map(|d| ValueRef::DateTime(d.0)),
                        "a date and time like 2024-04-01T10:00:00",
                    ),
                };
                value.ok_or_else(|| KeyError::Type {
                    table: self.name().to_string(),
                    column: name(c),
                    text: text.to_string(),
                    expected,
                })
            })
            .collect()
    }

    /// [`Table::parse_key`] for the table's primary key.
    pub fn parse_primary_key<'k, S: AsRef<str>>(
        &self,
        texts: &'k [S],
    ) -> Result<Vec<ValueRef<'k>>, KeyError> {
        self.parse_key(&self.primary_key().collect::<Vec<_>>(), texts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_read_as_cells_are() {
        assert_eq!(parse_int("12"), Some(12));
        assert_eq!(parse_int(" 12.0 "), Some(12));
        assert_eq!(parse_int("12.5"), None);
        assert_eq!(parse_int("1,000"), None);
        // Digits alone are read without the general parse, as it reads them.
        let cases = [
            ("0", Some(0)),
            ("007", Some(7)),
            ("999999999999999999", Some(999_999_999_999_999_999)),
            ("9223372036854775807", Some(i64::MAX)),
            ("9999999999999999999", None),
            ("99999999999999999999", None),
        ];
        for (digits, value) in cases {
            assert_eq!(parse_int(digits), value, "{digits}");
        }
        assert_eq!(parse_float("-0"), Some(0.0));
        assert!(parse_float("-0").unwrap().is_sign_positive());
        assert_eq!(parse_float("NaN"), None);
        assert_eq!(parse_float("inf"), None);
        assert_eq!(parse_bool("True"), Some(true));
        assert_eq!(parse_bool("0"), Some(false));
        assert_eq!(parse_bool("yes"), None);
    }

    #[test]
    fn values_print_canonically() {
        assert_eq!(ValueRef::Float(12.0).to_string(), "12");
        assert_eq!(ValueRef::Float(-0.0).to_string(), "0");
        assert_eq!(ValueRef::Float(0.1).to_string(), "0.1");
        assert_eq!(ValueRef::Bool(true).to_string(), "true");
        assert_eq!(ValueRef::Null.to_string(), "");
        assert_eq!(ValueRef::Date(0).to_string(), "1970-01-01");
        assert_eq!(
            ValueRef::DateTime(86_400_000 + 3_600_000).to_string(),
            "1970-01-02T01:00:00Z"
        );
    }
}
