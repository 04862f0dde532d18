//! One table over several sheets of a workbook (Luban's `input` of a workbook whose
//! sheets together make a table): `source = "shop.xlsx#*"` or a list of its sheets, and
//! a `source_sheet` field holding each row's sheet, each mistake at its own sheet's cell.

use std::path::PathBuf;

use crate::common::{CONFIG, errors, load_texts, passed_rows, refused_at_load, validate, workbook};
use masterctl_schemas::Project;
use masterctl_schemas::diagnostic::Code;

/// Goods over the shop's sheets, each row's sheet in `shop`.
const GOODS: &str = r#"
name = "goods"
source = "shop.xlsx#*"
primary_key = ["id"]
fields = [
    { name = "id", type = "int" },
    { name = "price", type = "int", min = 1 },
    { name = "shop", type = "string", source_sheet = true },
]
"#;

/// `shop.xlsx`: a sheet per shop, each `(name, rows)`, numbers written as numbers.
fn shop(sheets: &[(&str, &[&[&str]])]) -> (tempfile::TempDir, PathBuf) {
    workbook("shop.xlsx", sheets)
}

fn project(schema: &str) -> Project {
    load_texts(CONFIG, &[("goods.toml", schema)]).unwrap()
}

const ITEMS: (&str, &[&[&str]]) = ("Items", &[&["id", "price"], &["1", "50"], &["2", "150"]]);

#[test]
fn every_sheet_of_the_workbook_is_one_table_and_each_row_keeps_its_sheet() {
    // Columns in another order on another sheet; a notes sheet (`#…`) is not read.
    let (_dir, path) = shop(&[
        ITEMS,
        ("Gems", &[&["price", "id"], &["400", "11"]]),
        ("#notes", &[&["anything"]]),
    ]);
    let validation = validate(&project(GOODS), &[path]);
    assert_eq!(
        passed_rows(&validation),
        ["1,50,Items", "2,150,Items", "11,400,Gems"]
    );
}

#[test]
fn a_mistake_is_at_its_own_sheets_cell() {
    let (_dir, path) = shop(&[
        ITEMS,
        ("Gems", &[&["price", "id"], &["400", "11"], &["0", "2"]]),
    ]);
    let validation = validate(&project(GOODS), &[path]);
    let found: Vec<(Code, String)> = errors(&validation)
        .iter()
        .map(|d| (d.code, d.location.place()))
        .collect();
    let at = |code: Code, place: &str| {
        assert!(
            found.iter().any(|(c, p)| *c == code && p.ends_with(place)),
            "{code:?} at {place}: {found:#?}"
        );
    };
    at(Code::OutOfRange, "Gems!A3");
    // The key 2 on both sheets: the second said where it is.
    at(Code::DuplicateKey, "Gems!B3");
}

#[test]
fn a_list_of_sheets_reads_those_only() {
    let named = GOODS.replace(
        "source = \"shop.xlsx#*\"",
        "source = [\"shop.xlsx#Items\", \"shop.xlsx#Gems\"]",
    );
    let (_dir, path) = shop(&[
        ITEMS,
        ("Gems", &[&["id", "price"], &["11", "400"]]),
        ("Old", &[&["id", "price"], &["99", "1"]]),
    ]);
    let validation = validate(&project(&named), &[path]);
    assert!(
        validation
            .report
            .diagnostics
            .iter()
            .any(|d| d.code == Code::UnmappedSheet && d.location.sheet.as_deref() == Some("Old")),
        "{:#?}",
        validation.report
    );
    let table = &validation.tables[0];
    assert_eq!(table.row_count(), 3);
}

#[test]
fn a_sheet_an_enum_does_not_name_is_said_at_the_sheet() {
    let enumerated = GOODS.replace(
        "type = \"string\", source_sheet",
        "type = \"enum\", values = [\"Items\"], source_sheet",
    );
    let (_dir, path) = shop(&[ITEMS, ("Gems", &[&["id", "price"], &["11", "400"]])]);
    let validation = validate(&project(&enumerated), &[path]);
    let found: Vec<String> = errors(&validation).iter().map(|d| d.to_string()).collect();
    assert!(
        found.len() == 1 && found[0].contains("Gems") && found[0].contains("source_sheet"),
        "{found:#?}"
    );
}

#[test]
fn several_sheets_need_one_field_to_hold_each_rows_sheet() {
    let refused = |schema: &str, said: &str| {
        refused_at_load(CONFIG, &[("goods.toml", schema)], said);
    };
    let unmarked = GOODS.replace(", source_sheet = true", "");
    refused(&unmarked, "no field holds each row's");
    let one_sheet = GOODS.replace("shop.xlsx#*", "shop.xlsx#Items");
    refused(&one_sheet, "is read from one sheet");
    let two_files = GOODS.replace(
        "source = \"shop.xlsx#*\"",
        "source = [\"shop.xlsx#Items\", \"gems.xlsx#Gems\"]",
    );
    refused(&two_files, "in one workbook");
    refused(
        &GOODS.replace("shop.xlsx#*", "shop.csv#*"),
        "it has one sheet",
    );
    let headed = GOODS.replace(
        "source_sheet = true",
        "source_sheet = true, column = \"Shop\"",
    );
    refused(&headed, "no column holds it");
    let number = GOODS.replace(
        "type = \"string\", source_sheet",
        "type = \"int\", source_sheet",
    );
    refused(&number, "is not a string or enum");
}
