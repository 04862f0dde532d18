//! The keyed three-way merge, by property: an unchanged side changes nothing, the same
//! change on both sides is taken, and no cell that differs on both sides is ever
//! resolved silently.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use masterctl_schemas::canonical::{language_csv, read_table, table_csv};
use masterctl_schemas::load::load_from_files;
use masterctl_schemas::{Table, TableSchema, Value};
use masterctl_store::merge::{ConflictKind, Ownership, merge_canonical_files, merge_table};
use proptest::prelude::*;

/// Rows by id: (level, tag).
type Rows = BTreeMap<i64, (i64, &'static str)>;

fn schema() -> TableSchema {
    let text = "name = \"thing\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"level\"\ntype = \"int\"\n\n[[fields]]\nname = \"tag\"\ntype = \"string\"\n";
    let project = load_from_files(
        None,
        vec![(PathBuf::from("schemas/thing.toml"), text.to_string())],
    )
    .unwrap();
    project.tables[0].clone()
}

fn table(schema: &TableSchema, rows: &Rows) -> Table {
    let mut csv = String::from("id,level,tag\n");
    for (id, (level, tag)) in rows {
        csv.push_str(&format!("{id},{level},{tag}\n"));
    }
    read_table(schema, csv.as_bytes(), Path::new("tables/thing.csv"), None).unwrap()
}

fn bytes(schema: &TableSchema, table: &Table) -> String {
    String::from_utf8(table_csv(schema, table).unwrap()).unwrap()
}

fn rows() -> impl Strategy<Value = Rows> {
    proptest::collection::btree_map(0i64..10, (0i64..3, prop_oneof![Just("x"), Just("y")]), 0..8)
}

/// A side derived from the base: some rows edited, some deleted, some added.
fn edited(base: Rows) -> impl Strategy<Value = Rows> {
    let ids: Vec<i64> = base.keys().copied().collect();
    (
        proptest::collection::vec(
            (0u8..4, 0i64..3, prop_oneof![Just("x"), Just("y")]),
            ids.len(),
        ),
        rows(),
    )
        .prop_map(move |(edits, added)| {
            let mut out = Rows::new();
            for (id, (action, level, tag)) in ids.iter().zip(edits) {
                let (old_level, old_tag) = base[id];
                let row = match action {
                    0 => continue, // deleted
                    1 => (level, old_tag),
                    2 => (old_level, tag),
                    _ => (old_level, old_tag),
                };
                out.insert(*id, row);
            }
            for (id, row) in added {
                out.entry(id + 10).or_insert(row);
            }
            out
        })
}

fn three() -> impl Strategy<Value = (Rows, Rows, Rows)> {
    rows().prop_flat_map(|base| (Just(base.clone()), edited(base.clone()), edited(base)))
}

fn key(id: i64) -> Vec<Value> {
    vec![Value::Int(id)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn upstream_unchanged_keeps_ours((base, _, ours) in three()) {
        let schema = schema();
        let (b, o) = (table(&schema, &base), table(&schema, &ours));
        let merge = merge_table(&schema, Some(&b), &b, &o, &Ownership::default());
        prop_assert!(merge.conflicts.is_empty());
        prop_assert_eq!(bytes(&schema, &merge.table), bytes(&schema, &o));
    }

    #[test]
    fn region_unchanged_takes_theirs((base, theirs, _) in three()) {
        let schema = schema();
        let (b, t) = (table(&schema, &base), table(&schema, &theirs));
        let merge = merge_table(&schema, Some(&b), &t, &b, &Ownership::default());
        prop_assert!(merge.conflicts.is_empty());
        prop_assert_eq!(bytes(&schema, &merge.table), bytes(&schema, &t));
    }

    #[test]
    fn the_same_change_on_both_sides_is_taken((base, x, _) in three()) {
        let schema = schema();
        let (b, x) = (table(&schema, &base), table(&schema, &x));
        let merge = merge_table(&schema, Some(&b), &x, &x, &Ownership::default());
        prop_assert!(merge.conflicts.is_empty());
        prop_assert_eq!(bytes(&schema, &merge.table), bytes(&schema, &x));
    }

    #[test]
    fn nothing_that_differs_on_both_sides_is_resolved_silently((base, theirs, ours) in three()) {
        let schema = schema();
        let (b, t, o) = (table(&schema, &base), table(&schema, &theirs), table(&schema, &ours));
        let merge = merge_table(&schema, Some(&b), &t, &o, &Ownership::default());
        let conflict = |id: i64, field: usize| merge.conflicts.iter().any(|c| c.key == key(id) && c.field == field);
        let has = |id: i64, kind: ConflictKind| merge.conflicts.iter().any(|c| c.key == key(id) && c.kind == kind);
        let ids: BTreeSet<i64> = base.keys().chain(theirs.keys()).chain(ours.keys()).copied().collect();
        for id in ids {
            let cells = |rows: &Rows| rows.get(&id).map(|(l, t)| [l.to_string(), t.to_string()]);
            match (cells(&base), cells(&theirs), cells(&ours)) {
                (Some(b), Some(t), Some(o)) => {
                    for f in 0..2 {
                        if t[f] != b[f] && o[f] != b[f] && t[f] != o[f] {
                            prop_assert!(conflict(id, f + 1), "cell {}/{} changed differently on both sides", id, f);
                        }
                    }
                }
                (None, Some(t), Some(o)) => {
                    for f in 0..2 {
                        if t[f] != o[f] {
                            prop_assert!(conflict(id, f + 1), "row {} added twice, differently", id);
                        }
                    }
                }
                (Some(b), None, Some(o)) if o != b => prop_assert!(has(id, ConflictKind::DeletedUpstream)),
                (Some(b), Some(t), None) if t != b => prop_assert!(has(id, ConflictKind::DeletedInRegion)),
                _ => {}
            }
        }
    }
}

#[test]
fn owned_columns_keep_the_region_value_and_owned_tables_everything() {
    let schema = schema();
    let base: Rows = [(1, (1, "x")), (2, (1, "x"))].into_iter().collect();
    let theirs: Rows = [(1, (2, "y")), (3, (1, "x"))].into_iter().collect();
    let ours: Rows = [(1, (0, "x")), (2, (1, "x"))].into_iter().collect();
    let (b, t, o) = (
        table(&schema, &base),
        table(&schema, &theirs),
        table(&schema, &ours),
    );
    // Owning `level`: upstream's level 2 is not taken, its tag is; row 2 goes (upstream
    // deleted it, the region did not touch it); row 3 arrives.
    let level = Ownership {
        table: false,
        columns: vec![1],
    };
    let merge = merge_table(&schema, Some(&b), &t, &o, &level);
    assert!(merge.conflicts.is_empty(), "{:?}", merge.conflicts);
    assert_eq!(bytes(&schema, &merge.table), "id,level,tag\n1,0,y\n3,1,x\n");
    assert_eq!(merge.kept, 1);
    // Owning the table: the region's rows, all of them, and nothing else.
    let all = Ownership {
        table: true,
        columns: vec![],
    };
    let merge = merge_table(&schema, Some(&b), &t, &o, &all);
    assert!(merge.conflicts.is_empty());
    assert_eq!(bytes(&schema, &merge.table), bytes(&schema, &o));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The merge on canonical text gives exactly what the typed merge gives.
    #[test]
    fn merging_canonical_lines_agrees_with_the_typed_merge((base, theirs, ours) in three(), owned_level in any::<bool>()) {
        let schema = schema();
        let (b, t, o) = (table(&schema, &base), table(&schema, &theirs), table(&schema, &ours));
        let ownership = Ownership { table: false, columns: if owned_level { vec![1] } else { vec![] } };
        let typed = merge_table(&schema, Some(&b), &t, &o, &ownership);
        let (bytes_b, bytes_t, bytes_o) = (table_csv(&schema, &b).unwrap(), table_csv(&schema, &t).unwrap(), table_csv(&schema, &o).unwrap());
        let merged =
            masterctl_store::merge::merge_canonical(&schema, &bytes_b, &bytes_t, &bytes_o, &ownership).unwrap();
        prop_assert_eq!(String::from_utf8(merged.data).unwrap(), bytes(&schema, &typed.table));
        prop_assert_eq!(merged.conflicts, typed.conflicts);
        prop_assert_eq!((merged.applied, merged.kept, merged.seeded), (typed.applied, typed.kept, typed.seeded));
    }

    /// A table with text merged as its two files' lines (the data, the source texts)
    /// gives exactly what the typed merge gives, or declines — only where a row deleted
    /// on one side was changed on the other, which the typed merge then decides.
    #[test]
    fn merging_a_text_tables_two_files_as_lines_agrees_with_the_typed_merge((base, theirs, ours) in three(), owned in 0usize..3) {
        let schema = text_schema();
        let (b, t, o) = (text_table(&schema, &base), text_table(&schema, &theirs), text_table(&schema, &ours));
        let ownership = Ownership { table: false, columns: match owned { 1 => vec![1], 2 => vec![2], _ => vec![] } };
        let typed = merge_table(&schema, Some(&b), &t, &o, &ownership);
        let data = |t: &Table| table_csv(&schema, t).unwrap();
        let texts = |t: &Table| language_csv(&schema, t).unwrap().unwrap();
        let (db, dt, d_o) = (data(&b), data(&t), data(&o));
        let (lb, lt, lo) = (texts(&b), texts(&t), texts(&o));
        match merge_canonical_files(&schema, [&db, &dt, &d_o], Some([&lb, &lt, &lo]), &ownership) {
            Some(merged) => {
                prop_assert_eq!(merged.data, data(&typed.table));
                prop_assert_eq!(merged.language, Some(texts(&typed.table)));
                prop_assert_eq!(merged.conflicts, typed.conflicts);
                prop_assert_eq!((merged.applied, merged.kept, merged.seeded), (typed.applied, typed.kept, typed.seeded));
            }
            None => prop_assert!(
                typed.conflicts.iter().any(|c| matches!(c.kind, ConflictKind::DeletedUpstream | ConflictKind::DeletedInRegion)),
                "declined without a delete/modify conflict: {:?}", typed.conflicts
            ),
        }
    }
}

/// `thing` with its tag a text (stored in the source-language file).
fn text_schema() -> TableSchema {
    let text = "name = \"thing\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"level\"\ntype = \"int\"\n\n[[fields]]\nname = \"tag\"\ntype = \"text\"\n";
    let config = "source_language = \"ja\"\nlanguages = [\"ja\"]\n";
    let project = load_from_files(
        Some((PathBuf::from("masterctl.toml"), config.to_string())),
        vec![(PathBuf::from("schemas/thing.toml"), text.to_string())],
    )
    .unwrap();
    project.tables[0].clone()
}

fn text_table(schema: &TableSchema, rows: &Rows) -> Table {
    let (mut data, mut texts) = (String::from("id,level\n"), String::from("id,tag\n"));
    for (id, (level, tag)) in rows {
        data.push_str(&format!("{id},{level}\n"));
        texts.push_str(&format!("{id},{tag}\n"));
    }
    let language = (texts.as_bytes(), Path::new("locales/ja/thing.csv"));
    read_table(
        schema,
        data.as_bytes(),
        Path::new("tables/thing.csv"),
        Some(language),
    )
    .unwrap()
}
