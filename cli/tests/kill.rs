//! Killed at every write: each command that changes a repository or a build is run
//! under `strace`, which sends SIGKILL just before its n-th call of each system call
//! that changes files (write, rename, link, unlink, mkdir, truncate, sync), for every n.
//! Afterwards the branch is at its old commit or at the new one, `git fsck` is clean,
//! the same command run again succeeds without any repair and gives exactly what an
//! uninterrupted run gives, and a build folder is the old build or the new one; a
//! store (`gc`, `rollback` on a folder store) holds every release whole and a pointer
//! naming one of them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;
use masterctl_delivery::layout::Release;
use masterctl_delivery::{Remote, RemoteOptions, release_manifest};

/// The system calls a kill is injected before.
const WRITES: &[&str] = &[
    "write",
    "pwrite64",
    "rename",
    "renameat",
    "renameat2",
    "link",
    "linkat",
    "unlink",
    "unlinkat",
    "mkdir",
    "mkdirat",
    "ftruncate",
    "fsync",
    "fdatasync",
];

/// At most this many kill points per system call, spread over all its calls.
const POINTS_PER_CALL: usize = 24;

fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_masterctl")
}

fn strace() {
    let found = Command::new("strace").arg("-V").output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "the kill tests need strace (apt-get install strace; .ci/run installs it)"
    );
}

/// A scenario's arguments for a copy in `dir`: `{dir}` is its path (a store's URL).
fn args_in(dir: &Path, args: &[&str]) -> Vec<String> {
    let dir = dir.display().to_string();
    args.iter().map(|a| a.replace("{dir}", &dir)).collect()
}

/// Every release record of the folder store `store` names only objects that are there,
/// and each region's pointer names a release that is there.
fn store_whole(store: &Path, place: &str) {
    let url = format!("file://{}", store.display());
    let remote = Remote::open(&url, &RemoteOptions::default()).unwrap();
    let releases = store.join("releases");
    for region in std::fs::read_dir(&releases).unwrap().flatten() {
        for record in std::fs::read_dir(region.path()).unwrap().flatten() {
            let name = record.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".json") {
                continue;
            }
            let region_name = region.file_name().to_string_lossy().into_owned();
            let key = format!("releases/{region_name}/{name}");
            let bytes = std::fs::read(record.path()).unwrap();
            let release = Release::parse(&bytes, &key, "", &region_name)
                .unwrap_or_else(|e| panic!("{place}: {name}: {e}"));
            // Its manifest, read from the object it names (there, whole, and its build's).
            let (manifest, _) = masterctl_delivery::runtime()
                .unwrap()
                .block_on(release_manifest(&remote, &region_name, &release))
                .unwrap_or_else(|e| panic!("{place}: {name}: {e}"));
            let mut hashes = vec![release.manifest_blake3.clone()];
            hashes.extend(manifest.files.into_iter().map(|f| f.blake3));
            for hash in hashes {
                assert!(
                    store.join("objects").join(&hash).is_file(),
                    "{place}: release {name} names object {hash}, which is gone"
                );
            }
        }
    }
    for region in std::fs::read_dir(store.join("regions")).unwrap().flatten() {
        let pointer: serde_json::Value =
            serde_json::from_slice(&std::fs::read(region.path().join("current.json")).unwrap())
                .unwrap_or_else(|e| panic!("{place}: pointer: {e}"));
        let release = pointer["release"].as_str().unwrap();
        let record = releases
            .join(region.file_name())
            .join(format!("{release}.json"));
        assert!(
            record.is_file(),
            "{place}: the pointer names {release}, gone"
        );
    }
}

