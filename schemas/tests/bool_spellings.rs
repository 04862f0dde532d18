//! `bool_spellings = "luban"`: a bool's cells may write `y`, `yes`, `n`, `no` in any
//! letter case, as Luban's reader takes them, besides TRUE, FALSE, 1 and 0; canonical
//! files hold `true` and `false`. On the field, or for every bool of the project; refused
//! on what is not a bool, and a spelling set that is not one is named.

use std::path::Path;

use crate::common::{CONFIG, errors, load_texts, refused_at_load, validate};
use masterctl_schemas::{Project, Value};

const SKILL: &str = r#"
name = "skill"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "passive"
type = "bool"
bool_spellings = "luban"

[[fields]]
name = "flags"
type = "list<bool>"
bool_spellings = "luban"
optional = true

[[fields]]
name = "plain"
type = "bool"
optional = true
"#;

fn project() -> Project {
    load_texts(CONFIG, &[("skill.toml", SKILL)]).unwrap()
}

/// Each row's values as canonical text.
fn rows(project: &Project, csv: &str) -> Vec<Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skill.csv");
    std::fs::write(&path, csv).unwrap();
    let validation = validate(project, &[path]);
    assert!(errors(&validation).is_empty(), "{:#?}", validation.report);
    let table = &validation.tables[0];
    (0..table.row_count())
        .map(|r| table.row(r).map(Value::to_string).collect())
        .collect()
}

#[test]
fn lubans_spellings_are_read_as_true_and_false_and_canonical_files_hold_those() {
    let project = project();
    let csv = "id,passive,flags,plain\n1,y,Y|n|1,TRUE\n2,No,yes|false,0\n3, YES ,,\n4,n,N,\n";
    let read = rows(&project, csv);
    assert_eq!(
        read,
        [
            ["1", "true", "true|false|true", "true"],
            ["2", "false", "true|false", "false"],
            ["3", "true", "", ""],
            ["4", "false", "false", ""],
        ]
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skill.csv");
    std::fs::write(&path, csv).unwrap();
    let validation = validate(&project, &[path]);
    let schema = project.table("skill").unwrap();
    let written = masterctl_schemas::canonical::table_csv(schema, &validation.tables[0]).unwrap();
    let text = String::from_utf8(written).unwrap();
    assert_eq!(
        text,
        "id,passive,flags,plain\n1,true,true|false|true,true\n2,false,true|false,false\n3,true,,\n4,false,false,\n"
    );
    // Canonical files are read strictly: they hold `true` and `false` only.
    let again =
        masterctl_schemas::canonical::read_table(schema, text.as_bytes(), Path::new("t"), None)
            .unwrap();
    assert_eq!(again.row_count(), 4);
}

#[test]
fn other_texts_are_refused_naming_every_spelling_and_plain_fields_stay_plain() {
    let project = project();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skill.csv");
    std::fs::write(&path, "id,passive,flags,plain\n1,maybe,,\n2,y,,yes\n").unwrap();
    let validation = validate(&project, &[path]);
    let found: Vec<String> = errors(&validation).iter().map(|d| d.to_string()).collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[0].contains("skill.csv:2")
            && found[0].contains(
                "expected TRUE or FALSE (or 1 and 0, y and n, yes and no), found `maybe`"
            ),
        "{found:#?}"
    );
    // A field without the option takes none of Luban's spellings.
    assert!(
        found[1].contains("skill.csv:3") && found[1].contains("found `yes`"),
        "{found:#?}"
    );
}

#[test]
fn the_projects_spellings_apply_to_every_bool_a_field_does_not_say_otherwise_of() {
    let config = format!("bool_spellings = \"luban\"\n{CONFIG}");
    let table = "name = \"t\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"on\"\ntype = \"bool\"\n\n[[fields]]\nname = \"strict\"\ntype = \"bool\"\nbool_spellings = \"plain\"\noptional = true\n";
    let project = load_texts(&config, &[("t.toml", table)]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    std::fs::write(&path, "id,on,strict\n1,Yes,\n2,n,y\n").unwrap();
    let validation = validate(&project, &[path]);
    let found: Vec<String> = errors(&validation).iter().map(|d| d.to_string()).collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].contains("t.csv:3") && found[0].contains("found `y`"));
}

#[test]
fn bool_spellings_are_for_bools_and_name_a_set_there_is() {
    let on_int = "name = \"t\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\nbool_spellings = \"luban\"\n";
    refused_at_load(
        CONFIG,
        &[("t.toml", on_int)],
        "field `id` is not a bool: `bool_spellings` says how a bool's cells spell true and false",
    );
    let unknown = "name = \"t\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"on\"\ntype = \"bool\"\nbool_spellings = \"yesno\"\n";
    refused_at_load(
        CONFIG,
        &[("t.toml", unknown)],
        "`yesno` is not a set of bool spellings",
    );
    let config = format!("bool_spellings = \"oui-non\"\n{CONFIG}");
    refused_at_load(
        &config,
        &[(
            "t.toml",
            on_int.replace("bool_spellings = \"luban\"\n", "").as_str(),
        )],
        "`oui-non` is not a set of bool spellings",
    );
}
