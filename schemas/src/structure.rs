//! Rows that describe a sheet rather than hold its data: a row declaring each column's
//! type under the header (Luban's `##type`, tableau's type row, `int`, `list,int`,
//! `[]uint32`, `string?`), as validation skips it and `schema infer` reads it.

use crate::grid::{Cell, Grid};
use crate::type_expr::{self as types, Kind};

/// A type a structure row declares, as masterctl reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declared {
    /// The masterctl type (`int`, `list<float>`); `None` for a type word masterctl has no
    /// type for (a map of structures, a named enum or structure, a list of lists): the
    /// values decide.
    pub ty: Option<String>,
    /// `T?`: the cell may be empty.
    pub optional: bool,
    /// A list's separator in the cells (a map's between entries), when not `|`.
    pub separator: Option<String>,
    /// A map's separator between a key and its value, when not `:`.
    pub key_separator: Option<String>,
    /// tableau's `range:"1,10"`: the least value (`~` for none).
    pub min: Option<String>,
    /// The greatest.
    pub max: Option<String>,
    /// `*int`: the column keys the table.
    pub key: bool,
}

/// A scalar type word of Luban, tableau (protobuf names) or masterctl.
fn scalar(word: &str) -> Option<&'static str> {
    types::primitive(word).or_else(|| {
        Some(match word.trim().to_ascii_lowercase().as_str() {
            "boolean" => "bool",
            "sint32" | "sint64" | "fixed32" | "fixed64" | "sfixed32" | "sfixed64" | "integer" => {
                "int"
            }
            "number" => "float",
            "str" | "bytes" => "string",
            "timestamp" => "datetime",
            "date" => "date",
            _ => return None,
        })
    })
}

/// The type a cell of a structure row declares; `None` when the text is not a type.
/// The words of Luban (`int?`, `list,int`, `(list#sep=|),int`), tableau (`[]int32`,
/// `map<uint32, Item>`, properties after `|{...}`), tabtoy (`repeated float`),
/// masterctl (`list<int>`), and the arrays of other exporters (`int[]`, `int[3]`,
/// `*int` for a key).
pub fn declared_type(text: &str) -> Option<Declared> {
    let (text, props) = split_properties(text);
    let text = text.trim();
    // `*int`: a key column's type.
    if let Some(keyed) = text.strip_prefix('*').filter(|t| !t.starts_with('*')) {
        return Some(Declared {
            key: true,
            ..declared_type(keyed)?
        });
    }
    let mut declared = type_word(text)?;
    if let Some(props) = props {
        apply_properties(&mut declared, props);
    }
    Some(declared)
}

/// tableau's field properties after a type (`[]int32|{sep:"!" range:"1,10"}`), as
/// written: the type, and the properties inside the braces when there are some.
fn split_properties(text: &str) -> (&str, Option<&str>) {
    match text.split_once("|{") {
        Some((ty, props)) if props.trim_end().ends_with('}') => {
            (ty, props.trim_end().strip_suffix('}'))
        }
        _ => (text, None),
    }
}

/// tableau's properties masterctl reads — separators (`sep`, a map's `subsep`), a
/// `range`, `optional` — onto the type they follow.
fn apply_properties(declared: &mut Declared, props: &str) {
    let is = |prefix: &str| {
        declared
            .ty
            .as_deref()
            .is_some_and(|t| t.starts_with(prefix))
    };
    let (list, map) = (is("list<"), is("map<"));
    for (key, value) in pairs(props).unwrap_or_default() {
        match key {
            "sep" if !value.is_empty() && (list || map) => declared.separator = Some(value.into()),
            "subsep" if !value.is_empty() && map => declared.key_separator = Some(value.into()),
            "range" => {
                if let Some((min, max)) = value.split_once(',') {
                    let bound =
                        |b: &str| Some(b.trim().to_string()).filter(|b| !b.is_empty() && b != "~");
                    (declared.min, declared.max) = (bound(min), bound(max));
                }
            }
            "optional" => declared.optional |= value == "true",
            _ => {}
        }
    }
}