/// How many times the command calls each of [`WRITES`].
fn count_calls(dir: &Path, args: &[&str]) -> BTreeMap<String, usize> {
    let args = args_in(dir, args);
    let summary = dir.join("strace-summary");
    let out = Command::new("strace")
        .arg("-f")
        .arg("-c")
        .arg("-o")
        .arg(&summary)
        .arg("-e")
        .arg(format!("trace={}", WRITES.join(",")))
        .arg(binary())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "uninterrupted: {}", text(&out));
    let table = std::fs::read_to_string(&summary).unwrap();
    std::fs::remove_file(&summary).unwrap();
    table
        .lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let name = *words.last()?;
            if !WRITES.contains(&name) {
                return None;
            }
            // `% time seconds usecs/call calls [errors] syscall`
            Some((name.to_string(), words.get(3)?.parse().ok()?))
        })
        .collect()
}

/// The command, killed just before the `n`-th call of `call`.
fn killed(dir: &Path, args: &[&str], call: &str, n: usize) -> Output {
    let args = args_in(dir, args);
    Command::new("strace")
        .arg("-f")
        .arg("-qq")
        .arg("-o")
        .arg("/dev/null")
        .arg("-e")
        .arg(format!("inject={call}:signal=SIGKILL:when={n}"))
        .arg(binary())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// Copy a folder (a repository in a given state) for one run.
fn copy(from: &Path, to: &Path) {
    let out = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .output()
        .unwrap();
    assert!(out.status.success());
}

fn rev(dir: &Path, spec: &str) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--verify", "-q", spec])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn fsck(dir: &Path) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["fsck", "--strict", "--no-dangling"])
        .output()
        .unwrap();
    assert!(out.status.success(), "fsck: {}", text(&out));
}

/// One scenario: a prepared repository, a command, and the branch it moves (or the
/// build folder it replaces).
struct Scenario<'a> {
    name: &'a str,
    template: &'a Path,
    args: &'a [&'a str],
    branch: Option<&'a str>,
    build: Option<&'a str>,
    /// A folder store in the repository's folder the command changes.
    store: Option<&'a str>,
    /// A branch of the bare remote `remote.git` in the repository's folder that the
    /// command moves (push).
    remote: Option<&'a str>,
}

