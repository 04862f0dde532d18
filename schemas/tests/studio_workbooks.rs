//! Workbooks as studios write them: headers in the planners' own language (`column`).

mod common;

use common::*;
use masterctl_schemas::{Code, Project, Value};

const CONFIG: &str = "source_language = \"ja\"\nlanguages = [\"ja\"]\n";

fn load(schemas: &[(&str, &str)]) -> Result<Project, Vec<masterctl_schemas::Diagnostic>> {
    load_texts(CONFIG, schemas)
}

/// `files` (name, CSV text) validated against `project`.
fn validate_files(project: &Project, files: &[(&str, &str)]) -> masterctl_schemas::Validation {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    validate(project, &[dir.path().to_path_buf()])
}

const ITEM: &str = r#"name = "item"
sheet = "アイテム"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"
column = "アイテムID"

[[fields]]
name = "name"
type = "string"
column = ["名前", "Name"]

[[fields]]
name = "price"
type = "int"
"#;

#[test]
fn headers_in_the_planners_language_name_their_fields() {
    let project = load(&[("item.toml", ITEM)]).unwrap();
    let item = project.table("item").unwrap();
    assert_eq!(item.fields[1].columns, ["名前", "Name"]);
    // Either spelling, or the field's name, heads the column.
    for header in [
        "アイテムID,名前,price",
        "id,Name,price",
        "アイテムID,name,price",
    ] {
        let csv = format!("{header}\n1,鉄の剣,100\n2,鋼の剣,250\n");
        let v = validate_files(&project, &[("アイテム.csv", &csv)]);
        assert!(
            !v.report.has_errors(),
            "{header}: {:#?}",
            v.report.diagnostics
        );
        let table = &v.tables[0];
        assert_eq!(table.row_count(), 2);
        assert_eq!(table.columns[1][1], Value::Str("鋼の剣".into()));
    }
    // A column given twice under two spellings is a duplicate.
    let v = validate_files(
        &project,
        &[("アイテム.csv", "アイテムID,名前,Name,price\n1,a,a,1\n")],
    );
    assert_eq!(only_error(&v).code, Code::DuplicateColumn);
    // A missing column names every spelling it would take.
    let v = validate_files(&project, &[("アイテム.csv", "アイテムID,price\n1,1\n")]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::MissingColumn);
    assert_eq!(
        d.message,
        "the header has no column `name` or `名前` or `Name`"
    );
    // No header at all: the rows looked at, the spellings expected.
    let v = validate_files(&project, &[("アイテム.csv", "番号,名,値段\n1,a,1\n")]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::MissingHeader);
    assert_eq!(
        d.expected.as_deref(),
        Some("a header row naming the fields: id (アイテムID), name (名前, Name), price")
    );
}

#[test]
fn a_header_names_one_field_and_a_spelling_is_one_line() {
    let twice = ITEM.replace(
        "column = [\"名前\", \"Name\"]",
        "column = [\"名前\", \"price\"]",
    );
    let errors = load(&[("item.toml", &twice)]).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, Code::DuplicateName);
    assert_eq!(
        errors[0].message,
        "the header `price` would name both `price` and `name`"
    );
    for (bad, says) in [
        ("column = \"\"", "has column an empty header"),
        (
            "column = \" ID\"",
            "a header is matched trimmed, on one line",
        ),
        (
            "column = \"ID\\nfirst\"",
            "a header is matched trimmed, on one line",
        ),
        ("column = [\"ID\", \"ID\"]", "has column `ID` twice"),
        ("column = 3", "a header (a string) or a list of headers"),
    ] {
        let schema = ITEM.replace("column = \"アイテムID\"", bad);
        let errors = load(&[("item.toml", &schema)]).unwrap_err();
        assert!(
            errors.iter().any(|e| e.message.contains(says)),
            "{bad}: {errors:#?}"
        );
    }
}

#[test]
fn drafts_of_a_workbook_with_japanese_headers_read_it_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("items.csv");
    std::fs::write(
        &csv,
        "アイテムID,名前,カテゴリ,Price\n1,鉄の剣,武器,100\n2,鋼の剣,武器,250\n3,皮の盾,防具,80\n4,薬草,道具,10\n5,毒消し,道具,12\n",
    )
    .unwrap();
    let drafts = masterctl_schemas::infer::infer_file(&csv).unwrap();
    let toml = drafts[0].to_toml();
    assert!(toml.contains("column = \"アイテムID\""), "{toml}");
    assert!(toml.contains("column = \"Price\""), "{toml}");
    assert!(!toml.contains("rename the header"), "{toml}");
    let schemas = dir.path().join("schemas");
    std::fs::create_dir(&schemas).unwrap();
    std::fs::write(schemas.join("items.toml"), &toml).unwrap();
    let project = masterctl_schemas::load::load_schemas_dir(&schemas).unwrap();
    let v = validate(&project, &[csv]);
    assert!(
        !v.report.has_errors(),
        "{toml}\n{:#?}",
        v.report.diagnostics
    );
    assert_eq!(v.tables[0].row_count(), 5);
    // The category words are an enum, in the planners' words.
    let category = &project.table("items").unwrap().fields[2];
    assert_eq!(category.values.len(), 3);
}
