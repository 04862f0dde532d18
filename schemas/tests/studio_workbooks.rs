//! Workbooks as studios write them: headers in the planners' own language (`column`).

use crate::common::*;
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
    let drafts = masterctl_migrate::infer::infer_file(&csv).unwrap();
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

/// A workbook at `path` with these sheets, each of rows of cells (text, or numbers when
/// they parse).
fn workbook(path: &std::path::Path, sheets: &[(&str, &[&[&str]])]) {
    let mut book = rust_xlsxwriter::Workbook::new();
    for (name, rows) in sheets {
        let sheet = book.add_worksheet();
        sheet.set_name(*name).unwrap();
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                match cell.parse::<f64>() {
                    Ok(number) => sheet.write_number(r as u32, c as u16, number),
                    Err(_) => sheet.write_string(r as u32, c as u16, *cell),
                }
                .unwrap();
            }
        }
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    book.save(path).unwrap();
}

fn table_schema(name: &str, source: &str) -> String {
    format!(
        "name = \"{name}\"\nsource = \"{source}\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"string\"\n"
    )
}

#[test]
fn fifty_workbooks_whose_sheet_is_sheet1_are_fifty_tables() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut schemas = Vec::new();
    for n in 0..50 {
        let rows: &[&[&str]] = &[&["id", "name"], &["1", "a"], &[&format!("{}", n + 2), "b"]];
        workbook(&data.join(format!("w{n:02}.xlsx")), &[("Sheet1", rows)]);
        schemas.push((
            format!("t{n:02}.toml"),
            table_schema(&format!("t{n:02}"), &format!("w{n:02}.xlsx")),
        ));
    }
    let files: Vec<(&str, &str)> = schemas
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .collect();
    let project = load(&files).unwrap();
    let v = validate(&project, &[data]);
    assert!(!v.report.has_errors(), "{:#?}", v.report.diagnostics);
    assert_eq!(v.tables.len(), 50);
    let t07 = v.tables.iter().find(|t| t.name == "t07").unwrap();
    assert_eq!(t07.columns[0][1], Value::Int(9));
}

#[test]
fn a_source_names_a_file_and_perhaps_a_sheet() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let rows: &[&[&str]] = &[&["id", "name"], &["1", "a"]];
    // Two workbooks of one name in two folders, each with two sheets; and a CSV file.
    workbook(
        &data.join("jp/items.xlsx"),
        &[("Sheet1", rows), ("Sheet2", rows)],
    );
    workbook(
        &data.join("en/items.xlsx"),
        &[("Sheet1", rows), ("Sheet2", rows)],
    );
    std::fs::write(data.join("shops.csv"), "id,name\n1,a\n").unwrap();
    let item = table_schema("item", "jp/items.xlsx");
    let extra = table_schema("extra", "jp/items.xlsx#Sheet2");
    let english = table_schema("english", "en/items.xlsx#Sheet1");
    let shop = table_schema("shop", "shops.csv");
    let project = load(&[
        ("item.toml", &item),
        ("extra.toml", &extra),
        ("english.toml", &english),
        ("shop.toml", &shop),
    ])
    .unwrap();
    let v = validate(&project, std::slice::from_ref(&data));
    // en/items.xlsx's Sheet2 maps to nothing (a warning); the rest read.
    assert!(!v.report.has_errors(), "{:#?}", v.report.diagnostics);
    let mut names: Vec<&str> = v.tables.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["english", "extra", "item", "shop"]);

    // A source and a sheet name claiming one sheet: an error naming both.
    let by_name = "name = \"other\"\nsheet = \"Sheet2\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"string\"\n";
    let project = load(&[("extra.toml", &extra), ("other.toml", by_name)]).unwrap();
    let v = validate(&project, &[data.join("jp")]);
    let ambiguous = v
        .report
        .diagnostics
        .iter()
        .find(|d| d.message.contains("maps to two tables"))
        .unwrap_or_else(|| panic!("{:#?}", v.report.diagnostics));
    assert_eq!(
        ambiguous.message,
        "sheet `Sheet2` maps to two tables, `extra` (source `jp/items.xlsx#Sheet2`) and `other` (sheet `Sheet2`); it was not read"
    );
    // A source given for two tables, with `sheet` beside it, or naming no spreadsheet.
    let errors = load(&[
        ("item.toml", &item),
        ("again.toml", &table_schema("again", "jp/items.xlsx")),
    ])
    .unwrap_err();
    assert_eq!(errors[0].code, Code::DuplicateName, "{errors:#?}");
    for (source, says) in [
        ("items.docx", "names no spreadsheet file"),
        ("../items.xlsx", "a relative path of `/`-separated names"),
        ("/abs/items.xlsx", "a relative path"),
        ("items.xlsx#", "the sheet after `#` is empty"),
    ] {
        let errors = load(&[("t.toml", &table_schema("t", source))]).unwrap_err();
        assert!(errors[0].message.contains(says), "{source}: {errors:#?}");
    }
    let both = table_schema("t", "items.xlsx").replace("source =", "sheet = \"Item\"\nsource =");
    let errors = load(&[("t.toml", &both)]).unwrap_err();
    assert!(errors[0].message.contains("not both"), "{errors:#?}");
}

