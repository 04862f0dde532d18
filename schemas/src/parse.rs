//! Text to a typed value, by the field's type: the one rule for a CSV cell, a text cell
//! of a workbook, a key on the command line and a value in a conflict file.

use crate::schema::{Field, FieldType, RecordType, UnionCase, UnionType};
use masterctl_runtime::text;

use crate::value::{LIST_SEPARATOR, MAP_SEPARATOR, Value, parse_date};
use crate::zone::{Zone, read_datetime};

/// Why a text could not become a value of a type: what was expected, and maybe a hint.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub expected: String,
    pub hint: Option<String>,
    /// The hint's kind and values (`hint` = `full-width`, `write` = `120`), for a reader
    /// that says it in another language (as [`crate::Diagnostic::said`]).
    pub said: Vec<(&'static str, String)>,
}

impl Mismatch {
    fn new(expected: impl Into<String>) -> Mismatch {
        Mismatch {
            expected: expected.into(),
            hint: None,
            said: Vec::new(),
        }
    }

    /// A hint of kind `kind` (its words in [`Mismatch::hint`], its values added with
    /// [`Mismatch::arg`]).
    fn hint(mut self, kind: &'static str, hint: impl Into<String>) -> Mismatch {
        self.hint = Some(hint.into());
        self.said.push(("hint", kind.to_string()));
        self
    }

    fn arg(mut self, name: &'static str, value: impl Into<String>) -> Mismatch {
        self.said.push((name, value.into()));
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
        FieldType::DateTime => {
            "a date and time like 2024-04-01T10:00:00 (or with an offset: …+09:00, …Z)".into()
        }
        FieldType::List(inner) => format!("a list of {} separated by `|`", describe(inner)),
        FieldType::Map(key, value) => format!(
            "entries `key:value` separated by `|`, each key {} and each value {}",
            describe(key),
            describe(value)
        ),
        FieldType::Record(record) => describe_record(record),
        FieldType::Union(union) => format!("{} written `{}`", union.name, union.layout()),
    }
}

/// Parse text (a CSV cell, a string cell of a workbook, a TOML default) as a value of
/// `ty`. Empty text is `Null`; enum membership is checked by validation, not here. A
/// datetime without an offset is UTC here ([`parse_text_in`] takes the zone it means).
pub fn parse_text(ty: &FieldType, text: &str) -> Result<Value, Mismatch> {
    parse_text_in(ty, text, None)
}

/// [`parse_text`], a datetime without an offset read in `zone` (`None`: UTC).
pub fn parse_text_in(ty: &FieldType, text: &str, zone: Option<&Zone>) -> Result<Value, Mismatch> {
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
        FieldType::DateTime => read_datetime(text.trim(), zone)
            .map(Value::DateTime)
            .ok_or_else(|| Mismatch::new(describe(ty))),
        FieldType::List(inner) => {
            parse_list(inner, text, LIST_SEPARATOR.encode_utf8(&mut [0; 4]), zone)
        }
        FieldType::Map(key, value) => {
            let separators = MapSeparators {
                entries: &LIST_SEPARATOR.to_string(),
                key: &MAP_SEPARATOR.to_string(),
            };
            parse_map((key, value), text, separators, zone)
        }
        FieldType::Record(record) => parse_record(record, text, zone),
        FieldType::Union(union) => parse_union(union, text, zone),
    }
}

/// A union written in one cell: the case its first part names (its record's name or
/// one of its names), then that case's record in the rest. Its value is a record of the
/// case's name and the case's record, so that it is written back as `case:parts`.
pub fn parse_union(union: &UnionType, text: &str, zone: Option<&Zone>) -> Result<Value, Mismatch> {
    let (named, rest) = text.split_once(&*union.separator).unwrap_or((text, ""));
    let case = case_named(union, named)?;
    let record = parse_record(&case.record, rest, zone)?;
    Ok(union_value(union, case, record))
}

/// The case of `union` a part names, or a mismatch naming the cases it could.
fn case_named<'u>(union: &'u UnionType, named: &str) -> Result<&'u UnionCase, Mismatch> {
    union.case(named).ok_or_else(|| {
        let cases: Vec<&str> = union.cases.iter().map(|c| c.record.name.as_str()).collect();
        Mismatch::new(format!("{} written `{}`", union.name, union.layout()))
            .hint(
                "union-case",
                format!(
                    "`{}` names no case of `{}` ({})",
                    named.trim(),
                    union.name,
                    cases.join(", ")
                ),
            )
            .arg("part", named.trim())
            .arg("cases", cases.join(", "))
    })
}

