//! Tables whose rows are of several cases (Luban's table of a polymorphic bean, its
//! `__type__` column choosing each row's type): `case_field` names the enum field saying
//! a row's case, and a field of some cases (`cases = ["item"]`) is filled by those rows
//! alone — required in them unless optional, empty in the others, each mistake at its
//! cell; a sheet of other cases' rows may leave the column out.

use crate::common::{
    CONFIG, errors, file_of, load_texts, passed_rows, refused_at_load, validate, workbook,
};
use masterctl_schemas::Project;
use masterctl_schemas::diagnostic::Code;

/// Things a player owns: goods (`num`, `price`), gear (`attr`, `value`), each row one.
const THING: &str = r#"
primary_key = ["id"]
case_field = "type"
fields = [
    { name = "id", type = "int" },
    { name = "type", type = "enum", column = "__type__", values = [
        { value = "goods", aliases = ["Item"] },
        { value = "gear", aliases = ["Equipment"] },
        { value = "charm" },
    ] },
    { name = "name", type = "string" },
    { name = "num", type = "int", min = 1, cases = ["goods"] },
    { name = "price", type = "int", cases = ["goods", "gear"] },
    { name = "attr", type = "enum", values = ["a", "b"], cases = ["gear"] },
    { name = "note", type = "string", optional = true, cases = ["gear"] },
]
"#;

fn project(schema: &str) -> Project {
    load_texts(CONFIG, &[("thing.toml", schema)]).unwrap()
}

#[test]
fn each_row_fills_its_own_cases_fields() {
    let (_dir, path) = file_of(
        "thing.csv",
        "id,__type__,name,num,price,attr,note\n\
         1,Item,Potion,3,15,,\n\
         2,Equipment,Sword,,100,a,sharp\n\
         3,gear,Shield,,80,b,\n\
         4,charm,Ring,,,,\n"
            .as_bytes(),
    );
    let validation = validate(&project(THING), &[path]);
    assert_eq!(
        passed_rows(&validation),
        [
            "1,goods,Potion,3,15,,",
            "2,gear,Sword,,100,a,sharp",
            "3,gear,Shield,,80,b,",
            "4,charm,Ring,,,,",
        ]
    );
}

#[test]
fn a_default_fills_an_empty_cell_in_its_cases_rows_alone() {
    let defaulted = THING.replace(
        "cases = [\"goods\", \"gear\"]",
        "cases = [\"goods\", \"gear\"], default = 10",
    );
    let (_dir, path) = file_of(
        "thing.csv",
        "id,__type__,name,num,price,attr,note\n1,goods,Potion,3,,,\n4,charm,Ring,,,,\n".as_bytes(),
    );
    let validation = validate(&project(&defaulted), &[path]);
    assert_eq!(
        passed_rows(&validation),
        ["1,goods,Potion,3,10,,", "4,charm,Ring,,,,"]
    );
}

#[test]
fn a_value_of_another_case_and_a_missing_value_of_its_own_are_mistakes_at_their_cells() {
    let (_dir, path) = file_of(
        "thing.csv",
        "id,__type__,name,num,price,attr,note\n\
         1,goods,Potion,,15,a,\n\
         2,gear,Sword,2,,a,\n\
         3,charm,Ring,5,,,\n\
         4,trinket,Ring,5,,,\n\
         5,goods,Elixir,0,3,,\n"
            .as_bytes(),
    );
    let validation = validate(&project(THING), &[path]);
    let found: Vec<(Code, u64, String)> = errors(&validation)
        .iter()
        .map(|d| {
            let said = format!("{} {}", d.message, d.hint.clone().unwrap_or_default());
            let at = format!("{} {}", d.location.field.clone().unwrap_or_default(), said);
            (d.code, d.location.line.unwrap_or_default(), at)
        })
        .collect();
    let expected = [
        (
            Code::Required,
            2,
            "num `num` is required in a row of case `goods`",
        ),
        (
            Code::OtherCase,
            2,
            "attr `attr` is filled by rows of case `gear` alone, and this row is of case `goods`",
        ),
        (
            Code::OtherCase,
            3,
            "num `num` is filled by rows of case `goods` alone",
        ),
        (
            Code::Required,
            3,
            "price `price` is required in a row of case `gear`",
        ),
        (
            Code::OtherCase,
            4,
            "num `num` is filled by rows of case `goods` alone, and this row is of case `charm`",
        ),
        // A row of no known case: its case is the mistake, and its fields are not
        // held to a case.
        (Code::EnumValue, 5, "type `trinket`"),
        // A field's own rules hold in its cases' rows.
        (Code::OutOfRange, 6, "num 0 is below the minimum 1"),
    ];
    for (code, line, says) in expected {
        assert!(
            found
                .iter()
                .any(|(c, l, s)| (*c, *l) == (code, line) && s.contains(says)),
            "no {code:?} at line {line} saying {says}: {found:#?}"
        );
    }
    assert_eq!(found.len(), expected.len(), "{found:#?}");
}

