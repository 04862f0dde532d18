//! The console in a real browser: Debian's chromium driven by playwright-core (from
//! npm; nothing downloads a browser) through a planner's journey — upload a workbook
//! with a mistake, see the diagnostics and the bad cell in its sheet, drop the fixed
//! one, review, import, find it in the history, blame the cell; rebase a region stopped
//! on a conflict and resolve it with a typed value; take a translation file once its
//! failing unit is fixed; and, on a studio's console with users, an editor proposes a
//! work branch and a maintainer merges it. Screenshots of each step are kept in
//! `target/console-screenshots/` (an artifact to look at).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// Where npm installs global packages, when playwright-core is there (`.ci/run`
/// installs it); `None` with a note elsewhere (CI fails instead).
fn playwright_root() -> Option<String> {
    let root = Command::new("npm")
        .args(["root", "-g"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|root| Path::new(root).join("playwright-core").is_dir());
    if root.is_none() {
        assert!(
            std::env::var("CI").is_err(),
            "playwright-core is not installed: .ci/run installs it (npm install -g playwright-core)"
        );
        eprintln!("note: playwright-core is not installed; the browser journey is skipped");
    }
    root
}

/// Where playwright-core is, when it and chromium are here to walk the console with.
fn browser() -> Option<String> {
    let root = playwright_root()?;
    present("/usr/bin/chromium", "chromium").then_some(root)
}

/// An empty folder for a walk's screenshots, `name` in the build's target folder.
fn screenshots(name: &str) -> std::path::PathBuf {
    let out = target_dir().join(name);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    out
}

/// node running the walk `script` (of `cli/tests/browser/`) through the console on
/// `port`, its screenshots in `out`.
fn node(script: &str, playwright: &str, port: u16, out: &Path) -> Command {
    let mut run = Command::new("node");
    run.arg(crate::common::root().join("cli/tests/browser").join(script))
        .env("NODE_ROOT", playwright)
        .env("BASE", format!("http://127.0.0.1:{port}"))
        .env("OUT", out);
    run
}

/// Run `walk` (`what`, for the failure); it must succeed.
fn walked(mut walk: Command, what: &str, out: &Path) {
    let run = walk.output().expect("node runs");
    assert!(
        run.status.success(),
        "{what} failed (screenshots in {}):\n{}\n{}",
        out.display(),
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
}

/// The console of `repo` on a free port, stopped on drop.
struct Serving(std::process::Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(repo: &Path, port: u16, users: Option<&Path>) -> Serving {
    let listen = format!("127.0.0.1:{port}");
    let mut args = vec!["serve", "--listen", &listen];
    if let Some(users) = users {
        args.extend(["--users", users.to_str().unwrap()]);
    }
    let child = Command::new(env!("CARGO_BIN_EXE_masterctl"))
        .current_dir(repo)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("masterctl serve starts");
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the console did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Serving(child)
}

#[test]
fn a_planner_imports_through_the_console_in_a_real_browser() {
    let Some(root) = browser() else {
        return;
    };
    let game = sample_game();
    let repo = game.path();
    let edits = tempfile::tempdir().unwrap();
    // Global and jp both change the dragon-scale shield's price (a conflict for the
    // rebase); a work branch of jp changes the iron sword's.
    ok(masterctl(repo, &["rebase", "--region", "global"]));
    let shield = ",epic,15000,";
    for (region, branch, from, to) in [
        ("global", None, shield, ",epic,16000,"),
        ("jp", None, shield, ",epic,17000,"),
        ("jp", Some("event"), ",common,100,", ",common,120,"),
    ] {
        if let Some(branch) = branch {
            ok(masterctl(
                repo,
                &["branch", "create", branch, "--region", region],
            ));
        }
        let branch_args: Vec<&str> = branch.map(|b| vec!["--branch", b]).unwrap_or_default();
        let out = edits
            .path()
            .join(format!("{region}-{}", branch.unwrap_or("")));
        export_csv(
            repo,
            &out,
            &[&["--region", region][..], &branch_args].concat(),
        );
        let items = std::fs::read_to_string(out.join("Item.csv")).unwrap();
        assert!(items.contains(from), "{items}");
        let only = out.join("only");
        std::fs::create_dir(&only).unwrap();
        std::fs::write(only.join("Item.csv"), items.replacen(from, to, 1)).unwrap();
        let mut import = vec!["import", "--region", region];
        import.extend(&branch_args);
        import.push(only.to_str().unwrap());
        ok(masterctl(repo, &import));
    }
    // A translation file whose potion text loses its placeholder, and the same fixed.
    let po = edits.path().join("en.po");
    let export_po = ["l10n", "export", "--region", "jp", "--lang", "en", "--out"];
    ok(masterctl(
        repo,
        &[&export_po[..], &[po.to_str().unwrap()]].concat(),
    ));
    let po = std::fs::read_to_string(&po).unwrap();
    let potion = "msgid \"HPを<color=green>{amount}</color>回復する\"\nmsgstr \"\"";
    assert!(po.contains(potion), "{po}");
    let (broken_po, fixed_po) = (
        edits.path().join("broken.po"),
        edits.path().join("fixed.po"),
    );
    for (path, english) in [
        (&broken_po, "Restores {amt} HP"),
        (&fixed_po, "Restores <color=green>{amount}</color> HP"),
    ] {
        let translated = potion.replace("msgstr \"\"", &format!("msgstr \"{english}\""));
        std::fs::write(path, po.replacen(potion, &translated, 1)).unwrap();
    }
    // The planner's edit of the current masters (as export writes them), and the same
    // with a mistake in it.
    export_csv(repo, edits.path(), &["--region", "jp"]);
    let items = std::fs::read_to_string(edits.path().join("Item.csv")).unwrap();
    let row = "2,鋼の剣,よく鍛えられた剣,1,rare,1200,";
    assert!(items.contains(row), "{items}");
    let fixed = edits.path().join("fixed");
    let broken = edits.path().join("broken");
    for (dir, price) in [(&fixed, "1500"), (&broken, "abc")] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("Item.csv"),
            items.replacen(row, &format!("2,鋼の剣,{WORLD},1,rare,{price},"), 1),
        )
        .unwrap();
    }
    // The project's store, where the maintainer publishes from the releases page.
    let store = edits.path().join("store");
    let config = std::fs::read_to_string(repo.join("masterctl.toml")).unwrap();
    let published = format!(
        "{config}\n[publish]\nstore = \"file://{}\"\n",
        store.display()
    );
    std::fs::write(repo.join("masterctl.toml"), published).unwrap();
    git(
        repo,
        &["commit", "-q", "-am", "Publish to the studio's store"],
    );
    let port = free_port();
    let _console = serve(repo, port, None);
    // The studio's console of the same repository: an editor and a maintainer.
    let users = edits.path().join("users.toml");
    let mut listed = String::new();
    for (name, role) in [("Eddie", "editor"), ("Mia", "maintainer")] {
        let token = format!("token-of-{}", name.to_lowercase());
        listed.push_str(&format!(
            "[[user]]\nname = \"{name}\"\nemail = \"{}@example.com\"\nrole = \"{role}\"\ntoken_sha256 = \"{}\"\n",
            name.to_lowercase(),
            sha256(&token)
        ));
    }
    std::fs::write(&users, listed).unwrap();
    let team_port = free_port();
    let _team = serve(repo, team_port, Some(&users));
    let out = screenshots("console-screenshots");
    // The downloaded workbook is edited in LibreOffice when it is here (CI has it).
    let libreoffice = crate::common::libreoffice_python().map(|python| {
        (
            python,
            crate::common::root().join("cli/tests/tools/libreoffice_edit.py"),
        )
    });
    let mut run = node("journey.mjs", &root, port, &out);
    if let Some((python, script)) = &libreoffice {
        run.env("LO_PYTHON", python).env("LO_EDIT", script);
    }
    run.env("BROKEN", broken.join("Item.csv"))
        .env("FIXED", fixed.join("Item.csv"))
        .env("TEAM", format!("http://127.0.0.1:{team_port}"))
        .env("BROKEN_PO", &broken_po)
        .env("FIXED_PO", &fixed_po)
        .env(
            "ENGLISH",
            crate::common::root().join("console/locales/en.ftl"),
        );
    walked(run, "the journey", &out);
    let shots = std::fs::read_dir(&out).unwrap().count();
    assert!(shots >= 15, "{shots} screenshots");
    // The import is on the branch, by the planner at this machine; the edit made in the
    // browser and its undo after it, then the translation; the merge on top, by the
    // maintainer, in the words the editor proposed; then the one of two planners'
    // edits of one cell that came first (the other's, stale, was not committed).
    let log = git(
        repo,
        &[
            "log",
            "-6",
            "--first-parent",
            "--format=%an|%s|%p|%T",
            "masters/jp",
        ],
    );
    let log: Vec<Vec<&str>> = log.lines().map(|l| l.split('|').collect()).collect();
    assert_eq!(log[0][..2], ["Mia", "Price of item 3 (Mia)"], "{log:?}");
    let log = &log[1..];
    assert_eq!(log[0][..2], ["Mia", "Event prices for December"], "{log:?}");
    assert_eq!(log[0][2].split(' ').count(), 2, "a merge: {log:?}");
    assert!(log[1][1].starts_with("Translations into en"), "{log:?}");
    assert_eq!(
        log[2][..2],
        ["Test Planner", "Revert \"Cheaper first item (browser)\""]
    );
    assert_eq!(
        log[3][..2],
        ["Test Planner", "Cheaper first item (browser)"]
    );
    assert_eq!(log[4][..2], ["Test Planner", "Steel sword 1500 (browser)"]);
    assert_eq!(
        log[2][3], log[4][3],
        "the undo gives back the import's data"
    );
    assert_ne!(log[3][3], log[4][3], "the edit changed it");
    // Two releases published from the browser, the first made current again with the
    // reason typed; each step in the audit log.
    let releases = masterctl(
        repo,
        &[
            "releases",
            "--from",
            &format!("file://{}", store.display()),
            "--region",
            "jp",
            "--format",
            "json",
        ],
    );
    let listed: serde_json::Value = serde_json::from_slice(&releases.stdout).unwrap();
    let listed = listed["releases"].as_array().cloned().unwrap_or_default();
    assert_eq!(listed.len(), 2, "{listed:?}");
    let current: Vec<&serde_json::Value> = listed.iter().filter(|r| r["current"] == true).collect();
    assert_eq!(
        current[0]["versions"],
        serde_json::json!(["masters/jp/1.0"]),
        "{listed:?}"
    );
    assert_eq!(
        current[0]["made_current"]["reason"],
        "The event prices go live tomorrow"
    );
    let audit = git(repo, &["log", "--format=%s", "refs/masterctl/audit"]);
    for action in [
        "rolled back",
        "published a release of",
        "tagged",
        "edited",
        "took translations into",
    ] {
        assert!(
            audit.contains(&format!("\"action\":\"{action}\"")),
            "{action}: {audit}"
        );
    }
    // The rebase kept the value typed for the shield.
    let shield = masterctl(
        repo,
        &[
            "blame", "--region", "global", "item", "3", "--format", "json",
        ],
    );
    assert!(text(&shield).contains("2800"), "{}", text(&shield));
}

/// The areas monsters live in (a table the million monsters refer to).
const AREAS: [&str; 10] = [
    "草原",
    "洞窟",
    "火山",
    "雪原",
    "砂漠",
    "湿地",
    "古城",
    "天空",
    "深海",
    "竜の巣",
];

/// A master repository whose jp holds a table of 1,000,000 monsters (a Japanese name,
/// a kind, hit points, the area each lives in: a reference), imported as a planner
/// would.
fn million_monsters() -> tempfile::TempDir {
    use std::fmt::Write as _;
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    with_planner(root);
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join("schemas")).unwrap();
    for (file, text) in [
        (
            "masterctl.toml",
            "source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n",
        ),
        (
            "schemas/area.toml",
            "name = \"area\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"string\"\n",
        ),
        (
            "schemas/monster.toml",
            "name = \"monster\"\ndescription = \"Every monster of the game\"\nprimary_key = [\"id\"]\n\n\
             [[fields]]\nname = \"id\"\ntype = \"int\"\nmin = 1\n\n\
             [[fields]]\nname = \"name\"\ntype = \"string\"\n\n\
             [[fields]]\nname = \"kind\"\ntype = \"enum\"\nvalues = [\"slime\", \"ghost\", \"golem\", \"dragon\"]\n\n\
             [[fields]]\nname = \"hp\"\ntype = \"int\"\nmin = 0\n\n\
             [[fields]]\nname = \"area_id\"\ntype = \"int\"\nreferences = \"area.id\"\n",
        ),
    ] {
        std::fs::write(project.path().join(file), text).unwrap();
    }
    ok(masterctl(
        root,
        &["init", ".", "--from", project.path().to_str().unwrap()],
    ));
    let data = tempfile::tempdir().unwrap();
    let mut areas = String::from("id,name\n");
    for (i, name) in AREAS.iter().enumerate() {
        writeln!(areas, "{},{name}", i + 1).unwrap();
    }
    std::fs::write(data.path().join("area.csv"), areas).unwrap();
    let kinds = ["slime", "ghost", "golem", "dragon"];
    let mut monsters = String::with_capacity(40_000_000);
    monsters.push_str("id,name,kind,hp,area_id\n");
    for id in 1..=1_000_000u64 {
        let area = id % 10 + 1;
        writeln!(
            monsters,
            "{id},{}のモンスター{id},{},{},{area}",
            AREAS[(area - 1) as usize],
            kinds[(id % 4) as usize],
            (id * 7919 + id / 7) % 10_000
        )
        .unwrap();
    }
    std::fs::write(data.path().join("monster.csv"), monsters).unwrap();
    ok(masterctl(
        root,
        &["import", "--region", "jp", data.path().to_str().unwrap()],
    ));
    repo
}

#[test]
fn a_planner_browses_a_million_rows_in_a_real_browser() {
    let Some(root) = browser() else {
        return;
    };
    let game = million_monsters();
    let port = free_port();
    let _console = serve(game.path(), port, None);
    let out = screenshots("console-screenshots-million");
    walked(
        node("million.mjs", &root, port, &out),
        "the walk of a million rows",
        &out,
    );
}

/// SHA-256 of `text` in hex (a users file keeps tokens so).
fn sha256(text: &str) -> String {
    let out = masterctl_testing::fed(&mut Command::new("sha256sum"), text.as_bytes());
    String::from_utf8_lossy(&out.stdout)[..64].to_string()
}

/// The steel sword's description as the planner types it: Arabic first (the cell reads
/// right to left), then Chinese and Japanese.
const WORLD: &str = "سيف فولاذي · 钢之剑 · よく鍛えられた剣";

/// The build's target folder (CARGO_TARGET_DIR, or `target/` of the workspace).
fn target_dir() -> std::path::PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => crate::common::root().join("target"),
    }
}
