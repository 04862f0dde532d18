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
    let csv =
        "id,title,*rewards,steps\n1,Slimes,5,talk\n,,6|7,fight\n2,Dragon,9,run;hide\n3,Bat,,\n";
    let data = imported_and_exported(&studio, "quest.csv", csv);
    let laid_out = cells(&data);
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
    imports_back_unchanged(&studio, &data);
}

const CIRCLE: &str =
    "kind = \"record\"\nseparator = \":\"\n\n[[fields]]\nname = \"radius\"\ntype = \"float\"\n";
const TRIANGLE: &str = "kind = \"record\"\nseparator = \":\"\n\n\
    [[fields]]\nname = \"a\"\ntype = \"float\"\n\n\
    [[fields]]\nname = \"b\"\ntype = \"float\"\n\n\
    [[fields]]\nname = \"c\"\ntype = \"float\"\n";
const SHAPE: &str = "kind = \"union\"\nseparator = \":\"\ncases = [{ record = \"triangle\", names = [\"三角形\"] }, { record = \"circle\" }]\n";
const ZONE: &str = "name = \"zone\"\nprimary_key = [\"id\"]\n\n\
    [[fields]]\nname = \"id\"\ntype = \"int\"\n\n\
    [[fields]]\nname = \"shape\"\ntype = \"shape\"\noptional = true\ncolumn_span = 4\n\n\
    [[fields]]\nname = \"shapes\"\ntype = \"list<shape>\"\noptional = true\nmulti_row = true\ncolumn_span = 4\n";

/// A union over the columns its header spans (Luban's polymorphic bean over `三角形`,
/// `1`, `2`, `3`), on its row and one a row of a multi-row list: exported as its parts,
/// one a column, the case named by its record; imported back as nothing changed.
#[test]
fn a_union_over_columns_is_exported_as_its_parts_one_a_column() {
    let studio = Studio::with_schemas(
        CONFIG,
        &[
            ("circle", CIRCLE),
            ("triangle", TRIANGLE),
            ("shape", SHAPE),
            ("zone", ZONE),
        ],
    );
    let csv = "id,shape,,,,*shapes,,,\n\
         1,circle,2,,,三角形,1,2,3\n\
         ,,,,,circle,1.5,,\n\
         2,triangle:1:2:3,,,,,,,\n";
    let data = imported_and_exported(&studio, "zone.csv", csv);
    let laid_out = cells(&data);
    let (t, e, n) = (Cell::Text, Cell::Empty, Cell::Number);
    assert_eq!(
        laid_out,
        [
            [
                n(1.0),
                t("circle"),
                t("2"),
                e,
                e,
                t("triangle"),
                t("1"),
                t("2"),
                t("3")
            ],
            [e, e, e, e, e, t("circle"), t("1.5"), e, e],
            [n(2.0), t("triangle"), t("1"), t("2"), t("3"), e, e, e, e],
        ]
    );
    imports_back_unchanged(&studio, &data);
}

/// `csv` imported into region jp as the file `name`, then the region exported.
fn imported_and_exported(studio: &Studio, name: &str, csv: &str) -> export::Export {
    let sheets = tempfile::tempdir().unwrap();
    std::fs::write(sheets.path().join(name), csv).unwrap();
    let imported = studio.import("jp", sheets.path(), |_| {}).unwrap();
    assert!(
        matches!(imported, ImportOutcome::Committed { .. }),
        "{imported:?}"
    );
    export::export_region(&studio.repo(), &studio.region("jp"), None, &[]).unwrap()
}

/// The export's first sheet's cells, row by row.
fn cells(data: &export::Export) -> Vec<Vec<Cell<'_>>> {
    let sheet = &data.workbooks[0].sheets[0];
    sheet.rows.iter().map(|r| r.cells().collect()).collect()
}

/// The export written as xlsx, then as CSV, each imported back as nothing changed.
fn imports_back_unchanged(studio: &Studio, data: &export::Export) {
    for format in [Format::Xlsx, Format::Csv] {
        let out = tempfile::tempdir().unwrap();
        export::write(data, out.path(), format).unwrap();
        let again = studio.import("jp", out.path(), |_| {}).unwrap();
        assert!(matches!(again, ImportOutcome::Unchanged(_)), "{again:?}");
    }
}
