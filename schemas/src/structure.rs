//! Rows that describe a sheet rather than hold its data: a row declaring each column's
//! type under the header (Luban's `##type`, tableau's type row, `int`, `list,int`,
//! `[]uint32`, `string?`), as validation skips it and `schema infer` reads it.

use crate::grid::{Cell, Grid};
use crate::type_expr::{self as types, Kind};

/// A type a structure row declares, as masterctl reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// The masterctl type (`int`, `list<float>`); `None` for a type word masterctl has no
    /// scalar for (a map, a named enum or structure): the values decide.
    pub ty: Option<String>,
    /// `T?`: the cell may be empty.
    pub optional: bool,
    /// A list's separator in the cells (a map's between entries), when not `|`.
    pub separator: Option<String>,
    /// A map's separator between a key and its value, when not `:`.
    pub key_separator: Option<String>,
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
pub fn declared_type(text: &str) -> Option<Declared> {
    // tableau's field properties after the type: `map<uint32, Item>|{unique:false}`.
    let text = match text.split_once("|{") {
        Some((ty, props)) if props.trim_end().ends_with('}') => ty,
        _ => text,
    };
    let text = text.trim();
    // tableau's `{.Item}int32`: a structure's first field, one per row: the scalar.
    if let Some(rest) = text.strip_prefix('{')
        && let Some((_, first)) = rest.split_once('}')
    {
        return Some(Declared {
            ty: scalar(first).map(str::to_string),
            optional: false,
            separator: None,
            key_separator: None,
        });
    }
    if text.is_empty() || text.contains(char::is_whitespace) && !text.contains(',') {
        return None;
    }
    // masterctl's own `list<int>`, tableau's `[]int32` and `[Item]uint32`.
    let list_of = |element: &str| -> Option<Declared> {
        let element = scalar(element.split('#').next().unwrap_or(element))?;
        Some(Declared {
            ty: Some(format!("list<{element}>")),
            optional: false,
            separator: None,
            key_separator: None,
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
                optional: false,
                separator: None,
                key_separator: None,
            });
        }
        // tableau writes an incell list's elements with commas: `1,2,3`.
        return match list_of(element) {
            Some(list) => Some(Declared {
                separator: Some(",".into()),
                ..list
            }),
            None => Some(Declared {
                ty: None,
                optional: false,
                separator: None,
                key_separator: None,
            }),
        };
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
            key_separator: None,
        });
    }
    // tableau's `map<uint32, Item>` laid one structure per row: this column is the key.
    if let Some(inner) = lower.strip_prefix("map<").and_then(|t| t.strip_suffix('>'))
        && let Some((key, _)) = inner.split_once(',')
        && let Some(key) = scalar(key.trim())
    {
        return Some(Declared {
            ty: Some(key.to_string()),
            optional: false,
            separator: None,
            key_separator: None,
        });
    }
    // `enum<.FruitType>`, `union<…>`: type words without a scalar.
    if ["map<", "enum<", "union<", "struct<"]
        .iter()
        .any(|p| lower.starts_with(p))
        && text.ends_with('>')
    {
        return Some(Declared {
            ty: None,
            optional: false,
            separator: None,
            key_separator: None,
        });
    }
    // Luban: `int`, `int?`, `int#range=[1,10]`, `list,int`, `(list#sep=|),int`.
    let parsed = types::parse(text).ok()?;
    match &parsed.kind {
        Kind::Named(name) => Some(Declared {
            ty: Some(scalar(name)?.to_string()),
            optional: parsed.nullable,
            separator: None,
            key_separator: None,
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
                key_separator: None,
            })
        }
    }
}

/// Whether the first cell marks a type row (`##type`).
pub fn is_type_marker(cell: Cell) -> bool {
    matches!(cell, Cell::Text(t) if t.trim().to_ascii_lowercase().starts_with("##type"))
}

/// Whether `row` declares types: `##type` in its first cell; or two or more cells
/// besides the first, every one a type word (in a row marked `#...`, also names of the
/// studio's own types, `vec3`), at least half of them types masterctl knows.
pub fn is_type_row(grid: &dyn Grid, row: usize) -> bool {
    if is_type_marker(grid.cell(row, 0)) {
        return true;
    }
    let marked = grid.cell(row, 0).is_comment();
    let (mut words, mut known) = (0, 0);
    for column in 0..grid.width(row) {
        match grid.cell(row, column) {
            Cell::Empty => {}
            // The first column may be a marker (`##`) or a comment.
            Cell::Text(_) if column == 0 && marked => {}
            Cell::Text(text) => match declared_type(text) {
                Some(declared) => {
                    words += 1;
                    known += usize::from(declared.ty.is_some());
                }
                None if marked && is_type_name(text) => words += 1,
                None => return false,
            },
            _ => return false,
        }
    }
    words >= 2 && known * 2 >= words
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
}
