//! What the workspace's tests share, so that each is written once: where the repository
//! and its fixtures are, `git` run as a user would run it (tests prove interop with
//! git), and the servers and tools the tests start ([`servers`]: an S3 server, nginx in
//! front of a folder with TLS). A dev-dependency only.

// Test support panics on a broken environment, and says what it skips.
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub mod servers;
pub mod webhook;

pub use webhook::webhook;

/// The root of the repository (the workspace).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file and folder under `dir`, at any depth, sorted.
pub fn paths_under(dir: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            paths.push(path);
        }
    }
    paths.sort();
    paths
}

/// Every file under `dir`, at any depth, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = paths_under(dir);
    files.retain(|p| !p.is_dir());
    files
}

/// What `command` does given `input` on its standard input (its output captured).
pub fn fed(command: &mut Command, input: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// The text of the part `name` of the zip `bytes` (an xlsx or ODS workbook, a download).
pub fn zip_part(bytes: &[u8], name: &str) -> String {
    use std::io::Read;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut text = String::new();
    archive
        .by_name(name)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// `text` saved in UTF-16 with its byte order mark, as Excel saves “Unicode Text”
/// (`little_endian`), or big-endian.
pub fn utf16(text: &str, little_endian: bool) -> Vec<u8> {
    let mut bytes = match little_endian {
        true => vec![0xFF, 0xFE],
        false => vec![0xFE, 0xFF],
    };
    for unit in text.encode_utf16() {
        bytes.extend(match little_endian {
            true => unit.to_le_bytes(),
            false => unit.to_be_bytes(),
        });
    }
    bytes
}

/// The bundled fixtures: the sample game, broken variants, the worked examples' files.
pub fn fixtures() -> PathBuf {
    root().join("fixtures")
}

/// Files no test of ours wrote (`fixtures/third-party/README.md`: origin, licence).
pub fn third_party() -> PathBuf {
    root().join("fixtures/third-party")
}

/// The hunt project, a real game's masters.
pub fn hunt() -> PathBuf {
    third_party().join("hunt")
}

/// `git -C dir ARGS`, checked to succeed: what it printed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
