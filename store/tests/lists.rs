//! Tables without a key through the store: a list merged by place (rows inserted,
//! appended, edited and removed on both sides; what conflicts named by its place and
//! resolved), a singleton merged as its one record, and both through import, diff and
//! rebase on a real repository.

use std::path::{Path, PathBuf};

use masterctl_schemas::canonical::{read_table, table_csv};
use masterctl_schemas::load::load_from_files;
use masterctl_schemas::{Table, TableSchema, Value};
use masterctl_store::join::resolutions::{Resolution, Resolutions, apply};
use masterctl_store::merge::{ConflictKind, Ownership, TableMerge, merge_table};
use proptest::prelude::*;

use crate::common::Studio;
use masterctl_store::join::session::{Action, Step};
use masterctl_store::review::diff::{self, DiffOptions};

const BONUS: &str = "name = \"login_bonus\"\nkind = \"list\"\n\n[[fields]]\nname = \"item\"\ntype = \"int\"\n\n[[fields]]\nname = \"count\"\ntype = \"int\"\n";
const CONSTANTS: &str = "name = \"constants\"\nkind = \"singleton\"\n\n[[fields]]\nname = \"bag_size\"\ntype = \"int\"\n\n[[fields]]\nname = \"stamina\"\ntype = \"int\"\n\n[[fields]]\nname = \"motd\"\ntype = \"text\"\n";

fn schema() -> TableSchema {
    load_from_files(
        None,
        vec![(PathBuf::from("schemas/login_bonus.toml"), BONUS.to_string())],
    )
    .unwrap()
    .tables[0]
        .clone()
}

/// A list of (item, count) rows.
fn list(schema: &TableSchema, rows: &[(i64, i64)]) -> Table {
    let mut csv = String::from("item,count\n");
    for (item, count) in rows {
        csv.push_str(&format!("{item},{count}\n"));
    }
    read_table(
        schema,
        csv.as_bytes(),
        Path::new("tables/login_bonus.csv"),
        None,
    )
    .unwrap()
}

fn rows_of(schema: &TableSchema, table: &Table) -> Vec<(i64, i64)> {
    let text = String::from_utf8(table_csv(schema, table).unwrap()).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let (a, b) = line.split_once(',').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect()
}

fn merge(base: &[(i64, i64)], theirs: &[(i64, i64)], ours: &[(i64, i64)]) -> TableMerge {
    let schema = schema();
    merge_table(
        &schema,
        Some(&list(&schema, base)),
        &list(&schema, theirs),
        &list(&schema, ours),
        &Ownership::default(),
    )
}

#[test]
fn an_upstream_insert_and_a_region_edit_further_down_both_arrive_on_their_rows() {
    let base = [(1, 1), (2, 1), (3, 1), (4, 1)];
    // Upstream inserts a row second; the region edits the fourth.
    let theirs = [(1, 1), (9, 9), (2, 1), (3, 1), (4, 1)];
    let ours = [(1, 1), (2, 1), (3, 1), (4, 5)];
    let merged = merge(&base, &theirs, &ours);
    assert!(merged.conflicts.is_empty(), "{:?}", merged.conflicts);
    assert_eq!(
        rows_of(&schema(), &merged.table),
        [(1, 1), (9, 9), (2, 1), (3, 1), (4, 5)]
    );
    assert_eq!(merged.applied, 1);
}

#[test]
fn rows_both_sides_append_are_kept_the_regions_first() {
    let base = [(1, 1)];
    let merged = merge(&base, &[(1, 1), (7, 7)], &[(1, 1), (8, 8)]);
    assert!(merged.conflicts.is_empty());
    assert_eq!(rows_of(&schema(), &merged.table), [(1, 1), (8, 8), (7, 7)]);
    // The same row appended by both arrives once.
    let merged = merge(&base, &[(1, 1), (7, 7)], &[(1, 1), (7, 7)]);
    assert_eq!(rows_of(&schema(), &merged.table), [(1, 1), (7, 7)]);
}

#[test]
fn one_row_edited_on_both_sides_merges_cell_by_cell_and_conflicts_by_place() {
    let base = [(1, 1), (2, 2), (3, 3)];
    // Different cells of the second row: both taken.
    let merged = merge(&base, &[(1, 1), (5, 2), (3, 3)], &[(1, 1), (2, 6), (3, 3)]);
    assert!(merged.conflicts.is_empty());
    assert_eq!(rows_of(&schema(), &merged.table), [(1, 1), (5, 6), (3, 3)]);
    // The same cell, differently: a conflict on the second row, the region's value
    // held until resolved; resolved with upstream's by its place.
    let schema = schema();
    let merged = merge(&base, &[(1, 1), (2, 7), (3, 3)], &[(1, 1), (2, 6), (3, 3)]);
    assert_eq!(merged.conflicts.len(), 1);
    let conflict = &merged.conflicts[0];
    assert_eq!(conflict.kind, ConflictKind::Cell);
    assert_eq!(conflict.key, [Value::Int(2)]);
    assert_eq!(schema.fields[conflict.field].name, "count");
    let mut table = merged.table.clone();
    let resolutions = theirs_at("2", "count");
    let (unresolved, resolved) =
        apply(&schema, &mut table, merged.conflicts, &resolutions).unwrap();
    assert!(unresolved.is_empty());
    assert_eq!(resolved, 1);
    assert_eq!(rows_of(&schema, &table), [(1, 1), (2, 7), (3, 3)]);
}