/// `key:value` pairs apart by spaces, a value quoted (`sep:";"`, `Default: "100"`) or
/// bare (`size:2`, `MakeIndex:true`); `None` when the text is not only such pairs.
fn pairs(text: &str) -> Option<Vec<(&str, &str)>> {
    let mut pairs = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let (key, after) = rest.split_once(':')?;
        let key = key.trim();
        let is_key = key.starts_with(char::is_alphabetic)
            && key.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !is_key {
            return None;
        }
        let after = after.trim_start();
        let (value, next) = match after.strip_prefix('"') {
            Some(quoted) => quoted.split_once('"')?,
            None => after.split_once(' ').unwrap_or((after, "")),
        };
        // `http://…` is an address, not a pair.
        if value.is_empty() && !after.starts_with('"') || value.starts_with("//") {
            return None;
        }
        pairs.push((key, value));
        rest = next.trim_start();
    }
    (!pairs.is_empty()).then_some(pairs)
}

/// Whether `row` (under a type row) is tabtoy's meta row: every cell empty or
/// `Key:value` pairs (`MakeIndex:true`, `ListSpliter: "|"`, `Default: "100"`), one at
/// least not empty.
pub fn is_meta_row(grid: &dyn Grid, row: usize) -> bool {
    let mut pairs_seen = false;
    for column in 0..grid.width(row) {
        match grid.cell(row, column) {
            Cell::Empty => {}
            Cell::Text(text) if pairs(text).is_some() => pairs_seen = true,
            _ => return false,
        }
    }
    pairs_seen
}

/// The list separator a meta row's cell names (tabtoy's `ListSpliter: "|"`).
pub fn meta_separator(text: &str) -> Option<String> {
    pairs(text)?
        .into_iter()
        .find(|(key, value)| *key == "ListSpliter" && !value.is_empty())
        .map(|(_, value)| value.to_string())
}

/// A type word, without properties.
fn type_word(text: &str) -> Option<Declared> {
    // tableau's `{.Item}int32`: a structure's first field, one per row: the scalar.
    if let Some(rest) = text.strip_prefix('{')
        && let Some((_, first)) = rest.split_once('}')
    {
        return Some(Declared {
            ty: scalar(first).map(str::to_string),
            ..Declared::default()
        });
    }
    // tabtoy's `repeated float`: a list in one cell.
    if let Some(element) = text.strip_prefix("repeated ") {
        return Some(Declared {
            ty: Some(format!("list<{}>", scalar(element)?)),
            ..Declared::default()
        });
    }
    if text.is_empty() || text.contains(char::is_whitespace) && !text.contains(',') {
        return None;
    }
    if let Some(array) = array_of(text) {
        return Some(array);
    }
    // masterctl's own `list<int>`, tableau's `[]int32` and `[Item]uint32`.
    let list_of = |element: &str| -> Option<Declared> {
        let element = scalar(element.split('#').next().unwrap_or(element))?;
        Some(Declared {
            ty: Some(format!("list<{element}>")),
            ..Declared::default()
        })
    };
    if let Some(inner) = text.strip_prefix("list<").and_then(|t| t.strip_suffix('>')) {
        return list_of(inner);
    }
    if let Some(rest) = text.strip_prefix('[')
        && let Some((structure, element)) = rest.split_once(']')
    {
        // `[Item]uint32`: a list of structures laid over columns, this one a scalar of
        // an element; `[]int32`: a list in one cell.
        if !structure.trim().is_empty() {
            return Some(Declared {
                ty: scalar(element).map(str::to_string),
                ..Declared::default()
            });
        }
        // tableau writes an incell list's elements with commas: `1,2,3`.
        return Some(match list_of(element) {
            Some(list) => Declared {
                separator: Some(",".into()),
                ..list
            },
            None => Declared::default(),
        });
    }
    // tableau's `map<uint32, int32>` of scalars: cells `1:10,2:20`.
    let lower = text.to_ascii_lowercase();
    if let Some(inner) = lower.strip_prefix("map<").and_then(|t| t.strip_suffix('>'))
        && let Some((key, value)) = inner.split_once(',')
        && let (Some(key), Some(value)) = (scalar(key.trim()), scalar(value.trim()))
        && let Some(ty) = crate::schema::FieldType::parse(&format!("map<{key}, {value}>"))
    {
        return Some(Declared {
            ty: Some(ty.to_string()),
            optional: true,
            separator: Some(",".into()),
            ..Declared::default()
        });
    }
    // tableau's `map<uint32, Item>` laid one structure per row: this column is the key.
    if let Some(inner) = lower.strip_prefix("map<").and_then(|t| t.strip_suffix('>'))
        && let Some((key, _)) = inner.split_once(',')
        && let Some(key) = scalar(key.trim())
    {
        return Some(Declared {
            ty: Some(key.to_string()),
            ..Declared::default()
        });
    }
    // `enum<.FruitType>`, `union<…>`: type words without a scalar.
    if ["map<", "enum<", "union<", "struct<"]
        .iter()
        .any(|p| lower.starts_with(p))
        && text.ends_with('>')
    {
        return Some(Declared::default());
    }
    luban_type(text)
}