/// Kill the command at every point; check each outcome.
fn kill_everywhere(scenario: &Scenario<'_>) -> usize {
    let work = tempfile::tempdir().unwrap();
    // What an uninterrupted run gives.
    let reference = work.path().join("reference");
    copy(scenario.template, &reference);
    let calls = count_calls(&reference, scenario.args);
    assert!(!calls.is_empty(), "{}: no writes seen", scenario.name);
    let expected_tree = scenario
        .branch
        .map(|b| rev(&reference, &format!("{b}^{{tree}}")));
    let expected_build = scenario
        .build
        .map(|b| std::fs::read(reference.join(b).join("manifest.json")).unwrap());
    let old_head = scenario.branch.map(|b| rev(scenario.template, b));
    let remote_of = |dir: &Path| dir.join("remote.git");
    let old_remote = scenario
        .remote
        .map(|b| rev(&remote_of(scenario.template), b));
    let expected_remote = scenario.remote.map(|b| rev(&remote_of(&reference), b));
    let old_build = scenario
        .build
        .and_then(|b| std::fs::read(scenario.template.join(b).join("manifest.json")).ok());
    let mut runs = 0;
    for (call, &count) in &calls {
        let step = count.div_ceil(POINTS_PER_CALL).max(1);
        for n in (1..=count).step_by(step) {
            let dir = work.path().join(format!("{call}-{n}"));
            copy(scenario.template, &dir);
            let out = killed(&dir, scenario.args, call, n);
            let place = format!("{}: killed before {call} #{n}", scenario.name);
            if let (Some(branch), Some(old)) = (scenario.branch, &old_head) {
                let head = rev(&dir, branch);
                let moved_on = head != *old;
                if moved_on {
                    assert_eq!(
                        rev(&dir, &format!("{branch}^{{tree}}")),
                        *expected_tree.as_ref().unwrap(),
                        "{place}: the branch moved to something else\n{}",
                        text(&out)
                    );
                    assert_eq!(rev(&dir, &format!("{branch}^")), *old, "{place}");
                }
                fsck(&dir);
            }
            if let Some(build) = scenario.build {
                let manifest = std::fs::read(dir.join(build).join("manifest.json")).ok();
                assert!(
                    manifest == old_build || manifest == expected_build,
                    "{place}: the build folder is neither the old build nor the new one"
                );
            }
            if let Some(store) = scenario.store {
                store_whole(&dir.join(store), &place);
            }
            if let Some(branch) = scenario.remote {
                let head = rev(&remote_of(&dir), branch);
                assert!(
                    Some(&head) == old_remote.as_ref() || Some(&head) == expected_remote.as_ref(),
                    "{place}: the remote's {branch} is neither where it was nor where it was going"
                );
                fsck(&remote_of(&dir));
            }
            // The next command needs no repair and ends where an uninterrupted run does.
            let again = Command::new(binary())
                .args(args_in(&dir, scenario.args))
                .current_dir(&dir)
                .env("NO_COLOR", "1")
                .output()
                .unwrap();
            assert_eq!(
                again.status.code(),
                Some(0),
                "{place}, run again: {}",
                text(&again)
            );
            if let (Some(branch), Some(tree)) = (scenario.branch, &expected_tree) {
                assert_eq!(rev(&dir, &format!("{branch}^{{tree}}")), *tree, "{place}");
                fsck(&dir);
            }
            if let (Some(branch), Some(expected)) = (scenario.remote, &expected_remote) {
                assert_eq!(&rev(&remote_of(&dir), branch), expected, "{place}");
                fsck(&remote_of(&dir));
            }
            if let (Some(build), Some(expected)) = (scenario.build, &expected_build) {
                let manifest = std::fs::read(dir.join(build).join("manifest.json")).unwrap();
                assert_eq!(&manifest, expected, "{place}");
                let leftovers: Vec<PathBuf> = std::fs::read_dir(&dir)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .filter(|p| p.to_string_lossy().contains(".tmp-"))
                    .collect();
                assert!(leftovers.is_empty(), "{place}: left {leftovers:?}");
            }
            if let Some(store) = scenario.store {
                store_whole(&dir.join(store), &place);
                let listing = |root: &Path| -> Vec<String> {
                    let mut names: Vec<String> = ["objects", "releases/jp", "regions/jp"]
                        .iter()
                        .flat_map(|d| std::fs::read_dir(root.join(store).join(d)).unwrap())
                        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                        // A killed put's staging file (`name#1`) is no object of the
                        // store (listing hides it; gc removes it), and a pointer lock
                        // left by a killed process is taken over by the next one.
                        .filter(|name| !name.contains('#') && !name.ends_with(".lock"))
                        .collect();
                    names.sort();
                    names
                };
                assert_eq!(listing(&dir), listing(&reference), "{place}");
                let pointer = |root: &Path| {
                    let bytes = std::fs::read(root.join(store).join("regions/jp/current.json"));
                    let value: serde_json::Value = serde_json::from_slice(&bytes.unwrap()).unwrap();
                    value["release"].clone()
                };
                assert_eq!(pointer(&dir), pointer(&reference), "{place}");
            }
            std::fs::remove_dir_all(&dir).unwrap();
            runs += 1;
        }
    }
    runs
}

/// hunt's exports with one monster's hp changed.
fn exports(root: &Path, name: &str, hp: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(hunt().join("csv")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            dir.join(path.file_name().unwrap()),
            text.replacen("5200", hp, 1),
        )
        .unwrap();
    }
    dir
}

/// hunt's repository with its exports imported into jp (strace checked first).
fn hunt_imported() -> tempfile::TempDir {
    strace();
    let repo = hunt_repo();
    let csv = hunt().join("csv");
    ok(masterctl(
        repo.path(),
        &["import", "--region", "jp", csv.to_str().unwrap()],
    ));
    repo
}

