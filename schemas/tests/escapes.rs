//! `escapes = true`: a string's line breaks and tabs written `\n`, `\t` in the sheets
//! (Luban's `#escape=1`), the text itself in canonical files; a mistyped escape refused
//! at its cell; the option refused on what is not a text.

use std::path::Path;

use crate::common::{CONFIG, errors, load_texts, refused_at_load, validate};
use masterctl_schemas::{Project, Value};

const TIP: &str = r#"
name = "tip"
primary_key = ["id"]

[[fields]]
name = "id"
type = "string"

[[fields]]
name = "body"
type = "string"
escapes = true

[[fields]]
name = "raw"
type = "string"
optional = true
"#;

fn project() -> Project {
    load_texts(CONFIG, &[("tip.toml", TIP)]).unwrap()
}

#[test]
fn a_sheets_escapes_are_the_characters_and_canonical_files_hold_them() {
    let project = project();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tip.csv");
    std::fs::write(
        &path,
        "id,body,raw\n\\a,line one\\nline two\\t→,a\\nb\nb,C:\\\\games \\u00e9,\n",
    )
    .unwrap();
    let validation = validate(&project, std::slice::from_ref(&path));
    assert!(errors(&validation).is_empty(), "{:#?}", validation.report);
    let tip = &validation.tables[0];
    let rows: Vec<Vec<String>> = (0..tip.row_count())
        .map(|r| tip.row(r).map(Value::to_string).collect())
        .collect();
    // The key and the field without the option are read as written.
    assert_eq!(
        rows,
        [
            ["\\a", "line one\nline two\t→", "a\\nb"],
            ["b", "C:\\games é", ""]
        ]
    );
    let schema = project.table("tip").unwrap();
    let csv = masterctl_schemas::canonical::table_csv(schema, tip).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert_eq!(
        text,
        "id,body,raw\n\\a,\"line one\nline two\t→\",a\\nb\nb,C:\\games é,\n"
    );
    let again =
        masterctl_schemas::canonical::read_table(schema, text.as_bytes(), Path::new("t"), None)
            .unwrap();
    for (r, row) in rows.iter().enumerate() {
        assert_eq!(&again.row(r).map(Value::to_string).collect::<Vec<_>>(), row);
    }
}

#[test]
fn a_mistyped_escape_is_refused_at_its_cell() {
    let project = project();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tip.csv");
    std::fs::write(&path, "id,body,raw\n1,ok\\n,\n2,C:\\games,\n3,\\u12,\n").unwrap();
    let validation = validate(&project, &[path]);
    let found: Vec<String> = errors(&validation)
        .iter()
        .map(|d| format!("{d} {d:?}"))
        .collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].contains("tip.csv:3") && found[0].contains("`\\g` is not an escape"));
    assert!(found[0].contains("write a backslash itself as"));
    assert!(found[1].contains("tip.csv:4") && found[1].contains("`\\u12` is not an escape"));
}

#[test]
fn escapes_are_for_texts() {
    let table = "name = \"t\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\nescapes = true\n";
    refused_at_load(
        CONFIG,
        &[("t.toml", table)],
        "field `id` is not a string or text: `escapes` is for texts",
    );
}