/// `int[]`, `int[3]`: a list in one cell, its separator left to the cells; `int[3][]`,
/// `int[][]`: a list of lists, a type word masterctl has no type for.
fn array_of(text: &str) -> Option<Declared> {
    let open = text.find('[')?;
    let (element, mut dims) = text.split_at(open);
    let element = match scalar(element) {
        Some(element) => Some(element),
        None if is_type_name(element) => None,
        None => return None,
    };
    let mut depth = 0;
    while let Some(rest) = dims.strip_prefix('[') {
        let (size, after) = rest.split_once(']')?;
        if !size.trim().chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        depth += 1;
        dims = after;
    }
    if !dims.is_empty() {
        return None;
    }
    Some(Declared {
        ty: element
            .filter(|_| depth == 1)
            .map(|element| format!("list<{element}>")),
        optional: true,
        ..Declared::default()
    })
}

/// Luban: `int`, `int?`, `int#range=[1,10]`, `list,int`, `(list#sep=|),int`.
fn luban_type(text: &str) -> Option<Declared> {
    let parsed = types::parse(text).ok()?;
    match &parsed.kind {
        Kind::Named(name) => Some(Declared {
            ty: Some(scalar(name)?.to_string()),
            optional: parsed.nullable,
            ..Declared::default()
        }),
        Kind::Container { name, elements } => {
            if !matches!(name.as_str(), "list" | "array" | "set" | "map") {
                return None;
            }
            // Luban's `(map#sep=,),K,V`: keys and values alternate between one separator.
            if let ("map", [key, value]) = (name.as_str(), elements.as_slice())
                && let (Kind::Named(k), Kind::Named(v)) = (&key.kind, &value.kind)
                && let (Some(k), Some(v)) = (scalar(k), scalar(v))
                && let Some(ty) = crate::schema::FieldType::parse(&format!("map<{k}, {v}>"))
            {
                let separator = parsed.attr("sep").unwrap_or(",").to_string();
                return Some(Declared {
                    ty: Some(ty.to_string()),
                    optional: true,
                    key_separator: Some(separator.clone()),
                    separator: Some(separator),
                    ..Declared::default()
                });
            }
            let element = match (name.as_str(), elements.as_slice()) {
                ("map", _) => None,
                (_, [one]) => match &one.kind {
                    Kind::Named(n) => scalar(n),
                    Kind::Container { .. } => None,
                },
                _ => None,
            };
            let separator = parsed
                .attr("sep")
                .or_else(|| element.map(|_| ","))
                .filter(|s| *s != "|" && s.chars().count() == 1)
                .map(str::to_string);
            Some(Declared {
                ty: element
                    .filter(|e| *e != "bool")
                    .map(|e| format!("list<{e}>")),
                optional: true,
                separator: separator.filter(|_| element.is_some()),
                ..Declared::default()
            })
        }
    }
}

