//! A branch's masters browsed as the console's table pages do: searched, filtered,
//! sorted, paged, a row found by its key, references labelled by the row they name.

use std::path::Path;

use masterctl_app::browse::{self, Ask, Page};
use masterctl_store::import::{self, ImportOutcome, Request};
use masterctl_store::{Branch, ErrorKind, MasterRepo, Region};
use masterctl_testing::git;

const CONFIG: &str =
    "source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";
const CATEGORY: &str = "name = \"category\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"text\"\n";
const ITEM: &str = "name = \"item\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"string\"\ncolumn = \"名前\"\ndescription = \"Shown in the bag\"\n\n[[fields]]\nname = \"category_id\"\ntype = \"int\"\nreferences = \"category.id\"\n\n[[fields]]\nname = \"price\"\ntype = \"int\"\noptional = true\nmin = 0\nmax = 999\n";

/// A repository whose jp branch holds 3 categories and 1,200 items: item `i` is named
/// `Sword i` (every third `鉄の剣 i`), in category `i % 3 + 1`, priced `(i * 37) % 1000`
/// (no price for every hundredth).
fn browsed(dir: &Path) -> (MasterRepo, Branch) {
    let exports = initialized(
        dir,
        &[
            ("schemas/category.toml", CATEGORY),
            ("schemas/item.toml", ITEM),
        ],
    );
    std::fs::write(
        exports.join("category.csv"),
        "id,name\n1,武器\n2,防具\n3,素材\n",
    )
    .unwrap();
    let mut items = String::from("id,名前,category_id,price\n");
    for i in 1..=1200 {
        let name = if i % 3 == 0 {
            format!("鉄の剣 {i}")
        } else {
            format!("Sword {i}")
        };
        let price = if i % 100 == 0 {
            String::new()
        } else {
            ((i * 37) % 1000).to_string()
        };
        items.push_str(&format!("{i},{name},{},{price}\n", i % 3 + 1));
    }
    std::fs::write(exports.join("item.csv"), items).unwrap();
    imported_into_jp(dir, exports)
}

/// A master repository at `dir` of `CONFIG` and `schemas` (paths and texts), Aiko its
/// planner; and a folder for the exports to import, made.
fn initialized(dir: &Path, schemas: &[(&str, &str)]) -> std::path::PathBuf {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Aiko"]);
    git(dir, &["config", "user.email", "aiko@example.com"]);
    let files: Vec<(String, Vec<u8>)> = [("masterctl.toml", CONFIG)]
        .iter()
        .chain(schemas)
        .map(|(path, text)| (path.to_string(), text.as_bytes().to_vec()))
        .collect();
    masterctl_store::init::init(dir, &files, None).unwrap();
    let exports = dir.join("exports");
    std::fs::create_dir(&exports).unwrap();
    exports
}

/// The repository at `root` once `path` is imported into jp (it must commit), and jp.
fn imported_into_jp(root: &Path, path: std::path::PathBuf) -> (MasterRepo, Branch) {
    let repo = MasterRepo::open(root).unwrap();
    let paths = [path];
    let outcome = import::run(&repo, &Request::new("jp", &paths)).unwrap();
    assert!(
        matches!(outcome, ImportOutcome::Committed { .. }),
        "{outcome:?}"
    );
    let structure = repo.structure().unwrap();
    let line = Branch::of(&Region::of(&structure.project, "jp").unwrap(), None).unwrap();
    (repo, line)
}

fn column(page: &Page, field: &str) -> Vec<String> {
    let at = page.columns.iter().position(|c| c.name == field).unwrap();
    page.rows.iter().map(|r| r.cells[at].text.clone()).collect()
}

