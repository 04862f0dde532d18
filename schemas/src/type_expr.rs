//! Type expressions as studios' workbooks write them in their type rows (Luban's
//! `##type`, tableau's): `int`, `int?`, `list,int`, `(list#sep=|),int`,
//! `int#ref=item.TbItem`, `int#range=[1,100]`, `map,int,string`, `(list#sep=,),Vec3`.
//! Reading a sheet needs them (a type row is not data: `structure`), and so does the
//! Luban migration.

/// A parsed type: what it is, and the attributes written on it.
#[derive(Debug, Clone, PartialEq)]
pub struct LubanType {
    pub kind: Kind,
    /// `T?`: the cell may be `null`.
    pub nullable: bool,
    /// `#key=value` attributes, in order (`sep`, `ref`, `range`, `default`...).
    pub attrs: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A primitive, an enum or a bean: a name to resolve.
    Named(String),
    /// `list`, `array`, `set` (one element type) or `map` (key and value types).
    Container {
        name: String,
        elements: Vec<LubanType>,
    },
}

impl LubanType {
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

/// Luban's primitive types, as masterctl types (`text`, a localization key, is a string).
pub fn primitive(name: &str) -> Option<&'static str> {
    Some(match name.trim().to_ascii_lowercase().as_str() {
        "bool" => "bool",
        "byte" | "short" | "int" | "long" | "int8" | "int16" | "int32" | "int64" | "uint8"
        | "uint16" | "uint32" | "uint64" | "sbyte" | "ushort" | "uint" | "ulong" => "int",
        "float" | "double" | "float32" | "float64" => "float",
        "string" | "text" => "string",
        "datetime" => "datetime",
        _ => return None,
    })
}

/// Parse a type expression; `Err` says what is wrong with it.
pub fn parse(text: &str) -> Result<LubanType, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("an empty type".into());
    }
    let parts = split_top(text, ',')?;
    if parts.len() > 1 {
        // `list,int`, `(list#sep=,),int`, `map,int,string`: a container and its elements.
        let head = parse_single(parts[0])?;
        let Kind::Named(name) = head.kind else {
            return Err(format!("`{}` is not a container", parts[0]));
        };
        let elements = parts[1..]
            .iter()
            .map(|p| parse(strip_parens(p)))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(LubanType {
            kind: Kind::Container {
                name: name.to_ascii_lowercase(),
                elements,
            },
            nullable: head.nullable,
            attrs: head.attrs,
        });
    }
    parse_single(text)
}

/// `name[?][#k=v...]`, possibly in parentheses.
fn parse_single(text: &str) -> Result<LubanType, String> {
    let text = strip_parens(text.trim());
    let (base, attrs) = match text.find(['#', '&']) {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => (text, ""),
    };
    let mut base = base.trim();
    let mut nullable = false;
    if let Some(stripped) = base.strip_suffix('?') {
        base = stripped.trim_end();
        nullable = true;
    }
    if base.is_empty() || base.contains(['(', ')', ',']) {
        return Err(format!("`{text}` is not a type"));
    }
    let mut parsed = Vec::new();
    for attr in split_attrs(attrs).iter().filter(|a| !a.trim().is_empty()) {
        // `#(range=(1, 10])`: an attribute in parentheses.
        let attr = attr.trim();
        let attr = match attr.strip_prefix('(') {
            Some(inner) if attr.ends_with(')') => &inner[..inner.len() - 1],
            _ => attr,
        };
        let (key, value) = attr.split_once('=').unwrap_or((attr, ""));
        parsed.push((key.trim().to_string(), value.trim().to_string()));
    }
    Ok(LubanType {
        kind: Kind::Named(base.to_string()),
        nullable,
        attrs: parsed,
    })
}

