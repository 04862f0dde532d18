//! Unions in one cell (`kind = "union"` schemas: Luban's polymorphic beans written
//! `三角形:1:2:3`): the case named first (by its record's name or another of its names),
//! then its record; each case's fields checked with their options and references, each
//! mistake at the cell; the canonical text names the case by its record and reads back
//! as the same value.

use crate::common::{CONFIG, errors, file_of, load_texts, refused_at_load, validate};
use masterctl_schemas::Project;
use masterctl_schemas::diagnostic::Code;
use masterctl_schemas::parse::parse_text;

const TRIANGLE: &str = r#"
kind = "record"
separator = ":"
fields = [{ name = "a", type = "float", min = 0 }, { name = "b", type = "float" }, { name = "c", type = "float" }]
"#;

const CIRCLE: &str = r#"
kind = "record"
separator = ":"
fields = [{ name = "radius", type = "float", min = 0 }]
"#;

/// A prize names the item it gives: a case whose field references a table.
const PRIZE: &str = r#"
kind = "record"
separator = ":"
fields = [{ name = "item_id", type = "int", references = "item.id" }]
"#;

const SHAPE: &str = r#"
kind = "union"
description = "What a zone is shaped like"
separator = ":"
cases = [
    { record = "triangle", names = ["Triangle", "三角形"] },
    { record = "circle", names = ["Circle", "圆形"] },
    { record = "prize" },
]
"#;

const ZONE: &str = r#"
primary_key = ["id"]
fields = [
    { name = "id", type = "int" },
    { name = "shape", type = "shape", optional = true },
    { name = "shapes", type = "list<shape>", optional = true },
]
"#;

const ITEM: &str = "primary_key = [\"id\"]\nfields = [{ name = \"id\", type = \"int\" }]\n";

fn schemas<'s>(shape: &'s str, zone: &'s str) -> [(&'static str, &'s str); 6] {
    [
        ("circle.toml", CIRCLE),
        ("item.toml", ITEM),
        ("prize.toml", PRIZE),
        ("shape.toml", shape),
        ("triangle.toml", TRIANGLE),
        ("zone.toml", zone),
    ]
}

fn project() -> Project {
    load_texts(CONFIG, &schemas(SHAPE, ZONE)).unwrap()
}

#[test]
fn a_union_names_its_case_then_the_cases_record() {
    let project = project();
    let (_items_dir, items) = file_of("item.csv", b"id\n7\n");
    let (_dir, path) = file_of(
        "zone.csv",
        "id,shape,shapes\n1,三角形:1:2:3,三角形:1:2:3|Circle:1.5|prize:7\n2,circle:2,\n3,,\n"
            .as_bytes(),
    );
    let validation = validate(&project, &[items, path]);
    assert!(!validation.report.has_errors(), "{:#?}", validation.report);
    assert_eq!(
        canonical_rows(&validation, "zone"),
        [
            ["1", "triangle:1:2:3", "triangle:1:2:3|circle:1.5|prize:7"],
            ["2", "circle:2", ""],
            ["3", "", ""],
        ]
    );
    assert_reads_back(&project, &validation, "zone");
}

/// Each value of the first row of table `name` as its canonical text, which reads back
/// as the same value.
fn assert_reads_back(project: &Project, validation: &masterctl_schemas::Validation, name: &str) {
    let schema = project.table(name).unwrap();
    let table = validation.tables.iter().find(|t| t.name == name).unwrap();
    for (field, value) in schema.fields.iter().zip(table.row(0)) {
        assert_eq!(&parse_text(&field.ty, &value.canonical()).unwrap(), value);
    }
}

#[test]
fn each_mistake_names_the_case_or_its_field_at_the_cell() {
    let project = project();
    let (_items_dir, items) = file_of("item.csv", b"id\n7\n");
    let (_dir, path) = file_of(
        "zone.csv",
        "id,shape,shapes\n1,square:1,\n2,circle:-1,\n3,circle:1:2,\n4,,prize:8\n".as_bytes(),
    );
    let validation = validate(&project, &[items, path]);
    let expected = [
        (
            Code::TypeError,
            2,
            "`square` names no case of `shape` (triangle, circle, prize)",
        ),
        (
            Code::OutOfRange,
            3,
            "circle's `radius`: -1 is below the minimum 0",
        ),
        (
            Code::TypeError,
            4,
            "`circle` is 1 parts separated by `:` (radius), and the cell has 2",
        ),
        (Code::ForeignKey, 5, "no `item` has id 8"),
    ];
    assert_says(&validation, &expected);
}

