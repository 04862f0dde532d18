//! Records in one cell (`kind = "record"` schemas: Luban's beans written `20001,1`):
//! read from CSV and workbooks alike, a list's or a map's records each, a record in a
//! record (flattened when it shares the separator, split at its own when not), each
//! field's options checked and named, references checked into their tables, and the
//! canonical text reading back as the same value.

use crate::common::{CONFIG, errors, file_of, load_texts, one_sheet, refused_at_load, validate};
use masterctl_schemas::Project;
use masterctl_schemas::Validation;
use masterctl_schemas::diagnostic::Code;
use masterctl_schemas::parse::parse_text;

const ITEM: &str = r#"
primary_key = ["id"]
fields = [{ name = "id", type = "int" }]
"#;

const ITEM_COST: &str = r#"
kind = "record"
description = "What a draw costs: an item and how many"
fields = [
    { name = "item_id", type = "int", references = "item.id" },
    { name = "count", type = "int", min = 1 },
]
"#;

const TIME_OF_DAY: &str = r#"
kind = "record"
separator = ":"
fields = [
    { name = "hour", type = "int", min = 0, max = 23 },
    { name = "minute", type = "int", min = 0, max = 59 },
    { name = "second", type = "int", optional = true },
]
"#;

const OPENING: &str = r#"
kind = "record"
separator = ";"
fields = [
    { name = "start", type = "time_of_day" },
    { name = "end", type = "time_of_day" },
]
"#;

/// A reward: its kind, then an item cost's parts (the same separator: they follow on).
const REWARD: &str = r#"
kind = "record"
fields = [
    { name = "kind", type = "enum", values = [{ value = "item", aliases = ["道具"] }, "gold"] },
    { name = "cost", type = "item_cost" },
]
"#;

const GACHA: &str = r#"
primary_key = ["id"]
fields = [
    { name = "id", type = "int" },
    { name = "costs", type = "list<item_cost>", optional = true },
    { name = "open", type = "opening", optional = true },
    { name = "bonus", type = "reward", optional = true },
    { name = "by_rank", type = "map<int, item_cost>", optional = true },
]
"#;

/// The schema files, `item_cost` and `gacha` as given.
fn schemas<'s>(item_cost: &'s str, gacha: &'s str) -> [(&'static str, &'s str); 6] {
    [
        ("item.toml", ITEM),
        ("item_cost.toml", item_cost),
        ("time_of_day.toml", TIME_OF_DAY),
        ("opening.toml", OPENING),
        ("reward.toml", REWARD),
        ("gacha.toml", gacha),
    ]
}

fn project(gacha: &str) -> Project {
    load_texts(CONFIG, &schemas(ITEM_COST, gacha)).unwrap()
}

const ITEMS_CSV: &[u8] = b"id\n20001\n20002\n";

/// Validate the gacha table's `csv` beside the items.
fn validate_gacha(project: &Project, csv: &str) -> (Vec<tempfile::TempDir>, Validation) {
    let (items_dir, items) = file_of("item.csv", ITEMS_CSV);
    let (dir, path) = file_of("gacha.csv", csv.as_bytes());
    let validation = validate(project, &[items, path]);
    (vec![items_dir, dir], validation)
}

/// Each row of the gacha table, its values' canonical texts.
fn gacha_rows(validation: &Validation) -> Vec<Vec<String>> {
    assert!(!validation.report.has_errors(), "{:#?}", validation.report);
    let table = validation
        .tables
        .iter()
        .find(|t| t.name == "gacha")
        .unwrap();
    (0..table.row_count())
        .map(|r| table.row(r).map(|v| v.canonical()).collect())
        .collect()
}

/// Each error's code, place (a workbook's cell; a CSV file's field and line:
/// `costs:2`) and message with its hint.
fn errors_of(validation: &Validation) -> Vec<(Code, String, String)> {
    errors(validation)
        .iter()
        .map(|d| {
            let said = format!("{} {}", d.message, d.hint.clone().unwrap_or_default());
            let at = &d.location;
            let place = match (&at.cell, at.line, &at.field) {
                (Some(cell), _, _) => cell.clone(),
                (None, Some(line), Some(field)) => format!("{field}:{line}"),
                _ => String::new(),
            };
            (d.code, place, said)
        })
        .collect()
}