#[test]
fn drafts_of_sheet1_workbooks_are_found_by_their_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let schemas = dir.path().join("schemas");
    std::fs::create_dir_all(&schemas).unwrap();
    for (file, rows) in [
        (
            "weapons.xlsx",
            &[&["id", "name"][..], &["1", "剣"], &["2", "槍"]][..],
        ),
        (
            "armors.xlsx",
            &[&["id", "name"][..], &["1", "盾"], &["2", "鎧"]][..],
        ),
    ] {
        let path = data.join(file);
        workbook(&path, &[("Sheet1", rows), ("Sheet2", rows)]);
        for draft in masterctl_migrate::infer::infer_file(&path).unwrap() {
            std::fs::write(
                schemas.join(format!("{}.toml", draft.name)),
                draft.to_toml(),
            )
            .unwrap();
        }
    }
    let weapons = std::fs::read_to_string(schemas.join("weapons_1.toml")).unwrap();
    assert!(weapons.contains("source = \"weapons.xlsx\"\n"), "{weapons}");
    let second = std::fs::read_to_string(schemas.join("weapons_2.toml")).unwrap();
    assert!(
        second.contains("source = \"weapons.xlsx#Sheet2\"\n"),
        "{second}"
    );
    let project = masterctl_schemas::load::load_schemas_dir(&schemas).unwrap();
    let v = validate(&project, &[data]);
    assert!(!v.report.has_errors(), "{:#?}", v.report.diagnostics);
    assert_eq!(v.tables.len(), 4);
}

const REWARD: &str = r#"name = "reward"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "note"
type = "string"
optional = true

[[fields]]
name = "memo"
type = "string"
optional = true
null = "-"

[[fields]]
name = "items"
type = "list<int>"
separator = ","
optional = true

[[fields]]
name = "tags"
type = "list<string>"
optional = true
"#;

#[test]
fn null_spellings_and_list_separators_are_the_studios() {
    let config = format!("{CONFIG}null = [\"NULL\", \"null\"]\n");
    let project = load_texts(&config, &[("reward.toml", REWARD)]).unwrap();
    let v = validate_files(
        &project,
        &[(
            "reward.csv",
            "id,note,memo,items,tags\n1,NULL,-,\"1,2,3\",a|b\n2,none,NULL,NULL,null\n3,,,7,\n",
        )],
    );
    assert!(!v.report.has_errors(), "{:#?}", v.report.diagnostics);
    let t = &v.tables[0];
    let list = |items: &[i64]| Value::List(items.iter().map(|&i| Value::Int(i)).collect());
    // The project's spellings, or the field's own instead.
    assert_eq!(
        t.columns[1],
        [Value::Null, Value::Str("none".into()), Value::Null]
    );
    assert_eq!(
        t.columns[2],
        [Value::Null, Value::Str("NULL".into()), Value::Null]
    );
    // `1,2,3` with the field's separator; `|` everywhere else.
    assert_eq!(t.columns[3], [list(&[1, 2, 3]), Value::Null, list(&[7])]);
    assert_eq!(
        t.columns[4][0],
        Value::List(vec![Value::Str("a".into()), Value::Str("b".into())].into())
    );
    assert_eq!(t.columns[4][1], Value::Null);

    // A required field spelled empty is still required; `|` is not the field's separator.
    let v = validate_files(
        &project,
        &[("reward.csv", "id,note,memo,items,tags\nNULL,,,1|2,\n")],
    );
    let codes: Vec<Code> = v.report.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [Code::Required, Code::TypeError],
        "{:#?}",
        v.report.diagnostics
    );
    assert_eq!(
        v.report.diagnostics[1].expected.as_deref(),
        Some("a list of a whole number separated by `,`")
    );

    // A separator belongs to a list, and is a short visible text.
    for (bad, says) in [
        (
            "name = \"note\"\ntype = \"string\"\noptional = true\nseparator = \",\"",
            "not a list",
        ),
        (
            "name = \"items\"\ntype = \"list<int>\"\nseparator = \" \"",
            "one to three characters",
        ),
    ] {
        let schema = REWARD.replace(
            if bad.starts_with("name = \"note\"") {
                "name = \"note\"\ntype = \"string\"\noptional = true"
            } else {
                "name = \"items\"\ntype = \"list<int>\"\nseparator = \",\""
            },
            bad,
        );
        let errors = load_texts(&config, &[("reward.toml", &schema)]).unwrap_err();
        assert!(
            errors.iter().any(|e| e.message.contains(says)),
            "{errors:#?}"
        );
    }
}

const COLOR: &str = r#"name = "paint"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "color"
type = "enum"
values = [{ value = "red", aliases = ["红", "赤"], number = 1 }, { value = "blue", number = 2 }, "green"]

[[fields]]
name = "mix"
type = "list<enum>"
values = [{ value = "red", aliases = ["红"] }, "blue"]
optional = true
"#;