#[test]
fn every_command_killed_at_every_write_leaves_old_or_new_and_recovers() {
    let repo = hunt_imported();
    let root = repo.path();
    let jp = exports(root, "jp-5300", "5300");
    ok(masterctl(root, &["rebase", "--region", "global"]));
    ok(masterctl(
        root,
        &["build", "--region", "jp", "--out", "build"],
    ));
    // jp's next import, and global's rebase onto it.
    let jp_arg = jp.to_str().unwrap().to_string();
    let import: [&str; 4] = ["import", "--region", "jp", &jp_arg];
    let mut runs = kill_everywhere(&Scenario {
        name: "import",
        template: root,
        args: &import,
        branch: Some("masters/jp"),
        build: None,
        store: None,
        remote: None,
    });
    ok(masterctl(root, &import));
    runs += kill_everywhere(&Scenario {
        name: "rebase",
        template: root,
        args: &["rebase", "--region", "global"],
        branch: Some("masters/global"),
        build: None,
        store: None,
        remote: None,
    });
    runs += kill_everywhere(&Scenario {
        name: "build",
        template: root,
        args: &["build", "--region", "jp", "--out", "build"],
        branch: None,
        build: Some("build"),
        store: None,
        remote: None,
    });
    ok(masterctl(root, &["rebase", "--region", "global"]));
    // Translations taken back into global.
    let po = root.join("global-en.po");
    ok(masterctl(
        root,
        &[
            "l10n",
            "export",
            "--region",
            "global",
            "--lang",
            "en",
            "--format",
            "po",
            "--out",
            po.to_str().unwrap(),
        ],
    ));
    let text = std::fs::read_to_string(&po).unwrap();
    let (header, units) = text.split_once("\n\n").unwrap();
    std::fs::write(
        &po,
        format!(
            "{header}\n\n{}",
            units.replace("msgstr \"\"", "msgstr \"T\"")
        ),
    )
    .unwrap();
    let po_arg = po.to_str().unwrap().to_string();
    runs += kill_everywhere(&Scenario {
        name: "l10n import",
        template: root,
        args: &["l10n", "import", "--region", "global", &po_arg],
        branch: Some("masters/global"),
        build: None,
        store: None,
        remote: None,
    });
    // A rebase stopped on a conflict, resolved, continued.
    let global = exports(root, "global-5400", "5400");
    let jp2 = exports(root, "jp-5500", "5500");
    ok(masterctl(
        root,
        &["import", "--region", "global", global.to_str().unwrap()],
    ));
    ok(masterctl(
        root,
        &["import", "--region", "jp", jp2.to_str().unwrap()],
    ));
    let out = masterctl(root, &["rebase", "--region", "global"]);
    assert_eq!(out.status.code(), Some(1), "{}", crate::common::text(&out));
    ok(masterctl(
        root,
        &["rebase", "--region", "global", "--theirs"],
    ));
    runs += kill_everywhere(&Scenario {
        name: "rebase --continue",
        template: root,
        args: &["rebase", "--region", "global", "--continue"],
        branch: Some("masters/global"),
        build: None,
        store: None,
        remote: None,
    });
    eprintln!("{runs} kill points");
    assert!(runs > 40, "only {runs} kill points");
}

