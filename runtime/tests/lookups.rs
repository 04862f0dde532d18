//! Every kind of lookup on a small hand-made build, and proof that none of them
//! allocates: a counting global allocator watches this thread while they run.

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ops::Bound;
use std::sync::atomic::{AtomicUsize, Ordering};

use masterctl_runtime::format::{
    ArchiveFile, Body, ColumnData, ColumnType, FORMAT_VERSION, GroupData, Identity, IndexData,
    MatrixData, StringsData, TableData, TextColumn, Values, WeightedData, key_slot,
};
use masterctl_runtime::manifest::{FileEntry, FileKind, Manifest};
use masterctl_runtime::{Masters, ValueRef};

const SCHEMA_HASH: &str = "5c8e";

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static WATCHING: Cell<bool> = const { Cell::new(false) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if WATCHING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if WATCHING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by `f` on this thread.
fn allocations<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    WATCHING.with(|w| w.set(true));
    let result = f();
    WATCHING.with(|w| w.set(false));
    (result, ALLOCATIONS.load(Ordering::Relaxed) - before)
}

fn column(name: &str, ty: ColumnType, values: Values) -> ColumnData {
    ColumnData {
        name: name.into(),
        ty,
        list: false,
        nulls: Vec::new(),
        offsets: Vec::new(),
        values,
    }
}

/// Items 1..=5 (category, price, tags), an index on category ordered by price, English
/// names, a reverse lookup, a group, a weighted draw and a matrix.
fn build(dir: &std::path::Path) {
    let mut tags = column(
        "tags",
        ColumnType::Str,
        Values::Str(["sword", "starter", "shield"].into_iter().collect()),
    );
    tags.list = true;
    tags.offsets = vec![0, 2, 2, 3, 3, 3];
    tags.nulls = vec![0b1_0110];
    // The key's hash table, laid out as the builder lays it out.
    let mut key_hash = vec![u32::MAX; 16];
    for (id, key) in [1i64, 2, 3, 5, 10].into_iter().enumerate() {
        let mut slot = key_slot(key, 4);
        while key_hash[slot] != u32::MAX {
            slot = (slot + 1) & 15;
        }
        key_hash[slot] = id as u32;
    }
    let item = TableData {
        name: "item".into(),
        rows: 5,
        columns: vec![
            column("id", ColumnType::Int, Values::Int(vec![1, 2, 3, 5, 10])),
            column(
                "category",
                ColumnType::Int,
                Values::Int(vec![1, 1, 2, 1, 2]),
            ),
            column(
                "price",
                ColumnType::Int,
                Values::Int(vec![100, 1200, 15000, 50, 900]),
            ),
            tags,
        ],
        primary_key: vec![0],
        key_hash,
        indexes: vec![IndexData {
            columns: vec![1],
            order_by: vec![2],
            unique: false,
            rows: vec![3, 0, 1, 4, 2],
        }],
    };
    let names = StringsData {
        table: "item".into(),
        language: "en".into(),
        rows: 5,
        fields: vec![TextColumn {
            name: "name".into(),
            values: ["Sword", "Steel", "Shield", "Potion", ""]
                .into_iter()
                .collect(),
            fallback: Vec::new(),
        }],
    };
    // Japanese lacks the second item's name: the build took the English one (mark 2:
    // the manifest's second language).
    let names_ja = StringsData {
        table: "item".into(),
        language: "ja".into(),
        rows: 5,
        fields: vec![TextColumn {
            name: "name".into(),
            values: ["剣", "Steel", "盾", "薬", ""].into_iter().collect(),
            fallback: vec![0, 2, 0, 0, 0],
        }],
    };
    let sources = TableData {
        name: "item_sources".into(),
        rows: 3,
        columns: vec![
            column("item_id", ColumnType::Int, Values::Int(vec![1, 1, 5])),
            column(
                "source_table",
                ColumnType::Str,
                Values::Str(
                    ["shop_item", "quest_drop", "shop_item"]
                        .into_iter()
                        .collect(),
                ),
            ),
        ],
        primary_key: Vec::new(),
        key_hash: Vec::new(),
        indexes: vec![IndexData {
            columns: vec![0],
            order_by: Vec::new(),
            unique: false,
            rows: vec![0, 1, 2],
        }],
    };
    let group = GroupData {
        name: "by_category".into(),
        table: "item".into(),
        keys: TableData {
            name: "keys".into(),
            rows: 2,
            columns: vec![column("category", ColumnType::Int, Values::Int(vec![1, 2]))],
            primary_key: vec![0],
            indexes: Vec::new(),
            key_hash: Vec::new(),
        },
        offsets: vec![0, 3, 5],
        rows: vec![3, 0, 1, 4, 2],
    };
    let weighted = WeightedData {
        group: GroupData {
            name: "draw".into(),
            ..group.clone()
        },
        cumulative: vec![1.0, 3.0, 6.0, 1.0, 2.0],
    };
    let matrix = MatrixData {
        name: "affinity".into(),
        table: "element".into(),
        row_values: vec!["fire".into(), "water".into()],
        column_values: vec!["fire".into(), "water".into()],
        cells: column(
            "multiplier",
            ColumnType::Float,
            Values::Float(vec![1.0, 0.5, 1.5, 1.0]),
        ),
    };
    let files = [
        (
            "tables/item.rkyv",
            FileKind::Table,
            "item",
            Some("en"),
            Body::Table(item),
        ),
        (
            "strings/en/item.rkyv",
            FileKind::Strings,
            "item",
            Some("en"),
            Body::Strings(names),
        ),
        (
            "strings/ja/item.rkyv",
            FileKind::Strings,
            "item",
            Some("ja"),
            Body::Strings(names_ja),
        ),
        (
            "generated/item_sources.rkyv",
            FileKind::Reverse,
            "item_sources",
            None,
            Body::Table(sources),
        ),
        (
            "generated/by_category.rkyv",
            FileKind::Group,
            "by_category",
            None,
            Body::Group(group),
        ),
        (
            "generated/draw.rkyv",
            FileKind::Weighted,
            "draw",
            None,
            Body::Weighted(weighted),
        ),
        (
            "generated/affinity.rkyv",
            FileKind::Matrix,
            "affinity",
            None,
            Body::Matrix(matrix),
        ),
    ];
    write_build(dir, files);
}

