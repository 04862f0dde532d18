//! Records spread over several rows (Luban's `*field`): a multi-row list goes on in the
//! rows below its record while their key cells are empty — in a keyed table, in a
//! singleton's ordinary and vertical layouts — one list in the canonical files, each
//! element checked at its own cell.

use std::path::{Path, PathBuf};

use crate::common::{CONFIG, errors, load_texts, refused_at_load, validate};
use masterctl_schemas::{Project, Value};
use rust_xlsxwriter::Workbook;

/// Quests whose rewards and steps may go on below them; the title may not.
const QUEST: &str = r#"
name = "quest"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "title"
type = "string"

[[fields]]
name = "rewards"
type = "list<int>"
multi_row = true
min = 1

[[fields]]
name = "steps"
type = "list<string>"
multi_row = true
optional = true
"#;

/// A game's constants, whose starting items go on below.
const RULES: &str = r#"
name = "rules"
kind = "singleton"

[[fields]]
name = "stamina"
type = "int"

[[fields]]
name = "starter_items"
type = "list<int>"
multi_row = true

[[fields]]
name = "note"
type = "string"
optional = true
"#;

fn project() -> Project {
    load_texts(CONFIG, &[("quest.toml", QUEST), ("rules.toml", RULES)]).unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn rows_of(project: &Project, paths: &[PathBuf], table: &str) -> Vec<Vec<String>> {
    let validation = validate(project, paths);
    assert!(errors(&validation).is_empty(), "{:#?}", validation.report);
    let table = validation.tables.iter().find(|t| t.name == table).unwrap();
    (0..table.row_count())
        .map(|r| table.row(r).map(Value::to_string).collect())
        .collect()
}

#[test]
fn a_record_goes_on_in_the_rows_below_while_its_key_is_empty() {
    let project = project();
    let dir = tempfile::tempdir().unwrap();
    // Luban's `*` marks the multi-row columns; a cell below may hold several elements.
    let path = write(
        dir.path(),
        "quest.csv",
        "id,title,*rewards,*steps\n\
         1,Slimes,5,talk\n\
         ,,6|7,fight\n\
         ,,,return\n\
         2,Dragon,9,\n\
         3,Village,4,\n",
    );
    assert_eq!(
        rows_of(&project, &[path], "quest"),
        [
            ["1", "Slimes", "5|6|7", "talk|fight|return"],
            ["2", "Dragon", "9", ""],
            ["3", "Village", "4", ""],
        ]
        .map(|r| r.map(String::from).to_vec())
    );
}

#[test]
fn a_value_below_a_record_outside_its_multi_row_fields_is_named_at_its_cell() {
    let project = project();
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "quest.csv",
        "id,title,rewards,steps\n1,Slimes,5,talk\n,Oops,0,\n",
    );
    let validation = validate(&project, &[path]);
    let found: Vec<String> = errors(&validation).iter().map(|d| d.to_string()).collect();
    assert!(
        found.iter().any(|e| e.contains("quest.csv:3")
            && e.contains("goes on with the record above (its key (id) is empty)")
            && e.contains("rewards, steps")),
        "{found:#?}"
    );
    // An element below is checked as the field's are: 0 is below its minimum, there.
    assert!(
        found
            .iter()
            .any(|e| e.contains("quest.csv:3") && e.contains("0 is below the minimum 1")),
        "{found:#?}"
    );
}

#[test]
fn a_singletons_list_goes_on_below_in_either_layout() {
    let project = project();
    let dir = tempfile::tempdir().unwrap();
    let flat = write(
        dir.path(),
        "rules.csv",
        "stamina,starter_items,note\n100,1,hi\n,2,\n,3,\n",
    );
    let expected = [["100", "1|2|3", "hi"].map(String::from).to_vec()];
    assert_eq!(rows_of(&project, &[flat], "rules"), expected);
    // Down a column, as Luban writes a singleton: the rows below `starter_items` whose
    // name is empty are more of its list.
    let mut workbook = Workbook::new();
    let sheet = workbook.add_worksheet().set_name("rules").unwrap();
    let cells: [(u32, &str, &str); 5] = [
        (0, "##var#column", ""),
        (1, "stamina", "100"),
        (2, "starter_items", "1"),
        (3, "", "2"),
        (4, "note", "hi"),
    ];
    for (row, name, value) in cells {
        sheet.write_string(row, 0, name).unwrap();
        sheet.write_string(row, 1, value).unwrap();
    }
    sheet.write_string(5, 1, "3").unwrap();
    let path = dir.path().join("rules.xlsx");
    workbook.save(&path).unwrap();
    let validation = validate(&project, &[path]);
    // B6 is below `note`, which is no multi-row field: a value under no name.
    let found: Vec<String> = errors(&validation).iter().map(|d| d.to_string()).collect();
    assert!(
        found
            .iter()
            .any(|e| e.contains("rules!B6") && e.contains("this row has a value but no name")),
        "{found:#?}"
    );
    let rules = validation
        .tables
        .iter()
        .find(|t| t.name == "rules")
        .unwrap();
    assert_eq!(
        rules.row(0).map(Value::to_string).collect::<Vec<_>>(),
        ["100", "1|2", "hi"]
    );
}

#[test]
fn multi_row_is_for_lists_of_tables_with_a_key_or_one_record() {
    refused_at_load(
        CONFIG,
        &[(
            "q.toml",
            &QUEST.replace(
                "type = \"string\"\n",
                "type = \"string\"\nmulti_row = true\n",
            ),
        )],
        "field `title` is not a list: `multi_row` is for a list",
    );
    let list = QUEST.replace("primary_key = [\"id\"]", "kind = \"list\"");
    refused_at_load(
        CONFIG,
        &[("q.toml", &list)],
        "field `rewards` is multi_row, and a list has no key",
    );
}
