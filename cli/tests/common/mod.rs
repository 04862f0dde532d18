//! Helpers shared by the binary's tests: paths, running masterctl and git, and a fresh
//! master repository with hunt's structure.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub use masterctl_testing::servers::*;
pub use masterctl_testing::{fixtures, git, hunt, root, third_party};

/// Run the binary in `dir`, without colour.
pub fn masterctl(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_masterctl"))
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

/// Commit `contents` as `path` on `branch` with plain git (a worktree of it, removed
/// after): the branch edited outside masterctl.
pub fn commit_by_hand(root: &Path, branch: &str, path: &str, contents: &str, message: &str) {
    let work = tempfile::tempdir().unwrap();
    let tree = work.path().join("tree");
    git(
        root,
        &["worktree", "add", "-q", tree.to_str().unwrap(), branch],
    );
    std::fs::write(tree.join(path), contents).unwrap();
    git(&tree, &["commit", "-q", "-am", message]);
    git(
        root,
        &["worktree", "remove", "--force", tree.to_str().unwrap()],
    );
}

/// Commit the working tree's structure (`masterctl.toml`, `schemas/`) on the checked-out
/// branch, as an engineer does before an import uses it; nothing when it is committed.
pub fn commit_structure(dir: &Path) {
    let mut args = vec!["add", "-A", "--"];
    args.extend(
        ["masterctl.toml", "schemas", "fonts"]
            .into_iter()
            .filter(|p| dir.join(p).exists()),
    );
    git(dir, &args);
    let staged = git(dir, &["diff", "--cached", "--name-only"]);
    if !staged.trim().is_empty() {
        git(dir, &["commit", "-q", "-m", "structure"]);
    }
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Standard output and standard error together.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(output)))
}

/// A fresh master repository with hunt's structure committed on `main` and an author.
pub fn hunt_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    with_planner(root);
    std::fs::copy(hunt().join("masterctl.toml"), root.join("masterctl.toml")).unwrap();
    std::fs::create_dir(root.join("schemas")).unwrap();
    for entry in std::fs::read_dir(hunt().join("schemas")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, root.join("schemas").join(path.file_name().unwrap())).unwrap();
    }
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "structure"]);
    dir
}

/// The masters of `root` as CSV files in `out` (`masterctl export --format csv --out
/// OUT ARGS...`: `--region R`, perhaps `--branch NAME`), which must succeed.
pub fn export_csv(root: &Path, out: &Path, args: &[&str]) {
    let mut all = vec!["export", "--format", "csv", "--out", out.to_str().unwrap()];
    all.extend(args);
    ok(masterctl(root, &all));
}

/// `out`, after checking it exited 0.
pub fn ok(out: Output) -> Output {
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    out
}

/// A git repository made in the empty folder `root` (its branch `main`), with a planner
/// as its author.
pub fn with_planner(root: &Path) {
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.name", "Test Planner"]);
    git(root, &["config", "user.email", "planner@example.com"]);
}

/// An empty git repository at `dir/game` (made), with a planner as its author: where a
/// test runs `init` and what follows.
pub fn planners_repository(dir: &Path) -> PathBuf {
    let root = dir.join("game");
    std::fs::create_dir(&root).unwrap();
    with_planner(&root);
    root
}

/// The sample game (the fixtures) imported into jp, with English for two texts (鉄の剣:
/// Iron Sword, 武器: Weapons).
pub fn sample_game() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    with_planner(root);
    ok(masterctl(
        root,
        &["init", ".", "--from", fixtures().to_str().unwrap()],
    ));
    let workbooks = fixtures().join("workbooks");
    ok(masterctl(
        root,
        &["import", "--region", "jp", workbooks.to_str().unwrap()],
    ));
    let po = root.join("en.po");
    ok(masterctl(
        root,
        &[
            "l10n",
            "export",
            "--region",
            "jp",
            "--lang",
            "en",
            "--out",
            po.to_str().unwrap(),
        ],
    ));
    let english = std::fs::read_to_string(&po)
        .unwrap()
        .replace(
            "msgid \"鉄の剣\"\nmsgstr \"\"",
            "msgid \"鉄の剣\"\nmsgstr \"Iron Sword\"",
        )
        .replace(
            "msgid \"武器\"\nmsgstr \"\"",
            "msgid \"武器\"\nmsgstr \"Weapons\"",
        );
    std::fs::write(&po, english).unwrap();
    ok(masterctl(
        root,
        &["l10n", "import", "--region", "jp", po.to_str().unwrap()],
    ));
    repo
}

/// A pseudo language (`[pseudo] languages = ["qps"]`) added to the project in `root`:
/// the structure committed, the workbooks imported again so that region jp has it.
pub fn add_pseudo_language(root: &Path) {
    let config = std::fs::read_to_string(root.join("masterctl.toml")).unwrap();
    std::fs::write(
        root.join("masterctl.toml"),
        format!("{config}\n[pseudo]\nlanguages = [\"qps\"]\n"),
    )
    .unwrap();
    commit_structure(root);
    let workbooks = fixtures().join("workbooks");
    ok(masterctl(
        root,
        &["import", "--region", "jp", workbooks.to_str().unwrap()],
    ));
}

/// The Python that has LibreOffice's `uno` module (the system one, which a pyenv or
/// virtualenv `python3` first in PATH may hide), when LibreOffice is installed.
pub fn libreoffice_python() -> Option<&'static str> {
    let soffice = Command::new("soffice")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let python = ["/usr/bin/python3", "python3"].into_iter().find(|python| {
        Command::new(python)
            .args(["-c", "import uno"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    match (soffice, python) {
        (true, Some(python)) => Some(python),
        _ => {
            assert!(
                std::env::var("CI").is_err(),
                "LibreOffice is not installed: .ci/run installs it (apt-get install libreoffice-calc-nogui python3-uno)"
            );
            eprintln!("note: LibreOffice (soffice, python3-uno) is not installed; skipped");
            None
        }
    }
}