/// Write archives and a manifest vouching for them: `(path, kind, name, language, body)`.
fn write_build(
    dir: &std::path::Path,
    files: impl IntoIterator<
        Item = (
            &'static str,
            FileKind,
            &'static str,
            Option<&'static str>,
            Body,
        ),
    >,
) {
    let mut entries = Vec::new();
    for (path, kind, name, language, body) in files {
        let bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&ArchiveFile {
            version: FORMAT_VERSION,
            identity: Identity {
                kind: kind.as_str().into(),
                name: name.into(),
                language: (kind == FileKind::Strings).then(|| language.unwrap().into()),
                schema_hash: SCHEMA_HASH.into(),
            },
            body,
        })
        .unwrap();
        std::fs::create_dir_all(dir.join(path).parent().unwrap()).unwrap();
        std::fs::write(dir.join(path), &bytes).unwrap();
        entries.push(FileEntry {
            path: path.into(),
            kind,
            name: name.into(),
            language: (kind == FileKind::Strings).then(|| language.unwrap().into()),
            // The reverse lookup points at items.
            table: (kind == FileKind::Reverse).then(|| "item".into()),
            blake3: blake3::hash(&bytes).to_hex().to_string(),
            size: bytes.len() as u64,
            rows: 0,
        });
    }
    let manifest = Manifest {
        format: FORMAT_VERSION,
        region: "global".into(),
        source_commit: "0".repeat(40),
        schema_hash: SCHEMA_HASH.into(),
        languages: vec!["ja".into(), "en".into(), "fr".into()],
        files: entries,
        fallbacks: Vec::new(),
        timezone: None,
        audience: None,
        seen_by: Vec::new(),
    };
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_vec(&manifest).unwrap(),
    )
    .unwrap();
}

