//! An exported workbook helps the planner who edits it: the header frozen, each
//! column sized, the field's description and rules as the header's note, a drop-down
//! of an enum's values and of the keys of a referenced table (on another sheet of the
//! workbook, or in another workbook).
//! And none of it is data: the workbook imports back as nothing changed.

use crate::common::{CONFIG, Studio};
use masterctl_store::export::{self, Format};
use masterctl_store::import::ImportOutcome;

const CATEGORY: &str = "name = \"category\"\nprimary_key = [\"id\"]\nsource = \"items.xlsx#Category\"\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"string\"\n";
const ITEM: &str = "name = \"item\"\nprimary_key = [\"id\"]\nsource = \"items.xlsx#Item\"\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"category\"\ntype = \"int\"\nreferences = \"category.id\"\ndescription = \"どの分類の道具か\"\n\n[[fields]]\nname = \"rarity\"\ntype = \"enum\"\nvalues = [\"common\", \"rare\"]\n\n[[fields]]\nname = \"price\"\ntype = \"int\"\nmin = 0\nmax = 9999\n";

const CATEGORIES: &[&[&str]] = &[&["id", "name"], &["1", "武器"], &["2", "防具"]];
const ITEMS: &[&[&str]] = &[
    &["id", "category", "rarity", "price"],
    &["10", "1", "common", "100"],
    &["11", "2", "rare", "2500"],
];

/// A sheet `name` of `rows` in `book` (below the header, a cell that reads as a number
/// written as one).
fn add_sheet(book: &mut rust_xlsxwriter::Workbook, name: &str, rows: &[&[&str]]) {
    let sheet = book.add_worksheet().set_name(name).unwrap();
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            match cell.parse::<f64>() {
                Ok(n) if r > 0 => sheet.write_number(r as u32, c as u16, n).map(drop),
                _ => sheet.write(r as u32, c as u16, *cell).map(drop),
            }
            .unwrap();
        }
    }
}

/// The XML part `name` of the xlsx at `path`.
fn part(path: &std::path::Path, name: &str) -> String {
    masterctl_testing::zip_part(&std::fs::read(path).unwrap(), name)
}

#[test]
fn an_exported_workbook_has_notes_drop_downs_and_a_frozen_header_and_imports_back_unchanged() {
    let studio = Studio::with_schemas(CONFIG, &[("category", CATEGORY), ("item", ITEM)]);
    let workbooks = tempfile::tempdir().unwrap();
    let mut book = rust_xlsxwriter::Workbook::new();
    add_sheet(&mut book, "Category", CATEGORIES);
    add_sheet(&mut book, "Item", ITEMS);
    let source = workbooks.path().join("items.xlsx");
    book.save(&source).unwrap();
    assert!(matches!(
        studio.import("jp", &source, |_| {}).unwrap(),
        ImportOutcome::Committed { .. }
    ));

    let out = tempfile::tempdir().unwrap();
    let repo = studio.repo();
    let line = studio.region("jp");
    let data = export::export_region(&repo, &line, None, &[]).unwrap();
    assert_eq!(
        data.workbooks.len(),
        1,
        "one workbook for the source both name"
    );
    let item = &data.workbooks[0].sheets[1];
    assert_eq!(item.table, "item");
    assert_eq!(
        item.looks[1].choices,
        export::Choices::Range("'Category'!$A$2:$A$3".into())
    );
    assert_eq!(
        item.looks[2].choices,
        export::Choices::Values(vec!["common".into(), "rare".into()])
    );
    let note = item.looks[1].note.as_deref().unwrap();
    assert_eq!(note, "どの分類の道具か\nint, needed, a row of category");
    assert_eq!(item.looks[3].note.as_deref(), Some("int, 0–9999, needed"));
    export::write(&data, out.path(), Format::Xlsx).unwrap();
    let written = out.path().join("items.xlsx");

    // In the file: the Item sheet (the second) frozen under its header, with its
    // drop-downs, and the notes.
    let sheet = part(&written, "xl/worksheets/sheet2.xml");
    assert!(sheet.contains("ySplit=\"1\""), "{sheet}");
    assert!(
        sheet.contains("<formula1>'Category'!$A$2:$A$3</formula1>"),
        "{sheet}"
    );
    assert!(
        sheet.contains("<formula1>\"common,rare\"</formula1>"),
        "{sheet}"
    );
    assert!(sheet.contains("<col "), "{sheet}");
    let notes = part(&written, "xl/comments2.xml");
    assert!(notes.contains("どの分類の道具か"), "{notes}");

    // Imported back: nothing changed.
    assert!(matches!(
        studio.import("jp", &written, |_| {}).unwrap(),
        ImportOutcome::Unchanged(_)
    ));
}

#[test]
fn a_reference_to_a_table_of_another_workbook_drops_down_its_keys() {
    let category = CATEGORY.replace("items.xlsx#Category", "categories.xlsx#Category");
    let studio = Studio::with_schemas(CONFIG, &[("category", &category), ("item", ITEM)]);
    let workbooks = tempfile::tempdir().unwrap();
    for (file, sheet, rows) in [
        ("categories.xlsx", "Category", CATEGORIES),
        ("items.xlsx", "Item", ITEMS),
    ] {
        let mut book = rust_xlsxwriter::Workbook::new();
        add_sheet(&mut book, sheet, rows);
        book.save(workbooks.path().join(file)).unwrap();
    }
    assert!(matches!(
        studio.import("jp", workbooks.path(), |_| {}).unwrap(),
        ImportOutcome::Committed { .. }
    ));
    let data = export::export_region(&studio.repo(), &studio.region("jp"), None, &[]).unwrap();
    assert_eq!(data.workbooks.len(), 2);
    let items = data
        .workbooks
        .iter()
        .find(|w| w.path == "items.xlsx")
        .unwrap();
    assert_eq!(
        items.sheets[0].looks[1].choices,
        export::Choices::Values(vec!["1".into(), "2".into()]),
        "the category's keys, from the other workbook"
    );
    let out = tempfile::tempdir().unwrap();
    export::write(&data, out.path(), Format::Xlsx).unwrap();
    let sheet = part(&out.path().join("items.xlsx"), "xl/worksheets/sheet1.xml");
    assert!(sheet.contains("<formula1>\"1,2\"</formula1>"), "{sheet}");
    assert!(matches!(
        studio.import("jp", out.path(), |_| {}).unwrap(),
        ImportOutcome::Unchanged(_)
    ));
}