#[test]
fn records_read_from_one_cell_in_lists_maps_and_records() {
    let project = project(GACHA);
    let (_dirs, validation) = validate_gacha(
        &project,
        "id,costs,open,bonus,by_rank\n\
         1,\"20001,1|20002, 3\",10:00:00;12:30:5,\"道具,20001,5\",\"2:20002,1|1:20001,2\"\n\
         2,,,,\n",
    );
    assert_eq!(
        gacha_rows(&validation),
        [
            [
                "1",
                "20001,1|20002,3",
                "10:0:0;12:30:5",
                "item,20001,5",
                "1:20001,2|2:20002,1"
            ],
            ["2", "", "", "", ""],
        ]
    );
    // Each canonical text reads back as the value it spells.
    let table = validation
        .tables
        .iter()
        .find(|t| t.name == "gacha")
        .unwrap();
    let schema = project.table("gacha").unwrap();
    for (field, value) in schema.fields.iter().zip(table.row(0)) {
        assert_eq!(&parse_text(&field.ty, &value.canonical()).unwrap(), value);
    }
    // An optional field of a record left empty is null; its parts are still counted.
    let (_dirs, validation) = validate_gacha(
        &project,
        "id,costs,open,bonus,by_rank\n3,,10:00:;11:00:00,,\n",
    );
    assert_eq!(gacha_rows(&validation)[0][2], "10:0:;11:0:0");
}

#[test]
fn a_workbook_writes_records_with_the_fields_own_list_separator() {
    let gacha = GACHA.replace(
        "type = \"list<item_cost>\", optional = true",
        "type = \"list<item_cost>\", optional = true, separator = \";\"",
    );
    let project = project(&gacha);
    let (_dir, path) = one_sheet(
        "gacha",
        &[
            &["id", "costs", "open", "bonus", "by_rank"],
            &["1", "20001,1;20002,3", "", "gold,20002,2", ""],
        ],
    );
    let (_items_dir, items) = file_of("item.csv", ITEMS_CSV);
    let validation = validate(&project, &[items, path]);
    assert_eq!(
        gacha_rows(&validation),
        [["1", "20001,1|20002,3", "", "gold,20002,2", ""]]
    );
}

#[test]
fn each_mistake_names_the_records_field_at_its_cell() {
    let project = project(GACHA);
    let (_dirs, validation) = validate_gacha(
        &project,
        "id,costs,open,bonus,by_rank\n\
         1,\"20001,1,5\",,,\n\
         2,\"20001,x\",,,\n\
         3,\"20001,0\",,,\n\
         4,\"20001,\",,,\n\
         5,\"99999,1\",,,\n\
         6,,24:00:00;10:00:00,,\n\
         7,,,\"gem,20001,1\",\n",
    );
    let found = errors_of(&validation);
    // Each place, its mistake's code and what it says.
    let expected = [
        (
            "costs:2",
            Code::TypeError,
            "is 2 parts separated by `,` (item_id,count), and the cell has 3",
        ),
        (
            "costs:3",
            Code::TypeError,
            "(its `count`: a whole number): `x` is not a whole number",
        ),
        (
            "costs:4",
            Code::OutOfRange,
            "item_cost's `count`: 0 is below the minimum 1",
        ),
        ("costs:5", Code::TypeError, "`count` is empty"),
        ("costs:6", Code::ForeignKey, "no `item` has id 99999"),
        (
            "open:7",
            Code::OutOfRange,
            "time_of_day's `hour`: 24 is above the maximum 23",
        ),
        ("bonus:8", Code::EnumValue, "`gem`"),
    ];
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for (place, code, says) in expected {
        assert!(
            found
                .iter()
                .any(|(c, p, said)| (*c, p.as_str()) == (code, place) && said.contains(says)),
            "no {code:?} at {place} saying {says}: {found:#?}"
        );
    }
}

#[test]
fn a_text_in_a_list_of_records_holds_no_bar() {
    let note = r#"
kind = "record"
separator = ";"
fields = [{ name = "id", type = "int" }, { name = "note", type = "string" }]
"#;
    let table = r#"
primary_key = ["id"]
fields = [
    { name = "id", type = "int" },
    { name = "notes", type = "list<note>", separator = "/" },
    { name = "one", type = "note", optional = true },
]
"#;
    let project = load_texts(CONFIG, &[("note.toml", note), ("board.toml", table)]).unwrap();
    let (_dir, path) = file_of("board.csv", b"id,notes,one\n1,1;a|b/2;c,1;x|y\n");
    let validation = validate(&project, &[path]);
    let found = errors_of(&validation);
    // In a list, `|` would split the record in canonical files; in one record it is text.
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].1, "notes:2");
    assert!(
        found[0].2.contains("note's `note`: `note` holds `|`"),
        "{found:#?}"
    );
}

