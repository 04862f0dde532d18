//! Names in generated code: case conversions of schema identifiers, identifiers made from
//! enum values (any text) that every target language accepts, and text from schemas
//! (values, descriptions) escaped for a string literal or a doc comment of each language.

use crate::Lang;

/// Split an identifier or a value into its words: at `_`, `-`, spaces and other
/// punctuation, and where a lower-case letter or digit meets an upper-case one.
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous = None;
            continue;
        }
        if c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) {
            words.push(std::mem::take(&mut word));
        }
        word.push(c);
        previous = Some(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

/// `drop_rate` → `drop_rate`.
pub fn snake(text: &str) -> String {
    words(text)
        .iter()
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join("_")
}

/// `drop_rate` → `DROP_RATE`.
pub fn screaming(text: &str) -> String {
    snake(text).to_uppercase()
}

/// `drop_rate` → `drop-rate`.
pub fn kebab(text: &str) -> String {
    snake(text).replace('_', "-")
}

/// `drop_rate` → `DropRate`.
pub fn pascal(text: &str) -> String {
    words(text).iter().map(|w| capitalized(w)).collect()
}

/// Words Go writes in one case throughout (`ItemID`, `iconURL`), as Go's own code and
/// its linters do.
const GO_INITIALISMS: &[&str] = &[
    "acl", "api", "ascii", "cpu", "css", "dns", "eof", "guid", "html", "http", "https", "id", "ip",
    "json", "lhs", "qps", "ram", "rhs", "rpc", "sla", "smtp", "sql", "ssh", "tcp", "tls", "ttl",
    "udp", "ui", "uid", "uuid", "uri", "url", "utf8", "vm", "xml", "xmpp", "xsrf", "xss",
];

/// PascalCase as Go writes it: initialisms in capitals (`item_id` → `ItemID`).
pub fn go_pascal(text: &str) -> String {
    words(text)
        .iter()
        .map(|w| {
            let lower = w.to_lowercase();
            if GO_INITIALISMS.contains(&lower.as_str()) {
                lower.to_uppercase()
            } else {
                capitalized(w)
            }
        })
        .collect()
}

/// camelCase as Go writes it: a leading initialism in lower case, later ones in
/// capitals (`item_id` → `itemID`, `id` → `id`).
pub fn go_camel(text: &str) -> String {
    let words = words(text);
    let mut out = words.first().map(|w| w.to_lowercase()).unwrap_or_default();
    out.push_str(&go_pascal(&words.get(1..).unwrap_or_default().join("_")));
    out
}

/// A PascalCase name in `lang`'s convention.
pub fn pascal_in(lang: Lang, text: &str) -> String {
    match lang {
        Lang::Go => go_pascal(text),
        _ => pascal(text),
    }
}

/// A camelCase name in `lang`'s convention.
pub fn camel_in(lang: Lang, text: &str) -> String {
    match lang {
        Lang::Go => go_camel(text),
        _ => camel(text),
    }
}

/// `drop_rate` → `dropRate`.
pub fn camel(text: &str) -> String {
    let words = words(text);
    let mut out = String::new();
    for (i, word) in words.iter().enumerate() {
        if i == 0 {
            out.push_str(&word.to_lowercase());
        } else {
            out.push_str(&capitalized(word));
        }
    }
    out
}

/// Words no target language lets an identifier be, in the case each is written in.
fn reserved(lang: Lang, ident: &str) -> bool {
    const RUST: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod",
        "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super",
        "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box",
        "do", "final", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
    ];
    const CSHARP: &[&str] = &[
        "abstract",
        "as",
        "base",
        "bool",
        "break",
        "byte",
        "case",
        "catch",
        "char",
        "checked",
        "class",
        "const",
        "continue",
        "decimal",
        "default",
        "delegate",
        "do",
        "double",
        "else",
        "enum",
        "event",
        "explicit",
        "extern",
        "false",
        "finally",
        "fixed",
        "float",
        "for",
        "foreach",
        "goto",
        "if",
        "implicit",
        "in",
        "int",
        "interface",
        "internal",
        "is",
        "lock",
        "long",
        "namespace",
        "new",
        "null",
        "object",
        "operator",
        "out",
        "override",
        "params",
        "private",
        "protected",
        "public",
        "readonly",
        "ref",
        "return",
        "sbyte",
        "sealed",
        "short",
        "sizeof",
        "stackalloc",
        "static",
        "string",
        "struct",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "typeof",
        "uint",
        "ulong",
        "unchecked",
        "unsafe",
        "ushort",
        "using",
        "virtual",
        "void",
        "volatile",
        "while",
    ];
    const GO: &[&str] = &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "fallthrough",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "map",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "type",
        "var",
    ];
    const TYPESCRIPT: &[&str] = &[
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "null",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "let",
        "static",
        "yield",
        "await",
        "implements",
        "interface",
        "package",
        "private",
        "protected",
        "public",
    ];
    let words = match lang {
        Lang::Rust => RUST,
        Lang::CSharp => CSHARP,
        Lang::Go => GO,
        Lang::TypeScript => TYPESCRIPT,
    };
    words.contains(&ident)
}

