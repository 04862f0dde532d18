//! Servers the tests start and the tools they need: shared by the binary's tests and
//! the delivery crate's (`#[path]`), so both reach one S3 server the same way.
#![allow(dead_code)]

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const ACCESS_KEY: &str = "AKIDMASTERCTLTEST";
pub const SECRET_KEY: &str = "s3cr3t-Masterctl-Test-Key";

/// Whether the program `name` runs (`name --version`, or Go's `name version`). When it
/// does not: under CI (`CI` set) the test fails, saying how `.ci/run` installs it
/// (`install`); elsewhere the caller skips that part, with a note.
pub fn installed(name: &str, install: &str) -> bool {
    let found = ["--version", "version"].iter().any(|arg| {
        std::process::Command::new(name)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "{name} is not installed: .ci/run installs it ({install})"
        );
        eprintln!(
            "note: {name} is not installed; the part that needs it is skipped (.ci/run installs it)"
        );
    }
    found
}

/// s3s-fs on a free port of 127.0.0.1, with a bucket `masters`; stopped on drop.
pub struct S3 {
    child: Child,
    pub root: tempfile::TempDir,
    pub port: u16,
}

impl S3 {
    /// The server, or `None` (with a note) when s3s-fs is not installed and this is not
    /// CI.
    pub fn start() -> Option<S3> {
        if !installed(
            "s3s-fs",
            "cargo install s3s-fs@0.14.1 --features binary --locked",
        ) {
            return None;
        }
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("masters")).unwrap();
        let mut server = S3::spawn(root)?;
        server.wait_until_up();
        Some(server)
    }

    fn spawn(root: tempfile::TempDir) -> Option<S3> {
        let port = free_port();
        let child = Command::new("s3s-fs")
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
            .arg(root.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        Some(S3 { child, root, port })
    }

    fn wait_until_up(&mut self) {
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "s3s-fs did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stop the server (as if it crashed); `restart` brings it back on the same data.
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn restart(&mut self) {
        let child = Command::new("s3s-fs")
            .args(["--host", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
            .arg(self.root.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.child = child;
        self.wait_until_up();
    }
}

impl Drop for S3 {
    fn drop(&mut self) {
        self.stop();
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
