//! A table over several sheets of one workbook (`source = "cards.xlsx#*"`, a
//! `source_sheet` field): imported as one table, exported with each row on its sheet,
//! and imported back as nothing changed; a reference into it drops down the keys of
//! every sheet.

use crate::common::{CONFIG, Studio};
use masterctl_store::export::{self, Cell, Format};
use masterctl_store::import::ImportOutcome;

/// Cards over the packs' sheets, each row's pack in `pack`; decks name a card.
const CARD: &str = "name = \"card\"\nsource = \"cards.xlsx#*\"\nprimary_key = [\"id\"]\n\n\
    [[fields]]\nname = \"id\"\ntype = \"int\"\n\n\
    [[fields]]\nname = \"power\"\ntype = \"int\"\n\n\
    [[fields]]\nname = \"pack\"\ntype = \"string\"\nsource_sheet = true\naudience = [\"design\"]\n";
const DECK: &str = "name = \"deck\"\nsource = \"decks.xlsx\"\nprimary_key = [\"slot\"]\n\n\
    [[fields]]\nname = \"slot\"\ntype = \"int\"\n\n\
    [[fields]]\nname = \"card\"\ntype = \"int\"\nreferences = \"card.id\"\n";

#[test]
fn each_row_is_exported_to_its_sheet_and_imports_back_unchanged() {
    let studio = Studio::with_schemas(CONFIG, &[("card", CARD), ("deck", DECK)]);
    let workbooks = tempfile::tempdir().unwrap();
    let mut book = rust_xlsxwriter::Workbook::new();
    for (name, rows) in [
        ("Items", [[1, 50], [3, 70]]),
        ("Gems", [[2, 400], [11, 900]]),
    ] {
        let sheet = book.add_worksheet().set_name(name).unwrap();
        sheet.write_row(0, 0, ["id", "power"]).unwrap();
        for (r, row) in rows.iter().enumerate() {
            sheet
                .write_row(r as u32 + 1, 0, row.map(f64::from))
                .unwrap();
        }
    }
    book.save(workbooks.path().join("cards.xlsx")).unwrap();
    let mut decks = rust_xlsxwriter::Workbook::new();
    let sheet = decks.add_worksheet();
    sheet.write_row(0, 0, ["slot", "card"]).unwrap();
    sheet.write_row(1, 0, [1.0, 11.0]).unwrap();
    decks.save(workbooks.path().join("decks.xlsx")).unwrap();
    let imported = studio.import("jp", workbooks.path(), |_| {}).unwrap();
    assert!(matches!(imported, ImportOutcome::Committed { .. }));

    let data = export::export_region(&studio.repo(), &studio.region("jp"), None, &[]).unwrap();
    let workbook = |path: &str| data.workbooks.iter().find(|w| w.path == path).unwrap();
    // Each pack's cards on its sheet, under the same header (no column for the pack).
    let cards = workbook("cards.xlsx");
    let header = ["id".to_string(), "power".to_string()];
    assert!(cards.sheets.iter().all(|s| s.header == header));
    let laid_out: Vec<(&str, Vec<Vec<Cell>>)> = (cards.sheets.iter())
        .map(|s| {
            (
                s.name.as_str(),
                s.rows.iter().map(|r| r.cells().collect()).collect(),
            )
        })
        .collect();
    let row = |id: f64, power: f64| vec![Cell::Number(id), Cell::Number(power)];
    assert_eq!(
        laid_out,
        [
            ("Items", vec![row(1.0, 50.0), row(3.0, 70.0)]),
            ("Gems", vec![row(2.0, 400.0), row(11.0, 900.0)]),
        ]
    );
    // The deck's card drops down every sheet's keys (no one range holds them).
    assert_eq!(
        workbook("decks.xlsx").sheets[0].looks[1].choices,
        export::Choices::Values(["1", "3", "2", "11"].map(String::from).to_vec())
    );

    let out = tempfile::tempdir().unwrap();
    export::write(&data, out.path(), Format::Xlsx).unwrap();
    let again = studio.import("jp", out.path(), |_| {}).unwrap();
    assert!(matches!(again, ImportOutcome::Unchanged(_)), "{again:?}");
    // As CSV files: one per sheet, named after its workbook and sheet, mapped back.
    let csv = tempfile::tempdir().unwrap();
    let written = export::write(&data, csv.path(), Format::Csv).unwrap();
    let mut files: Vec<&str> = written.files.iter().map(|f| f.path.as_str()).collect();
    files.sort();
    assert_eq!(
        files,
        ["cards#Gems.csv", "cards#Items.csv", "decks#deck.csv"]
    );
    let again = studio.import("jp", csv.path(), |_| {}).unwrap();
    assert!(matches!(again, ImportOutcome::Unchanged(_)), "{again:?}");
}
