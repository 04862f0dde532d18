//! `masterctl codegen`: typed access to a project's masters, written by handlebars
//! templates from the schemas. The built-in templates (`codegen/templates/<lang>/`)
//! are compiled in; a folder of the user's overrides one by file name or adds files.
//! A template sees the [`Context`] alone; output is deterministic.

pub mod context;
pub mod names;
mod rust_layout;
pub mod vendor;

use std::path::{Component, Path};

use handlebars::{
    Context as HbContext, Handlebars, Helper, HelperResult, Output, RenderContext, Renderable,
};
use serde::Serialize;

pub use context::{Context, context};

/// A language code is generated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    Rust,
    CSharp,
    Go,
    TypeScript,
}

impl Lang {
    pub const ALL: [Lang; 4] = [Lang::Rust, Lang::CSharp, Lang::Go, Lang::TypeScript];

    /// As `--lang` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::CSharp => "csharp",
            Lang::Go => "go",
            Lang::TypeScript => "typescript",
        }
    }

    pub fn parse(name: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The built-in template holding the code, and how it names things.
    fn scheme(self) -> (&'static str, &'static Scheme) {
        match self {
            Lang::Rust => ("src/lib.rs.hbs", &RUST),
            Lang::TypeScript => ("masters.ts.hbs", &TYPESCRIPT),
            Lang::Go => ("masters.go.hbs", &GO),
            Lang::CSharp => ("Masters.cs.hbs", &CSHARP),
        }
    }

    /// The built-in templates: (output path + `.hbs`, template text). A partial per
    /// concept (`_enum.hbs`, `_record.hbs`, `_table.hbs`, `_index.hbs`,
    /// `_reverse.hbs`, `_group.hbs`, `_weighted.hbs`, `_matrix.hbs`) renders one of them; a user's template of the same
    /// name replaces it alone.
    fn templates(self) -> &'static [(&'static str, &'static str)] {
        macro_rules! built_in {
            ($lang:literal: $($name:literal),*) => {
                &[$(($name, include_str!(concat!("../templates/", $lang, "/", $name)))),*]
            };
        }
        match self {
            Lang::Rust => built_in!("rust":
                "Cargo.toml.hbs", "src/lib.rs.hbs", "_enum.hbs", "_record.hbs", "_union.hbs",
                "_table.hbs", "_index.hbs", "_reverse.hbs", "_group.hbs", "_weighted.hbs",
                "_matrix.hbs"),
            Lang::TypeScript => built_in!("typescript":
                "masters.ts.hbs", "_enum.hbs", "_record.hbs", "_union.hbs", "_table.hbs",
                "_index.hbs", "_reverse.hbs", "_group.hbs", "_weighted.hbs", "_matrix.hbs"),
            Lang::Go => built_in!("go":
                "masters.go.hbs", "reader.go.hbs", "_enum.hbs", "_record.hbs", "_union.hbs",
                "_table.hbs", "_index.hbs", "_reverse.hbs", "_group.hbs", "_weighted.hbs",
                "_matrix.hbs"),
            Lang::CSharp => built_in!("csharp":
                "Masters.cs.hbs", "MastersReader.cs.hbs", "_enum.hbs", "_enum_texts.hbs",
                "_record.hbs", "_union.hbs", "_table.hbs", "_index.hbs", "_reverse.hbs",
                "_group.hbs", "_weighted.hbs", "_matrix.hbs"),
        }
    }

    /// The files written as they are, the same for every project: the reader of the
    /// client format the generated code imports. A user's template of the same path
    /// (with `.hbs`) replaces one.
    fn sources(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Lang::TypeScript => &[(
                "reader.ts",
                include_str!("../templates/typescript/reader.ts"),
            )],
            Lang::Rust | Lang::Go | Lang::CSharp => &[],
        }
    }
}

/// Why code was not generated.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    #[error("template {name}: {message}")]
    Template { name: String, message: String },
    #[error("{first} and {second} would have one name in the generated {lang} code: `{name}`")]
    Collision {
        lang: &'static str,
        name: String,
        first: String,
        second: String,
    },
    #[error("template {name}: its output path is not a relative path inside the output folder")]
    OutsidePath { name: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// A template given by the user: its path under `--templates` (`src/lib.rs.hbs`, or a
/// partial `_row.hbs`) and its text.
#[derive(Debug, Clone)]
pub struct UserTemplate {
    pub path: String,
    pub text: String,
}

/// One generated file, its path relative to the output folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GeneratedFile {
    pub path: String,
    #[serde(skip)]
    pub content: String,
    /// Where it came from: `built-in`, `override` or `added`.
    pub template: &'static str,
}