/// Whether the first cell marks a type row (`##type`).
pub fn is_type_marker(cell: Cell) -> bool {
    matches!(cell, Cell::Text(t) if t.trim().to_ascii_lowercase().starts_with("##type"))
}

/// Whether `row` declares types: `##type` in its first cell; or one cell that no data
/// is written as (`[]int32`, `int32|{range:"1,10"}`, `*int`: a table of one column); or
/// two or more cells besides the first, every one a type word or a name of the studio's own types
/// (`vec3`, `ActorType`), at least half of them types masterctl knows (in a row not
/// marked `#`, more of them than of the studio's own names, two at least).
pub fn is_type_row(grid: &dyn Grid, row: usize) -> bool {
    if is_type_marker(grid.cell(row, 0)) {
        return true;
    }
    let marked = grid.cell(row, 0).is_comment();
    let (mut words, mut known, mut named) = (0, 0, 0);
    // A row of one word is a type row only when no data could be written so.
    let mut unmistakable = false;
    for column in 0..grid.width(row) {
        let cell = grid.cell(row, column);
        match cell {
            // An empty cell (a CSV file's is empty text) declares nothing.
            _ if cell.is_empty() => {}
            // The first column may be a marker (`##`) or a comment.
            Cell::Text(_) if column == 0 && marked => {}
            Cell::Text(text) => match declared_type(text) {
                Some(declared) => {
                    words += 1;
                    known += usize::from(declared.ty.is_some());
                    unmistakable = declared.ty.is_some() && is_composite_word(text);
                }
                None if is_type_name(text) => {
                    words += 1;
                    named += usize::from(!marked);
                }
                None => return false,
            },
            _ => return false,
        }
    }
    // An unmarked row naming the studio's own types is one when most of it is types
    // masterctl knows (a `Name, Type` pair, `ID`, `uint32`, is a record).
    let named_ok = named == 0 || known >= 2 && known > named;
    words >= 2 && known * 2 >= words && named_ok || words == 1 && unmistakable
}

/// A type word no cell of data is written as: a list, array or map (`[]int32`,
/// `int[]`, `list<int>`, `map<uint32, Item>`), a key (`*int`), or a type with tableau's
/// properties (`int32|{range:"1,10"}`).
fn is_composite_word(text: &str) -> bool {
    let text = text.trim();
    text.starts_with('*') || text.contains(['[', '<', '{'])
}

/// tableau's note row (under the type row): text in a column whose declared type is a
/// number, bool or date, and no cell a value of its column's type.
pub fn is_note_row(grid: &dyn Grid, row: usize, types: usize) -> bool {
    let mut texts = 0;
    for column in 0..grid.width(row) {
        let cell = grid.cell(row, column);
        if cell.is_empty() {
            continue;
        }
        let Cell::Text(text) = cell else {
            return false;
        };
        let declared = match grid.cell(types, column) {
            Cell::Text(t) => declared_type(t).and_then(|d| d.ty),
            _ => None,
        };
        let typed = |ty: &str| {
            crate::schema::FieldType::parse(ty)
                .is_some_and(|ty| crate::parse::parse_text(&ty, text).is_ok())
        };
        match declared.as_deref() {
            Some(ty @ ("int" | "float" | "bool" | "date" | "datetime")) if !typed(ty) => texts += 1,
            Some("int" | "float" | "bool" | "date" | "datetime") => return false,
            _ => {}
        }
    }
    texts > 0
}

