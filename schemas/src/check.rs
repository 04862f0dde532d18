//! Checks on one value against its field's options ([`check_value`]): enum values,
//! min/max, min_length/max_length, pattern, control characters. Used by typing (every
//! cell), loading (defaults) and validation; depends on none of them.

use crate::diagnostic::{Code, Diagnostic, Location};
use crate::schema::{Field, FieldType, RecordType};
use crate::suggest::did_you_mean;
use crate::value::{LIST_SEPARATOR, Value};

/// A mistake in one value before it has a place: a [`Diagnostic`] whose location the
/// caller fills in. Boxed, so that the `Result` of every checked cell stays small.
pub type Problem = Box<Diagnostic>;

/// A problem of the given code, located nowhere yet.
pub fn problem(code: Code, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(code, Location::default(), message)
}

/// Check a typed, non-null value against its field's options: enum values, min/max,
/// min_length/max_length (in grapheme clusters, as a person counts characters), pattern.
#[inline]
pub fn check_value(field: &Field, value: &Value) -> Result<(), Problem> {
    if within_bounds(field, value) {
        return Ok(());
    }
    check_in_full(field, value)
}

/// Whether `value` is a number or date within `min` and `max` of its own kind (or
/// none): all there is to check of such a value, decided without a call (most cells
/// of a large table are such values). `false` leaves it to the full checks.
#[inline(always)]
pub(crate) fn within_bounds(field: &Field, value: &Value) -> bool {
    use std::cmp::Ordering::{Greater, Less};
    // As `Value`'s order, for two values of one kind.
    let order = |bound: &Value| match (value, bound) {
        (Value::Int(a), Value::Int(b)) => Some(a.cmp(b)),
        (Value::Float(a), Value::Float(b)) => {
            Some(crate::value::normalize_zero(*a).total_cmp(&crate::value::normalize_zero(*b)))
        }
        (Value::Date(a), Value::Date(b)) => Some(a.cmp(b)),
        _ => None,
    };
    matches!(value, Value::Int(_) | Value::Float(_) | Value::Date(_))
        && field
            .min
            .as_ref()
            .is_none_or(|min| order(min).is_some_and(|o| o != Less))
        && field
            .max
            .as_ref()
            .is_none_or(|max| order(max).is_some_and(|o| o != Greater))
}

fn check_in_full(field: &Field, value: &Value) -> Result<(), Problem> {
    match value {
        Value::List(items) => items.iter().try_for_each(|item| check_scalar(field, item)),
        // The options are the values'; a map's enum keys are checked against `values`.
        Value::Map(entries) => entries.iter().try_for_each(|(key, value)| {
            if field.ty.map_key() == Some(&FieldType::Enum)
                && let Some(text) = key.as_str()
            {
                check_enum(field, text)?;
            }
            check_scalar(field, value)
        }),
        _ => check_scalar(field, value),
    }
}

/// The checks [`check_value`] makes of a string or text value of a field that has no
/// `min` or `max` and is not an enum: control characters, length, pattern. The text is
/// checked where it lies, without a value made of it.
pub fn check_text(field: &Field, text: &str) -> Result<(), Problem> {
    check_control(text)?;
    check_nesting(field, text)?;
    check_length_and_pattern(field, text)
}

fn check_scalar(field: &Field, value: &Value) -> Result<(), Problem> {
    // Within a list or a map, `|` separates the records.
    let listed = matches!(field.ty, FieldType::List(_) | FieldType::Map(..));
    if let Some(checked) = check_parts(field.ty.scalar(), value, listed) {
        return checked;
    }
    if let Some(text) = value.as_str() {
        check_control(text)?;
        check_nesting(field, text)?;
    }
    if field.ty.scalar() == &FieldType::Enum
        && let Value::Str(text) = value
        // A value typing found among the field's values is that value itself.
        && !field.values.iter().any(|v| std::sync::Arc::ptr_eq(v, text))
    {
        check_enum(field, text)?;
    }
    if let Some(min) = &field.min
        && value < min
    {
        return Err(problem(
            Code::OutOfRange,
            format!("{value} is below the minimum {min}"),
        )
        .found(value.to_string())
        .expected(range_text(field))
        .arg("case", "below")
        .arg("limit", min.to_string())
        .into());
    }
    if let Some(max) = &field.max
        && value > max
    {
        return Err(problem(
            Code::OutOfRange,
            format!("{value} is above the maximum {max}"),
        )
        .found(value.to_string())
        .expected(range_text(field))
        .arg("case", "above")
        .arg("limit", max.to_string())
        .into());
    }
    match value.as_str() {
        Some(text) => check_length_and_pattern(field, text),
        None => Ok(()),
    }
}