/// The runtime crate as files beside a generated Rust crate ([`vendor`]), to add to
/// what [`generate`] gave when the crate depends on it there.
pub fn vendored_runtime() -> Vec<GeneratedFile> {
    vendor::files()
        .into_iter()
        .map(|(path, content)| GeneratedFile {
            path,
            content,
            template: "runtime",
        })
        .collect()
}

/// A template's output path: its own without `.hbs`, checked to stay inside the folder.
fn output_path(name: &str) -> Result<String, CodegenError> {
    let path = name.strip_suffix(".hbs").unwrap_or(name);
    let inside = !path.is_empty()
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
    if inside {
        Ok(path.to_string())
    } else {
        Err(CodegenError::OutsidePath {
            name: name.to_string(),
        })
    }
}

/// A partial's name: `_row.hbs` anywhere → `row`.
fn partial_name(path: &str) -> Option<&str> {
    let file = path.rsplit('/').next()?;
    file.strip_prefix('_')?.strip_suffix(".hbs")
}

/// Render every template for `context`'s language: the built-in ones, each replaced by
/// the user's template of the same path, and the user's other templates added. Files
/// come back sorted by path.
pub fn generate(
    context: &Context,
    lang: Lang,
    user: &[UserTemplate],
) -> Result<Vec<GeneratedFile>, CodegenError> {
    let mut registry = Handlebars::new();
    registry.set_strict_mode(true);
    registry.register_escape_fn(handlebars::no_escape);
    register_helpers(&mut registry, lang);
    let template_error = |name: &str, e: &dyn std::fmt::Display| CodegenError::Template {
        name: name.to_string(),
        message: e.to_string(),
    };
    // (name, text, origin): built-ins first, the user's replacing or adding.
    let mut templates: Vec<(String, &str, &'static str)> = lang
        .templates()
        .iter()
        .map(|(name, text)| (name.to_string(), *text, "built-in"))
        .collect();
    for template in user {
        match templates
            .iter_mut()
            .find(|(name, ..)| *name == template.path)
        {
            Some(existing) => *existing = (template.path.clone(), &template.text, "override"),
            None => templates.push((template.path.clone(), &template.text, "added")),
        }
    }
    // The names the built-in code template gives, unless the user replaced it.
    let (main, scheme) = lang.scheme();
    if templates
        .iter()
        .any(|(name, _, origin)| name == main && *origin == "built-in")
    {
        check_names(context, scheme)?;
    }
    for (name, text, _) in &templates {
        if let Some(partial) = partial_name(name) {
            registry
                .register_partial(partial, *text)
                .map_err(|e| template_error(name, &e))?;
        } else {
            registry
                .register_template_string(name, *text)
                .map_err(|e| template_error(name, &e))?;
        }
    }
    let mut files = Vec::new();
    for (name, _, origin) in &templates {
        if partial_name(name).is_some() {
            continue;
        }
        let path = output_path(name)?;
        // In a template of the user's, `{{value}}` is inert wherever it lands (a comment,
        // a string literal: [`names::inert`]) and `{{{value}}}` is the value as it is; the
        // built-in ones write every text through the helpers (`lit`, `doc`, `ident_of`)
        // and take the context's code fragments (`*_lit`) as they are.
        if *origin == "built-in" {
            registry.register_escape_fn(handlebars::no_escape);
        } else {
            registry.register_escape_fn(move |text: &str| names::inert(lang, text));
        }
        let content = registry
            .render(name, context)
            .map_err(|e| template_error(name, &e))?;
        files.push(GeneratedFile {
            path,
            content,
            template: origin,
        });
    }
    for (path, content) in lang.sources() {
        match files.iter_mut().find(|f| f.path == *path) {
            // The user's template of that path replaced it.
            Some(replaced) => replaced.template = "override",
            None => files.push(GeneratedFile {
                path: path.to_string(),
                content: content.to_string(),
                template: "built-in",
            }),
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// What writing a generated file did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Written {
    Written,
    /// The file already held exactly this: left untouched (its time too).
    Unchanged,
}

/// Write `files` under `out`: each only when its content differs from what is there
/// (atomically: a reader sees the old file or the new one); files there that codegen
/// did not write are never touched.
pub fn write_files(out: &Path, files: &[GeneratedFile]) -> Result<Vec<Written>, CodegenError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| CodegenError::Io { path, source }
    };
    files
        .iter()
        .map(|file| {
            let path = out.join(&file.path);
            let existing =
                masterctl_runtime::files::read_regular(&path, 1 << 30).map_err(io(&path))?;
            if existing.as_deref() == Some(file.content.as_bytes()) {
                return Ok(Written::Unchanged);
            }
            std::fs::create_dir_all(masterctl_runtime::files::parent_of(&path))
                .map_err(io(&path))?;
            masterctl_runtime::files::write_atomic(&path, file.content.as_bytes())
                .map_err(io(&path))?;
            Ok(Written::Written)
        })
        .collect()
}

/// A helper computing its text from its parameters (as JSON values).
fn helper(
    registry: &mut Handlebars<'_>,
    name: &'static str,
    f: impl Fn(&[&serde_json::Value]) -> String + Send + Sync + 'static,
) {
    registry.register_helper(
        name,
        Box::new(
            move |h: &Helper<'_>,
                  _: &Handlebars<'_>,
                  _: &HbContext,
                  _: &mut RenderContext<'_, '_>,
                  out: &mut dyn Output|
                  -> HelperResult {
                let params: Vec<&serde_json::Value> =
                    h.params().iter().map(|p| p.value()).collect();
                out.write(&f(&params))?;
                Ok(())
            },
        ),
    );
}

/// Parameter `at` as text (a number or `true` as written; nothing as empty).
fn text(params: &[&serde_json::Value], at: usize) -> String {
    match params.get(at) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The helpers templates have besides handlebars' own (`eq`, `and`, `len`...): case
/// conversions (`snake`, `camel`, `pascal`, `screaming`, `kebab`; `camel` and `pascal`
/// in the language's convention: Go's `ItemID`), `lit` (a string
/// literal of the language), `ident_of` (a name made a usable identifier: reserved words
/// escaped), `doc TEXT PREFIX [TABS]` (doc-comment lines, indented by TABS tabs), `join LIST SEPARATOR`, `concat A B...`
/// (its parameters as one text), and the blocks that lay Rust out as rustfmt does
/// when it starts INDENT columns in ([`rust_layout`]): `rust_fn INDENT` (a
/// signature with its opening brace), `rust_impl INDENT` (an impl's header), `rust_line INDENT` (a statement, a struct literal's field or a match arm) and
/// `rust_chain INDENT` (a chain of calls, a link per line inside).
fn register_helpers(registry: &mut Handlebars<'_>, lang: Lang) {
    type Convert = fn(&str) -> String;
    let one: [(&'static str, Convert); 3] = [
        ("snake", names::snake),
        ("screaming", names::screaming),
        ("kebab", names::kebab),
    ];
    for (name, f) in one {
        helper(registry, name, move |p| f(&text(p, 0)));
    }
    helper(registry, "camel", move |p| {
        names::camel_in(lang, &text(p, 0))
    });
    helper(registry, "pascal", move |p| {
        names::pascal_in(lang, &text(p, 0))
    });
    helper(registry, "lit", move |p| names::literal(lang, &text(p, 0)));
    helper(registry, "ident_of", move |p| {
        names::safe_ident(lang, &text(p, 0))
    });
    helper(registry, "doc", move |p| {
        let prefix = match text(p, 1) {
            prefix if prefix.is_empty() => "///".to_string(),
            prefix => prefix,
        };
        let lines = names::doc_lines(lang, &text(p, 0), &prefix);
        // `doc TEXT PREFIX TABS`: each line indented by that many tabs (Go's indentation).
        let tabs = p.get(2).and_then(|t| t.as_u64()).unwrap_or(0) as usize;
        lines
            .trim_end_matches('\n')
            .lines()
            .map(|line| format!("{}{line}", "\t".repeat(tabs)))
            .collect::<Vec<_>>()
            .join("\n")
    });
    helper(registry, "concat", |p| {
        (0..p.len()).map(|i| text(p, i)).collect()
    });
    helper(registry, "join", |p| {
        let items = p.first().and_then(|v| v.as_array());
        let items: Vec<String> = items.into_iter().flatten().map(|v| text(&[v], 0)).collect();
        let separator = match p.get(1) {
            Some(_) => text(p, 1),
            None => ", ".to_string(),
        };
        items.join(&separator)
    });
    let layouts: [(&str, LayOut); 4] = [
        ("rust_impl", rust_layout::impl_header),
        ("rust_fn", rust_layout::signature),
        ("rust_line", rust_layout::line),
        ("rust_chain", |inner, indent| {
            let links: Vec<&str> = inner
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            rust_layout::chain(&links, indent)
        }),
    ];
    for (name, lay_out) in layouts {
        registry.register_helper(name, Box::new(Layout(lay_out)));
    }
}

/// What a layout block makes of its rendered inside at an indentation.
type LayOut = fn(&str, usize) -> String;

/// A block helper `{{#NAME INDENT}}...{{/NAME}}` writing what its function makes of the
/// rendered inside (trimmed) at that indentation.
struct Layout(LayOut);

impl handlebars::HelperDef for Layout {
    fn call<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        r: &'reg Handlebars<'reg>,
        ctx: &'rc HbContext,
        rc: &mut RenderContext<'reg, 'rc>,
        out: &mut dyn Output,
    ) -> HelperResult {
        let indent = h.param(0).and_then(|p| p.value().as_u64()).unwrap_or(0) as usize;
        let inner = match h.template() {
            Some(t) => t.renders(r, ctx, rc)?,
            None => String::new(),
        };
        out.write(&(self.0)(inner.trim(), indent))?;
        Ok(())
    }
}

/// Names claimed per scope of generated code: a second thing of another origin under
/// one name is a [`CodegenError::Collision`].
struct Claims {
    lang: &'static str,
    scopes: std::collections::HashMap<String, std::collections::HashMap<String, String>>,
}

impl Claims {
    fn new(lang: &'static str) -> Claims {
        Claims {
            lang,
            scopes: std::collections::HashMap::new(),
        }
    }

    fn claim(&mut self, scope: &str, name: String, what: String) -> Result<(), CodegenError> {
        let names = self.scopes.entry(scope.to_string()).or_default();
        match names.get(&name) {
            Some(first) if *first != what => Err(CodegenError::Collision {
                lang: self.lang,
                name,
                first: first.clone(),
                second: what,
            }),
            _ => {
                names.insert(name, what);
                Ok(())
            }
        }
    }
}

/// How a built-in template names what it derives from the context, per language: the
/// names it declares itself, and the names it makes from the context's (a pattern's `{}`
/// is a type name of the context: `{}Table`).
struct Scheme {
    lang: &'static str,
    /// Declared at the top of the file (types, functions, constants).
    module: &'static [&'static str],
    /// Members of `Masters` besides one per table and generated master.
    masters: &'static [&'static str],
    /// The type names of a table.
    table_types: &'static [&'static str],
    /// Members of a row besides one per field and reverse lookup.
    row: &'static [&'static str],
    /// Methods of a table besides its index lookups.
    table: &'static [&'static str],
    /// A row's member for the row a by-key reference points at (Rust's `<field>_row`).
    reference_row: Option<fn(&context::Field) -> String>,
    /// The lookups of one index (by its name).
    index: fn(&str) -> Vec<String>,
    enum_types: &'static [&'static str],
    /// Each enum value is a constant of the module named enum type + value (Go's).
    enum_constants: bool,
    reverse_types: &'static [&'static str],
    /// Members of a reverse lookup's row besides its columns and key column.
    reverse_row: &'static [&'static str],
    /// A member name as the language writes it (`source_key` → `sourceKey`).
    member: fn(&str) -> String,
    group_types: &'static [&'static str],
    weighted_types: &'static [&'static str],
    matrix_types: &'static [&'static str],
}

