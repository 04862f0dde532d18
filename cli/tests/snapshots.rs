//! What every command prints, as a planner reads it, kept as snapshots
//! (`cli/tests/snapshots/`): the sample game through init, validate, import, log,
//! status, translations, rebase with a conflict, build, inspect and schema inference,
//! and the errors a new user meets. Commit ids, hashes and times are replaced by
//! placeholders; everything else must match word for word. After a deliberate change of
//! wording, run with `INSTA_UPDATE=always` and review the diff of the snapshots.

mod common;

use std::path::Path;

use common::*;

/// Output with what changes from run to run replaced: commit ids and hashes (`<id>`),
/// times (`<time>`), the temporary folder (`<tmp>`).
fn stable(text: &str, tmp: &Path) -> String {
    let text = text.replace(&tmp.display().to_string(), "<tmp>");
    let time =
        regex::Regex::new(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d)?([+-]\d\d:?\d\d|Z)?").unwrap();
    let text = time.replace_all(&text, "<time>");
    let hex = regex::Regex::new(r"\b[0-9a-f]{12}([0-9a-f]{28}|[0-9a-f]{52})?\b").unwrap();
    hex.replace_all(&text, "<id>").into_owned()
}

/// Run the binary in `dir` and give its standard output and error, stable, with the
/// exit code.
fn run(dir: &Path, tmp: &Path, args: &[&str]) -> String {
    let out = masterctl(dir, args);
    format!(
        "$ masterctl {}\n{}exit {}\n",
        args.join(" "),
        stable(&text(&out), tmp),
        out.status.code().unwrap_or(-1)
    )
}

#[test]
fn every_command_reads_like_this() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("game");
    std::fs::create_dir(&root).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["config", "user.name", "Test Planner"]);
    git(&root, &["config", "user.email", "planner@example.com"]);
    let fixtures = fixtures();
    let f = |path: &str| fixtures.join(path).display().to_string();
    let steps: Vec<(&str, Vec<String>)> = vec![
        (
            "init_from",
            vec!["init".into(), ".".into(), "--from".into(), f("")],
        ),
        ("validate", vec!["validate".into(), f("workbooks")]),
        (
            "validate_rejected",
            vec![
                "validate".into(),
                f("workbooks/quests.xlsx"),
                f("workbooks/shops.xlsx"),
                f("broken/items_many_mistakes.xlsx"),
            ],
        ),
        (
            "import",
            vec![
                "import".into(),
                "--region".into(),
                "jp".into(),
                f("workbooks"),
            ],
        ),
        (
            "import_unchanged",
            vec![
                "import".into(),
                "--region".into(),
                "jp".into(),
                f("workbooks"),
            ],
        ),
        (
            "import_rejected",
            vec![
                "import".into(),
                "--region".into(),
                "jp".into(),
                f("broken/items_enum_typo.xlsx"),
            ],
        ),
        ("log", vec!["log".into(), "--region".into(), "jp".into()]),
        (
            "l10n_status",
            vec![
                "l10n".into(),
                "status".into(),
                "--region".into(),
                "jp".into(),
            ],
        ),
        (
            "l10n_import",
            vec![
                "l10n".into(),
                "import".into(),
                "--region".into(),
                "jp".into(),
                f("examples/en.po"),
            ],
        ),
        (
            "rebase_start",
            vec!["rebase".into(), "--region".into(), "global".into()],
        ),
        (
            "import_global",
            vec![
                "import".into(),
                "--region".into(),
                "global".into(),
                f("examples/global"),
            ],
        ),
        (
            "import_jp",
            vec![
                "import".into(),
                "--region".into(),
                "jp".into(),
                f("examples/jp"),
            ],
        ),
        ("status", vec!["status".into()]),
        (
            "rebase_conflict",
            vec!["rebase".into(), "--region".into(), "global".into()],
        ),
        (
            "rebase_theirs",
            vec![
                "rebase".into(),
                "--region".into(),
                "global".into(),
                "--theirs".into(),
                "--table".into(),
                "quest".into(),
            ],
        ),
        (
            "rebase_continue",
            vec![
                "rebase".into(),
                "--region".into(),
                "global".into(),
                "--continue".into(),
            ],
        ),
        (
            "build",
            vec![
                "build".into(),
                "--region".into(),
                "global".into(),
                "--out".into(),
                "build".into(),
            ],
        ),
        ("inspect", vec!["inspect".into(), "build".into()]),
        (
            "inspect_row",
            vec![
                "inspect".into(),
                "build".into(),
                "item".into(),
                "5".into(),
                "--lang".into(),
                "en".into(),
            ],
        ),
        (
            "inspect_matrix",
            vec![
                "inspect".into(),
                "build".into(),
                "element_matrix".into(),
                "fire".into(),
                "wind".into(),
            ],
        ),
        (
            "schema_infer",
            vec!["schema".into(), "infer".into(), f("workbooks/quests.xlsx")],
        ),
        (
            "unknown_region",
            vec!["log".into(), "--region".into(), "eu".into()],
        ),
        (
            "unlock_nothing",
            vec!["unlock".into(), "--region".into(), "jp".into()],
        ),
    ];
    for (name, args) in &steps {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let shown = run(&root, tmp.path(), &args).replace(&f(""), "fixtures/");
        insta::assert_snapshot!(*name, shown);
    }
}
