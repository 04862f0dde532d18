//! Builds and stores for the delivery tests: a build here is a folder of client-export
//! files (checked by their hash alone, as a fetch checks them) and its manifest, made in
//! a moment, and a store is a folder.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use masterctl_delivery::{FetchOptions, PublishOptions, Remote, RemoteOptions};
use masterctl_runtime::{FORMAT_VERSION, FileEntry, FileKind, MANIFEST, Manifest};

pub fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// A release id: 40 hexadecimal digits made from `n`.
pub fn commit(n: u32) -> String {
    format!("{n:040x}")
}

/// An entry of a manifest for `bytes` at `path`.
pub fn entry(path: &str, bytes: &[u8]) -> FileEntry {
    FileEntry {
        path: path.to_string(),
        kind: FileKind::Client,
        name: path.rsplit('/').next().unwrap_or(path).replace('.', "_"),
        language: None,
        table: None,
        blake3: hash(bytes),
        size: bytes.len() as u64,
        rows: 0,
    }
}

pub fn manifest(release: &str, files: Vec<FileEntry>) -> Manifest {
    Manifest {
        format: FORMAT_VERSION,
        region: "jp".to_string(),
        source_commit: release.to_string(),
        schema_hash: "0".repeat(64),
        languages: vec!["ja".to_string()],
        files,
        fallbacks: Vec::new(),
        timezone: None,
        audience: None,
        seen_by: Vec::new(),
    }
}

/// A build in `dir` of release `release` holding `files`.
pub fn build(dir: &Path, release: &str, files: &[(&str, &[u8])]) -> Manifest {
    std::fs::create_dir_all(dir).unwrap();
    let mut entries = Vec::new();
    for (path, bytes) in files {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, bytes).unwrap();
        entries.push(entry(path, bytes));
    }
    let manifest = manifest(release, entries);
    std::fs::write(dir.join(MANIFEST), manifest.to_bytes()).unwrap();
    manifest
}

/// A folder store in a temporary folder.
pub struct Store {
    pub root: tempfile::TempDir,
    pub remote: Remote,
}

impl Store {
    pub fn new() -> Store {
        let root = tempfile::tempdir().unwrap();
        let url = format!("file://{}", root.path().display());
        let remote = Remote::open(&url, &RemoteOptions::default()).unwrap();
        Store { root, remote }
    }

    pub fn path(&self, key: &str) -> PathBuf {
        self.root.path().join(key)
    }
}

/// `work` on the tests' one runtime (a store's pooled connections belong to the runtime
/// that opened them).
pub fn block_on<T>(work: impl std::future::Future<Output = T>) -> T {
    static RUNTIME: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RUNTIME
        .get_or_init(|| masterctl_delivery::runtime().unwrap())
        .block_on(work)
}

pub fn publish(
    remote: &Remote,
    dir: &Path,
    repair: bool,
) -> Result<masterctl_delivery::Published, masterctl_delivery::DeliveryError> {
    let options = PublishOptions {
        force: true,
        repair,
        ..PublishOptions::default()
    };
    block_on(masterctl_delivery::publish(
        remote,
        dir,
        &options,
        &|_, _| {},
    ))
}

pub fn fetch_options(cache: &Path) -> FetchOptions {
    FetchOptions {
        region: "jp".to_string(),
        languages: None,
        release: None,
        cache: Some(cache.to_path_buf()),
        concurrency: Some(8),
        verify: false,
        trusted: Vec::new(),
        signed_state: None,
    }
}

pub fn fetch(
    remote: &Remote,
    out: &Path,
    cache: &Path,
) -> Result<masterctl_delivery::Fetched, masterctl_delivery::DeliveryError> {
    block_on(masterctl_delivery::fetch(
        remote,
        out,
        &fetch_options(cache),
        &|_, _| {},
    ))
}

/// A release written straight into a folder store, as a hostile publisher could: its
/// objects (`plain`), its record naming `files` (in format 1, as older versions wrote
/// records: holding the manifest), and the pointer to it.
pub fn forge(store: &Store, release: &str, files: Vec<FileEntry>, plain: &[&[u8]]) {
    use masterctl_delivery::layout::{self, LAYOUT_VERSION, Pointer, Published, Release};
    for bytes in plain {
        let path = store.path(&layout::object_key(&hash(bytes)));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        if !path.exists() {
            std::fs::write(path, bytes).unwrap();
        }
    }
    let manifest = manifest(release, files);
    // A build of client files: its release id is the commit's client build's.
    let release = &layout::release_id(&manifest);
    let bytes = manifest.to_bytes();
    // The manifest object too, as a publish stores it (a fetch of the current release
    // reads it).
    let path = store.path(&layout::object_key(&hash(&bytes)));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, &bytes).unwrap();
    let record = Release {
        masterctl_release: LAYOUT_VERSION,
        region: "jp".to_string(),
        release: release.to_string(),
        manifest_blake3: hash(&bytes),
        manifest_size: bytes.len() as u64,
        manifest: Some(manifest),
        build: None,
        published: Published {
            time: layout::now(),
            tool: "forger".to_string(),
            by: None,
            message: None,
        },
        versions: Vec::new(),
    };
    let path = store.path(&layout::release_key("jp", release));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_vec(&record).unwrap()).unwrap();
    let pointer = Pointer {
        masterctl_pointer: LAYOUT_VERSION,
        region: "jp".to_string(),
        release: release.to_string(),
        manifest_blake3: hash(&bytes),
        time: layout::now(),
        by: None,
        reason: None,
        sequence: None,
    };
    let path = store.path(&layout::pointer_key("jp"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_vec(&pointer).unwrap()).unwrap();
}

/// Release `n` built in `root/build<n>`: an item table all share and a shop of its own.
pub fn build_release(root: &Path, n: u32) -> PathBuf {
    let dir = root.join(format!("build{n}"));
    let shop = format!("shop v{n}");
    build(
        &dir,
        &commit(n),
        &[("item.bin", b"item table"), ("shop.bin", shop.as_bytes())],
    );
    dir
}