/// Each error of `validation` is one of `expected` (its code, its line, words its
/// message or hint says), and each expected one is there.
fn assert_says(validation: &masterctl_schemas::Validation, expected: &[(Code, u64, &str)]) {
    let found: Vec<(Code, u64, String)> = errors(validation)
        .iter()
        .map(|d| {
            let said = format!("{} {}", d.message, d.hint.clone().unwrap_or_default());
            (d.code, d.location.line.unwrap_or_default(), said)
        })
        .collect();
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for &(code, line, says) in expected {
        assert!(
            found
                .iter()
                .any(|(c, l, s)| (*c, *l) == (code, line) && s.contains(says)),
            "no {code:?} on line {line} saying {says}: {found:#?}"
        );
    }
}

/// The rows of table `name` as `validation` typed them, each value's canonical text.
fn canonical_rows(validation: &masterctl_schemas::Validation, name: &str) -> Vec<Vec<String>> {
    let table = validation.tables.iter().find(|t| t.name == name).unwrap();
    (0..table.row_count())
        .map(|r| table.row(r).map(|v| v.canonical()).collect())
        .collect()
}

/// Luban's `*shapes` over a header merged across four columns: one union a row, its case
/// in the first column and its parts in those after; the rows below the record (its key
/// empty) go on with its list. Each mistake is at its row, in the element's first column.
#[test]
fn a_multi_row_list_takes_a_union_a_row_its_parts_over_columns() {
    const ROWS: &str = r#"
primary_key = ["id"]
fields = [
    { name = "id", type = "int" },
    { name = "shapes", type = "list<shape>", optional = true, multi_row = true, column_span = 4 },
    { name = "note", type = "string", optional = true },
]
"#;
    let project = load_texts(CONFIG, &schemas(SHAPE, ROWS)).unwrap();
    let (_items_dir, items) = file_of("item.csv", b"id\n7\n");
    let (_dir, path) = file_of(
        "zone.csv",
        "id,*shapes,,,,note\n\
         1,三角形,1,2,3,a\n\
         ,Circle,1.5,,,\n\
         ,prize,7,,,\n\
         2,,,,,b\n\
         3,circle:2,,,,\n"
            .as_bytes(),
    );
    let validation = validate(&project, &[items.clone(), path]);
    assert!(!validation.report.has_errors(), "{:#?}", validation.report);
    assert_eq!(
        canonical_rows(&validation, "zone"),
        [
            ["1", "triangle:1:2:3|circle:1.5|prize:7", "a"],
            ["2", "", "b"],
            ["3", "circle:2", ""],
        ]
    );
    let (_dir, wrong) = file_of(
        "zone.csv",
        "id,*shapes,,,,note\n\
         1,triangle,1,x,3,\n\
         ,circle,,,,\n\
         ,,1,,,\n\
         ,prize,8,,,late\n"
            .as_bytes(),
    );
    let validation = validate(&project, &[items, wrong]);
    assert_says(
        &validation,
        &[
            (Code::TypeError, 2, "`x`"),
            (Code::TypeError, 3, "`radius` is empty"),
            (Code::TypeError, 4, "names no case"),
            (Code::Required, 5, "goes on with the record above"),
            // A reference is checked on the record's whole list, at its first row.
            (Code::ForeignKey, 2, "no `item` has id 8"),
        ],
    );
}

