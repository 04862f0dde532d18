//! The real binary on real files and real git repositories: exit codes, JSON output,
//! the wording planners read, init, schema infer, and hostile workbooks.

use crate::common::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn validate_the_fixtures_succeeds() {
    let out = masterctl(&fixtures(), &["validate", "workbooks", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let report = json(&out);
    assert_eq!(report["ok"], true);
    assert_eq!(report["errors"], 0);
    assert_eq!(report["tables"].as_array().unwrap().len(), 10);
    assert_eq!(report["not_supplied"].as_array().unwrap().len(), 0);
}

#[test]
fn rejected_data_exits_1_with_every_diagnostic_in_json() {
    let out = masterctl(
        &fixtures(),
        &[
            "validate",
            "workbooks/quests.xlsx",
            "workbooks/shops.xlsx",
            "broken/items_many_mistakes.xlsx",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(report["ok"], false);
    let diagnostics = report["diagnostics"].as_array().unwrap();
    assert_eq!(
        report["errors"].as_u64().unwrap() as usize,
        diagnostics.len()
    );
    assert_eq!(diagnostics.len(), 8);
    for d in diagnostics {
        for key in [
            "code", "severity", "file", "sheet", "cell", "table", "field", "message",
        ] {
            assert!(d.get(key).is_some(), "{key} missing in {d}");
        }
    }
}

#[test]
fn human_output_reads_like_this() {
    let out = masterctl(
        &fixtures(),
        &[
            "validate",
            "workbooks/quests.xlsx",
            "workbooks/shops.xlsx",
            "broken/items_enum_typo.xlsx",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "table item (1 error)
  error[enum-value] broken/items_enum_typo.xlsx Item!E3 (rarity): `raer` is not a value of `rarity`
      expected: one of: common, rare, epic, legendary
      hint: did you mean `rare`?

not supplied (not checked): game_rules, login_bonus
rejected: 1 error in 1 of 8 tables (35 rows from 3 files)
"
    );
}

#[test]
fn bad_schema_files_exit_1_with_file_and_line() {
    let out = masterctl(
        &fixtures(),
        &[
            "validate",
            "workbooks",
            "--schemas",
            "broken/bad_schemas",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let report = json(&out);
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let found: Vec<(String, String, u64)> = diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                Path::new(d["file"].as_str().unwrap())
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            ("unknown-type".to_string(), "item.toml".to_string(), 7),
            ("invalid-option".to_string(), "item.toml".to_string(), 13),
            (
                "invalid-reference".to_string(),
                "shop_item.toml".to_string(),
                7
            ),
        ]
    );
    let text = masterctl(
        &fixtures(),
        &["validate", "workbooks", "--schemas", "broken/bad_schemas"],
    );
    assert_eq!(text.status.code(), Some(1));
    assert!(
        stdout(&text).contains("broken/bad_schemas/schemas/item.toml:7:8"),
        "{}",
        stdout(&text)
    );
}

#[test]
fn usage_and_environment_errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    // No master repository here.
    let out = masterctl(tmp.path(), &["validate", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no masterctl.toml"));
    // A path that does not exist.
    let out = masterctl(&fixtures(), &["validate", "nope.xlsx"]);
    assert_eq!(out.status.code(), Some(2));
    // An unknown flag.
    let out = masterctl(&fixtures(), &["validate", "--frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    // A folder with no spreadsheet in it.
    let out = masterctl(
        &fixtures(),
        &["validate", tmp.path().to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json(&out)["ok"], false);
}

#[test]
fn hunt_validates_from_every_export() {
    let hunt = third_party().join("hunt");
    for export in ["hunt.xlsx", "hunt.ods", "csv"] {
        let out = masterctl(&hunt, &["validate", export]);
        assert_eq!(out.status.code(), Some(0), "{export}: {}", stdout(&out));
        assert!(
            stdout(&out).starts_with("valid: 4 tables, 15 rows"),
            "{}",
            stdout(&out)
        );
    }
}

#[test]
fn init_creates_a_working_example_and_never_overwrites() {
    let tmp = tempfile::tempdir().unwrap();
    let out = masterctl(tmp.path(), &["init", "game"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let game = tmp.path().join("game");
    for file in [
        "masterctl.toml",
        "schemas/item.toml",
        "workbooks/items.xlsx",
    ] {
        assert!(game.join(file).is_file(), "{file}");
    }
    let git = Command::new("git")
        .arg("-C")
        .arg(&game)
        .args(["rev-parse", "--git-dir"])
        .output()
        .unwrap();
    assert!(git.status.success(), "init made no git repository");
    let head = Command::new("git")
        .arg("-C")
        .arg(&game)
        .args(["symbolic-ref", "HEAD"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&head.stdout).trim(),
        "refs/heads/main"
    );
    let out = masterctl(&game, &["validate", "workbooks"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // A second init refuses and changes nothing.
    std::fs::write(game.join("schemas/item.toml"), "# edited\n").unwrap();
    let out = masterctl(tmp.path(), &["init", "game"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(game.join("schemas/item.toml")).unwrap(),
        "# edited\n"
    );
}

#[test]
fn inferred_schemas_validate_the_workbook_they_came_from() {
    let tmp = tempfile::tempdir().unwrap();
    let hunt_xlsx = third_party().join("hunt/hunt.xlsx");
    let out = masterctl(
        tmp.path(),
        &[
            "schema",
            "infer",
            hunt_xlsx.to_str().unwrap(),
            "--out",
            "schemas",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reward = std::fs::read_to_string(tmp.path().join("schemas/reward.toml")).unwrap();
    assert!(
        reward.contains("primary_key = [\"monster_id\", \"material_id\"]"),
        "{reward}"
    );
    assert!(reward.contains("references = \"monster.id\""), "{reward}");
    let monster = std::fs::read_to_string(tmp.path().join("schemas/monster.toml")).unwrap();
    assert!(
        monster.contains("name = \"boss\"\ntype = \"bool\""),
        "{monster}"
    );
    assert!(
        monster.contains("name = \"name\"\ntype = \"text\""),
        "{monster}"
    );
    let out = masterctl(
        tmp.path(),
        &[
            "validate",
            hunt_xlsx.to_str().unwrap(),
            "--schemas",
            "schemas",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // Drafts are not written over existing files: the others are written, the kept
    // ones listed; when every file exists nothing is written (exit 2).
    let schemas = tmp.path().join("schemas");
    std::fs::write(schemas.join("reward.toml"), "# edited\n").unwrap();
    std::fs::remove_file(schemas.join("monster.toml")).unwrap();
    let infer = [
        "schema",
        "infer",
        hunt_xlsx.to_str().unwrap(),
        "--out",
        "schemas",
    ];
    let out = masterctl(tmp.path(), &infer);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let shown = stdout(&out);
    assert!(shown.contains("wrote schemas/monster.toml"), "{shown}");
    assert!(
        shown.contains("kept  schemas/reward.toml (it exists; --force replaces it)"),
        "{shown}"
    );
    assert_eq!(shown.matches("kept ").count(), 3, "{shown}");
    assert_eq!(
        std::fs::read_to_string(schemas.join("reward.toml")).unwrap(),
        "# edited\n"
    );
    let out = masterctl(tmp.path(), &infer);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("nothing written: 4 schema files already exist"),
        "{}",
        text(&out)
    );
    let out = masterctl(
        tmp.path(),
        &[&infer[..], &["--force", "--format", "json"]].concat(),
    );
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["written"].as_array().unwrap().len(), 4);
    assert_eq!(json["kept"].as_array().unwrap().len(), 0);
}

/// A few repeated words are offered as an enum (with a note when the rows are few), and
/// `|`-separated items as a list; the drafts validate the workbook they came from.
#[test]
fn infer_offers_enums_and_lists_where_the_values_say_so() {
    let tmp = tempfile::tempdir().unwrap();
    let items = fixtures().join("workbooks/items.xlsx");
    let out = masterctl(
        tmp.path(),
        &[
            "schema",
            "infer",
            items.to_str().unwrap(),
            "--out",
            "schemas",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let item = std::fs::read_to_string(tmp.path().join("schemas/item.toml")).unwrap();
    assert!(
        item.contains("name = \"rarity\"\ntype = \"enum\"\nvalues = [\"common\", \"rare\", \"epic\", \"legendary\"]"),
        "{item}"
    );
    assert!(
        item.contains("# TODO: `rarity` looks like an enum (4 values in 7 rows)"),
        "{item}"
    );
    assert!(
        item.contains("name = \"tags\"\ntype = \"list<enum>\""),
        "{item}"
    );
    let out = masterctl(
        tmp.path(),
        &["validate", items.to_str().unwrap(), "--schemas", "schemas"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// Each real-world workbook in its own process, with 2 GiB of address space and a
/// minute: tables or a clear error naming the file (exit 1: nothing to draft in it; 2:
/// it does not read), never a crash or a hang.
#[test]
fn hostile_workbooks_stay_within_memory_and_time() {
    let dir = third_party().join("real-world-workbooks");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "md"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 132);
    for file in files {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 2097152 && exec \"$0\" schema infer \"$1\" --format json")
            .arg(env!("CARGO_BIN_EXE_masterctl"))
            .arg(&file)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("{} did not finish within a minute", file.display());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{}: {stderr}", file.display());
        match out.status.code() {
            Some(0) => {
                assert_eq!(json(&out)["ok"], true);
            }
            // Unreadable (2), or holding nothing to draft (1): said, naming the file.
            Some(1 | 2) => {
                let error = json(&out)["error"].as_str().unwrap().to_string();
                let name = file.file_name().unwrap().to_string_lossy();
                assert!(
                    error.contains(name.as_ref()),
                    "{}: the error does not name the file: {error}",
                    file.display()
                );
            }
            other => panic!("{}: exit {other:?}: {stderr}", file.display()),
        }
    }
}

#[test]
fn colour_on_request_and_never_in_json() {
    let args = [
        "validate",
        "workbooks/quests.xlsx",
        "workbooks/shops.xlsx",
        "broken/items_enum_typo.xlsx",
    ];
    let mut coloured = args.to_vec();
    coloured.extend(["--color", "always"]);
    let out = masterctl(&fixtures(), &coloured);
    assert!(
        stdout(&out).contains("\x1b[1m\x1b[31merror\x1b[0m"),
        "{}",
        stdout(&out)
    );
    let out = masterctl(&fixtures(), &args);
    assert!(!stdout(&out).contains('\x1b'));
    // A terminal is not enough when NO_COLOR is set, nor colour forced under `auto`
    // without one; CLICOLOR_FORCE forces it.
    let forced = Command::new(env!("CARGO_BIN_EXE_masterctl"))
        .current_dir(fixtures())
        .args(args)
        .env("CLICOLOR_FORCE", "1")
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(stdout(&forced).contains("\x1b[1m\x1b[31merror\x1b[0m"));
    let forced = Command::new(env!("CARGO_BIN_EXE_masterctl"))
        .current_dir(fixtures())
        .args(["validate", "workbooks/no-such.xlsx"])
        .env("CLICOLOR_FORCE", "1")
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&forced.stderr).contains("\x1b[1m\x1b[31merror:"),
        "standard error is coloured too: {}",
        String::from_utf8_lossy(&forced.stderr)
    );
    let mut json_args = coloured.clone();
    json_args.extend(["--format", "json"]);
    let out = masterctl(&fixtures(), &json_args);
    assert!(!stdout(&out).contains('\x1b'));
    json(&out);
}

/// A file holding nothing to draft is rejected data (exit 1), with why; an empty one too.
#[test]
fn infer_of_a_file_holding_no_table_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let out = masterctl(&fixtures(), &["schema", "infer", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("no sheet with a header row") || text(&out).contains("no table"),
        "{}",
        text(&out)
    );
}

#[test]
fn infer_reads_csv_too() {
    let csv = third_party().join("hunt/csv/Reward.csv");
    let out = masterctl(&fixtures(), &["schema", "infer", csv.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.contains("name = \"reward\"\nsheet = \"Reward\""),
        "{text}"
    );
    assert!(
        text.contains("primary_key = [\"monster_id\", \"material_id\"]"),
        "{text}"
    );
    assert!(text.contains("name = \"rate\"\ntype = \"float\""), "{text}");
}

#[test]
fn init_from_a_project_copies_its_checked_structure() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures_dir = fixtures();
    let out = masterctl(
        tmp.path(),
        &["init", "game", "--from", fixtures_dir.to_str().unwrap()],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let game = tmp.path().join("game");
    assert_eq!(
        std::fs::read(game.join("schemas/quest_drop.toml")).unwrap(),
        std::fs::read(fixtures_dir.join("schemas/quest_drop.toml")).unwrap()
    );
    assert!(!game.join("workbooks").exists());
    let out = masterctl(
        &game,
        &["validate", fixtures_dir.join("workbooks").to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // A broken structure is refused before anything is written.
    let bad = fixtures_dir.join("broken/bad_schemas");
    let out = masterctl(
        tmp.path(),
        &["init", "other", "--from", bad.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(!tmp.path().join("other").exists());
}

/// A gate that read no schema checks nothing: an empty or mistyped schema folder is a
/// usage error, not "valid: 0 tables".
#[test]
fn a_schema_folder_without_schemas_does_not_pass() {
    let empty = tempfile::tempdir().unwrap();
    let workbooks = fixtures().join("workbooks");
    for format in [&[][..], &["--format", "json"]] {
        let mut args: Vec<&str> = format.to_vec();
        args.extend(["validate", "--schemas", empty.path().to_str().unwrap()]);
        args.push(workbooks.to_str().unwrap());
        let out = masterctl(&root(), &args);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("holds no schema"), "{}", text(&out));
    }
}

/// A region name that is not declared is told the regions there are and the closest one;
/// `--table` without `--ours`/`--theirs` is a usage error, not ignored.
#[test]
fn unknown_regions_are_named_and_narrowing_needs_a_side() {
    let repo = hunt_repo();
    let root = repo.path();
    let out = masterctl(root, &["log", "--region", "JP"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("did you mean `jp`?"), "{}", text(&out));
    let out = masterctl(root, &["log", "--region", "eu"]);
    assert!(
        text(&out).contains("the regions: global, jp"),
        "{}",
        text(&out)
    );
    let out = masterctl(root, &["rebase", "--region", "jp"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(!text(&out).contains("upstream = \"jp\""), "{}", text(&out));
    for narrowing in ["--table", "--column", "--key"] {
        let out = masterctl(root, &["rebase", "--region", "global", narrowing, "x"]);
        assert_eq!(out.status.code(), Some(2), "{narrowing}: {}", text(&out));
    }
}

/// Input of which nothing maps to a table is rejected (exit 1), naming what was found and
/// the tables there are; Google Sheets' `<workbook> - <sheet>.csv` maps by its sheet part.
#[test]
fn nothing_matched_fails_and_google_sheets_names_map() {
    let repo = hunt_repo();
    let root = repo.path();
    let dir = tempfile::tempdir().unwrap();
    let stray = dir.path().join("notes.csv");
    std::fs::write(&stray, "a,b\n1,2\n").unwrap();
    for command in ["validate", "import"] {
        let mut args = vec![command];
        if command == "import" {
            args.extend(["--region", "jp"]);
        }
        args.push(stray.to_str().unwrap());
        let out = masterctl(root, &args);
        assert_eq!(out.status.code(), Some(1), "{command}: {}", text(&out));
        assert!(text(&out).contains("nothing-matched"), "{}", text(&out));
        assert!(text(&out).contains("`notes.csv`"), "{}", text(&out));
        assert!(
            text(&out).contains("`monster` (sheet `Monster`)"),
            "{}",
            text(&out)
        );
    }
    let google = dir.path().join("hunt - Monster.csv");
    std::fs::copy(hunt().join("csv/Monster.csv"), &google).unwrap();
    let out = masterctl(
        root,
        &["--format", "json", "validate", google.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report = json(&out);
    assert_eq!(report["ok"], true, "{report}");
}

/// Excel's `~$` lock file caught by a shell glob is skipped with a warning, as folders
/// skip it, instead of failing the run as a broken workbook.
#[test]
fn an_excel_lock_file_named_on_the_command_line_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let workbook = dir.path().join("items.xlsx");
    std::fs::copy(fixtures().join("workbooks/items.xlsx"), &workbook).unwrap();
    let lock = dir.path().join("~$items.xlsx");
    std::fs::write(&lock, "\u{7}owner").unwrap();
    let out = masterctl(
        &fixtures(),
        &[
            "validate",
            workbook.to_str().unwrap(),
            lock.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("Excel lock file"), "{}", text(&out));
}

/// `init` commits the structure (with an author), so that a clone — a bare one too —
/// carries it; without an author it says exactly what to run; a bare repository without
/// structure is a clear error.
#[test]
fn init_commits_the_structure_so_that_clones_carry_it() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let run = |home: &std::path::Path, args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_masterctl"))
            .current_dir(tmp.path())
            .args(args)
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home)
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    // No author anywhere: said first, with both ways out, and nothing written.
    let out = run(&home, &["init", "plain"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("git config --global user.name")
            && text(&out).contains("masterctl init plain --author"),
        "{}",
        text(&out)
    );
    assert!(!tmp.path().join("plain").exists(), "nothing written");
    // With an author given, the repository keeps it and the next commands commit.
    let out = run(
        &home,
        &[
            "init",
            "plain",
            "--author",
            "Aiko Tanaka <aiko@example.com>",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("committed the structure"),
        "{}",
        text(&out)
    );
    let plain = tmp.path().join("plain");
    let imported = run(
        &home,
        &[
            "--repo",
            plain.to_str().unwrap(),
            "import",
            "--region",
            "jp",
            plain.join("workbooks").to_str().unwrap(),
        ],
    );
    assert_eq!(imported.status.code(), Some(0), "{}", text(&imported));
    // A console others could reach is refused for that first, author or none.
    for key in ["user.name", "user.email"] {
        let unset = std::process::Command::new("git")
            .args(["-C", plain.to_str().unwrap(), "config", "--unset", key])
            .status()
            .unwrap();
        assert!(unset.success());
    }
    let served = run(
        &home,
        &[
            "--repo",
            plain.to_str().unwrap(),
            "serve",
            "--listen",
            "0.0.0.0:0",
        ],
    );
    assert_eq!(served.status.code(), Some(2), "{}", text(&served));
    assert!(
        text(&served).contains("other machines can reach"),
        "{}",
        text(&served)
    );
    let bad = run(&home, &["init", "other", "--author", "no email"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    std::fs::write(
        home.join(".gitconfig"),
        "[user]\n\tname = Planner\n\temail = planner@example.com\n",
    )
    .unwrap();
    let out = run(&home, &["init", "game"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("committed the structure"),
        "{}",
        text(&out)
    );
    let game = tmp.path().join("game");
    let files = git(&game, &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert_eq!(files, "masterctl.toml\nschemas/item.toml\n");
    let bare = tmp.path().join("bare.git");
    git(
        tmp.path(),
        &[
            "clone",
            "-q",
            "--bare",
            game.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    let out = run(&home, &["--repo", bare.to_str().unwrap(), "status"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // A bare repository whose HEAD has no commit: a clear message, exit 2.
    let empty = tmp.path().join("empty.git");
    git(
        tmp.path(),
        &["init", "-q", "--bare", empty.to_str().unwrap()],
    );
    let out = run(&home, &["--repo", empty.to_str().unwrap(), "status"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no masterctl.toml"), "{}", text(&out));
}

/// `status` says "no commit yet" and counts in words, never "at none" or "commit(s)".
#[test]
fn status_speaks_plainly_of_regions_without_commits() {
    let repo = hunt_repo();
    let out = masterctl(repo.path(), &["status"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let shown = stdout(&out);
    assert!(shown.contains("masters/jp (no commit yet)"), "{shown}");
    assert!(shown.contains("no import point yet"), "{shown}");
    assert!(!shown.contains("none") && !shown.contains("(s)"), "{shown}");
}

/// A command's help shows the options it takes: no `--repo` where no repository is
/// read, the exchange formats only for `l10n export`; `--repo` given to such a command
/// is a usage error.
#[test]
fn help_shows_only_the_options_a_command_takes() {
    let here = root();
    let help = |args: &[&str]| {
        let out = masterctl(&here, args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        stdout(&out)
    };
    for command in [
        &["init"][..],
        &["inspect"],
        &["schema", "infer"],
        &["completions"],
        &["manual"],
    ] {
        let shown = help(&[command, &["--help"]].concat());
        assert!(!shown.contains("--repo"), "{command:?}: {shown}");
    }
    for command in [
        &["status"][..],
        &["validate"],
        &["import"],
        &["l10n", "status"],
    ] {
        let shown = help(&[command, &["--help"]].concat());
        assert!(shown.contains("--repo"), "{command:?}: {shown}");
        assert!(!shown.contains("xliff"), "{command:?}: {shown}");
    }
    let export = help(&["l10n", "export", "--help"]);
    assert!(export.contains("xliff") && export.contains("po ") && export.contains("csv "));
    // --repo before or after the command's name; refused where no repository is read.
    let out = masterctl(&here, &["--repo", "fixtures", "init", "/nonexistent/x"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("`masterctl init` reads no master repository"));
    let out = masterctl(
        &here,
        &["validate", "--repo", "fixtures", "fixtures/workbooks"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// `masterctl completions SHELL` writes a script the shell accepts, naming the commands.
#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = masterctl(&root(), &["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", text(&out));
        let script = stdout(&out);
        assert!(
            script.contains("rebase") && script.contains("region") && script.contains("unlock"),
            "{shell}: {script}"
        );
    }
    let out = masterctl(&root(), &["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    // bash parses what it is given.
    let out = masterctl(&root(), &["completions", "bash"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("masterctl.bash");
    std::fs::write(&file, &out.stdout).unwrap();
    let check = std::process::Command::new("bash")
        .arg("-n")
        .arg(&file)
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", text(&check));
}

/// `init` on a master repository says so (and never suggests the folder it is in);
/// `--from` a path that is not a project is a usage error; an invalid masterctl.toml
/// is summarised as such, not as "the schema files".
#[test]
fn init_and_project_errors_say_what_is_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    // A sub-folder of another repository: no command could open it (the structure is
    // read from the work tree's root), so it is refused and nothing written.
    let outer = tmp.path().join("monorepo");
    std::fs::create_dir(&outer).unwrap();
    git(&outer, &["init", "-q", "-b", "main"]);
    let out = masterctl(&outer, &["init", "game/masters"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("inside the git repository"),
        "{}",
        text(&out)
    );
    assert!(!outer.join("game").exists());
    // Its root is a project's place.
    ok(masterctl(&outer, &["init", "."]));
    ok(masterctl(&outer, &["status"]));
    let out = masterctl(tmp.path(), &["init", "my-masters"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = masterctl(&tmp.path().join("my-masters"), &["init"]);
    assert_eq!(out.status.code(), Some(2));
    let said = text(&out);
    assert!(
        said.contains("this folder is a master repository already"),
        "{said}"
    );
    assert!(!said.contains("init my-masters"), "{said}");
    let out = masterctl(tmp.path(), &["init", "my-masters"]);
    assert!(text(&out).contains("`masterctl --repo my-masters status`"));

    let out = masterctl(tmp.path(), &["init", "x", "--from", "/nonexistent"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--from /nonexistent: no such folder"));
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    let out = masterctl(tmp.path(), &["init", "x", "--from", "empty"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("holds no masterctl.toml"));
    assert!(!tmp.path().join("x").exists());

    let bad = tmp.path().join("bad");
    std::fs::create_dir_all(bad.join("schemas")).unwrap();
    std::fs::write(
        bad.join("masterctl.toml"),
        "source_language = \"ja\"\nlanguages = [\"ja\"]\n[regions.jp]\nbranh = \"x\"\n",
    )
    .unwrap();
    std::fs::copy(
        fixtures().join("schemas/category.toml"),
        bad.join("schemas/category.toml"),
    )
    .unwrap();
    let out = masterctl(tmp.path(), &["init", "y", "--from", "bad"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("error: masterctl.toml is not valid (1 error)"),
        "{}",
        text(&out)
    );
    let out = masterctl(
        tmp.path(),
        &["validate", "--schemas", "bad", "--format", "json", "."],
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["error"], "masterctl.toml is not valid");
}

/// One exit-code rule across commands: 1 when a thing named (region, table, key,
/// revision, release, language, work branch) is wrong or not there; 2 for usage (a flag,
/// a malformed name) and the environment (no repository).
#[test]
fn one_exit_code_rule_across_commands() {
    let game = sample_game();
    let root = game.path();
    let workbooks = fixtures().join("workbooks");
    let workbooks = workbooks.to_str().unwrap();
    ok(masterctl(
        root,
        &["build", "--region", "jp", "--out", "build"],
    ));
    let store = root.join("store");
    let url = format!("file://{}", store.display());
    ok(masterctl(root, &["publish", "build", "--to", &url]));
    let cases: &[(&[&str], i32)] = &[
        (&["import", "--region", "mars", workbooks], 1),
        (&["export", "--region", "mars", "--out", "x"], 1),
        (&["diff", "--region", "mars"], 1),
        (&["log", "--region", "mars"], 1),
        (&["build", "--region", "global", "--out", "b"], 1),
        (&["diff", "nope"], 1),
        (
            &["export", "--region", "jp", "--rev", "nope", "--out", "x"],
            1,
        ),
        (
            &["export", "--region", "jp", "--lang", "fr", "--out", "x"],
            1,
        ),
        (
            &["export", "--region", "jp", "--branch", "bob", "--out", "x"],
            1,
        ),
        (&["blame", "--region", "jp", "nosuch", "1"], 1),
        (&["blame", "--region", "jp", "item", "999"], 1),
        (&["blame", "--region", "jp", "quest_drop", "101"], 1),
        (&["inspect", "build", "nosuch"], 1),
        (&["inspect", "build", "item", "abc"], 1),
        (&["inspect", "build", "item", "999"], 1),
        (
            &[
                "rollback", "--reason", "test", "--from", &url, "--region", "jp", "--to",
                "deadbeef",
            ],
            1,
        ),
        (
            &["export", "--region", "jp", "--branch=../x", "--out", "x"],
            2,
        ),
        (&["import", "--region", "jp", "--frobnicate", workbooks], 2),
        (&["diff", "--region", "jp", "--flag", "price"], 2),
        // Work branches, merges, versions, a remote.
        (&["branch", "create", "../x", "--region", "jp"], 2),
        (&["branch", "create", "a/b", "--region", "jp"], 2),
        (&["branch", "create", "x", "--region", "mars"], 1),
        (&["branch", "create", "x", "--region", "global"], 1),
        (
            &["branch", "create", "x", "--region", "jp", "--at", "nope"],
            1,
        ),
        (&["branch", "delete", "nobody", "--region", "jp"], 1),
        (
            &["import", "--region", "jp", "--branch", "nobody", workbooks],
            1,
        ),
        (&["merge", "--region", "jp", "--branch", "nobody"], 1),
        (&["merge", "--region", "jp", "--branch", "x.lock"], 2),
        (&["rebase", "--region", "jp", "--branch", "nobody"], 1),
        (
            &[
                "merge",
                "--region",
                "jp",
                "--branch",
                "nobody",
                "--continue",
            ],
            2,
        ),
        (&["tag", "create", "../1", "--region", "jp"], 2),
        (
            &["tag", "create", "1.0", "--region", "jp", "--rev", "nope"],
            1,
        ),
        (&["tag", "create", "1.0", "--region", "global"], 1),
        (&["pull"], 2),
        (&["push", "--remote", "../x"], 2),
        (&["pull", "--continue"], 2),
        (&["status", "--remote", "upstream"], 2),
    ];
    for (args, code) in cases {
        let out = masterctl(root, args);
        assert_eq!(out.status.code(), Some(*code), "{args:?}: {}", text(&out));
        assert!(!text(&out).contains("panicked"), "{args:?}: {}", text(&out));
    }
    assert!(!root.join("x").exists() && !root.join("b").exists());
    // Nothing made by the refused ones; a version is made once.
    assert_eq!(git(root, &["branch", "--list", "work/*"]).trim(), "");
    ok(masterctl(root, &["tag", "create", "1.0", "--region", "jp"]));
    let again = masterctl(root, &["tag", "create", "1.0", "--region", "jp"]);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again));
    assert!(text(&again).contains("exists already"), "{}", text(&again));
    let nowhere = tempfile::tempdir().unwrap();
    let out = masterctl(nowhere.path(), &["log", "--region", "jp"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}
