//! A 500-table project (the shape the export benchmark times, with fewer rows) exported
//! as xlsx, ods and csv imports back as "nothing changed": every table, every format,
//! through the store's own calls (no binary run).

use std::path::{Path, PathBuf};
use std::process::Command;

use masterctl_benches::{DataFormat, Shape, generate};
use masterctl_store::export::{Format, export_region, write};
use masterctl_store::{Branch, MasterRepo, Planning, Region, commit_import, plan_import};

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Plan an import of `paths`: the plan, which must not be a rejection.
fn planned(
    repo: &MasterRepo,
    region: &Branch,
    paths: &[PathBuf],
) -> Box<masterctl_store::ImportPlan> {
    let structure = masterctl_store::committed_structure::import_structure(repo, None).unwrap();
    let reading = masterctl_store::import::Reading::of(paths);
    match plan_import(repo, &structure, region, &reading).unwrap() {
        Planning::Planned(plan) => plan,
        Planning::Rejected(report) => panic!("{:#?}", report.diagnostics),
    }
}

#[test]
fn five_hundred_tables_export_and_import_back_unchanged_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    generate(root, &Shape::new(500, 12, DataFormat::Csv)).unwrap();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.name", "Export Test"]);
    git(root, &["config", "user.email", "export@example.invalid"]);
    git(root, &["add", "masterctl.toml", "schemas"]);
    git(root, &["commit", "-q", "-m", "structure"]);
    let repo = MasterRepo::open(root).unwrap();
    let structure = repo.structure().unwrap();
    let region = Branch::from(Region::of(&structure.project, "jp").unwrap());
    let plan = planned(&repo, &region, &[root.join("data")]);
    assert_eq!(plan.changes.len(), 500);
    let (head, _) = commit_import(&repo, &plan, Some("500 tables")).unwrap();
    let export = export_region(&repo, &region, None, &[]).unwrap();
    assert_eq!(export.commit, head.to_string());
    for format in [Format::Xlsx, Format::Ods, Format::Csv] {
        let out = root.join(format!("{format:?}"));
        let written = write(&export, &out, format).unwrap();
        assert_eq!(written.files.len(), 500, "{format:?}");
        let again = planned(&repo, &region, &[out]);
        assert!(again.unchanged, "{format:?}: {:?}", again.changes.first());
    }
}
