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
    build(&BuildInput {
        project,
        languages,
        tables,
        translations: &translations,
        generated: &generated,
        schema_hash: "sample",
        client: false,
        pseudo: &[],
        expansion: 0.4,
    })
    .unwrap()
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

#[test]
fn what_it_writes_opens_through_the_runtime() {
    let (project, tables) = sample();
    let languages = vec!["en".to_string(), "ja".to_string()];
    let (files, fallbacks) = built(&project, &tables, &languages);
    let dir = tempfile::tempdir().unwrap();
    for file in &files {
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
