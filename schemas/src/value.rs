//! Typed values: what a cell holds once it has been checked against its field's type.
//!
//! Every reader ends here: a CSV cell is text parsed by [`parse_text`], a workbook cell
//! is converted by the typing stage, and both give the same [`Value`] for the same
//! data, so an xlsx, an ods and a csv export of one sheet become the same table.
//! [`Value::canonical`] is the one spelling each value has in canonical CSV.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::schema::FieldType;

/// The separator between the elements of a `list<T>` cell: `1|2|3`. Not a comma,
/// because spreadsheets in many locales read `1,234` as a number.
pub const LIST_SEPARATOR: char = '|';

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
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => Ok(()),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => f.write_str(&format_float(*x)),
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
        }
    }
}

/// Shortest text that parses back to the same float; `-0` is written `0`.
pub fn format_float(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    // Rust's Display is the shortest round-trip form, without exponent.
    format!("{x}")
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
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

fn normalize_zero(x: f64) -> f64 {
    if x == 0.0 { 0.0 } else { x }
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
        }
    }
}

/// A fast, deterministic hasher for key sets of values (primary keys, unique fields,
/// foreign keys): the keys come from the project's own data, and the multiply-rotate
/// scheme is several times faster than SipHash on them.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
        for &byte in chunks.remainder() {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// `HashMap`/`HashSet` state for [`KeyHasher`].
pub type KeyHash = std::hash::BuildHasherDefault<KeyHasher>;

/// A calendar date, as days since 1970-01-01 (proleptic Gregorian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(pub i32);

impl Date {
    pub fn from_ymd(year: i32, month: u32, day: u32) -> Option<Date> {
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        Some(Date(days_from_civil(year, month, day)))
    }

    pub fn ymd(self) -> (i32, u32, u32) {
        civil_from_days(self.0)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, m, d) = self.ymd();
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

/// A date and time without time zone, in milliseconds since 1970-01-01T00:00:00.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime(pub i64);

const MS_PER_DAY: i64 = 86_400_000;

impl DateTime {
    pub fn new(date: Date, hour: u32, minute: u32, second: u32, milli: u32) -> Option<DateTime> {
        if hour > 23 || minute > 59 || second > 59 || milli > 999 {
            return None;
        }
        let ms = i64::from(((hour * 60 + minute) * 60 + second) * 1000 + milli);
        Some(DateTime(i64::from(date.0) * MS_PER_DAY + ms))
    }

    pub fn date(self) -> Date {
        Date(self.0.div_euclid(MS_PER_DAY) as i32)
    }

    /// Milliseconds since midnight.
    pub fn time_of_day(self) -> i64 {
        self.0.rem_euclid(MS_PER_DAY)
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.time_of_day();
        let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
        let (m, rest) = (rest / 60_000, rest % 60_000);
        let (s, milli) = (rest / 1000, rest % 1000);
        write!(f, "{}T{h:02}:{m:02}:{s:02}", self.date())?;
        if milli != 0 {
            write!(f, ".{milli:03}")?;
        }
        Ok(())
    }
}

fn is_leap(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        _ => 28,
    }
}

// Howard Hinnant's civil calendar algorithms.
fn days_from_civil(year: i32, month: u32, day: u32) -> i32 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy as i32;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i32) -> (i32, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i32::from(month <= 2);
    (year, month, day)
}

/// Why a text could not become a value of a type: what was expected, and maybe a hint.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub expected: String,
    pub hint: Option<String>,
}

impl Mismatch {
    fn new(expected: impl Into<String>) -> Mismatch {
        Mismatch {
            expected: expected.into(),
            hint: None,
        }
    }

    fn hint(mut self, hint: impl Into<String>) -> Mismatch {
        self.hint = Some(hint.into());
        self
    }
}

/// What a type accepts, as said to a planner.
pub fn describe(ty: &FieldType) -> String {
    match ty {
        FieldType::Int => "a whole number".into(),
        FieldType::Float => "a number".into(),
        FieldType::Bool => "TRUE or FALSE".into(),
        FieldType::String | FieldType::Text => "text".into(),
        FieldType::Enum => "one of the enum's values".into(),
        FieldType::Date => "a date like 2024-04-01".into(),
        FieldType::DateTime => "a date and time like 2024-04-01T10:00:00".into(),
        FieldType::List(inner) => format!("a list of {} separated by `|`", describe(inner)),
    }
}

