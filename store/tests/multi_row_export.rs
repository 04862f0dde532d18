//! Multi-row lists exported as the sheets write them (`multi_row`, Luban's `*field`): the
//! first element on its record's row, each other on a row of its own below (key cells
//! empty), and the workbook imports back as nothing changed, as xlsx and as CSV.

use crate::common::{CONFIG, Studio};
use masterctl_store::export::{self, Cell, Format};
use masterctl_store::import::ImportOutcome;

const QUEST: &str = "name = \"quest\"\nprimary_key = [\"id\"]\n\n\
    [[fields]]\nname = \"id\"\ntype = \"int\"\n\n\
    [[fields]]\nname = \"title\"\ntype = \"string\"\n\n\
    [[fields]]\nname = \"rewards\"\ntype = \"list<int>\"\nmulti_row = true\noptional = true\n\n\
    [[fields]]\nname = \"steps\"\ntype = \"list<string>\"\nmulti_row = true\noptional = true\nseparator = \";\"\n";

#[test]
fn each_element_of_a_multi_row_list_is_exported_on_its_own_row() {
    let studio = Studio::with_schemas(CONFIG, &[("quest", QUEST)]);
    let sheets = tempfile::tempdir().unwrap();
    std::fs::write(
        sheets.path().join("quest.csv"),
        "id,title,*rewards,steps\n1,Slimes,5,talk\n,,6|7,fight\n2,Dragon,9,run;hide\n3,Bat,,\n",
    )
    .unwrap();
    let imported = studio.import("jp", sheets.path(), |_| {}).unwrap();
    assert!(
        matches!(imported, ImportOutcome::Committed { .. }),
        "{imported:?}"
    );

    let data = export::export_region(&studio.repo(), &studio.region("jp"), None, &[]).unwrap();
    let sheet = &data.workbooks[0].sheets[0];
    let laid_out: Vec<Vec<Cell>> = sheet.rows.iter().map(|r| r.cells().collect()).collect();
    let text = Cell::Text;
    assert_eq!(
        laid_out,
        [
            vec![Cell::Number(1.0), text("Slimes"), text("5"), text("talk")],
            vec![Cell::Empty, Cell::Empty, text("6"), text("fight")],
            vec![Cell::Empty, Cell::Empty, text("7"), Cell::Empty],
            vec![Cell::Number(2.0), text("Dragon"), text("9"), text("run")],
            vec![Cell::Empty, Cell::Empty, Cell::Empty, text("hide")],
            vec![Cell::Number(3.0), text("Bat"), Cell::Empty, Cell::Empty],
        ]
    );
    for format in [Format::Xlsx, Format::Csv] {
        let out = tempfile::tempdir().unwrap();
        export::write(&data, out.path(), format).unwrap();
        let again = studio.import("jp", out.path(), |_| {}).unwrap();
        assert!(matches!(again, ImportOutcome::Unchanged(_)), "{again:?}");
    }
}
