//! `masterctl import` and `masterctl log` on real git repositories, checked with the
//! `git` command itself: trees, canonical bytes, trailers, races, bare clones.

use crate::common::*;

use std::path::Path;
use std::process::{Command, Output};

/// `masterctl export --region jp --out OUT EXTRA...` in `root`.
fn export(root: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["export", "--region", "jp", "--out", out.to_str().unwrap()];
    args.extend(extra);
    masterctl(root, &args)
}

fn import(root: &Path, input: &Path) -> Output {
    masterctl(root, &["import", "--region", "jp", input.to_str().unwrap()])
}

/// A repository of one region (jp, Japanese only) and one table, `name`, of `schema`.
fn one_table_project(name: &str, schema: &str) -> tempfile::TempDir {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.name", "Test Planner"]);
    git(root, &["config", "user.email", "planner@example.com"]);
    std::fs::write(
        root.join("masterctl.toml"),
        "source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n",
    )
    .unwrap();
    std::fs::create_dir(root.join("schemas")).unwrap();
    std::fs::write(root.join("schemas").join(format!("{name}.toml")), schema).unwrap();
    commit_structure(root);
    project
}

/// `import --region jp --format json [EXTRA...] INPUT`, checked to exit 0: its JSON.
fn import_json(root: &Path, input: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["import", "--region", "jp", "--format", "json"];
    args.extend(extra);
    args.push(input.to_str().unwrap());
    let out = masterctl(root, &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    json(&out)
}

fn branch_head(root: &Path) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-parse", "--verify", "-q", "masters/jp"])
        .output()
        .unwrap();
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn every_export_gives_the_same_tree_with_canonical_files() {
    let mut trees = Vec::new();
    for export in ["hunt.xlsx", "hunt.ods", "csv"] {
        let repo = hunt_repo();
        let out = import(repo.path(), &hunt().join(export));
        assert_eq!(out.status.code(), Some(0), "{export}: {}", text(&out));
        trees.push(git(repo.path(), &["rev-parse", "masters/jp^{tree}"]));
        let show = |path: &str| git(repo.path(), &["show", &format!("masters/jp:{path}")]);
        assert_eq!(
            show("tables/reward.csv"),
            "monster_id,material_id,rate,amount\n100,10,0.45,1\n100,11,0.12,1\n101,10,0.05,1\n101,12,0.5,2\n102,13,0.9,1\n"
        );
        assert_eq!(show("tables/habitat.csv"), "id\n1\n2\n3\n");
        assert_eq!(
            show("tables/monster.csv"),
            "id,element,hp,attack,habitat_id,boss\n100,fire,5200,310,2,true\n101,ice,4800,280,3,false\n102,none,300,5,1,false\n"
        );
        assert_eq!(
            show("locales/ja/monster.csv"),
            "id,name\n100,リオス\n101,ギア\n102,ケルビ\n"
        );
        assert_eq!(
            show("generated/material_sources.csv"),
            "material_id,source_table,source_key,rate\n10,reward,100|10,0.45\n10,reward,101|10,0.05\n11,reward,100|11,0.12\n12,reward,101|12,0.5\n13,reward,102|13,0.9\n"
        );
        // Text lives only in the language tables.
        let files = git(repo.path(), &["ls-tree", "-r", "--name-only", "masters/jp"]);
        assert!(!files.contains("locales/en"), "{files}");
        assert!(!show("tables/material.csv").contains("name"));
        assert_eq!(git(repo.path(), &["fsck", "--no-progress"]).trim(), "");
    }
    assert_eq!(trees[0], trees[1], "xlsx and ods");
    assert_eq!(trees[0], trees[2], "xlsx and csv");
}

#[test]
fn reimporting_the_same_data_makes_no_commit() {
    let repo = hunt_repo();
    assert_eq!(
        import(repo.path(), &hunt().join("hunt.xlsx")).status.code(),
        Some(0)
    );
    let first = branch_head(repo.path()).unwrap();
    for export in ["hunt.xlsx", "hunt.ods", "csv"] {
        let out = import(repo.path(), &hunt().join(export));
        assert_eq!(out.status.code(), Some(0));
        assert!(text(&out).contains("nothing changed"), "{}", text(&out));
    }
    assert_eq!(branch_head(repo.path()).unwrap(), first);
}

#[test]
fn commits_carry_counts_and_source_trailers() {
    let repo = hunt_repo();
    let out = masterctl(
        repo.path(),
        &[
            "import",
            "--region",
            "jp",
            "-m",
            "First hunt masters",
            hunt().join("hunt.xlsx").to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let message = git(repo.path(), &["log", "-1", "--format=%B", "masters/jp"]);
    assert!(message.starts_with("First hunt masters\n\n"), "{message}");
    assert!(
        message.contains("reward: 5 added, 0 changed, 0 removed"),
        "{message}"
    );
    let trailers = git(
        repo.path(),
        &[
            "log",
            "-1",
            "--format=%(trailers:key=Masterctl-Source,valueonly)",
            "masters/jp",
        ],
    );
    assert!(
        trailers.trim().starts_with("hunt.xlsx sha256:"),
        "{trailers}"
    );
    assert_eq!(trailers.trim().len(), "hunt.xlsx sha256:".len() + 64);
    assert_eq!(
        git(
            repo.path(),
            &["log", "-1", "--format=%an <%ae>", "masters/jp"]
        )
        .trim(),
        "Test Planner <planner@example.com>"
    );
    // The log command reads the same history back.
    let log = masterctl(repo.path(), &["log", "--region", "jp", "--format", "json"]);
    let log: serde_json::Value = serde_json::from_slice(&log.stdout).unwrap();
    let imports = log["imports"].as_array().unwrap();
    assert_eq!(imports.len(), 1);
    assert_eq!(imports[0]["subject"], "First hunt masters");
    assert_eq!(imports[0]["author"], "Test Planner");
    assert!(
        imports[0]["sources"][0]
            .as_str()
            .unwrap()
            .starts_with("hunt.xlsx sha256:")
    );
}

#[test]
fn a_partial_import_keeps_the_other_tables() {
    let repo = hunt_repo();
    assert_eq!(
        import(repo.path(), &hunt().join("hunt.xlsx")).status.code(),
        Some(0)
    );
    let monster_before = git(repo.path(), &["rev-parse", "masters/jp:tables/monster.csv"]);
    let input = tempfile::tempdir().unwrap();
    let habitat = std::fs::read_to_string(hunt().join("csv/Habitat.csv")).unwrap();
    let renamed = habitat.replacen("\r\n1,", "\r\n1,新しい森\r\n#", 1);
    std::fs::write(input.path().join("Habitat.csv"), renamed).unwrap();
    let out = import(repo.path(), &input.path().join("Habitat.csv"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("habitat"), "{}", text(&out));
    assert_eq!(
        git(repo.path(), &["rev-parse", "masters/jp:tables/monster.csv"]),
        monster_before
    );
    let log = git(repo.path(), &["log", "-1", "--format=%B", "masters/jp"]);
    assert!(
        log.contains("habitat: 0 added, 1 changed, 0 removed"),
        "{log}"
    );
    assert!(
        git(repo.path(), &["show", "masters/jp:locales/ja/habitat.csv"]).contains("1,新しい森\n")
    );
}

#[test]
fn a_partial_import_that_breaks_a_kept_table_is_rejected_and_writes_nothing() {
    let repo = hunt_repo();
    assert_eq!(
        import(repo.path(), &hunt().join("hunt.xlsx")).status.code(),
        Some(0)
    );
    let head = branch_head(repo.path()).unwrap();
    let objects = git(repo.path(), &["count-objects", "-v"]);
    let input = tempfile::tempdir().unwrap();
    // Habitat 2 disappears, but monster 100 (not in the input) still lives there.
    std::fs::write(input.path().join("Habitat.csv"), "id,name\n1,森\n3,氷\n").unwrap();
    let out = import(repo.path(), &input.path().join("Habitat.csv"));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("foreign-key"), "{}", text(&out));
    assert!(text(&out).contains("tables/monster.csv"), "{}", text(&out));
    assert!(text(&out).contains("nothing was written"), "{}", text(&out));
    assert_eq!(branch_head(repo.path()).unwrap(), head);
    assert_eq!(
        git(repo.path(), &["count-objects", "-v"]),
        objects,
        "no object was written"
    );
    assert_eq!(git(repo.path(), &["fsck", "--no-progress"]).trim(), "");
}

#[test]
fn bad_input_writes_nothing_and_no_branch_is_created() {
    let repo = hunt_repo();
    let input = tempfile::tempdir().unwrap();
    std::fs::write(input.path().join("Habitat.csv"), "id,name\n1,森\nx,氷\n").unwrap();
    let objects = git(repo.path(), &["count-objects", "-v"]);
    let out = import(repo.path(), input.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("Habitat.csv:3"), "{}", text(&out));
    assert_eq!(branch_head(repo.path()), None);
    assert_eq!(git(repo.path(), &["count-objects", "-v"]), objects);
}

#[test]
fn dry_run_shows_the_change_and_writes_nothing() {
    let repo = hunt_repo();
    let objects = git(repo.path(), &["count-objects", "-v"]);
    let out = masterctl(
        repo.path(),
        &[
            "import",
            "--region",
            "jp",
            "--dry-run",
            hunt().join("hunt.xlsx").to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("reward"), "{}", text(&out));
    assert_eq!(branch_head(repo.path()), None);
    assert_eq!(git(repo.path(), &["count-objects", "-v"]), objects);
}

#[test]
fn racing_imports_never_lose_a_commit() {
    let repo = hunt_repo();
    assert_eq!(
        import(repo.path(), &hunt().join("hunt.xlsx")).status.code(),
        Some(0)
    );
    // Eight imports of different data at once: each either commits on top of what it
    // read, or fails saying so; the branch's history holds exactly the winners.
    let inputs: Vec<tempfile::TempDir> = (0..8)
        .map(|i| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(
                dir.path().join("Habitat.csv"),
                format!("id,name\n1,森{i}\n2,火山\n3,氷\n"),
            )
            .unwrap();
            dir
        })
        .collect();
    let children: Vec<_> = inputs
        .iter()
        .map(|dir| {
            Command::new(env!("CARGO_BIN_EXE_masterctl"))
                .current_dir(repo.path())
                .args(["import", "--region", "jp", "--format", "json"])
                .arg(dir.path())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut winners = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        match out.status.code() {
            Some(0) => {
                let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                winners.push(json["commit"].as_str().unwrap().to_string());
            }
            Some(2) => assert!(
                text(&out).contains("moved while this import ran"),
                "{}",
                text(&out)
            ),
            other => panic!("exit {other:?}: {}", text(&out)),
        }
    }
    let history = git(repo.path(), &["log", "--format=%H", "masters/jp"]);
    for winner in &winners {
        assert!(
            history.contains(winner.as_str()),
            "commit {winner} was lost"
        );
    }
    assert_eq!(history.lines().count(), winners.len() + 1);
    // A loser's commit object stays behind unreferenced (git gc removes it): dangling,
    // never broken.
    let fsck = git(repo.path(), &["fsck", "--no-progress"]);
    assert!(
        fsck.lines().all(|l| l.starts_with("dangling commit")),
        "{fsck}"
    );
}

#[test]
fn a_bare_clone_works_the_same() {
    let repo = hunt_repo();
    assert_eq!(
        import(repo.path(), &hunt().join("hunt.xlsx")).status.code(),
        Some(0)
    );
    let clones = tempfile::tempdir().unwrap();
    let bare = clones.path().join("masters.git");
    let out = Command::new("git")
        .args(["clone", "-q", "--bare"])
        .arg(repo.path())
        .arg(&bare)
        .output()
        .unwrap();
    assert!(out.status.success());
    // The structure comes from HEAD's tree; the region branch came along.
    let out = masterctl(&bare, &["log", "--region", "jp"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("reward: 5 added"), "{}", text(&out));
    git(&bare, &["config", "user.name", "Bare Planner"]);
    git(&bare, &["config", "user.email", "bare@example.com"]);
    let out = masterctl(
        &bare,
        &[
            "import",
            "--region",
            "jp",
            hunt().join("hunt.ods").to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("nothing changed"));
    let input = tempfile::tempdir().unwrap();
    std::fs::write(
        input.path().join("Habitat.csv"),
        "id,name\n1,森\n2,火山\n3,氷\n4,砂漠\n",
    )
    .unwrap();
    let out = masterctl(
        &bare,
        &["import", "--region", "jp", input.path().to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(git(&bare, &["show", "masters/jp:tables/habitat.csv"]).ends_with("4\n"));
}

#[test]
fn no_author_is_a_clear_error() {
    let repo = hunt_repo();
    git(repo.path(), &["config", "--unset", "user.name"]);
    git(repo.path(), &["config", "--unset", "user.email"]);
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_masterctl"))
        .current_dir(repo.path())
        .args(["import", "--region", "jp"])
        .arg(hunt().join("hunt.xlsx"))
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_AUTHOR_NAME")
        .env_remove("GIT_AUTHOR_EMAIL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no author"), "{}", text(&out));
    assert_eq!(branch_head(repo.path()), None);
}

#[test]
fn an_unknown_region_is_named_and_no_repository_is_an_environment_error() {
    let repo = hunt_repo();
    let out = masterctl(
        repo.path(),
        &[
            "import",
            "--region",
            "mars",
            hunt().join("hunt.xlsx").to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("region `mars`"), "{}", text(&out));
    let elsewhere = tempfile::tempdir().unwrap();
    let out = masterctl(elsewhere.path(), &["log", "--region", "jp"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("not inside a git repository"),
        "{}",
        text(&out)
    );
}

#[test]
fn the_import_cache_never_hides_a_change() {
    let repo = hunt_repo();
    let input = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(hunt().join("csv")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, input.path().join(path.file_name().unwrap())).unwrap();
    }
    assert_eq!(import(repo.path(), input.path()).status.code(), Some(0));
    assert!(repo.path().join(".git/masterctl/import-cache").is_file());
    let unchanged = import(repo.path(), input.path());
    assert!(
        text(&unchanged).contains("nothing changed"),
        "{}",
        text(&unchanged)
    );
    // A changed export is a cache miss: read, validated, committed.
    let habitat = input.path().join("Habitat.csv");
    let edited = std::fs::read_to_string(&habitat).unwrap() + "4,砂漠\r\n";
    std::fs::write(&habitat, edited).unwrap();
    let out = import(repo.path(), input.path());
    assert!(text(&out).contains("committed"), "{}", text(&out));
    assert!(git(repo.path(), &["show", "masters/jp:tables/habitat.csv"]).ends_with("4\n"));
    // A damaged cache is ignored.
    std::fs::write(
        repo.path().join(".git/masterctl/import-cache"),
        "garbage\x00\n",
    )
    .unwrap();
    let out = import(repo.path(), input.path());
    assert!(text(&out).contains("nothing changed"), "{}", text(&out));
    // A schema change is a new structure: the same exports make a new snapshot.
    let schema = repo.path().join("schemas/habitat.toml");
    let edited = std::fs::read_to_string(&schema)
        .unwrap()
        .replace("max_length = 16", "max_length = 18");
    std::fs::write(&schema, edited).unwrap();
    commit_structure(repo.path());
    let out = import(repo.path(), input.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("committed"), "{}", text(&out));
    assert!(
        git(repo.path(), &["show", "masters/jp:schemas/habitat.toml"]).contains("max_length = 18")
    );
    // An import that breaks a rule the branch's data relies on is still caught.
    let edited = std::fs::read_to_string(&schema)
        .unwrap()
        .replace("max_length = 18", "max_length = 1");
    std::fs::write(&schema, edited).unwrap();
    commit_structure(repo.path());
    let out = import(repo.path(), input.path());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("length"), "{}", text(&out));
}

#[test]
fn counts_say_what_was_added_changed_and_removed() {
    let repo = hunt_repo();
    assert_eq!(
        import(repo.path(), &hunt().join("hunt.xlsx")).status.code(),
        Some(0)
    );
    let input = tempfile::tempdir().unwrap();
    // (100, 11) removed, (101, 12) changed, (102, 10) added; the others as they were.
    std::fs::write(
        input.path().join("Reward.csv"),
        "monster_id,material_id,rate,amount\n100,10,0.45,1\n101,10,0.05,1\n101,12,0.6,2\n102,13,0.9,1\n102,10,0.3,1\n",
    )
    .unwrap();
    let out = import(repo.path(), input.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let message = git(repo.path(), &["log", "-1", "--format=%B", "masters/jp"]);
    assert!(
        message.contains("reward: 1 added, 1 changed, 1 removed"),
        "{message}"
    );
    // The reverse master followed.
    let sources = git(
        repo.path(),
        &["show", "masters/jp:generated/material_sources.csv"],
    );
    assert!(
        sources.contains("10,reward,102|10,0.3\n") && !sources.contains("11,reward"),
        "{sources}"
    );
}

#[test]
fn kept_tables_are_checked_against_todays_schema() {
    let repo = hunt_repo();
    assert_eq!(
        import(repo.path(), &hunt().join("hunt.xlsx")).status.code(),
        Some(0)
    );
    // Monster hp may now be at most 1000; monster is not in the next import, but it is
    // part of the snapshot that import would make.
    let schema = repo.path().join("schemas/monster.toml");
    let text_before = std::fs::read_to_string(&schema).unwrap();
    std::fs::write(
        &schema,
        text_before.replace(
            "name = \"hp\"\ntype = \"int\"\nmin = 1",
            "name = \"hp\"\ntype = \"int\"\nmin = 1\nmax = 1000",
        ),
    )
    .unwrap();
    commit_structure(repo.path());
    let out = import(repo.path(), &hunt().join("csv/Habitat.csv"));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("out-of-range"), "{}", text(&out));
    assert!(text(&out).contains("tables/monster.csv"), "{}", text(&out));
}

#[test]
fn imports_leave_the_working_tree_and_head_alone() {
    let repo = hunt_repo();
    // Uncommitted work in progress: an edited schema comment and a stray file.
    let schema = repo.path().join("schemas/habitat.toml");
    let committed = std::fs::read_to_string(&schema).unwrap();
    std::fs::write(&schema, format!("# being edited\n{committed}")).unwrap();
    std::fs::write(repo.path().join("notes.txt"), "draft\n").unwrap();
    let status = git(repo.path(), &["status", "--porcelain"]);
    let head = git(repo.path(), &["rev-parse", "HEAD"]);
    // The import copies a committed structure: the edit is named, nothing written.
    let out = import(repo.path(), &hunt().join("hunt.xlsx"));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("schemas/habitat.toml has changes not committed")
            && text(&out).contains("git add masterctl.toml schemas && git commit"),
        "{}",
        text(&out)
    );
    assert_eq!(branch_head(repo.path()), None);
    let unknown = masterctl(
        repo.path(),
        &[
            "import",
            "--region",
            "jp",
            "--structure",
            "nope",
            hunt().join("hunt.xlsx").to_str().unwrap(),
        ],
    );
    assert_eq!(unknown.status.code(), Some(1), "{}", text(&unknown));
    assert!(
        text(&unknown).contains("`nope` names no commit"),
        "{}",
        text(&unknown)
    );
    // Named explicitly, the committed structure is taken as it is.
    let out = masterctl(
        repo.path(),
        &[
            "import",
            "--region",
            "jp",
            "--structure",
            "HEAD",
            hunt().join("hunt.xlsx").to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(git(repo.path(), &["status", "--porcelain"]), status);
    assert_eq!(git(repo.path(), &["rev-parse", "HEAD"]), head);
    assert_eq!(
        git(repo.path(), &["symbolic-ref", "HEAD"]).trim(),
        "refs/heads/main"
    );
    assert_eq!(
        git(repo.path(), &["show", "masters/jp:schemas/habitat.toml"]),
        committed
    );
    let message = git(repo.path(), &["log", "-1", "--format=%B", "masters/jp"]);
    assert!(
        message.contains(&format!("Masterctl-Structure: {}", head.trim())),
        "{message}"
    );
}

/// The day-one loss: schemas written in one clone and never committed; a teammate's
/// clone, whose main lacks them, imported the same workbooks and the commit removed two
/// tables while saying "0 tables changed". Both ends are refused now, each naming why.
#[test]
fn a_clone_without_the_structure_cannot_drop_tables_in_silence() {
    let first = hunt_repo();
    let root = first.path();
    // A table added in the working tree only.
    std::fs::write(
        root.join("schemas/quest.toml"),
        "name = \"quest\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n",
    )
    .unwrap();
    let exports = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(hunt().join("csv")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, exports.path().join(path.file_name().unwrap())).unwrap();
    }
    std::fs::write(exports.path().join("quest.csv"), "id\n1\n2\n").unwrap();
    let out = import(root, exports.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("schemas/quest.toml is not committed"),
        "{}",
        text(&out)
    );
    // Committed, the import goes through (the clone that pushed the region).
    commit_structure(root);
    let out = import(root, exports.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // A teammate's clone of the region whose main is still the old structure.
    let second = tempfile::tempdir().unwrap();
    let clone = second.path().join("clone");
    git(
        second.path(),
        &[
            "clone",
            "-q",
            root.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    git(&clone, &["config", "user.name", "Teammate"]);
    git(&clone, &["config", "user.email", "mate@example.com"]);
    git(&clone, &["reset", "-q", "--hard", "HEAD~1"]);
    git(&clone, &["branch", "-q", "masters/jp", "origin/masters/jp"]);
    let before = git(&clone, &["rev-parse", "masters/jp"]);
    let out = import(&clone, exports.path());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let structure = git(root, &["rev-parse", "--short=12", "HEAD"]);
    assert!(
        text(&out).contains(&format!(
            "imported with the structure of commit {}, which main here does not hold: main is behind",
            structure.trim()
        )) && text(&out).contains("git pull"),
        "{}",
        text(&out)
    );
    assert_eq!(git(&clone, &["rev-parse", "masters/jp"]), before);
}

#[test]
fn the_same_bytes_under_another_name_are_another_table() {
    let repo = hunt_repo();
    assert_eq!(
        import(repo.path(), &hunt().join("hunt.xlsx")).status.code(),
        Some(0)
    );
    // One file imported as Habitat.csv ...
    let input = tempfile::tempdir().unwrap();
    let names = "id,name\n1,森\n2,火山\n3,氷\n";
    std::fs::write(input.path().join("Habitat.csv"), names).unwrap();
    let out = import(repo.path(), &input.path().join("Habitat.csv"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // ... and the very same bytes as Material.csv: a different table, so not "unchanged".
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("Material.csv"), names).unwrap();
    let out = import(repo.path(), &other.path().join("Material.csv"));
    assert_ne!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!text(&out).contains("nothing changed"), "{}", text(&out));
    assert!(text(&out).contains("missing-column"), "{}", text(&out));
}

#[test]
fn an_integer_keyed_table_without_text_is_counted_line_by_line() {
    let repo = hunt_repo();
    std::fs::write(
        repo.path().join("schemas/price.toml"),
        "name = \"price\"\nsheet = \"Price\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"amount\"\ntype = \"int\"\n",
    )
    .unwrap();
    commit_structure(repo.path());
    let input = tempfile::tempdir().unwrap();
    let csv = input.path().join("Price.csv");
    std::fs::write(&csv, "id,amount\n1,10\n2,20\n3,30\n10,100\n").unwrap();
    assert_eq!(import(repo.path(), &csv).status.code(), Some(0));
    // 2 removed, 3 changed, 4 and 11 added, 1 and 10 untouched.
    std::fs::write(&csv, "id,amount\n1,10\n3,31\n4,40\n10,100\n11,110\n").unwrap();
    let out = import(repo.path(), &csv);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let message = git(repo.path(), &["log", "-1", "--format=%B", "masters/jp"]);
    assert!(
        message.contains("price: 2 added, 1 changed, 1 removed"),
        "{message}"
    );
}

#[test]
fn an_import_that_would_remove_a_table_says_so_and_needs_allowing() {
    // A teammate's clone whose structure lacks a table and the generated master over it
    // imports the same workbooks: that would remove both from the branch.
    let game = sample_game();
    let root = game.path();
    let before = branch_head(root);
    for schema in ["element_affinity.toml", "element_matrix.toml"] {
        std::fs::remove_file(root.join("schemas").join(schema)).unwrap();
    }
    commit_structure(root);
    let workbooks = fixtures().join("workbooks");
    let out = import(root, &workbooks);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("table element_affinity ("), "{said}");
    assert!(said.contains("generated master element_matrix"), "{said}");
    assert!(said.contains("--allow-removal"), "{said}");
    assert_eq!(branch_head(root), before, "nothing was written");
    // A dry run names them too.
    let dry = masterctl(
        root,
        &[
            "import",
            "--region",
            "jp",
            "--dry-run",
            workbooks.to_str().unwrap(),
        ],
    );
    assert!(
        text(&dry).contains("removes table element_affinity"),
        "{}",
        text(&dry)
    );
    // Allowed: committed, and the commit counts what it removed.
    let json = import_json(root, &workbooks, &["--allow-removal"]);
    assert_eq!(json["removals"].as_array().unwrap().len(), 2, "{json:#}");
    let subject = git(root, &["log", "-1", "--format=%s", "masters/jp"]);
    assert!(subject.contains("2 tables changed"), "{subject}");
    let body = git(root, &["log", "-1", "--format=%b", "masters/jp"]);
    assert!(body.contains("element_affinity: table removed"), "{body}");
    assert!(
        body.contains("element_matrix: generated master removed"),
        "{body}"
    );
}

#[test]
fn an_import_losing_most_rows_of_a_table_needs_allowing() {
    let project = one_table_project(
        "thing",
        "name = \"thing\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"label\"\ntype = \"string\"\n",
    );
    let root = project.path();
    let rows = |n: usize| -> String {
        let mut text = String::from("id,label\n");
        for i in 1..=n {
            text.push_str(&format!("{i},thing {i}\n"));
        }
        text
    };
    let dir = root.join("exports");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("thing.csv"), rows(30)).unwrap();
    ok(import(root, &dir));
    // An export that lost most of the table: refused, nothing written.
    std::fs::write(dir.join("thing.csv"), rows(5)).unwrap();
    let before = branch_head(root);
    let out = import(root, &dir);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("25 of 30 rows of thing"),
        "{}",
        text(&out)
    );
    assert_eq!(branch_head(root), before);
    // Half of them is a change like any other.
    std::fs::write(dir.join("thing.csv"), rows(15)).unwrap();
    ok(import(root, &dir));
}

#[test]
fn an_export_imports_back_as_nothing_changed_and_records_its_commit() {
    let game = sample_game();
    let root = game.path();
    let head = branch_head(root).unwrap();
    let out = root.join("exported");
    let exported = masterctl(
        root,
        &[
            "export",
            "--region",
            "jp",
            "--out",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(exported.status.code(), Some(0), "{}", text(&exported));
    let said = json(&exported);
    assert_eq!(said["commit"], head.as_str());
    assert_eq!(said["files"].as_array().unwrap().len(), 10, "{said:#}");
    // Imported back: nothing changed, byte for byte.
    let again = import(root, &out);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(text(&again).contains("nothing changed"), "{}", text(&again));
    assert_eq!(branch_head(root).unwrap(), head);
    // Each workbook says which commit it holds (a custom document property).
    let properties = Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile\nprint(zipfile.ZipFile(sys.argv[1]).read('docProps/custom.xml').decode())",
            out.join("Item.xlsx").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let custom = String::from_utf8_lossy(&properties.stdout);
    assert!(
        custom.contains("masterctl-commit") && custom.contains(&head),
        "{custom}"
    );
    // One cell edited (item 1's price, F2, as a spreadsheet application saves it):
    // exactly that cell changes.
    edit_number(&out.join("Item.xlsx"), "F2", "100", "150");
    let said = import_json(root, &out, &[]);
    assert_eq!(
        said["changes"],
        serde_json::json!([{"table": "item", "added": 0, "changed": 1, "removed": 0}]),
        "{said:#}"
    );
    let diff = masterctl(root, &["diff", "--region", "jp", "--format", "json"]);
    let diff_json = json(&diff);
    let cells: Vec<&serde_json::Value> = diff_json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "cell_changed")
        .collect();
    assert_eq!(cells.len(), 1, "{}", text(&diff));
    assert_eq!(cells[0]["column"], "price");
    // Another region or a commit of its history, the same way.
    let earlier = masterctl(
        root,
        &[
            "export",
            "--region",
            "jp",
            "--rev",
            "masters/jp~1",
            "--out",
            "earlier",
        ],
    );
    assert_eq!(earlier.status.code(), Some(0), "{}", text(&earlier));
    let unknown = export(root, &root.join("x"), &["--rev", "nope"]);
    assert_eq!(unknown.status.code(), Some(1), "{}", text(&unknown));
}

/// The number in `cell` of an xlsx's first sheet changed from `from` to `to`, as a
/// spreadsheet application would save it (the rest of the workbook as it was).
fn edit_number(xlsx: &Path, cell: &str, from: &str, to: &str) {
    let edit = "import re, sys, zipfile\npath, cell, old, new = sys.argv[1:5]\nzin = zipfile.ZipFile(path)\nparts = [(i, zin.read(i.filename)) for i in zin.infolist()]\nzin.close()\nzout = zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED)\nfor item, data in parts:\n    if item.filename == 'xl/worksheets/sheet1.xml':\n        before = data\n        data = re.sub(('(<c r=\"%s\"(?: s=\"[0-9]+\")?>)<v>%s</v>' % (cell, old)).encode(), (r'\\1<v>%s</v>' % new).encode(), data)\n        assert data != before, 'no such cell value'\n    zout.writestr(item, data)\nzout.close()\n";
    let python = Command::new("python3")
        .args(["-c", edit, xlsx.to_str().unwrap(), cell, from, to])
        .output()
        .unwrap();
    assert!(python.status.success(), "{}", text(&python));
}

#[test]
fn a_stale_workbook_is_merged_onto_what_arrived_and_never_reverts_it() {
    let game = sample_game();
    let root = game.path();
    let export = |dir: &str| {
        ok(masterctl(
            root,
            &[
                "export",
                "--region",
                "jp",
                "--out",
                root.join(dir).to_str().unwrap(),
            ],
        ))
    };
    // A planner exports; meanwhile another import changes item 2's price (1200 → 1300).
    export("planner");
    export("teammate");
    edit_number(&root.join("teammate/Item.xlsx"), "F3", "1200", "1300");
    ok(import(root, &root.join("teammate")));
    // The planner's old workbook, one other cell edited: merged, nothing reverted.
    edit_number(&root.join("planner/Item.xlsx"), "F2", "100", "150");
    assert_eq!(
        import_json(root, &root.join("planner"), &[])["changes"],
        serde_json::json!([{"table": "item", "added": 0, "changed": 1, "removed": 0}])
    );
    let now = root.join("now");
    export("now");
    let prices = |dir: &Path| {
        let script = "import sys, zipfile, re\nx = zipfile.ZipFile(sys.argv[1]).read('xl/worksheets/sheet1.xml').decode()\nprint(re.search(r'<c r=\"F2\"(?: s=\"[0-9]+\")?><v>([^<]*)</v>', x).group(1), re.search(r'<c r=\"F3\"(?: s=\"[0-9]+\")?><v>([^<]*)</v>', x).group(1))";
        let out = Command::new("python3")
            .args(["-c", script, dir.join("Item.xlsx").to_str().unwrap()])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(prices(&now), "150 1300");
    // The same cell changed on both sides, differently: refused, the cell named.
    export("stale");
    export("other");
    edit_number(&root.join("other/Item.xlsx"), "F3", "1300", "1400");
    ok(import(root, &root.join("other")));
    let head = branch_head(root);
    edit_number(&root.join("stale/Item.xlsx"), "F3", "1300", "1500");
    let refused = import(root, &root.join("stale"));
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    let said = text(&refused);
    assert!(
        said.contains("export-conflict") && said.contains("price"),
        "{said}"
    );
    assert!(said.contains("`1500`") && said.contains("`1400`"), "{said}");
    assert!(
        said.contains("since its export by "),
        "who changed it: {said}"
    );
    assert_eq!(branch_head(root), head, "nothing was written");
    // Keeping the branch's value, the rest of the workbook is imported, and the cell
    // kept is said.
    edit_number(&root.join("stale/Item.xlsx"), "F2", "150", "160");
    let kept = masterctl(
        root,
        &[
            "import",
            "--region",
            "jp",
            "--keep-branch",
            root.join("stale").to_str().unwrap(),
        ],
    );
    assert_eq!(kept.status.code(), Some(0), "{}", text(&kept));
    assert!(
        text(&kept).contains("the branch's `1400` is kept"),
        "{}",
        text(&kept)
    );
    export("after");
    assert_eq!(prices(&root.join("after")), "160 1400");
}

#[test]
fn blame_takes_a_composite_key_as_inspect_does() {
    let game = sample_game();
    let root = game.path();
    let spaced = masterctl(
        root,
        &[
            "blame",
            "--region",
            "jp",
            "quest_drop",
            "101",
            "5",
            "--format",
            "json",
        ],
    );
    assert_eq!(spaced.status.code(), Some(0), "{}", text(&spaced));
    let joined = masterctl(
        root,
        &[
            "blame",
            "--region",
            "jp",
            "quest_drop",
            "101|5",
            "--format",
            "json",
        ],
    );
    assert_eq!(json(&spaced), json(&joined));
    let field = ok(masterctl(
        root,
        &[
            "blame",
            "--region",
            "jp",
            "quest_drop",
            "101",
            "5",
            "rate",
            "--format",
            "json",
        ],
    ));
    assert_eq!(json(&field)["cells"].as_array().unwrap().len(), 1);
    let short = masterctl(root, &["blame", "--region", "jp", "quest_drop", "101"]);
    assert_eq!(short.status.code(), Some(1), "{}", text(&short));
    let said = text(&short);
    assert!(
        said.contains("key has 2 fields (quest_id, item_id): 1 given"),
        "{said}"
    );
    assert!(said.contains("quest_drop QUEST_ID ITEM_ID"), "{said}");
    // Every cell of item 1 came with one import: its source files are said once.
    let shown = text(&ok(masterctl(
        root,
        &["blame", "--region", "jp", "item", "1"],
    )));
    assert_eq!(shown.matches("source: items.xlsx").count(), 1, "{shown}");
}

#[test]
fn an_old_workbook_never_takes_back_what_a_rebase_brought_in() {
    let game = sample_game();
    let root = game.path();
    ok(masterctl(root, &["rebase", "--region", "global"]));
    // jp raises item 1's price; global takes it with its next rebase.
    let jp = root.join("jp");
    ok(export(root, &jp, &[]));
    edit_number(&jp.join("Item.xlsx"), "F2", "100", "150");
    ok(import(root, &jp));
    ok(masterctl(root, &["rebase", "--region", "global"]));
    let head = git(root, &["rev-parse", "masters/global"]);
    // The planner's old workbooks (the price before) into global: refused, the cell named.
    let workbooks = fixtures().join("workbooks");
    let old = masterctl(
        root,
        &["import", "--region", "global", workbooks.to_str().unwrap()],
    );
    assert_eq!(old.status.code(), Some(1), "{}", text(&old));
    let said = text(&old);
    assert!(
        said.contains("item [1] price: `150` back to `100`"),
        "{said}"
    );
    assert!(said.contains("--revert-upstream"), "{said}");
    assert_eq!(git(root, &["rev-parse", "masters/global"]), head);
    // The same stale data exported before the rebase, its export record edited to name
    // the head: a record alone never switches the guard off.
    let stale = root.join("stale");
    ok(masterctl(
        root,
        &[
            "export",
            "--region",
            "global",
            "--rev",
            "masters/global~1",
            "--format",
            "csv",
            "--out",
            stale.to_str().unwrap(),
        ],
    ));
    let before = git(root, &["rev-parse", "masters/global~1"]);
    let mut forged = 0;
    for entry in std::fs::read_dir(&stale).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains(before.trim()) {
            forged += 1;
            std::fs::write(&path, text.replace(before.trim(), head.trim())).unwrap();
        }
    }
    assert!(forged > 0, "the export records the commit it came from");
    let old = masterctl(
        root,
        &["import", "--region", "global", stale.to_str().unwrap()],
    );
    assert_eq!(old.status.code(), Some(1), "{}", text(&old));
    assert!(
        text(&old).contains("item [1] price: `150` back to `100`"),
        "{}",
        text(&old)
    );
    assert_eq!(git(root, &["rev-parse", "masters/global"]), head);
    // Taken back on purpose.
    ok(masterctl(
        root,
        &[
            "import",
            "--region",
            "global",
            "--revert-upstream",
            workbooks.to_str().unwrap(),
        ],
    ));
    // A workbook exported from global is merged instead, and never needs the flag.
    let global = root.join("global");
    ok(masterctl(
        root,
        &[
            "export",
            "--region",
            "global",
            "--out",
            global.to_str().unwrap(),
        ],
    ));
    ok(import(root, &jp));
    let again = masterctl(
        root,
        &["import", "--region", "global", global.to_str().unwrap()],
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
}

#[test]
fn a_csv_export_imports_back_and_keeps_formulas_from_running() {
    let project = one_table_project(
        "note",
        "name = \"note\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"text\"\ntype = \"string\"\n\n[[fields]]\nname = \"value\"\ntype = \"int\"\n",
    );
    let root = project.path();
    let input = root.join("input");
    std::fs::create_dir(&input).unwrap();
    std::fs::write(
        input.join("note.csv"),
        "id,text,value\n1,=SUM(A1:A9),-5\n2,plain,7\n3,'quoted,0\n",
    )
    .unwrap();
    ok(import(root, &input));
    let out = root.join("csv");
    ok(export(root, &out, &["--format", "csv"]));
    let written = std::fs::read_to_string(out.join("note.csv")).unwrap();
    // Text a spreadsheet would run is written with a leading ', numbers as they are.
    assert!(written.contains("'=SUM(A1:A9),-5"), "{written}");
    assert!(written.contains("''quoted"), "{written}");
    let head = branch_head(root);
    let again = import(root, &out);
    assert!(text(&again).contains("nothing changed"), "{}", text(&again));
    assert_eq!(branch_head(root), head);
    // The CSV names its commit too: an old one is merged onto what arrived since.
    std::fs::write(
        input.join("note.csv"),
        "id,text,value\n1,=SUM(A1:A9),-5\n2,plain,8\n3,'quoted,0\n",
    )
    .unwrap();
    ok(import(root, &input));
    std::fs::write(
        out.join("note.csv"),
        written.replace("3,''quoted,0", "3,''quoted,1"),
    )
    .unwrap();
    let merged = import_json(root, &out, &[]);
    assert_eq!(
        merged["changes"],
        serde_json::json!([{"table": "note", "added": 0, "changed": 1, "removed": 0}])
    );
    let canonical = git(root, &["show", "masters/jp:tables/note.csv"]);
    assert!(
        canonical.contains("2,plain,8") && canonical.contains("3,'quoted,1"),
        "{canonical}"
    );
}

/// An `escapes = true` field: the sheets write `\n` for a line break, git holds the line
/// break itself, an export writes `\n` again and imports back as nothing changed.
#[test]
fn an_escapes_field_is_written_as_the_sheets_write_it() {
    let project = one_table_project(
        "tip",
        "name = \"tip\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"body\"\ntype = \"string\"\nescapes = true\n",
    );
    let root = project.path();
    let input = root.join("input");
    std::fs::create_dir(&input).unwrap();
    std::fs::write(input.join("tip.csv"), "id,body\n1,one\\ntwo\n2,C:\\\\x\n").unwrap();
    ok(import(root, &input));
    let canonical = git(root, &["show", "masters/jp:tables/tip.csv"]);
    assert_eq!(canonical, "id,body\n1,\"one\ntwo\"\n2,C:\\x\n");
    let out = root.join("csv");
    ok(export(root, &out, &["--format", "csv"]));
    let written = std::fs::read_to_string(out.join("tip.csv")).unwrap();
    let lines: Vec<&str> = written.lines().skip(2).collect();
    assert_eq!(lines, ["1,one\\ntwo", "2,C:\\\\x"], "{written}");
    let head = branch_head(root);
    let again = import(root, &out);
    assert!(text(&again).contains("nothing changed"), "{}", text(&again));
    assert_eq!(branch_head(root), head);
}

const EVENT: &str = "name = \"event\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"starts_at\"\ntype = \"datetime\"\n";

/// An event that starts at noon in Tokyo: written with an offset, with `Z`, or without
/// one under the project's `timezone`, it is one instant, stored in UTC; people see it
/// in the project's zone (inspect, diff, export), and an export imports back unchanged.
#[test]
fn datetimes_are_instants_read_in_the_project_zone() {
    let project = one_table_project("event", EVENT);
    let root = project.path();
    let config = std::fs::read_to_string(root.join("masterctl.toml")).unwrap();
    std::fs::write(
        root.join("masterctl.toml"),
        format!("timezone = \"Asia/Tokyo\"\n{config}"),
    )
    .unwrap();
    commit_structure(root);
    let input = tempfile::tempdir().unwrap();
    let csv = input.path().join("event.csv");
    std::fs::write(
        &csv,
        "id,starts_at\n1,2025-02-01T12:00:00+09:00\n2,2025-02-01T03:00:00Z\n3,2025-02-01 12:00\n4,2025-01-31T22:00:00-05:00\n",
    )
    .unwrap();
    ok(import(root, &csv));
    assert_eq!(
        git(root, &["show", "masters/jp:tables/event.csv"]),
        "id,starts_at\n1,2025-02-01T03:00:00Z\n2,2025-02-01T03:00:00Z\n3,2025-02-01T03:00:00Z\n4,2025-02-01T03:00:00Z\n"
    );
    // A build carries the instant; inspect shows it in Tokyo time.
    ok(masterctl(
        root,
        &["build", "--region", "jp", "--out", "build"],
    ));
    let shown = text(&ok(masterctl(root, &["inspect", "build", "event", "3"])));
    assert!(
        shown.contains("starts_at            2025-02-01T12:00:00+09:00"),
        "{shown}"
    );
    let manifest = std::fs::read_to_string(root.join("build/manifest.json")).unwrap();
    assert!(
        manifest.contains("\"timezone\": \"Asia/Tokyo\""),
        "{manifest}"
    );
    // An export shows it in Tokyo time and imports back as nothing changed.
    let out = root.join("exported");
    ok(export(root, &out, &["--format", "csv"]));
    let exported = std::fs::read_to_string(out.join("event.csv")).unwrap();
    assert!(
        exported.contains("\r\n3,2025-02-01T12:00:00+09:00\r\n"),
        "{exported}"
    );
    let again = text(&ok(import(root, &out)));
    assert!(again.contains("nothing changed"), "{again}");
    // A change of one hour, reviewed in Tokyo time.
    std::fs::write(
        &csv,
        "id,starts_at\n1,2025-02-01T13:00:00+09:00\n2,2025-02-01T03:00:00Z\n3,2025-02-01 12:00\n4,2025-01-31T22:00:00-05:00\n",
    )
    .unwrap();
    let review = text(&ok(masterctl(
        root,
        &["diff", "--region", "jp", csv.to_str().unwrap()],
    )));
    assert!(
        review.contains("2025-02-01T12:00:00+09:00")
            && review.contains("2025-02-01T13:00:00+09:00"),
        "{review}"
    );
    // A name that is no time zone is refused where it is written.
    std::fs::write(
        root.join("masterctl.toml"),
        format!("timezone = \"Asia/Tokio\"\n{config}"),
    )
    .unwrap();
    let out = masterctl(root, &["validate", csv.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("masterctl.toml:1:12")
            && text(&out).contains("`Asia/Tokio` is not a time zone"),
        "{}",
        text(&out)
    );
}

/// A repository whose canonical files were written before datetimes carried `Z`: those
/// are read in the project's zone (UTC by default), the next import spells them with
/// `Z`, and a review shows no change in them.
#[test]
fn datetimes_written_before_zones_keep_their_meaning() {
    let project = one_table_project("event", EVENT);
    let root = project.path();
    let input = tempfile::tempdir().unwrap();
    let csv = input.path().join("event.csv");
    std::fs::write(&csv, "id,starts_at\n1,2025-02-01T12:00:00\n").unwrap();
    ok(import(root, &csv));
    // The branch rewritten as an older masterctl wrote it: no `Z`.
    commit_by_hand(
        root,
        "masters/jp",
        "tables/event.csv",
        "id,starts_at\n1,2025-02-01T12:00:00\n",
        "written before zones",
    );
    // The same workbook: the same instant, now spelled with `Z`; no cell changed.
    let review = text(&ok(masterctl(
        root,
        &["diff", "--region", "jp", csv.to_str().unwrap()],
    )));
    assert!(!review.contains("starts_at"), "{review}");
    ok(import(root, &csv));
    assert_eq!(
        git(root, &["show", "masters/jp:tables/event.csv"]),
        "id,starts_at\n1,2025-02-01T12:00:00Z\n"
    );
}

/// A planner opens an exported workbook in LibreOffice, changes one price and saves it
/// (xlsx and ods alike). Meanwhile another planner changed another price. The import
/// changes exactly the cell edited, and keeps the other change (the workbook still
/// names the commit it came from after LibreOffice saved it).
#[test]
fn a_workbook_edited_in_libreoffice_changes_exactly_the_cell_edited() {
    let Some(python) = crate::common::libreoffice_python() else {
        return;
    };
    let script = root().join("cli/tests/tools/libreoffice_edit.py");
    for format in ["xlsx", "ods"] {
        let game = sample_game();
        let root = game.path();
        let out = root.join("exported");
        ok(export(root, &out, &["--format", format]));
        // Meanwhile: item 2's price, 1200 → 1300, by another planner.
        let other = root.join("other");
        ok(export(root, &other, &[]));
        edit_number(&other.join("Item.xlsx"), "F3", "1200", "1300");
        ok(import(root, &other));
        // Item 1's price (F2), 100 → 150, in LibreOffice.
        let book = out.join(format!("Item.{format}"));
        let edited = Command::new(python)
            .args([
                script.to_str().unwrap(),
                book.to_str().unwrap(),
                "Item",
                "F2",
                "150",
            ])
            .output()
            .unwrap();
        assert!(edited.status.success(), "{format}: {}", text(&edited));
        let said = import_json(root, &out, &[]);
        assert_eq!(
            said["changes"],
            serde_json::json!([{"table": "item", "added": 0, "changed": 1, "removed": 0}]),
            "{format}: {said:#}"
        );
        let diff = json(&ok(masterctl(
            root,
            &["diff", "--region", "jp", "--format", "json"],
        )));
        let changes: Vec<(String, String, String)> = diff["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["kind"].as_str().unwrap_or_default().to_string(),
                    c["column"].as_str().unwrap_or_default().to_string(),
                    c["new"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        assert_eq!(
            changes,
            [(
                "cell_changed".to_string(),
                "price".to_string(),
                "150".to_string()
            )],
            "{format}: {diff:#}"
        );
        let items = git(root, &["show", "masters/jp:tables/item.csv"]);
        assert!(
            items.contains(",150,") && items.contains(",1300,"),
            "{format}: {items}"
        );
    }
}

/// Numbers of more significant digits than a spreadsheet keeps (15) are exported as text
/// cells formatted as text, read back exactly: a workbook opened and saved in
/// LibreOffice without an edit of them imports as nothing changed (it rounded
/// `0.30000000000000004` to `0.3` and committed "2 changed").
#[test]
fn seventeen_digit_numbers_survive_a_save_in_libreoffice() {
    let project = one_table_project(
        "reading",
        "name = \"reading\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"rate\"\ntype = \"float\"\n\n[[fields]]\nname = \"big\"\ntype = \"int\"\n\n[[fields]]\nname = \"note\"\ntype = \"string\"\noptional = true\n",
    );
    let root = project.path();
    let input = root.join("input");
    std::fs::create_dir(&input).unwrap();
    std::fs::write(
        input.join("reading.csv"),
        "id,rate,big,note\n1,0.30000000000000004,1234567890123456,a\n2,123456789012345680,12,b\n3,0.25,9007199254740993,c\n",
    )
    .unwrap();
    ok(import(root, &input));
    let before = git(root, &["show", "masters/jp:tables/reading.csv"]);
    assert!(before.contains("0.30000000000000004"), "{before}");
    // Exported and imported back as they are, whatever the format.
    for format in ["xlsx", "ods", "csv"] {
        let out = root.join(format!("exported-{format}"));
        ok(export(root, &out, &["--format", format]));
        assert!(
            text(&ok(import(root, &out))).contains("nothing changed"),
            "{format}"
        );
    }
    let Some(python) = crate::common::libreoffice_python() else {
        return;
    };
    let script = crate::common::root().join("cli/tests/tools/libreoffice_edit.py");
    for format in ["xlsx", "ods"] {
        let out = root.join(format!("saved-{format}"));
        ok(export(root, &out, &["--format", format]));
        let book = out.join(format!("reading.{format}"));
        assert!(book.is_file(), "{}", book.display());
        // Saved in LibreOffice: only the note of row 1 written again, as it was.
        let saved = Command::new(python)
            .args([
                script.to_str().unwrap(),
                book.to_str().unwrap(),
                "Reading",
                "D2",
                "a",
            ])
            .output()
            .unwrap();
        assert!(saved.status.success(), "{format}: {}", text(&saved));
        let said = text(&ok(import(root, &out)));
        assert!(said.contains("nothing changed"), "{format}: {said}");
    }
    assert_eq!(
        git(root, &["show", "masters/jp:tables/reading.csv"]),
        before
    );
}

/// For review, `--lang` puts each text's translations beside it, in comment columns
/// import passes over; an ODS export imports back unchanged like the others.
#[test]
fn an_export_for_review_shows_translations_and_still_imports_back() {
    let game = sample_game();
    let root = game.path();
    let head = branch_head(root).unwrap();
    let out = root.join("review");
    ok(export(root, &out, &["--format", "csv", "--lang", "en"]));
    let items = std::fs::read_to_string(out.join("Item.csv")).unwrap();
    let mut lines = items.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("\u{feff}id,name,#name@en,description,#description@en,category_id"),
        "{items}"
    );
    assert!(items.contains("\r\n1,鉄の剣,Iron Sword,"), "{items}");
    assert!(text(&ok(import(root, &out))).contains("nothing changed"));
    let ods = root.join("ods");
    ok(export(root, &ods, &["--format", "ods"]));
    assert!(ods.join("Item.ods").is_file());
    assert!(text(&ok(import(root, &ods))).contains("nothing changed"));
    assert_eq!(branch_head(root).unwrap(), head);
    let unknown = export(root, &root.join("x"), &["--lang", "fr"]);
    assert_eq!(unknown.status.code(), Some(1), "{}", text(&unknown));
    assert!(
        text(&unknown).contains("`fr` is not a language of the project (its languages: ja, en)"),
        "{}",
        text(&unknown)
    );
}

/// `export --branch NAME` takes the head of the region's work branch `work/<R>/<NAME>`;
/// a name that is not one plain word is refused before it reaches a ref, and a missing
/// branch is named.
#[test]
fn a_work_branch_exports_its_own_head() {
    let game = sample_game();
    let root = game.path();
    let jp = branch_head(root).unwrap();
    git(root, &["branch", "work/jp/alice", &jp]);
    commit_by_hand(
        root,
        "work/jp/alice",
        "tables/item.csv",
        &git(root, &["show", "masters/jp:tables/item.csv"])
            .replace("1,1,common,100,", "1,1,common,110,"),
        "alice's price",
    );
    let out = root.join("alice");
    let said = json(&ok(export(
        root,
        &out,
        &["--branch", "alice", "--format", "json"],
    )));
    assert_eq!(
        said["commit"],
        git(root, &["rev-parse", "work/jp/alice"]).trim(),
        "{said:#}"
    );
    let csv = root.join("alice-csv");
    ok(export(
        root,
        &csv,
        &["--branch", "alice", "--format", "csv"],
    ));
    let items = std::fs::read_to_string(csv.join("Item.csv")).unwrap();
    assert!(items.contains(",common,110,"), "{items}");
    for bad in ["../jp", "al ice", "-x", "a..b", "x.lock", "アリス"] {
        let out = export(root, &root.join("bad"), &[&format!("--branch={bad}")]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", text(&out));
        assert!(
            text(&out).contains("is not a work branch name"),
            "{}",
            text(&out)
        );
    }
    let missing = export(root, &root.join("bob"), &["--branch", "bob"]);
    assert_eq!(missing.status.code(), Some(1), "{}", text(&missing));
    assert!(
        text(&missing).contains("region `jp` has no work branch `bob` (work/jp/bob)"),
        "{}",
        text(&missing)
    );
    assert!(!root.join("bob").exists());
}

/// `import` once reported every mistake at once, drifted to stopping at cells that did
/// not read, and no test saw it: this one holds the two commands to each other on the
/// same files — a type error, an unknown enum value, a bad reference, a value out of
/// range (twice: its field's and a weighted master's), a duplicate key.
#[test]
fn import_reports_exactly_the_mistakes_validate_reports_on_the_same_files() {
    let game = sample_game();
    let root = game.path();
    let csv = root.join("csv");
    ok(export(root, &csv, &["--format", "csv"]));
    let edit = |name: &str, from: &str, to: &str| {
        let path = csv.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{name}: {from}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    };
    edit(
        "Item.csv",
        "\n1,鉄の剣,初心者向けの剣,1,common,100,",
        "\n1,鉄の剣,初心者向けの剣,1,common,abc,",
    );
    edit(
        "Item.csv",
        "\n2,鋼の剣,よく鍛えられた剣,1,rare,",
        "\n2,鋼の剣,よく鍛えられた剣,1,rair,",
    );
    // (The export's lines end as a spreadsheet's do, CRLF.)
    edit("QuestDrop.csv", "\n101,5,0.25,1\r", "\n101,999,0.25,1\r");
    edit(
        "QuestDrop.csv",
        "\n101,6,0.8,2\r",
        "\n101,6,1.5,2\r\n101,6,0.5,1\r",
    );
    let input = csv.to_str().unwrap();
    let validated = masterctl(root, &["validate", input, "--format", "json"]);
    assert_eq!(validated.status.code(), Some(1), "{}", text(&validated));
    let expected = json(&validated)["diagnostics"].clone();
    let codes: Vec<&str> = expected
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    for code in [
        "type-error",
        "enum-value",
        "foreign-key",
        "out-of-range",
        "duplicate-key",
    ] {
        assert!(codes.contains(&code), "validate finds {code}: {codes:?}");
    }
    let head = git(root, &["rev-parse", "masters/jp"]);
    for extra in [&["--dry-run"][..], &[]] {
        let mut args = vec!["import", "--region", "jp", input, "--format", "json"];
        args.extend(extra);
        let imported = masterctl(root, &args);
        assert_eq!(imported.status.code(), Some(1), "{}", text(&imported));
        assert_eq!(
            json(&imported)["diagnostics"],
            expected,
            "import {extra:?} reports what validate reports"
        );
    }
    assert_eq!(
        git(root, &["rev-parse", "masters/jp"]),
        head,
        "nothing written"
    );
}

#[test]
fn an_import_tells_the_projects_webhook_and_a_dead_one_is_said_never_fatal() {
    let game = sample_game();
    let root = game.path();
    let (url, bodies) = masterctl_testing::webhook(&[200]);
    let config = std::fs::read_to_string(root.join("masterctl.toml")).unwrap();
    let told = format!("{config}\n[notify]\nwebhook = \"{url}\"\nevents = [\"import\"]\n");
    std::fs::write(root.join("masterctl.toml"), told).unwrap();
    git(root, &["commit", "-q", "-am", "Tell the studio's chat"]);
    let edited = root.join("edited");
    export_csv(root, &edited, &["--region", "jp"]);
    let path = edited.join("Item.csv");
    let items = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, items.replacen(",1200,", ",1250,", 1)).unwrap();
    let out = masterctl(
        root,
        &[
            "import",
            "--region",
            "jp",
            "-m",
            "Cheaper sword",
            edited.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let body = bodies.lock().unwrap().first().cloned().unwrap_or_default();
    assert!(body.contains("\"event\":\"import\""), "{body}");
    assert!(
        body.contains("Test Planner <planner@example.com> imported into masters/jp"),
        "{body}"
    );
    assert!(body.contains("Cheaper sword"), "{body}");

    // A webhook that cannot be reached: said, and the import stands.
    let dead = format!("{config}\n[notify]\nwebhook = \"http://127.0.0.1:9/hook\"\n");
    std::fs::write(root.join("masterctl.toml"), dead).unwrap();
    git(root, &["commit", "-q", "-am", "A webhook gone"]);
    let items = items.replacen(",1200,", ",1250,", 1);
    std::fs::write(&path, items.replacen(",100,true", ",90,true", 1)).unwrap();
    let out = masterctl(
        root,
        &["import", "--region", "jp", edited.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("the project's webhook was not told: it could not be reached (3 attempts)"),
        "{said}"
    );
    assert!(
        !said.contains("127.0.0.1:9"),
        "the address is never said: {said}"
    );
}
