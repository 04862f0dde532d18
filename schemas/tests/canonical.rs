//! Canonical CSV: exact bytes, one spelling per value, and a lossless round trip.

use crate::common::*;
use masterctl_schemas::canonical::{language_csv, read_table, table_csv};
use std::path::Path;

#[test]
fn hunt_tables_have_exactly_these_canonical_bytes() {
    let project = project(&hunt());
    let v = validate(&project, &[hunt().join("hunt.ods")]);
    let table = |name: &str| v.tables.iter().find(|t| t.name == name).unwrap();
    let schema = |name: &str| project.table(name).unwrap();
    assert_eq!(
        String::from_utf8(table_csv(schema("reward"), table("reward")).unwrap()).unwrap(),
        "monster_id,material_id,rate,amount\n100,10,0.45,1\n100,11,0.12,1\n101,10,0.05,1\n101,12,0.5,2\n102,13,0.9,1\n"
    );
    let habitat =
        String::from_utf8(table_csv(schema("habitat"), table("habitat")).unwrap()).unwrap();
    assert_eq!(
        habitat, "id\n1\n2\n3\n",
        "text lives only in the language table"
    );
    let names = String::from_utf8(
        language_csv(schema("habitat"), table("habitat"))
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    assert!(names.starts_with("id,name\n1,"), "{names}");
    let monster =
        String::from_utf8(table_csv(schema("monster"), table("monster")).unwrap()).unwrap();
    assert!(
        monster.starts_with("id,element,hp,attack,habitat_id,boss\n100,fire,5200,310,2,true\n"),
        "{monster}"
    );
}

#[test]
fn canonical_files_read_back_into_the_same_tables() {
    for (root, inputs) in [
        (hunt(), vec![hunt().join("hunt.xlsx")]),
        (fixtures(), vec![fixtures().join("workbooks")]),
    ] {
        let project = project(&root);
        let v = validate(&project, &inputs);
        assert!(!v.report.has_errors());
        for table in &v.tables {
            let schema = project.table(&table.name).unwrap();
            let data = table_csv(schema, table).unwrap();
            let text = language_csv(schema, table).unwrap();
            let back = read_table(
                schema,
                &data,
                Path::new("tables/x.csv"),
                text.as_deref().map(|t| (t, Path::new("locales/ja/x.csv"))),
            )
            .unwrap_or_else(|e| panic!("{}: {e:#?}", table.name));
            // Same rows in key order: compare as canonical bytes, then column by column.
            assert_eq!(table_csv(schema, &back).unwrap(), data, "{}", table.name);
            assert_eq!(language_csv(schema, &back).unwrap(), text, "{}", table.name);
        }
    }
}

/// A large table is written in pieces of rows on every core and joined: the same bytes,
/// in key order, as written row by row (rows given out of order, keys of every width).
#[test]
fn a_large_table_is_written_in_pieces_as_row_by_row() {
    const SCHEMA: &str = r#"
primary_key = ["id"]
fields = [
    { name = "id", type = "int" },
    { name = "price", type = "float" },
    { name = "name", type = "string", optional = true },
    { name = "tags", type = "list<int>", optional = true },
    { name = "title", type = "text", optional = true },
]
"#;
    let project = load_texts(CONFIG, &[("item.toml", SCHEMA)]).unwrap();
    let rows = 60_000;
    let line = |id: usize| {
        let name = match id % 5 {
            0 => String::new(),
            1 => format!("\"quoted, {id}\""),
            _ => format!("n{id}"),
        };
        format!("{id},{}.5,{name},{}|{},t{id}\n", id % 1000, id % 7, id % 11)
    };
    // Written in reverse key order: the canonical file puts them in order.
    let input: String = std::iter::once("id,price,name,tags,title\n".to_string())
        .chain((1..=rows).rev().map(line))
        .collect();
    let (_dir, path) = file_of("item.csv", input.as_bytes());
    let v = validate(&project, &[path]);
    assert!(!v.report.has_errors(), "{:#?}", v.report);
    let (schema, table) = (project.table("item").unwrap(), &v.tables[0]);
    let data = String::from_utf8(table_csv(schema, table).unwrap()).unwrap();
    let expected: String = std::iter::once("id,price,name,tags\n".to_string())
        .chain((1..=rows).map(|id| {
            let full = line(id);
            full[..full.rfind(",t").unwrap()].to_string() + "\n"
        }))
        .collect();
    assert!(
        data == expected,
        "the pieces make the file row by row would"
    );
    let text = String::from_utf8(language_csv(schema, table).unwrap().unwrap()).unwrap();
    assert_eq!(text.lines().count(), rows + 1);
    assert!(
        text.starts_with("id,title\n1,t1\n2,t2\n"),
        "{}",
        &text[..40]
    );
}