/// A union's value: a record of its case's name and the case's record.
fn union_value(union: &UnionType, case: &UnionCase, record: Value) -> Value {
    Value::record(
        union.separator.clone(),
        vec![Value::Str(case.record.name.as_str().into()), record],
    )
}

/// A record written in one cell: its parts split at its separator, each its field's
/// value; a field of a record type of the same separator reads its own parts from the
/// ones that follow, a union of the same separator its case's name and then its case's
/// parts. A part left empty is the field's default, or null when it is optional. Too
/// few or too many parts, and an empty part of a required field, are mismatches naming
/// them.
pub fn parse_record(
    record: &RecordType,
    text: &str,
    zone: Option<&Zone>,
) -> Result<Value, Mismatch> {
    let mut parts: Vec<&str> = text.split(&*record.separator).collect();
    // A name of its type before its parts (`vec3,1,2,3`), when it has names.
    let want = record.parts();
    let named = record.names.iter().any(|n| n == parts[0].trim());
    if named && want.is_none_or(|want| parts.len() == want + 1) {
        parts.remove(0);
    }
    let have = parts.len();
    if want.is_some_and(|want| want != have) {
        return Err(parts_mismatch(record, have));
    }
    let mut parts = parts.into_iter();
    let value =
        record_from(record, &mut parts, zone).ok_or_else(|| parts_mismatch(record, have))??;
    match parts.next() {
        Some(_) => Err(parts_mismatch(record, have)),
        None => Ok(value),
    }
}

/// A cell of `have` parts that is not a record of `record`'s parts.
fn parts_mismatch(record: &RecordType, have: usize) -> Mismatch {
    let expected = Mismatch::new(describe_record(record));
    let (name, separator, layout) = (&record.name, &record.separator, record.layout());
    let said = match record.parts() {
        Some(want) => expected
            .hint(
                "record-parts",
                format!("`{name}` is {want} parts separated by `{separator}` ({layout}), and the cell has {have}"),
            )
            .arg("want", want.to_string()),
        // A union of its separator: its case's name, then that case's parts.
        None => {
            let unions: Vec<&str> = (record.fields.iter())
                .filter(|f| matches!(&f.ty, FieldType::Union(u) if u.separator == *separator))
                .map(|f| f.name.as_str())
                .collect();
            expected
                .hint(
                    "record-parts-by-case",
                    format!(
                        "`{name}` is `{layout}` separated by `{separator}`, its `{}` a case's name and then that case's parts; the cell's {have} parts do not make one",
                        unions.join("`, `")
                    ),
                )
                .arg("unions", unions.join(", "))
        }
    };
    said.arg("record", name.clone())
        .arg("layout", layout)
        .arg("have", have.to_string())
}

/// What a record's cell is, as said to a planner.
fn describe_record(record: &RecordType) -> String {
    format!("{} written `{}`", record.name, record.layout())
}

/// A record's value from the parts that follow; `None` when they run out first.
fn record_from<'t>(
    record: &RecordType,
    parts: &mut impl Iterator<Item = &'t str>,
    zone: Option<&Zone>,
) -> Option<Result<Value, Mismatch>> {
    let mut values = Vec::with_capacity(record.fields.len());
    for field in &record.fields {
        let value = match &field.ty {
            FieldType::Record(inner) if inner.separator == record.separator => {
                record_from(inner, parts, zone)?
            }
            FieldType::Union(union) if union.separator == record.separator => {
                union_from(union, parts, zone)?
            }
            _ => record_part(record, field, parts.next()?, zone),
        };
        match value {
            Ok(value) => values.push(value),
            Err(m) => return Some(Err(m)),
        }
    }
    Some(Ok(Value::record(record.separator.clone(), values)))
}

/// A union of its record's separator from the parts that follow: its case's name, then
/// the case's record (its parts, or one part when it has another separator); `None`
/// when they run out first.
fn union_from<'t>(
    union: &UnionType,
    parts: &mut impl Iterator<Item = &'t str>,
    zone: Option<&Zone>,
) -> Option<Result<Value, Mismatch>> {
    let case = match case_named(union, parts.next()?) {
        Ok(case) => case,
        Err(m) => return Some(Err(m)),
    };
    let record = match case.record.separator == union.separator {
        true => record_from(&case.record, parts, zone)?,
        false => parse_record(&case.record, parts.next()?, zone),
    };
    Some(record.map(|record| union_value(union, case, record)))
}

