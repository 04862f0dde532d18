//! Publishing and fetching, end to end, against each kind of store: a folder
//! (`file://`), a real S3 server on 127.0.0.1 (s3s-fs, built with the tests and served by
//! the test's process: `masterctl_testing::servers::S3`), and
//! plain HTTP from a static server (python3's) in front of a folder store.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;
use masterctl_delivery::layout::Release;

/// A store the suite runs against: its URL (for a prefix) and the environment a
/// command needs to reach it.
trait Store {
    fn url(&self, prefix: &str) -> String;
    fn env(&self) -> Vec<(&'static str, String)>;
    /// Where an object's bytes lie on disk, to damage them.
    fn object_file(&self, prefix: &str, hash: &str) -> PathBuf;
    /// Whether a conditional write is atomic against a racing one (a folder: masterctl's
    /// own lock; s3s-fs checks the condition and writes in two steps).
    fn atomic(&self) -> bool {
        false
    }
    /// The folder behind a prefix, where the test may edit the store's records as a
    /// dead publisher would have left them (`None`: a server keeps their versions).
    fn files(&self, _prefix: &str) -> Option<PathBuf> {
        None
    }
}

struct Folder(tempfile::TempDir);

impl Store for Folder {
    fn url(&self, prefix: &str) -> String {
        format!("file://{}/{prefix}", self.0.path().display())
    }
    fn env(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    fn object_file(&self, prefix: &str, hash: &str) -> PathBuf {
        self.0.path().join(prefix).join("objects").join(hash)
    }
    fn files(&self, prefix: &str) -> Option<PathBuf> {
        Some(self.0.path().join(prefix))
    }
    fn atomic(&self) -> bool {
        true
    }
}

impl Store for S3 {
    fn url(&self, prefix: &str) -> String {
        format!("s3://masters/{prefix}")
    }
    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY.into()),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY.into()),
            (
                "AWS_ENDPOINT_URL",
                format!("http://127.0.0.1:{}", self.port),
            ),
            ("AWS_REGION", "us-east-1".into()),
        ]
    }
    fn object_file(&self, prefix: &str, hash: &str) -> PathBuf {
        self.root
            .path()
            .join("masters")
            .join(prefix)
            .join("objects")
            .join(hash)
    }
}

/// Run the binary in `dir` with the store's environment (and none of the caller's AWS
/// settings).
fn run(dir: &Path, store: &dyn Store, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_masterctl"));
    command.current_dir(dir).args(args).env("NO_COLOR", "1");
    for (name, _) in std::env::vars() {
        if name.starts_with("AWS_") {
            command.env_remove(name);
        }
    }
    command.env("HOME", dir);
    for (name, value) in store.env() {
        command.env(name, value);
    }
    command.output().expect("the binary runs")
}