#[test]
fn a_table_is_searched_filtered_sorted_and_paged_by_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, line) = browsed(dir.path());
    let grids = browse::grids();
    let page = |ask: &Ask| browse::page(&repo, &line, "item", ask, &grids).unwrap();

    let first = page(&Ask {
        count: 100,
        ..Ask::default()
    });
    assert_eq!(
        (first.total, first.matched, first.rows.len()),
        (1200, 1200, 100)
    );
    assert_eq!(column(&first, "id")[..3], ["1", "2", "3"]);
    let name = first.columns.iter().find(|c| c.name == "name").unwrap();
    assert_eq!(name.shown.as_deref(), Some("名前"));
    assert_eq!(name.description.as_deref(), Some("Shown in the bag"));
    // A reference shows the row it names, by that row's text.
    let category = first
        .columns
        .iter()
        .position(|c| c.name == "category_id")
        .unwrap();
    assert_eq!(
        first.columns[category].links_to.as_deref(),
        Some("category")
    );
    assert_eq!(first.rows[0].cells[category].text, "2");
    assert_eq!(
        first.rows[0].cells[category].refers.as_deref(),
        Some("防具")
    );

    // The last page holds what is left.
    let last = page(&Ask {
        from: 1150,
        count: 100,
        ..Ask::default()
    });
    assert_eq!(last.rows.len(), 50);
    assert_eq!(last.rows[0].position, 1151);

    // A search across the table (ASCII letters in either case), then a column filter.
    let swords = page(&Ask {
        search: "SWORD 11".into(),
        count: 500,
        ..Ask::default()
    });
    let expected = (1..=1200)
        .filter(|i| i % 3 != 0 && i.to_string().starts_with("11"))
        .count();
    assert_eq!(swords.matched, expected, "{:?}", column(&swords, "name"));
    let iron = page(&Ask {
        filters: vec![
            ("name".into(), "鉄の剣".into()),
            ("category_id".into(), "1".into()),
        ],
        count: 500,
        ..Ask::default()
    });
    assert_eq!(iron.matched, 400);
    assert!(
        column(&iron, "id")
            .iter()
            .all(|id| id.parse::<u32>().unwrap() % 3 == 0)
    );

    // Numbers sort as numbers, empty cells first; descending reverses.
    let cheapest = page(&Ask {
        sort: Some(("price".into(), false)),
        count: 20,
        ..Ask::default()
    });
    let prices = column(&cheapest, "price");
    assert!(prices[..12].iter().all(String::is_empty), "{prices:?}");
    assert_eq!(prices[12], "1", "item 973");
    let dearest = page(&Ask {
        sort: Some(("price".into(), true)),
        count: 3,
        ..Ask::default()
    });
    assert_eq!(column(&dearest, "price"), ["999", "999", "998"]);
    let by_name = page(&Ask {
        sort: Some(("id".into(), true)),
        filters: vec![("name".into(), "sword".into())],
        count: 2,
        ..Ask::default()
    });
    assert_eq!(column(&by_name, "id"), ["1199", "1198"]);

    // A row asked for by key: the page holding it, the row marked.
    let row = page(&Ask {
        key: Some("777".into()),
        count: 100,
        ..Ask::default()
    });
    assert_eq!(row.from, 700);
    let asked: Vec<_> = row.rows.iter().filter(|r| r.asked).collect();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].key.as_deref(), Some("777"));
    // At most 500 rows a page, whatever is asked.
    assert_eq!(
        page(&Ask {
            count: 100_000,
            ..Ask::default()
        })
        .rows
        .len(),
        500
    );
}

#[test]
fn what_a_table_page_cannot_show_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, line) = browsed(dir.path());
    let grids = browse::grids();
    let fails = |table: &str, ask: Ask| {
        let error = browse::page(&repo, &line, table, &ask, &grids)
            .err()
            .unwrap();
        (error.kind(), error.to_string())
    };
    assert_eq!(
        fails("weapon", Ask::default()),
        (
            ErrorKind::NotFound,
            "no table `weapon` on masters/jp".into()
        )
    );
    let (kind, message) = fails(
        "item",
        Ask {
            sort: Some(("cost".into(), false)),
            ..Ask::default()
        },
    );
    assert_eq!(
        (kind, message.as_str()),
        (ErrorKind::NotFound, "`item` has no field `cost`")
    );
    let (kind, message) = fails(
        "item",
        Ask {
            key: Some("5000".into()),
            ..Ask::default()
        },
    );
    assert_eq!(kind, ErrorKind::NotFound, "{message}");
    let (tables, _) = (browse::tables(&repo, &line).unwrap().1, ());
    let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["category", "item"]);
}