/// A union (or record) field spread over the columns its header spans, on its row: its
/// case, then its parts, one a column; or the whole value in the first column.
#[test]
fn a_union_field_takes_its_parts_from_the_columns_its_header_spans() {
    const SPREAD: &str = r#"
primary_key = ["id"]
fields = [
    { name = "id", type = "int" },
    { name = "shape", type = "shape", optional = true, column_span = 4 },
]
"#;
    let project = load_texts(CONFIG, &schemas(SHAPE, SPREAD)).unwrap();
    let (_dir, path) = file_of(
        "zone.csv",
        "id,shape,,,\n1,三角形,1,2,3\n2,circle:2,,,\n3,,,,\n".as_bytes(),
    );
    let validation = validate(&project, &[path]);
    assert!(!validation.report.has_errors(), "{:#?}", validation.report);
    assert_eq!(
        canonical_rows(&validation, "zone"),
        [["1", "triangle:1:2:3"], ["2", "circle:2"], ["3", ""]]
    );
    let (_dir, wrong) = file_of(
        "zone.csv",
        b"id,shape,,,
1,circle,-1,,
2,circle,1,2,
",
    );
    assert_says(
        &validate(&project, &[wrong]),
        &[
            (Code::OutOfRange, 2, "-1 is below the minimum 0"),
            (Code::TypeError, 3, "the cell has 2"),
        ],
    );
    // Of a single value, a field cannot span columns.
    let int = SPREAD.replace("type = \"shape\"", "type = \"int\"");
    refused_at_load(
        CONFIG,
        &schemas(SHAPE, &int),
        "is neither a list nor a record or union",
    );
}

/// A multi-row list spread over columns holds records or unions (one a row, its parts
/// there); of single values, it is refused at load.
#[test]
fn a_multi_row_list_of_single_values_is_not_spread_over_columns() {
    let ints = r#"
primary_key = ["id"]
fields = [
    { name = "id", type = "int" },
    { name = "sizes", type = "list<int>", optional = true, multi_row = true, column_span = 2 },
]
"#;
    refused_at_load(
        CONFIG,
        &schemas(SHAPE, ints),
        "a multi-row list spread over columns holds records or unions",
    );
}

#[test]
fn a_union_is_cases_of_records_named_apart() {
    let cases = [
        (
            SHAPE.replace("record = \"prize\"", "record = \"prise\""),
            "case `prise` of union `shape` is no record type",
        ),
        (
            SHAPE.replace("names = [\"Circle\", \"圆形\"]", "names = [\"Triangle\"]"),
            "`Triangle` cannot name case `circle`",
        ),
        (
            SHAPE.replace("names = [\"Circle\", \"圆形\"]", "names = [\"a:b\"]"),
            "`a:b` cannot name case `circle`",
        ),
        (
            format!("{SHAPE}\nprimary_key = [\"x\"]\n"),
            "a union has no `primary_key`",
        ),
        (
            SHAPE.replace(
                "cases = [",
                "fields = [{ name = \"x\", type = \"int\" }]\ncases = [",
            ),
            "union `shape` has cases, not fields",
        ),
    ];
    for (shape, expected) in &cases {
        refused_at_load(CONFIG, &schemas(shape, ZONE), expected);
    }
    let keyed = ZONE.replace("primary_key = [\"id\"]", "primary_key = [\"shape\"]");
    refused_at_load(
        CONFIG,
        &schemas(SHAPE, &keyed),
        "primary key field `shape` is a union field",
    );
}

/// A record whose field is a union: of another separator, one part of the record's
/// cell; of the record's own, its case's name and then that case's parts, as many as
/// the case has (Luban's bean holding a polymorphic bean, read as one stream of parts).
const PLACED: &str = r#"
kind = "record"
separator = ","
fields = [
    { name = "x", type = "int" },
    { name = "shape", type = "shape" },
    { name = "weight", type = "int", optional = true },
]
"#;

const STEP: &str = r#"
kind = "record"
separator = ":"
fields = [{ name = "at", type = "int" }, { name = "shape", type = "shape" }]
"#;

const ROUTE: &str = r#"
primary_key = ["id"]
fields = [
    { name = "id", type = "int" },
    { name = "placed", type = "placed", optional = true },
    { name = "placings", type = "list<placed>", optional = true },
    { name = "step", type = "step", optional = true },
    { name = "steps", type = "list<step>", optional = true },
]
"#;