/// `ident` usable as an identifier of `lang`: a reserved word gets the language's way
/// out (`r#type` in Rust, `@class` in C#) or a trailing `_`.
///
/// A type name (PascalCase) that is reserved (`Self`) takes `Type` instead: see
/// [`type_name`].
pub fn safe_ident(lang: Lang, ident: &str) -> String {
    // Go's predeclared identifiers (`len`, `string`, `error`) may be shadowed, and the
    // code after would then call the wrong thing: escaped like its keywords.
    let predeclared = lang == Lang::Go && library_names(lang).contains(ident);
    if !reserved(lang, ident) && !predeclared {
        return ident.to_string();
    }
    match lang {
        Lang::Rust if !matches!(ident, "self" | "Self" | "super" | "crate") => format!("r#{ident}"),
        Lang::CSharp => format!("@{ident}"),
        _ => format!("{ident}_"),
    }
}

/// The PascalCase type name of a table or master: `Self` (the one reserved word of that
/// shape) becomes `SelfType`, and so does a name the generated code takes from the
/// language's own library ([`ambient`]: a table `error` is `ErrorType` in TypeScript,
/// where `Error` is the global the loader throws).
pub fn type_name(lang: Lang, name: &str) -> String {
    let pascal = pascal_in(lang, name);
    if reserved(lang, &pascal) || ambient(lang, &pascal) || own_type(lang, &pascal) {
        format!("{pascal}Type")
    } else {
        pascal
    }
}

/// What a built-in template declares itself, per language: its module's types and
/// functions, `Masters`'s members, a row's members; and the patterns it makes type names
/// with (`{}Table`). A name of the schemas that would be one of them is escaped —
/// [`type_name`] adds `Type`, [`own_member`] a `_` — never refused.
pub struct Own {
    pub module: &'static [&'static str],
    pub masters: &'static [&'static str],
    pub row: &'static [&'static str],
    pub type_patterns: &'static [&'static str],
}

pub const RUST_OWN: Own = Own {
    module: &[
        "Masters",
        "List",
        "Map",
        "FieldValue",
        "OpenError",
        "Date",
        "DateTime",
        "ValueRef",
        "ColumnType",
        "Path",
        "PhantomData",
        "Bound",
        "RangeBounds",
        "Option",
        "Result",
        "Some",
        "None",
        "Ok",
        "Err",
        "String",
        "Vec",
        "Box",
        "Iterator",
    ],
    masters: &[
        "open",
        "open_trusted",
        "from_runtime",
        "as_runtime",
        "runtime_table",
    ],
    row: &["row_index", "as_runtime"],
    type_patterns: &["{}", "{}Table", "{}Rows", "{}Columns", "{}Row", "{}Source"],
};

pub const TYPESCRIPT_OWN: Own = Own {
    module: &[
        "Masters",
        "MastersError",
        "ReadFile",
        "Column",
        "ClientFile",
        "SCHEMA_HASH",
        "LANGUAGES",
        "compare",
        "keyText",
        "groupRows",
        "isNull",
        "element",
        "cell",
        "mapCell",
        "ascending",
        "decodeColumn",
        "UTF16_UNITS",
        "textDecoder",
        "Date",
        "Map",
    ],
    masters: &["language"],
    row: &["rowIndex"],
    type_patterns: &["{}", "{}Table", "{}Row", "{}Source", "{}Lookup", "{}Values"],
};