/// A value typed in the console is held to what an import holds its cell to: the
/// column's parser, then its rules (a 0–999 price refuses -3 and 1500), a required
/// value, and a reference to a row the branch holds.
#[test]
fn a_typed_value_is_checked_by_its_columns_parser_rules_and_references() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, line) = browsed(dir.path());
    let grids = browse::grids();
    // A verdict as the words the page shows in English.
    #[derive(Debug, PartialEq)]
    enum Said {
        Fine,
        Noted(String),
        Refused(String),
    }
    use Said::{Fine, Noted, Refused};
    let said = |verdict: browse::Verdict| match verdict {
        browse::Verdict::Fine => Fine,
        browse::Verdict::Noted(note) => Noted(note.to_string()),
        browse::Verdict::Refused(why) => Refused(why.message),
    };
    fn typed<'a>(column: &'a str, text: &'a str, row: Option<&'a str>) -> browse::Typed<'a> {
        browse::Typed {
            table: "item",
            column,
            text,
            row,
        }
    }
    let verdict = |column: &str, text: &str| {
        browse::check_cell(&repo, &line, &typed(column, text, Some("5")), &grids).unwrap()
    };
    let check = |column: &str, text: &str| said(verdict(column, text));
    assert_eq!(check("price", "120"), Fine);
    assert_eq!(check("price", ""), Fine, "optional");
    assert_eq!(check("price", "abc"), Refused("not a whole number".into()));
    assert_eq!(
        check("price", "１２０"),
        Refused(
            "not a whole number: `１２０` is written in full-width characters: write `120`".into()
        )
    );
    assert_eq!(
        check("price", "-3"),
        Refused("-3 is below the minimum 0".into())
    );
    assert_eq!(
        check("price", "1500"),
        Refused("1500 is above the maximum 999".into())
    );
    assert_eq!(check("name", ""), Refused("`name` needs a value".into()));
    assert_eq!(
        check("name", "Sword "),
        Noted("it begins or ends with spaces, which are kept".into())
    );
    assert_eq!(check("category_id", "2"), Fine);
    assert_eq!(
        check("category_id", "7"),
        Refused("no `category` has id 7".into())
    );
    // A key another row has: refused for a new row and for another row, not for its own.
    assert_eq!(check("id", "5"), Fine);
    assert_eq!(
        check("id", "6"),
        Refused("row 6 has this `id` already".into())
    );
    let new_row = browse::check_cell(&repo, &line, &typed("id", "6", None), &grids).unwrap();
    assert_eq!(said(new_row), Refused("row 6 has this `id` already".into()));
    // What another language's words are made of: the cell, the case, the limit, the hint.
    let browse::Verdict::Refused(below) = verdict("price", "-3") else {
        panic!("-3 passed")
    };
    assert_eq!(below.location.field.as_deref(), Some("price"));
    assert_eq!(
        (below.said("case"), below.said("limit")),
        (Some("below"), Some("0"))
    );
    let browse::Verdict::Refused(wide) = verdict("price", "１２０") else {
        panic!("１２０ passed")
    };
    assert_eq!(
        (wide.said("hint"), wide.said("write")),
        (Some("full-width"), Some("120"))
    );
    let browse::Verdict::Refused(dangling) = verdict("category_id", "7") else {
        panic!("7 passed")
    };
    assert_eq!(dangling.said("target"), Some("category"));
    let error =
        browse::check_cell(&repo, &line, &typed("cost", "1", Some("5")), &grids).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound);
}

/// The grid read straight from a table's canonical files is the grid of the typed
/// table, cell for cell, for every table of the sample game it covers (texts joined by
/// key, lists, references, dates); the rest are read typed.
#[test]
fn a_grid_read_from_canonical_files_is_the_typed_grid() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.name", "Aiko"]);
    git(root, &["config", "user.email", "aiko@example.com"]);
    let fixtures = masterctl_testing::fixtures();
    let mut files = vec![(
        "masterctl.toml".to_string(),
        std::fs::read(fixtures.join("masterctl.toml")).unwrap(),
    )];
    for entry in std::fs::read_dir(fixtures.join("schemas")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        files.push((format!("schemas/{name}"), std::fs::read(&path).unwrap()));
    }
    masterctl_store::init::init(root, &files, None).unwrap();
    let (repo, line) = imported_into_jp(root, fixtures.join("workbooks"));
    let head = masterctl_store::snapshot::head::head_snapshot(&repo, &line).unwrap();
    let mut covered = Vec::new();
    for schema in &head.project.tables {
        let (Some(data), texts) = head.canonical(&repo, &schema.name).unwrap() else {
            continue;
        };
        let typed = browse::TextGrid::of(schema, &head.read(&repo, schema).unwrap()).unwrap();
        let Some(direct) = browse::TextGrid::from_canonical(schema, &data, texts.as_deref()) else {
            continue;
        };
        assert_eq!(direct.rows(), typed.rows(), "{}", schema.name);
        for row in 0..typed.rows() {
            for column in 0..schema.fields.len() {
                assert_eq!(
                    direct.cell(row, column),
                    typed.cell(row, column),
                    "{} row {row} column {column}",
                    schema.name
                );
            }
        }
        covered.push(schema.name.as_str());
    }
    for table in ["item", "quest", "category", "shop_item"] {
        assert!(
            covered.contains(&table),
            "{table} read straight: {covered:?}"
        );
    }
}

