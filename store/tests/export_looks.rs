//! An exported workbook helps the planner who edits it: the header frozen, each
//! column sized, the field's description and rules as the header's note, a drop-down
//! of an enum's values and of the keys of a table on another sheet of the workbook.
//! And none of it is data: the workbook imports back as nothing changed.

use std::io::Read;

use crate::common::{CONFIG, Studio};
use masterctl_store::export::{self, Format};
use masterctl_store::import::ImportOutcome;

const CATEGORY: &str = "name = \"category\"\nprimary_key = [\"id\"]\nsource = \"items.xlsx#Category\"\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"string\"\n";
const ITEM: &str = "name = \"item\"\nprimary_key = [\"id\"]\nsource = \"items.xlsx#Item\"\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"category\"\ntype = \"int\"\nreferences = \"category.id\"\ndescription = \"どの分類の道具か\"\n\n[[fields]]\nname = \"rarity\"\ntype = \"enum\"\nvalues = [\"common\", \"rare\"]\n\n[[fields]]\nname = \"price\"\ntype = \"int\"\nmin = 0\nmax = 9999\n";

/// The XML part `name` of the xlsx at `path`.
fn part(path: &std::path::Path, name: &str) -> String {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut text = String::new();
    archive
        .by_name(name)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    text
}

#[test]
fn an_exported_workbook_has_notes_drop_downs_and_a_frozen_header_and_imports_back_unchanged() {
    let studio = Studio::with_schemas(CONFIG, &[("category", CATEGORY), ("item", ITEM)]);
    let workbooks = tempfile::tempdir().unwrap();
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet().set_name("Category").unwrap();
    for (r, row) in [["id", "name"], ["1", "武器"], ["2", "防具"]]
        .iter()
        .enumerate()
    {
        for (c, cell) in row.iter().enumerate() {
            sheet.write(r as u32, c as u16, *cell).unwrap();
        }
    }
    let sheet = book.add_worksheet().set_name("Item").unwrap();
    for (r, row) in [
        ["id", "category", "rarity", "price"],
        ["10", "1", "common", "100"],
        ["11", "2", "rare", "2500"],
    ]
    .iter()
    .enumerate()
    {
        for (c, cell) in row.iter().enumerate() {
            match cell.parse::<f64>() {
                Ok(n) if r > 0 => sheet.write_number(r as u32, c as u16, n).map(drop),
                _ => sheet.write(r as u32, c as u16, *cell).map(drop),
            }
            .unwrap();
        }
    }
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
    export::write_workbooks(&data, out.path(), Format::Xlsx).unwrap();
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