pub const GO_OWN: Own = Own {
    module: &[
        "Masters",
        "Error",
        "ReadFile",
        "DirFiles",
        "Open",
        "OpenDir",
        "SchemaHash",
        "Languages",
    ],
    masters: &["Language"],
    row: &["RowIndex"],
    type_patterns: &[
        "{}",
        "{}Table",
        "open{}Table",
        "{}Row",
        "{}Source",
        "lookup{}",
        "openLookup{}",
        "Parse{}",
        "{}Values",
        "names{}",
        "as{}",
        "key{}",
        "weights{}",
    ],
};

pub const CSHARP_OWN: Own = Own {
    module: &[
        "Masters",
        "MastersException",
        "Column",
        "ClientFile",
        "Parse",
        "Order",
        "EnumTexts",
        "RecordElement",
    ],
    masters: &[
        "Language",
        "SchemaHash",
        "Languages",
        "Open",
        "OpenDirectory",
        "KeyText",
        "Equals",
        "GetHashCode",
        "ToString",
        "GetType",
    ],
    row: &["RowIndex", "Equals", "GetHashCode", "ToString", "GetType"],
    type_patterns: &["{}", "{}Table", "{}Row", "I{}Source", "Lookup{}"],
};

/// The names the built-in template of `lang` declares itself.
pub fn own(lang: Lang) -> &'static Own {
    match lang {
        Lang::Rust => &RUST_OWN,
        Lang::TypeScript => &TYPESCRIPT_OWN,
        Lang::Go => &GO_OWN,
        Lang::CSharp => &CSHARP_OWN,
    }
}

/// Whether a type named `pascal` would make, by one of the template's patterns, a name
/// the template declares itself (Go's `Error`, C#'s `MastersException`, Rust's `Date`).
fn own_type(lang: Lang, pascal: &str) -> bool {
    let own = own(lang);
    own.type_patterns
        .iter()
        .any(|pattern| own.module.contains(&pattern.replace("{}", pascal).as_str()))
}

/// A member of `Masters` or of a row, `_` after it should it be one the template
/// declares itself (`own_names`): a table `language` is C#'s `Language_`, beside
/// `Masters.Language`; a field `row_index` is Rust's `row_index_`.
pub fn own_member(ident: String, own_names: &[&str]) -> String {
    if own_names.contains(&ident.as_str()) {
        ident + "_"
    } else {
        ident
    }
}

/// Whether a type of this name, declared by the generated code, would hide one the
/// built-in code takes from the language: its prelude or globals (`Option`, `Error`,
/// `Uint8Array`), or the namespaces the C# file imports (`DateTime`, `Dictionary`,
/// `Path`). Go's are all lower case, as its exported names never are.
pub fn ambient(lang: Lang, ident: &str) -> bool {
    ambient_names(lang).contains(&ident) || library_names(lang).contains(ident)
}

