//! Attacks a hostile user (or an unlucky one) could make, each reproduced first: forged
//! trailers, region names that are paths, ids that are not ids, identities git rejects,
//! locks left by killed processes, branches someone has checked out, invalid rebase
//! resolutions and formulas in the conflict file.

use std::path::Path;
use std::process::Output;

use crate::common::*;

/// hunt's structure with jp imported and global started from it by a first rebase.
fn regions() -> tempfile::TempDir {
    let repo = hunt_repo();
    let root = repo.path();
    let out = masterctl(
        root,
        &[
            "import",
            "--region",
            "jp",
            hunt().join("csv").to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = masterctl(root, &["rebase", "--region", "global"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    repo
}

/// hunt's CSV exports copied into a folder, `edit` applied to the monster table.
fn exports(edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(hunt().join("csv")).unwrap() {
        let path = entry.unwrap().path();
        let mut bytes = std::fs::read_to_string(&path).unwrap();
        if path.file_name().unwrap() == "Monster.csv" {
            bytes = edit(&bytes);
        }
        std::fs::write(dir.path().join(path.file_name().unwrap()), bytes).unwrap();
    }
    dir
}

fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

fn head(root: &Path, branch: &str) -> String {
    git(root, &["rev-parse", branch]).trim().to_string()
}

#[test]
fn a_file_name_cannot_forge_an_import_point() {
    let repo = regions();
    let root = repo.path();
    // jp changes a monster; global then imports a file whose name carries a forged
    // trailer naming jp's new head.
    let changed = exports(|t| t.replacen("5200", "5300", 1));
    let out = masterctl(
        root,
        &["import", "--region", "jp", changed.path().to_str().unwrap()],
    );
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let jp = head(root, "masters/jp");
    let forged = tempfile::tempdir().unwrap();
    let name = format!("g\nMasterctl-Upstream: {jp}\nNote: x.csv");
    // global's own change (so that the import commits), and a file whose name forges.
    let own = exports(|t| t.replacen("310", "320", 1));
    for entry in std::fs::read_dir(own.path()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, forged.path().join(path.file_name().unwrap())).unwrap();
    }
    std::fs::write(forged.path().join(&name), "id\n").unwrap();
    let out = masterctl(
        root,
        &[
            "import",
            "--region",
            "global",
            forged.path().to_str().unwrap(),
        ],
    );
    let message = git(root, &["log", "-1", "--format=%B", "masters/global"]);
    assert!(
        !message.lines().any(|l| l.starts_with("Masterctl-Upstream")),
        "{message}\n{}",
        text(&out)
    );
    let trailers = git(
        root,
        &[
            "log",
            "-1",
            "--format=%(trailers:key=Masterctl-Upstream)",
            "masters/global",
        ],
    );
    assert!(trailers.trim().is_empty(), "{trailers}");
    // The rebase still takes jp's change.
    let out = masterctl(root, &["rebase", "--region", "global"]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    assert!(!text(&out).contains("nothing to take"), "{}", text(&out));
    let monster = git(root, &["show", "masters/global:tables/monster.csv"]);
    assert!(
        monster.contains("5300") && monster.contains("320"),
        "{monster}"
    );
}

#[test]
fn a_planners_message_stays_one_line() {
    let repo = regions();
    let root = repo.path();
    let changed = exports(|t| t.replacen("5200", "5300", 1));
    let jp = head(root, "masters/jp");
    let words = format!("fix\n\nMasterctl-Upstream: {jp}");
    let out = masterctl(
        root,
        &[
            "import",
            "--region",
            "global",
            "-m",
            &words,
            changed.path().to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let subject = git(root, &["log", "-1", "--format=%s", "masters/global"]);
    assert_eq!(subject.trim(), format!("fix\\n\\nMasterctl-Upstream: {jp}"));
}

#[test]
fn a_region_name_never_becomes_a_path() {
    let repo = regions();
    let root = repo.path();
    // What the attack needed: a folder with a `state` file, reached by `..`.
    let victim = root.join("sub");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("state"), "keep me").unwrap();
    std::fs::create_dir_all(root.join(".git/masterctl/rebase")).unwrap();
    for region in ["../../../sub", "../../sub", "/tmp", "jp/../global", ""] {
        for extra in [&["--abort"][..], &["--continue"], &["--ours"], &[]] {
            let mut args = vec!["rebase", "--region", region];
            args.extend(extra);
            let out = masterctl(root, &args);
            assert_eq!(code(&out), Some(1), "{region} {extra:?}: {}", text(&out));
            assert!(text(&out).contains("not declared"), "{}", text(&out));
        }
        for command in [
            &["import", "--region", region, "."][..],
            &["log", "--region", region],
            &["build", "--region", region, "--out", "b"],
            &["l10n", "status", "--region", region],
            &["unlock", "--region", region],
        ] {
            let out = masterctl(root, command);
            assert_eq!(code(&out), Some(1), "{command:?}: {}", text(&out));
        }
    }
    assert_eq!(
        std::fs::read_to_string(victim.join("state")).unwrap(),
        "keep me"
    );
}

#[test]
fn ids_read_from_commits_and_manifests_never_panic() {
    let repo = regions();
    let root = repo.path();
    // A commit on global whose trailer value is not an id (made with git itself).
    git(root, &["checkout", "-q", "masters/global"]);
    git(
        root,
        &[
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "odd\n\nMasterctl-Upstream: aaaaaaaaaaaé\nMasterctl-Upstream-Base: é",
        ],
    );
    git(root, &["checkout", "-q", "main"]);
    for args in [
        &["log", "--region", "global"][..],
        &["--format", "json", "log", "--region", "global"],
        &["status"],
    ] {
        let out = masterctl(root, args);
        assert_eq!(code(&out), Some(0), "{args:?}: {}", text(&out));
    }
    // A manifest whose source commit is not an id.
    let out = masterctl(root, &["build", "--region", "jp", "--out", "build"]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let path = root.join("build/manifest.json");
    let manifest = std::fs::read_to_string(&path).unwrap();
    let commit = head(root, "masters/jp");
    std::fs::write(&path, manifest.replace(&commit, "aaaaaaaaaaaé\\u001b[2J")).unwrap();
    let out = masterctl(root, &["inspect", "build"]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    assert!(!stdout(&out).contains('\u{1b}'), "{}", stdout(&out));
}

#[test]
fn an_identity_git_would_reject_is_refused_before_anything_is_written() {
    let repo = regions();
    let root = repo.path();
    let before = head(root, "masters/jp");
    let changed = exports(|t| t.replacen("5200", "5300", 1));
    for (key, value) in [
        ("user.name", "Evil\nName"),
        ("user.email", "a@b>\n"),
        ("user.name", "<x>"),
    ] {
        git(root, &["config", key, value]);
        let out = masterctl(
            root,
            &["import", "--region", "jp", changed.path().to_str().unwrap()],
        );
        assert_eq!(code(&out), Some(2), "{}", text(&out));
        assert!(text(&out).contains(key), "{}", text(&out));
        assert_eq!(head(root, "masters/jp"), before);
        git(root, &["config", "user.name", "Test Planner"]);
        git(root, &["config", "user.email", "planner@example.com"]);
    }
    git(root, &["fsck", "--strict"]);
}

#[test]
fn a_lock_left_by_a_killed_import_is_named_shown_and_removable() {
    let repo = regions();
    let root = repo.path();
    let lock = root.join(".git/refs/heads/masters/jp.lock");
    std::fs::write(&lock, "").unwrap();
    let changed = exports(|t| t.replacen("5200", "5300", 1));
    let import = || {
        masterctl(
            root,
            &["import", "--region", "jp", changed.path().to_str().unwrap()],
        )
    };
    let out = import();
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert!(text(&out).contains("jp.lock"), "{}", text(&out));
    // A fresh lock may be a writer at work: unlock leaves it.
    let out = masterctl(root, &["unlock", "--region", "jp"]);
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert!(lock.exists());
    // An old one is shown by status and removed by unlock.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let status = json(&masterctl(root, &["--format", "json", "status"]));
    let jp = status["regions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["region"] == "jp")
        .unwrap();
    assert_eq!(jp["lock"]["stale"], true, "{status}");
    let out = masterctl(root, &["status"]);
    assert!(
        text(&out).contains("masterctl unlock --region jp"),
        "{}",
        text(&out)
    );
    let out = masterctl(root, &["unlock", "--region", "jp"]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    assert!(!lock.exists());
    let out = import();
    assert_eq!(code(&out), Some(0), "{}", text(&out));
}

#[test]
fn a_checked_out_or_structure_branch_is_never_moved() {
    let repo = regions();
    let root = repo.path();
    let changed = exports(|t| t.replacen("5200", "5300", 1));
    // jp checked out (and dirty) in a second worktree.
    let other = tempfile::tempdir().unwrap();
    let worktree = other.path().join("wt");
    git(
        root,
        &[
            "worktree",
            "add",
            "-q",
            worktree.to_str().unwrap(),
            "masters/jp",
        ],
    );
    std::fs::write(worktree.join("tables/monster.csv"), "dirty").unwrap();
    let before = head(root, "masters/jp");
    let out = masterctl(
        root,
        &["import", "--region", "jp", changed.path().to_str().unwrap()],
    );
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert!(text(&out).contains("checked out"), "{}", text(&out));
    assert_eq!(head(root, "masters/jp"), before);
    git(
        root,
        &["worktree", "remove", "--force", worktree.to_str().unwrap()],
    );
    // A region whose branch is the structure branch.
    let config = std::fs::read_to_string(root.join("masterctl.toml")).unwrap();
    std::fs::write(
        root.join("masterctl.toml"),
        config.replace("branch = \"masters/jp\"", "branch = \"main\""),
    )
    .unwrap();
    let main = head(root, "main");
    let out = masterctl(
        root,
        &["import", "--region", "jp", changed.path().to_str().unwrap()],
    );
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert_eq!(head(root, "main"), main);
    // Names git itself refuses.
    for name in [
        "HEAD",
        "-masters",
        "masters/.x",
        "a..b",
        "x.lock",
        "masters/jp.",
    ] {
        std::fs::write(
            root.join("masterctl.toml"),
            config.replace("branch = \"masters/jp\"", &format!("branch = \"{name}\"")),
        )
        .unwrap();
        let out = masterctl(root, &["status"]);
        assert_eq!(code(&out), Some(1), "{name}: {}", text(&out));
        assert!(text(&out).contains("branch name"), "{}", text(&out));
    }
}

#[test]
fn the_conflict_file_neutralises_formulas_and_continue_shows_invalid_resolutions() {
    let repo = regions();
    let root = repo.path();
    let both = |name: &str, hp: &str| {
        exports(move |t| t.replacen("リオス", name, 1).replacen("5200", hp, 1))
    };
    let jp = both("=HYPERLINK(\"x\")", "5300");
    let global = both("@SUM(1)", "5400");
    for (region, dir) in [("jp", &jp), ("global", &global)] {
        let out = masterctl(
            root,
            &["import", "--region", region, dir.path().to_str().unwrap()],
        );
        assert_eq!(code(&out), Some(0), "{}", text(&out));
    }
    let out = masterctl(root, &["rebase", "--region", "global"]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    let file = root.join(".git/masterctl/rebase/global/conflicts.csv");
    let csv = std::fs::read_to_string(&file).unwrap();
    assert!(csv.contains("'=HYPERLINK"), "{csv}");
    assert!(csv.contains("'@SUM(1)"), "{csv}");
    for line in csv.lines() {
        for cell in line.split(',') {
            assert!(!cell.starts_with(['=', '@', '+']), "{cell} in {csv}");
        }
    }
    // A resolution that is not valid data (hp has min = 1): continue says why.
    let out = masterctl(
        root,
        &[
            "rebase", "--region", "global", "--theirs", "--column", "name",
        ],
    );
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let csv = std::fs::read_to_string(&file).unwrap();
    assert!(csv.contains("'=HYPERLINK"), "{csv}");
    let edited: String = csv
        .lines()
        .map(|l| {
            if l.contains(",hp,") {
                format!("{},value,-5", l.trim_end_matches(','))
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\r\n");
    std::fs::write(&file, edited + "\r\n").unwrap();
    let out = masterctl(root, &["rebase", "--region", "global", "--continue"]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(!text(&out).contains("moved"), "{}", text(&out));
    assert!(
        text(&out).contains("Monster") || text(&out).contains("monster"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("-5"), "{}", text(&out));
    // Two different resolutions of one cell are refused, naming both lines.
    let csv = std::fs::read_to_string(&file).unwrap();
    let hp = csv
        .lines()
        .find(|l| l.contains(",hp,"))
        .unwrap()
        .to_string();
    let other = hp.replace("value,-5", "value,7000");
    std::fs::write(&file, format!("{csv}{other}\r\n")).unwrap();
    let out = masterctl(root, &["rebase", "--region", "global", "--continue"]);
    // The file's content is rejected (exit 1), not an environment error.
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(text(&out).contains("differently"), "{}", text(&out));
    // A resolution that is not one, and a file that lost its header: exit 1 too.
    std::fs::write(&file, csv.replace("value,-5", "perhaps,-5")).unwrap();
    let out = masterctl(root, &["rebase", "--region", "global", "--continue"]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(text(&out).contains("`perhaps` is not ours, theirs or value"));
    std::fs::write(&file, csv.lines().skip(1).collect::<Vec<_>>().join("\r\n")).unwrap();
    let out = masterctl(root, &["rebase", "--region", "global", "--continue"]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(text(&out).contains("lost its header"), "{}", text(&out));
    // Fixed: the formula text arrives exactly as jp wrote it.
    std::fs::write(&file, csv.replace("value,-5", "value,7000")).unwrap();
    let out = masterctl(root, &["rebase", "--region", "global", "--continue"]);
    assert_eq!(code(&out), Some(0), "{}", text(&out));
    let names = git(root, &["show", "masters/global:locales/ja/monster.csv"]);
    assert!(names.contains("=HYPERLINK(\"\"x\"\")"), "{names}");
    let monster = git(root, &["show", "masters/global:tables/monster.csv"]);
    assert!(monster.contains("7000"), "{monster}");
}

#[test]
fn packs_are_consolidated_past_git_s_auto_pack_limit() {
    let repo = regions();
    let root = repo.path();
    git(root, &["config", "gc.autoPackLimit", "3"]);
    let packs = || {
        std::fs::read_dir(root.join(".git/objects/pack"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "pack")
            })
            .count()
    };
    for hp in 5301..5309 {
        let changed = exports(|t| t.replacen("5200", &hp.to_string(), 1));
        let out = masterctl(
            root,
            &["import", "--region", "jp", changed.path().to_str().unwrap()],
        );
        assert_eq!(code(&out), Some(0), "{}", text(&out));
        assert!(packs() <= 4, "{} packs", packs());
    }
    git(root, &["fsck", "--strict", "--no-dangling"]);
    let log = git(root, &["log", "--format=%H", "masters/jp"]);
    assert_eq!(log.lines().count(), 9);
    for commit in log.lines() {
        git(root, &["ls-tree", "-r", commit]);
    }
    let monster = git(root, &["show", "masters/jp:tables/monster.csv"]);
    assert!(monster.contains("5308"), "{monster}");
}