/// A record's or a union's value of type `ty` checked field by field (a union's: its
/// case's record); `None` for a value of no parts.
fn check_parts(ty: &FieldType, value: &Value, listed: bool) -> Option<Result<(), Problem>> {
    match (ty, value) {
        (FieldType::Record(record), Value::Record(values)) => {
            Some(check_record(record, &values.fields, listed))
        }
        // A union's value: its case's name, then its case's record.
        (FieldType::Union(union), value) => {
            let (named, Value::Record(inner)) = value.union_case()? else {
                return None;
            };
            let case = union.case(named)?;
            Some(check_record(&case.record, &inner.fields, listed))
        }
        _ => None,
    }
}

/// Each field of a record value against its options, a mistake naming the field; in a
/// list or a map (`listed`), a text holding `|` is refused, since canonical files
/// separate the records with it.
fn check_record(record: &RecordType, values: &[Value], listed: bool) -> Result<(), Problem> {
    for (field, value) in record.fields.iter().zip(values) {
        let checked = match value {
            Value::Null => Ok(()),
            Value::Str(text) if listed && text.contains(LIST_SEPARATOR) => Err(problem(
                Code::TypeError,
                format!(
                    "`{}` holds `{LIST_SEPARATOR}`, which separates the records of a list",
                    field.name
                ),
            )
            .found(text.to_string())
            .expected(format!("a text without `{LIST_SEPARATOR}`"))
            .into()),
            Value::Record(_) => {
                check_parts(&field.ty, value, listed).unwrap_or_else(|| check_value(field, value))
            }
            value => check_value(field, value),
        };
        checked.map_err(|mut p| {
            p.message = format!("{}'s `{}`: {}", record.name, field.name, p.message);
            p
        })?;
    }
    Ok(())
}

/// A text (an ICU message) whose choices nest no deeper than translators' tools, the
/// pseudo language and the checks read them ([`crate::message::MAX_NESTING`]).
fn check_nesting(field: &Field, text: &str) -> Result<(), Problem> {
    if field.ty != FieldType::Text || !crate::message::too_deep(text) {
        return Ok(());
    }
    Err(problem(
        Code::MessageSyntax,
        format!(
            "the message nests its choices more than {} deep",
            crate::message::MAX_NESTING
        ),
    )
    .expected(format!(
        "at most {} choices (plural, select) inside one another",
        crate::message::MAX_NESTING
    ))
    .arg("case", "nesting")
    .arg("limit", crate::message::MAX_NESTING.to_string())
    .into())
}

/// A text without control characters but line breaks and tabs.
fn check_control(text: &str) -> Result<(), Problem> {
    if may_hold_control(text)
        && let Some((at, c)) = text
            .chars()
            .enumerate()
            .find(|&(_, c)| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(problem(
            Code::ControlCharacter,
            format!(
                "the text holds the control character U+{:04X} at character {}",
                c as u32,
                at + 1
            ),
        )
        .expected("text without control characters (line breaks and tabs are fine)")
        .arg("char", format!("U+{:04X}", c as u32))
        .arg("at", (at + 1).to_string())
        .hint("such characters are invisible in a spreadsheet and cannot be written to translators' XML files: delete them")
        .into());
    }
    Ok(())
}