/// A record's field from its part's text: its value, its default when empty (or null
/// when optional); a mismatch naming the field.
fn record_part(
    record: &RecordType,
    field: &Field,
    text: &str,
    zone: Option<&Zone>,
) -> Result<Value, Mismatch> {
    let value = part_value(field, text, zone).map_err(|m| {
        Mismatch::new(format!(
            "{} (its `{}`: {})",
            describe_record(record),
            field.name,
            m.expected
        ))
        .hint("part", part_hint(text.trim(), m))
        .arg("part", text.trim())
    })?;
    match value {
        Value::Null => match &field.default {
            Some(default) => Ok(default.clone()),
            None if field.optional => Ok(Value::Null),
            None => Err(Mismatch::new(format!(
                "{} (its `{}` is required)",
                describe_record(record),
                field.name
            ))
            .hint("record-empty-part", format!("`{}` is empty", field.name))
            .arg("field", field.name.clone())),
        },
        value => Ok(value),
    }
}

/// A record's field's value of its part's text: a bool its field spells its own way
/// too (`y`, `no`: `bool_spellings`), an enum's alias as the value.
fn part_value(field: &Field, part: &str, zone: Option<&Zone>) -> Result<Value, Mismatch> {
    if field.ty == FieldType::Bool
        && let Some(b) = field.bool_spellings.read(part)
    {
        return Ok(Value::Bool(b));
    }
    parse_text_in(&field.ty, part, zone).map(|value| enum_alias(field, value))
}

/// An enum field's value written as one of its aliases or numbers: the value itself.
fn enum_alias(field: &Field, value: Value) -> Value {
    match &value {
        Value::Str(text) if field.ty == FieldType::Enum => field
            .aliases
            .iter()
            .find(|(alias, _)| **alias == **text)
            .map_or(value.clone(), |(_, v)| Value::Str(v.clone())),
        _ => value,
    }
}

/// What a map cell is split at: between entries, and between an entry's key and
/// value. The same text for both means keys and values alternate (`1,100,2,250`, as
/// Luban writes maps).
#[derive(Debug, Clone, Copy)]
pub struct MapSeparators<'s> {
    pub entries: &'s str,
    pub key: &'s str,
}

/// A map of `key` to `value` values, sorted by key; a key given twice, an entry
/// without a key or value, is a mismatch naming it.
pub fn parse_map(
    (key, value): (&FieldType, &FieldType),
    text: &str,
    separators: MapSeparators<'_>,
    zone: Option<&Zone>,
) -> Result<Value, Mismatch> {
    let expected = || {
        format!(
            "entries `key{}value` separated by `{}`, each key {} and each value {}",
            separators.key,
            separators.entries,
            describe(key),
            describe(value)
        )
    };
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    if separators.entries == separators.key {
        let parts: Vec<&str> = text.split(separators.entries).collect();
        if !parts.len().is_multiple_of(2) {
            return Err(Mismatch::new(expected())
                .hint(
                    "odd-parts",
                    format!(
                        "keys and values alternate, and the cell has {} parts: a key lacks its value",
                        parts.len()
                    ),
                )
                .arg("parts", parts.len().to_string()));
        }
        pairs.extend(parts.chunks(2).map(|pair| (pair[0], pair[1])));
    } else {
        for entry in text.split(separators.entries) {
            let Some(pair) = entry.split_once(separators.key) else {
                return Err(Mismatch::new(expected())
                    .hint(
                        "no-key-separator",
                        format!(
                            "`{}` has no `{}` between its key and value",
                            entry.trim(),
                            separators.key
                        ),
                    )
                    .arg("part", entry.trim())
                    .arg("separator", separators.key));
            };
            pairs.push(pair);
        }
    }
    let mut entries: Vec<(Value, Value)> = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty() || v.is_empty() {
            return Err(
                Mismatch::new(expected()).hint("half-entry", "an entry lacks its key or its value")
            );
        }
        let typed = |ty: &FieldType, part: &str| {
            parse_text_in(ty, part, zone).map_err(|m| {
                Mismatch::new(expected())
                    .hint("part", part_hint(part, m))
                    .arg("part", part)
            })
        };
        entries.push((typed(key, k)?, typed(value, v)?));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some(twice) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Mismatch::new(expected())
            .hint(
                "key-twice",
                format!("the key {} is given twice", twice[0].0),
            )
            .arg("key", twice[0].0.to_string()));
    }
    Ok(Value::Map(entries.into()))
}