fn exit(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// The sample game with English translations, built: the repository and its build.
fn game() -> (tempfile::TempDir, PathBuf) {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.name", "Test Planner"]);
    git(root, &["config", "user.email", "planner@example.com"]);
    let f = |p: &str| fixtures().join(p).display().to_string();
    ok(masterctl(root, &["init", ".", "--from", &f("")]));
    ok(masterctl(
        root,
        &["import", "--region", "jp", &f("workbooks")],
    ));
    ok(masterctl(
        root,
        &["l10n", "import", "--region", "jp", &f("examples/en.po")],
    ));
    ok(masterctl(
        root,
        &["build", "--region", "jp", "--out", "build"],
    ));
    let build = root.join("build");
    (repo, build)
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

/// The distinct content hashes of a build's files.
fn hashes(dir: &Path) -> BTreeSet<String> {
    manifest(dir)["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["blake3"].as_str().unwrap().to_string())
        .collect()
}

/// The build of jp's commit before its head, in `root/name`.
fn build_previous(root: &Path, name: &str) -> PathBuf {
    let out = root.join(name);
    let out_arg = out.display().to_string();
    ok(masterctl(
        root,
        &[
            "build",
            "--region",
            "jp",
            "--rev",
            "masters/jp~1",
            "--out",
            &out_arg,
        ],
    ));
    out
}

/// Translate 鉄の剣 as `name` in English, import it and build again into `build`.
fn rename_sword(root: &Path, name: &str) {
    let po = std::fs::read_to_string(fixtures().join("examples/en.po")).unwrap();
    let renamed = po.replacen("msgstr \"Iron Sword\"", &format!("msgstr \"{name}\""), 1);
    assert_ne!(po, renamed, "the example translates 鉄の剣 as Iron Sword");
    std::fs::write(root.join("en.po"), renamed).unwrap();
    ok(masterctl(
        root,
        &["l10n", "import", "--region", "jp", "en.po"],
    ));
    ok(masterctl(
        root,
        &["build", "--region", "jp", "--out", "build"],
    ));
}

/// Every file of a build, by path, with its bytes.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                files.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// What `inspect` shows of every table of a build.
fn inspected(root: &Path, dir: &Path) -> Vec<String> {
    let dir = dir.display().to_string();
    let mut shown = vec![text(&ok(masterctl(root, &["inspect", &dir])))];
    for table in ["item", "quest", "shop", "category", "chapter", "quest_drop"] {
        shown.push(text(&ok(masterctl(root, &["inspect", &dir, table]))));
    }
    shown.push(text(&ok(masterctl(
        root,
        &["inspect", &dir, "item", "1", "--lang", "en"],
    ))));
    shown
}

/// A store at a prefix, as the commands under test reach it from a repository.
struct At<'a> {
    root: &'a Path,
    store: &'a dyn Store,
    url: String,
}

impl At<'_> {
    fn publish(&self, dir: &Path, extra: &[&str]) -> Output {
        let dir = dir.display().to_string();
        let mut args = vec!["publish", dir.as_str(), "--to", self.url.as_str()];
        args.extend(extra);
        run(self.root, self.store, &args)
    }

    fn publish_json(&self, dir: &Path) -> serde_json::Value {
        json(&ok(self.publish(dir, &["--format", "json"])))
    }

    fn fetch(&self, out: &Path, extra: &[&str]) -> Output {
        let out = out.display().to_string();
        let mut args = vec!["fetch", "--from", self.url.as_str(), "--region", "jp"];
        args.extend(["--out", out.as_str()]);
        args.extend(extra);
        run(self.root, self.store, &args)
    }

    fn fetch_json(&self, out: &Path, extra: &[&str]) -> serde_json::Value {
        let mut args = extra.to_vec();
        args.extend(["--format", "json"]);
        json(&ok(self.fetch(out, &args)))
    }
}

/// The whole life of a release on one store: publish, fetch, republish, a change, a
/// language, a damaged object, an interrupted publish.
fn suite(store: &dyn Store, prefix: &str) {
    let (repo, build) = game();
    let root = repo.path();
    let url = store.url(prefix);
    let at = At {
        root,
        store,
        url: url.clone(),
    };

    // The first publish uploads every object; a fetch gives the build back, byte for byte.
    let first = at.publish_json(&build);
    let objects = hashes(&build).len() + 1;
    assert_eq!(first["objects"], objects);
    assert_eq!(first["uploaded"], objects);
    assert_eq!(first["pointer_moved"], true);
    assert_eq!(first["previous"], serde_json::Value::Null);
    let fetched = root.join("fetched");
    let out = at.fetch_json(&fetched, &[]);
    assert_eq!(out["downloaded"], hashes(&build).len());
    assert_eq!(contents(&fetched), contents(&build));
    assert_eq!(inspected(root, &fetched), inspected(root, &build));

    // Unchanged: nothing uploaded, the pointer stays.
    let again = at.publish_json(&build);
    assert_eq!(again["uploaded"], 0);
    assert_eq!(again["pointer_moved"], false);

    // One table's text changes: exactly its new objects go up (and the manifest's, the
    // release, the pointer), and a fetch downloads exactly those.
    let before = hashes(&build);
    rename_sword(root, "Iron Blade");
    let new: BTreeSet<String> = hashes(&build).difference(&before).cloned().collect();
    assert_eq!(new.len(), 1, "only strings/en/item changes");
    let third = at.publish_json(&build);
    assert_eq!(third["uploaded"], new.len() + 1);
    assert_eq!(third["pointer_moved"], true);
    let out = at.fetch_json(&fetched, &[]);
    assert_eq!(out["downloaded"], new.len());
    assert_eq!(out["reused"], hashes(&build).len() - new.len());
    assert_eq!(out["replaced"], true);
    assert_eq!(contents(&fetched), contents(&build));
    // Fetched again: the folder holds that very build, and nothing is touched.
    let first_file = fetched.join(manifest(&fetched)["files"][0]["path"].as_str().unwrap());
    let inode =
        |path: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(path).unwrap());
    let before = inode(&first_file);
    let out = at.fetch_json(&fetched, &[]);
    assert_eq!(out["up_to_date"], true, "{out}");
    assert_eq!(out["replaced"], false);
    assert_eq!(out["downloaded"], 0);
    assert_eq!(inode(&first_file), before, "not replaced");

    // The cache keeps what it verified read-only, and so is the build linked from it.
    let cached = root
        .join(".fetched.cache")
        .join(hashes(&build).first().unwrap());
    assert!(std::fs::metadata(&cached).unwrap().permissions().readonly());
    let linked = fetched.join(manifest(&fetched)["files"][0]["path"].as_str().unwrap());
    assert!(std::fs::metadata(&linked).unwrap().permissions().readonly());
    // A cached object damaged but of the right size is caught by --verify, which hashes
    // the cache: it is fetched again, and the build is whole.
    let mut damaged = std::fs::read(&cached).unwrap();
    damaged[0] ^= 0xff;
    std::fs::remove_file(&cached).unwrap();
    std::fs::write(&cached, damaged).unwrap();
    let out = at.fetch_json(&fetched, &["--verify"]);
    assert_eq!(out["downloaded"], 1, "{out}");
    assert_eq!(contents(&fetched), contents(&build));

    // English only: no Japanese strings move, and the build opens.
    let english = root.join("english");
    let english_cache = root.join("english-cache").display().to_string();
    let out = at.fetch_json(&english, &["--lang", "en", "--cache", &english_cache]);
    assert_eq!(out["languages"], serde_json::json!(["en"]));
    let japanese: BTreeSet<String> = manifest(&build)["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["language"] == "ja")
        .map(|f| f["blake3"].as_str().unwrap().to_string())
        .collect();
    let cached: BTreeSet<String> = std::fs::read_dir(root.join("english-cache"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(cached.is_disjoint(&japanese), "no ja strings downloaded");
    assert!(
        manifest(&english)["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["language"] != "ja")
    );
    let row = text(&ok(masterctl(
        root,
        &["inspect", &english.display().to_string(), "item", "1"],
    )));
    assert!(row.contains("Iron Blade"), "{row}");
    // Its summary says which languages' texts it holds, of the region's.
    let summary = text(&ok(masterctl(
        root,
        &["inspect", &english.display().to_string()],
    )));
    assert!(
        summary.contains("languages en (of the region's ja, en)")
            || summary.contains("languages en (of the region's en, ja)"),
        "{summary}"
    );
    // A language the release does not have: a named thing not there.
    let out = at.fetch(&english, &["--lang", "fr"]);
    assert_eq!(exit(&out), 1, "{}", text(&out));
    assert!(text(&out).contains("no language `fr`"), "{}", text(&out));

    // A damaged object: fetch names it, exits 1 and swaps nothing in.
    let victim = new.iter().next().unwrap().clone();
    let file = store.object_file(prefix, &victim);
    let good = std::fs::read(&file).unwrap();
    std::fs::write(&file, b"not the object").unwrap();
    let held = contents(&fetched);
    let empty_cache = root.join("empty-cache").display().to_string();
    let out = at.fetch(&fetched, &["--cache", &empty_cache]);
    assert_eq!(exit(&out), 1, "{}", text(&out));
    assert!(text(&out).contains(&victim), "{}", text(&out));
    assert!(text(&out).contains("nothing was changed"), "{}", text(&out));
    assert!(text(&out).contains("--repair"), "{}", text(&out));
    assert_eq!(contents(&fetched), held, "nothing swapped in");
    // Cut short, it is damaged just the same.
    std::fs::write(&file, &good[..good.len() / 2]).unwrap();
    let out = at.fetch(&fetched, &["--cache", &empty_cache]);
    assert_eq!(exit(&out), 1, "{}", text(&out));
    assert!(text(&out).contains(&victim), "{}", text(&out));
    assert_eq!(contents(&fetched), held, "nothing swapped in");
    std::fs::write(&file, good).unwrap();

    // A pointer masterctl did not write is refused.
    if let Some(files) = store.files(prefix) {
        let pointer = files.join("regions/jp/current.json");
        let held_pointer = std::fs::read(&pointer).unwrap();
        std::fs::write(&pointer, br#"{"release": "HEAD"}"#).unwrap();
        let out = at.fetch(&fetched, &[]);
        assert_eq!(exit(&out), 1, "{}", text(&out));
        assert!(
            text(&out).contains("not what masterctl writes"),
            "{}",
            text(&out)
        );
        std::fs::write(&pointer, held_pointer).unwrap();
    }

    // A release forged to reach outside the build, or to name bytes that are not an
    // archive (under their true hash): refused with exit 1, nothing written outside,
    // nothing swapped in.
    if let Some(files) = store.files(prefix) {
        let pointer_path = files.join("regions/jp/current.json");
        let held_pointer = std::fs::read(&pointer_path).unwrap();
        let mut pointer: serde_json::Value = serde_json::from_slice(&held_pointer).unwrap();
        let release_path = files.join(format!(
            "releases/jp/{}.json",
            pointer["release"].as_str().unwrap()
        ));
        let held_release = std::fs::read(&release_path).unwrap();
        let held = contents(&fetched);
        let junk = b"bytes that are not an archive ".repeat(4);
        let junk_hash = blake3::hash(&junk).to_hex().to_string();
        let junk_path = files.join("objects").join(&junk_hash);
        std::fs::write(&junk_path, &junk).unwrap();
        let mut forged = vec![junk_path];
        for (path, refusal) in [
            (Some("../escaped.rkyv"), "is not a path inside the build"),
            (None, "not a valid archive"),
        ] {
            // Stored compressed; a forger may write it plain, as older records are.
            let key = format!("releases/jp/{}.json", pointer["release"].as_str().unwrap());
            let record = Release::parse(&held_release, &key, "", "jp").unwrap();
            let mut release = serde_json::to_value(&record).unwrap();
            // The current release's manifest (the build's, as the record names it).
            let built = std::fs::read(build.join("manifest.json")).unwrap();
            assert_eq!(
                blake3::hash(&built).to_hex().as_str(),
                record.manifest_blake3
            );
            let mut forged_manifest = manifest(&build);
            let file = &mut forged_manifest["files"][0];
            file["blake3"] = junk_hash.clone().into();
            file["size"] = junk.len().into();
            if let Some(path) = path {
                file["path"] = path.into();
            }
            // The manifest object and the hashes naming it, as a forger would write them.
            let manifest_bytes = serde_json::to_vec(&forged_manifest).unwrap();
            let manifest_hash = blake3::hash(&manifest_bytes).to_hex().to_string();
            forged.push(files.join("objects").join(&manifest_hash));
            std::fs::write(forged.last().unwrap(), &manifest_bytes).unwrap();
            release["manifest_blake3"] = manifest_hash.clone().into();
            release["manifest_size"] = manifest_bytes.len().into();
            pointer["manifest_blake3"] = manifest_hash.into();
            std::fs::write(&release_path, serde_json::to_vec(&release).unwrap()).unwrap();
            std::fs::write(&pointer_path, serde_json::to_vec(&pointer).unwrap()).unwrap();
            let out = at.fetch(&fetched, &[]);
            assert_eq!(exit(&out), 1, "{}", text(&out));
            assert!(text(&out).contains(refusal), "{}", text(&out));
            assert!(!root.join("escaped.rkyv").exists());
            assert_eq!(contents(&fetched), held, "nothing swapped in");
        }
        std::fs::write(&release_path, held_release).unwrap();
        std::fs::write(&pointer_path, held_pointer).unwrap();
        forged
            .iter()
            .for_each(|path| std::fs::remove_file(path).unwrap());
    }

    // A publisher that died after its objects (no release yet), or after its release
    // (no pointer moved): the pointer still names a whole release, and a rerun
    // completes, uploading nothing twice.
    if let Some(files) = store.files(prefix) {
        let pointer = files.join("regions/jp/current.json");
        for died_after_release in [false, true] {
            let held_pointer = std::fs::read(&pointer).unwrap();
            let held = contents(&fetched);
            let saber = if died_after_release {
                "Iron Saber"
            } else {
                "Iron Katana"
            };
            rename_sword(root, saber);
            let release = manifest(&build)["source_commit"]
                .as_str()
                .unwrap()
                .to_string();
            ok(at.publish(&build, &[]));
            std::fs::write(&pointer, &held_pointer).unwrap();
            if !died_after_release {
                std::fs::remove_file(files.join(format!("releases/jp/{release}.json"))).unwrap();
            }
            ok(at.fetch(&fetched, &[]));
            assert_eq!(contents(&fetched), held, "the previous release, whole");
            let rerun = at.publish_json(&build);
            assert_eq!(rerun["uploaded"], 0);
            assert_eq!(rerun["release_written"], !died_after_release);
            assert_eq!(rerun["pointer_moved"], true);
            ok(at.fetch(&fetched, &[]));
            assert_eq!(contents(&fetched), contents(&build));
        }
    }

    // Moving back to an earlier release needs --force.
    let older = build_previous(root, "older");
    let out = at.publish(&older, &[]);
    assert_eq!(exit(&out), 2, "{}", text(&out));
    assert!(text(&out).contains("--force"), "{}", text(&out));
    let forced = json(&ok(at.publish(&older, &["--force", "--format", "json"])));
    assert_eq!(forced["uploaded"], 0, "its objects are all there");
    assert_eq!(forced["pointer_moved"], true);

    // The store's releases, newest first, the forced one current.
    let listed = json(&ok(run(
        root,
        store,
        &["releases", "--from", &url, "--format", "json"],
    )));
    let listed = listed["releases"].as_array().unwrap().clone();
    let older_id = manifest(&older)["source_commit"]
        .as_str()
        .unwrap()
        .to_string();
    let newest_id = manifest(&build)["source_commit"]
        .as_str()
        .unwrap()
        .to_string();
    let current: Vec<&str> = listed
        .iter()
        .filter(|r| r["current"] == true)
        .map(|r| r["release"].as_str().unwrap())
        .collect();
    assert_eq!(current, [older_id.as_str()]);
    assert_eq!(listed[0]["release"], newest_id.as_str(), "newest first");
    let published: Vec<String> = listed
        .iter()
        .map(|r| r["release"].as_str().unwrap().to_string())
        .collect();

    // Rollback (forward, here) to the newest: it has every object, so it moves.
    let rolled = json(&ok(run(
        root,
        store,
        &[
            "rollback", "--reason", "test", "--from", &url, "--region", "jp", "--to", &newest_id,
            "--format", "json",
        ],
    )));
    assert_eq!(rolled["moved"], true);
    ok(at.fetch(&fetched, &[]));
    assert_eq!(contents(&fetched), contents(&build));
    let out = run(
        root,
        store,
        &[
            "rollback",
            "--reason",
            "test",
            "--from",
            &url,
            "--region",
            "jp",
            "--to",
            &"0".repeat(40),
        ],
    );
    assert_eq!(exit(&out), 1, "{}", text(&out));

    // A release whose objects are not all there is never made current.
    if store.files(prefix).is_some() {
        let only_older = hashes(&older).difference(&hashes(&build)).next().cloned();
        let victim = only_older.expect("the older build has objects of its own");
        std::fs::remove_file(store.object_file(prefix, &victim)).unwrap();
        let out = run(
            root,
            store,
            &[
                "rollback", "--reason", "test", "--from", &url, "--region", "jp", "--to", &older_id,
            ],
        );
        assert_eq!(exit(&out), 1, "{}", text(&out));
        assert!(text(&out).contains(&victim), "{}", text(&out));
        ok(at.fetch(&fetched, &[]));
        assert_eq!(
            contents(&fetched),
            contents(&build),
            "the pointer did not move"
        );
    }

    // gc keeps the newest release of the region (the current one) and what it needs;
    // every other release and object goes, releases first.
    let dry = json(&ok(run(
        root,
        store,
        &[
            "gc",
            "--from",
            &url,
            "--keep",
            "1",
            "--grace",
            "0",
            "--dry-run",
            "--format",
            "json",
        ],
    )));
    assert_eq!(
        dry["deleted"]["jp"].as_array().unwrap().len(),
        published.len() - 1
    );
    assert!(dry["objects_deleted"].as_u64().unwrap() > 0);
    let kept_objects: BTreeSet<String> = hashes(&build);
    let gone = json(&ok(run(
        root,
        store,
        &[
            "gc", "--from", &url, "--keep", "1", "--grace", "0", "--format", "json",
        ],
    )));
    assert_eq!(gone["objects_deleted"], dry["objects_deleted"]);
    for hash in &kept_objects {
        assert!(store.object_file(prefix, hash).exists(), "kept {hash}");
    }
    ok(at.fetch(
        &fetched,
        &["--cache", &root.join("gc-cache").display().to_string()],
    ));
    assert_eq!(contents(&fetched), contents(&build));
    let out = run(
        root,
        store,
        &[
            "fetch",
            "--from",
            &url,
            "--region",
            "jp",
            "--release",
            &older_id,
            "--out",
            "old",
        ],
    );
    assert_eq!(exit(&out), 1, "a deleted release: {}", text(&out));
    // Rolling back to a release whose objects are gone is refused.
    let out = run(
        root,
        store,
        &[
            "rollback", "--reason", "test", "--from", &url, "--region", "jp", "--to", &older_id,
        ],
    );
    assert_ne!(exit(&out), 0, "{}", text(&out));

    // No credential ever reaches the output, even in errors.
    for out in [
        at.publish(&build, &["--force"]),
        run(
            root,
            store,
            &["fetch", "--from", &url, "--region", "nowhere", "--out", "x"],
        ),
    ] {
        let all = text(&out);
        assert!(
            !all.contains(SECRET_KEY) && !all.contains(ACCESS_KEY),
            "{all}"
        );
    }
}

#[test]
fn a_folder_store_publishes_and_fetches_whole_releases() {
    let store = Folder(tempfile::tempdir().unwrap());
    suite(&store, "game");
}

#[test]
fn an_s3_store_publishes_and_fetches_whole_releases() {
    suite(&S3::start(), "game");
}

#[test]
fn s3_faults_are_clear_errors_without_secrets() {
    let mut store = S3::start();
    let (repo, build) = game();
    let root = repo.path();
    let build_arg = build.display().to_string();
    let url = store.url("game");
    // Wrong credentials, a missing bucket: exit 2, one clear line, no secret.
    let out = Command::new(env!("CARGO_BIN_EXE_masterctl"))
        .current_dir(root)
        .args(["publish", &build_arg, "--to", &url])
        .env("NO_COLOR", "1")
        .env("HOME", root)
        .envs(store.env())
        .env("AWS_SECRET_ACCESS_KEY", "wrong-secret-for-the-test")
        .output()
        .unwrap();
    assert_eq!(exit(&out), 2, "{}", text(&out));
    assert!(text(&out).contains("credentials"), "{}", text(&out));
    assert!(!text(&out).contains("wrong-secret-for-the-test"));
    let out = run(
        root,
        &store,
        &["publish", &build_arg, "--to", "s3://no-such-bucket/game"],
    );
    assert_eq!(exit(&out), 2, "{}", text(&out));
    assert!(
        text(&out).contains("bucket does not exist"),
        "{}",
        text(&out)
    );
    // Nothing written to find that out: s3s-fs makes a bucket on the first write to it.
    // Nor by a gc, which has nothing to collect there: said, not done.
    let out = run(
        root,
        &store,
        &["gc", "--from", "s3://no-such-bucket/game", "--keep", "1"],
    );
    assert_eq!(exit(&out), 2, "{}", text(&out));
    assert!(
        text(&out).contains("bucket does not exist"),
        "{}",
        text(&out)
    );
    assert!(!store.root.path().join("no-such-bucket").exists());

    // The server down in the middle of the work: exit 2; up again, a rerun completes
    // and the pointer never named a missing object.
    ok(run(root, &store, &["publish", &build_arg, "--to", &url]));
    store.stop();
    let out = run(
        root,
        &store,
        &[
            "fetch", "--from", &url, "--region", "jp", "--out", "fetched",
        ],
    );
    assert_eq!(exit(&out), 2, "{}", text(&out));
    assert!(text(&out).contains("cannot be reached"), "{}", text(&out));
    assert!(!root.join("fetched").exists());
    store.restart();
    ok(run(
        root,
        &store,
        &[
            "fetch", "--from", &url, "--region", "jp", "--out", "fetched",
        ],
    ));
    assert_eq!(contents(&root.join("fetched")), contents(&build));

    // The server killed while a publish runs (one object at a time, so that it is
    // caught in the middle): whatever the publisher got done, a fetch gets a whole
    // release, and the rerun completes.
    let old = contents(&build);
    rename_sword(root, "Iron Sabre");
    let publisher = Command::new(env!("CARGO_BIN_EXE_masterctl"))
        .current_dir(root)
        .args(["publish", &build_arg, "--to", &url, "--concurrency", "1"])
        .env("HOME", root)
        .envs(store.env())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(30));
    store.stop();
    let out = publisher.wait_with_output().unwrap();
    assert!(matches!(exit(&out), 0 | 2), "{}", text(&out));
    store.restart();
    ok(run(
        root,
        &store,
        &[
            "fetch", "--from", &url, "--region", "jp", "--out", "fetched",
        ],
    ));
    let got = contents(&root.join("fetched"));
    assert!(got == old || got == contents(&build), "a whole release");
    ok(run(root, &store, &["publish", &build_arg, "--to", &url]));
    ok(run(
        root,
        &store,
        &[
            "fetch", "--from", &url, "--region", "jp", "--out", "fetched",
        ],
    ));
    assert_eq!(contents(&root.join("fetched")), contents(&build));
}

#[test]
fn racing_publishers_never_lose_a_release_silently() {
    let folder = Folder(tempfile::tempdir().unwrap());
    let s3 = S3::start();
    let stores: [&dyn Store; 2] = [&folder, &s3];
    let (repo, build) = game();
    let root = repo.path();
    let other = build_previous(root, "other");
    let releases = [
        manifest(&build)["source_commit"]
            .as_str()
            .unwrap()
            .to_string(),
        manifest(&other)["source_commit"]
            .as_str()
            .unwrap()
            .to_string(),
    ];
    for store in stores {
        for round in 0..4 {
            let url = store.url(&format!("race{round}"));
            let spawn = |dir: &Path| {
                let mut command = Command::new(env!("CARGO_BIN_EXE_masterctl"));
                command
                    .current_dir(root)
                    .args(["publish", &dir.display().to_string(), "--to", &url])
                    .args(["--format", "json"])
                    .env("HOME", root)
                    .envs(store.env())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                command.spawn().unwrap()
            };
            let (a, b) = (spawn(&build), spawn(&other));
            let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
            let current: serde_json::Value = serde_json::from_slice(
                &run(
                    root,
                    store,
                    &[
                        "fetch", "--from", &url, "--region", "jp", "--out", "raced", "--format",
                        "json",
                    ],
                )
                .stdout,
            )
            .unwrap();
            let current = current["release"].as_str().unwrap().to_string();
            for (i, out) in outs.iter().enumerate() {
                match exit(out) {
                    // Made current; if the other is current now, it saw this one.
                    0 => {
                        let mine = &releases[i];
                        let theirs = &releases[1 - i];
                        if &current != mine && store.atomic() {
                            assert_eq!(&current, theirs);
                            let other: serde_json::Value =
                                serde_json::from_slice(&outs[1 - i].stdout).unwrap();
                            assert_eq!(
                                other["previous"].as_str(),
                                Some(mine.as_str()),
                                "{url}: {}",
                                text(&outs[1 - i])
                            );
                        }
                    }
                    // Lost the race or would move back: said so.
                    1 | 2 => {
                        let said = text(out);
                        assert!(
                            said.contains("another publisher") || said.contains("--force"),
                            "{said}"
                        );
                    }
                    code => panic!("exit {code}: {}", text(out)),
                }
            }
            // Whatever the store's atomicity, no release is lost: both are on the store,
            // whole, and fetchable by name.
            assert!(releases.contains(&current));
            for release in &releases {
                ok(run(
                    root,
                    store,
                    &[
                        "fetch",
                        "--from",
                        &url,
                        "--region",
                        "jp",
                        "--release",
                        release,
                        "--out",
                        "raced",
                    ],
                ));
            }
            let _ = std::fs::remove_dir_all(root.join("raced"));
        }
    }
}

#[test]
fn plain_http_in_front_of_a_store_serves_fetches() {
    let folder = Folder(tempfile::tempdir().unwrap());
    let (repo, build) = game();
    let root = repo.path();
    ok(run(
        root,
        &folder,
        &[
            "publish",
            &build.display().to_string(),
            "--to",
            &folder.url("game"),
        ],
    ));
    let port = free_port();
    let mut server = Command::new("python3")
        .args([
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            &port.to_string(),
        ])
        .arg("--directory")
        .arg(folder.0.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 serves the folder");
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(20), "no HTTP server");
        std::thread::sleep(Duration::from_millis(50));
    }
    let url = format!("http://127.0.0.1:{port}/game");
    let out = run(
        root,
        &folder,
        &[
            "fetch", "--from", &url, "--region", "jp", "--out", "fetched",
        ],
    );
    let _ = server.kill();
    let _ = server.wait();
    ok(out);
    assert_eq!(contents(&root.join("fetched")), contents(&build));
    // Over HTTPS, from inside the repository: the store's client trusts the certificate
    // authority `SSL_CERT_FILE` names, though libgit2 was started without any.
    if let Some(tls) = StaticTls::start(folder.0.path()) {
        let url = format!("{}/game", StaticTls::url(tls.h2));
        let mut fetch = Command::new(env!("CARGO_BIN_EXE_masterctl"));
        fetch
            .current_dir(root)
            .env("HOME", root)
            .env("SSL_CERT_FILE", tls.ca())
            .args(["--format", "json", "fetch", "--from", &url])
            .args(["--region", "jp", "--out", "over-tls"]);
        let out = fetch.output().expect("the binary runs");
        let fetched = json(&ok(out));
        assert_eq!(fetched["transport"]["protocol"], "HTTP/2", "{fetched}");
        assert_eq!(contents(&root.join("over-tls")), contents(&build));
        // Without it, the server's certificate is refused (exit 2), never trusted, and
        // the hint says how to trust it.
        let out = fetch.env_remove("SSL_CERT_FILE").output().unwrap();
        assert_eq!(exit(&out), 2, "{}", text(&out));
        let failed = json(&out);
        assert!(
            failed["error"].as_str().unwrap().contains("not trusted"),
            "{failed}"
        );
        assert!(
            failed["hint"].as_str().unwrap().contains("SSL_CERT_FILE"),
            "{failed}"
        );
    }
    // HTTP is for reading.
    let out = run(
        root,
        &folder,
        &["publish", &build.display().to_string(), "--to", &url],
    );
    assert_eq!(exit(&out), 2, "{}", text(&out));
    assert!(text(&out).contains("read-only"), "{}", text(&out));
    // Nobody listening: exit 2, quickly.
    let out = run(
        root,
        &folder,
        &[
            "fetch",
            "--from",
            &format!("http://127.0.0.1:{}/game", free_port()),
            "--region",
            "jp",
            "--out",
            "nowhere",
        ],
    );
    assert_eq!(exit(&out), 2, "{}", text(&out));
    assert!(text(&out).contains("cannot be reached"), "{}", text(&out));
}

#[test]
fn a_watching_server_swaps_to_each_new_release_and_frees_the_old_one() {
    use masterctl_delivery::watch::Watch;
    use masterctl_delivery::{Remote, RemoteOptions};
    use std::sync::{Arc, RwLock};

    let folder = Folder(tempfile::tempdir().unwrap());
    let (repo, build) = game();
    let root = repo.path();
    let at = At {
        root,
        store: &folder,
        url: folder.url("live"),
    };
    ok(at.publish(&build, &[]));
    let runtime = masterctl_delivery::runtime().unwrap();
    let remote = Remote::open(&at.url, &RemoteOptions::default()).unwrap();
    let served = root.join("served");
    let mut watch = Watch::new(remote, "jp", &served);
    watch.languages = Some(vec!["en".into()]);
    let first = runtime.block_on(watch.poll()).unwrap().expect("a release");
    let name = |loaded: &masterctl_delivery::watch::Loaded| {
        let item = loaded.masters.table("item").unwrap();
        let row = item.get(&item.parse_primary_key(&["1"]).unwrap()).unwrap();
        row.text("name", "en").unwrap().to_string()
    };
    assert_eq!(name(&first), "Iron Sword");
    let first_dir = first.dir().to_path_buf();
    let current = RwLock::new(Arc::new(first));
    // Nothing new: nothing fetched.
    assert!(runtime.block_on(watch.poll()).unwrap().is_none());

    // A new release: fetched beside, opened, handed over; a lookup in flight keeps the
    // old one, whose folder goes when it lets go.
    rename_sword(root, "Iron Brand");
    ok(at.publish(&build, &[]));
    let in_flight = Arc::clone(&current.read().unwrap());
    let next = runtime
        .block_on(watch.poll())
        .unwrap()
        .expect("the new release");
    *current.write().unwrap() = Arc::new(next);
    assert_eq!(name(&current.read().unwrap()), "Iron Brand");
    assert_eq!(name(&in_flight), "Iron Sword", "the old release serves on");
    assert!(first_dir.exists());
    drop(in_flight);
    assert!(!first_dir.exists(), "the old release's folder is removed");
    assert!(runtime.block_on(watch.poll()).unwrap().is_none());
}

#[test]
fn a_server_and_a_client_build_of_one_commit_are_both_published() {
    let (repo, build) = game();
    let root = repo.path();
    let store = Folder(tempfile::tempdir().unwrap());
    let url = store.url("game");
    ok(run(
        root,
        &store,
        &["publish", build.to_str().unwrap(), "--to", &url],
    ));
    ok(masterctl(
        root,
        &["build", "--region", "jp", "--client", "--out", "client"],
    ));
    let out = run(
        root,
        &store,
        &["publish", "client", "--to", &url, "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let commit = git(root, &["rev-parse", "masters/jp"]).trim().to_string();
    assert_eq!(json(&out)["release"], format!("{commit}-client"));
    // Both are on the store; each is fetched by the id printed (or its prefix).
    let listed = json(&run(
        root,
        &store,
        &["releases", "--from", &url, "--format", "json"],
    ));
    let ids: Vec<&str> = listed["releases"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed:#}"))
        .iter()
        .map(|r| r["release"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&commit.as_str()) && ids.contains(&format!("{commit}-client").as_str()),
        "{ids:?}"
    );
    let fetch_release = |release: &str, out: &str| {
        let args = [
            "fetch",
            "--from",
            &url,
            "--region",
            "jp",
            "--release",
            release,
            "--out",
            out,
        ];
        run(root, &store, &args)
    };
    // `releases` prints the two apart, and each id it prints is taken back: the
    // server build's 12 digits, and the client build's with `-client`.
    let shown = text(&run(root, &store, &["releases", "--from", &url]));
    let short = &commit[..12];
    assert!(
        shown.contains(&format!(" {short} ")) && shown.contains(&format!(" {short}-client ")),
        "{shown}"
    );
    ok(fetch_release(short, "server"));
    assert!(!root.join("server/client").exists(), "the server build");
    ok(fetch_release(&format!("{short}-client"), "fetched"));
    assert!(root.join("fetched/client").is_dir());
}

/// A project that names its store in `masterctl.toml` publishes, lists and rolls back
/// without `--to`/`--from`; one that names none is told how.
#[test]
fn the_project_s_own_store_is_the_default() {
    let repo = crate::common::sample_game();
    let root = repo.path();
    let out = masterctl(root, &["releases"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("[publish] store"), "{}", text(&out));

    let store = tempfile::tempdir().unwrap();
    let url = format!("file://{}", store.path().display());
    let config = std::fs::read_to_string(root.join("masterctl.toml")).unwrap();
    std::fs::write(
        root.join("masterctl.toml"),
        format!("{config}\n[publish]\nstore = \"{url}\"\n"),
    )
    .unwrap();
    crate::common::git(root, &["commit", "-qam", "Publish to the studio's store"]);
    ok(masterctl(
        root,
        &["build", "--region", "jp", "--out", "build"],
    ));
    let published = json(&ok(masterctl(
        root,
        &["publish", "build", "--format", "json"],
    )));
    assert_eq!(published["pointer_moved"], true, "{published}");
    let listed = json(&ok(masterctl(root, &["releases", "--format", "json"])));
    assert_eq!(listed["store"], url.as_str());
    let release = listed["releases"][0]["release"]
        .as_str()
        .unwrap()
        .to_string();
    let rolled = json(&ok(masterctl(
        root,
        &[
            "rollback", "--reason", "test", "--region", "jp", "--to", &release, "--format", "json",
        ],
    )));
    assert_eq!(rolled["moved"], false, "already current");
}

/// `minisign` on this machine (`.ci/run` installs it; under `CI=true` a missing one
/// fails the test).
fn minisign() -> bool {
    let there = Command::new("minisign").arg("-v").output().is_ok();
    assert!(
        there || std::env::var("CI").is_err(),
        "minisign is not installed: .ci/run installs it (apt-get install minisign)"
    );
    if !there {
        eprintln!("note: minisign is not installed; its half of the test skipped");
    }
    there
}

/// A key made by `key new` (its secret encrypted, mode 0600, never written over) signs
/// a publish given its passphrase, and asks for it otherwise; `fetch --trust` takes the
/// release with its public key and refuses it with another. The standard `minisign`
/// checks the fetched build's manifest against the signature on the store, and a key
/// `minisign` made signs a publish (from the environment, as CI would) that `fetch`
/// takes with its key, and refuses with the project's (`[delivery] trusted_keys`).
#[test]
fn a_release_signed_by_a_key_made_here_or_by_minisign_is_taken_and_checked_by_both() {
    let (repo, _build) = game();
    let root = repo.path();
    let store = root.join("store");
    let url = format!("file://{}", store.display());
    std::fs::create_dir_all(root.join("keys")).unwrap();
    std::fs::write(root.join("pass.txt"), "correct horse\n").unwrap();

    let made = json(&ok(masterctl(
        root,
        &[
            "key",
            "new",
            "--out",
            "keys/release",
            "--passphrase-file",
            "pass.txt",
            "--format",
            "json",
        ],
    )));
    assert_eq!(made["encrypted"], true, "{made}");
    let id = made["key"].as_str().unwrap().to_string();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(root.join("keys/release.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let again = masterctl(
        root,
        &["key", "new", "--out", "keys/release", "--no-passphrase"],
    );
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(
        text(&again).contains("is never written over"),
        "{}",
        text(&again)
    );
    ok(masterctl(
        root,
        &["key", "new", "--out", "keys/other", "--no-passphrase"],
    ));

    // An encrypted key with no passphrase to be had: said, nothing published.
    let publish = |more: &[&str]| {
        let mut args = vec![
            "publish",
            "build",
            "--to",
            &url,
            "--sign",
            "keys/release.key",
        ];
        args.extend_from_slice(more);
        masterctl(root, &args)
    };
    let asked = publish(&[]);
    assert_eq!(asked.status.code(), Some(2), "{}", text(&asked));
    assert!(
        text(&asked).contains("--passphrase-file"),
        "{}",
        text(&asked)
    );
    assert!(!store.join("regions").exists());

    let published = json(&ok(publish(&[
        "--passphrase-file",
        "pass.txt",
        "--format",
        "json",
    ])));
    assert_eq!(published["signed"]["key"], id.as_str(), "{published}");
    let release = published["release"].as_str().unwrap().to_string();
    let fetch = |trust: &str| {
        masterctl(
            root,
            &[
                "fetch", "--from", &url, "--region", "jp", "--out", "fetched", "--trust", trust,
                "--format", "json",
            ],
        )
    };
    let fetched = json(&ok(fetch("keys/release.pub")));
    assert_eq!(fetched["signed"]["key"], id.as_str(), "{fetched}");
    let refused = fetch("keys/other.pub");
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    assert!(
        text(&refused).contains("which is not trusted"),
        "{}",
        text(&refused)
    );

    // The project's keys, when a fetch in its repository names none.
    let public = std::fs::read_to_string(root.join("keys/release.pub")).unwrap();
    let config = std::fs::read_to_string(root.join("masterctl.toml")).unwrap();
    let trusted = public.lines().nth(1).unwrap();
    let config = format!("{config}\n[delivery]\ntrusted_keys = [\"{trusted}\"]\n");
    std::fs::write(root.join("masterctl.toml"), config).unwrap();
    git(root, &["commit", "-qam", "Trust the release key"]);
    let configured = || {
        masterctl(
            root,
            &[
                "fetch", "--from", &url, "--region", "jp", "--out", "fetched", "--format", "json",
            ],
        )
    };
    assert_eq!(json(&ok(configured()))["signed"]["key"], id.as_str());

    if !minisign() {
        return;
    }
    // The standard tool checks the fetched build against the signature on the store.
    let signature = store.join(format!("releases/jp/{release}.minisig"));
    let checked = Command::new("minisign")
        .args([
            "-V",
            "-p",
            "keys/release.pub",
            "-m",
            "fetched/manifest.json",
            "-x",
        ])
        .arg(&signature)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(checked.status.success(), "{}", text(&checked));
    assert!(
        text(&checked).contains("masterctl-release region=jp"),
        "{}",
        text(&checked)
    );

    // A key minisign made, held in the environment as CI holds it.
    let made = Command::new("minisign")
        .args(["-G", "-W", "-p", "keys/tool.pub", "-s", "keys/tool.key"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", text(&made));
    rename_sword(root, "Tool Sword");
    let secret = std::fs::read_to_string(root.join("keys/tool.key")).unwrap();
    let published = Command::new(env!("CARGO_BIN_EXE_masterctl"))
        .args([
            "publish",
            "build",
            "--to",
            &url,
            "--sign",
            "env:RELEASE_KEY",
        ])
        .env("RELEASE_KEY", secret)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(published.status.success(), "{}", text(&published));
    let public = std::fs::read_to_string(root.join("keys/tool.pub")).unwrap();
    let line = public.lines().nth(1).unwrap();
    let refused = configured();
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    ok(fetch(line));
}

/// `watch --once` keeps a folder at the region's release and says so in its status file
/// and JSON; a release it refuses (unsigned, with `--trust`) is counted, the folder left
/// as it was; `watch --listen` serves the same as JSON and Prometheus text while it runs.
#[test]
fn a_watcher_keeps_its_folder_and_says_what_it_runs() {
    let (repo, _build) = game();
    let root = repo.path();
    let url = format!("file://{}", root.join("store").display());
    ok(masterctl(
        root,
        &["key", "new", "--out", "release", "--no-passphrase"],
    ));
    ok(masterctl(
        root,
        &["publish", "build", "--to", &url, "--sign", "release.key"],
    ));
    let watch_once = || {
        let args = [
            "watch", "--from", &url, "--region", "jp", "--out", "live", "--once",
        ];
        json(&ok(masterctl(
            root,
            &[&args[..], &["--trust", "release.pub", "--format", "json"]].concat(),
        )))
    };
    let status = watch_once();
    let release = status["release"].as_str().unwrap().to_string();
    assert_eq!(
        status["signed"]["key"].as_str().map(str::len),
        Some(16),
        "{status}"
    );
    assert!(root.join("live/manifest.json").is_file());
    let kept: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join(".live.status.json")).unwrap()).unwrap();
    assert_eq!(kept["release"], release.as_str());

    // An unsigned release: refused, counted, the folder as it was.
    rename_sword(root, "Unsigned Sword");
    ok(masterctl(root, &["publish", "build", "--to", &url]));
    let status = watch_once();
    assert_eq!(status["release"], release.as_str(), "{status}");
    assert_eq!(status["refusal"]["reason"], "unsigned", "{status}");

    // Reported to the store, and counted per release.
    let base = ["watch", "--from", &url, "--region", "jp", "--out", "live"];
    let more = [
        "--once",
        "--trust",
        "release.pub",
        "--report",
        "--host",
        "web-1",
    ];
    let reported = masterctl(root, &[&base[..], &more[..]].concat());
    ok(reported);
    let listed = json(&ok(masterctl(
        root,
        &["releases", "--from", &url, "--fleet", "--format", "json"],
    )));
    let servers: Vec<(String, serde_json::Value)> = (listed["releases"].as_array().unwrap().iter())
        .map(|r| {
            (
                r["release"].as_str().unwrap().to_string(),
                r["servers"].clone(),
            )
        })
        .collect();
    assert!(
        servers.contains(&(release.clone(), serde_json::json!(["web-1"]))),
        "{listed}"
    );
    let bad = masterctl(
        root,
        &[
            "watch", "--from", &url, "--region", "jp", "--out", "live", "--once", "--report",
            "--host", "../x",
        ],
    );
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));

    // Served while it runs.
    let mut child = Command::new(env!("CARGO_BIN_EXE_masterctl"))
        .args(base)
        .args(["--listen", "127.0.0.1:0"])
        .current_dir(root)
        .env("NO_COLOR", "1")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut stderr, &mut line).unwrap();
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    let get = |path: &str| {
        use std::io::{Read as _, Write as _};
        let mut stream = std::net::TcpStream::connect(&address).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    // The first round takes the unsigned release (no key is trusted here).
    let deadline = Instant::now() + Duration::from_secs(30);
    let metrics = loop {
        let metrics = get("/metrics");
        if metrics.contains("masterctl_release_info{") && !metrics.contains(&release) {
            break metrics;
        }
        assert!(Instant::now() < deadline, "{metrics}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(metrics.contains("text/plain; version=0.0.4"), "{metrics}");
    assert!(
        metrics.contains("masterctl_release_age_seconds{region=\"jp\"}"),
        "{metrics}"
    );
    assert!(get_failed_after_kill(&address));
}

/// Whether nothing answers at `address` any more.
fn get_failed_after_kill(address: &str) -> bool {
    std::net::TcpStream::connect(address).is_err()
}
