//! A large plain CSV file is typed in pieces on every core; the table and the
//! diagnostics are the same as when the file is read a record at a time by the csv
//! crate (a quoted header cell makes the file not plain): every row in order with its
//! line, every mistake at its line, a column without a header reported once.

use crate::common::{load_texts, validate_csv};
use masterctl_schemas::Validation;

const CONFIG: &str = "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";

const ITEM: &str = r#"
name = "item"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"
min = 1

[[fields]]
name = "name"
type = "text"
max_length = 8

[[fields]]
name = "rarity"
type = "enum"
values = ["common", "rare"]

[[fields]]
name = "price"
type = "int"
max = 1000000
"#;

/// About 6 MB of rows (several pieces), with mistakes, blank lines, comment rows, CRLF
/// endings and values beyond the header spread over all of it.
fn large_csv(header: &str) -> String {
    let mut text = format!("{header}\n");
    for id in 1..=150_000u32 {
        let name = match id % 7919 {
            0 => "とても長すぎる名前の剣です".to_string(),
            _ => format!("剣{}", id % 1000),
        };
        let rarity = if id % 5003 == 0 {
            "legendary"
        } else {
            ["common", "rare"][id as usize % 2]
        };
        let price = if id % 6007 == 0 {
            "many".to_string()
        } else {
            (id * 3).to_string()
        };
        let beyond = if id % 40_000 == 0 { ",stray" } else { "" };
        let end = if id % 3 == 0 { "\r\n" } else { "\n" };
        text.push_str(&format!("{id},{name},{rarity},{price}{beyond}{end}"));
        if id % 10_007 == 0 {
            text.push_str("\n\n");
        }
        if id % 25_013 == 0 {
            text.push_str("# a planner's note\n");
        }
    }
    text
}

fn read(header: &str) -> (tempfile::TempDir, Validation) {
    let project = load_texts(CONFIG, &[("item.toml", ITEM)]).expect("loads");
    validate_csv(&project, "item.csv", &large_csv(header))
}

#[test]
fn pieces_typed_on_every_core_make_the_table_the_csv_crate_makes() {
    let (_plain_dir, plain) = read("id,name,rarity,price");
    let (_quoted_dir, quoted) = read("\"id\",name,rarity,price");
    assert_eq!(plain.tables.len(), 1);
    let (plain_table, quoted_table) = (&plain.tables[0], &quoted.tables[0]);
    assert_eq!(plain_table.columns[0].len(), 150_000);
    assert_eq!(plain_table.columns, quoted_table.columns);
    assert_eq!(plain_table.origin.rows, quoted_table.origin.rows);
    let said = |v: &Validation| -> Vec<String> {
        v.report
            .diagnostics
            .iter()
            .map(|d| format!("{:?} line {:?} {}", d.code, d.location.line, d.message))
            .collect()
    };
    let (plain_said, quoted_said) = (said(&plain), said(&quoted));
    assert_eq!(plain_said, quoted_said);
    // 18 long names, 29 unknown rarities, 24 prices that are not numbers, and the
    // column beyond the header once (its values are in several pieces).
    assert_eq!(plain_said.len(), 18 + 29 + 24 + 1, "{plain_said:#?}");
    assert_eq!(
        plain_said
            .iter()
            .filter(|d| d.contains("no header"))
            .count(),
        1
    );
}