const RUST: Scheme = Scheme {
    lang: "Rust",
    module: names::RUST_OWN.module,
    masters: names::RUST_OWN.masters,
    table_types: &["{}", "{}Table", "{}Rows", "{}Columns"],
    row: names::RUST_OWN.row,
    table: &[
        "len",
        "is_empty",
        "rows",
        "row",
        "get",
        "get_by_text",
        "as_runtime",
    ],
    reference_row: Some(|field| format!("{}_row", field.name)),
    index: |name| vec![format!("by_{name}"), format!("by_{name}_range")],
    enum_types: &["{}"],
    enum_constants: false,
    reverse_types: &["{}Row", "{}Rows", "{}Source"],
    reverse_row: &["source_table", "source_key", "source"],
    member: |name| name.to_string(),
    group_types: &[],
    weighted_types: &["{}"],
    matrix_types: &[],
};

const TYPESCRIPT: Scheme = Scheme {
    lang: "TypeScript",
    module: names::TYPESCRIPT_OWN.module,
    masters: names::TYPESCRIPT_OWN.masters,
    table_types: &["{}", "{}Table"],
    row: names::TYPESCRIPT_OWN.row,
    table: &[],
    reference_row: None,
    index: |name| {
        let name = names::pascal(name);
        vec![format!("by{name}"), format!("by{name}Range")]
    },
    enum_types: &["{}", "{}Values"],
    enum_constants: false,
    reverse_types: &["{}Row", "{}Source", "{}Lookup"],
    reverse_row: &["rowIndex", "sourceTable", "sourceKey", "source"],
    member: names::camel,
    group_types: &["{}Lookup"],
    weighted_types: &["{}"],
    matrix_types: &["{}Lookup"],
};