#[test]
fn a_sheet_of_other_cases_rows_may_leave_a_cases_column_out() {
    let spread = THING
        .replace(
            "primary_key = [\"id\"]",
            "source = \"thing.xlsx#*\"\nprimary_key = [\"id\"]",
        )
        .replace(
            "cases = [\"gear\"] },\n]",
            "cases = [\"gear\"] },\n    { name = \"sheet\", type = \"string\", source_sheet = true },\n]",
        );
    let (_dir, path) = workbook(
        "thing.xlsx",
        &[
            (
                "goods",
                &[
                    &["__type__", "id", "name", "num", "price"],
                    &["Item", "1", "Potion", "3", "15"],
                ],
            ),
            (
                "gear",
                &[
                    &["__type__", "id", "name", "price", "attr"],
                    &["Equipment", "2", "Sword", "100", "a"],
                ],
            ),
            // A row of goods on a sheet without `num`: told it has none.
            (
                "mixed",
                &[
                    &["__type__", "id", "name", "price"],
                    &["Item", "5", "Elixir", "9"],
                ],
            ),
        ],
    );
    let validation = validate(&project(&spread), &[path]);
    let found: Vec<String> = errors(&validation)
        .iter()
        .map(|d| format!("{} {}", d.location.place(), d.message))
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].contains("mixed")
            && found[0].contains("`num` is required in a row of case `goods`"),
        "{found:#?}"
    );
}

#[test]
fn a_case_field_is_a_required_enum_whose_values_the_fields_cases_name() {
    // Each: what is written instead of what, and what loading says of it.
    let refused: [(&str, &str, &str); 10] = [
        (
            "case_field = \"type\"",
            "case_field = \"kind\"",
            "case_field names `kind`, which is not a field of this table",
        ),
        (
            "case_field = \"type\"",
            "case_field = \"name\"",
            "the case field `name` is",
        ),
        (
            "column = \"__type__\",",
            "column = \"__type__\", optional = true,",
            "the case field `type` is optional or has a default",
        ),
        (
            "cases = [\"goods\"]",
            "cases = [\"good\"]",
            "`good` is not a case: the case field `type` has no such value",
        ),
        (
            "cases = [\"goods\"]",
            "cases = [\"goods\", \"goods\"]",
            "field `num` names case `goods` twice",
        ),
        (
            "cases = [\"goods\"]",
            "cases = []",
            "field `num` names no case",
        ),
        (
            "{ name = \"id\", type = \"int\" }",
            "{ name = \"id\", type = \"int\", cases = [\"gear\"] }",
            "field `id` is in the primary key: every row has one",
        ),
        (
            "case_field = \"type\"\n",
            "",
            "field `num` is filled by some cases' rows, and the table has no `case_field`",
        ),
        (
            "case_field = \"type\"",
            "case_field = \"type\"\nseparator = \":\"",
            "a table has no `separator`: it is a record's or a union type's option",
        ),
        (
            "{ name = \"note\", type = \"string\", optional = true, cases = [\"gear\"] }",
            "{ name = \"note\", type = \"string\", optional = true, cases = [\"gear\"], audience = [\"client\"] }",
            "would not see a row's case",
        ),
    ];
    for (written, instead, expected) in refused {
        // The case field is for servers alone where a field of some cases is for clients.
        let schema = THING.replace(written, instead).replace(
            "column = \"__type__\",",
            match expected.contains("would not see") {
                true => "column = \"__type__\", audience = [\"server\"],",
                false => "column = \"__type__\",",
            },
        );
        refused_at_load(CONFIG, &[("thing.toml", &schema)], expected);
    }
}

#[test]
fn a_large_sheet_typed_in_pieces_says_each_rows_case_mistakes_once_at_its_own_line() {
    // Over a few MB, a CSV file is typed in pieces on every core.
    let mut text = String::from("id,__type__,name,num,price,attr,note\n");
    let rows = 120_000;
    for id in 1..=rows {
        match id {
            // A wrong value in its own case: said once, not as missing too.
            70_000 => text.push_str("70000,goods,Elixir,0,3,,\n"),
            // A value of another case.
            110_000 => text.push_str("110000,charm,Ring,5,,,\n"),
            id => text.push_str(&format!("{id},gear,Sword number {id},,100,a,a note\n")),
        }
    }
    let (_dir, path) = file_of("thing.csv", text.as_bytes());
    let validation = validate(&project(THING), &[path]);
    let found: Vec<(Code, u64)> = errors(&validation)
        .iter()
        .map(|d| (d.code, d.location.line.unwrap_or_default()))
        .collect();
    assert_eq!(
        found,
        [(Code::OutOfRange, 70_001), (Code::OtherCase, 110_001)]
    );
}
