//! `masterctl build` and `inspect` on the sample game: every row, index, reverse lookup,
//! custom master and language of the build reads back, through the runtime loader,
//! exactly what the region's canonical CSV files hold; builds are deterministic; damaged
//! builds are clean errors under both the validating and the hash-trusting open.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};

use crate::common::*;
use masterctl_runtime::{LoadCause, Masters, ValueRef};

fn build(root: &Path, out: &str) -> PathBuf {
    ok(masterctl(root, &["build", "--region", "jp", "--out", out]));
    root.join(out)
}

/// A canonical CSV of the branch: header and rows as text.
fn csv_of(root: &Path, path: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let bytes = git(root, &["show", &format!("masters/jp:{path}")]);
    let mut reader = csv::ReaderBuilder::new().from_reader(bytes.as_bytes());
    let header = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

#[test]
fn every_row_lookup_and_language_reads_back_what_the_branch_holds() {
    let repo = sample_game();
    let root = repo.path();
    let dir = build(root, "build");
    let masters = Masters::open(&dir).unwrap();
    let manifest = masters.manifest();
    assert_eq!(
        manifest.source_commit,
        git(root, &["rev-parse", "masters/jp"]).trim()
    );
    assert_eq!(manifest.languages, ["ja", "en"]);
    let tables = [
        "category",
        "chapter",
        "element_affinity",
        "game_rules",
        "item",
        "login_bonus",
        "quest",
        "quest_drop",
        "shop",
        "shop_item",
    ];
    assert_eq!(masters.tables().collect::<Vec<_>>(), tables);
    for name in tables {
        let table = masters.table(name).unwrap();
        let (header, rows) = csv_of(root, &format!("tables/{name}.csv"));
        // The field's columns, then each map's values (`level_exp.values`: its keys are
        // in `level_exp`).
        let columns: Vec<&str> = table.columns().collect();
        assert_eq!(columns[..header.len()], header, "{name}");
        assert!(
            columns[header.len()..]
                .iter()
                .all(|c| c.ends_with(".values"))
        );
        assert_eq!(table.len(), rows.len(), "{name}");
        let pk: Vec<usize> = table.primary_key().collect();
        for (position, cells) in rows.iter().enumerate() {
            // A table without a key (the game's rules, the login bonus days): in the
            // branch's order.
            let row = if pk.is_empty() {
                table.row(position).unwrap()
            } else {
                let texts: Vec<&str> = pk.iter().map(|&c| cells[c].as_str()).collect();
                let key = table.parse_key(&pk, &texts).unwrap();
                table
                    .get(&key)
                    .unwrap_or_else(|| panic!("{name} {cells:?}"))
            };
            assert_eq!(row.index(), position, "rows are in key order");
            let values: Vec<String> = (0..header.len())
                .map(|c| match table.column(&format!("{}.values", header[c])) {
                    Some(values) => match (row.value(c), row.value(values)) {
                        (ValueRef::List(keys), ValueRef::List(values)) => keys
                            .iter()
                            .zip(values.iter())
                            .map(|(k, v)| format!("{k}:{v}"))
                            .collect::<Vec<_>>()
                            .join("|"),
                        _ => String::new(),
                    },
                    None => row.value(c).to_string(),
                })
                .collect();
            assert_eq!(&values, cells, "{name}");
        }
        // Texts: the source language as imported; English where translated, else Japanese.
        if let Ok(ja) = std::panic::catch_unwind(|| csv_of(root, &format!("locales/ja/{name}.csv")))
        {
            let (text_header, text_rows) = ja;
            let (_, en_rows) =
                std::panic::catch_unwind(|| csv_of(root, &format!("locales/en/{name}.csv")))
                    .unwrap_or_default();
            for (position, cells) in text_rows.iter().enumerate() {
                let row = table.row(position).unwrap();
                for (c, field) in text_header.iter().enumerate().skip(pk.len()) {
                    assert_eq!(
                        row.text(field, "ja").unwrap_or(""),
                        cells[c],
                        "{name}.{field}"
                    );
                    let english = en_rows
                        .iter()
                        .find(|r| r[..pk.len()] == cells[..pk.len()])
                        .map(|r| r[c].as_str())
                        .filter(|t| !t.is_empty())
                        .unwrap_or(&cells[c]);
                    assert_eq!(
                        row.text(field, "en").unwrap_or(""),
                        english,
                        "{name}.{field} in en"
                    );
                }
            }
        }
    }
    // As JSON (`inspect --format json`), a map is one object of its keys to its values.
    let rules = masters.table("game_rules").unwrap();
    let (header, rows) = csv_of(root, "tables/game_rules.csv");
    let json = serde_json::to_value(rules.row(0).unwrap()).unwrap();
    let exp = header.iter().position(|h| h == "level_exp").unwrap();
    let expected: serde_json::Map<String, serde_json::Value> = rows[0][exp]
        .split('|')
        .map(|entry| {
            let (key, value) = entry.split_once(':').unwrap();
            (key.to_string(), value.parse::<i64>().unwrap().into())
        })
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(
        json["level_exp"],
        serde_json::Value::Object(expected),
        "{json}"
    );
    assert!(json.get("level_exp.values").is_none(), "{json}");
    assert_eq!(
        masters
            .table("item")
            .unwrap()
            .get(&[ValueRef::Int(1)])
            .unwrap()
            .text("name", "en"),
        Some("Iron Sword")
    );
    // The item index by category, ordered by price, agrees with the rows.
    let item = masters.table("item").unwrap();
    let index = item.index(&["category_id"]).unwrap();
    for category in 1..=4 {
        let mut expected: Vec<(i64, i64)> = item
            .rows()
            .filter(|r| r.int("category_id") == Some(category))
            .map(|r| (r.int("price").unwrap(), r.int("id").unwrap()))
            .collect();
        expected.sort();
        let found: Vec<(i64, i64)> = index
            .eq(&[ValueRef::Int(category)])
            .map(|r| (r.int("price").unwrap(), r.int("id").unwrap()))
            .collect();
        assert_eq!(found, expected, "category {category}");
    }
    assert_eq!(
        index
            .range(
                Bound::Included(ValueRef::Int(2)),
                Bound::Included(ValueRef::Int(3))
            )
            .len(),
        4
    );
    // The reverse lookup: the generated CSV, grouped by target.
    let reverse = masters.reverse("item_sources").unwrap();
    let (header, rows) = csv_of(root, "generated/item_sources.csv");
    let mut by_item: BTreeMap<i64, Vec<Vec<String>>> = BTreeMap::new();
    for row in rows {
        by_item
            .entry(row[0].parse().unwrap())
            .or_default()
            .push(row);
    }
    for (item_id, expected) in &by_item {
        let found: Vec<Vec<String>> = reverse
            .get(ValueRef::Int(*item_id))
            .map(|r| (0..header.len()).map(|c| r.value(c).to_string()).collect())
            .collect();
        assert_eq!(&found, expected, "item {item_id}");
    }
    assert!(reverse.get(ValueRef::Int(2)).is_empty() || by_item.contains_key(&2));
    // The group: quests of each chapter, in order.
    let group = masters.group("quests_by_chapter").unwrap();
    let (_, rows) = csv_of(root, "generated/quests_by_chapter.csv");
    for chapter in [1i64, 2] {
        let expected: Vec<String> = rows
            .iter()
            .filter(|r| r[0] == chapter.to_string())
            .map(|r| r[2].clone())
            .collect();
        let found: Vec<String> = group
            .get(&[ValueRef::Int(chapter)])
            .map(|r| r.int("id").unwrap().to_string())
            .collect();
        assert_eq!(found, expected);
    }
    // The weighted draw: cumulative weights as generated; draws land where they should.
    let draw = masters.weighted("drop_draw").unwrap();
    let (_, rows) = csv_of(root, "generated/drop_draw.csv");
    for quest in ["101", "102", "201", "202"] {
        let mine: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == quest).collect();
        let total: f64 = mine.last().unwrap()[4].parse().unwrap();
        let key = [ValueRef::Int(quest.parse().unwrap())];
        assert!((draw.total(&key).unwrap() - total).abs() < 1e-9);
        let first = draw.draw(&key, 0.0).unwrap();
        assert_eq!(first.int("item_id").unwrap().to_string(), mine[0][2]);
        let last = draw.draw(&key, 0.999_999).unwrap();
        assert_eq!(
            last.int("item_id").unwrap().to_string(),
            mine.last().unwrap()[2]
        );
    }
    // The matrix: every cell of the generated CSV.
    let matrix = masters.matrix("element_matrix").unwrap();
    let (header, rows) = csv_of(root, "generated/element_matrix.csv");
    for row in &rows {
        for (c, column) in header.iter().enumerate().skip(1) {
            assert_eq!(matrix.get(&row[0], column).unwrap().to_string(), row[c]);
        }
    }
    // The same build, trusted by hash, answers the same.
    let trusted = Masters::open_trusted(&dir).unwrap();
    assert_eq!(
        trusted
            .table("quest")
            .unwrap()
            .get(&[ValueRef::Int(202)])
            .unwrap()
            .str("code"),
        Some("Q0202")
    );
}

