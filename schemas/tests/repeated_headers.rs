//! A list spread over columns that repeat its header (tabtoy's `BuffID`, `BuffID`;
//! `repeated_header = true`) or that its header spans (Luban's header merged over five
//! columns; `column_span = 5`): one list of every such column's elements in column
//! order, each checked at its own cell; a draft of such a sheet reads it back.

use std::path::PathBuf;

use crate::common::{
    CONFIG, errors, file_of, load_texts, one_sheet, passed_rows, refused_at_load, validate,
};
use masterctl_schemas::Project;
use masterctl_schemas::diagnostic::Code;

/// Monsters whose buffs the sheet spreads over repeated `BuffID` headers.
const MONSTER: &str = r#"
name = "monster"
primary_key = ["id"]
fields = [
    { name = "id", type = "int" },
    { name = "name", type = "string" },
    { name = "buffs", type = "list<int>", column = "BuffID", repeated_header = true, optional = true, min = 1 },
]
"#;

fn project(schema: &str) -> Project {
    load_texts(CONFIG, &[("monster.toml", schema)]).unwrap()
}

/// Each error's code and cell, validating a workbook of `rows` against `schema`.
fn errors_at(schema: &str, rows: &[&[&str]]) -> Vec<(Code, String)> {
    let (_dir, path) = one_sheet("monster", rows);
    let validation = validate(&project(schema), &[path]);
    errors(&validation)
        .iter()
        .map(|d| (d.code, d.location.cell.clone().unwrap_or_default()))
        .collect()
}

#[test]
fn a_list_over_repeated_headers_is_every_columns_elements_in_order() {
    let project = project(MONSTER);
    // The columns need not stand together; a cell may hold several elements.
    let (_dir, path) = file_of(
        "monster.csv",
        b"id,BuffID,name,BuffID,BuffID\n\
          1,3,Slime,1|2,\n\
          2,,Bat,,\n\
          3,,Wolf,,7\n",
    );
    let validation = validate(&project, &[path]);
    assert_eq!(
        passed_rows(&validation),
        ["1,Slime,3|1|2", "2,Bat,", "3,Wolf,7"]
    );
    // Numbers typed into a workbook's cells alike.
    let (_dir, path) = one_sheet(
        "monster",
        &[
            &["id", "BuffID", "BuffID", "name"],
            &["1", "10", "20", "Slime"],
        ],
    );
    assert_eq!(passed_rows(&validate(&project, &[path])), ["1,Slime,10|20"]);
}

#[test]
fn each_element_is_checked_at_its_own_cell() {
    let rows: &[&[&str]] = &[
        &["id", "BuffID", "name", "BuffID"],
        &["1", "3", "Slime", "x"],
        &["2", "0", "Bat", "4"],
        &["3", "", "Wolf", ""],
    ];
    // A required list all of whose columns are empty: said once, at its first column.
    assert_eq!(
        errors_at(&MONSTER.replace(", optional = true", ""), rows),
        [
            (Code::TypeError, "D2".to_string()),
            (Code::OutOfRange, "B3".to_string()),
            (Code::Required, "B4".to_string()),
        ]
    );
}

#[test]
fn a_repeated_header_without_the_option_is_a_duplicate_and_the_option_fits_lists_only() {
    let rows: &[&[&str]] = &[
        &["id", "BuffID", "name", "BuffID"],
        &["1", "3", "Slime", "4"],
    ];
    assert_eq!(
        errors_at(&MONSTER.replace(", repeated_header = true", ""), rows),
        [(Code::DuplicateColumn, "D1".to_string())]
    );
    let not_a_list = MONSTER.replace("type = \"list<int>\"", "type = \"int\"");
    refused_at_load(CONFIG, &[("monster.toml", &not_a_list)], "is not a list");
    let multi_row = MONSTER.replace(
        "repeated_header = true",
        "repeated_header = true, multi_row = true",
    );
    refused_at_load(
        CONFIG,
        &[("monster.toml", &multi_row)],
        "is multi_row or has a column_offset",
    );
}

/// `schema infer` drafts a header the sheet repeats as one list over its columns, and
/// the draft reads the sheet back.
#[test]
fn a_draft_reads_a_repeated_header_as_one_list() {
    let (_dir, path) = file_of(
        "monster.csv",
        b"id,BuffID,name,BuffID,BuffID\n\
          1,3,Slime,1,\n\
          2,,Bat,,\n\
          3,,Wolf,,7\n",
    );
    let drafts = masterctl_migrate::infer::infer_file(&path).unwrap();
    let buffs = drafts[0]
        .fields
        .iter()
        .find(|f| f.spelling.as_deref() == Some("BuffID"))
        .unwrap();
    assert_eq!(
        (buffs.ty.as_str(), buffs.repeated_header, buffs.optional),
        ("list<int>", true, true)
    );
    assert_eq!(drafts[0].fields.len(), 3);
    let schema = drafts[0].to_toml();
    assert!(schema.contains("repeated_header = true"), "{schema}");
    let project = project(&schema);
    let paths: Vec<PathBuf> = vec![path];
    assert_eq!(
        passed_rows(&validate(&project, &paths)),
        ["1,3|1,Slime", "2,,Bat", "3,7,Wolf"]
    );
}

/// Luban's list over the columns its header spans (the header's cell merged over them,
/// the others empty): `column_span`, each element at its cell; an empty cell adds none.
#[test]
fn a_list_over_the_columns_its_header_spans_is_one_list() {
    let spanned = MONSTER.replace("repeated_header = true", "column_span = 3");
    let rows: &[&[&str]] = &[
        &["id", "BuffID", "", "", "name"],
        &["1", "3", "", "4", "Slime"],
        &["2", "", "", "", "Bat"],
    ];
    let (_dir, path) = one_sheet("monster", rows);
    assert_eq!(
        passed_rows(&validate(&project(&spanned), &[path])),
        ["1,Slime,3|4", "2,Bat,"]
    );
    let wrong: &[&[&str]] = &[
        &["id", "BuffID", "", "", "name"],
        &["1", "3", "0", "x", "Slime"],
    ];
    assert_eq!(
        errors_at(&spanned, wrong),
        [
            (Code::OutOfRange, "C2".to_string()),
            (Code::TypeError, "D2".to_string()),
        ]
    );
    for (option, said) in [
        ("column_span = 1", "two columns or more"),
        (
            "column_span = 3, multi_row = true",
            "a multi-row list spread over columns holds records or unions",
        ),
    ] {
        let refused = MONSTER.replace("repeated_header = true", option);
        refused_at_load(CONFIG, &[("monster.toml", &refused)], said);
    }
    let scalar = spanned.replace("type = \"list<int>\"", "type = \"int\"");
    refused_at_load(
        CONFIG,
        &[("monster.toml", &scalar)],
        "is neither a list nor a record or union",
    );
}