fn route_project() -> Project {
    let mut schemas = schemas(SHAPE, ZONE).to_vec();
    schemas.extend([
        ("placed.toml", PLACED),
        ("route.toml", ROUTE),
        ("step.toml", STEP),
    ]);
    load_texts(CONFIG, &schemas).unwrap()
}

#[test]
fn a_record_holds_a_union_in_one_part_or_as_its_cases_parts() {
    let project = route_project();
    let (_items_dir, items) = file_of("item.csv", b"id\n7\n");
    let (_dir, path) = file_of(
        "route.csv",
        concat!(
            "id,placed,placings,step,steps\n",
            "1,\"1,Circle:1.5,2\",\"1,三角形:1:2:3,|2,prize:7,1\",1:circle:2,1:triangle:1:2:3|2:prize:7\n",
            "2,,,,\n",
        )
        .as_bytes(),
    );
    let validation = validate(&project, &[items, path]);
    assert!(!validation.report.has_errors(), "{:#?}", validation.report);
    assert_eq!(
        canonical_rows(&validation, "route"),
        [
            [
                "1",
                "1,circle:1.5,2",
                "1,triangle:1:2:3,|2,prize:7,1",
                "1:circle:2",
                "1:triangle:1:2:3|2:prize:7",
            ],
            ["2", "", "", "", ""],
        ]
        .map(|row| row.map(String::from).to_vec())
    );
    assert_reads_back(&project, &validation, "route");
}

#[test]
fn a_union_in_a_record_is_checked_at_the_cell() {
    let project = route_project();
    let (_items_dir, items) = file_of("item.csv", b"id\n7\n");
    let (_dir, path) = file_of(
        "route.csv",
        concat!(
            "id,placed,placings,step,steps\n",
            "1,\"1,circle:-1,\",,,\n",
            "2,\"1,square:1,\",,,\n",
            "3,,\"1,prize:8,\",,\n",
            "4,,,1:circle,\n",
            "5,,,1:circle:2:3,\n",
            "6,,,,1:prize:7|2:triangle:1:2\n",
            "7,,,1:prize:8,\n",
        )
        .as_bytes(),
    );
    let validation = validate(&project, &[items, path]);
    let expected = [
        (
            Code::OutOfRange,
            2,
            "circle's `radius`: -1 is below the minimum 0",
        ),
        (
            Code::TypeError,
            3,
            "`square` names no case of `shape` (triangle, circle, prize)",
        ),
        (Code::ForeignKey, 4, "no `item` has id 8"),
        (
            Code::TypeError,
            5,
            "its `shape` a case's name and then that case's parts; the cell's 2 parts do not make one",
        ),
        (Code::TypeError, 6, "the cell's 4 parts do not make one"),
        (Code::TypeError, 7, "the cell's 4 parts do not make one"),
        (Code::ForeignKey, 8, "no `item` has id 8"),
    ];
    assert_says(&validation, &expected);
}

#[test]
fn records_and_unions_name_one_another_never_in_a_circle() {
    // A union's case holding the union: a circle through a case.
    let holding = r#"
kind = "record"
separator = ";"
fields = [{ name = "inner", type = "shape" }]
"#;
    let shape = SHAPE.replace("{ record = \"prize\" }", "{ record = \"nest\" }");
    let mut circling = schemas(&shape, ZONE).to_vec();
    circling.push(("nest.toml", holding));
    refused_at_load(
        CONFIG,
        &circling,
        "union `shape` holds itself, through its cases",
    );
    // A union whose text holds the record's separator would split the record's cell
    // (`triangle`'s parts, separated by `,`, in `placed`'s).
    let comma_case = TRIANGLE.replace("separator = \":\"", "separator = \",\"");
    let shape_over = SHAPE.replace("separator = \":\"", "separator = \";\"");
    let over = [
        ("circle.toml", CIRCLE),
        ("item.toml", ITEM),
        ("placed.toml", PLACED),
        ("prize.toml", PRIZE),
        ("shape.toml", shape_over.as_str()),
        ("triangle.toml", comma_case.as_str()),
        ("zone.toml", ZONE),
    ];
    refused_at_load(
        CONFIG,
        &over,
        "field `shape` of record `placed` is a `shape`, whose text holds `,`",
    );
}
