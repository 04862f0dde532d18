//! The console in a real browser: Debian's chromium driven by playwright-core (from
//! npm; nothing downloads a browser) through a planner's journey — upload a workbook
//! with a mistake, see the diagnostics and the bad cell in its sheet, upload the fixed one, review, import, find it in
//! the history, blame the cell. Screenshots of each step are kept in
//! `target/console-screenshots/` (an artifact to look at).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

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

/// The console of `repo` on a free port, stopped on drop.
struct Serving(std::process::Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(repo: &Path, port: u16) -> Serving {
    let child = Command::new(env!("CARGO_BIN_EXE_masterctl"))
        .current_dir(repo)
        .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
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
    let Some(root) = playwright_root() else {
        return;
    };
    if !present("/usr/bin/chromium", "chromium") {
        return;
    }
    let game = sample_game();
    let repo = game.path();
    // The planner's edit of the current masters (as export writes them), and the same
    // with a mistake in it.
    let edits = tempfile::tempdir().unwrap();
    ok(masterctl(
        repo,
        &[
            "export",
            "--region",
            "jp",
            "--format",
            "csv",
            "--out",
            edits.path().to_str().unwrap(),
        ],
    ));
    let items = std::fs::read_to_string(edits.path().join("Item.csv")).unwrap();
    let row = "2,鋼の剣,よく鍛えられた剣,1,rare,1200,";
    assert!(items.contains(row), "{items}");
    let fixed = edits.path().join("fixed");
    let broken = edits.path().join("broken");
    for (dir, price) in [(&fixed, "1500"), (&broken, "abc")] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("Item.csv"),
            items.replacen(
                row,
                &format!("2,鋼の剣,よく鍛えられた剣,1,rare,{price},"),
                1,
            ),
        )
        .unwrap();
    }
    let port = free_port();
    let _console = serve(repo, port);
    let out = target_dir().join("console-screenshots");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let run = Command::new("node")
        .arg(common::root().join("cli/tests/browser/journey.mjs"))
        .env("NODE_ROOT", &root)
        .env("BASE", format!("http://127.0.0.1:{port}"))
        .env("OUT", &out)
        .env("BROKEN", broken.join("Item.csv"))
        .env("FIXED", fixed.join("Item.csv"))
        .output()
        .expect("node runs");
    assert!(
        run.status.success(),
        "the journey failed (screenshots in {}):\n{}\n{}",
        out.display(),
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let shots = std::fs::read_dir(&out).unwrap().count();
    assert!(shots >= 7, "{shots} screenshots");
    // The import is on the branch, by the planner at this machine.
    let log = git(repo, &["log", "-1", "--format=%an %s", "masters/jp"]);
    assert_eq!(log.trim(), "Test Planner Steel sword 1500 (browser)");
}

/// The build's target folder (CARGO_TARGET_DIR, or `target/` of the workspace).
fn target_dir() -> std::path::PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => common::root().join("target"),
    }
}
