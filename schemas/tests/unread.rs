//! `[unread]`: a notes sheet beside a data sheet in one workbook is told in the one
//! `unread` warning, filed under that sheet — never under the workbook alone, whose data
//! sheet is read.

use crate::common::{CONFIG, errors, load_texts, validate};
use masterctl_schemas::diagnostic::Code;
use rust_xlsxwriter::Workbook;

const ITEM: &str = "name = \"item\"\nsheet = \"Item\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n";

#[test]
fn the_unread_warning_names_the_unread_sheet_not_the_workbook_it_is_in() {
    let config = format!("{CONFIG}\n[unread]\nnotes = [\"item.xlsx#Notes\"]\n");
    let project = load_texts(&config, &[("item.toml", ITEM)]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("item.xlsx");
    let mut workbook = Workbook::new();
    let item = workbook.add_worksheet().set_name("Item").unwrap();
    item.write_string(0, 0, "id").unwrap();
    item.write_number(1, 0, 1).unwrap();
    let notes = workbook.add_worksheet().set_name("Notes").unwrap();
    notes.write_string(0, 0, "what the columns mean").unwrap();
    workbook.save(&path).unwrap();
    let validation = validate(&project, std::slice::from_ref(&path));
    assert!(errors(&validation).is_empty(), "{:#?}", validation.report);
    assert_eq!(
        validation.tables[0].row_count(),
        1,
        "the data sheet is read"
    );
    let unread: Vec<_> = validation
        .report
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::Unread)
        .collect();
    assert_eq!(unread.len(), 1, "{unread:#?}");
    assert_eq!(
        unread[0].location.sheet.as_deref(),
        Some("Notes"),
        "{unread:#?}"
    );
    assert!(
        unread[0]
            .message
            .contains("1 notes sheet (item.xlsx#Notes)"),
        "{unread:#?}"
    );
}
