//! 132 workbooks from years of spreadsheet-reader bug reports: every one either gives
//! tables or a clear error naming the file; none panics or hangs.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use crate::common::*;
use masterctl_migrate::infer::infer_file;
use masterctl_schemas::read::{read_file, workbook};
use masterctl_schemas::value::{Date, DateTime};

fn workbooks() -> Vec<PathBuf> {
    let dir = third_party().join("real-world-workbooks");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "md"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_real_world_workbook_reads_or_fails_clearly() {
    let files = workbooks();
    assert_eq!(files.len(), 132, "the real-world set changed");
    let hunt = project(&hunt());
    let (mut read, mut refused) = (0, 0);
    let mut bad_drafts = Vec::new();
    for path in files {
        let (sender, receiver) = mpsc::channel();
        let (thread_path, thread_project) = (path.clone(), hunt.clone());
        std::thread::spawn(move || {
            let drafts = infer_file(&thread_path);
            let outcome = read_file(&thread_project, &thread_path);
            let _ = sender.send((drafts, outcome));
        });
        let (drafts, outcome) = receiver
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("{} hangs (or panicked)", path.display()));
        match drafts {
            Ok(drafts) => {
                read += 1;
                bad_drafts.extend(drafts_refused(&path, &drafts));
            }
            Err(d) => {
                refused += 1;
                assert_eq!(
                    d.location.file.as_ref(),
                    Some(&path),
                    "the error must name the file: {d:?}"
                );
                assert!(!d.message.is_empty());
            }
        }
        for d in outcome.report.diagnostics {
            assert_eq!(d.location.file.as_ref(), Some(&path), "{d:?}");
        }
    }
    assert!(read > 100, "only {read} of the workbooks could be read");
    // Every draft `schema infer` writes loads in masterctl.
    assert!(bad_drafts.is_empty(), "{}", bad_drafts.join("\n"));
    assert!(
        refused >= 6,
        "password-protected and truncated files must be refused, got {refused}"
    );
}

fn first_cell(name: &str) -> DateTime {
    let path = third_party().join("real-world-workbooks").join(name);
    let mut first = None;
    workbook::for_each_sheet(&path, |_, grid| {
        if first.is_none() {
            first = Some(grid.unwrap().cell(0, 0).display());
        }
    })
    .unwrap();
    let text = first.unwrap();
    match masterctl_schemas::value::parse_datetime(&text).or_else(|| {
        masterctl_schemas::value::parse_date(&text).and_then(|d| DateTime::new(d, 0, 0, 0, 0))
    }) {
        Some(dt) => dt,
        None => panic!("{name}: A1 is {text}"),
    }
}

#[test]
fn dates_of_the_1904_system_are_the_same_dates() {
    let expected = DateTime::new(Date::from_ymd(2021, 1, 1).unwrap(), 0, 0, 0, 0).unwrap();
    for name in [
        "date.xlsx",
        "date_1904.xlsx",
        "date.xls",
        "date_1904.xls",
        "date.xlsb",
        "date_1904.xlsb",
    ] {
        assert_eq!(first_cell(name), expected, "{name}");
    }
}

#[test]
fn password_protected_workbooks_say_so() {
    let hunt = project(&hunt());
    for name in [
        "pass_protected.xlsx",
        "pass_protected.ods",
        "pass_protected.xlsb",
    ] {
        let path = third_party().join("real-world-workbooks").join(name);
        let outcome = read_file(&hunt, &path);
        let d = &outcome.report.diagnostics[0];
        assert_eq!(d.message, "the workbook is password-protected", "{name}");
    }
}