/// `sep=\\#&ref=x` → `sep=#`, `ref=x`: attributes split at `#` and `&`, a backslash
/// escaping the next character.
fn split_attrs(attrs: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = attrs.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next()
                    && let Some(a) = out.last_mut()
                {
                    a.push(next);
                }
            }
            '#' | '&' => out.push(String::new()),
            c => {
                if let Some(a) = out.last_mut() {
                    a.push(c);
                }
            }
        }
    }
    out
}

fn strip_parens(text: &str) -> &str {
    let text = text.trim();
    if text.starts_with('(') && text.ends_with(')') && closing(text, 0) == Some(text.len() - 1) {
        strip_parens(&text[1..text.len() - 1])
    } else {
        text
    }
}

/// Where the parenthesis opened at `open` closes.
fn closing(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices().skip_while(|(i, _)| *i < open) {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Split at `separator` outside parentheses and ranges (`[1,100]`, `(1, 10]`), and not
/// in a `#sep=` or `#set=` attribute's value (`Type1#sep=,`).
fn split_top(text: &str, separator: char) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    // Intervals close with either bracket (`(1, 10]`), so both kinds count as one.
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            // `#sep=,` is a separator value; `#set=1,2,3` runs to the end.
            c if c == separator
                && depth == 0
                && !text[start..i].ends_with("sep=")
                && !text[start..i].contains("#set=") =>
            {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
        if depth < 0 {
            return Err(format!("`{text}` closes a parenthesis it did not open"));
        }
    }
    if depth != 0 {
        return Err(format!("`{text}` leaves a parenthesis open"));
    }
    parts.push(&text[start..]);
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str) -> Kind {
        Kind::Named(name.into())
    }

    #[test]
    fn primitives_nullable_and_attributes() {
        let t = parse("int").unwrap();
        assert_eq!((t.kind, t.nullable), (named("int"), false));
        let t = parse("datetime?").unwrap();
        assert_eq!((t.kind, t.nullable), (named("datetime"), true));
        let t = parse("int#range=[1,100]").unwrap();
        assert_eq!(t.attr("range"), Some("[1,100]"));
        let t = parse("string#ref=ai.TbBlackboard?").unwrap();
        assert_eq!(t.attr("ref"), Some("ai.TbBlackboard?"));
        let t = parse("Type1#sep=,").unwrap();
        assert_eq!(t.attr("sep"), Some(","));
        assert_eq!(t.kind, named("Type1"));
        let t = parse("int#(range=(1, 10])").unwrap();
        assert_eq!(t.attr("range"), Some("(1, 10]"));
        let t = parse("long#(range=[1, 10))").unwrap();
        assert_eq!(t.attr("range"), Some("[1, 10)"));
        let Kind::Container { elements, .. } = parse("list,int#set=1,2,3").unwrap().kind else {
            panic!()
        };
        assert_eq!(elements[0].attr("set"), Some("1,2,3"));
        let t = parse("(list#sep=\\#),int").unwrap();
        assert_eq!(t.attr("sep"), Some("#"));
        let t = parse("x5#default=10").unwrap();
        assert_eq!(t.attr("default"), Some("10"));
    }

    #[test]
    fn containers_with_separators() {
        let t = parse("list,int").unwrap();
        assert_eq!(
            t.kind,
            Kind::Container {
                name: "list".into(),
                elements: vec![parse("int").unwrap()]
            }
        );
        let t = parse("(list#sep=|),int").unwrap();
        assert_eq!(t.attr("sep"), Some("|"));
        let t = parse("(list#sep=,),string").unwrap();
        assert_eq!(t.attr("sep"), Some(","));
        let Kind::Container { elements, .. } =
            parse("list,(int#ref=test.TbTestBeRef)").unwrap().kind
        else {
            panic!()
        };
        assert_eq!(elements[0].attr("ref"), Some("test.TbTestBeRef"));
        let Kind::Container { name, elements } = parse("map,int,string").unwrap().kind else {
            panic!()
        };
        assert_eq!((name.as_str(), elements.len()), ("map", 2));
        assert!(parse("(list,int").is_err());
        assert!(parse("").is_err());
    }
}
