//! The archive builder on the sample game, without git or the binary: every table, its
//! texts per language with the region's fallbacks, the generated masters; the same
//! input gives the same bytes; what it writes opens through the runtime loader.

use std::collections::HashMap;
use std::path::Path;

use masterctl_build::archive::{BuildInput, BuiltFile, build};
use masterctl_generators::{GeneratedTable, generate};
use masterctl_locales::TableTexts;
use masterctl_runtime::manifest::{FileKind, Manifest};
use masterctl_runtime::{FORMAT_VERSION, Masters, ValueRef};
use masterctl_schemas::load::load_project;
use masterctl_schemas::{Project, Table, validate_paths};

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// The sample game's project and tables, read from its workbooks.
fn sample() -> (Project, Vec<Table>) {
    let project = load_project(&fixtures()).unwrap();
    let validation = validate_paths(&project, &[fixtures().join("workbooks")]);
    assert!(!validation.report.has_errors(), "{:?}", validation.report);
    (project, validation.tables)
}

fn built(
    project: &Project,
    tables: &[Table],
    languages: &[String],
) -> (Vec<BuiltFile>, Vec<masterctl_runtime::manifest::Fallback>) {
    let by_name: HashMap<&str, &Table> = tables.iter().map(|t| (t.name.as_str(), t)).collect();
    let generated: HashMap<String, GeneratedTable> = project
        .generated
        .iter()
        .filter_map(|g| Some((g.name.clone(), generate(project, g, &by_name)?)))
        .collect();
    // No translation yet: every English text falls back to Japanese.
    let translations: HashMap<String, HashMap<String, TableTexts>> = HashMap::new();
    let input = BuildInput {
        project,
        languages,
        translations: &translations,
        generated: &generated,
        schema_hash: "sample",
        client: false,
        pseudo: &[],
        expansion: 0.4,
    };
    build(&input, tables.to_vec()).unwrap()
}

#[test]
fn a_build_holds_every_table_text_and_master_and_is_deterministic() {
    let (project, tables) = sample();
    let languages = vec!["en".to_string(), "ja".to_string()];
    let (files, fallbacks) = built(&project, &tables, &languages);
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    for expected in [
        "tables/item.rkyv",
        "tables/shop_item.rkyv",
        "strings/en/item.rkyv",
        "strings/ja/item.rkyv",
        "generated/item_sources.rkyv",
        "generated/quests_by_chapter.rkyv",
        "generated/drop_draw.rkyv",
        "generated/element_matrix.rkyv",
    ] {
        assert!(
            paths.contains(&expected),
            "{expected} missing from {paths:?}"
        );
    }
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(paths, sorted, "files come sorted by path");
    // Every English text came from Japanese, and each fallback says so.
    let en: u64 = fallbacks
        .iter()
        .filter(|f| f.language == "en" && f.from == "ja")
        .map(|f| f.count)
        .sum();
    assert_eq!(en, 26, "{fallbacks:?}");
    assert!(fallbacks.iter().all(|f| f.language == "en"));
    // The same input, the same bytes.
    let (again, _) = built(&project, &tables, &languages);
    assert!(files.iter().zip(&again).all(|(a, b)| a.bytes == b.bytes));
}

/// `files` written to a folder with their manifest, opened as a server opens a build.
fn opened(
    files: &[BuiltFile],
    fallbacks: Vec<masterctl_runtime::manifest::Fallback>,
    languages: Vec<String>,
) -> (tempfile::TempDir, Masters) {
    let dir = tempfile::tempdir().unwrap();
    for file in files {
        let path = dir.path().join(&file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &file.bytes).unwrap();
    }
    let manifest = Manifest {
        format: FORMAT_VERSION,
        region: "global".into(),
        source_commit: "0".repeat(40),
        schema_hash: "sample".into(),
        languages,
        files: files.iter().map(BuiltFile::manifest_entry).collect(),
        fallbacks,
        timezone: None,
        audience: None,
        seen_by: Vec::new(),
    };
    std::fs::write(
        dir.path().join("manifest.json"),
        serde_json::to_vec(&manifest).unwrap(),
    )
    .unwrap();
    let masters = Masters::open(dir.path()).unwrap();
    (dir, masters)
}