/// `min_length`/`max_length` (in grapheme clusters, as a person counts characters) and
/// `pattern`.
fn check_length_and_pattern(field: &Field, text: &str) -> Result<(), Problem> {
    if needs_length_count(field, text) {
        // A text (an ICU message) is shown as one of its variants: its shortest must
        // reach `min_length`, its longest fit `max_length`.
        let (shortest, longest) = if field.ty == FieldType::Text {
            let lengths = crate::message::lengths(text);
            (lengths.shortest, lengths.longest)
        } else {
            let length = crate::message::graphemes(text);
            (length, length)
        };
        let too_short = field.min_length.is_some_and(|min| shortest < min as usize);
        let too_long = field.max_length.is_some_and(|max| longest > max as usize);
        let length = if too_long { longest } else { shortest };
        if too_short || too_long {
            let expected = match (field.min_length, field.max_length) {
                (Some(lo), Some(hi)) => format!("{lo} to {hi} characters"),
                (Some(lo), None) => format!("at least {lo} characters"),
                (None, Some(hi)) => format!("at most {hi} characters"),
                (None, None) => String::new(),
            };
            return Err(problem(
                Code::Length,
                format!(
                    "the text has {length} characters; `{}` allows {expected}",
                    field.name
                ),
            )
            .found(text)
            .expected(expected)
            .arg("case", if too_long { "long" } else { "short" })
            .arg("length", length.to_string())
            .arg("min", field.min_length.unwrap_or(0).to_string())
            .arg("max", field.max_length.unwrap_or(0).to_string())
            .into());
        }
    }
    if let Some((pattern, regex)) = &field.pattern
        && !regex.is_match(text)
    {
        return Err(problem(
            Code::Pattern,
            format!("`{text}` does not match the pattern of `{}`", field.name),
        )
        .found(text)
        .expected(format!("text matching {pattern}"))
        .arg("pattern", pattern.to_string())
        .into());
    }
    Ok(())
}

/// Whether a text may hold a control character (U+0000 to U+001F, U+007F to U+009F):
/// a byte below 0x20, DEL, or the lead byte of U+0080 to U+00BF. Looked at byte by
/// byte, which is fast; the characters are decoded only when this says yes.
fn may_hold_control(text: &str) -> bool {
    let suspect = |b: u8| (b < 0x20) | (b == 0x7F) | (b == 0xC2);
    let bytes = text.as_bytes();
    // 16 bytes at a time without stopping early, which the compiler turns into vector
    // compares; a text's last bytes as the 16 that end it (a short name of a few CJK
    // characters is mostly tail).
    let any = |chunk: &[u8; 16]| chunk.iter().fold(false, |seen, &b| seen | suspect(b));
    let (chunks, _) = bytes.as_chunks::<16>();
    match bytes.last_chunk::<16>() {
        Some(last) => chunks.iter().any(any) || any(last),
        None => bytes.iter().any(|&b| suspect(b)),
    }
}

/// An enum's value (or a map's enum key) is one of the field's `values`.
fn check_enum(field: &Field, text: &str) -> Result<(), Problem> {
    if field.values.iter().any(|v| &**v == text) {
        return Ok(());
    }
    let mut d = problem(
        Code::EnumValue,
        format!("`{text}` is not a value of `{}`", field.name),
    )
    .found(text)
    .expected(format!("one of: {}", field.values.join(", ")))
    .arg("values", field.values.join(", "));
    if let Some(similar) = did_you_mean(text.trim(), field.values.iter().map(|v| &**v)) {
        d = d.did_you_mean(similar);
    }
    Err(d.into())
}

/// Whether the grapheme count can decide anything: a text (and any variant of a
/// message, which leaves syntax out) never has more graphemes than characters, nor
/// characters than bytes, so a text within `max_length` characters (and no
/// `min_length`) passes as is.
fn needs_length_count(field: &Field, text: &str) -> bool {
    match (field.min_length, field.max_length) {
        (None, None) => false,
        (None, Some(max)) => text.len() > max as usize && text.chars().count() > max as usize,
        _ => true,
    }
}

