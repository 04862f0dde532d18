//! Tables without a key: a singleton (one record, read from a one-row sheet or the
//! vertical layout) and a list (rows in the sheet's order). What each kind may not have
//! is refused when the schemas load; a singleton of no or two records when it is read.

use std::path::{Path, PathBuf};

use crate::common::{
    errors, load_texts, passed_rows, refused_at_load, sheet_workbook, third_party, validate,
};
use masterctl_schemas::schema::TableKind;
use masterctl_schemas::{Project, Value};

const CONFIG: &str = "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";

/// Game constants: a singleton with a text, a list and an optional field.
const CONSTANTS: &str = r#"
name = "constants"
kind = "singleton"

[[fields]]
name = "bag_size"
type = "int"
min = 1

[[fields]]
name = "welcome"
type = "text"

[[fields]]
name = "start_items"
type = "list<int>"

[[fields]]
name = "event_end"
type = "date"
optional = true
"#;

/// Login bonus days: a list, in the order the planners wrote.
const BONUS: &str = r#"
name = "login_bonus"
kind = "list"

[[fields]]
name = "item_id"
type = "int"

[[fields]]
name = "count"
type = "int"
"#;

fn project() -> Project {
    load_texts(
        CONFIG,
        &[("constants.toml", CONSTANTS), ("login_bonus.toml", BONUS)],
    )
    .unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn constants_of(project: &Project, paths: &[PathBuf]) -> Vec<String> {
    let validation = validate(project, paths);
    assert!(
        errors(&validation).is_empty(),
        "{:#?}",
        validation.report.diagnostics
    );
    let table = validation
        .tables
        .iter()
        .find(|t| t.name == "constants")
        .expect("the constants were read");
    assert_eq!(table.row_count(), 1);
    table.row(0).map(Value::to_string).collect()
}

#[test]
fn a_singleton_reads_from_one_row_or_from_names_down_a_column() {
    let project = project();
    assert_eq!(
        project.table("constants").unwrap().kind,
        TableKind::Singleton
    );
    assert!(project.table("constants").unwrap().primary_key.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let expected = ["40", "ようこそ", "1|2", ""];
    // The ordinary layout: a header, one record.
    let flat = write(
        dir.path(),
        "constants.csv",
        "bag_size,welcome,start_items,event_end\n40,ようこそ,1|2,\n",
    );
    assert_eq!(constants_of(&project, &[flat]), expected);
    // Names down a column, values beside them, a notes column marked `#`.
    let down = sheet_workbook(
        dir.path(),
        "consts.xlsx",
        "constants",
        &[
            &["name", "value", "# note"],
            &["bag_size", "40", "slots"],
            &["# a comment row", "", ""],
            &["welcome", "ようこそ", ""],
            &["start_items", "1|2", ""],
            &["event_end", "", ""],
        ],
    );
    assert_eq!(constants_of(&project, &[down]), expected);
    // Luban's: `##column` marks it, `##type` and `##` columns are notes, the values in
    // the first column that is not.
    let luban = sheet_workbook(
        dir.path(),
        "luban.xlsx",
        "constants",
        &[
            &["##var#column", "##type", "##", ""],
            &["", "", "描述", "具体参数"],
            &["bag_size", "int", "背包", "40"],
            &["welcome", "text", "", "ようこそ"],
            &["start_items", "list,int", "", "1|2"],
            &["event_end", "date", "", ""],
        ],
    );
    assert_eq!(constants_of(&project, &[luban]), expected);
}

#[test]
fn a_vertical_singletons_mistakes_name_their_cells() {
    let project = project();
    let dir = tempfile::tempdir().unwrap();
    let path = sheet_workbook(
        dir.path(),
        "consts.xlsx",
        "constants",
        &[
            &["##column", "##", ""],
            &["bag_size", "", "0"],
            &["welcome", "", "ようこそ"],
            &["start_item", "", "1|2"],
            &["event_end", "", ""],
        ],
    );
    let validation = validate(&project, &[path]);
    let found: Vec<String> = errors(&validation).iter().map(|d| d.to_string()).collect();
    // The value below its minimum is at C2, beside its name; the misspelt name is A4.
    assert!(
        found
            .iter()
            .any(|e| e.contains("constants!C2") && e.contains("below the minimum")),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|e| e.contains("constants!A4") && e.contains("row `start_item` is not a field")),
        "{found:#?}"
    );
}

#[test]
fn a_singleton_of_two_records_or_none_is_refused_with_its_rows() {
    let project = project();
    let dir = tempfile::tempdir().unwrap();
    let two = write(
        dir.path(),
        "constants.csv",
        "bag_size,welcome,start_items,event_end\n40,a,1,\n50,b,2,\n",
    );
    let validation = validate(&project, &[two]);
    let found: Vec<String> = errors(&validation).iter().map(|d| d.to_string()).collect();
    assert!(
        found
            .iter()
            .any(|e| e.contains("constants.csv:3") && e.contains("holds one record")),
        "{found:#?}"
    );
    let none = write(
        dir.path(),
        "constants.csv",
        "bag_size,welcome,start_items,event_end\n",
    );
    let validation = validate(&project, &[none]);
    let found: Vec<String> = errors(&validation).iter().map(|d| d.to_string()).collect();
    assert!(
        found.iter().any(|e| e.contains("has no record")),
        "{found:#?}"
    );
}

#[test]
fn a_list_keeps_its_rows_in_order_and_repeats_are_no_error() {
    let project = project();
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "login_bonus.csv",
        "item_id,count\n5,1\n3,2\n5,1\n1,10\n",
    );
    let validation = validate(&project, &[path]);
    assert!(errors(&validation).is_empty(), "{:#?}", validation.report);
    let table = &validation.tables[0];
    let schema = project.table("login_bonus").unwrap();
    let canonical = masterctl_schemas::canonical::table_csv(schema, table).expect("written");
    assert_eq!(
        String::from_utf8(canonical).unwrap(),
        "item_id,count\n5,1\n3,2\n5,1\n1,10\n"
    );
}