#[test]
fn enum_values_written_as_aliases_or_numbers_are_the_values() {
    let project = load(&[("paint.toml", COLOR)]).unwrap();
    let paint = project.table("paint").unwrap();
    assert_eq!(paint.fields[1].values.len(), 3);
    let v = validate_files(
        &project,
        &[(
            "paint.csv",
            "id,color,mix\n1,红,红|blue\n2,1,\n3,赤,red\n4,2,\n5,green,\n6,blue,\n",
        )],
    );
    assert!(!v.report.has_errors(), "{:#?}", v.report.diagnostics);
    let colors: Vec<String> = v.tables[0].columns[1]
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(colors, ["red", "red", "red", "blue", "green", "blue"]);
    assert_eq!(v.tables[0].columns[2][0].to_string(), "red|blue");
    // From a workbook, a number cell names the value of that number.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("paint.xlsx");
    workbook(
        &path,
        &[(
            "paint",
            &[&["id", "color", "mix"], &["1", "2"], &["2", "紫"]],
        )],
    );
    let v = validate(&project, &[path]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::EnumValue, "{d:#?}");
    assert_eq!(v.tables[0].columns[1][0].to_string(), "blue");

    // Each text names one value.
    let twice = COLOR.replace("aliases = [\"红\", \"赤\"]", "aliases = [\"红\", \"blue\"]");
    let errors = load(&[("paint.toml", &twice)]).unwrap_err();
    assert!(
        errors[0]
            .message
            .contains("lists `blue` twice (as a value, alias or number)"),
        "{errors:#?}"
    );
    let unknown = COLOR.replace("number = 2 }", "numero = 2 }");
    assert!(load(&[("paint.toml", &unknown)]).is_err());
}

const NOTES: &str = r#"name = "item"
primary_key = ["id"]
other_columns = "ignore"

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "name"
type = "string"
"#;

#[test]
fn other_columns_ignore_reads_only_the_fields_columns() {
    // Luban's layout: a marker column, a planner's note column, values under no header.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("item.xlsx");
    workbook(
        &path,
        &[(
            "item",
            &[
                &["##var", "id", "name", "memo", ""],
                &["##type", "int", "string", "string", ""],
                &["", "1", "sword", "策划用", "x"],
                &["", "2", "shield", "", "y"],
            ],
        )],
    );
    let project = load(&[("item.toml", NOTES)]).unwrap();
    let v = validate(&project, std::slice::from_ref(&path));
    assert!(!v.report.has_errors(), "{:#?}", v.report.diagnostics);
    assert_eq!(v.tables[0].columns[1][1].to_string(), "shield");
    // By default each is an error: a misspelt header must not lose its column.
    let strict = NOTES.replace("other_columns = \"ignore\"\n", "");
    let project = load(&[("item.toml", &strict)]).unwrap();
    let v = validate(&project, &[path]);
    let codes: Vec<Code> = v.report.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [Code::UnknownColumn, Code::UnknownColumn],
        "{codes:?}"
    );
    // Anything but "error" or "ignore" is a load error.
    let wrong = NOTES.replace("\"ignore\"", "\"skip\"");
    let errors = load(&[("item.toml", &wrong)]).unwrap_err();
    assert!(
        errors[0].message.contains("other_columns is `skip`"),
        "{errors:#?}"
    );
    // How export lays the sheet out: by rows (the default) or down a column.
    let vertical = NOTES.replace(
        "other_columns = \"ignore\"\n",
        "other_columns = \"ignore\"\nlayout = \"vertical\"\n",
    );
    let project = load(&[("item.toml", &vertical)]).unwrap();
    assert_eq!(
        project.tables[0].layout,
        masterctl_schemas::schema::Layout::Vertical
    );
    let sideways = vertical.replace("\"vertical\"", "\"sideways\"");
    let errors = load(&[("item.toml", &sideways)]).unwrap_err();
    assert!(
        errors[0].message.contains("layout is `sideways`"),
        "{errors:#?}"
    );
}

