//! Resolutions applied to a merged table, case by case, without git: every kind of
//! conflict with `ours`, `theirs` and a value, and what stays unresolved.

use std::path::{Path, PathBuf};

use masterctl_schemas::canonical::{read_table, table_csv};
use masterctl_schemas::load::load_from_files;
use masterctl_schemas::{Table, TableSchema, Value};
use masterctl_store::join::resolutions::{Resolution, Resolutions, apply, key_text};
use masterctl_store::merge::{Conflict, ConflictKind};

fn schema() -> TableSchema {
    let text = "name = \"monster\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"hp\"\ntype = \"int\"\n";
    let project = load_from_files(
        None,
        vec![(PathBuf::from("schemas/monster.toml"), text.to_string())],
    )
    .unwrap();
    project.tables[0].clone()
}

/// The merged table as the merge leaves it: the region's cells where both changed.
fn merged(schema: &TableSchema) -> Table {
    let csv = "id,hp\n100,5500\n101,4700\n102,3000\n";
    read_table(
        schema,
        csv.as_bytes(),
        Path::new("tables/monster.csv"),
        None,
    )
    .unwrap()
}

fn csv(schema: &TableSchema, table: &Table) -> String {
    String::from_utf8(table_csv(schema, table).unwrap()).unwrap()
}

fn conflict(kind: ConflictKind, id: i64, ours: Option<i64>, theirs: Option<i64>) -> Conflict {
    Conflict {
        kind,
        key: vec![Value::Int(id)],
        field: 1,
        base: Some(Value::Int(5200)),
        ours: ours.map(Value::Int),
        theirs: theirs.map(Value::Int),
    }
}

fn resolutions(list: &[(i64, Resolution)]) -> Resolutions {
    list.iter()
        .map(|(id, r)| {
            (
                ("monster".to_string(), id.to_string(), "hp".to_string()),
                r.clone(),
            )
        })
        .collect()
}

#[test]
fn ours_theirs_and_a_value_set_the_cell() {
    let schema = schema();
    let mut table = merged(&schema);
    let conflicts = vec![
        conflict(ConflictKind::Cell, 100, Some(5500), Some(6000)),
        conflict(ConflictKind::Cell, 101, Some(4700), Some(4800)),
        conflict(ConflictKind::Cell, 102, Some(3000), Some(3100)),
    ];
    let given = resolutions(&[
        (100, Resolution::Theirs),
        (101, Resolution::Ours),
        (102, Resolution::Value("3050".into())),
    ]);
    let (unresolved, resolved) = apply(&schema, &mut table, conflicts, &given).unwrap();
    assert!(unresolved.is_empty());
    assert_eq!(resolved, 3);
    assert_eq!(
        csv(&schema, &table),
        "id,hp\n100,6000\n101,4700\n102,3050\n"
    );
}

#[test]
fn a_conflict_without_a_resolution_stays() {
    let schema = schema();
    let mut table = merged(&schema);
    let conflicts = vec![
        conflict(ConflictKind::Cell, 100, Some(5500), Some(6000)),
        conflict(ConflictKind::Cell, 101, Some(4700), Some(4800)),
    ];
    let given = resolutions(&[(100, Resolution::Theirs)]);
    let (unresolved, resolved) = apply(&schema, &mut table, conflicts, &given).unwrap();
    assert_eq!(resolved, 1);
    assert_eq!(unresolved.len(), 1);
    assert_eq!(key_text(&unresolved[0].key), "101");
    assert_eq!(
        csv(&schema, &table),
        "id,hp\n100,6000\n101,4700\n102,3000\n"
    );
}

#[test]
fn a_deletion_wins_with_the_side_that_deleted() {
    let schema = schema();
    // Upstream deleted 100, the region changed it: `theirs` deletes the row.
    let mut table = merged(&schema);
    let conflicts = vec![conflict(
        ConflictKind::DeletedUpstream,
        100,
        Some(5500),
        None,
    )];
    let given = resolutions(&[(100, Resolution::Theirs)]);
    apply(&schema, &mut table, conflicts.clone(), &given).unwrap();
    assert_eq!(csv(&schema, &table), "id,hp\n101,4700\n102,3000\n");
    // `ours` keeps it as the region has it.
    let mut table = merged(&schema);
    let given = resolutions(&[(100, Resolution::Ours)]);
    apply(&schema, &mut table, conflicts, &given).unwrap();
    assert_eq!(
        csv(&schema, &table),
        "id,hp\n100,5500\n101,4700\n102,3000\n"
    );
    // The region deleted 101, upstream changed it: `ours` deletes it.
    let mut table = merged(&schema);
    let conflicts = vec![conflict(
        ConflictKind::DeletedInRegion,
        101,
        None,
        Some(4800),
    )];
    let given = resolutions(&[(101, Resolution::Ours)]);
    apply(&schema, &mut table, conflicts, &given).unwrap();
    assert_eq!(csv(&schema, &table), "id,hp\n100,5500\n102,3000\n");
}

#[test]
fn a_new_column_without_a_value_is_settled_only_by_a_value() {
    let schema = schema();
    let mut table = merged(&schema);
    let conflicts = vec![conflict(
        ConflictKind::NewColumnWithoutValue,
        102,
        None,
        None,
    )];
    let given = resolutions(&[(102, Resolution::Theirs)]);
    let (unresolved, resolved) = apply(&schema, &mut table, conflicts.clone(), &given).unwrap();
    assert_eq!((unresolved.len(), resolved), (1, 0));
    let given = resolutions(&[(102, Resolution::Value("1".into()))]);
    let (unresolved, resolved) = apply(&schema, &mut table, conflicts, &given).unwrap();
    assert_eq!((unresolved.len(), resolved), (0, 1));
    assert_eq!(csv(&schema, &table), "id,hp\n100,5500\n101,4700\n102,1\n");
}

#[test]
fn a_value_not_of_the_column_type_is_refused_naming_the_cell() {
    let schema = schema();
    let mut table = merged(&schema);
    let conflicts = vec![conflict(ConflictKind::Cell, 100, Some(5500), Some(6000))];
    let given = resolutions(&[(100, Resolution::Value("lots".into()))]);
    let error = apply(&schema, &mut table, conflicts, &given).unwrap_err();
    assert_eq!(
        error,
        "conflicts.csv: monster (100) hp: `lots` is not a whole number"
    );
}