#[test]
fn a_record_is_a_type_with_fields_of_one_value() {
    // Each change of `item_cost`, and what the loader says of it.
    let cases = [
        (
            "kind = \"record\"",
            "kind = \"record\"\nprimary_key = [\"item_id\"]",
            "a record has no `primary_key`",
        ),
        (
            "kind = \"record\"",
            "kind = \"record\"\nlayout = \"vertical\"",
            "a record has no `layout`",
        ),
        (
            "type = \"int\", min = 1",
            "type = \"list<int>\"",
            "field `count` of record `item_cost` is list<int>: a record's field holds one value",
        ),
        (
            "min = 1",
            "min = 1, column = \"数\"",
            "option `column` does not apply to field `count` of a record",
        ),
        (
            "kind = \"record\"",
            "kind = \"record\"\nseparator = \"|\"",
            "`|` separates the records of a list",
        ),
        (
            "type = \"int\", min = 1",
            "type = \"reward\"",
            "record `item_cost` holds itself",
        ),
        (
            "references = \"item.id\"",
            "references = \"item.name\"",
            "field `item_id` of record `item_cost` references `item.name`: table `item` has no field `name`",
        ),
        (
            "kind = \"record\"",
            "kind = \"record\"\nname = \"item\"",
            "`item` is another schema's name",
        ),
    ];
    for (from, to, expected) in cases {
        let record = ITEM_COST.replace(from, to);
        refused_at_load(CONFIG, &schemas(&record, GACHA), expected);
    }
    // A type that is neither built in nor a record: the closest record is suggested.
    let misspelt = GACHA.replace("list<item_cost>", "list<item_cots>");
    refused_at_load(
        CONFIG,
        &schemas(ITEM_COST, &misspelt),
        "did you mean `list<item_cost>`",
    );
}

/// A record holds several values: no key, index or generated master is made of one.
#[test]
fn a_record_field_is_no_key_index_or_group() {
    let refused = |gacha: &str, expected: &str| {
        refused_at_load(CONFIG, &schemas(ITEM_COST, gacha), expected);
    };
    refused(
        &GACHA.replace("primary_key = [\"id\"]", "primary_key = [\"open\"]"),
        "primary key field `open` is a record field",
    );
    refused(
        &format!("{GACHA}\n[[indexes]]\nfields = [\"bonus\"]\n"),
        "record field `bonus` cannot be indexed",
    );
    let group = "[custom]\nkind = \"group\"\ntable = \"gacha\"\ngroup_by = [\"open\"]\n";
    let mut files = schemas(ITEM_COST, GACHA).to_vec();
    files.push(("gacha_by_open.toml", group));
    refused_at_load(CONFIG, &files, "`group_by` names `open`, a record");
}

/// A record of one part in a cell the spreadsheet typed (a boolean, a date) is its
/// field's value, as its text would be; nested records of one part alike.
#[test]
fn a_record_of_one_part_reads_a_typed_cell() {
    let shown = "kind = \"record\"\nfields = [{ name = \"on\", type = \"bool\" }]\n";
    let flag = "kind = \"record\"\nfields = [{ name = \"shown\", type = \"shown\" }]\n";
    let stamp =
        "kind = \"record\"\nfields = [{ name = \"at\", type = \"date\", min = 2024-01-01 }]\n";
    let hero = r#"
primary_key = ["id"]
fields = [
    { name = "id", type = "int" },
    { name = "flag", type = "flag" },
    { name = "since", type = "stamp" },
]
"#;
    let schemas = [
        ("shown.toml", shown),
        ("flag.toml", flag),
        ("stamp.toml", stamp),
        ("hero.toml", hero),
    ];
    let project = load_texts(CONFIG, &schemas).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hero.xlsx");
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let sheet = workbook.add_worksheet().set_name("hero").unwrap();
    let date = |y, m, d| rust_xlsxwriter::ExcelDateTime::from_ymd(y, m, d).unwrap();
    let format = rust_xlsxwriter::Format::new().set_num_format("yyyy-mm-dd");
    for (column, title) in ["id", "flag", "since"].into_iter().enumerate() {
        sheet.write_string(0, column as u16, title).unwrap();
    }
    sheet.write_number(1, 0, 1).unwrap();
    sheet.write_boolean(1, 1, true).unwrap();
    sheet
        .write_datetime_with_format(1, 2, date(2024, 5, 1), &format)
        .unwrap();
    sheet.write_number(2, 0, 2).unwrap();
    sheet.write_boolean(2, 1, false).unwrap();
    sheet
        .write_datetime_with_format(2, 2, date(2023, 5, 1), &format)
        .unwrap();
    workbook.save(&path).unwrap();
    let validation = validate(&project, &[path]);
    let found = errors_of(&validation);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!((found[0].0, found[0].1.as_str()), (Code::OutOfRange, "C3"));
    let row: Vec<String> = validation.tables[0].row(0).map(|v| v.canonical()).collect();
    assert_eq!(row, ["1", "true", "2024-05-01"]);
}