#[test]
fn a_row_declaring_types_is_structure_and_infer_takes_its_types() {
    // tableau's layout: names, then types, then data; Luban's: `##var`, `##type`, `##`.
    let dir = tempfile::tempdir().unwrap();
    let tableau = dir.path().join("fruit.xlsx");
    workbook(
        &tableau,
        &[(
            "fruit",
            &[
                &["id", "name", "prices", "rate"],
                &["uint32", "string", "[]int32", "double"],
                // tableau writes an incell list with commas.
                &["1", "apple", "1,2", "2"],
                &["2", "pear", "3", "4"],
            ],
        )],
    );
    let luban = dir.path().join("reward.xlsx");
    workbook(
        &luban,
        &[(
            "reward",
            &[
                &["##var", "id", "weight", "items", "note"],
                &["##type", "int", "float", "list,int", "string?"],
                &["##", "编号", "权重", "道具", "备注"],
                &["", "1", "10", "1,2", ""],
                &["", "2", "20", "3", "x"],
            ],
        )],
    );
    let drafts = masterctl_migrate::infer::infer_file(&tableau).unwrap();
    let types: Vec<(&str, &str)> = drafts[0]
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.ty.as_str()))
        .collect();
    assert_eq!(
        types,
        [
            ("id", "int"),
            ("name", "string"),
            ("prices", "list<int>"),
            ("rate", "float")
        ]
    );
    let drafts = masterctl_migrate::infer::infer_file(&luban).unwrap();
    let fields = &drafts[0].fields;
    let types: Vec<(&str, &str)> = fields
        .iter()
        .map(|f| (f.name.as_str(), f.ty.as_str()))
        .collect();
    // Whole numbers under `float` stay float; the list keeps Luban's comma.
    assert_eq!(
        types,
        [
            ("id", "int"),
            ("weight", "float"),
            ("items", "list<int>"),
            ("note", "string")
        ]
    );
    assert_eq!(fields[2].separator.as_deref(), Some(","));
    assert!(fields[3].optional);
    // Both drafts read their workbooks as they are: the type rows are not data.
    let schemas = dir.path().join("schemas");
    std::fs::create_dir(&schemas).unwrap();
    for path in [&tableau, &luban] {
        for draft in masterctl_migrate::infer::infer_file(path).unwrap() {
            std::fs::write(
                schemas.join(format!("{}.toml", draft.name)),
                draft.to_toml(),
            )
            .unwrap();
        }
    }
    let project = masterctl_schemas::load::load_schemas_dir(&schemas).unwrap();
    let v = validate(&project, &[tableau, luban]);
    assert!(!v.report.has_errors(), "{:#?}", v.report.diagnostics);
    let rows: Vec<usize> = v.tables.iter().map(|t| t.origin.rows.len()).collect();
    assert_eq!(rows, [2, 2]);
}

const SPREAD: &str = r#"name = "drop"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "reward_item_id"
type = "int"
column = "reward"

[[fields]]
name = "reward_count"
type = "int"
column = "reward"
column_offset = 1
"#;

#[test]
fn a_structure_spread_over_columns_under_one_header_is_flat_fields() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("drop.xlsx");
    workbook(
        &path,
        &[(
            "drop",
            &[
                &["id", "reward", ""],
                &["1", "1001", "5"],
                &["2", "1002", "x"],
            ],
        )],
    );
    let project = load(&[("drop.toml", SPREAD)]).unwrap();
    let v = validate(&project, &[path]);
    let d = only_error(&v);
    // The cell right of `reward` is `reward_count`'s, located where it is.
    assert_eq!(d.code, Code::TypeError, "{d:#?}");
    assert_eq!(d.location.field.as_deref(), Some("reward_count"));
    assert_eq!(d.location.cell.as_deref(), Some("C3"), "{d:#?}");
    assert_eq!(v.tables[0].columns[2][0], Value::Int(5));
    assert_eq!(v.tables[0].columns[1][1], Value::Int(1002));
    // A missing header names the place: `reward_count (1 right of reward)`.
    let csv = validate_files(&project, &[("drop.csv", "id,prize\n1,2\n")]);
    assert!(
        csv.report.diagnostics.iter().any(|d| d
            .expected
            .as_deref()
            .unwrap_or("")
            .contains("reward_count (1 right of reward)")),
        "{:#?}",
        csv.report.diagnostics
    );
    for (bad, says) in [
        (
            "column = \"reward\"\ncolumn_offset = 1\n",
            "would name both",
        ),
        ("column_offset = 2\n", "needs a `column`"),
        (
            "column = \"reward\"\ncolumn_offset = -1\n",
            "not a count of columns",
        ),
    ] {
        let schema = format!("{SPREAD}\n[[fields]]\nname = \"extra\"\ntype = \"int\"\n{bad}");
        let errors = load(&[("drop.toml", &schema)]).unwrap_err();
        assert!(
            errors.iter().any(|e| e.message.contains(says)),
            "{bad}: {errors:#?}"
        );
    }
}

/// `schema infer` passes notes sheets by (`说明`, `README`), saying so in the first draft,
/// and finds the header below a title row.
#[test]
fn infer_passes_notes_sheets_by_and_finds_the_header_under_a_title() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shop.xlsx");
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let rows: [(&str, &[&[&str]]); 4] = [
        ("说明", &[&["这个表是商店"], &["id 是商品编号"]]),
        (
            "Shop",
            &[
                &["", "Shop items"],
                &["id", "name", "price"],
                &["1", "sword", "100"],
                &["2", "shield", "80"],
            ],
        ),
        ("README", &[&["notes"]]),
        ("@TABLEAU", &[&["Sheet", "Alias"], &["Shop", "ShopConf"]]),
    ];
    for (name, cells) in rows {
        let sheet = workbook.add_worksheet().set_name(name).unwrap();
        for (r, row) in cells.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                if !cell.is_empty() {
                    sheet.write_string(r as u32, c as u16, *cell).unwrap();
                }
            }
        }
    }
    workbook.save(&path).unwrap();
    let drafts = masterctl_migrate::infer::infer_file(&path).unwrap();
    assert_eq!(drafts.len(), 1, "{drafts:#?}");
    let draft = &drafts[0];
    assert_eq!(draft.sheet, "Shop");
    let names: Vec<&str> = draft.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["id", "name", "price"]);
    for sheet in ["说明", "README"] {
        assert!(
            draft
                .notes
                .iter()
                .any(|n| n.contains(&format!("sheet `{sheet}`")) && n.contains("a notes sheet")),
            "{:#?}",
            draft.notes
        );
    }
    assert!(
        draft
            .notes
            .iter()
            .any(|n| n.contains("sheet `@TABLEAU`") && n.contains("tableau's metasheet")),
        "{:#?}",
        draft.notes
    );
    assert!(drafts_refused(&path, &drafts).is_none());
}

