//! `masterctl codegen`: the Rust crate generated for the sample game builds, is
//! rustfmt-clean, and reads every row of every table of a build through its typed API
//! (checked against the region's canonical CSV files); a build of other schemas is
//! refused at open; user templates override and add files; output is deterministic and
//! rewrites nothing unchanged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// A target folder the generated crates share across runs (the runtime's dependencies
/// compile once).
fn crate_target() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        root().join(target)
    };
    target.join("codegen-tests")
}

fn cargo(dir: &Path, args: &[&str]) -> std::process::Output {
    cargo_with(dir, args, &[])
}

/// `cargo ARGS` in `dir`, with the shared target folder and `env` set.
fn cargo_with(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> std::process::Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", crate_target());
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// The generated crate's `every_row` program (the test's template) on a build.
fn every_row(crate_dir: &Path, build: &Path) -> std::process::Output {
    let build = build.to_str().unwrap();
    let args = ["run", "--offline", "-q", "--bin", "every_row", "--", build];
    cargo(crate_dir, &args)
}

/// `masterctl codegen --lang rust` of the sample game into `out`, over this workspace's
/// runtime, with the template adding `src/bin/every_row.rs`.
fn generate(game: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
    let templates = game.join("my-templates");
    std::fs::create_dir_all(templates.join("src/bin")).unwrap();
    std::fs::copy(
        root().join("cli/tests/codegen/every_row.rs.hbs"),
        templates.join("src/bin/every_row.rs.hbs"),
    )
    .unwrap();
    let mut args = vec![
        "codegen",
        "--lang",
        "rust",
        "--out",
        out.to_str().unwrap(),
        "--templates",
        templates.to_str().unwrap(),
        "--format",
        "json",
    ];
    args.extend(extra);
    json(&ok(masterctl(game, &args)))
}

/// Cells of the canonical CSV files of masters/jp: (table, key, field) → value, keys
/// joined by `|` (a table without a key: the row's place, `#1`); texts as
/// `field@language`.
fn canonical_cells(root: &Path) -> BTreeMap<(String, String, String), String> {
    let project = masterctl_schemas::load::load_project(root).unwrap();
    let project: Vec<(String, Vec<String>)> = project
        .tables
        .iter()
        .map(|t| {
            let key = t
                .primary_key_names()
                .iter()
                .map(|k| k.to_string())
                .collect();
            (t.name.clone(), key)
        })
        .collect();
    let mut cells = BTreeMap::new();
    for (table, key) in &project {
        let mut read = |path: &str, suffix: Option<&str>| {
            let Ok(bytes) = std::process::Command::new("git")
                .args(["show", &format!("masters/jp:{path}")])
                .current_dir(root)
                .output()
            else {
                return;
            };
            if !bytes.status.success() {
                return;
            }
            let mut reader = csv::Reader::from_reader(&bytes.stdout[..]);
            let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
            for (place, record) in reader.records().enumerate() {
                let record = record.unwrap();
                let at = |name: &str| header.iter().position(|h| h == name).unwrap();
                let place = format!("#{}", place + 1);
                let row_key: Vec<&str> = match key.is_empty() {
                    true => vec![place.as_str()],
                    false => key.iter().map(|k| &record[at(k)]).collect(),
                };
                for (i, field) in header.iter().enumerate() {
                    if suffix.is_some() && key.contains(field) {
                        continue;
                    }
                    let field = match suffix {
                        Some(language) => format!("{field}@{language}"),
                        None => field.clone(),
                    };
                    cells.insert(
                        (table.clone(), row_key.join("|"), field),
                        record[i].to_string(),
                    );
                }
            }
        };
        read(&format!("tables/{table}.csv"), None);
        read(&format!("locales/ja/{table}.csv"), Some("ja"));
    }
    cells
}

/// What codegen wrote is as rustfmt writes it (the test's own program aside), builds
/// without a warning, and clippy finds nothing to say.
fn assert_clean_crate(out: &Path) {
    if installed("rustfmt", "rustup component add rustfmt") {
        let fmt = Command::new("rustfmt")
            .args(["--check", "--edition", "2021", "src/lib.rs"])
            .current_dir(out)
            .output()
            .unwrap();
        assert!(fmt.status.success(), "not rustfmt-clean:\n{}", text(&fmt));
    }
    let built = cargo(out, &["build", "--offline", "-q"]);
    assert!(built.status.success(), "{}", text(&built));
    let warnings = String::from_utf8_lossy(&built.stderr);
    assert!(!warnings.contains("warning"), "{warnings}");
    if installed("cargo-clippy", "rustup component add clippy") {
        let clippy = cargo(
            out,
            &["clippy", "--offline", "-q", "--lib", "--", "-D", "warnings"],
        );
        assert!(clippy.status.success(), "{}", text(&clippy));
    }
}

/// The cells `every_row` printed: (table, key, field) → value.
fn typed_cells(run: &std::process::Output) -> BTreeMap<(String, String, String), String> {
    stdout(run)
        .lines()
        .map(|line| {
            let parts: Vec<&str> = line.splitn(4, '\t').collect();
            let cell = (parts[0].into(), parts[1].into(), parts[2].into());
            (cell, parts[3].into())
        })
        .collect()
}

#[test]
fn the_generated_rust_crate_reads_every_row_of_a_build() {
    let game = sample_game();
    let root_dir = game.path();
    // With a pseudo language, which the loader reads as any other.
    add_pseudo_language(root_dir);
    ok(masterctl(
        root_dir,
        &["build", "--region", "jp", "--out", "build"],
    ));
    let out = root_dir.join("game-masters");
    let generated = generate(root_dir, &out, &["--region", "jp"]);
    let files: Vec<(&str, &str)> = generated["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["template"].as_str().unwrap()))
        .filter(|(_, template)| *template != "runtime")
        .collect();
    assert_eq!(
        files,
        [
            ("Cargo.toml", "built-in"),
            ("src/bin/every_row.rs", "added"),
            ("src/lib.rs", "built-in"),
        ]
    );
    // The runtime that wrote the build is written beside the crate, which builds as
    // generated: no flag, no lock file given, nothing but the package registry's cache.
    assert!(out.join("masterctl-runtime/src/lib.rs").is_file());
    assert!(
        std::fs::read_to_string(out.join("Cargo.toml"))
            .unwrap()
            .contains("masterctl-runtime = { path = \"masterctl-runtime\" }")
    );
    std::fs::create_dir_all(out.join("tests")).unwrap();
    std::fs::copy(
        root().join("cli/tests/codegen/typed.rs"),
        out.join("tests/typed.rs"),
    )
    .unwrap();
    assert_clean_crate(&out);

    // Every cell, read through the typed API, is the canonical file's.
    let build_dir = root_dir.join("build");
    let run = every_row(&out, &build_dir);
    assert!(run.status.success(), "{}", text(&run));
    let typed = typed_cells(&run);
    let canonical = canonical_cells(root_dir);
    assert!(canonical.len() > 150, "{} cells", canonical.len());
    // The sample game's chapters open at Japan time: a date-time cell of 10:00 under
    // its `timezone`, and a text with its offset (`2024-05-15T15:00:00+09:00`). Both are
    // instants in UTC, which this loader (and the Go, C# and TypeScript ones, over the
    // client export of the same build) reads back as UTC.
    let opens = |id: &str| canonical[&("chapter".into(), id.into(), "opens_at".into())].clone();
    assert_eq!(opens("1"), "2024-04-01T01:00:00Z");
    assert_eq!(opens("2"), "2024-05-15T06:00:00Z");
    for (cell, value) in &canonical {
        assert_eq!(typed.get(cell), Some(value), "{cell:?}");
    }
    // English: the translation, else the Japanese text (the build's fallback).
    let english = |table: &str, key: &str, field: &str| {
        typed[&(table.into(), key.into(), format!("{field}@en"))].clone()
    };
    assert_eq!(english("item", "1", "name"), "Iron Sword");
    assert_eq!(english("item", "2", "name"), "鋼の剣");
    // The pseudo language: made from the Japanese, Latin, longer, bracketed.
    let pseudo = typed[&("item".into(), "1".into(), "name@qps".into())].clone();
    assert_eq!(pseudo, masterctl_locales::pseudo::pseudo("鉄の剣", 0.4));
    assert!(
        pseudo.starts_with('[') && pseudo.chars().all(|c| (c as u32) < 0x3000),
        "{pseudo}"
    );

    // The API by name.
    let tests = cargo_with(
        &out,
        &["test", "--offline", "-q"],
        &[("MASTERS_BUILD", &build_dir)],
    );
    assert!(tests.status.success(), "{}", text(&tests));

    // A build of other schemas is refused when it opens.
    build_of_other_schemas(root_dir);
    let refused = every_row(&out, &root_dir.join("build2"));
    assert_eq!(refused.status.code(), Some(3), "{}", text(&refused));
    assert!(
        text(&refused).contains("made from the schemas"),
        "{}",
        text(&refused)
    );
}

/// A project of records (a record, a list and a map of them, a record in a record at
/// its own separator and at the same, an enum and an optional field of one) and of a
/// union (one, a list of them, a case named by another name, one in a record of
/// another separator and in a list of records of its own), imported
/// into masters/jp and built with its client export into `build`: the folder it lives
/// in, and its root.
fn records_game() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("source");
    let files = [
        (
            "masterctl.toml",
            "source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n",
        ),
        (
            "schemas/cost.toml",
            "kind = \"record\"\nfields = [{ name = \"item_id\", type = \"int\" }, { name = \"count\", type = \"int\" }]\n",
        ),
        (
            "schemas/clock.toml",
            "kind = \"record\"\nseparator = \":\"\nfields = [{ name = \"hour\", type = \"int\" }, { name = \"minute\", type = \"int\" }]\n",
        ),
        (
            "schemas/offer.toml",
            "kind = \"record\"\nseparator = \";\"\nfields = [\n  { name = \"kind\", type = \"enum\", values = [\"gold\", \"item\"] },\n  { name = \"opens\", type = \"clock\" },\n  { name = \"note\", type = \"string\", optional = true },\n  { name = \"rate\", type = \"float\" },\n]\n",
        ),
        (
            "schemas/bonus.toml",
            "kind = \"record\"\nfields = [{ name = \"level\", type = \"int\" }, { name = \"cost\", type = \"cost\" }]\n",
        ),
        (
            "schemas/circle.toml",
            "kind = \"record\"\nseparator = \":\"\nfields = [{ name = \"radius\", type = \"float\" }]\n",
        ),
        (
            "schemas/shape.toml",
            "kind = \"union\"\nseparator = \":\"\ncases = [{ record = \"circle\" }, { record = \"clock\", names = [\"time\"] }]\n",
        ),
        (
            "schemas/placed.toml",
            "kind = \"record\"\nfields = [{ name = \"x\", type = \"int\" }, { name = \"shape\", type = \"shape\" }]\n",
        ),
        (
            "schemas/step.toml",
            "kind = \"record\"\nseparator = \":\"\nfields = [{ name = \"at\", type = \"int\" }, { name = \"shape\", type = \"shape\" }]\n",
        ),
        (
            "schemas/shop.toml",
            "primary_key = [\"id\"]\nfields = [\n  { name = \"id\", type = \"int\" },\n  { name = \"price\", type = \"cost\" },\n  { name = \"costs\", type = \"list<cost>\", optional = true },\n  { name = \"offer\", type = \"offer\", optional = true },\n  { name = \"bonus\", type = \"bonus\", optional = true },\n  { name = \"by_rank\", type = \"map<int, cost>\", optional = true },\n  { name = \"zone\", type = \"shape\", optional = true },\n  { name = \"zones\", type = \"list<shape>\", optional = true },\n  { name = \"placed\", type = \"placed\", optional = true },\n  { name = \"steps\", type = \"list<step>\", optional = true },\n]\n",
        ),
        (
            "schemas/thing.toml",
            "primary_key = [\"id\"]\ncase_field = \"type\"\nfields = [\n  { name = \"id\", type = \"int\" },\n  { name = \"type\", type = \"enum\", values = [\"goods\", \"gear\", \"charm\"] },\n  { name = \"name\", type = \"string\" },\n  { name = \"num\", type = \"int\", cases = [\"goods\"] },\n  { name = \"price\", type = \"int\", cases = [\"goods\", \"gear\"], default = 0 },\n  { name = \"attr\", type = \"enum\", values = [\"a\", \"b\"], cases = [\"gear\"] },\n  { name = \"note\", type = \"string\", optional = true, cases = [\"gear\"] },\n  { name = \"tags\", type = \"list<string>\", optional = true, cases = [\"charm\"] },\n]\n",
        ),
        (
            "data/thing.csv",
            "id,type,name,num,price,attr,note,tags\n1,goods,Potion,3,15,,,\n2,gear,Sword,,,a,sharp,\n3,gear,Shield,,80,b,,\n4,charm,Ring,,,,,lucky|shiny\n",
        ),
        (
            "data/shop.csv",
            "id,price,costs,offer,bonus,by_rank,zone,zones,placed,steps\n\
             1,\"1001,2\",\"1001,2|1002,3\",item;10:30;spring sale;0.25,\"3,1001,5\",\"2:1002,1|1:1001,4\",circle:1.5,time:9:30|circle:2,\"4,time:8:15\",1:circle:2|2:time:9:30\n\
             2,\"1003,1\",,gold;9:0;;1.5,,,,,,\n",
        ),
    ];
    for (path, text) in files {
        let path = source.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let root = planners_repository(tmp.path());
    ok(masterctl(
        &root,
        &["init", ".", "--from", source.to_str().unwrap()],
    ));
    let data = source.join("data");
    ok(masterctl(
        &root,
        &["import", "--region", "jp", data.to_str().unwrap()],
    ));
    let build = ["build", "--region", "jp", "--out", "build", "--client"];
    ok(masterctl(&root, &build));
    (tmp, root)
}

/// Records through the generated Rust API: a record, a list and a map of them, a record
/// in a record (at its own separator and at the same), an enum and an optional field of
/// one; every cell read (records shown as their cells write them) is the canonical
/// file's, and the crate is rustfmt- and clippy-clean.
#[test]
fn the_generated_rust_crate_reads_records() {
    let (_tmp, root) = records_game();
    // A crate of its own name: the crates share a target folder, and tests run at once.
    let out = root.join("record-masters");
    generate(&root, &out, &["--region", "jp", "--name", "record-masters"]);
    assert_clean_crate(&out);
    let run = every_row(&out, &root.join("build"));
    assert!(run.status.success(), "{}", text(&run));
    let typed = typed_cells(&run);
    let canonical = canonical_cells(&root);
    assert_eq!(
        canonical[&("shop".into(), "1".into(), "offer".into())],
        "item;10:30;spring sale;0.25"
    );
    // A row of a table of several cases read as its case: its case's fields (a default
    // filling one in its case's rows) are the row's.
    let (as_cases, typed): (BTreeMap<_, _>, BTreeMap<_, _>) = typed
        .into_iter()
        .partition(|((_, _, field), _)| field.starts_with("case:"));
    // goods: its case, num and price; gear: its case, price, attr and note; charm: its
    // case and tags.
    assert_eq!(as_cases.len(), 3 + 4 + 4 + 2, "{as_cases:#?}");
    for ((table, key, field), value) in &as_cases {
        let field = field.trim_start_matches("case:").to_string();
        let cell = (table.clone(), key.clone(), field);
        assert_eq!(Some(value), canonical.get(&cell), "{cell:?}");
    }
    assert_eq!(
        canonical[&("thing".into(), "2".into(), "price".into())],
        "0"
    );
    assert_eq!(typed.len(), canonical.len(), "{typed:#?}");
    for (cell, value) in &canonical {
        assert_eq!(typed.get(cell), Some(value), "{cell:?}");
    }
}

#[test]
fn codegen_is_deterministic_and_takes_templates_of_the_users() {
    let game = sample_game();
    let root_dir = game.path();
    let out = root_dir.join("gen");
    let first = generate(root_dir, &out, &[]);
    assert!(
        first["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["written"] == "written")
    );
    let lib = std::fs::read(out.join("src/lib.rs")).unwrap();
    let before = std::fs::metadata(out.join("src/lib.rs"))
        .unwrap()
        .modified()
        .unwrap();
    // A file codegen did not write stays.
    std::fs::write(out.join("NOTES.md"), "mine").unwrap();
    let again = generate(root_dir, &out, &[]);
    assert!(
        again["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["written"] == "unchanged")
    );
    assert_eq!(std::fs::read(out.join("src/lib.rs")).unwrap(), lib);
    assert_eq!(
        std::fs::metadata(out.join("src/lib.rs"))
            .unwrap()
            .modified()
            .unwrap(),
        before
    );
    assert_eq!(
        std::fs::read_to_string(out.join("NOTES.md")).unwrap(),
        "mine"
    );

    // A user's template replaces the built-in one of its path; a partial is shared.
    let templates = root_dir.join("my-templates");
    std::fs::write(
        templates.join("Cargo.toml.hbs"),
        "# {{> banner}}\n[package]\nname = \"{{package}}\"\nversion = \"0.2.0\"\nedition = \"2021\"\n\n[dependencies]\nmasterctl-runtime = {{{runtime_dependency}}}\n",
    )
    .unwrap();
    std::fs::write(templates.join("_banner.hbs"), "made for {{pascal package}}").unwrap();
    let replaced = generate(root_dir, &out, &[]);
    let cargo_toml = replaced["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "Cargo.toml")
        .unwrap()
        .clone();
    assert_eq!(cargo_toml["template"], "override");
    assert_eq!(cargo_toml["written"], "written");
    let written = std::fs::read_to_string(out.join("Cargo.toml")).unwrap();
    assert!(written.starts_with("# made for Masters\n"), "{written}");
    assert!(written.contains("version = \"0.2.0\""), "{written}");

    // A broken template is named, with its line; nothing is written.
    std::fs::write(templates.join("broken.txt.hbs"), "fine\n{{#each tables}}\n").unwrap();
    let broken = masterctl(
        root_dir,
        &[
            "codegen",
            "--lang",
            "rust",
            "--out",
            out.to_str().unwrap(),
            "--templates",
            templates.to_str().unwrap(),
        ],
    );
    assert_eq!(broken.status.code(), Some(1), "{}", text(&broken));
    assert!(
        text(&broken).contains("broken.txt.hbs"),
        "{}",
        text(&broken)
    );
    assert!(!out.join("broken.txt").exists());
}

#[test]
fn the_template_context_reads_like_this() {
    let game = sample_game();
    let out = ok(masterctl(
        game.path(),
        &["codegen", "--lang", "rust", "--dump-context"],
    ));
    let context = json(&out);
    // Every table, each enum once, the generated masters by kind.
    assert_eq!(context["tables"].as_array().unwrap().len(), 10);
    assert_eq!(context["reverses"][0]["name"], "item_sources");
    assert_eq!(context["matrices"][0]["default"], "1.0");
    insta::assert_snapshot!("dump_context", stdout(&out));
}

/// A project whose names are Rust keywords and whose descriptions and enum values hold
/// quotes, backslashes, comment ends, markup and other scripts.
const HOSTILE_TYPE: &str = r#"name = "type"
description = "Ends */ a comment /* and <b>bold</b> & \"quoted\" \\ back\nsecond line"
primary_key = ["match"]

[[fields]]
name = "match"
type = "int"

[[fields]]
name = "self"
type = "enum"
values = ["self", "Self", "super-rare", "レア", "2x", "a\"b", "a\\b", "fn"]
description = "*/ fn main() {} /*"

[[fields]]
name = "fn"
type = "string"
optional = true

[[fields]]
name = "ref"
type = "list<int>"
optional = true

[[fields]]
name = "loop"
type = "text"

[[fields]]
name = "box"
type = "int"
references = "crate.id"

[[indexes]]
fields = ["fn"]
"#;

const HOSTILE_CRATE: &str = r#"name = "crate"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "async"
type = "enum"
values = ["await", "dyn"]

# Maps, compiled in every language: enum keys, enum values, an optional one.
[[fields]]
name = "move"
type = "map<enum, float>"
values = ["await", "dyn"]

[[fields]]
name = "loop"
type = "map<int, enum>"
values = ["in", "out"]

[[fields]]
name = "when"
type = "map<string, datetime>"
optional = true
"#;

/// Tables named as the languages' own types (TypeScript's `Error`, `Uint8Array`,
/// `DataView`, Rust's `Option`), with text holding every line terminator and a
/// right-to-left override: once code (`static Item(){...}` after U+2028 ended a C#
/// comment and ran).
const HOSTILE_AMBIENT: [(&str, &str); 4] = [
    (
        "error.toml",
        r#"name = "error"
description = "Price in gold\u2028static Item(){ System.Environment.Exit(3); }"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"
description = "id\u0085}class X{\u2029// end\rmore\u202e"

[[fields]]
name = "kind"
type = "enum"
values = ["a\u2028b", "\u202eevil", "c\u0085d"]
description = "kinds */ static void M(){} /*"
"#,
    ),
    (
        "uint8_array.toml",
        "name = \"uint8_array\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n",
    ),
    (
        "data_view.toml",
        "name = \"data_view\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n",
    ),
    (
        "option.toml",
        "name = \"option\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n",
    ),
];

/// Names Go gives meaning to, and names the generated Go code uses for its own locals,
/// as fields of a composite key and an index.
const HOSTILE_GO: &str = r#"name = "range"
primary_key = ["t", "string"]

[[fields]]
name = "t"
type = "int"

[[fields]]
name = "string"
type = "string"

[[fields]]
name = "time"
type = "date"
optional = true

[[fields]]
name = "len"
type = "enum"
values = ["ok", "i"]

[[fields]]
name = "parts"
type = "list<float>"

[[indexes]]
fields = ["len", "time"]
"#;

fn hostile_project(schemas: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root_dir = dir.path();
    git(root_dir, &["init", "-q", "-b", "main"]);
    std::fs::write(
        root_dir.join("masterctl.toml"),
        "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n",
    )
    .unwrap();
    std::fs::create_dir(root_dir.join("schemas")).unwrap();
    for (file, text) in schemas {
        std::fs::write(root_dir.join("schemas").join(file), text).unwrap();
    }
    dir
}

#[test]
fn keywords_and_hostile_text_make_code_that_compiles() {
    let mut schemas = vec![
        ("type.toml", HOSTILE_TYPE),
        ("crate.toml", HOSTILE_CRATE),
        ("range.toml", HOSTILE_GO),
    ];
    schemas.extend(HOSTILE_AMBIENT);
    let project = hostile_project(&schemas);
    let out = project.path().join("gen");
    let runtime = root().join("runtime");
    ok(masterctl(
        project.path(),
        &[
            "codegen",
            "--lang",
            "rust",
            "--out",
            out.to_str().unwrap(),
            "--runtime-path",
            runtime.to_str().unwrap(),
        ],
    ));
    let lib = std::fs::read_to_string(out.join("src/lib.rs")).unwrap();
    assert!(
        lib.contains("pub fn r#type(&self) -> TypeTable<'_>"),
        "{lib}"
    );
    assert!(lib.contains("pub fn r#match(&self) -> i64"), "{lib}");
    assert!(lib.contains("\"a\\\"b\" => Some(Self::AB)"), "{lib}");
    assert!(lib.contains("/// *\\/ fn main() {} /*") || lib.contains("/// */ fn main() {} /*"));
    std::fs::copy(root().join("Cargo.lock"), out.join("Cargo.lock")).unwrap();
    let checked = cargo(&out, &["check", "--offline", "-q"]);
    assert!(checked.status.success(), "{}", text(&checked));
    assert!(
        !String::from_utf8_lossy(&checked.stderr).contains("warning"),
        "{}",
        text(&checked)
    );

    // The same project in TypeScript.
    if installed("tsc", "npm install -g typescript@5.9.3") {
        let ts = project.path().join("ts");
        ok(masterctl(
            project.path(),
            &[
                "codegen",
                "--lang",
                "typescript",
                "--out",
                ts.to_str().unwrap(),
            ],
        ));
        assert_strict(&ts);
    }

    // And in Go.
    if installed("go", "apt-get install golang-go") {
        let go_out = project.path().join("go");
        ok(masterctl(
            project.path(),
            &["codegen", "--lang", "go", "--out", go_out.to_str().unwrap()],
        ));
        let code = std::fs::read_to_string(go_out.join("masters.go")).unwrap();
        assert!(
            code.contains("func (t *RangeTable) Get(tValue int64, stringValue string)"),
            "{code}"
        );
        assert_go_clean(&go_out);
    }

    // And in C#.
    if csharp_installed() {
        let cs = project.path().join("cs");
        ok(masterctl(
            project.path(),
            &["codegen", "--lang", "csharp", "--out", cs.to_str().unwrap()],
        ));
        let code = std::fs::read_to_string(cs.join("Masters.cs")).unwrap();
        // Text after a line terminator of C#'s stays inside its comment.
        for line in code.lines().filter(|l| l.contains("static Item()")) {
            assert!(line.trim_start().starts_with("///"), "{line}");
        }
        assert!(
            !code.contains(['\u{2028}', '\u{2029}', '\u{85}', '\u{202e}']),
            "a line terminator or bidi control reached the code"
        );
        assert!(
            code.contains("public RangeType? Get(long tValue, string stringValue)")
                || code.contains("public Range? Get(long tValue, string stringValue)"),
            "{code}"
        );
        assert!(code.contains("public TypeTypeTable Type"), "{code}");
        let library = ["-langversion:5", "-target:library", "-out:Masters.dll"];
        mcs(
            &cs,
            &[&library[..], &["Masters.cs", "MastersReader.cs"]].concat(),
        );
    }
}

/// Names that are the generated code's own in some language — Rust's `Masters::open`,
/// `Date`, `Map`; a row's `row_index`/`rowIndex`/`RowIndex`/`ToString`; Go's `Error` and
/// `<Enum>Values`; C#'s `MastersException` and `Masters.Language` — are escaped, never
/// refused: one project of all of them compiles in every language.
#[test]
fn a_schema_may_use_any_name_the_generated_code_has_for_itself() {
    let table = |name: &str, fields: &str| {
        (
            format!("{name}.toml"),
            format!(
                "name = \"{name}\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n{fields}"
            ),
        )
    };
    let files = [
        table(
            "item",
            "\n[[fields]]\nname = \"row_index\"\ntype = \"int\"\n\n[[fields]]\nname = \"to_string\"\ntype = \"int\"\n\n[[fields]]\nname = \"kind\"\ntype = \"enum\"\nvalues = [\"values\", \"other\"]\n",
        ),
        table("open", ""),
        table("date", ""),
        table("map", ""),
        table("error", ""),
        table("masters_exception", ""),
        table("language", ""),
    ];
    let schemas: Vec<(&str, &str)> = files
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .collect();
    let project = hostile_project(&schemas);
    let root_dir = project.path();
    let out = root_dir.join("rust");
    let runtime = root().join("runtime");
    let args = ["--runtime-path", runtime.to_str().unwrap()];
    ok(masterctl(
        root_dir,
        &[
            &["codegen", "--lang", "rust", "--out", out.to_str().unwrap()],
            &args[..],
        ]
        .concat(),
    ));
    let lib = std::fs::read_to_string(out.join("src/lib.rs")).unwrap();
    for escaped in [
        "pub fn row_index_(&self) -> i64",
        "pub fn open_(&self) -> OpenTable<'_>",
        "pub struct DateType<'a>",
        "pub struct MapType<'a>",
    ] {
        assert!(lib.contains(escaped), "{escaped}");
    }
    std::fs::copy(root().join("Cargo.lock"), out.join("Cargo.lock")).unwrap();
    let checked = cargo(&out, &["check", "--offline", "-q"]);
    assert!(checked.status.success(), "{}", text(&checked));
    assert!(
        !String::from_utf8_lossy(&checked.stderr).contains("warning"),
        "{}",
        text(&checked)
    );
    if installed("tsc", "npm install -g typescript@5.9.3") {
        let ts = root_dir.join("ts");
        ok(masterctl(
            root_dir,
            &[
                "codegen",
                "--lang",
                "typescript",
                "--out",
                ts.to_str().unwrap(),
            ],
        ));
        let code = std::fs::read_to_string(ts.join("masters.ts")).unwrap();
        assert!(code.contains("get rowIndex_()"), "{code}");
        assert_strict(&ts);
    }
    if installed("go", "apt-get install golang-go") {
        let go = root_dir.join("go");
        ok(masterctl(
            root_dir,
            &["codegen", "--lang", "go", "--out", go.to_str().unwrap()],
        ));
        let code = std::fs::read_to_string(go.join("masters.go")).unwrap();
        assert!(code.contains("type ErrorType struct"), "{code}");
        assert!(code.contains("ItemKindValuesValue"), "{code}");
        assert_go_clean(&go);
    }
    if csharp_installed() {
        let cs = root_dir.join("cs");
        ok(masterctl(
            root_dir,
            &["codegen", "--lang", "csharp", "--out", cs.to_str().unwrap()],
        ));
        let code = std::fs::read_to_string(cs.join("Masters.cs")).unwrap();
        for escaped in [
            "LanguageTable Language_",
            "MastersExceptionType",
            "ToString_",
        ] {
            assert!(code.contains(escaped), "{escaped}");
        }
        let library = ["-langversion:5", "-target:library", "-out:Masters.dll"];
        mcs(
            &cs,
            &[&library[..], &["Masters.cs", "MastersReader.cs"]].concat(),
        );
    }
}

/// A client JSON cell as its canonical CSV text.
fn canonical_json(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => String::new(),
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => masterctl_runtime::text::format_float(n.as_f64().unwrap()),
        },
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) => items
            .iter()
            .map(canonical_json)
            .collect::<Vec<_>>()
            .join("|"),
        other => panic!("{other}"),
    }
}

#[test]
fn build_client_exports_every_table_and_language_and_fetch_takes_one_language() {
    let game = sample_game();
    let root_dir = game.path();
    ok(masterctl(
        root_dir,
        &["build", "--region", "jp", "--out", "build", "--client"],
    ));
    let build = root_dir.join("build");
    // The runtime opens the build as before: the client export is not its business.
    let masters = masterctl_runtime::Masters::open(&build).unwrap();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(build.join("manifest.json")).unwrap()).unwrap();
    let files = manifest["files"].as_array().unwrap();
    let client: Vec<&serde_json::Value> = files.iter().filter(|f| f["kind"] == "client").collect();
    let tables: Vec<&str> = masters.tables().collect();
    // Per table, generated master, and table with texts per language: one binary, one JSON.
    for table in &tables {
        for (kind, path) in [
            ("client", format!("client/tables/{table}.bin")),
            ("client-json", format!("client/json/tables/{table}.json")),
        ] {
            let entry = files
                .iter()
                .find(|f| f["path"] == path.as_str())
                .unwrap_or_else(|| panic!("{path}"));
            assert_eq!(entry["kind"], kind);
            let bytes = std::fs::read(build.join(&path)).unwrap();
            assert_eq!(entry["blake3"], blake3::hash(&bytes).to_hex().as_str());
        }
    }
    for name in [
        "item_sources",
        "quests_by_chapter",
        "drop_draw",
        "element_matrix",
    ] {
        assert!(
            build.join(format!("client/generated/{name}.bin")).is_file(),
            "{name}"
        );
    }
    for language in ["ja", "en"] {
        assert!(
            build
                .join(format!("client/strings/{language}/item.bin"))
                .is_file()
        );
    }
    // Six tables have texts (the game's rules among them): in ja and en.
    assert_eq!(client.len(), tables.len() + 4 + 2 * 6);

    // The binary names itself; the JSON holds the canonical files' cells.
    let binary = std::fs::read(build.join("client/tables/item.bin")).unwrap();
    assert_eq!(&binary[..4], b"MCCL");
    assert_eq!(u16::from_le_bytes([binary[4], binary[5]]), 1);
    let canonical = canonical_cells(root_dir);
    let mut compared = 0;
    for table in &tables {
        let json: serde_json::Value = serde_json::from_slice(
            &std::fs::read(build.join(format!("client/json/tables/{table}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(json["schema_hash"], manifest["schema_hash"]);
        let columns: Vec<&str> = json["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let project = masterctl_schemas::load::load_project(root_dir).unwrap();
        let key: Vec<usize> = project
            .table(table)
            .unwrap()
            .primary_key_names()
            .iter()
            .map(|k| columns.iter().position(|c| c == k).unwrap())
            .collect();
        for (place, row) in json["rows"].as_array().unwrap().iter().enumerate() {
            let cells = row.as_array().unwrap();
            let key_text: Vec<String> = match key.is_empty() {
                // No key: the row's place.
                true => vec![format!("#{}", place + 1)],
                false => key.iter().map(|&k| canonical_json(&cells[k])).collect(),
            };
            for (column, cell) in columns.iter().zip(cells) {
                if column.ends_with(".values") {
                    continue; // a map's values: with its keys, below
                }
                let at = (table.to_string(), key_text.join("|"), column.to_string());
                // A map: its keys here, its values in `<name>.values`, as `k:v|k:v`.
                let values_column = format!("{column}.values");
                let text = match columns.iter().position(|c| *c == values_column) {
                    Some(values) => match (cell.as_array(), cells[values].as_array()) {
                        (Some(keys), Some(values)) => keys
                            .iter()
                            .zip(values)
                            .map(|(k, v)| format!("{}:{}", canonical_json(k), canonical_json(v)))
                            .collect::<Vec<_>>()
                            .join("|"),
                        _ => String::new(),
                    },
                    None => canonical_json(cell),
                };
                assert_eq!(Some(&text), canonical.get(&at), "{at:?}");
                compared += 1;
            }
        }
    }
    assert!(compared > 100, "{compared}");
    let english: serde_json::Value = serde_json::from_slice(
        &std::fs::read(build.join("client/json/strings/en/item.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(english["language"], "en");
    assert_eq!(english["rows"][0][0], "Iron Sword");
    assert_eq!(english["rows"][1][0], "鋼の剣");

    // Published and fetched in English only: the client texts of ja stay behind, and
    // the client files arrive verified by their hash.
    let store = root_dir.join("store");
    let url = format!("file://{}", store.display());
    ok(masterctl(root_dir, &["publish", "build", "--to", &url]));
    ok(masterctl(
        root_dir,
        &[
            "fetch", "--from", &url, "--region", "jp", "--out", "fetched", "--lang", "en",
        ],
    ));
    let fetched = root_dir.join("fetched");
    assert!(fetched.join("client/strings/en/item.bin").is_file());
    assert!(fetched.join("client/json/strings/en/item.json").is_file());
    assert!(!fetched.join("client/strings/ja").exists());
    assert!(!fetched.join("strings/ja").exists());
    assert_eq!(
        std::fs::read(fetched.join("client/tables/item.bin")).unwrap(),
        binary
    );
    masterctl_runtime::Masters::open(&fetched).unwrap();
}

#[test]
fn codegen_says_what_is_wrong_with_its_arguments() {
    let game = sample_game();
    let root_dir = game.path();
    for (args, code, says) in [
        (&["--rev", "nope"][..], 1, "`nope` names no commit"),
        (&["--region", "global"][..], 1, "has no branch yet"),
        (&["--region", "mars"][..], 1, "not declared"),
        (&["--name", "Bad"][..], 2, "not a package name"),
        (&["--templates", "/nonexistent"][..], 2, "not a folder"),
    ] {
        let mut all = vec!["codegen", "--lang", "rust", "--out", "gen"];
        all.extend(args);
        let out = masterctl(root_dir, &all);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
        assert!(!root_dir.join("gen").exists());
    }
    // A region's head and a revision give the schemas of that commit: the build's hash.
    ok(masterctl(
        root_dir,
        &["build", "--region", "jp", "--out", "build"],
    ));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root_dir.join("build/manifest.json")).unwrap())
            .unwrap();
    for source in [["--region", "jp"], ["--rev", "masters/jp"]] {
        let mut all = vec![
            "codegen", "--lang", "rust", "--out", "gen", "--format", "json",
        ];
        all.extend(source);
        let generated = json(&ok(masterctl(root_dir, &all)));
        assert_eq!(generated["schema_hash"], manifest["schema_hash"]);
    }
}

/// `build2`: the sample game built (with its client export) after a schema changed.
fn build_of_other_schemas(root_dir: &Path) {
    let schema = root_dir.join("schemas/item.toml");
    let changed = std::fs::read_to_string(&schema)
        .unwrap()
        .replace("Things a player can own", "Things a player owns");
    std::fs::write(&schema, changed).unwrap();
    commit_structure(root_dir);
    let workbooks = fixtures().join("workbooks");
    let import = ["import", "--region", "jp", workbooks.to_str().unwrap()];
    ok(masterctl(root_dir, &import));
    let build = ["build", "--region", "jp", "--out", "build2", "--client"];
    ok(masterctl(root_dir, &build));
}

/// The sample game, built into `build` with its client export.
fn client_game() -> tempfile::TempDir {
    let game = sample_game();
    ok(masterctl(
        game.path(),
        &["build", "--region", "jp", "--out", "build", "--client"],
    ));
    game
}

/// `codegen --lang LANG` of the game in `root_dir` into `<root_dir>/<lang>`, with the
/// test's template `check` (from `cli/tests/codegen/`) added.
fn client_code(root_dir: &Path, lang: &str, check: &str) -> PathBuf {
    let templates = root_dir.join(format!("{lang}-templates"));
    std::fs::create_dir_all(&templates).unwrap();
    std::fs::copy(
        root().join("cli/tests/codegen").join(check),
        templates.join(check),
    )
    .unwrap();
    let out = root_dir.join(lang);
    ok(masterctl(
        root_dir,
        &[
            "codegen",
            "--lang",
            lang,
            "--out",
            out.to_str().unwrap(),
            "--templates",
            templates.to_str().unwrap(),
        ],
    ));
    out
}

/// `masters.ts` strict, and it and the test's `check.ts` compiled into `out/`.
fn compile_check_ts(dir: &Path) {
    assert_strict(dir);
    let args = [
        "--strict",
        "--target",
        "es2020",
        "--module",
        "commonjs",
        "--lib",
        "es2020,dom",
        "--outDir",
        "out",
        "masters.ts",
        "check.ts",
    ];
    let compiled = tsc(dir, &args);
    assert!(compiled.status.success(), "{}", text(&compiled));
}

/// `masters.ts` in `dir` compiles under `tsc --strict`.
fn assert_strict(dir: &Path) {
    let args = [
        "--strict",
        "--noEmit",
        "--target",
        "es2020",
        "--lib",
        "es2020,dom",
        "masters.ts",
    ];
    let strict = tsc(dir, &args);
    assert!(strict.status.success(), "{}", text(&strict));
}

/// `tsc ARGS` in `dir`.
fn tsc(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("tsc")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn the_typescript_client_reads_every_cell_of_the_client_export() {
    if !installed("tsc", "npm install -g typescript@5.9.3")
        || !installed("node", "apt-get install nodejs")
    {
        return;
    }
    let game = client_game();
    let root_dir = game.path();
    let out = client_code(root_dir, "typescript", "check.ts.hbs");
    compile_check_ts(&out);
    let build = root_dir.join("build");
    for language in ["ja", "en"] {
        let checked = Command::new("node")
            .args(["out/check.js", build.to_str().unwrap(), language])
            .current_dir(&out)
            .output()
            .unwrap();
        assert!(checked.status.success(), "{language}: {}", text(&checked));
        let cells: usize = stdout(&checked).trim().parse().unwrap();
        assert!(cells > 150, "{cells} cells");
    }
    // English texts, with the region's fallbacks.
    let english = Command::new("node")
        .args([
            "-e",
            "const {Masters} = require('./out/masters.js'); const fs = require('fs'); \
             const m = new Masters(p => fs.readFileSync(process.argv[1] + '/' + p), 'en'); \
             const s = m.item.get(1), t = m.item.get(2); \
             console.log([s.name, t.name, s.rarity, s.tags.join('|'), m.shopItem.get(1, 5).stock].join(',')); \
             console.log(s.itemSources.map(r => r.sourceTable + ' ' + r.sourceKey + ' ' + r.source().row.rowIndex).join(',')); \
             console.log(m.questsByChapter(1).map(q => q.code).join(','), m.item.byCategoryId(1).map(i => i.id).join(',')); \
             console.log(m.dropDraw.draw(101, 0).itemId, m.dropDraw.draw(101, 0.99).itemId, m.dropDraw.draw(999, 0.5)); \
             console.log(m.elementMatrix('fire', 'water'), m.elementMatrix('fire', 'fire')); \
             const all = [...m.item].filter(i => i.categoryId >= 2 && i.categoryId <= 3).length; \
             const range = m.item.byCategoryIdRange(2, 3).map(i => i.categoryId); \
             console.log(range.length === all && all > 0 && range.every((c, k) => c >= 2 && c <= 3 && (k === 0 || range[k - 1] <= c)), \
               m.item.byCategoryIdRange(null, 1).map(i => i.id).join(','), m.item.byCategoryIdRange(9, null).length);",
            build.to_str().unwrap(),
        ])
        .current_dir(&out)
        .output()
        .unwrap();
    assert_eq!(
        stdout(&english).lines().collect::<Vec<_>>(),
        [
            "Iron Sword,鋼の剣,common,sword|starter,99",
            // Reverse lookup, to the source rows; group; index; weighted draws; matrix.
            "quest_drop 102|1 2,shop_item 1|1 0",
            "Q0101,Q0102 1,2",
            "5 6 undefined",
            "0.5 1",
            "true 1,2 0",
        ],
        "{}",
        text(&english)
    );

    // Damaged files: a MastersError, never another error or a crash.
    std::fs::copy(
        root().join("cli/tests/codegen/damaged.js"),
        out.join("damaged.js"),
    )
    .unwrap();
    let damaged = Command::new("node")
        .args(["damaged.js", build.to_str().unwrap()])
        .current_dir(&out)
        .output()
        .unwrap();
    assert_eq!(stdout(&damaged).trim(), "damaged: ok", "{}", text(&damaged));

    // A build of other schemas is refused when it opens.
    build_of_other_schemas(root_dir);
    let refused = Command::new("node")
        .args([
            "out/check.js",
            root_dir.join("build2").to_str().unwrap(),
            "en",
        ])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("made from the schemas"),
        "{}",
        text(&refused)
    );
}

/// Records through the generated TypeScript API, over the client export: each field of
/// every record (a record, a list's, a map's; nested ones opened) is the JSON export's.
#[test]
fn the_typescript_client_reads_records() {
    if !installed("tsc", "npm install -g typescript@5.9.3")
        || !installed("node", "apt-get install nodejs")
    {
        return;
    }
    let (_tmp, root) = records_game();
    let out = client_code(&root, "typescript", "check.ts.hbs");
    compile_check_ts(&out);
    let build = root.join("build");
    let checked = Command::new("node")
        .args(["out/check.js", build.to_str().unwrap(), "ja"])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(checked.status.success(), "{}", text(&checked));
    let cells: usize = stdout(&checked).trim().parse().unwrap();
    assert!(cells >= 30, "{cells} cells");
    let offer = Command::new("node")
        .args([
            "-e",
            "const {Masters} = require('./out/masters.js'); const fs = require('fs'); \
             const m = new Masters(p => fs.readFileSync(process.argv[1] + '/' + p), 'ja'); \
             const s = m.shop.get(1); \
             console.log(JSON.stringify([s.offer, s.costs, [...s.byRank], s.bonus, m.shop.get(2).offer])); \
             console.log(JSON.stringify([s.zone, s.zones, m.shop.get(2).zone, m.shop.get(2).zones])); \
             console.log(JSON.stringify([s.placed, s.steps, m.shop.get(2).placed, m.shop.get(2).steps]));",
            build.to_str().unwrap(),
        ])
        .current_dir(&out)
        .output()
        .unwrap();
    assert_eq!(
        stdout(&offer).trim(),
        concat!(
            r#"[{"kind":"item","opens":{"hour":10,"minute":30},"note":"spring sale","rate":0.25},[{"itemId":1001,"count":2},{"itemId":1002,"count":3}],[[1,{"itemId":1001,"count":4}],[2,{"itemId":1002,"count":1}]],{"level":3,"cost":{"itemId":1001,"count":5}},{"kind":"gold","opens":{"hour":9,"minute":0},"note":null,"rate":1.5}]"#,
            "\n",
            r#"[{"case":"circle","value":{"radius":1.5}},[{"case":"clock","value":{"hour":9,"minute":30}},{"case":"circle","value":{"radius":2}}],null,[]]"#,
            "\n",
            r#"[{"x":4,"shape":{"case":"clock","value":{"hour":8,"minute":15}}},[{"at":1,"shape":{"case":"circle","value":{"radius":2}}},{"at":2,"shape":{"case":"clock","value":{"hour":9,"minute":30}}}],null,[]]"#,
        ),
        "{}",
        text(&offer)
    );
}

/// Records through the generated Go API, over the client export: each field of every
/// record (a record, a list's, a map's; nested ones opened) is the JSON export's.
#[test]
fn the_go_client_reads_records() {
    if !installed("go", "apt-get install golang-go") {
        return;
    }
    let (_tmp, root) = records_game();
    let out = client_code(&root, "go", "check_test.go.hbs");
    assert_go_clean(&out);
    let build = root.join("build");
    let args = ["test", "-count=1", "-v", "-run", "TestEveryCell", "."];
    let env = [
        ("MASTERS_BUILD", build.as_path()),
        ("MASTERS_LANGUAGE", Path::new("ja")),
    ];
    let checked = go(&out, &args, &env);
    assert!(checked.status.success(), "{}", text(&checked));
    let cells = cells_counted(&checked);
    assert!(cells >= 30, "{cells} cells");
}

/// The cells a check said it compared (`cells: N`).
fn cells_counted(checked: &std::process::Output) -> usize {
    stdout(checked)
        .lines()
        .find_map(|l| l.strip_prefix("cells: "))
        .unwrap_or_else(|| panic!("{}", text(checked)))
        .parse()
        .unwrap()
}

/// `go ARGS` in `dir`: offline, with this machine's toolchain and a build cache in the
/// target folder.
fn go(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> std::process::Output {
    let mut command = Command::new("go");
    command
        .args(args)
        .current_dir(dir)
        .env("GOPROXY", "off")
        .env("GOTOOLCHAIN", "local")
        .env("GOWORK", "off")
        .env("GOFLAGS", "-mod=mod")
        .env("GOCACHE", crate_target().join("go-cache"));
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// The Go package in `dir` (given a module of its own) is gofmt-clean and vet-clean.
fn assert_go_clean(dir: &Path) {
    std::fs::write(
        dir.join("go.mod"),
        "module example.com/masters\n\ngo 1.17\n",
    )
    .unwrap();
    let listed = Command::new("gofmt")
        .args(["-l", "."])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(listed.status.success(), "{}", text(&listed));
    assert_eq!(stdout(&listed).trim(), "", "not gofmt-clean");
    let vetted = go(dir, &["vet", "./..."], &[]);
    assert!(vetted.status.success(), "{}", text(&vetted));
}

#[test]
fn the_go_client_reads_every_cell_of_the_client_export() {
    if !installed("go", "apt-get install golang-go") {
        return;
    }
    let game = client_game();
    let root_dir = game.path();
    let out = client_code(root_dir, "go", "check_test.go.hbs");
    // A test of the API by name, written by hand: codegen leaves it alone.
    std::fs::copy(
        root().join("cli/tests/codegen/lookups_test.go"),
        out.join("lookups_test.go"),
    )
    .unwrap();
    client_code(root_dir, "go", "check_test.go.hbs");
    assert!(out.join("lookups_test.go").is_file());
    assert_go_clean(&out);

    let build = root_dir.join("build");
    for language in ["ja", "en"] {
        let checked = go(
            &out,
            &["test", "-count=1", "-v", "-run", "TestEveryCell", "."],
            &[
                ("MASTERS_BUILD", &build),
                ("MASTERS_LANGUAGE", Path::new(language)),
            ],
        );
        assert!(checked.status.success(), "{language}: {}", text(&checked));
        let cells = cells_counted(&checked);
        assert!(cells > 150, "{cells} cells");
    }
    let by_name = go(
        &out,
        &[
            "test",
            "-count=1",
            "-run",
            "TestLookupsByName|TestDamagedFiles",
            ".",
        ],
        &[("MASTERS_BUILD", &build)],
    );
    assert!(by_name.status.success(), "{}", text(&by_name));

    // A build of other schemas is refused when it opens.
    build_of_other_schemas(root_dir);
    let refused = go(
        &out,
        &["test", "-count=1", "-run", "TestEveryCell", "."],
        &[
            ("MASTERS_BUILD", &root_dir.join("build2")),
            ("MASTERS_LANGUAGE", Path::new("en")),
        ],
    );
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("made from the schemas"),
        "{}",
        text(&refused)
    );
}

/// `mcs ARGS` in `dir`: warnings are errors.
fn mcs(dir: &Path, args: &[&str]) {
    let compiled = Command::new("mcs")
        .args(["-warn:4", "-warnaserror"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(compiled.status.success(), "{}", text(&compiled));
}

/// `mono PROGRAM ARGS` in `dir`.
fn mono(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("mono")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn csharp_installed() -> bool {
    installed("mcs", "apt-get install mono-mcs")
        && installed("mono", "apt-get install mono-runtime")
}

#[test]
fn the_csharp_client_reads_every_cell_of_the_client_export() {
    if !csharp_installed() {
        return;
    }
    let game = client_game();
    let root_dir = game.path();
    let out = client_code(root_dir, "csharp", "Check.cs.hbs");
    std::fs::copy(
        root().join("cli/tests/codegen/Lookups.cs"),
        out.join("Lookups.cs"),
    )
    .unwrap();
    let library = ["-langversion:5", "-target:library", "-out:Masters.dll"];
    mcs(
        &out,
        &[&library[..], &["Masters.cs", "MastersReader.cs"]].concat(),
    );
    mcs(&out, &["-r:Masters.dll", "-out:check.exe", "Check.cs"]);
    let lookups = ["-r:Masters.dll", "-r:System.Core", "-out:lookups.exe"];
    mcs(&out, &[&lookups[..], &["Lookups.cs"]].concat());

    let build = root_dir.join("build");
    for language in ["ja", "en"] {
        let checked = mono(&out, &["check.exe", build.to_str().unwrap(), language]);
        assert!(checked.status.success(), "{language}: {}", text(&checked));
        let cells: usize = stdout(&checked).trim().parse().unwrap();
        assert!(cells > 150, "{cells} cells");
    }
    let by_name = mono(&out, &["lookups.exe", build.to_str().unwrap()]);
    assert_eq!(
        stdout(&by_name).lines().collect::<Vec<_>>(),
        [
            "Iron Sword,鋼の剣,common,sword|starter,99,Weapons,False,5",
            // Reverse lookup, to typed source rows; group; index; weighted draws; matrix.
            "drop of quest 102|1 102,offer of shop 1|1 1",
            "Q0101,Q0102 1,2",
            "True 1,2 0",
            "5 6 False",
            "0.5 1",
            // Every cut and every changed byte of a file: MastersException, or values.
            "damaged: ok",
        ],
        "{}",
        text(&by_name)
    );

    // A build of other schemas is refused when it opens.
    build_of_other_schemas(root_dir);
    let build2 = root_dir.join("build2");
    let refused = mono(&out, &["check.exe", build2.to_str().unwrap(), "en"]);
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("made from the schemas"),
        "{}",
        text(&refused)
    );
}

/// Records through the generated C# API (C# 5), over the client export: each field of
/// every record (a record, a list's, a map's; nested ones opened) is the JSON export's.
#[test]
fn the_csharp_client_reads_records() {
    if !csharp_installed() {
        return;
    }
    let (_tmp, root) = records_game();
    let out = client_code(&root, "csharp", "Check.cs.hbs");
    let library = ["-langversion:5", "-target:library", "-out:Masters.dll"];
    mcs(
        &out,
        &[&library[..], &["Masters.cs", "MastersReader.cs"]].concat(),
    );
    mcs(&out, &["-r:Masters.dll", "-out:check.exe", "Check.cs"]);
    let build = root.join("build");
    let checked = mono(&out, &["check.exe", build.to_str().unwrap(), "ja"]);
    assert!(checked.status.success(), "{}", text(&checked));
    let cells: usize = stdout(&checked).trim().parse().unwrap();
    assert!(cells >= 30, "{cells} cells");
}

/// Code for clients is generated from what clients may see: a server-only field is in
/// the Rust crate (a server's) and nowhere in the TypeScript module (a client's), and
/// each carries its build's schema hash.
#[test]
fn code_for_clients_sees_only_what_clients_may_see() {
    let game = sample_game();
    let item = game.path().join("schemas/item.toml");
    let schema = std::fs::read_to_string(&item).unwrap();
    let narrowed = schema.replacen(
        "name = \"tradable\"\ntype = \"bool\"\n",
        "name = \"tradable\"\ntype = \"bool\"\naudience = [\"server\"]\n",
        1,
    );
    assert_ne!(narrowed, schema);
    std::fs::write(&item, narrowed).unwrap();
    let context = |lang: &str, extra: &[&str]| {
        let mut args = vec!["codegen", "--lang", lang, "--dump-context"];
        args.extend(extra);
        json(&ok(masterctl(game.path(), &args)))
    };
    let fields = |context: &serde_json::Value| -> Vec<String> {
        let tables = context["tables"].as_array().unwrap();
        let item = tables.iter().find(|t| t["name"] == "item").unwrap();
        item["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap().to_string())
            .collect()
    };
    let server = context("rust", &[]);
    let client = context("typescript", &[]);
    assert!(fields(&server).contains(&"tradable".to_string()));
    assert!(!fields(&client).contains(&"tradable".to_string()));
    assert_ne!(server["schema_hash"], client["schema_hash"]);
    // Asked for, a Rust crate for a client.
    let rust_client = context("rust", &["--audience", "client"]);
    assert_eq!(fields(&rust_client), fields(&client));
    assert_eq!(rust_client["schema_hash"], client["schema_hash"]);
}

/// Real Luban projects, migrated (Luban's examples: maps, enums with aliases, singletons,
/// lists; a game's: a table `language`, a singleton down a column): the code of every
/// language compiles as generated, and the Rust is as rustfmt writes it.
#[test]
fn the_code_of_migrated_luban_projects_compiles_in_every_language() {
    let third_party = root().join("fixtures/third-party");
    for project in [
        third_party.join("luban-examples/DataTables"),
        third_party.join("luban-projects/sunhe-slg"),
        third_party.join("luban-projects/xiaojia-config"),
        third_party.join("luban-projects/xdooria-config"),
        third_party.join("luban-projects/liuocean-example"),
        third_party.join("luban-projects/easygameframework"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("masters");
        std::fs::create_dir(&out).unwrap();
        git(&out, &["init", "-q", "-b", "main"]);
        git(&out, &["config", "user.name", "Test Planner"]);
        git(&out, &["config", "user.email", "planner@example.com"]);
        let o = |p: &Path| p.display().to_string();
        ok(masterctl(
            tmp.path(),
            &["migrate", "luban", &o(&project), "--out", &o(&out)],
        ));
        let code = |lang: &str, extra: &[&str]| {
            let dir = tmp.path().join(lang);
            let dir_text = o(&dir);
            let args = [&["codegen", "--lang", lang, "--out", &dir_text][..], extra].concat();
            ok(masterctl(&out, &args));
            dir
        };
        let runtime = root().join("runtime");
        let rust = code("rust", &["--runtime-path", &o(&runtime)]);
        std::fs::copy(root().join("Cargo.lock"), rust.join("Cargo.lock")).unwrap();
        let checked = cargo(&rust, &["check", "--offline", "-q"]);
        assert!(
            checked.status.success(),
            "{}: {}",
            o(&project),
            text(&checked)
        );
        if installed("rustfmt", "rustup component add rustfmt") {
            let formatted = cargo(&rust, &["fmt", "--check"]);
            assert!(
                formatted.status.success(),
                "{}: not rustfmt-clean:\n{}",
                o(&project),
                text(&formatted)
            );
        }
        if installed("tsc", "npm install -g typescript@5.9.3") {
            assert_strict(&code("typescript", &[]));
        }
        if installed("go", "apt-get install golang-go") {
            assert_go_clean(&code("go", &[]));
        }
        if csharp_installed() {
            let cs = code("csharp", &[]);
            let library = ["-langversion:5", "-target:library", "-out:Masters.dll"];
            mcs(
                &cs,
                &[&library[..], &["Masters.cs", "MastersReader.cs"]].concat(),
            );
        }
    }
}

/// A table named after each name the language's library declares (the lists
/// `codegen/src/ambient/` holds, from each language's reference): the code
/// generated for all of them at once compiles (a table `readonly_map` made a class that
/// hid TypeScript's `ReadonlyMap`: TS2315).
#[test]
fn tables_named_after_every_library_name_make_code_that_compiles() {
    let lists = [
        (
            "typescript",
            include_str!("../../codegen/src/ambient/typescript.txt"),
        ),
        (
            "csharp",
            include_str!("../../codegen/src/ambient/csharp.txt"),
        ),
    ];
    for (lang, list) in lists {
        let ready = match lang {
            "typescript" => installed("tsc", "npm install -g typescript@5.9.3"),
            _ => csharp_installed(),
        };
        if !ready {
            continue;
        }
        // snake_case of each name, each table once (`BigInt64Array`: big_int64_array).
        let mut tables = std::collections::BTreeSet::new();
        for name in list
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let mut snake = String::new();
            for (i, c) in name.chars().enumerate() {
                let prev = name[..name.char_indices().nth(i).map_or(0, |(at, _)| at)]
                    .chars()
                    .last();
                if c.is_ascii_uppercase() && i > 0 && prev.is_some_and(|p| p.is_ascii_lowercase()) {
                    snake.push('_');
                }
                snake.push(c.to_ascii_lowercase());
            }
            tables.insert(snake);
        }
        let schemas: Vec<(String, String)> = tables
            .iter()
            .map(|name| {
                (
                    format!("{name}.toml"),
                    format!("name = \"{name}\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n"),
                )
            })
            .collect();
        let borrowed: Vec<(&str, &str)> = schemas
            .iter()
            .map(|(f, t)| (f.as_str(), t.as_str()))
            .collect();
        let project = hostile_project(&borrowed);
        let out = project.path().join(lang);
        ok(masterctl(
            project.path(),
            &["codegen", "--lang", lang, "--out", out.to_str().unwrap()],
        ));
        match lang {
            "typescript" => assert_strict(&out),
            _ => {
                let library = ["-langversion:5", "-target:library", "-out:Masters.dll"];
                mcs(
                    &out,
                    &[&library[..], &["Masters.cs", "MastersReader.cs"]].concat(),
                );
            }
        }
    }
}
