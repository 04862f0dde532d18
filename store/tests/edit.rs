//! Editing a branch cell by cell, as the console's grid does: cells set, rows added and
//! deleted, one commit; a cell changed since the planner saw it named with who changed
//! it and nothing written; a value its column cannot read, or one its rules refuse,
//! named by the row's key; a dry run reviewed.

use crate::common::{CONFIG, MONSTER, Studio};
use masterctl_store::StoreError;
use masterctl_store::edit::{self, Edit, EditOutcome, Request, Why};
use masterctl_store::import::ImportOutcome;
use masterctl_store::review::diff::DiffOptions;

fn import(studio: &Studio, rows: &[(i64, &str, i64)]) -> String {
    match studio.import("jp", &studio.export(rows), |_| {}).unwrap() {
        ImportOutcome::Committed { commit, .. } => commit,
        other => panic!("{other:?}"),
    }
}

fn run(studio: &Studio, edits: &[Edit], dry_run: bool) -> Result<EditOutcome, StoreError> {
    let line = studio.region("jp");
    edit::run(
        &studio.repo(),
        &Request {
            line: &line,
            edits,
            message: None,
            dry_run,
            review: DiffOptions::default(),
        },
    )
}

fn set(key: &str, field: &str, was: &str, value: &str) -> Edit {
    Edit::Set {
        table: "monster".into(),
        key: key.into(),
        field: field.into(),
        was: was.into(),
        value: value.into(),
    }
}