/// tabtoy's definition sheets — 2's `@Types`, 3's index (`模式`, `表类型`, `表文件名`)
/// and type table (`对象类型`, `字段名`, `字段类型`) — are passed over like notes sheets,
/// each named with what it is; the data sheet beside them is drafted. A CSV file of
/// tabtoy's index is refused as holding no table.
#[test]
fn infer_passes_tabtoys_definition_sheets_by() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("item.xlsx");
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let rows: [(&str, &[&[&str]]); 4] = [
        (
            "Item",
            &[&["ID", "Name"], &["1", "sword"], &["2", "shield"]],
        ),
        ("@Types", &[&["ItemType", "Weapon", "1"]]),
        (
            "Index",
            &[
                &["模式", "表类型", "表文件名"],
                &["数据表", "Item", "item.xlsx"],
            ],
        ),
        (
            "Type",
            &[
                &["种类", "对象类型", "标识名", "字段名", "字段类型"],
                &["表头", "Item", "编号", "ID", "int"],
            ],
        ),
    ];
    for (name, cells) in rows {
        let sheet = workbook.add_worksheet().set_name(name).unwrap();
        for (r, row) in cells.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                sheet.write_string(r as u32, c as u16, *cell).unwrap();
            }
        }
    }
    workbook.save(&path).unwrap();
    let drafts = masterctl_migrate::infer::infer_file(&path).unwrap();
    assert_eq!(drafts.len(), 1, "{drafts:#?}");
    assert_eq!(drafts[0].sheet, "Item");
    for (sheet, what) in [
        ("@Types", "tabtoy's type definitions"),
        ("Index", "tabtoy's index of tables"),
        ("Type", "tabtoy's type table"),
    ] {
        assert!(
            drafts[0]
                .notes
                .iter()
                .any(|n| n.contains(&format!("sheet `{sheet}`")) && n.contains(what)),
            "{sheet}: {:#?}",
            drafts[0].notes
        );
    }
    let index = dir.path().join("Index.csv");
    std::fs::write(&index, "模式,表类型,表文件名\n数据表,Item,item.xlsx\n").unwrap();
    let refused = masterctl_migrate::infer::infer_file(&index).unwrap_err();
    assert!(
        refused.message.contains("tabtoy's index of tables"),
        "{refused}"
    );
}

/// Every file under `root` (at any depth) whose extension is one of `extensions`, sorted.
fn files_under(root: &std::path::Path, extensions: &[&str]) -> Vec<std::path::PathBuf> {
    masterctl_testing::files_under(root)
        .into_iter()
        .filter(|p| {
            p.extension()
                .is_some_and(|e| extensions.iter().any(|x| e == *x))
        })
        .collect()
}

/// `path` validated against `drafts` (which load, named apart).
fn read_back(
    path: &std::path::Path,
    relative: &str,
    drafts: &[masterctl_migrate::infer::DraftSchema],
) -> masterctl_schemas::Validation {
    assert!(drafts_refused(path, drafts).is_none(), "{relative}");
    let texts: Vec<(String, String)> = drafts
        .iter()
        .map(|d| (format!("{}.toml", d.name), d.to_toml()))
        .collect();
    let schemas: Vec<(&str, &str)> = texts
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let project = load_texts("source_language = \"en\"\n", &schemas).unwrap();
    validate(&project, &[path.to_path_buf()])
}