#[test]
fn every_lookup_answers_without_allocating() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    for masters in [
        Masters::open(dir.path()).unwrap(),
        Masters::open_trusted(dir.path()).unwrap(),
    ] {
        let item = masters.table("item").unwrap();
        let reverse = masters.reverse("item_sources").unwrap();
        let group = masters.group("by_category").unwrap();
        let draw = masters.weighted("draw").unwrap();
        let affinity = masters.matrix("affinity").unwrap();
        let ((), count) = allocations(|| {
            let sword = item.get(&[ValueRef::Int(1)]).unwrap();
            assert_eq!(sword.int("price"), Some(100));
            assert_eq!(sword.text("name", "en"), Some("Sword"));
            assert_eq!(
                sword.text("name", "fr"),
                Some("剣"),
                "the region's first language the build holds"
            );
            let ValueRef::List(tags) = sword.get("tags").unwrap() else {
                panic!()
            };
            assert_eq!(tags.len(), 2);
            assert_eq!(tags.get(1), Some(ValueRef::Str("starter")));
            assert!(item.get(&[ValueRef::Int(4)]).is_none());
            assert!(item.get(&[ValueRef::Int(11)]).is_none());
            assert!(item.row(2).unwrap().get("tags").unwrap().is_null());
            assert_eq!(
                item.get(&[ValueRef::Int(10)]).unwrap().text("name", "en"),
                None
            );
            let index = item.index(&["category"]).unwrap();
            let mut prices = [0i64; 3];
            for (i, row) in index.eq(&[ValueRef::Int(1)]).enumerate() {
                prices[i] = row.int("price").unwrap();
            }
            assert_eq!(prices, [50, 100, 1200], "in order_by order");
            assert_eq!(index.eq(&[ValueRef::Int(3)]).len(), 0);
            let range = index.range(Bound::Excluded(ValueRef::Int(1)), Bound::Unbounded);
            assert_eq!(range.len(), 2);
            assert_eq!(reverse.get(ValueRef::Int(1)).len(), 2);
            assert_eq!(
                reverse
                    .get(ValueRef::Int(5))
                    .first()
                    .unwrap()
                    .str("source_table"),
                Some("shop_item")
            );
            assert_eq!(
                group
                    .get(&[ValueRef::Int(2)])
                    .map(|r| r.int("id").unwrap())
                    .sum::<i64>(),
                13
            );
            assert!(group.get(&[ValueRef::Int(7)]).is_empty());
            assert_eq!(draw.total(&[ValueRef::Int(1)]), Some(6.0));
            let picked = |r: f64| {
                draw.draw(&[ValueRef::Int(1)], r)
                    .unwrap()
                    .int("id")
                    .unwrap()
            };
            assert_eq!(
                [picked(0.0), picked(0.2), picked(0.4), picked(0.99)],
                [5, 1, 1, 2]
            );
            assert_eq!(picked(0.6), 2);
            assert!(draw.draw(&[ValueRef::Int(9)], 0.5).is_none());
            assert_eq!(
                draw.draw_u64(&[ValueRef::Int(2)], u64::MAX)
                    .unwrap()
                    .int("id"),
                Some(3)
            );
            assert_eq!(affinity.get("water", "fire"), Some(ValueRef::Float(1.5)));
            assert_eq!(affinity.get("earth", "fire"), None);
        });
        assert_eq!(count, 0, "lookups allocated");
    }
    // The counter does see allocations.
    let (_, count) = allocations(|| std::hint::black_box(vec![1u8; 16]));
    assert!(count > 0);
}

#[test]
fn an_archive_of_another_version_is_refused_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    // Rewrite the matrix as a version-2 file, and let the manifest vouch for it.
    let path = dir.path().join("generated/affinity.rkyv");
    let bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&ArchiveFile {
        version: FORMAT_VERSION + 1,
        identity: Identity {
            kind: "matrix".into(),
            name: "affinity".into(),
            language: None,
            schema_hash: SCHEMA_HASH.into(),
        },
        body: Body::Matrix(MatrixData {
            name: "affinity".into(),
            table: "element".into(),
            row_values: Vec::new(),
            column_values: Vec::new(),
            cells: column("multiplier", ColumnType::Float, Values::Float(Vec::new())),
        }),
    })
    .unwrap();
    let old_bytes = std::fs::read(&path).unwrap();
    let old = format!(
        "\"blake3\":\"{}\",\"size\":{}",
        blake3::hash(&old_bytes).to_hex(),
        old_bytes.len()
    );
    std::fs::write(&path, &bytes).unwrap();
    let manifest = std::fs::read_to_string(dir.path().join("manifest.json")).unwrap();
    let new = format!(
        "\"blake3\":\"{}\",\"size\":{}",
        blake3::hash(&bytes).to_hex(),
        bytes.len()
    );
    std::fs::write(
        dir.path().join("manifest.json"),
        manifest.replace(&old, &new),
    )
    .unwrap();
    for result in [Masters::open(dir.path()), Masters::open_trusted(dir.path())] {
        let error = result.unwrap_err();
        assert!(error.path.ends_with("generated/affinity.rkyv"), "{error}");
        assert!(
            matches!(
                error.cause,
                masterctl_runtime::LoadCause::Version {
                    found: 4,
                    expected: 3
                }
            ),
            "{error}"
        );
    }
}