fn monsters(studio: &Studio) -> String {
    let out = std::process::Command::new("git")
        .args(["show", "masters/jp:tables/monster.csv"])
        .current_dir(studio.dir.path())
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn message(studio: &Studio) -> String {
    let out = std::process::Command::new("git")
        .args(["log", "-1", "--format=%B%an", "masters/jp"])
        .current_dir(studio.dir.path())
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn cells_set_rows_added_and_deleted_are_one_commit() {
    let studio = Studio::new();
    import(
        &studio,
        &[(1, "slime", 10), (2, "golem", 300), (3, "bat", 3)],
    );
    let edits = [
        set("1", "hp", "10", "12"),
        set("2", "name", "golem", "stone golem"),
        Edit::Add {
            table: "monster".into(),
            cells: vec![
                ("id".into(), "4".into()),
                ("name".into(), "dragon".into()),
                ("hp".into(), "5000".into()),
            ],
        },
        Edit::Delete {
            table: "monster".into(),
            key: "3".into(),
            was: vec![("hp".into(), "3".into())],
        },
    ];
    let before = studio.head("masters/jp");

    // Reviewed first: nothing written.
    let EditOutcome::Reviewed { changes, review } = run(&studio, &edits, true).unwrap() else {
        panic!("a review");
    };
    assert_eq!(studio.head("masters/jp"), before);
    assert_eq!(
        (changes[0].added, changes[0].changed, changes[0].removed),
        (1, 2, 1)
    );
    let cells: Vec<_> = (review.diff.changes.iter())
        .map(|c| {
            (
                c.key.clone().unwrap_or_default().join("|"),
                c.column.clone(),
            )
        })
        .collect();
    assert!(
        cells.contains(&("1".into(), Some("hp".into()))),
        "{cells:?}"
    );

    let EditOutcome::Committed { commit, .. } = run(&studio, &edits, false).unwrap() else {
        panic!("committed");
    };
    assert_eq!(studio.head("masters/jp").as_deref(), Some(commit.as_str()));
    assert_eq!(
        monsters(&studio),
        "id,name,hp\n1,slime,12\n2,stone golem,300\n4,dragon,5000\n"
    );
    let message = message(&studio);
    assert!(
        message.starts_with("Edit monster: 2 rows changed, 1 row added, 1 row deleted\n"),
        "{message}"
    );
    assert!(
        message.contains("monster: 1 added, 2 changed, 1 removed"),
        "{message}"
    );
    assert!(message.trim_end().ends_with("Aiko"), "{message}");

    // The same edits again: the branch holds these values; the deleted row is gone.
    assert!(matches!(
        run(&studio, &edits[..2], false).unwrap(),
        EditOutcome::Unchanged
    ));
}

#[test]
fn a_cell_changed_since_it_was_seen_is_named_with_who_changed_it_and_nothing_is_written() {
    let studio = Studio::new();
    import(&studio, &[(1, "slime", 10), (2, "golem", 300)]);
    // A colleague imports meanwhile: slime's hp is 11 now.
    import(&studio, &[(1, "slime", 11), (2, "golem", 300)]);
    let before = studio.head("masters/jp");
    let edits = [set("2", "hp", "300", "320"), set("1", "hp", "10", "12")];
    let EditOutcome::Refused(refusals) = run(&studio, &edits, false).unwrap() else {
        panic!("refused");
    };
    assert_eq!(studio.head("masters/jp"), before, "nothing written");
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    let refusal = &refusals[0];
    assert_eq!(refusal.edit, 1);
    assert_eq!(
        refusal.why,
        Why::Changed {
            now: Some("11".into())
        }
    );
    let by = refusal.by.as_ref().expect("who changed it");
    assert_eq!(by.author, "Aiko");
    assert_eq!(Some(by.commit.clone()), before);
    let said = refusal.describe();
    assert!(
        said.starts_with("monster 1 `hp` was changed since by Aiko"),
        "{said}"
    );
    assert!(said.ends_with("it holds `11` now"), "{said}");

    // A change elsewhere in the table is no conflict: made on top of it.
    let EditOutcome::Committed { .. } = run(&studio, &edits[..1], false).unwrap() else {
        panic!("committed");
    };
    assert_eq!(monsters(&studio), "id,name,hp\n1,slime,11\n2,golem,320\n");

    // A row deleted since: the cell has nowhere to go.
    import(&studio, &[(1, "slime", 11)]);
    let EditOutcome::Refused(refusals) =
        run(&studio, &[set("2", "hp", "320", "330")], false).unwrap()
    else {
        panic!("refused");
    };
    assert_eq!(refusals[0].why, Why::RowGone);
}

#[test]
fn values_that_do_not_read_or_break_the_rules_are_named_by_row_key() {
    let ranged = MONSTER.replace(
        "name = \"hp\"\ntype = \"int\"\n",
        "name = \"hp\"\ntype = \"int\"\nmin = 0\nmax = 99\n",
    );
    assert_ne!(ranged, MONSTER);
    let studio = Studio::with(CONFIG, &ranged);
    import(&studio, &[(1, "slime", 10), (2, "golem", 30)]);
    let before = studio.head("masters/jp");

    // Read by the column's own parser: refused before anything is validated.
    let EditOutcome::Refused(refusals) = run(
        &studio,
        &[set("1", "hp", "10", "ten"), set("9", "hp", "1", "2")],
        false,
    )
    .unwrap() else {
        panic!("refused");
    };
    assert!(
        matches!(&refusals[0].why, Why::Unreadable { text, .. } if text == "ten"),
        "{refusals:?}"
    );
    assert_eq!(refusals[1].why, Why::RowGone);

    // Held to the column's rules, as an import: every mistake at once, by key.
    let EditOutcome::Rejected(report) = run(
        &studio,
        &[set("1", "hp", "10", "-3"), set("2", "hp", "30", "150")],
        false,
    )
    .unwrap() else {
        panic!("rejected");
    };
    let keys: Vec<_> = (report.diagnostics.iter())
        .map(|d| d.location.key.clone())
        .collect();
    assert_eq!(
        keys,
        [Some("1".to_string()), Some("2".to_string())],
        "{report:?}"
    );
    assert_eq!(studio.head("masters/jp"), before, "nothing written");

    // A new row whose key is taken.
    let EditOutcome::Refused(refusals) = run(
        &studio,
        &[Edit::Add {
            table: "monster".into(),
            cells: vec![("id".into(), "2".into())],
        }],
        false,
    )
    .unwrap() else {
        panic!("refused");
    };
    assert_eq!(refusals[0].why, Why::KeyTaken { key: "2".into() });

    // Nothing to do is an error, not a success.
    assert!(matches!(
        run(&studio, &[], false),
        Err(StoreError::NothingToEdit { .. })
    ));
}

const CATEGORY: &str = "name = \"category\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"string\"\n";
const ITEM: &str = "name = \"item\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"string\"\n\n[[fields]]\nname = \"category\"\ntype = \"int\"\nreferences = \"category.id\"\n";
const SHOP: &str = "name = \"shop\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"price\"\ntype = \"int\"\n";
const BY_CATEGORY: &str = "name = \"category_items\"\n\n[reverse]\ntarget = \"category\"\nsources = [{ table = \"item\", field = \"category\", columns = [\"name\"] }]\n";

/// Import these CSV files (name, text) into jp; it must commit, or change nothing when
/// `unchanged`.
fn import_files(studio: &Studio, files: &[(&str, &str)], unchanged: bool) {
    let dir = studio.exports.path().join("tables");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    match studio.import("jp", &dir, |_| {}).unwrap() {
        ImportOutcome::Committed { .. } if !unchanged => {}
        ImportOutcome::Unchanged(_) if unchanged => {}
        other => panic!("{other:?}"),
    }
}

fn file_at(studio: &Studio, path: &str) -> String {
    let out = std::process::Command::new("git")
        .args(["show", &format!("masters/jp:{path}")])
        .current_dir(studio.dir.path())
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn an_edit_checks_what_it_can_break_across_tables_and_remakes_the_masters_it_feeds() {
    let studio = Studio::with_schemas(
        CONFIG,
        &[
            ("category", CATEGORY),
            ("item", ITEM),
            ("shop", SHOP),
            ("category_items", BY_CATEGORY),
        ],
    );
    let category = "id,name\n1,武器\n2,防具\n";
    let shop = "id,price\n1,100\n";
    import_files(
        &studio,
        &[
            ("category.csv", category),
            ("item.csv", "id,name,category\n10,sword,1\n11,shield,2\n"),
            ("shop.csv", shop),
        ],
        false,
    );
    let masters = file_at(&studio, "generated/category_items.csv");
    assert!(masters.contains("shield"), "{masters}");

    // A category an item still names cannot go: the item table is checked too.
    let gone = Edit::Delete {
        table: "category".into(),
        key: "2".into(),
        was: Vec::new(),
    };
    let EditOutcome::Rejected(report) = run(&studio, &[gone], false).unwrap() else {
        panic!("rejected");
    };
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.location.table.as_deref() == Some("item")),
        "{report:?}"
    );

    // So is a category's key changed under the items naming it.
    let rekeyed = Edit::Set {
        table: "category".into(),
        key: "1".into(),
        field: "id".into(),
        was: "1".into(),
        value: "5".into(),
    };
    assert!(matches!(
        run(&studio, &[rekeyed], false).unwrap(),
        EditOutcome::Rejected(_)
    ));

    // The shield moves to category 1: the master made from items is made again, and
    // the branch is exactly what importing the same data makes.
    let moved = Edit::Set {
        table: "item".into(),
        key: "11".into(),
        field: "category".into(),
        was: "2".into(),
        value: "1".into(),
    };
    let EditOutcome::Committed { .. } = run(&studio, &[moved], false).unwrap() else {
        panic!("committed");
    };
    assert_ne!(file_at(&studio, "generated/category_items.csv"), masters);
    import_files(
        &studio,
        &[
            ("category.csv", category),
            ("item.csv", "id,name,category\n10,sword,1\n11,shield,1\n"),
            ("shop.csv", shop),
        ],
        true,
    );

    // An edit of a table no master is made from keeps the masters as they are.
    let masters = file_at(&studio, "generated/category_items.csv");
    let EditOutcome::Committed { .. } = run(
        &studio,
        &[Edit::Set {
            table: "shop".into(),
            key: "1".into(),
            field: "price".into(),
            was: "100".into(),
            value: "120".into(),
        }],
        false,
    )
    .unwrap() else {
        panic!("committed");
    };
    assert_eq!(file_at(&studio, "generated/category_items.csv"), masters);
    assert_eq!(file_at(&studio, "tables/shop.csv"), "id,price\n1,120\n");
}

#[test]
fn a_rows_history_is_every_commit_that_changed_it_newest_first() {
    let studio = Studio::new();
    import(&studio, &[(1, "slime", 10), (2, "golem", 300)]);
    import(&studio, &[(1, "slime", 12), (2, "golem", 300)]);
    // A commit that leaves the row as it is is not in its history.
    import(&studio, &[(1, "slime", 12), (2, "golem", 310)]);
    run(&studio, &[set("1", "name", "slime", "king slime")], false).unwrap();
    let line = studio.region("jp");
    let history = masterctl_store::review::blame::row_history(
        &studio.repo(),
        &line,
        "monster",
        &["1".into()],
        10,
    )
    .unwrap();
    type Changed = (String, Option<String>, Option<String>);
    let said: Vec<Vec<Changed>> = (history.iter())
        .map(|v| {
            (v.changes.iter())
                .map(|c| (c.field.clone(), c.before.clone(), c.after.clone()))
                .collect()
        })
        .collect();
    let some = |s: &str| Some(s.to_string());
    assert_eq!(
        said,
        [
            vec![("name".into(), some("slime"), some("king slime"))],
            vec![("hp".into(), some("10"), some("12"))],
            vec![
                ("name".into(), None, some("slime")),
                ("hp".into(), None, some("10")),
            ],
        ]
    );
    assert!(history[0].commit.subject.starts_with("Edit monster"));
    // At most `limit`.
    let one = masterctl_store::review::blame::row_history(
        &studio.repo(),
        &line,
        "monster",
        &["1".into()],
        1,
    )
    .unwrap();
    assert_eq!(one.len(), 1);
}

/// Things of several cases: goods (`num`), gear (`attr`).
const THING: &str = "name = \"thing\"\nprimary_key = [\"id\"]\ncase_field = \"type\"\nfields = [\n  { name = \"id\", type = \"int\" },\n  { name = \"type\", type = \"enum\", values = [\"goods\", \"gear\"] },\n  { name = \"num\", type = \"int\", cases = [\"goods\"] },\n  { name = \"attr\", type = \"string\", cases = [\"gear\"] },\n]\n";

#[test]
fn an_edit_is_held_to_each_rows_case() {
    let studio = Studio::with_schemas(CONFIG, &[("thing", THING)]);
    import_files(
        &studio,
        &[("thing.csv", "id,type,num,attr\n1,goods,3,\n2,gear,,sharp\n")],
        false,
    );
    let before = studio.head("masters/jp");
    let thing = |key: &str, field: &str, was: &str, value: &str| Edit::Set {
        table: "thing".into(),
        key: key.into(),
        field: field.into(),
        was: was.into(),
        value: value.into(),
    };
    // A goods row made gear keeps its `num` and lacks an `attr`: both said, by key.
    let EditOutcome::Rejected(report) =
        run(&studio, &[thing("1", "type", "goods", "gear")], false).unwrap()
    else {
        panic!("rejected");
    };
    let said: Vec<(String, Option<String>, Option<String>)> = (report.diagnostics.iter())
        .map(|d| {
            (
                d.code.to_string(),
                d.location.key.clone(),
                d.location.field.clone(),
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            ("other-case".into(), Some("1".into()), Some("num".into())),
            ("required".into(), Some("1".into()), Some("attr".into())),
        ],
        "{report:?}"
    );
    assert_eq!(studio.head("masters/jp"), before, "nothing written");
    // Made gear whole, it is taken.
    let whole = [
        thing("1", "type", "goods", "gear"),
        thing("1", "num", "3", ""),
        thing("1", "attr", "", "blunt"),
    ];
    assert!(matches!(
        run(&studio, &whole, false).unwrap(),
        EditOutcome::Committed { .. }
    ));
}