/// tableau's own test sheets (`fixtures/third-party/tableau-testdata`, 185 of them):
/// each drafted by `schema infer` — the header, the type row and the note row under it,
/// composite types, incell lists — and the sheet validated against its drafts. All but
/// these read back clean; each of these lays out what a flat table cannot hold (records
/// nested down the rows with their outer keys blank or repeated, structures spelled in
/// a cell, transposed metasheets, a value out of its declared range), and its draft's
/// notes say which field does not read, where and why. The metasheets themselves
/// (`@TABLEAU`) are named as such and not drafted.
#[test]
fn tableaus_test_sheets_read_back_through_their_drafts() {
    const NESTED_OR_UNREAD: &[&str] = &[
        "dev/Test#Activity.csv",
        "dev/Test#Loader.csv",
        "dev/Test#Match.csv",
        "fieldprop/FieldProp#FieldPropSequence.csv",
        "fieldprop/FieldProp#FieldPropUnique.csv",
        "list/HorizontalList#HorizontalIncellInStructList.csv",
        "map/VerticalMap#UniqueFieldInVerticalStructMap.csv",
        "metasheet/SheetMode#EnumType.csv",
        "metasheet/SheetMode#StructType.csv",
        "metasheet/SheetMode#TransposedEnumType.csv",
        "metasheet/SheetMode#UnionType.csv",
        "nesting/ListInMap#HAggregateListInVMap.csv",
        "nesting/MapInMap#HAggregateMapInVMap.csv",
        "struct/Struct#PredefinedStructTypeInfo.csv",
    ];
    let root = third_party().join("tableau-testdata");
    let files = files_under(&root, &["csv"]);
    // tableau's metasheets (`Workbook#@TABLEAU.csv`) hold its settings: no draft.
    let (metasheets, files): (Vec<_>, Vec<_>) = files
        .into_iter()
        .partition(|p| p.to_string_lossy().contains("#@TABLEAU"));
    assert_eq!((metasheets.len(), files.len()), (37, 185));
    for path in &metasheets {
        let refused = masterctl_migrate::infer::infer_file(path).unwrap_err();
        assert!(
            refused.message.contains("tableau's metasheet"),
            "{}: {}",
            path.display(),
            refused.message
        );
    }
    let mut failing = Vec::new();
    for path in &files {
        let relative = path.strip_prefix(&root).unwrap().display().to_string();
        let drafts = masterctl_migrate::infer::infer_file(path)
            .unwrap_or_else(|d| panic!("{relative}: {}", d.message));
        let validation = read_back(path, &relative, &drafts);
        // A draft that does not read its file says so: each table with a mistake has a
        // note naming where and why.
        let said = |table: &str| {
            drafts.iter().any(|d| {
                d.name == table
                    && d.notes
                        .iter()
                        .any(|n| n.starts_with("the draft does not read its own file"))
            })
        };
        for d in validation
            .report
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
        {
            let table = d.location.table.as_deref().unwrap_or_default();
            assert!(said(table), "{relative}: {d} is not in the notes");
        }
        let clean = drafts.iter().all(|d| {
            !d.notes
                .iter()
                .any(|n| n.starts_with("the draft does not read its own file"))
        });
        assert_eq!(clean, !validation.report.has_errors(), "{relative}");
        if validation.report.has_errors() {
            failing.push(relative);
        }
    }
    assert_eq!(failing, NESTED_OR_UNREAD);
}

/// tabtoy's examples (`fixtures/third-party/tabtoy-examples`: version 2's workbooks, a
/// name row, a type row of its words — `int64`, `[]int32`, `repeated float`, the
/// project's own `Vec2` — a meta row, `MakeIndex:true`, a note row, then data; version
/// 3's header-only sheets, in xlsx and in GBK CSV): each drafted by `schema infer`, and
/// each file validated against its drafts. Files of definitions only (`@Types`, the
/// index, the type table) are refused by name; type and meta rows are never data (no
/// type word becomes an enum's value); a list spread over repeated headers (`BuffID`,
/// `BuffID`; `技能列表` in columns E, G and H) is one list.
#[test]
fn tabtoys_examples_read_back_through_their_drafts() {
    let root = third_party().join("tabtoy-examples");
    let files = files_under(&root, &["csv", "xlsx"]);
    assert_eq!(files.len(), 26);
    let (mut failing, mut refused, mut drafted, mut spread) = (Vec::new(), 0, 0, Vec::new());
    for path in &files {
        let relative = path.strip_prefix(&root).unwrap().display().to_string();
        let drafts = match masterctl_migrate::infer::infer_file(path) {
            Ok(drafts) => drafts,
            Err(why) => {
                assert!(
                    why.message.contains("holds no table to draft")
                        && why.message.contains("tabtoy's"),
                    "{relative}: {}",
                    why.message
                );
                refused += 1;
                continue;
            }
        };
        drafted += drafts.len();
        for field in drafts.iter().flat_map(|d| &d.fields) {
            assert!(
                !field
                    .values
                    .iter()
                    .any(|v| ["string", "int32", "ActorType"].contains(&v.as_str())),
                "{relative}: a type word became a value of {}: {:?}",
                field.name,
                field.values
            );
            if field.repeated_header {
                spread.push(format!("{relative}: {} {}", field.name, field.ty));
            }
        }
        let validation = read_back(path, &relative, &drafts);
        if validation.report.has_errors() {
            failing.push(format!("{relative}: {:#?}", validation.report));
        }
    }
    assert_eq!((refused, drafted), (8, 18));
    assert_eq!(failing, Vec::<String>::new());
    assert_eq!(
        spread,
        [
            "v2/example/Sample.xlsx: buff_id list<int>",
            "v3/example/csv/Data.csv: field_5 list<int>",
            "v3/example/csv/Data.csv: field_11 list<int>",
            "v3/example/xlsx/Data.xlsx: field_5 list<int>",
            "v3/example/xlsx/Data.xlsx: field_11 list<int>",
        ]
    );
}