#[test]
fn what_a_kind_may_not_have_is_refused_when_the_schemas_load() {
    let refused =
        |name: &str, text: &str, expected: &str| refused_at_load(CONFIG, &[(name, text)], expected);
    refused(
        "a.toml",
        &CONSTANTS.replace("kind = \"singleton\"", "kind = \"singelton\""),
        "did you mean `singleton`?",
    );
    refused(
        "a.toml",
        &CONSTANTS.replace(
            "kind = \"singleton\"",
            "kind = \"singleton\"\nprimary_key = [\"bag_size\"]",
        ),
        "a singleton has no primary_key",
    );
    refused(
        "a.toml",
        &(CONSTANTS.to_string() + "\n[[indexes]]\nfields = [\"bag_size\"]\n"),
        "a singleton has one record: it has no indexes",
    );
    refused(
        "a.toml",
        &CONSTANTS.replace("kind = \"singleton\"", "kind = \"list\""),
        "a list has no key to keep translations by, and field `welcome` is text",
    );
    refused(
        "a.toml",
        &CONSTANTS.replace("kind = \"singleton\"\n", ""),
        "`kind = \\\"singleton\\\"` for one record",
    );
    // A reverse lookup names rows by key: a list is neither its target nor a source.
    let files = [
        ("login_bonus.toml", BONUS),
        (
            "by_item.toml",
            "name = \"by_item\"\n[reverse]\ntarget = \"login_bonus\"\nsources = [{ table = \"login_bonus\", field = \"item_id\" }]\n",
        ),
    ];
    refused_at_load(CONFIG, &files, "reverse target `login_bonus` is a list");
}

