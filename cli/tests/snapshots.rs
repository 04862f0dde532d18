//! What every command prints, as a planner reads it, kept as snapshots
//! (`cli/tests/snapshots/`): the sample game through init, validate, import (and its
//! dry run), log, status (text and JSON), translations (status, export, import), rebase
//! (dry run, a conflict, abort, resolution, continue), build, inspect (summary, table,
//! row, group, weighted, matrix, a missing and a mistyped key), schema inference, and
//! the errors a new user meets. Commit ids, hashes and times are replaced by
//! placeholders; everything else must match word for word. After a deliberate change of
//! wording, run with `INSTA_UPDATE=always` and review the diff of the snapshots.

use std::path::Path;

use crate::common::*;

/// Output with what changes from run to run replaced: commit ids and hashes (`<id>`),
/// times (`<time>`), the temporary folder (`<tmp>`).
fn stable(text: &str, tmp: &Path) -> String {
    let text = text.replace(&tmp.display().to_string(), "<tmp>");
    let time =
        regex::Regex::new(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d)?(\.\d+)?([+-]\d\d:?\d\d|Z)?")
            .unwrap();
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
        stable(&args.join(" "), tmp),
        stable(&text(&out), tmp),
        out.status.code().unwrap_or(-1)
    )
}

#[test]
fn every_command_reads_like_this() {
    let tmp = tempfile::tempdir().unwrap();
    let root = planners_repository(tmp.path());
    let fixtures = fixtures();
    let f = |path: &str| fixtures.join(path).display().to_string();
    // Each step's arguments, split at spaces; `fixtures/…` is the bundled fixtures.
    let steps = [
        ("init_from", "init . --from fixtures/"),
        ("validate", "validate fixtures/workbooks"),
        (
            "validate_rejected",
            "validate fixtures/workbooks/quests.xlsx fixtures/workbooks/shops.xlsx fixtures/broken/items_many_mistakes.xlsx",
        ),
        ("import", "import --region jp fixtures/workbooks"),
        ("import_unchanged", "import --region jp fixtures/workbooks"),
        (
            "import_rejected",
            "import --region jp fixtures/broken/items_enum_typo.xlsx",
        ),
        ("log", "log --region jp"),
        ("l10n_status", "l10n status --region jp"),
        (
            "l10n_status_verbose",
            "l10n status --region jp --lang en --verbose",
        ),
        (
            "l10n_export",
            "l10n export --region jp --lang en --out en.po",
        ),
        (
            "l10n_import_dry_run",
            "l10n import --region jp fixtures/examples/en.po --dry-run",
        ),
        (
            "l10n_import",
            "l10n import --region jp fixtures/examples/en.po",
        ),
        ("rebase_dry_run", "rebase --region global --dry-run"),
        ("rebase_start", "rebase --region global"),
        (
            "import_global",
            "import --region global fixtures/examples/global",
        ),
        (
            "import_dry_run",
            "import --region jp fixtures/examples/jp --dry-run",
        ),
        ("import_jp", "import --region jp fixtures/examples/jp"),
        ("status", "status"),
        ("rebase_conflict", "rebase --region global"),
        ("rebase_abort", "rebase --region global --abort"),
        ("rebase_conflict_again", "rebase --region global"),
        ("status_json", "status --format json"),
        (
            "rebase_theirs",
            "rebase --region global --theirs --table quest",
        ),
        ("rebase_continue", "rebase --region global --continue"),
        ("build", "build --region global --out build"),
        ("inspect", "inspect build"),
        ("inspect_row", "inspect build item 5 --lang en"),
        ("inspect_matrix", "inspect build element_matrix fire wind"),
        ("inspect_table", "inspect build item"),
        ("inspect_group", "inspect build quests_by_chapter 1"),
        ("inspect_weighted", "inspect build drop_draw 101"),
        ("inspect_not_found", "inspect build item 999"),
        ("inspect_bad_key", "inspect build item one"),
        ("publish", "publish build --to file://<tmp>/store"),
        ("publish_unchanged", "publish build --to file://<tmp>/store"),
        (
            "fetch",
            "fetch --from file://<tmp>/store --region global --out fetched --lang en",
        ),
        (
            "fetch_up_to_date",
            "fetch --from file://<tmp>/store --region global --out fetched --lang en",
        ),
        ("releases", "releases --from file://<tmp>/store"),
        (
            "rollback_unknown",
            "rollback --reason wrong --from file://<tmp>/store --region global --to 0000000000000000000000000000000000000000",
        ),
        (
            "gc_dry_run",
            "gc --from file://<tmp>/store --keep 1 --dry-run",
        ),
        (
            "fetch_unreachable",
            "fetch --from http://127.0.0.1:9/store --region global --out nowhere",
        ),
        (
            "schema_infer",
            "schema infer fixtures/workbooks/quests.xlsx",
        ),
        (
            "schema_infer_out",
            "schema infer --out drafts fixtures/workbooks/quests.xlsx",
        ),
        ("init_blank", "init blank"),
        ("unknown_region", "log --region eu"),
        ("unlock_nothing", "unlock --region jp"),
    ];
    let bytes = regex::Regex::new(r"\d+ bytes").unwrap();
    for (name, args) in steps {
        let args: Vec<String> = args
            .split(' ')
            .map(|arg| match arg.strip_prefix("fixtures/") {
                Some(path) => f(path),
                None => arg.replace("<tmp>", &tmp.path().display().to_string()),
            })
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut shown = run(&root, tmp.path(), &args).replace(&f(""), "fixtures/");
        if ["publish", "fetch", "releases", "gc"]
            .iter()
            .any(|c| name.starts_with(c))
        {
            // Compressed sizes move with the commit ids inside the manifest.
            shown = bytes.replace_all(&shown, "<n> bytes").into_owned();
        }
        insta::assert_snapshot!(name, shown);
    }
}
