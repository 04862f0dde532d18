//! Luban's public example project (`fixtures/third-party/luban-examples`, MIT): workbooks
//! another tool's authors wrote. Every draft `schema infer` makes of them loads.

use std::path::{Path, PathBuf};

use crate::common::*;
use masterctl_migrate::infer::infer_file;

/// Every workbook and CSV file under `dir`, sorted.
fn spreadsheets(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(spreadsheets(&path));
        } else if path.extension().is_some_and(|e| e == "xlsx" || e == "csv") {
            found.push(path);
        }
    }
    found.sort();
    found
}

#[test]
fn every_draft_of_the_luban_examples_loads() {
    let files = spreadsheets(&third_party().join("luban-examples/DataTables/Datas"));
    assert!(files.len() > 50, "{}", files.len());
    let mut drafted = 0;
    let mut bad = Vec::new();
    for path in &files {
        match infer_file(path) {
            Ok(drafts) => {
                drafted += drafts.len();
                bad.extend(drafts_refused(path, &drafts));
            }
            // Luban's encoding tests: CSV files in Big5, GB2312 and a Windows code page
            // are refused, naming the file and what is wrong.
            Err(d) if d.message.contains("not valid UTF-8") => {
                assert_eq!(d.location.file.as_deref(), Some(path.as_path()));
            }
            Err(d) => bad.push(format!("{}: {}", path.display(), d.message)),
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(drafted > 50, "{drafted}");
}
