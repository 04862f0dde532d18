//! Export writes the layouts import reads, and each workbook imports back as nothing
//! changed, as xlsx and as CSV: multi-row lists (`multi_row`, Luban's `*field`: the first
//! element on its record's row, each other on a row of its own below, key cells empty),
//! records and unions spread over columns, and vertical sheets (`layout = "vertical"`).

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

const RULES: &str = "name = \"rules\"\nkind = \"singleton\"\nlayout = \"vertical\"\n\n\
    [[fields]]\nname = \"max_stamina\"\ntype = \"int\"\n\n\
    [[fields]]\nname = \"motto\"\ntype = \"string\"\noptional = true\n\n\
    [[fields]]\nname = \"bonus\"\ntype = \"list<int>\"\nmulti_row = true\noptional = true\n";

const GUILD: &str = "name = \"guild\"\nprimary_key = [\"id\"]\nlayout = \"vertical\"\n\n\
    [[fields]]\nname = \"id\"\ntype = \"int\"\n\n\
    [[fields]]\nname = \"max_members\"\ntype = \"int\"\n\n\
    [[fields]]\nname = \"rank\"\ntype = \"enum\"\nvalues = [\"gold\", \"iron\"]\n\
    description = \"How the guild ranks\"\n";

const TIPS: &str = "name = \"tips\"\nkind = \"list\"\nlayout = \"vertical\"\n\n\
    [[fields]]\nname = \"tip\"\ntype = \"string\"\n";

/// A singleton, a keyed table and a list of `layout = "vertical"`, imported from sheets
/// laid out by rows, are exported as their studios write them: the marker `##column` first, each
/// field's name down the first column and each record's values in a column beside it (a
/// multi-row list whole in its cell); as CSV by rows. Each imports back as nothing
/// changed.
#[test]
fn a_vertical_table_is_exported_down_a_column() {
    let studio = Studio::with_schemas(
        CONFIG,
        &[("rules", RULES), ("guild", GUILD), ("tips", TIPS)],
    );
    let sheets = tempfile::tempdir().unwrap();
    std::fs::write(
        sheets.path().join("rules.csv"),
        "max_stamina,motto,*bonus\n120,\"go, go\",1\n,,2|3\n",
    )
    .unwrap();
    std::fs::write(
        sheets.path().join("guild.csv"),
        "id,max_members,rank\n8,20,gold\n5,10,iron\n",
    )
    .unwrap();
    // A list keeps its rows' order, a column each.
    std::fs::write(sheets.path().join("tips.csv"), "tip\nrest\neat\nsave\n").unwrap();
    let imported = studio.import("jp", sheets.path(), |_| {}).unwrap();
    assert!(
        matches!(imported, ImportOutcome::Committed { .. }),
        "{imported:?}"
    );
    let data = export::export_region(&studio.repo(), &studio.region("jp"), None, &[]).unwrap();
    let out = tempfile::tempdir().unwrap();
    export::write(&data, out.path(), Format::Xlsx).unwrap();
    let cells = |book: &str| {
        let xml = masterctl_testing::zip_part(
            &std::fs::read(out.path().join(book)).unwrap(),
            "xl/worksheets/sheet1.xml",
        );
        written_cells(&xml)
    };
    assert_eq!(
        cells("rules.xlsx"),
        [
            ("A1", "##column"),
            ("A2", "max_stamina"),
            ("B2", "120"),
            ("A3", "motto"),
            ("B3", "go, go"),
            ("A4", "bonus"),
            ("B4", "1|2|3"),
        ]
        .map(|(at, text)| (at.to_string(), text.to_string()))
    );
    assert_eq!(
        cells("guild.xlsx"),
        [
            ("A1", "##column"),
            ("A2", "id"),
            ("B2", "5"),
            ("C2", "8"),
            ("A3", "max_members"),
            ("B3", "10"),
            ("C3", "20"),
            ("A4", "rank"),
            ("B4", "iron"),
            ("C4", "gold"),
        ]
        .map(|(at, text)| (at.to_string(), text.to_string()))
    );
    // A field's looks are its row's: its drop-down over the records, its note on its name.
    let book = std::fs::read(out.path().join("guild.xlsx")).unwrap();
    let sheet = masterctl_testing::zip_part(&book, "xl/worksheets/sheet1.xml");
    assert!(sheet.contains(r#"sqref="B4:C4""#), "{sheet}");
    assert!(
        sheet.contains("<formula1>\"gold,iron\"</formula1>"),
        "{sheet}"
    );
    let notes = masterctl_testing::zip_part(&book, "xl/comments1.xml");
    assert!(
        notes.contains(r#"<comment ref="A4""#) && notes.contains("How the guild ranks"),
        "{notes}"
    );
    assert_eq!(
        cells("tips.xlsx"),
        [
            ("A1", "##column"),
            ("A2", "tip"),
            ("B2", "rest"),
            ("C2", "eat"),
            ("D2", "save")
        ]
        .map(|(at, text)| (at.to_string(), text.to_string()))
    );
    imports_back_unchanged(&studio, &data);
    let ods = tempfile::tempdir().unwrap();
    export::write(&data, ods.path(), Format::Ods).unwrap();
    let content = masterctl_testing::zip_part(
        &std::fs::read(ods.path().join("guild.ods")).unwrap(),
        "content.xml",
    );
    assert!(
        content.contains(r#"table:base-cell-address="&apos;guild&apos;.B4""#)
            && content
                .matches(r#"table:content-validation-name="row0-2""#)
                .count()
                == 2,
        "{content}"
    );
    let again = studio.import("jp", ods.path(), |_| {}).unwrap();
    assert!(matches!(again, ImportOutcome::Unchanged(_)), "{again:?}");
}

/// Each cell a sheet's XML writes, by its reference, and its value or inline text.
fn written_cells(xml: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for cell in xml.split("<c r=\"").skip(1) {
        let (at, rest) = cell.split_once('"').unwrap();
        let body = rest.split("</c>").next().unwrap();
        let value = ["<v>", "<t>", "<t xml:space=\"preserve\">"]
            .iter()
            .find_map(|open| body.split_once(open))
            .map(|(_, v)| v.split('<').next().unwrap().to_string());
        if let Some(value) = value {
            found.push((at.to_string(), value));
        }
    }
    found
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
