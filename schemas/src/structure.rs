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
    /// A list's separator in the cells, when not `|`.
    pub separator: Option<String>,
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
    let text = text.trim();
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
        })
    };
    if let Some(inner) = text.strip_prefix("list<").and_then(|t| t.strip_suffix('>')) {
        return list_of(inner);
    }
    if let Some(rest) = text.strip_prefix('[')
        && let Some((_, element)) = rest.split_once(']')
    {
        return list_of(element).or(Some(Declared {
            ty: None,
            optional: false,
            separator: None,
        }));
    }
    // tableau's `map<uint32, Item>`, `enum<.FruitType>`: type words without a scalar.
    let lower = text.to_ascii_lowercase();
    if ["map<", "enum<", "union<", "struct<"]
        .iter()
        .any(|p| lower.starts_with(p))
        && text.ends_with('>')
    {
        return Some(Declared {
            ty: None,
            optional: false,
            separator: None,
        });
    }
    // Luban: `int`, `int?`, `int#range=[1,10]`, `list,int`, `(list#sep=|),int`.
    let parsed = types::parse(text).ok()?;
    match &parsed.kind {
        Kind::Named(name) => Some(Declared {
            ty: Some(scalar(name)?.to_string()),
            optional: parsed.nullable,
            separator: None,
        }),
        Kind::Container { name, elements } => {
            if !matches!(name.as_str(), "list" | "array" | "set" | "map") {
                return None;
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
        assert_eq!(ty("(list#sep=|),int").as_deref(), Some("list<int>"));
        let d = declared_type("list,int").unwrap();
        assert_eq!(d.separator.as_deref(), Some(","));
        let d = declared_type("float?").unwrap();
        assert!(d.optional);
        assert_eq!(d.ty.as_deref(), Some("float"));
        assert!(declared_type("map<uint32, Item>").unwrap().ty.is_none());
        assert!(declared_type("map,int,int").unwrap().ty.is_none());
        for words in ["hello", "a sword", "12", "Circle", "1,2,3", ""] {
            assert!(ty(words).is_none(), "{words}");
        }
    }
}