#[test]
fn a_row_upstream_removed_and_the_region_edited_is_a_conflict_kept_until_resolved() {
    let base = [(1, 1), (2, 2), (3, 3)];
    let merged = merge(&base, &[(1, 1), (3, 3)], &[(1, 1), (2, 9), (3, 3)]);
    assert_eq!(merged.conflicts.len(), 1);
    assert_eq!(merged.conflicts[0].kind, ConflictKind::DeletedUpstream);
    assert_eq!(merged.conflicts[0].key, [Value::Int(2)]);
    let schema = schema();
    assert_eq!(rows_of(&schema, &merged.table), [(1, 1), (2, 9), (3, 3)]);
    // Taking upstream's side removes the row.
    let mut table = merged.table.clone();
    let resolutions = theirs_at("2", "count");
    apply(&schema, &mut table, merged.conflicts, &resolutions).unwrap();
    assert_eq!(rows_of(&schema, &table), [(1, 1), (3, 3)]);
}

/// Upstream's side taken for one cell of the list, by the row's place.
fn theirs_at(place: &str, column: &str) -> Resolutions {
    let cell = (
        "login_bonus".to_string(),
        place.to_string(),
        column.to_string(),
    );
    [(cell, Resolution::Theirs)].into_iter().collect()
}

fn a_list() -> impl Strategy<Value = Vec<(i64, i64)>> {
    proptest::collection::vec((0i64..4, 0i64..3), 0..8)
}

proptest! {
    /// A side that changed nothing changes nothing: the result is the other side, and
    /// nothing conflicts.
    #[test]
    fn an_unchanged_side_yields_the_other(base in a_list(), other in a_list()) {
        let schema = schema();
        let taken = merge(&base, &other, &base);
        prop_assert!(taken.conflicts.is_empty());
        prop_assert_eq!(rows_of(&schema, &taken.table), other.clone());
        let kept = merge(&base, &base, &other);
        prop_assert!(kept.conflicts.is_empty());
        prop_assert_eq!(rows_of(&schema, &kept.table), other);
    }

    /// Whatever both sides did, the merge ends: every row of the result is a row one of
    /// the three versions holds, and the same change on both sides is the change.
    #[test]
    fn the_same_change_on_both_sides_is_taken(base in a_list(), side in a_list()) {
        let schema = schema();
        let merged = merge(&base, &side, &side);
        prop_assert!(merged.conflicts.is_empty());
        prop_assert_eq!(rows_of(&schema, &merged.table), side);
    }
}

const CONFIG: &str = "source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n\n[regions.global]\nbranch = \"masters/global\"\nupstream = \"jp\"\n";

fn write(studio: &Studio, name: &str, text: &str) -> PathBuf {
    let dir = studio.exports.path().join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("login_bonus.csv"), text.split('|').next().unwrap()).unwrap();
    std::fs::write(dir.join("constants.csv"), text.split('|').nth(1).unwrap()).unwrap();
    dir
}

#[test]
fn a_list_and_a_singleton_import_diff_and_rebase_through_a_repository() {
    let studio = Studio::with_schemas(CONFIG, &[("login_bonus", BONUS), ("constants", CONSTANTS)]);
    let first = write(
        &studio,
        "first",
        "item,count\n1,1\n2,1\n3,1\n|bag_size,stamina,motd\n40,100,ようこそ\n",
    );
    studio.import("jp", &first, |_| {}).unwrap();
    studio.rebase("global", Action::Start).expect_done();
    // The region raises the stamina and the last day's count; upstream inserts a day
    // and raises the bag.
    let region = write(
        &studio,
        "region",
        "item,count\n1,1\n2,1\n3,5\n|bag_size,stamina,motd\n40,120,ようこそ\n",
    );
    studio.import("global", &region, |_| {}).unwrap();
    let upstream = write(
        &studio,
        "upstream",
        "item,count\n1,1\n9,9\n2,1\n3,1\n|bag_size,stamina,motd\n50,100,ようこそ\n",
    );
    studio.import("jp", &upstream, |_| {}).unwrap();

    // The diff names the list's rows by place: one added, nothing else.
    let git = git2::Repository::open(studio.dir.path()).unwrap();
    let (from, to) = diff::revision(&git, "masters/jp").unwrap();
    let changes = diff::diff(&from, &to, &DiffOptions::default())
        .unwrap()
        .changes;
    let shown: Vec<String> = changes
        .iter()
        .map(|c| format!("{} {:?} {:?} {:?}", c.table, c.kind, c.key, c.column))
        .collect();
    assert_eq!(
        shown,
        [
            "constants CellChanged Some([]) Some(\"bag_size\")",
            "login_bonus RowAdded Some([\"#2\"]) None",
        ]
    );

    studio.rebase("global", Action::Start).expect_done();
    let blob = |path: &str| {
        let object = git
            .revparse_single(&format!("masters/global:{path}"))
            .unwrap();
        String::from_utf8(object.peel_to_blob().unwrap().content().to_vec()).unwrap()
    };
    assert_eq!(
        blob("tables/login_bonus.csv"),
        "item,count\n1,1\n9,9\n2,1\n3,5\n"
    );
    assert_eq!(blob("tables/constants.csv"), "bag_size,stamina\n50,120\n");
    assert_eq!(blob("locales/ja/constants.csv"), "motd\nようこそ\n");
}

trait Done {
    fn expect_done(self);
}

impl Done for Step {
    fn expect_done(self) {
        assert!(matches!(self, Step::Committed { .. }), "{self:?}");
    }
}