#[test]
fn gc_and_rollback_killed_at_every_write_leave_every_release_whole() {
    let repo = hunt_imported();
    let root = repo.path();
    let store = format!("file://{}/store", root.display());
    // Two releases of jp: hunt's, then one with a monster's hp changed (current).
    ok(masterctl(root, &["build", "--region", "jp", "--out", "b1"]));
    ok(masterctl(root, &["publish", "b1", "--to", &store]));
    let first = git(root, &["rev-parse", "masters/jp"]).trim().to_string();
    let jp = exports(root, "jp-5300", "5300");
    ok(masterctl(
        root,
        &["import", "--region", "jp", jp.to_str().unwrap()],
    ));
    ok(masterctl(root, &["build", "--region", "jp", "--out", "b2"]));
    ok(masterctl(root, &["publish", "b2", "--to", &store]));
    // Back to the first release, killed at every write; then gc keeping one release
    // (the current), deleting the other and the objects only it named.
    let mut runs = kill_everywhere(&Scenario {
        name: "rollback",
        template: root,
        args: &[
            "rollback",
            "--reason",
            "test",
            "--from",
            "file://{dir}/store",
            "--region",
            "jp",
            "--to",
            &first,
        ],
        branch: None,
        build: None,
        store: Some("store"),
        remote: None,
    });
    runs += kill_everywhere(&Scenario {
        name: "gc",
        template: root,
        args: &[
            "gc",
            "--from",
            "file://{dir}/store",
            "--keep",
            "1",
            "--grace",
            "0",
        ],
        branch: None,
        build: None,
        store: Some("store"),
        remote: None,
    });
    eprintln!("{runs} kill points");
    assert!(runs > 10, "only {runs} kill points");
}

#[test]
fn pull_push_and_merge_killed_at_every_write_lose_nothing() {
    let repo = hunt_imported();
    let root = repo.path();
    // The remote lives in the clone's folder (its URL relative to it), so that each
    // copy of the clone has its own.
    git(root, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
    git(root, &["remote", "add", "origin", "remote.git"]);
    git(root, &["push", "-q", "origin", "main", "masters/jp"]);
    // Another planner's import on the remote, and one of this clone's own: a pull joins
    // them with the keyed merge.
    let other = tempfile::tempdir().unwrap();
    let bob = other.path().join("bob");
    git(
        other.path(),
        &[
            "clone",
            "-q",
            root.join("remote.git").to_str().unwrap(),
            bob.to_str().unwrap(),
        ],
    );
    git(&bob, &["config", "user.name", "Bob"]);
    git(&bob, &["config", "user.email", "bob@example.com"]);
    ok(masterctl(&bob, &["pull"]));
    let theirs = exports(other.path(), "bob-5300", "5300");
    ok(masterctl(
        &bob,
        &[
            "import",
            "--region",
            "jp",
            theirs.to_str().unwrap(),
            "--push",
        ],
    ));
    // This clone's own: the same monster's attack.
    let ours = root.join("ours");
    std::fs::create_dir_all(&ours).unwrap();
    for entry in std::fs::read_dir(hunt().join("csv")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            ours.join(path.file_name().unwrap()),
            text.replacen(",5200,310,", ",5200,320,", 1),
        )
        .unwrap();
    }
    ok(masterctl(
        root,
        &["import", "--region", "jp", ours.to_str().unwrap()],
    ));
    let mut runs = kill_everywhere(&Scenario {
        name: "pull (a keyed merge)",
        template: root,
        args: &["pull", "--region", "jp"],
        branch: Some("masters/jp"),
        build: None,
        store: None,
        remote: None,
    });
    ok(masterctl(root, &["pull", "--region", "jp"]));
    runs += kill_everywhere(&Scenario {
        name: "push",
        template: root,
        args: &["push"],
        branch: None,
        build: None,
        store: None,
        remote: Some("masters/jp"),
    });
    ok(masterctl(root, &["push"]));
    // A work branch reflected into jp.
    ok(masterctl(
        root,
        &["branch", "create", "event", "--region", "jp"],
    ));
    let event = exports(root, "event-5600", "5600");
    ok(masterctl(
        root,
        &[
            "import",
            "--region",
            "jp",
            "--branch",
            "event",
            event.to_str().unwrap(),
        ],
    ));
    runs += kill_everywhere(&Scenario {
        name: "merge",
        template: root,
        args: &["merge", "--region", "jp", "--branch", "event"],
        branch: Some("masters/jp"),
        build: None,
        store: None,
        remote: None,
    });
    eprintln!("{runs} kill points");
    assert!(runs > 30, "only {runs} kill points");
}