#[test]
fn lubans_own_vertical_sheets_read_as_singletons() {
    // Luban's example global constants: `##column` in A1, `##` notes, values in D.
    let global = third_party().join("luban-examples/DataTables/Datas/test/global.xlsx");
    let schema = "name = \"global\"\nkind = \"singleton\"\nsheet = \"TbGlobalConfig\"\n\n[[fields]]\nname = \"unlock_equip\"\ntype = \"int\"\n\n[[fields]]\nname = \"unlock_hero\"\ntype = \"int\"\n";
    let project = load_texts(CONFIG, &[("global.toml", schema)]).unwrap();
    let validation = validate(&project, &[global]);
    assert!(errors(&validation).is_empty(), "{:#?}", validation.report);
    let row: Vec<String> = validation.tables[0].row(0).map(Value::to_string).collect();
    assert_eq!(row, ["10", "20"]);
}

/// A project of one table, `team_rules`, keyed by `max_members`, of these `fields`.
fn team_rules(fields: &str) -> Project {
    let schema =
        format!("name = \"team_rules\"\nprimary_key = [\"max_members\"]\nfields = {fields}\n");
    load_texts(CONFIG, &[("team_rules.toml", &schema)]).unwrap()
}

/// A keyed table written down a column, as Luban writes one (`##column#var`, a record
/// per values column beside the names, `##type` and `##` columns notes): a record per
/// column, keyed; a sheet not marked so stays a table of rows.
#[test]
fn a_keyed_table_written_down_a_column_has_a_record_per_values_column() {
    let project = team_rules(
        r#"[{ name = "max_members", type = "int" }, { name = "invite_max", type = "int" }, { name = "cross_server", type = "bool" }]"#,
    );
    let dir = tempfile::tempdir().unwrap();
    // The sheet, its second record's `invite_max` as given.
    let sheet = |file: &str, invite: &str| {
        let names = ["max_members", "invite_max", "cross_server"];
        let records = [["5", "10", "true"], ["8", invite, "false"]];
        let mut rows: Vec<Vec<&str>> = vec![
            vec!["##column#var", "##type", "##", "", ""],
            vec!["", "", "描述", "具体参数", ""],
        ];
        for (i, name) in names.iter().enumerate() {
            rows.push(vec![name, "", "", records[0][i], records[1][i]]);
        }
        let rows: Vec<&[&str]> = rows.iter().map(Vec::as_slice).collect();
        sheet_workbook(dir.path(), file, "team_rules", &rows)
    };
    let validation = validate(&project, &[sheet("team.xlsx", "12")]);
    assert_eq!(passed_rows(&validation), ["5,10,true", "8,12,false"]);
    // A mistake names its cell as the sheet numbers it: the record's column, the field's row.
    let validation = validate(&project, &[sheet("wrong.xlsx", "many")]);
    let found: Vec<String> = errors(&validation).iter().map(|d| d.to_string()).collect();
    assert!(
        found.iter().any(|e| e.contains("team_rules!E4")),
        "{found:#?}"
    );
}

/// A keyed table written down a column whose multi-row list goes on in the rows below
/// its name: each record's list takes the values of its own column, at their cells.
#[test]
fn a_keyed_vertical_tables_multi_row_list_goes_on_in_each_records_column() {
    let project = team_rules(
        r#"[
    { name = "max_members", type = "int" },
    { name = "rewards", type = "list<int>", multi_row = true, optional = true, min = 1 },
    { name = "cross_server", type = "bool" },
]"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let sheet = |file: &str, last: &str| {
        let rows: [&[&str]; 7] = [
            &["##column#var", "##type", "", ""],
            &["max_members", "", "5", "8"],
            &["*rewards", "", "1", "7"],
            &["", "", "2", ""],
            &["", "", "", last],
            &["", "", "", ""],
            &["cross_server", "", "true", "false"],
        ];
        sheet_workbook(dir.path(), file, "team_rules", &rows)
    };
    let validation = validate(&project, &[sheet("team.xlsx", "9")]);
    assert_eq!(passed_rows(&validation), ["5,1|2,true", "8,7|9,false"]);
    // A mistake in a record's own going-on cell is said there.
    let validation = validate(&project, &[sheet("wrong.xlsx", "0")]);
    let found: Vec<String> = errors(&validation).iter().map(|d| d.to_string()).collect();
    assert!(
        found.iter().any(|e| e.contains("team_rules!D5")),
        "{found:#?}"
    );
}