/// A list of `inner` values written with `separator` between them (`|` in canonical
/// files; a field's own `separator` in the sheets). What a mismatch expects names it.
pub fn parse_list(
    inner: &FieldType,
    text: &str,
    separator: &str,
    zone: Option<&Zone>,
) -> Result<Value, Mismatch> {
    let expected = || match separator {
        "|" => describe(&FieldType::List(Box::new(inner.clone()))),
        other => format!("a list of {} separated by `{other}`", describe(inner)),
    };
    if let FieldType::Record(record) = inner
        && *record.separator == *separator
    {
        return records_run_on(record, text, zone).map_err(|m| Mismatch {
            expected: expected(),
            ..m
        });
    }
    let mut items = Vec::new();
    for part in text.split(separator) {
        let part = part.trim();
        if part.is_empty() {
            return Err(
                Mismatch::new(expected()).hint("empty-element", "a list has an empty element")
            );
        }
        match parse_text_in(inner, part, zone) {
            Ok(value) => items.push(value),
            Err(m) => {
                return Err(Mismatch::new(expected())
                    .hint("part", part_hint(part, m))
                    .arg("part", part));
            }
        }
    }
    Ok(Value::List(items.into()))
}

/// A list of records whose separator is the list's too (Luban's `list,vec3` over
/// `1,2,3,4,5,6`): each record the next as many parts as it has.
fn records_run_on(record: &RecordType, text: &str, zone: Option<&Zone>) -> Result<Value, Mismatch> {
    let parts: Vec<&str> = text.split(&*record.separator).collect();
    let Some(each) = record.parts() else {
        return records_in_turn(record, &parts, zone);
    };
    if !parts.len().is_multiple_of(each) {
        return Err(Mismatch::new(describe_record(record))
            .hint(
                "records-run-on",
                format!(
                    "each `{}` is {each} parts ({}), and the cell's {} parts are not a whole number of them",
                    record.name,
                    record.layout(),
                    parts.len()
                ),
            )
            .arg("record", record.name.clone())
            .arg("want", each.to_string())
            .arg("have", parts.len().to_string()));
    }
    let items = parts
        .chunks(each)
        .map(|chunk| parse_record(record, &chunk.join(&*record.separator), zone))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Value::List(items.into()))
}

/// A list of records of as many parts as their unions' cases have, each read from the
/// parts the one before left.
fn records_in_turn(
    record: &RecordType,
    parts: &[&str],
    zone: Option<&Zone>,
) -> Result<Value, Mismatch> {
    let mut rest = parts.iter().copied().peekable();
    let mut items = Vec::new();
    while rest.peek().is_some() {
        let item = record_from(record, &mut rest, zone)
            .ok_or_else(|| parts_mismatch(record, parts.len()))??;
        items.push(item);
    }
    Ok(Value::List(items.into()))
}

/// What is wrong with a list's element or a map's key or value: what it is not, and
/// why when its own reading says (a record's field, its count of parts).
fn part_hint(part: &str, inner: Mismatch) -> String {
    match inner.hint {
        Some(why) => format!("`{part}` is not {}: {why}", inner.expected),
        None => format!("`{part}` is not {}", inner.expected),
    }
}

/// `text` with its full-width digits, signs and points (`１８`, `－３`, `０．５`) written
/// as ASCII, when it holds any: how an IME on a Japanese or Chinese keyboard types a
/// number.
pub fn half_width(text: &str) -> Option<String> {
    let wide = |c: char| matches!(c, '\u{FF10}'..='\u{FF19}' | '－' | '＋' | '．' | '，' | '−');
    if !text.chars().any(wide) {
        return None;
    }
    Some(
        text.chars()
            .map(|c| match c {
                '\u{FF10}'..='\u{FF19}' => char::from(b'0' + (c as u32 - 0xFF10) as u8),
                '－' | '−' => '-',
                '＋' => '+',
                '．' => '.',
                '，' => ',',
                other => other,
            })
            .collect(),
    )
}