/// A project of `schemas` (file names and texts), one table's CSV file `name` of
/// `text` validated, built with its client export and opened: the folder it lives in,
/// the files, and the build.
fn built_of(
    schemas: &[(&str, &str)],
    name: &str,
    text: &str,
) -> (tempfile::TempDir, Vec<BuiltFile>, Masters) {
    let project = masterctl_schemas::load::load_from_files(
        None,
        schemas
            .iter()
            .map(|(n, t)| (Path::new("schemas").join(n), t.to_string()))
            .collect(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join(name);
    std::fs::write(&csv, text).unwrap();
    let validation = validate_paths(&project, &[csv]);
    assert!(!validation.report.has_errors(), "{:?}", validation.report);
    let translations = HashMap::new();
    let input = BuildInput {
        project: &project,
        languages: &[],
        translations: &translations,
        generated: &HashMap::new(),
        schema_hash: "sample",
        client: true,
        pseudo: &[],
        expansion: 0.4,
    };
    let (files, fallbacks) = build(&input, validation.tables).unwrap();
    let (built, masters) = opened(&files, fallbacks, Vec::new());
    drop(dir);
    (built, files, masters)
}

#[test]
fn what_it_writes_opens_through_the_runtime() {
    let (project, tables) = sample();
    let languages = vec!["en".to_string(), "ja".to_string()];
    let (files, fallbacks) = built(&project, &tables, &languages);
    let (_dir, masters) = opened(&files, fallbacks, languages);
    let item = masters.table("item").unwrap();
    let sword = item.get(&[ValueRef::Int(1)]).unwrap();
    assert_eq!(sword.int("price"), Some(100));
    // English falls back to Japanese, and the strings say where each text came from.
    assert_eq!(sword.text("name", "en"), Some("鉄の剣"));
    let texts = masters.texts("item", "en").unwrap();
    assert_eq!(texts.fallback("name", sword.index()), Some(2));
    assert_eq!(
        masters
            .matrix("element_matrix")
            .unwrap()
            .get("fire", "wind"),
        Some(ValueRef::Float(1.5))
    );
    assert!(
        masters
            .manifest()
            .files
            .iter()
            .any(|f| f.kind == FileKind::Weighted)
    );
}

/// A record field keeps its cells' text in its column, and each field of its record
/// (nested records opened) has a typed column in the same places: a list's records'
/// as lists; the client JSON holds them alike.
#[test]
fn records_fields_have_typed_columns_beside_their_text() {
    let schemas = [
        (
            "cost.toml",
            "kind = \"record\"\nfields = [{ name = \"item_id\", type = \"int\" }, { name = \"count\", type = \"int\", optional = true }]\n",
        ),
        (
            "bonus.toml",
            "kind = \"record\"\nseparator = \";\"\nfields = [{ name = \"kind\", type = \"enum\", values = [\"gold\", \"item\"] }, { name = \"cost\", type = \"cost\" }]\n",
        ),
        (
            "gacha.toml",
            "primary_key = [\"id\"]\nfields = [{ name = \"id\", type = \"int\" }, { name = \"costs\", type = \"list<cost>\", optional = true }, { name = \"bonus\", type = \"bonus\", optional = true }]\n",
        ),
    ];
    let (_dir, files, masters) = built_of(
        &schemas,
        "gacha.csv",
        "id,costs,bonus\n1,\"20001,1|20002,\",\"item;20001,5\"\n2,,\n",
    );
    let gacha = masters.table("gacha").unwrap();
    let columns: Vec<&str> = gacha.columns().collect();
    assert_eq!(
        columns,
        [
            "id",
            "costs",
            "bonus",
            "costs/item_id",
            "costs/count",
            "bonus/kind",
            "bonus/cost/item_id",
            "bonus/cost/count"
        ]
    );
    let first = gacha.get(&[ValueRef::Int(1)]).unwrap();
    let shown =
        |column: &str| serde_json::to_string(&first.value(gacha.column(column).unwrap())).unwrap();
    assert_eq!(shown("costs"), r#"["20001,1","20002,"]"#);
    assert_eq!(first.str("bonus"), Some("item;20001,5"));
    assert_eq!(shown("costs/item_id"), "[20001,20002]");
    // An empty field in a list is its type's zero in its column; the text keeps it empty.
    assert_eq!(shown("costs/count"), "[1,0]");
    assert_eq!(first.str("bonus/kind"), Some("item"));
    assert_eq!(first.int("bonus/cost/count"), Some(5));
    let second = gacha.get(&[ValueRef::Int(2)]).unwrap();
    assert!(
        second
            .value(gacha.column("bonus/cost/count").unwrap())
            .is_null()
    );
    let json = files
        .iter()
        .find(|f| f.path == "client/json/tables/gacha.json")
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json.bytes).unwrap();
    assert_eq!(json["columns"][4], "costs/count");
    assert_eq!(json["rows"][0][4], serde_json::json!([1, 0]));
    assert_eq!(json["rows"][0][2], "item;20001,5");
}

/// A union field keeps its cells' text in its column, each value's case in
/// `<field>/$case`, and each case's fields in `<field>/<case>/<name>`, empty where a
/// value is of another case (in a list, its type's zero there).
#[test]
fn unions_have_a_case_column_and_their_cases_fields() {
    let schemas = [
        (
            "circle.toml",
            "kind = \"record\"\nseparator = \":\"\nfields = [{ name = \"radius\", type = \"float\" }]\n",
        ),
        (
            "rect.toml",
            "kind = \"record\"\nseparator = \":\"\nfields = [{ name = \"w\", type = \"int\" }, { name = \"h\", type = \"int\" }]\n",
        ),
        (
            "shape.toml",
            "kind = \"union\"\nseparator = \":\"\ncases = [{ record = \"circle\" }, { record = \"rect\", names = [\"矩形\"] }]\n",
        ),
        (
            "zone.toml",
            "primary_key = [\"id\"]\nfields = [{ name = \"id\", type = \"int\" }, { name = \"shape\", type = \"shape\", optional = true }, { name = \"shapes\", type = \"list<shape>\", optional = true }]\n",
        ),
    ];
    let (_dir, _files, masters) = built_of(
        &schemas,
        "zone.csv",
        "id,shape,shapes\n1,circle:1.5,矩形:2:3|circle:4\n2,,\n",
    );
    let zone = masters.table("zone").unwrap();
    let columns: Vec<&str> = zone.columns().collect();
    assert_eq!(
        columns,
        [
            "id",
            "shape",
            "shapes",
            "shape/$case",
            "shape/circle/radius",
            "shape/rect/w",
            "shape/rect/h",
            "shapes/$case",
            "shapes/circle/radius",
            "shapes/rect/w",
            "shapes/rect/h"
        ]
    );
    let first = zone.get(&[ValueRef::Int(1)]).unwrap();
    let shown =
        |column: &str| serde_json::to_string(&first.value(zone.column(column).unwrap())).unwrap();
    assert_eq!(shown("shape"), r#""circle:1.5""#);
    assert_eq!(shown("shape/$case"), r#""circle""#);
    assert_eq!(shown("shape/circle/radius"), "1.5");
    assert_eq!(shown("shape/rect/w"), "null");
    assert_eq!(shown("shapes"), r#"["rect:2:3","circle:4"]"#);
    assert_eq!(shown("shapes/$case"), r#"["rect","circle"]"#);
    assert_eq!(shown("shapes/rect/h"), "[3,0]");
    assert_eq!(shown("shapes/circle/radius"), "[0.0,4.0]");
}
