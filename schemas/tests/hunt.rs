//! The hunt fixtures were written by LibreOffice, not by us: xlsx, ods and CSV exports of
//! the same sheets must read into the same typed tables and validate.

use crate::common::*;
use masterctl_schemas::Value;

fn read(paths: &[std::path::PathBuf]) -> masterctl_schemas::Validation {
    let project = project(&hunt());
    let validation = validate(&project, paths);
    assert!(
        !validation.report.has_errors(),
        "hunt does not validate: {:#?}",
        validation.report.diagnostics
    );
    assert_eq!(
        validation.report.warning_count(),
        0,
        "{:#?}",
        validation.report.diagnostics
    );
    validation
}

#[test]
fn xlsx_ods_and_csv_read_into_the_same_tables() {
    let xlsx = read(&[hunt().join("hunt.xlsx")]);
    let ods = read(&[hunt().join("hunt.ods")]);
    let csv = read(&[hunt().join("csv")]);
    for validation in [&xlsx, &ods, &csv] {
        let mut names: Vec<&str> = validation.tables.iter().map(|t| t.name.as_str()).collect();
        names.sort();
        assert_eq!(names, ["habitat", "material", "monster", "reward"]);
    }
    for table in &xlsx.tables {
        for other in [&ods, &csv] {
            let same = other.tables.iter().find(|t| t.name == table.name).unwrap();
            assert_eq!(
                table.columns, same.columns,
                "table {} differs between exports",
                table.name
            );
        }
    }
}

#[test]
fn libreoffice_conventions_are_understood() {
    let xlsx = read(&[hunt().join("hunt.xlsx")]);
    let monster = xlsx.tables.iter().find(|t| t.name == "monster").unwrap();
    let schema = project(&hunt());
    let monster_schema = schema.table("monster").unwrap();
    let boss = monster_schema.field_index("boss").unwrap();
    let name = monster_schema.field_index("name").unwrap();
    // =TRUE() formula cells count by their cached value.
    assert_eq!(monster.value(0, boss), &Value::Bool(true));
    assert_eq!(monster.value(1, boss), &Value::Bool(false));
    assert_eq!(monster.value(0, name), &Value::Str("リオス".into()));
    // The comment row is skipped and the rows keep their sheet positions.
    assert!(monster.origin.rows.windows(2).all(|w| w[0] < w[1]));
    let material = xlsx.tables.iter().find(|t| t.name == "material").unwrap();
    // Trailing empty rows are not rows.
    let id = schema.table("material").unwrap().field_index("id").unwrap();
    assert!(material.columns[id].iter().all(|v| !v.is_null()));
    let reward = xlsx.tables.iter().find(|t| t.name == "reward").unwrap();
    assert_eq!(reward.value(0, 2), &Value::Float(0.45));
}

#[test]
fn csv_rows_point_at_their_lines() {
    let csv = read(&[hunt().join("csv").join("Habitat.csv")]);
    let habitat = &csv.tables[0];
    assert_eq!(
        habitat.origin.rows[0], 2,
        "the first data row is on line 2 (after the header)"
    );
}

#[test]
fn a_workbook_read_in_shares_gives_the_same_tables() {
    use masterctl_schemas::read::Keep;
    use masterctl_schemas::read::workbook::{Part, read, read_part};
    let project = project(&hunt());
    let path = hunt().join("hunt.xlsx");
    let whole = read(&project, &path);
    let mut shares: Vec<_> = (0..3)
        .flat_map(|index| read_part(&project, &path, Part { index, of: 3 }, Keep::All).tables)
        .collect();
    shares.sort_by(|a, b| a.name.cmp(&b.name));
    let mut tables = whole.tables.clone();
    tables.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(shares, tables);
    // Problems with the file itself are reported once, by the first share.
    let broken = third_party().join("real-world-workbooks/pass_protected.xlsx");
    let reports: Vec<usize> = (0..3)
        .map(|index| {
            read_part(&project, &broken, Part { index, of: 3 }, Keep::All)
                .report
                .diagnostics
                .len()
        })
        .collect();
    assert_eq!(reports, vec![1, 0, 0]);
}

/// Progress counts files: one call per file, `done` taking each value 1..=total once.
#[test]
fn progress_counts_each_file_once() {
    let project = project(&hunt());
    let files = vec![
        hunt().join("hunt.xlsx"),
        hunt().join("csv/Reward.csv"),
        hunt().join("csv/Monster.csv"),
    ];
    let calls = std::sync::Mutex::new(Vec::new());
    masterctl_schemas::validate_paths_with_progress(&project, &files, &|done, total| {
        calls.lock().unwrap().push((done, total));
    });
    let mut calls = calls.into_inner().unwrap();
    calls.sort();
    assert_eq!(calls, vec![(1, 3), (2, 3), (3, 3)]);
}
