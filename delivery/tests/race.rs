//! Publishers, rollbacks and gc racing on one store, for a bounded time, against a
//! folder (`file://`) and a real S3 server (s3s-fs, served by the test's process:
//! `masterctl_testing::servers::S3`): whatever the interleaving, no release on the
//! store names an object that is gone, the pointer names a release that is there, and
//! the current release fetches whole. Then, on the same S3 server (the one binary that
//! sets its credentials), signed releases as the suite checks them in a folder
//! (`signed_scenario.rs`).

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

mod common;
mod signed_scenario;

use std::time::{Duration, Instant};

use common::*;
use masterctl_delivery::{DeliveryError, Remote, RemoteOptions, layout};
use masterctl_testing::servers;

/// How long each store is raced.
const RACE: Duration = Duration::from_secs(6);

/// Builds sharing objects with their neighbours (`v{i}` holds `f{j}` = `(i + j) / 3`),
/// so that a publish finds old objects present and gc finds some unreferenced.
fn builds(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    (0..6u32)
        .map(|i| {
            let dir = root.join(format!("v{i}"));
            let files: Vec<(String, Vec<u8>)> = (0..12u32)
                .map(|j| {
                    (
                        format!("f{j}.bin"),
                        format!("{j}:{}", (i + j) / 3).into_bytes(),
                    )
                })
                .collect();
            let files: Vec<(&str, &[u8])> = files
                .iter()
                .map(|(p, b)| (p.as_str(), b.as_slice()))
                .collect();
            build(&dir, &commit(i + 1), &files);
            dir
        })
        .collect()
}

/// A cheap random number for picking what to do next.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn seed(n: u64) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.subsec_nanos() as u64);
    (nanos | 1).wrapping_mul(n + 7)
}

/// Race on `remote`, then check what the store holds.
fn race(remote: &Remote) {
    let root = tempfile::tempdir().unwrap();
    let builds = builds(root.path());
    publish(remote, &builds[0], false).unwrap();
    let deadline = Instant::now() + RACE;
    let mut done = [0usize; 3];
    std::thread::scope(|scope| {
        let publishers: Vec<_> = (0..2u64)
            .map(|n| {
                let builds = &builds;
                scope.spawn(move || {
                    let (mut state, mut count) = (seed(n), 0);
                    while Instant::now() < deadline {
                        let build = &builds[next(&mut state) as usize % builds.len()];
                        match publish(remote, build, false) {
                            Ok(_) => count += 1,
                            Err(DeliveryError::Raced { .. } | DeliveryError::Busy { .. }) => {}
                            Err(e) => panic!("publish: {e}"),
                        }
                    }
                    count
                })
            })
            .collect();
        let rollback = scope.spawn(|| {
            let (mut state, mut count) = (seed(9), 0);
            while Instant::now() < deadline {
                let releases =
                    block_on(masterctl_delivery::releases(remote, Some("jp"))).unwrap_or_default();
                if releases.is_empty() {
                    continue;
                }
                let release = &releases[next(&mut state) as usize % releases.len()].release;
                match block_on(masterctl_delivery::rollback(
                    remote,
                    "jp",
                    release,
                    &Default::default(),
                )) {
                    Ok(_) => count += 1,
                    // Deleted by gc since it was listed, or the pointer moved meanwhile.
                    Err(
                        DeliveryError::Missing { .. }
                        | DeliveryError::NoRelease { .. }
                        | DeliveryError::Raced { .. }
                        | DeliveryError::Busy { .. },
                    ) => {}
                    Err(e) => panic!("rollback to {release}: {e}"),
                }
            }
            count
        });
        let gc = scope.spawn(|| {
            let (mut state, mut count) = (seed(5), 0);
            while Instant::now() < deadline {
                match block_on(masterctl_delivery::gc(remote, 2, 0, false, &|_, _| {})) {
                    Ok(_) => count += 1,
                    Err(DeliveryError::Busy { .. }) => {}
                    Err(e) => panic!("gc: {e}"),
                }
                // A collection now and then, as a store sees them, the writers between.
                std::thread::sleep(Duration::from_millis(60 + next(&mut state) % 60));
            }
            count
        });
        done[0] = publishers.into_iter().map(|p| p.join().unwrap()).sum();
        done[1] = rollback.join().unwrap();
        done[2] = gc.join().unwrap();
    });
    eprintln!(
        "raced {}: {} publishes, {} rollbacks, {} collections",
        remote.shown(),
        done[0],
        done[1],
        done[2]
    );
    // Publishes and collections interleaved (rollbacks most often do too; a slow
    // machine may give them no turn, which proves less but nothing wrong).
    assert!(
        done[0] > 0 && done[2] > 0,
        "both sides got through: {done:?}"
    );
    check_whole(remote, root.path());
}

/// Every release on the store names only objects that are there; the pointer names one
/// of them; the current release fetches whole.
fn check_whole(remote: &Remote, root: &std::path::Path) {
    let releases = block_on(masterctl_delivery::releases(remote, None)).unwrap();
    let mut current = 0;
    for info in &releases {
        current += usize::from(info.current);
        let key = layout::release_key(&info.region, &info.release);
        let bytes = block_on(remote.get(&key, layout::RELEASE_LIMIT))
            .unwrap()
            .unwrap();
        let release = layout::Release::parse(&bytes, &key, remote.shown(), "jp").unwrap();
        let (manifest, _) =
            block_on(masterctl_delivery::release_manifest(remote, "jp", &release)).unwrap();
        let mut hashes: Vec<&String> = manifest.files.iter().map(|f| &f.blake3).collect();
        hashes.push(&release.manifest_blake3);
        for hash in hashes {
            assert!(
                block_on(remote.exists(&layout::object_key(hash))).unwrap(),
                "release {} names object {hash}, which is gone",
                info.release
            );
        }
    }
    assert_eq!(current, 1, "the pointer names a release on the store");
    fetch(remote, &root.join("fetched"), &root.join("cache")).unwrap();
}

#[test]
fn publish_rollback_and_gc_racing_never_lose_an_object() {
    let folder = Store::new();
    race(&folder.remote);

    // This test binary's only test: the environment is its own.
    // SAFETY: no other thread of this process reads the environment now (the S3 server's
    // threads start after).
    unsafe {
        std::env::set_var("AWS_ACCESS_KEY_ID", servers::ACCESS_KEY);
        std::env::set_var("AWS_SECRET_ACCESS_KEY", servers::SECRET_KEY);
        std::env::set_var("AWS_REGION", "us-east-1");
    }
    let s3 = servers::S3::start();
    let options = RemoteOptions {
        endpoint: Some(format!("http://127.0.0.1:{}", s3.port)),
        ..RemoteOptions::default()
    };
    std::fs::create_dir_all(s3.root.path().join("masters")).unwrap();
    let remote = Remote::open("s3://masters/race", &options).unwrap();
    race(&remote);

    // s3s-fs keeps each object as a file under its bucket's folder: what a hostile
    // writer of the bucket changes, the scenario changes there.
    let signed = Remote::open("s3://masters/signed", &options).unwrap();
    let root = tempfile::tempdir().unwrap();
    let files = s3.root.path().join("masters/signed");
    signed_scenario::scenario(&signed, &files, root.path());
}