/// String ends that fall inside a character, run backwards or past the buffer are
/// refused at open (each string would otherwise be a wrong answer later), and the
/// unchecked accessors still never panic on them.
#[test]
fn string_ends_must_rise_and_fall_between_characters() {
    let text = "ab語".as_bytes().to_vec();
    for (bytes, ends) in [
        (text.clone(), vec![1u32, 3]),
        (text.clone(), vec![2, 1]),
        (text, vec![1, 99]),
        (vec![b'a', 0xff, b'b'], vec![1, 3]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let table = TableData {
            name: "item".into(),
            rows: 2,
            columns: vec![column(
                "name",
                ColumnType::Str,
                Values::Str(masterctl_runtime::format::Strings {
                    bytes: bytes.clone(),
                    ends: ends.clone(),
                }),
            )],
            primary_key: Vec::new(),
            key_hash: Vec::new(),
            indexes: Vec::new(),
        };
        write_build(
            dir.path(),
            [(
                "tables/item.rkyv",
                FileKind::Table,
                "item",
                None,
                Body::Table(table),
            )],
        );
        let error = Masters::open(dir.path()).unwrap_err();
        assert!(
            error.to_string().contains("string ends"),
            "{ends:?}: {error}"
        );
        // The hash-trusting open believes the buffer is UTF-8 (its source is trusted);
        // ends that are out of place still give no text rather than a panic.
        if std::str::from_utf8(&bytes).is_ok() {
            let masters = Masters::open_trusted(dir.path()).unwrap();
            for row in masters.table("item").unwrap().rows() {
                let _ = row.get("name");
            }
        }
    }
}

#[test]
fn keys_typed_as_text_find_rows_and_say_why_not() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    let masters = Masters::open(dir.path()).unwrap();
    let item = masters.table("item").unwrap();
    let key = item.parse_primary_key(&["1"]).unwrap();
    assert_eq!(key, [ValueRef::Int(1)]);
    assert_eq!(item.get(&key).unwrap().int("price"), Some(100));
    assert_eq!(
        item.parse_primary_key(&["1.0"]).unwrap(),
        [ValueRef::Int(1)],
        "a whole number written as a float is read as cells are"
    );
    assert_eq!(
        item.parse_primary_key(&["one"]).unwrap_err().to_string(),
        "`one` is not a key of `item`: `id` is a whole number"
    );
    assert_eq!(
        item.parse_primary_key(&["1", "2"]).unwrap_err().to_string(),
        "`item` is looked up by 1 value (id); 2 given"
    );
    assert_eq!(
        item.parse_primary_key(&[" "]).unwrap_err().to_string(),
        "`id` of `item` is never empty: give its value"
    );
    let category = item.column("category").unwrap();
    assert_eq!(
        item.parse_key(&[category], &["2"]).unwrap(),
        [ValueRef::Int(2)]
    );
    // Values print as their canonical CSV cells.
    let sword = item.get(&key).unwrap();
    assert_eq!(sword.get("tags").unwrap().to_string(), "sword|starter");
    assert_eq!(item.row(2).unwrap().get("tags").unwrap().to_string(), "");
}

#[test]
fn texts_name_the_language_they_came_from_and_rows_their_references() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    let masters = Masters::open(dir.path()).unwrap();
    let manifest = masters.manifest();
    assert_eq!(
        manifest.held_languages(),
        ["ja", "en"],
        "the region's order, only languages the build has texts of"
    );
    assert_eq!(manifest.reading_language(), "ja");

    let ja = masters.texts("item", "ja").unwrap();
    assert_eq!(ja.get("name", 0), Some("剣"));
    assert_eq!(ja.source_language("name", 0), Some("ja"));
    assert_eq!(ja.get("name", 1), Some("Steel"));
    assert_eq!(
        ja.source_language("name", 1),
        Some("en"),
        "a fallback decoded"
    );
    assert_eq!(ja.source_language("description", 0), None);
    // A language the build lacks reads the first one it holds.
    assert_eq!(masters.texts("item", "fr").unwrap().language(), "ja");

    let item = masters.table("item").unwrap();
    let sword = item.get(&[ValueRef::Int(1)]).unwrap();
    let references = masters.references(&sword);
    assert_eq!(references.len(), 1);
    let (name, rows) = &references[0];
    assert_eq!(*name, "item_sources");
    let sources: Vec<_> = rows
        .iter()
        .map(|r| r.get("source_table").unwrap())
        .collect();
    assert_eq!(
        sources,
        [ValueRef::Str("shop_item"), ValueRef::Str("quest_drop")]
    );
    let shield = item.get(&[ValueRef::Int(3)]).unwrap();
    assert_eq!(masters.references(&shield)[0].1.len(), 0);
}