/// `mismatch` with the hint that `text` is written in full-width characters.
fn full_width(mismatch: Mismatch, text: &str, ascii: &str) -> Mismatch {
    let hint = format!("`{text}` is written in full-width characters: write `{ascii}`");
    mismatch.hint("full-width", hint).arg("write", ascii)
}

fn parse_int(text: &str) -> Result<i64, Mismatch> {
    text::parse_int(text).ok_or_else(|| {
        let mismatch = Mismatch::new("a whole number");
        let t = text.trim();
        if let Some(ascii) = half_width(t).filter(|a| a.parse::<i64>().is_ok()) {
            full_width(mismatch, t, &ascii)
        } else if t.contains(',') && t.replace(',', "").parse::<i64>().is_ok() {
            mismatch.hint("thousands", "remove the thousands separators")
        } else if t.parse::<f64>().is_ok_and(f64::is_finite) {
            mismatch.hint(
                "fraction",
                format!("{t} has a fractional part; the field is an int"),
            )
        } else {
            mismatch
        }
    })
}

fn parse_float(text: &str) -> Result<f64, Mismatch> {
    text::parse_float(text).ok_or_else(|| {
        let t = text.trim();
        if t.parse::<f64>().is_ok() {
            return Mismatch::new("a finite number");
        }
        let mismatch = Mismatch::new("a number");
        if let Some(ascii) = half_width(t).filter(|a| a.parse::<f64>().is_ok()) {
            return full_width(mismatch, t, &ascii);
        }
        if let Some(percent) = t.strip_suffix('%')
            && percent.trim().parse::<f64>().is_ok()
        {
            return mismatch.hint("percent", "write percentages as fractions (45% is 0.45)");
        }
        if t.contains(',') && t.replace(',', "").parse::<f64>().is_ok() {
            return mismatch.hint("thousands", "remove the thousands separators");
        }
        mismatch
    })
}

fn parse_bool(text: &str) -> Result<bool, Mismatch> {
    text::parse_bool(text).ok_or_else(|| Mismatch::new("TRUE or FALSE"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            Ok("2024-04-01T10:30:00Z".to_string())
        );
        assert!(parse_text(&FieldType::DateTime, "2024-04-01T25:00").is_err());
        // A date alone is its midnight (in the zone, below).
        assert_eq!(
            parse_text(&FieldType::DateTime, "2024/4/1").map(|v| v.canonical()),
            Ok("2024-04-01T00:00:00Z".to_string())
        );
        assert!(parse_text(&FieldType::DateTime, "2024-04-31").is_err());
        // An offset is applied; without one, the zone given says what the time means.
        let tokyo = crate::Zone::named("Asia/Tokyo").unwrap();
        for (text, zone) in [
            ("2024-04-01T19:30:00+09:00", None),
            ("2024-04-01T10:30Z", Some(&tokyo)),
            ("2024-04-01 19:30", Some(&tokyo)),
        ] {
            assert_eq!(
                parse_text_in(&FieldType::DateTime, text, zone).map(|v| v.canonical()),
                Ok("2024-04-01T10:30:00Z".to_string()),
                "{text}"
            );
        }
        assert_eq!(
            parse_text_in(&FieldType::DateTime, "2024-04-02", Some(&tokyo)).map(|v| v.canonical()),
            Ok("2024-04-01T15:00:00Z".to_string()),
        );
        let list = FieldType::List(Box::new(FieldType::Int));
        assert_eq!(
            parse_text(&list, "1| 2 |3").map(|v| v.canonical()),
            Ok("1|2|3".to_string())
        );
        assert!(parse_text(&list, "1||3").is_err());
    }
}

#[cfg(test)]
mod full_width {
    use super::*;

    #[test]
    fn a_number_typed_in_full_width_digits_is_named_so() {
        for (text, ty, ascii) in [
            ("１８", FieldType::Int, "18"),
            ("－３", FieldType::Int, "-3"),
            ("０．５", FieldType::Float, "0.5"),
        ] {
            let mismatch = parse_text_in(&ty, text, None).unwrap_err();
            assert_eq!(
                mismatch.hint.as_deref(),
                Some(
                    format!("`{text}` is written in full-width characters: write `{ascii}`")
                        .as_str()
                )
            );
        }
        assert_eq!(half_width("18"), None);
    }
}
