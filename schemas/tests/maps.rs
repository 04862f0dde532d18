//! `map<K, V>` fields: read from `key:value|key:value` cells (or the field's own
//! separators, Luban's alternating `1,100,2,250` among them), canonical sorted by key,
//! every key and value checked, keys referencing other tables; what a map may not be
//! is refused when the schemas load.

use std::path::{Path, PathBuf};

use crate::common::{CONFIG, errors, load_texts, refused_at_load, validate};
use masterctl_schemas::{Project, Value};

const ITEM: &str =
    "name = \"item\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n";

/// Monsters: drops by item (keys reference items), resistances by element (an enum key
/// with an alias), a Luban-style map, an optional one with a default.
const MONSTER: &str = r#"
name = "monster"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "drops"
type = "map<int, float>"
references = "item.id"
min = 0.0
max = 1.0

[[fields]]
name = "resist"
type = "map<enum, int>"
values = [{ value = "fire", aliases = ["火"] }, "water"]

[[fields]]
name = "luban"
type = "map<string, int>"
separator = ","
key_separator = ","

[[fields]]
name = "bonus"
type = "map<int, int>"
default = { 1 = 10, 2 = 20 }
"#;

fn project() -> Project {
    load_texts(CONFIG, &[("item.toml", ITEM), ("monster.toml", MONSTER)]).unwrap()
}

fn files(dir: &Path, monsters: &str) -> Vec<PathBuf> {
    std::fs::write(dir.join("item.csv"), "id\n1\n2\n3\n").unwrap();
    std::fs::write(dir.join("monster.csv"), monsters).unwrap();
    vec![dir.join("item.csv"), dir.join("monster.csv")]
}

#[test]
fn a_map_reads_sorted_by_key_in_any_separators_and_writes_one_spelling() {
    let project = project();
    let dir = tempfile::tempdir().unwrap();
    let paths = files(
        dir.path(),
        "id,drops,resist,luban,bonus\n1,3:0.5|1:0.25,火:10|water:-5,\"b,2,a,1\",\n",
    );
    let validation = validate(&project, &paths);
    assert!(errors(&validation).is_empty(), "{:#?}", validation.report);
    let monster = validation
        .tables
        .iter()
        .find(|t| t.name == "monster")
        .unwrap();
    let row: Vec<String> = monster.row(0).map(Value::to_string).collect();
    assert_eq!(
        row,
        [
            "1",
            "1:0.25|3:0.5",
            "fire:10|water:-5",
            "a:1|b:2",
            "1:10|2:20"
        ]
    );
    let schema = project.table("monster").unwrap();
    let csv = masterctl_schemas::canonical::table_csv(schema, monster).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert_eq!(
        text,
        "id,drops,resist,luban,bonus\n1,1:0.25|3:0.5,fire:10|water:-5,a:1|b:2,1:10|2:20\n"
    );
    // Read back from its canonical form: the same values.
    let again = masterctl_schemas::canonical::read_table(
        schema,
        text.as_bytes(),
        Path::new("tables/monster.csv"),
        None,
    )
    .unwrap();
    assert_eq!(again.row(0).map(Value::to_string).collect::<Vec<_>>(), row);
}

#[test]
fn every_key_and_value_is_checked_at_its_cell() {
    let project = project();
    let dir = tempfile::tempdir().unwrap();
    let paths = files(
        dir.path(),
        "id,drops,resist,luban,bonus\n\
         1,1:0.5|1:0.25,fire:1,\"a,1\",\n\
         2,9:0.5,earth:1,\"a,1\",\n\
         3,1:1.5,fire:1,a,\n\
         4,1,fire:1,\"a,1\",\n",
    );
    let validation = validate(&project, &paths);
    let found: Vec<String> = errors(&validation)
        .iter()
        .map(|d| format!("{d} {d:?}"))
        .collect();
    let said = |line: &str, what: &str| {
        assert!(
            found
                .iter()
                .any(|e| e.contains(&format!("monster.csv:{line}")) && e.contains(what)),
            "line {line}: {what}: {found:#?}"
        )
    };
    said("2", "the key 1 is given twice");
    said("3", "no `item` has id 9");
    said("3", "`earth` is not a value of `resist`");
    said("4", "1.5 is above the maximum 1");
    said("4", "a key lacks its value");
    said("5", "`1` has no `:` between its key and value");
}

#[test]
fn what_a_map_may_not_be_is_refused_when_the_schemas_load() {
    let refused = |text: &str, expected: &str| {
        refused_at_load(CONFIG, &[("item.toml", ITEM), ("t.toml", text)], expected)
    };
    let table = |fields: &str, rest: &str| {
        format!(
            "name = \"t\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"m\"\n{fields}\n{rest}"
        )
    };
    for ty in [
        "map<float, int>",
        "map<int, text>",
        "map<int, list<int>>",
        "map<enum, enum>",
        "map<int>",
    ] {
        refused(&table(&format!("type = \"{ty}\""), ""), "has unknown type");
    }
    refused(
        &table(
            "type = \"map<int, int>\"",
            "\n[[indexes]]\nfields = [\"m\"]\n",
        ),
        "map field `m` cannot be indexed",
    );
    refused(
        &table("type = \"map<string, int>\"\nreferences = \"item.id\"", ""),
        "the field is map<string, int> but `item.id` is int",
    );
    refused(
        &table("type = \"map<int, int>\"\nkey_separator = \"  \"", ""),
        "key_separator",
    );
    refused(
        &table("type = \"int\"\nkey_separator = \"=\"", ""),
        "`key_separator` is for a map field",
    );
}