/// Parse text (a CSV cell, a string cell of a workbook, a TOML default) as a value of
/// `ty`. Empty text is `Null`; enum membership is checked by validation, not here.
pub fn parse_text(ty: &FieldType, text: &str) -> Result<Value, Mismatch> {
    // A cell holding only spaces looks empty to the person who typed it; only string
    // and text values keep their spaces.
    let blank = match ty {
        FieldType::String | FieldType::Text => text.is_empty(),
        _ => text.trim().is_empty(),
    };
    if blank {
        return Ok(Value::Null);
    }
    match ty {
        FieldType::Int => parse_int(text).map(Value::Int),
        FieldType::Float => parse_float(text).map(Value::Float),
        FieldType::Bool => parse_bool(text).map(Value::Bool),
        FieldType::String | FieldType::Text | FieldType::Enum => Ok(Value::Str(text.into())),
        FieldType::Date => parse_date(text.trim())
            .map(Value::Date)
            .ok_or_else(|| Mismatch::new(describe(ty))),
        FieldType::DateTime => parse_datetime(text.trim())
            .map(Value::DateTime)
            .ok_or_else(|| Mismatch::new(describe(ty))),
        FieldType::List(inner) => {
            let mut items = Vec::new();
            for part in text.split(LIST_SEPARATOR) {
                let part = part.trim();
                if part.is_empty() {
                    return Err(Mismatch::new(describe(ty)).hint("a list has an empty element"));
                }
                match parse_text(inner, part) {
                    Ok(value) => items.push(value),
                    Err(m) => {
                        return Err(Mismatch::new(describe(ty))
                            .hint(format!("`{part}` is not {}", m.expected)));
                    }
                }
            }
            Ok(Value::List(items.into()))
        }
    }
}

fn parse_int(text: &str) -> Result<i64, Mismatch> {
    let t = text.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Ok(i);
    }
    let mismatch = Mismatch::new("a whole number");
    if t.contains(',') && t.replace(',', "").parse::<i64>().is_ok() {
        return Err(mismatch.hint("remove the thousands separators"));
    }
    // Some exports write whole numbers as `12.0`; those are fine, `12.5` is not.
    match t.parse::<f64>() {
        Ok(f) if f.is_finite() => float_to_int(f).ok_or_else(|| {
            mismatch.hint(format!("{t} has a fractional part; the field is an int"))
        }),
        _ => Err(mismatch),
    }
}

/// A float that is exactly a whole number within i64 range.
pub fn float_to_int(f: f64) -> Option<i64> {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    (f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f)).then_some(f as i64)
}

fn parse_float(text: &str) -> Result<f64, Mismatch> {
    let t = text.trim();
    match t.parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(normalize_zero(f)),
        Ok(_) => Err(Mismatch::new("a finite number")),
        Err(_) => {
            let mismatch = Mismatch::new("a number");
            if let Some(percent) = t.strip_suffix('%')
                && percent.trim().parse::<f64>().is_ok()
            {
                return Err(mismatch.hint("write percentages as fractions (45% is 0.45)"));
            }
            if t.contains(',') && t.replace(',', "").parse::<f64>().is_ok() {
                return Err(mismatch.hint("remove the thousands separators"));
            }
            Err(mismatch)
        }
    }
}

fn parse_bool(text: &str) -> Result<bool, Mismatch> {
    match text.trim() {
        "1" => Ok(true),
        "0" => Ok(false),
        t if t.eq_ignore_ascii_case("true") => Ok(true),
        t if t.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(Mismatch::new("TRUE or FALSE")),
    }
}

/// `2024-04-01` or `2024/04/01` (as Japanese spreadsheets write dates); the month and day
/// may have one digit.
pub fn parse_date(text: &str) -> Option<Date> {
    let sep = if text.contains('/') { '/' } else { '-' };
    let mut parts = text.splitn(3, sep);
    let year = parts.next()?;
    let month = parts.next()?;
    let day = parts.next()?;
    let all_digits = |s: &str, max: usize| {
        !s.is_empty() && s.len() <= max && s.bytes().all(|b| b.is_ascii_digit())
    };
    if year.len() != 4 || !all_digits(year, 4) || !all_digits(month, 2) || !all_digits(day, 2) {
        return None;
    }
    Date::from_ymd(year.parse().ok()?, month.parse().ok()?, day.parse().ok()?)
}