const GO: Scheme = Scheme {
    lang: "Go",
    module: names::GO_OWN.module,
    masters: names::GO_OWN.masters,
    table_types: &["{}", "{}Table", "open{}Table"],
    row: names::GO_OWN.row,
    table: &["Len", "Row", "Rows", "Get", "GetByText"],
    reference_row: Some(|field| format!("{}Row", names::go_pascal(&field.name))),
    index: |name| {
        let name = names::go_pascal(name);
        vec![format!("By{name}"), format!("By{name}Range")]
    },
    enum_types: &["{}", "Parse{}", "{}Values", "names{}", "as{}"],
    enum_constants: true,
    reverse_types: &["{}Row", "{}Source", "lookup{}", "openLookup{}"],
    reverse_row: &["RowIndex", "SourceTable", "SourceKey", "Source"],
    member: names::go_pascal,
    group_types: &["lookup{}", "key{}"],
    weighted_types: &["{}", "key{}", "weights{}"],
    matrix_types: &["lookup{}"],
};

const CSHARP: Scheme = Scheme {
    lang: "C#",
    module: names::CSHARP_OWN.module,
    masters: names::CSHARP_OWN.masters,
    table_types: &["{}", "{}Table"],
    row: names::CSHARP_OWN.row,
    table: &[
        "Count",
        "GetEnumerator",
        "Get",
        "GetByText",
        "Make",
        "Equals",
        "GetHashCode",
        "ToString",
        "GetType",
    ],
    reference_row: Some(|field| format!("{}Row", names::pascal(&field.name))),
    index: |name| {
        let name = names::pascal(name);
        vec![
            format!("By{name}"),
            format!("By{name}Range"),
            format!("Sorted{name}"),
        ]
    },
    enum_types: &["{}"],
    enum_constants: false,
    reverse_types: &["{}Row", "I{}Source", "Lookup{}"],
    reverse_row: &[
        "RowIndex",
        "SourceTable",
        "SourceKey",
        "Source",
        "Equals",
        "GetHashCode",
        "ToString",
        "GetType",
    ],
    member: names::pascal,
    group_types: &["Lookup{}"],
    weighted_types: &["{}"],
    matrix_types: &["Lookup{}"],
};