/// A type row in other exporters' words — a key marked `*int`, arrays `int[]` and
/// `int[3][]`, a type of the project's own, tableau's properties — is read as types,
/// never as a record: the draft takes the key, the list and its separator, the range,
/// and says which types it could not read; validate and the draft agree on two rows.
#[test]
fn a_type_row_of_other_exporters_words_is_never_data() {
    let (_dir, path) = file_of(
        "Weapon.csv",
        b"code,name,tags,grid,pos,power\n\
         *string,string,int[],int[3][],Vec2,\"int32|{range:\"\"1,100\"\"}\"\n\
         sword,Sword,\"1,2\",1;2,x,10\n\
         bow,Bow,3,3;4,y,20\n",
    );
    let drafts = masterctl_migrate::infer::infer_file(&path).unwrap();
    let draft = &drafts[0];
    assert_eq!(draft.primary_key, ["code"]);
    let field = |name: &str| draft.fields.iter().find(|f| f.name == name).unwrap();
    assert_eq!(field("tags").ty, "list<int>");
    assert_eq!(field("tags").separator.as_deref(), Some(","));
    assert_eq!(
        (field("power").min.as_deref(), field("power").max.as_deref()),
        (Some("1"), Some("100"))
    );
    for (name, word) in [("grid", "int[3][]"), ("pos", "Vec2")] {
        assert!(
            draft
                .notes
                .iter()
                .any(|n| n.contains(&format!("`{name}`")) && n.contains(word)),
            "{name}: {:#?}",
            draft.notes
        );
    }
    let toml = draft.to_toml();
    assert!(!toml.contains("\"*string\""), "{toml}");
    let project = load_texts(
        "source_language = \"en\"\n",
        &[("weapon.toml", toml.as_str())],
    )
    .unwrap();
    let validation = validate(&project, std::slice::from_ref(&path));
    assert!(!validation.report.has_errors(), "{:#?}", validation.report);
    assert_eq!(validation.tables[0].row_count(), 2);

    // A sheet of one column: a type row of one word no data is written as (`*int`,
    // `[]int32`, a type with properties) is still types; a bare `int` could be data, and
    // is read as a row.
    for (word, types) in [
        ("*int", true),
        ("\"int32|{range:\"\"1,10\"\"}\"", true),
        ("int", false),
    ] {
        let (_dir, path) = file_of("Level.csv", format!("level\n{word}\n1\n2\n").as_bytes());
        let drafts = masterctl_migrate::infer::infer_file(&path).unwrap();
        let field = &drafts[0].fields[0];
        assert_eq!(field.ty == "int", types, "{word}: {:#?}", drafts[0]);
        let validation = read_back(&path, word, &drafts);
        assert!(!validation.report.has_errors(), "{word}");
        let rows = validation.tables[0].row_count();
        assert_eq!(rows, if types { 2 } else { 3 }, "{word}");
    }
}

/// A date written in eight digits, `20221010`, is a date: as text (CSV) and as a number
/// typed into a workbook's cell; `schema infer` drafts a column mixing it with
/// `2022-10-10` as a date, and says of a column of such numbers only that they may be.
#[test]
fn a_date_written_in_eight_digits_is_a_date() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Event.xlsx");
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let sheet = workbook.add_worksheet().set_name("event").unwrap();
    for (c, header) in ["id", "starts", "ends"].iter().enumerate() {
        sheet.write_string(0, c as u16, *header).unwrap();
    }
    sheet.write_number(1, 0, 1).unwrap();
    sheet.write_number(1, 1, 20221010).unwrap();
    sheet.write_string(1, 2, "20221231").unwrap();
    sheet.write_number(2, 0, 2).unwrap();
    sheet.write_string(2, 1, "2023-01-05").unwrap();
    sheet.write_number(2, 2, 20230131).unwrap();
    workbook.save(&path).unwrap();
    let drafts = masterctl_migrate::infer::infer_file(&path).unwrap();
    let ty = |name: &str| {
        drafts[0]
            .fields
            .iter()
            .find(|f| f.name == name)
            .unwrap()
            .ty
            .clone()
    };
    assert_eq!(ty("starts"), "date");
    let project = load(&[(
        "event.toml",
        "name = \"event\"\nprimary_key = [\"id\"]\nfields = [{ name = \"id\", type = \"int\" }, { name = \"starts\", type = \"date\" }, { name = \"ends\", type = \"date\" }]\n",
    )])
    .unwrap();
    let validation = validate(&project, &[path]);
    let rows = passed_rows(&validation);
    assert!(
        rows[0].contains("2022-10-10") && rows[0].contains("2022-12-31"),
        "{rows:?}"
    );
    assert!(rows[1].contains("2023-01-31"), "{rows:?}");
    let (_dir, csv) = file_of("Event.csv", b"id,day\n1,20221010\n2,20221011\n");
    let drafts = masterctl_migrate::infer::infer_file(&csv).unwrap();
    assert!(
        drafts[0]
            .notes
            .iter()
            .any(|n| n.contains("`day` holds eight-digit numbers")),
        "{:#?}",
        drafts[0].notes
    );
}