/// A record's bool field reads the spellings its field takes (its own, or the
/// project's `bool_spellings`), as any bool field does.
#[test]
fn a_records_bool_reads_the_spellings_its_field_takes() {
    let flags = "kind = \"record\"\nfields = [{ name = \"shown\", type = \"bool\", bool_spellings = \"luban\" }, { name = \"sold\", type = \"bool\" }]\n";
    let shop = "primary_key = [\"id\"]\nfields = [{ name = \"id\", type = \"int\" }, { name = \"flags\", type = \"flags\" }]\n";
    let project = load_texts(CONFIG, &[("flags.toml", flags), ("shop.toml", shop)]).unwrap();
    let (_dir, path) = file_of(
        "shop.csv",
        b"id,flags\n1,\"yes,1\"\n2,\"N,false\"\n3,\"1,y\"\n",
    );
    let validation = validate(&project, &[path]);
    let found = errors_of(&validation);
    // `sold` takes the plain spellings alone.
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].1, "flags:4");
    let rows: Vec<String> = (0..2)
        .map(|r| validation.tables[0].value(r, 1).canonical())
        .collect();
    assert_eq!(rows, ["true,true", "false,false"]);
}

/// Luban's optional bean written in one cell: its fields, `null`, or a name of its type
/// (`{}`, `vec3`) before its fields.
#[test]
fn a_record_may_be_named_before_its_parts() {
    let vec3 = "kind = \"record\"\nnames = [\"{}\", \"vec3\"]\nfields = [{ name = \"x\", type = \"int\" }, { name = \"y\", type = \"int\" }, { name = \"z\", type = \"int\" }]\n";
    let point = "primary_key = [\"id\"]\nfields = [{ name = \"id\", type = \"int\" }, { name = \"at\", type = \"vec3\", optional = true, null = [\"null\"] }, { name = \"path\", type = \"list<vec3>\", optional = true }]\n";
    let project = load_texts(CONFIG, &[("vec3.toml", vec3), ("point.toml", point)]).unwrap();
    let (_dir, path) = file_of(
        "point.csv",
        "id,at,path\n1,\"1,2,3\",\n2,null,\n3,\"{},2,3,4\",\"vec3,1,1,1|2,2,2\"\n4,\"vec3,2,2,2\",\n5,,\n6,\"box,1,2,3\",\n"
            .as_bytes(),
    );
    let validation = validate(&project, &[path]);
    let found: Vec<String> = errors(&validation)
        .iter()
        .map(|d| format!("{} {}", d.location.line.unwrap_or_default(), d.message))
        .collect();
    // Another word before the parts is one part too many.
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].starts_with("7 "), "{found:#?}");
    let table = &validation.tables[0];
    let rows: Vec<String> = (0..table.row_count())
        .map(|r| {
            table
                .row(r)
                .map(|v| v.canonical())
                .collect::<Vec<_>>()
                .join(";")
        })
        .collect();
    assert_eq!(
        rows,
        [
            "1;1,2,3;",
            "2;;",
            "3;2,3,4;1,1,1|2,2,2",
            "4;2,2,2;",
            "5;;",
            "6;;"
        ]
    );
    for (names, expected) in [
        ("[\"a,b\"]", "`a,b` cannot name the record in its cells"),
        ("[\"\"]", "a record's name in its cells is not empty"),
        ("[\"v\", \"v\"]", "`v` is named twice"),
    ] {
        let named = vec3.replace("[\"{}\", \"vec3\"]", names);
        refused_at_load(
            CONFIG,
            &[("vec3.toml", &named), ("point.toml", point)],
            expected,
        );
    }
    refused_at_load(
        CONFIG,
        &[
            ("vec3.toml", vec3),
            ("point.toml", &format!("names = [\"p\"]\n{point}")),
        ],
        "a table has no `names`",
    );
}