/// Every name the language's own library declares where the generated code is read
/// (`ambient/<lang>.txt`, written by `ambient/extract.sh` from each language's
/// reference: Rust's std prelude, TypeScript's ECMAScript libraries, the public types
/// of the namespaces the C# file imports, Go's predeclared identifiers). A type of
/// the schemas named like one is escaped as [`ambient`] says, whether or not the
/// built-in code uses it: a user's template may.
pub fn library_names(lang: Lang) -> &'static std::collections::HashSet<&'static str> {
    use std::collections::HashSet;
    use std::sync::OnceLock;
    fn listed(text: &'static str) -> HashSet<&'static str> {
        text.lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .collect()
    }
    static LISTS: OnceLock<[HashSet<&'static str>; 4]> = OnceLock::new();
    let lists = LISTS.get_or_init(|| {
        [
            listed(include_str!("ambient/rust.txt")),
            listed(include_str!("ambient/csharp.txt")),
            listed(include_str!("ambient/go.txt")),
            listed(include_str!("ambient/typescript.txt")),
        ]
    });
    match lang {
        Lang::Rust => &lists[0],
        Lang::CSharp => &lists[1],
        Lang::Go => &lists[2],
        Lang::TypeScript => &lists[3],
    }
}

/// The names [`ambient`] knows, per language: each one the built-in code uses (a test
/// checks it).
fn ambient_names(lang: Lang) -> &'static [&'static str] {
    const RUST: &[&str] = &[
        "Bound",
        "Clone",
        "Copy",
        "Debug",
        "Eq",
        "Err",
        "From",
        "Hash",
        "Iterator",
        "None",
        "Ok",
        "Option",
        "Ord",
        "PartialEq",
        "PartialOrd",
        "Path",
        "PhantomData",
        "RangeBounds",
        "Result",
        "Some",
        "String",
    ];
    const CSHARP: &[&str] = &[
        "ArgumentOutOfRangeException",
        "Array",
        "BinaryReader",
        "BitConverter",
        "Comparison",
        "CultureInfo",
        "DateTime",
        "DateTimeKind",
        "DateTimeStyles",
        "Dictionary",
        "Encoding",
        "EndOfStreamException",
        "Exception",
        "File",
        "Func",
        "IEnumerable",
        "IEnumerator",
        "IFormattable",
        "IOException",
        "IReadOnlyList",
        "KeyValuePair",
        "List",
        "Math",
        "MemoryStream",
        "NumberStyles",
        "Path",
        "String",
        "StringBuilder",
    ];
    const TYPESCRIPT: &[&str] = &[
        "Array",
        "ArrayBuffer",
        "DataView",
        "Date",
        "Error",
        "Float64Array",
        "Int32Array",
        "IterableIterator",
        "Map",
        "Math",
        "Number",
        "String",
        "Symbol",
        "TextDecoder",
        "Uint32Array",
        "Uint8Array",
    ];
    match lang {
        Lang::Rust => RUST,
        Lang::CSharp => CSHARP,
        Lang::TypeScript => TYPESCRIPT,
        Lang::Go => &[],
    }
}

/// PascalCase names for the values of one enum, in the values' order: ASCII letters and
/// digits only (a value of other letters becomes `V` and its position), never starting
/// with a digit, never a reserved word of any target language (`Self` becomes
/// `SelfValue`), and all different.
pub fn enum_idents(values: &[impl AsRef<str>]) -> Vec<String> {
    let mut idents: Vec<String> = Vec::with_capacity(values.len());
    for (i, value) in values.iter().enumerate() {
        let ascii: String = pascal(value.as_ref())
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        let mut ident = match ascii.chars().next() {
            None => format!("V{i}"),
            Some(c) if c.is_ascii_digit() => format!("V{ascii}"),
            Some(_) => ascii,
        };
        // `Values`: Go's constant `<Enum>Values` would be the enum's list of values.
        if ident == "Values"
            || [Lang::Rust, Lang::CSharp, Lang::Go, Lang::TypeScript]
                .iter()
                .any(|&lang| reserved(lang, &ident))
        {
            ident.push_str("Value");
        }
        let base = ident.clone();
        let mut n = 2;
        while idents.contains(&ident) {
            ident = format!("{base}{n}");
            n += 1;
        }
        idents.push(ident);
    }
    idents
}

/// `text` as a string literal of `lang`, quotes included.
pub fn literal(lang: Lang, text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || needs_escape(c) => match lang {
                Lang::Rust => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
                Lang::Go => out.push_str(&format!("\\U{:08x}", c as u32)),
                // C# and TypeScript: UTF-16 escapes (control characters are in the BMP).
                Lang::CSharp | Lang::TypeScript => out.push_str(&format!("\\u{:04x}", c as u32)),
            },
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A character no generated text may hold as it is, besides control characters: the
/// line and paragraph separators (U+2028, U+2029 end a line for C# and JavaScript, and
/// U+0085 for C#: a comment would end there and the rest become code), and the
/// bidirectional controls that make code read otherwise than it compiles ("Trojan
/// Source"; rustc refuses them in comments).
pub fn needs_escape(c: char) -> bool {
    matches!(
        c,
        '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{061c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// Whether `c` ends a line in some target language: `\n`, `\r`, vertical tab and form
/// feed, U+0085, U+2028, U+2029.
fn line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// A description as doc-comment lines of `lang`, each starting with `prefix` (`/// `,
/// `// `, ` * `): every line break of any target language (U+2028 and U+0085 too) kept
/// as a line of its own, other control characters and bidirectional controls dropped,
/// and what would end the comment or break its markup escaped (`*/` in any comment, `<`
/// and `&` in C#'s XML documentation).
pub fn doc_lines(lang: Lang, text: &str, prefix: &str) -> String {
    let mut out = String::new();
    if text.is_empty() {
        return out;
    }
    let lines: Vec<&str> = text
        .split("\r\n")
        .flat_map(|l| l.split(line_break))
        .collect();
    let lines = match lines.last() {
        // A final line break ends the last line; it does not start another.
        Some(last) if last.is_empty() && lines.len() > 1 => &lines[..lines.len() - 1],
        _ => &lines[..],
    };
    for line in lines {
        let mut clean: String = line
            .chars()
            .filter(|&c| !c.is_control() && !needs_escape(c))
            .collect();
        clean = clean.trim_end().replace("*/", "*\\/");
        if lang == Lang::CSharp {
            clean = clean
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;");
        }
        out.push_str(prefix.trim_end());
        if !clean.is_empty() {
            out.push(' ');
            out.push_str(clean.trim_start_matches(' '));
        }
        out.push('\n');
    }
    out
}

/// What `{{value}}` writes in a template (the built-in ones and the user's alike):
/// text that stays inert wherever a template puts it — in a line or block comment, or
/// between the quotes of a string literal of `lang`. Line breaks, control and
/// bidirectional characters become the language's `\u` escapes, quotes and backslashes
/// are escaped, and `*/` cannot close a comment. Names (identifiers, types) hold none of
/// these and come out unchanged; `{{{value}}}` writes a value as it is.
pub fn inert(lang: Lang, text: &str) -> String {
    if !text
        .chars()
        .any(|c| c.is_control() || needs_escape(c) || matches!(c, '"' | '\\' | '*'))
    {
        return text.to_string();
    }
    let quoted = literal(lang, text);
    quoted[1..quoted.len() - 1].replace("*/", "*\\/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        assert_eq!(pascal("drop_rate"), "DropRate");
        assert_eq!(camel("drop_rate"), "dropRate");
        assert_eq!(snake("DropRate"), "drop_rate");
        assert_eq!(screaming("item2_id"), "ITEM2_ID");
        assert_eq!(kebab("quest_drop"), "quest-drop");
        assert_eq!(pascal("item"), "Item");
        assert_eq!(camel("id"), "id");
        assert_eq!(go_pascal("item_id"), "ItemID");
        assert_eq!(go_pascal("icon_url2"), "IconUrl2");
        assert_eq!(go_camel("id"), "id");
        assert_eq!(go_camel("item_id"), "itemID");
        assert_eq!(go_camel("ui_scale"), "uiScale");
    }

    #[test]
    fn enum_values_become_identifiers_of_every_language() {
        assert_eq!(
            enum_idents(&["common", "super-rare", "レア", "2x", "self", "Common", ""]),
            [
                "Common",
                "SuperRare",
                "V2",
                "V2x",
                "SelfValue",
                "Common2",
                "V6"
            ]
        );
    }

    #[test]
    fn every_ambient_name_is_one_the_built_in_code_uses() {
        for lang in [Lang::Rust, Lang::CSharp, Lang::TypeScript] {
            let code: String = lang
                .templates()
                .iter()
                .chain(lang.sources())
                .map(|(_, text)| *text)
                .collect();
            for name in ambient_names(lang) {
                let used = code.match_indices(name).any(|(at, _)| {
                    let before = code[..at].chars().next_back();
                    let after = code[at + name.len()..].chars().next();
                    !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                        && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                });
                assert!(used, "{lang:?}: {name} is not used by the built-in code");
            }
        }
    }

    /// Every name of each language's library list ([`library_names`], from the
    /// language's reference) is escaped where the schemas would declare it.
    #[test]
    fn no_type_of_the_schemas_hides_a_name_of_the_languages_own_library() {
        for lang in [Lang::Rust, Lang::CSharp, Lang::Go, Lang::TypeScript] {
            let names = library_names(lang);
            assert!(names.len() >= 30, "{lang:?}: {}", names.len());
            for &name in names {
                let declared = type_name(lang, name);
                assert_ne!(declared, name, "{lang:?}: a table `{name}`");
                if lang == Lang::Go {
                    assert_ne!(safe_ident(lang, name), name, "Go: an identifier `{name}`");
                }
            }
        }
        for (lang, name, declared) in [
            (Lang::TypeScript, "readonly_map", "ReadonlyMapType"),
            (Lang::TypeScript, "object", "ObjectType"),
            (Lang::TypeScript, "promise", "PromiseType"),
            (Lang::TypeScript, "big_int", "BigIntType"),
            (Lang::TypeScript, "boolean", "BooleanType"),
            (Lang::CSharp, "console", "ConsoleType"),
            (Lang::Rust, "vec", "VecType"),
            (Lang::Rust, "future", "FutureType"),
        ] {
            assert_eq!(type_name(lang, name), declared);
        }
        assert_eq!(safe_ident(Lang::Go, "len"), "len_");
    }

    #[test]
    fn reserved_words_get_a_way_out() {
        assert_eq!(safe_ident(Lang::Rust, "type"), "r#type");
        assert_eq!(safe_ident(Lang::Rust, "self"), "self_");
        assert_eq!(safe_ident(Lang::CSharp, "class"), "@class");
        assert_eq!(safe_ident(Lang::Go, "range"), "range_");
        assert_eq!(safe_ident(Lang::TypeScript, "price"), "price");
        assert_eq!(type_name(Lang::TypeScript, "error"), "ErrorType");
        assert_eq!(type_name(Lang::TypeScript, "uint8_array"), "Uint8ArrayType");
        assert_eq!(type_name(Lang::TypeScript, "data_view"), "DataViewType");
        assert_eq!(type_name(Lang::Rust, "option"), "OptionType");
        assert_eq!(type_name(Lang::CSharp, "date_time"), "DateTimeType");
        // System.Type, which the C# file imports.
        assert_eq!(type_name(Lang::CSharp, "type"), "TypeType");
        // Go's own `Error` (the package's error type): escaped the same way.
        assert_eq!(type_name(Lang::Go, "error"), "ErrorType");
        assert_eq!(type_name(Lang::Go, "errors"), "Errors");
        assert_eq!(
            own_member("Language".into(), own(Lang::CSharp).masters),
            "Language_"
        );
        assert_eq!(own_member("Item".into(), own(Lang::CSharp).masters), "Item");
        assert_eq!(type_name(Lang::TypeScript, "item"), "Item");
    }

    #[test]
    fn text_from_schemas_cannot_leave_its_literal_or_comment() {
        assert_eq!(literal(Lang::Rust, "a\"b\\\n\u{1}"), r#""a\"b\\\n\u{1}""#);
        assert_eq!(literal(Lang::Go, "\u{1}"), r#""\U00000001""#);
        assert_eq!(literal(Lang::TypeScript, "\u{2028}"), r#""\u2028""#);
        assert_eq!(
            doc_lines(Lang::TypeScript, "ends */ here\nsecond", " *"),
            " * ends *\\/ here\n * second\n"
        );
        assert_eq!(
            doc_lines(Lang::CSharp, "a <b> & c", "///"),
            "/// a &lt;b&gt; &amp; c\n"
        );
        assert_eq!(
            doc_lines(Lang::Rust, "line\u{0}\r\nnext", "///"),
            "/// line\n/// next\n"
        );
        // Every language's line terminators end a comment line, never the comment.
        for lang in [Lang::Rust, Lang::CSharp, Lang::Go, Lang::TypeScript] {
            for brk in ["\u{2028}", "\u{2029}", "\u{85}", "\r", "\u{0b}", "\u{0c}"] {
                let doc = doc_lines(lang, &format!("Price in gold{brk}static Item(){{}}"), "///");
                assert_eq!(
                    doc, "/// Price in gold\n/// static Item(){}\n",
                    "{lang:?} {brk:?}"
                );
            }
            let doc = doc_lines(lang, "a\u{202e}b */ c", " *");
            assert!(!doc.contains('\u{202e}'));
            assert!(!doc.contains("*/"), "{doc}");
            let text = inert(lang, "x\u{2028}y\"z */ \u{202e}");
            assert!(
                !text.chars().any(|c| c.is_control() || needs_escape(c)) && !text.contains("*/"),
                "{text}"
            );
            assert_eq!(inert(lang, "ItemName"), "ItemName");
            assert_eq!(inert(lang, "List<int>"), "List<int>");
        }
        assert_eq!(literal(Lang::CSharp, "\u{85}\u{202e}"), r#""\u0085\u202e""#);
    }
}
