//! A date-time cell of a workbook is what the cell shows: its serial rounded to the
//! fraction of a second its number format shows, as Excel rounds what it displays. A
//! serial written with ten decimals (`36528.0034721644`, 00:04:59.995004) under
//! `yyyy-mm-dd hh:mm:ss` is 00:05:00, as Excel shows it; under `hh:mm:ss.000` it keeps
//! its milliseconds.

use std::path::{Path, PathBuf};

use crate::common::{CONFIG, errors, load_texts, validate};
use masterctl_schemas::Value;
use rust_xlsxwriter::{Format, Workbook};

const EVENT: &str = r#"
name = "event"
primary_key = ["id"]
fields = [{ name = "id", type = "int" }, { name = "starts_at", type = "datetime" }]
"#;

/// A workbook of events: each row's id, its serial and the number format it is shown in.
fn workbook(dir: &Path, rows: &[(i32, f64, &str)]) -> PathBuf {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    sheet.set_name("event").unwrap();
    sheet.write_string(0, 0, "id").unwrap();
    sheet.write_string(0, 1, "starts_at").unwrap();
    for (row, (id, serial, format)) in (1u32..).zip(rows) {
        sheet.write_number(row, 0, *id).unwrap();
        let format = Format::new().set_num_format(*format);
        sheet
            .write_number_with_format(row, 1, *serial, &format)
            .unwrap();
    }
    let path = dir.join("event.xlsx");
    book.save(&path).unwrap();
    path
}

#[test]
fn a_date_time_cell_is_read_as_its_format_shows_it() {
    // In the project's zone, as a migrated Luban project exported in UTC+8 reads.
    let config = format!("timezone = \"Asia/Shanghai\"\n{CONFIG}");
    let project = load_texts(&config, &[("event.toml", EVENT)]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let serial = 36528.0034721644;
    let path = workbook(
        dir.path(),
        &[
            (1, serial, "yyyy-mm-dd hh:mm:ss"),
            (2, serial, "yyyy/m/d h:mm"),
            (3, serial, "hh:mm:ss.000"),
            (4, serial, "hh:mm:ss.0"),
            // Exactly 12:00:00.5: the half second up, as Excel shows it.
            (5, 45000.5 + 0.5 / 86_400.0, "yyyy-mm-dd hh:mm:ss"),
            (6, 45000.5 + 0.5 / 86_400.0, "yyyy-mm-dd hh:mm:ss.00"),
        ],
    );
    let validation = validate(&project, &[path]);
    assert!(errors(&validation).is_empty(), "{:#?}", validation.report);
    let table = &validation.tables[0];
    let read: Vec<String> = (0..table.row_count())
        .map(|r| table.value(r, 1).to_string())
        .collect();
    assert_eq!(
        read,
        [
            "2000-01-02T16:05:00Z",
            "2000-01-02T16:05:00Z",
            "2000-01-02T16:04:59.995Z",
            "2000-01-02T16:05:00Z",
            "2023-03-15T04:00:01Z",
            "2023-03-15T04:00:00.500Z",
        ]
    );
    assert!(matches!(table.value(0, 1), Value::DateTime(_)));
}
