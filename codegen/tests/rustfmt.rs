//! The Rust codegen writes is as rustfmt writes it, whatever the lengths of the names it
//! is given: a project with a table, fields, enum values, an index, a reference, a
//! reverse lookup, a group, a weighted draw and a matrix named at every length from one
//! character to 40, and a project with no tables at all (an audience that sees none).

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::process::Command;

use masterctl_codegen::{self as codegen, Lang};

const CONFIG: &str = "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";

/// A name of `length` characters made of `letter`, distinct per letter and length.
fn name(letter: char, length: usize) -> String {
    std::iter::repeat_n(letter, length).collect()
}

/// The schemas of every kind of thing the Rust code names: `@` and a letter in them
/// stands for a name of that letter (the table `@t` is `tttt` at length 4).
const SCHEMAS: [&str; 7] = [
    r#"name = "@t"
description = "A table of names of one length"
primary_key = ["id"]
fields = [
  { name = "id", type = "int" },
  { name = "@i", type = "int", description = "An int" },
  { name = "@n", type = "int", optional = true },
  { name = "@f", type = "float" },
  { name = "@l", type = "list<int>" },
  { name = "@o", type = "list<string>", optional = true },
  { name = "@m", type = "map<int, int>" },
  { name = "@p", type = "map<string, int>", optional = true },
  { name = "@x", type = "text" },
  { name = "@y", type = "text", optional = true },
  { name = "@e", type = "enum", values = ["@v", "@w"] },
  { name = "@r", type = "int", references = "@t.id" },
  { name = "@s", type = "int", optional = true, references = "@t.id" },
  { name = "@d", type = "date" },
  { name = "@g", type = "int" },
]
indexes = [{ fields = ["@i"] }, { fields = ["@i", "@g"], order_by = ["@n"] }]
"#,
    r#"name = "@k"
primary_key = ["@a", "@b"]
fields = [
  { name = "@a", type = "enum", values = ["@v", "@w"] },
  { name = "@b", type = "enum", values = ["@x", "@y"] },
  { name = "@t", type = "int", references = "@t.id" },
  { name = "@w", type = "int" },
  { name = "@c", type = "float" },
]
"#,
    r#"name = "@s"
kind = "singleton"
fields = [
  { name = "@i", type = "int" },
  { name = "@x", type = "text" },
  { name = "@m", type = "map<int, int>" },
]
"#,
    r#"name = "@q"
[reverse]
target = "@t"
sources = [{ table = "@k", field = "@t", columns = ["@w", "@c"] }]
"#,
    r#"name = "@u"
[custom]
kind = "group"
table = "@t"
group_by = ["@g"]
order_by = ["id"]
"#,
    r#"name = "@h"
[custom]
kind = "weighted"
table = "@k"
group_by = ["@t"]
weight = "@w"
"#,
    r#"name = "@z"
[custom]
kind = "matrix"
table = "@k"
row = "@a"
column = "@b"
value = "@c"
default = 1.0
"#,
];

/// [`SCHEMAS`] with their names made `length` characters long.
fn schemas_of_length(length: usize) -> Vec<(PathBuf, String)> {
    SCHEMAS
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let mut named = String::new();
            let mut chars = text.chars();
            while let Some(c) = chars.next() {
                match c {
                    '@' => named.push_str(&name(chars.next().unwrap(), length)),
                    c => named.push(c),
                }
            }
            (PathBuf::from(format!("schemas/{length}_{i}.toml")), named)
        })
        .collect()
}

/// The Rust code generated for `schemas`.
fn rust_of(schemas: Vec<(PathBuf, String)>) -> String {
    let project = masterctl_schemas::load::load_from_files(
        Some((PathBuf::from("masterctl.toml"), CONFIG.to_string())),
        schemas,
    )
    .unwrap_or_else(|e| panic!("{:?}", e.diagnostics.first()));
    let context = codegen::context(&project, Lang::Rust, "5c8e", "masters", "{ path = \"rt\" }");
    let files = codegen::generate(&context, Lang::Rust, &[]).unwrap();
    let lib = files.iter().find(|f| f.path == "src/lib.rs").unwrap();
    lib.content.clone()
}

/// `code` as rustfmt (edition 2021, its default rules) writes it.
fn rustfmt(code: &str) -> String {
    let mut rustfmt = Command::new("rustfmt");
    rustfmt.args(["--edition", "2021", "--emit", "stdout"]);
    let out = masterctl_testing::fed(&mut rustfmt, code.as_bytes());
    assert!(
        out.status.success(),
        "rustfmt refused the code: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The first line where `formatted` differs from `code`, with a few around it.
fn first_difference(code: &str, formatted: &str) -> Option<String> {
    let (a, b): (Vec<&str>, Vec<&str>) = (code.lines().collect(), formatted.lines().collect());
    let at = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))?;
    let around = |lines: &[&str]| lines[at.saturating_sub(3)..(at + 6).min(lines.len())].join("\n");
    Some(format!(
        "line {}: generated\n{}\n--- rustfmt writes\n{}",
        at + 1,
        around(&a),
        around(&b)
    ))
}

/// `code` is as rustfmt writes it; when not, the code is kept in a file to compare.
fn assert_formatted(code: &str, what: &str) {
    let formatted = rustfmt(code);
    if let Some(difference) = first_difference(code, &formatted) {
        let kept = std::env::temp_dir().join(format!("masterctl-rustfmt-{what}.rs"));
        std::fs::write(&kept, code).unwrap();
        panic!(
            "the generated Rust ({}) is not as rustfmt writes it: {difference}",
            kept.display()
        );
    }
}

#[test]
fn generated_rust_is_rustfmt_clean_at_every_length_of_name() {
    if !masterctl_testing::servers::installed("rustfmt", "rustup component add rustfmt") {
        return;
    }
    let mut schemas = Vec::new();
    for length in 1..=40 {
        schemas.extend(schemas_of_length(length));
    }
    let code = rust_of(schemas);
    assert_formatted(&code, "lengths");
}

#[test]
fn generated_rust_of_no_tables_is_rustfmt_clean() {
    if !masterctl_testing::servers::installed("rustfmt", "rustup component add rustfmt") {
        return;
    }
    let code = rust_of(Vec::new());
    assert_formatted(&code, "no-tables");
}