/// A table of several cases: its case type and a type per case (each beside the
/// table's types), the row's member giving its case, and a C# case's `Row`.
fn check_case_names(
    table: &context::Table,
    scheme: &Scheme,
    claim: &mut dyn FnMut(&str, String, String) -> Result<(), CodegenError>,
) -> Result<(), CodegenError> {
    let Some(case_type) = &table.case_type else {
        return Ok(());
    };
    let t = &table.named;
    let what = format!("the cases of table `{}`", t.name);
    claim("module", case_type.clone(), what.clone())?;
    let row = format!("row of {}", t.name);
    claim(
        &row,
        (scheme.member)("as_case"),
        format!("{what}' member of a row"),
    )?;
    for case in &table.cases {
        let what = format!("case `{}` of table `{}`", case.value, t.name);
        claim("module", case.type_name.clone(), what.clone())?;
        if scheme.lang == "C#" {
            let members = format!("case {}", case.type_name);
            claim(
                &members,
                "Row".into(),
                format!("masterctl's own `Row` of {what}"),
            )?;
            for field in &case.fields {
                let name = field.field.ident.clone();
                claim(
                    &members,
                    name,
                    format!("field `{}` of {what}", field.field.name),
                )?;
            }
        }
    }
    Ok(())
}

/// The names a built-in template gives, each claimed in its scope: two things of the
/// schemas (or one and the template's own) that would have one name are an error naming
/// both, never code that does not compile.
fn check_names(context: &Context, scheme: &Scheme) -> Result<(), CodegenError> {
    let mut names = Claims::new(scheme.lang);
    let mut claim = |scope: &str, name: String, what: String| names.claim(scope, name, what);
    let own = |name: &str| format!("masterctl's own `{name}`");
    for name in scheme.module {
        claim("module", name.to_string(), own(name))?;
    }
    for name in scheme.masters {
        claim(
            "masters",
            name.to_string(),
            own(&format!("Masters::{name}")),
        )?;
    }
    let typed = |claim: &mut dyn FnMut(&str, String, String) -> Result<(), CodegenError>,
                 type_name: &str,
                 patterns: &[&str],
                 what: &str| {
        patterns.iter().try_for_each(|pattern| {
            claim("module", pattern.replace("{}", type_name), what.to_string())
        })
    };
    for table in &context.tables {
        let t = &table.named;
        let what = format!("table `{}`", t.name);
        typed(&mut claim, &t.type_name, scheme.table_types, &what)?;
        claim("masters", t.ident.clone(), what.clone())?;
        let row = format!("row of {}", t.name);
        for name in scheme.row {
            claim(&row, name.to_string(), format!("{} of a row", own(name)))?;
        }
        for field in &table.fields {
            let what = format!("field `{}.{}`", t.name, field.name);
            claim(&row, field.ident.clone(), what.clone())?;
            let by_key = field.references.as_ref().is_some_and(|r| r.by_key);
            if let Some(reference_row) = scheme.reference_row
                && by_key
                && !field.list
            {
                claim(
                    &row,
                    reference_row(field),
                    format!("the row {what} refers to"),
                )?;
            }
        }
        for reverse in &table.reverses {
            claim(
                &row,
                (scheme.member)(reverse),
                format!("reverse lookup `{reverse}`"),
            )?;
        }
        let methods = format!("table {}", t.name);
        for name in scheme.table {
            claim(
                &methods,
                name.to_string(),
                format!("{} of a table", own(name)),
            )?;
        }
        for index in &table.indexes {
            let what = format!("index `{}` of `{}`", index.name, t.name);
            for name in (scheme.index)(&index.name) {
                claim(&methods, name, what.clone())?;
            }
        }
        check_case_names(table, scheme, &mut claim)?;
    }
    // A record's type, and what each language's template makes beside it.
    for record in &context.records {
        let what = format!("record `{}`", record.name);
        let beside = [
            "{}",
            "{}RecordColumns",
            "recordColumns{}",
            "openRecord{}",
            "read{}",
            "present{}",
            "columnsOf{}",
        ];
        typed(&mut claim, &record.type_name, &beside, &what)?;
    }
    for union in &context.unions {
        let what = format!("union `{}`", union.name);
        typed(
            &mut claim,
            &union.type_name,
            &["{}", "{}UnionColumns"],
            &what,
        )?;
    }
    for e in &context.enums {
        let what = format!("the enum of `{}.{}`", e.table, e.field);
        typed(&mut claim, &e.name, scheme.enum_types, &what)?;
        if scheme.enum_constants {
            for value in &e.values {
                let what = format!("the value `{}` of {what}", value.value);
                claim("module", format!("{}{}", e.name, value.ident), what)?;
            }
        }
    }
    for reverse in &context.reverses {
        let r = &reverse.named;
        let what = format!("reverse lookup `{}`", r.name);
        typed(&mut claim, &r.type_name, scheme.reverse_types, &what)?;
        claim("masters", r.ident.clone(), what.clone())?;
        let row = format!("row of {}", r.name);
        let key = (scheme.member)(&reverse.key_column);
        for name in scheme.reverse_row.iter().copied().chain([key.as_str()]) {
            claim(&row, name.to_string(), format!("{} of {what}", own(name)))?;
        }
        for column in &reverse.columns {
            claim(
                &row,
                column.ident.clone(),
                format!("column `{}` of {what}", column.name),
            )?;
        }
    }
    let masters = context
        .groups
        .iter()
        .map(|g| (&g.named, "group", scheme.group_types))
        .chain(
            context
                .weighted
                .iter()
                .map(|w| (&w.named, "weighted master", scheme.weighted_types)),
        )
        .chain(
            context
                .matrices
                .iter()
                .map(|m| (&m.named, "matrix", scheme.matrix_types)),
        );
    for (named, kind, suffixes) in masters {
        let what = format!("{kind} `{}`", named.name);
        typed(&mut claim, &named.type_name, suffixes, &what)?;
        claim("masters", named.ident.clone(), what)?;
    }
    Ok(())
}
