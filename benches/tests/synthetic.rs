//! The synthetic data is valid master data in both formats, and its Frictionless
//! description names the same tables and the foreign key.

use masterctl_benches::{DataFormat, Shape, generate, table_name};
use masterctl_schemas::load::load_project;
use masterctl_schemas::validate_paths;

fn generated(format: DataFormat) -> (tempfile::TempDir, masterctl_schemas::Validation) {
    let dir = tempfile::tempdir().unwrap();
    generate(
        dir.path(),
        &Shape {
            tables: 3,
            rows: 50,
            format,
        },
    )
    .unwrap();
    let project = load_project(dir.path()).unwrap();
    let validation = validate_paths(&project, &[dir.path().join("data")]);
    (dir, validation)
}

#[test]
fn synthetic_workbooks_and_csv_validate_and_agree() {
    let (_xlsx_dir, xlsx) = generated(DataFormat::Xlsx);
    let (csv_dir, csv) = generated(DataFormat::Csv);
    for v in [&xlsx, &csv] {
        assert!(!v.report.has_errors(), "{:#?}", v.report.diagnostics);
        assert_eq!(v.tables.len(), 3);
        assert!(v.tables.iter().all(|t| t.row_count() == 50));
    }
    for table in &xlsx.tables {
        let other = csv.tables.iter().find(|t| t.name == table.name).unwrap();
        assert_eq!(table.columns, other.columns, "{}", table.name);
    }
    let package: String = std::fs::read_to_string(csv_dir.path().join("datapackage.json")).unwrap();
    assert!(package.contains(&format!("\"path\": \"data/{}.csv\"", table_name(2))));
    assert!(package.contains("\"foreignKeys\""));
}