#[test]
fn a_row_is_a_form_whose_inputs_fit_its_fields_and_a_filled_form_is_the_edits_it_makes() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, jp) = browsed(dir.path());
    let grids = browse::grids();
    let form = browse::row_form(&repo, &jp, "item", Some("5"), false, &grids).unwrap();
    assert_eq!(form.key.as_deref(), Some("5"));
    let kinds: Vec<(&str, &str, &str)> = (form.fields.iter())
        .map(|f| (f.column.name.as_str(), f.input.kind(), f.value.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("id", "number", "5"),
            ("name", "text", "Sword 5"),
            ("category_id", "reference", "3"),
            ("price", "number", "185"),
        ]
    );
    match &form.fields[2].input {
        browse::Input::Reference { table, options } => {
            assert_eq!(table, "category");
            assert_eq!(options[0], ("1".to_string(), "武器".to_string()));
        }
        _ => panic!("a reference"),
    }
    match &form.fields[3].input {
        browse::Input::Number { min, max, .. } => {
            assert_eq!((min.as_str(), max.as_str()), ("0", "999"))
        }
        _ => panic!("a number"),
    }
    // A copy is a new row holding the cells.
    let copy = browse::row_form(&repo, &jp, "item", Some("5"), true, &grids).unwrap();
    assert_eq!(copy.key, None);
    assert_eq!(copy.fields[1].value, "Sword 5");
    assert_eq!(copy.fields[1].was, "");

    // Only the fields whose value changed are edits (`0185` is 185).
    let was: Vec<(String, String)> = (form.fields.iter())
        .map(|f| (f.column.name.clone(), f.was.clone()))
        .collect();
    let mut values = was.clone();
    values[3].1 = "0185".into();
    assert!(
        browse::row_edits(&repo, &jp, "item", Some("5"), &was, &values)
            .unwrap()
            .is_empty()
    );
    values[3].1 = "190".into();
    let edits = browse::row_edits(&repo, &jp, "item", Some("5"), &was, &values).unwrap();
    assert_eq!(
        edits,
        [masterctl_store::edit::Edit::Set {
            table: "item".into(),
            key: "5".into(),
            field: "price".into(),
            was: "185".into(),
            value: "190".into(),
        }]
    );
    let added = browse::row_edits(&repo, &jp, "item", None, &[], &values).unwrap();
    assert!(matches!(
        &added[..],
        [masterctl_store::edit::Edit::Add { .. }]
    ));
    // A keyless form names no row to edit; an unknown field is refused.
    values.push(("colour".into(), "red".into()));
    let refused = browse::row_edits(&repo, &jp, "item", Some("5"), &was, &values).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::NotFound);
}

#[test]
fn the_current_masters_download_as_their_workbooks_zipped_when_several() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, jp) = browsed(dir.path());
    let download = masterctl_app::export::download(&repo, &jp).unwrap();
    assert!(
        download.name.starts_with("masters-jp-"),
        "{}",
        download.name
    );
    assert!(download.name.ends_with(".zip"), "{}", download.name);
    assert_eq!(download.content_type, "application/zip");
    let archive = zip::ZipArchive::new(std::io::Cursor::new(download.bytes)).unwrap();
    let mut names: Vec<String> = (archive.file_names())
        .map(|name| name.unwrap().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["category.xlsx", "item.xlsx"]);
}