/// A date, then `T` or a space, then `HH:MM`, optionally `:SS` and `.fff`.
pub fn parse_datetime(text: &str) -> Option<DateTime> {
    let split = text.find(['T', ' '])?;
    let date = parse_date(&text[..split])?;
    let time = text[split + 1..].trim();
    let (hms, fraction) = match time.split_once('.') {
        Some((hms, fraction)) => (hms, Some(fraction)),
        None => (time, None),
    };
    let mut parts = hms.split(':');
    let number = |s: Option<&str>| -> Option<u32> {
        let s = s?;
        (!s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let hour = number(parts.next())?;
    let minute = number(parts.next())?;
    let second = match parts.next() {
        Some(s) => number(Some(s))?,
        None => 0,
    };
    if parts.next().is_some() {
        return None;
    }
    let milli = match fraction {
        None => 0,
        Some(f) if !f.is_empty() && f.len() <= 3 && f.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{f:0<3}").parse().ok()?
        }
        Some(_) => return None,
    };
    DateTime::new(date, hour, minute, second, milli)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip_through_days() {
        for (y, m, d) in [
            (1970, 1, 1),
            (2000, 2, 29),
            (1899, 12, 30),
            (2024, 12, 31),
            (9999, 12, 31),
        ] {
            let date = Date::from_ymd(y, m, d).unwrap();
            assert_eq!(date.ymd(), (y, m, d));
        }
        assert_eq!(Date::from_ymd(1970, 1, 1), Some(Date(0)));
        assert_eq!(Date::from_ymd(2023, 2, 29), None);
    }

    #[test]
    fn texts_parse_by_type() {
        assert_eq!(parse_text(&FieldType::Int, "12"), Ok(Value::Int(12)));
        assert_eq!(parse_text(&FieldType::Int, "12.0"), Ok(Value::Int(12)));
        assert!(parse_text(&FieldType::Int, "12.5").is_err());
        assert_eq!(
            parse_text(&FieldType::Int, "1,000")
                .unwrap_err()
                .hint
                .as_deref(),
            Some("remove the thousands separators")
        );
        assert_eq!(
            parse_text(&FieldType::Float, "0.45"),
            Ok(Value::Float(0.45))
        );
        assert!(parse_text(&FieldType::Float, "NaN").is_err());
        assert_eq!(parse_text(&FieldType::Bool, "TRUE"), Ok(Value::Bool(true)));
        assert_eq!(parse_text(&FieldType::Bool, "0"), Ok(Value::Bool(false)));
        assert!(parse_text(&FieldType::Bool, "yes").is_err());
        assert_eq!(parse_text(&FieldType::Int, ""), Ok(Value::Null));
        assert_eq!(parse_text(&FieldType::Int, "  "), Ok(Value::Null));
        assert_eq!(
            parse_text(&FieldType::String, " "),
            Ok(Value::Str(" ".into()))
        );
        assert_eq!(
            parse_text(&FieldType::Date, "2024/4/1").map(|v| v.canonical()),
            Ok("2024-04-01".to_string())
        );
        assert_eq!(
            parse_text(&FieldType::DateTime, "2024-04-01 10:30").map(|v| v.canonical()),
            Ok("2024-04-01T10:30:00".to_string())
        );
        assert!(parse_text(&FieldType::DateTime, "2024-04-01T25:00").is_err());
        let list = FieldType::List(Box::new(FieldType::Int));
        assert_eq!(
            parse_text(&list, "1| 2 |3").map(|v| v.canonical()),
            Ok("1|2|3".to_string())
        );
        assert!(parse_text(&list, "1||3").is_err());
    }

    #[test]
    fn canonical_spellings_are_unique() {
        assert_eq!(Value::Float(12.0).canonical(), "12");
        assert_eq!(Value::Float(-0.0).canonical(), "0");
        assert_eq!(Value::Float(0.1).canonical(), "0.1");
        assert_eq!(Value::Bool(true).canonical(), "true");
        assert_eq!(Value::Null.canonical(), "");
    }

    #[test]
    fn typed_order_is_numeric() {
        let mut values = vec![Value::Int(10), Value::Int(2), Value::Int(1)];
        values.sort();
        assert_eq!(values, vec![Value::Int(1), Value::Int(2), Value::Int(10)]);
        assert_eq!(Value::Float(0.0), Value::Float(-0.0));
    }
}