/// `vec3`, `test.DemoEnum`, `Item?`: a name a studio gives its own types.
fn is_type_name(text: &str) -> bool {
    let name = text
        .trim()
        .split('#')
        .next()
        .unwrap_or("")
        .trim_end_matches('?');
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> Option<String> {
        declared_type(text).and_then(|d| d.ty)
    }

    #[test]
    fn type_words_of_luban_tableau_and_masterctl() {
        assert_eq!(ty("int").as_deref(), Some("int"));
        assert_eq!(ty("uint32").as_deref(), Some("int"));
        assert_eq!(ty("double").as_deref(), Some("float"));
        assert_eq!(ty("list<float>").as_deref(), Some("list<float>"));
        assert_eq!(ty("[]int32").as_deref(), Some("list<int>"));
        assert_eq!(
            declared_type("[]int32").unwrap().separator.as_deref(),
            Some(",")
        );
        assert_eq!(ty("(list#sep=|),int").as_deref(), Some("list<int>"));
        let d = declared_type("list,int").unwrap();
        assert_eq!(d.separator.as_deref(), Some(","));
        let d = declared_type("float?").unwrap();
        assert!(d.optional);
        assert_eq!(d.ty.as_deref(), Some("float"));
        // tableau's structures laid over columns and rows: the column's scalar.
        assert_eq!(ty("map<uint32, Item>").as_deref(), Some("int"));
        assert_eq!(
            ty("map<uint32, Item>|{unique:false}").as_deref(),
            Some("int")
        );
        assert_eq!(ty("[Item]uint32").as_deref(), Some("int"));
        assert_eq!(ty("{.Item}int32").as_deref(), Some("int"));
        // Maps of single values: tableau's (`1:10,2:20`), Luban's (keys and values
        // alternating between its separator).
        let d = declared_type("map<uint32, int32>").unwrap();
        assert_eq!(d.ty.as_deref(), Some("map<int, int>"));
        assert_eq!(
            (d.separator.as_deref(), d.key_separator.as_deref()),
            (Some(","), None)
        );
        let d = declared_type("(map#sep=;),string,int").unwrap();
        assert_eq!(d.ty.as_deref(), Some("map<string, int>"));
        assert_eq!(
            (d.separator.as_deref(), d.key_separator.as_deref()),
            (Some(";"), Some(";"))
        );
        assert!(declared_type("map,int,Item").unwrap().ty.is_none());
        for words in ["hello", "a sword", "12", "Circle", "1,2,3", ""] {
            assert!(ty(words).is_none(), "{words}");
        }
    }

    #[test]
    fn arrays_keys_and_properties_of_other_exporters() {
        assert_eq!(ty("int[]").as_deref(), Some("list<int>"));
        assert_eq!(ty("float[3]").as_deref(), Some("list<float>"));
        assert_eq!(ty("repeated float").as_deref(), Some("list<float>"));
        // A list of lists, an array of the studio's own type: type words with no type.
        for word in ["int[3][]", "int[][]", "Vec2[]"] {
            let declared = declared_type(word).unwrap_or_else(|| panic!("{word}"));
            assert_eq!(declared.ty, None, "{word}");
        }
        let key = declared_type("*int").unwrap();
        assert_eq!((key.ty.as_deref(), key.key), (Some("int"), true));
        assert!(declared_type("**int").is_none());
        let sep = declared_type("[]int32|{sep:\"!\"}").unwrap();
        assert_eq!(sep.separator.as_deref(), Some("!"));
        let map = declared_type("map<string,string>|{sep:\";\" subsep:\"=\"}").unwrap();
        assert_eq!(
            (map.separator.as_deref(), map.key_separator.as_deref()),
            (Some(";"), Some("="))
        );
        let range = declared_type("int32|{range:\"1,10\" unique:true}").unwrap();
        assert_eq!(
            (range.min.as_deref(), range.max.as_deref()),
            (Some("1"), Some("10"))
        );
        let open = declared_type("[]int32|{range:\"1,~\" aggregate:true}").unwrap();
        assert_eq!((open.min.as_deref(), open.max), (Some("1"), None));
        assert!(declared_type("uint32|{optional:true}").unwrap().optional);
        assert_eq!(meta_separator("ListSpliter: \"|\"").as_deref(), Some("|"));
        assert_eq!(meta_separator("MakeIndex:true").as_deref(), None);
        assert!(pairs("RepeatCheck:true MakeIndex:true").is_some());
        for text in ["唯一ID", "1:10", "http://x", "a sword: long"] {
            assert!(pairs(text).is_none(), "{text}");
        }
        for words in ["int[x]", "int[3]x", "[3]", "X: 100 Y:89"] {
            assert!(ty(words).is_none(), "{words}");
        }
    }
}