fn range_text(field: &Field) -> String {
    match (&field.min, &field.max) {
        (Some(lo), Some(hi)) => format!("between {lo} and {hi}"),
        (Some(lo), None) => format!("at least {lo}"),
        (None, Some(hi)) => format!("at most {hi}"),
        (None, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_character_is_seen_by_the_byte_scan() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            if c.is_control() {
                assert!(may_hold_control(&format!("剣{c}x")), "{:04X}", c as u32);
                // Past the first 32 bytes, and in the last of 32.
                let long = format!("{}{c}", "あ".repeat(11));
                assert!(may_hold_control(&long), "{:04X} at the end", c as u32);
                assert!(
                    may_hold_control(&format!("{long}{}", "x".repeat(40))),
                    "{:04X}",
                    c as u32
                );
            }
        }
        assert!(!may_hold_control("鉄の剣、Ａ１ é ñ"));
        assert!(!may_hold_control(&"鉄の剣、Ａ１ é ñ".repeat(9)));
    }

    fn field(ty: FieldType, min_length: Option<u32>, max_length: Option<u32>) -> Field {
        Field {
            name: "title".into(),
            ty,
            optional: false,
            default: None,
            min: None,
            max: None,
            min_length,
            max_length,
            pattern: None,
            values: Vec::new(),
            references: None,
            unique: false,
            description: None,
            columns: Vec::new(),
            column_offset: 0,
            nulls: Vec::new(),
            separator: None,
            key_separator: None,
            multi_row: false,
            repeated_header: false,
            column_span: 1,
            source_sheet: false,
            escapes: false,
            aliases: Vec::new(),
            bool_spellings: Default::default(),
            zone: crate::Zone::utc(),
            audience: Default::default(),
            cases: Vec::new(),
        }
    }

    /// A number or date within bounds of its kind passes without the full checks; any
    /// other value, bound or kind gets them: the outcome is the same for each.
    #[test]
    fn a_value_within_its_bounds_is_decided_as_the_full_checks_decide() {
        let date = |d| Value::Date(crate::value::parse_date(d).unwrap());
        let values = [
            Value::Int(-1),
            Value::Int(0),
            Value::Int(5),
            Value::Int(11),
            Value::Float(-0.0),
            Value::Float(0.5),
            Value::Float(1.0),
            Value::Float(2.5),
            date("2024-01-01"),
            date("2025-06-30"),
            Value::Str("5".into()),
            Value::Bool(true),
        ];
        let bounds = [
            None,
            Some(Value::Int(0)),
            Some(Value::Int(10)),
            Some(Value::Float(0.0)),
            Some(Value::Float(1.0)),
            Some(date("2025-01-01")),
        ];
        for ty in [FieldType::Int, FieldType::Float, FieldType::Date] {
            for (min, max) in bounds
                .iter()
                .flat_map(|a| bounds.iter().map(move |b| (a, b)))
            {
                let mut field = field(ty.clone(), None, None);
                (field.min, field.max) = (min.clone(), max.clone());
                for value in &values {
                    let fast = check_value(&field, value).err().map(|p| *p);
                    let full = check_in_full(&field, value).err().map(|p| *p);
                    assert_eq!(fast, full, "{value:?} in {min:?}..{max:?}");
                }
            }
        }
    }

    #[test]
    fn a_text_is_as_long_as_the_variants_it_shows() {
        let plural = "{count, plural, one {You found # shiny dragon scale} other {You found # shiny dragon scales}}";
        let value = Value::Str(plural.into());
        // A text field counts the longest branch (31), a string field every character.
        assert!(check_value(&field(FieldType::Text, None, Some(31)), &value).is_ok());
        assert!(check_value(&field(FieldType::Text, None, Some(30)), &value).is_err());
        assert!(check_value(&field(FieldType::String, None, Some(31)), &value).is_err());
        // ... and the shortest branch (30) must reach min_length.
        assert!(check_value(&field(FieldType::Text, Some(30), None), &value).is_ok());
        assert!(check_value(&field(FieldType::Text, Some(31), None), &value).is_err());
    }
}