fn files_of(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

#[test]
fn builds_are_deterministic_and_replace_only_builds() {
    let repo = sample_game();
    let root = repo.path();
    let one = files_of(&build(root, "one"));
    let two = files_of(&build(root, "two"));
    assert_eq!(
        one.keys().collect::<Vec<_>>(),
        two.keys().collect::<Vec<_>>()
    );
    assert!(one == two, "two builds of one commit differ");
    assert!(one.contains_key("manifest.json") && one.contains_key("strings/en/item.rkyv"));
    // Building again over a build replaces it; no temporary directory is left beside it.
    build(root, "one");
    let leftovers: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".one"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A folder that is not a build is not replaced.
    std::fs::create_dir(root.join("notes")).unwrap();
    std::fs::write(root.join("notes/keep.txt"), "mine").unwrap();
    let out = masterctl(root, &["build", "--region", "jp", "--out", "notes"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(root.join("notes/keep.txt")).unwrap(),
        "mine"
    );
    // --rev builds an older commit.
    let out = ok(masterctl(
        root,
        &[
            "--format",
            "json",
            "build",
            "--region",
            "jp",
            "--out",
            "old",
            "--rev",
            "masters/jp~1",
        ],
    ));
    let report = json(&out);
    assert_eq!(
        report["source_commit"],
        git(root, &["rev-parse", "masters/jp~1"]).trim()
    );
    let out = masterctl(
        root,
        &[
            "build",
            "--region",
            "jp",
            "--out",
            "x",
            "--rev",
            "no-such-thing",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
}

/// Open a damaged copy both ways: each must be an error naming the damaged file (or,
/// for the validating open of a flip that leaves a valid archive, a build that opens).
fn damaged(
    dir: &Path,
    damage: impl Fn(&Path),
) -> (
    Result<Masters, masterctl_runtime::LoadError>,
    Result<Masters, masterctl_runtime::LoadError>,
) {
    let copy = tempfile::tempdir().unwrap();
    for (name, bytes) in files_of(dir) {
        let path = copy.path().join(&name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    damage(copy.path());
    (
        Masters::open(copy.path()),
        Masters::open_trusted(copy.path()),
    )
}

#[test]
fn damaged_builds_are_clean_errors() {
    let repo = sample_game();
    let root = repo.path();
    let dir = build(root, "build");
    let item = "tables/item.rkyv";
    let named = |e: &masterctl_runtime::LoadError, file: &str| {
        assert!(e.path.ends_with(file), "{e}");
        assert!(e.to_string().contains(file), "{e}");
    };
    // Truncated.
    let (open, trusted) = damaged(&dir, |d| {
        let bytes = std::fs::read(d.join(item)).unwrap();
        std::fs::write(d.join(item), &bytes[..bytes.len() / 2]).unwrap();
    });
    named(&open.unwrap_err(), item);
    let e = trusted.unwrap_err();
    named(&e, item);
    assert!(e.to_string().contains("the manifest says"), "{e}");
    // Emptied.
    let (open, _) = damaged(&dir, |d| std::fs::write(d.join(item), b"").unwrap());
    named(&open.unwrap_err(), item);
    // Bit flips anywhere in any file: never a panic; both opens always notice (the
    // default open verifies every hash too).
    for (name, bytes) in files_of(&dir)
        .into_iter()
        .filter(|(n, _)| n.ends_with(".rkyv"))
    {
        for at in (0..bytes.len()).step_by(5) {
            let (open, trusted) = damaged(&dir, |d| {
                let mut flipped = bytes.clone();
                flipped[at] ^= 0x55;
                std::fs::write(d.join(&name), flipped).unwrap();
            });
            named(&open.unwrap_err(), &name);
            named(&trusted.unwrap_err(), &name);
        }
    }
    // Another format version, in the manifest or in a file.
    let (open, _) = damaged(&dir, |d| {
        let manifest = std::fs::read_to_string(d.join("manifest.json")).unwrap();
        std::fs::write(
            d.join("manifest.json"),
            manifest.replacen("\"format\": 3", "\"format\": 4", 1),
        )
        .unwrap();
    });
    assert!(matches!(
        open.unwrap_err().cause,
        LoadCause::Version {
            found: 4,
            expected: 3
        }
    ));
    // The wrong manifest: another build's hashes, a file of another kind, a missing file,
    // a path outside the build, not JSON at all.
    let (_, trusted) = damaged(&dir, |d| {
        let manifest = std::fs::read_to_string(d.join("manifest.json")).unwrap();
        let swapped = manifest
            .replace("tables/item.rkyv", "tables/TMP")
            .replace("tables/quest.rkyv", "tables/item.rkyv")
            .replace("tables/TMP", "tables/quest.rkyv");
        std::fs::write(d.join("manifest.json"), swapped).unwrap();
    });
    let e = trusted.unwrap_err();
    assert!(e.to_string().contains("the manifest says"), "{e}");
    // Names or languages swapped in the manifest, hashes and sizes moved along with the
    // paths: each archive's own identity refuses it, both ways.
    let swap = |manifest: &str, a: &str, b: &str| {
        manifest
            .replace(a, "\u{1}")
            .replace(b, a)
            .replace('\u{1}', b)
    };
    for (a, b) in [
        ("\"name\": \"item\"", "\"name\": \"quest\""),
        ("\"language\": \"ja\"", "\"language\": \"en\""),
        (
            "\"name\": \"item_sources\"",
            "\"name\": \"quests_by_chapter\"",
        ),
    ] {
        let (open, trusted) = damaged(&dir, |d| {
            let manifest = std::fs::read_to_string(d.join("manifest.json")).unwrap();
            assert!(manifest.contains(a) && manifest.contains(b), "{a} {b}");
            std::fs::write(d.join("manifest.json"), swap(&manifest, a, b)).unwrap();
        });
        for result in [open, trusted] {
            let e = result.unwrap_err();
            assert!(
                matches!(e.cause, LoadCause::Invalid(_)) && e.to_string().contains("manifest"),
                "{a}: {e}"
            );
        }
    }
    // A value edited in place (a price from 100 to 999999 keeps the archive valid) and
    // a hash that is not hexadecimal.
    let (open, _) = damaged(&dir, |d| {
        let mut bytes = std::fs::read(d.join(item)).unwrap();
        let at = bytes
            .windows(8)
            .position(|w| w == 100i64.to_le_bytes())
            .expect("a price of 100 in item");
        bytes[at..at + 8].copy_from_slice(&999_999i64.to_le_bytes());
        std::fs::write(d.join(item), bytes).unwrap();
    });
    assert!(matches!(open.unwrap_err().cause, LoadCause::Hash { .. }));
    let (open, _) = damaged(&dir, |d| {
        let manifest = std::fs::read_to_string(d.join("manifest.json")).unwrap();
        let at = manifest.find("\"blake3\": \"").unwrap() + 11;
        let mut forged = manifest.clone();
        forged.replace_range(at..at + 2, "zz");
        std::fs::write(d.join("manifest.json"), forged).unwrap();
    });
    assert!(matches!(open.unwrap_err().cause, LoadCause::Manifest(_)));
    let (open, _) = damaged(&dir, |d| {
        let manifest = std::fs::read_to_string(d.join("manifest.json")).unwrap();
        std::fs::write(
            d.join("manifest.json"),
            manifest.replacen("\"kind\": \"table\"", "\"kind\": \"matrix\"", 1),
        )
        .unwrap();
    });
    assert!(open.unwrap_err().to_string().contains("the manifest says"));
    let (open, trusted) = damaged(&dir, |d| std::fs::remove_file(d.join(item)).unwrap());
    assert!(matches!(open.unwrap_err().cause, LoadCause::Io(_)));
    assert!(matches!(trusted.unwrap_err().cause, LoadCause::Io(_)));
    let (open, _) = damaged(&dir, |d| {
        let manifest = std::fs::read_to_string(d.join("manifest.json")).unwrap();
        std::fs::write(
            d.join("manifest.json"),
            manifest.replace("tables/item.rkyv", "../../etc/passwd"),
        )
        .unwrap();
    });
    assert!(matches!(open.unwrap_err().cause, LoadCause::Manifest(_)));
    let (open, _) = damaged(&dir, |d| {
        std::fs::write(d.join("manifest.json"), "{").unwrap()
    });
    assert!(matches!(open.unwrap_err().cause, LoadCause::Manifest(_)));
    // inspect says so, exit 1; a folder that is no build, exit 2.
    let broken = tempfile::tempdir().unwrap();
    for (name, bytes) in files_of(&dir) {
        let path = broken.path().join(&name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            path,
            if name == item {
                &bytes[..10]
            } else {
                &bytes[..]
            },
        )
        .unwrap();
    }
    let out = masterctl(root, &["inspect", broken.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("item.rkyv"), "{}", text(&out));
    // Machines read JSON on standard output, rejection included.
    let broken_dir = broken.path().to_str().unwrap();
    let out = masterctl(root, &["--format", "json", "inspect", broken_dir]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let said: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(said["ok"], false);
    assert!(
        said["error"].as_str().unwrap().contains("item.rkyv"),
        "{said}"
    );
    let out = masterctl(root, &["inspect", root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn inspect_shows_a_summary_a_row_and_its_lookups() {
    let repo = sample_game();
    let root = repo.path();
    build(root, "build");
    let summary = json(&ok(masterctl(
        root,
        &["--format", "json", "inspect", "build"],
    )));
    assert_eq!(summary["region"], "jp");
    assert_eq!(summary["languages"], serde_json::json!(["ja", "en"]));
    let files = summary["files"].as_array().unwrap();
    assert!(
        files
            .iter()
            .any(|f| f["path"] == "generated/drop_draw.rkyv" && f["kind"] == "weighted")
    );
    assert!(
        summary["fallbacks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["table"] == "item" && f["language"] == "en")
    );
    let row = json(&ok(masterctl(
        root,
        &[
            "--format", "json", "inspect", "build", "item", "1", "--lang", "en",
        ],
    )));
    assert_eq!(row["row"]["price"], 100);
    assert_eq!(
        row["texts"],
        serde_json::json!([
            { "field": "name", "text": "Iron Sword", "language": "en" },
            { "field": "description", "text": "初心者向けの剣", "language": "ja" },
        ])
    );
    assert_eq!(row["reverse"]["item_sources"].as_array().unwrap().len(), 2);
    // Headed by the key as given; texts in schema order, a fallback saying where from.
    let shown = text(&ok(masterctl(
        root,
        &["inspect", "build", "item", "1", "--lang", "en"],
    )));
    assert!(shown.starts_with("item 1\n"), "{shown}");
    let name = shown.find("name (en)").expect("the name");
    let description = shown
        .find("description (en, from ja) 初心者向けの剣")
        .expect("the fallback, labelled");
    assert!(name < description, "{shown}");
    let cell = text(&ok(masterctl(
        root,
        &["inspect", "build", "element_matrix", "fire", "wind"],
    )));
    assert!(cell.contains("= 1.5"), "{cell}");
    let composite = json(&ok(masterctl(
        root,
        &[
            "--format",
            "json",
            "inspect",
            "build",
            "quest_drop",
            "101",
            "6",
        ],
    )));
    assert_eq!(composite["row"]["amount"], 2);
    let out = masterctl(root, &["inspect", "build", "item", "99"]);
    assert_eq!(out.status.code(), Some(1));
    let out = masterctl(root, &["inspect", "build", "item", "one"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("`one` is not a key of `item`: `id` is a whole number"),
        "{}",
        text(&out)
    );
    // A negative key is a key (not found here), not an option.
    let out = masterctl(root, &["inspect", "build", "item", "-3"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("`item` has no row with key -3"));
    let out = masterctl(root, &["inspect", "build", "nothing"]);
    assert_eq!(out.status.code(), Some(1));
}

/// Many fallbacks (a language nobody has translated yet, in many tables) are summed up
/// per language; --verbose lists each.
#[test]
fn many_fallbacks_are_summed_up() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    with_planner(root);
    std::fs::create_dir_all(root.join("schemas")).unwrap();
    let exports = tempfile::tempdir().unwrap();
    std::fs::write(
        root.join("masterctl.toml"),
        "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n[regions.jp]\nbranch = \"masters/jp\"\nlanguages = [\"en\", \"ja\"]\n",
    )
    .unwrap();
    for n in 0..12 {
        std::fs::write(
            root.join(format!("schemas/t{n}.toml")),
            format!("name = \"t{n}\"\nprimary_key = [\"id\"]\n[[fields]]\nname = \"id\"\ntype = \"int\"\n[[fields]]\nname = \"label\"\ntype = \"text\"\n"),
        )
        .unwrap();
        std::fs::write(
            exports.path().join(format!("t{n}.csv")),
            "id,label\n1,一\n2,二\n",
        )
        .unwrap();
    }
    commit_structure(root);
    ok(masterctl(
        root,
        &["import", "--region", "jp", exports.path().to_str().unwrap()],
    ));
    let shown = text(&ok(masterctl(
        root,
        &["build", "--region", "jp", "--out", "build"],
    )));
    assert!(
        shown.contains("fallback: en took 24 texts from ja, in 12 tables"),
        "{shown}"
    );
    assert!(
        shown.contains("(12 fallbacks in all: --verbose lists them"),
        "{shown}"
    );
    assert_eq!(shown.matches("fallback:").count(), 1, "{shown}");
    let shown = text(&ok(masterctl(
        root,
        &["build", "--region", "jp", "--out", "build", "--verbose"],
    )));
    assert_eq!(shown.matches("fallback:").count(), 12, "{shown}");
    assert!(
        shown.contains("fallback: t7.label in en: 2 texts from ja"),
        "{shown}"
    );
}