/// A record field in the console: its input is its text with its layout as the
/// placeholder (a list's, its records'), a typed value is checked part by part with its
/// record's options and references, and an edit of it is the edit of the field.
#[test]
fn a_record_field_is_edited_as_its_text_and_checked_part_by_part() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let cost = "kind = \"record\"\nfields = [{ name = \"item_id\", type = \"int\", references = \"item.id\" }, { name = \"count\", type = \"int\", min = 1 }]\n";
    let shop = "primary_key = [\"id\"]\nfields = [{ name = \"id\", type = \"int\" }, { name = \"price\", type = \"cost\" }, { name = \"bundle\", type = \"list<cost>\", optional = true }]\n";
    let item = "primary_key = [\"id\"]\nfields = [{ name = \"id\", type = \"int\" }]\n";
    let schemas = [
        ("schemas/cost.toml", cost),
        ("schemas/item.toml", item),
        ("schemas/shop.toml", shop),
    ];
    let exports = initialized(root, &schemas);
    std::fs::write(exports.join("item.csv"), "id\n1001\n1002\n").unwrap();
    std::fs::write(
        exports.join("shop.csv"),
        "id,price,bundle\n1,\"1001,2\",\"1001,1|1002,3\"\n",
    )
    .unwrap();
    let (repo, jp) = imported_into_jp(root, exports);
    let grids = browse::grids();
    let form = browse::row_form(&repo, &jp, "shop", Some("1"), false, &grids).unwrap();
    match (&form.fields[1].input, &form.fields[2].input) {
        (
            browse::Input::Parts { layout },
            browse::Input::Listed {
                example,
                map: false,
            },
        ) => {
            assert_eq!(layout, "item_id,count");
            assert_eq!(example, "item_id,count|item_id,count");
        }
        _ => panic!("a record's parts and a listed field"),
    }
    assert_eq!(form.fields[1].value, "1001,2");
    let check = |column: &str, text: &str| {
        let typed = browse::Typed {
            table: "shop",
            column,
            text,
            row: Some("1"),
        };
        match browse::check_cell(&repo, &jp, &typed, &grids).unwrap() {
            browse::Verdict::Refused(why) => why.message,
            other => format!("{:?}", matches!(other, browse::Verdict::Fine)),
        }
    };
    assert_eq!(check("price", "1002,5"), "true");
    assert!(check("price", "1002").contains("cost written `item_id,count`"));
    assert!(check("price", "1002,0").contains("cost's `count`: 0 is below the minimum 1"));
    assert_eq!(check("price", "9,1"), "no `item` has id 9");
    assert_eq!(check("bundle", "1001,1|1002,2"), "true");
    let was: Vec<(String, String)> = (form.fields.iter())
        .map(|f| (f.column.name.clone(), f.was.clone()))
        .collect();
    let mut values = was.clone();
    values[1].1 = "1002,5".into();
    let edits = browse::row_edits(&repo, &jp, "shop", Some("1"), &was, &values).unwrap();
    assert_eq!(
        edits,
        [masterctl_store::edit::Edit::Set {
            table: "shop".into(),
            key: "1".into(),
            field: "price".into(),
            was: "1001,2".into(),
            value: "1002,5".into(),
        }]
    );
}

#[test]
fn a_row_of_several_cases_needs_its_cases_fields_and_refuses_others() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let thing = "primary_key = [\"id\"]\ncase_field = \"type\"\nfields = [\n  { name = \"id\", type = \"int\" },\n  { name = \"type\", type = \"enum\", values = [\"goods\", \"gear\"] },\n  { name = \"num\", type = \"int\", cases = [\"goods\"] },\n  { name = \"attr\", type = \"string\", cases = [\"gear\"] },\n]\n";
    let exports = initialized(root, &[("schemas/thing.toml", thing)]);
    std::fs::write(
        exports.join("thing.csv"),
        "id,type,num,attr\n1,goods,3,\n2,gear,,sharp\n",
    )
    .unwrap();
    let (repo, jp) = imported_into_jp(root, exports);
    let grids = browse::grids();
    // A goods row needs its `num`, not gear's `attr`; each says whose rows fill it.
    let form = browse::row_form(&repo, &jp, "thing", Some("1"), false, &grids).unwrap();
    let fields: Vec<(&str, bool, Vec<String>)> = (form.fields.iter())
        .map(|f| (f.column.name.as_str(), f.required, f.cases.clone()))
        .collect();
    assert_eq!(
        fields,
        [
            ("id", true, vec![]),
            ("type", true, vec![]),
            ("num", true, vec!["goods".to_string()]),
            ("attr", false, vec!["gear".to_string()]),
        ]
    );
    let check = |column: &str, text: &str, row: &str| {
        let typed = browse::Typed {
            table: "thing",
            column,
            text,
            row: Some(row),
        };
        match browse::check_cell(&repo, &jp, &typed, &grids).unwrap() {
            browse::Verdict::Refused(why) => format!("{}: {}", why.code, why.message),
            other => format!("{:?}", matches!(other, browse::Verdict::Fine)),
        }
    };
    assert_eq!(check("num", "5", "1"), "true");
    assert_eq!(
        check("num", "5", "2"),
        "other-case: `num` is filled by rows of case `goods` alone, and this row is of case `gear`"
    );
    assert_eq!(
        check("num", "", "1"),
        "required: `num` is required in a row of case `goods`, and it has no value"
    );
    assert_eq!(check("attr", "", "1"), "true");
}