/// Star Force's data tables (`fixtures/third-party/starforce-datatables`: Game
/// Framework's layout, saved by Excel as “Unicode Text” — UTF-16, tab-separated — a
/// `#` marker column, a title row, names, types, notes, then the data, and a remark
/// column with no name): each drafted by `schema infer` and each file validated against
/// its drafts. The remark column is named in the draft's notes and passed over; every
/// value read equals the file's own cell, split here from the file's UTF-16 text.
#[test]
fn game_framework_data_tables_read_back_through_their_drafts() {
    let root = third_party().join("starforce-datatables");
    let files = files_under(&root, &["txt"]);
    assert_eq!(files.len(), 11);
    let mut rows = 0;
    for path in &files {
        let relative = path.strip_prefix(&root).unwrap().display().to_string();
        let drafts = masterctl_migrate::infer::infer_file(path)
            .unwrap_or_else(|d| panic!("{relative}: {}", d.message));
        assert_eq!(drafts.len(), 1, "{relative}");
        assert!(
            drafts[0].ignores_other_columns
                && drafts[0]
                    .notes
                    .iter()
                    .any(|n| n.starts_with("column C has values but no header")),
            "{relative}: {:#?}",
            drafts[0].notes
        );
        let validation = read_back(path, &relative, &drafts);
        assert!(
            !validation.report.has_errors() && validation.report.diagnostics.is_empty(),
            "{relative}: {:#?}",
            validation.report
        );
        // The file as Game Framework reads it: a row of data has no `#` in column A;
        // the names row is the second.
        let bytes = std::fs::read(path).unwrap();
        let units: Vec<u16> = bytes[2..]
            .chunks(2)
            .map(|p| u16::from_le_bytes([p[0], p[1]]))
            .collect();
        let text = String::from_utf16(&units).unwrap();
        let lines: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.trim_end_matches('\r').split('\t').collect())
            .collect();
        let names = &lines[1];
        let data: Vec<&Vec<&str>> = lines.iter().filter(|l| l[0] != "#").collect();
        let table = &validation.tables[0];
        let schema = &drafts[0];
        assert_eq!(table.row_count(), data.len(), "{relative}");
        for (field_index, field) in schema.fields.iter().enumerate() {
            let header = field.spelling.as_deref().unwrap_or(&field.name);
            let column = names
                .iter()
                .position(|n| *n == header)
                .unwrap_or_else(|| panic!("{relative}: {header} in {names:?}"));
            for (row, cells) in data.iter().enumerate() {
                let value = table.value(row, field_index).canonical();
                let cell = cells[column];
                let agrees = match cell {
                    "TRUE" | "FALSE" => value == cell.to_lowercase(),
                    _ => value == cell,
                };
                assert!(
                    agrees,
                    "{relative} row {row} {header}: {value:?} vs {cell:?}"
                );
            }
        }
        rows += data.len();
    }
    assert_eq!(rows, 38);
}

/// excel2json's example (`fixtures/third-party/excel2json-example`): names, types,
/// notes, then data; a `#` column and a `#` sheet it leaves out. Each sheet is drafted
/// and the workbook validated against the drafts: the note row of the sheet of text
/// columns is read as notes as the other sheet's is (not as a record), and the values
/// equal the JSON excel2json wrote from the workbook (its fields that the workbook still
/// has).
#[test]
fn excel2json_example_reads_back_and_agrees_with_its_json() {
    let root = third_party().join("excel2json-example");
    let path = root.join("ExampleData.xlsx");
    let drafts = masterctl_migrate::infer::infer_file(&path).unwrap();
    let names: Vec<&str> = drafts.iter().map(|d| d.sheet.as_str()).collect();
    assert_eq!(names, ["NPC", "Item"]);
    assert!(
        drafts[1]
            .notes
            .iter()
            .any(|n| n.contains("as sheet `NPC` writes them"))
    );
    assert!(!drafts[0].fields.iter().any(|f| f.name.contains("exclude")));
    let validation = read_back(&path, "ExampleData.xlsx", &drafts);
    assert!(!validation.report.has_errors(), "{:#?}", validation.report);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("ExampleData.json")).unwrap())
            .unwrap();
    let mut compared = 0;
    for (draft, table) in drafts.iter().zip(&validation.tables) {
        let records = json[draft.sheet.as_str()].as_object().unwrap();
        assert_eq!(table.row_count(), records.len(), "{}", draft.sheet);
        for row in 0..table.row_count() {
            let id = table.value(row, 0).canonical();
            let record = &records[&id];
            for (index, field) in draft.fields.iter().enumerate() {
                let header = field.spelling.as_deref().unwrap_or(&field.name);
                let Some(expected) = record.get(header) else {
                    continue;
                };
                let value = table.value(row, index).canonical();
                let expected = match expected {
                    serde_json::Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                assert_eq!(value, expected, "{} {id} {header}", draft.sheet);
                compared += 1;
            }
        }
    }
    // ID, Name, AssetName, HP, Attack, Defence of three NPCs; ID, Name, AssetName of two items.
    assert_eq!(compared, 3 * 6 + 2 * 3);
}
