//! Fetching from an HTTPS store: HTTP/2 where the server offers it (one connection, many
//! streams; a server that allows only two streams at once is waited for, not
//! overrun), HTTP/1.1 where it does not (a bounded pool of connections); large objects
//! whole either way. The server is nginx in front of a folder store.

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

mod common;

use common::*;
use masterctl_delivery::transport::Protocol;
use masterctl_delivery::{FetchOptions, Remote, RemoteOptions};
use masterctl_testing::servers;

/// Small objects: more than the streams a connection allows at once.
const SMALL: usize = 300;

#[test]
fn https_fetches_speak_http2_where_offered_and_http1_where_not() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let build_dir = root.path().join("build");
    let files = build_files();
    let named: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();
    build(&build_dir, &commit(1), &named);
    publish(&store.remote, &build_dir, false).unwrap();

    let Some(server) = servers::StaticTls::start(store.root.path()) else {
        return;
    };
    // This test binary's only test: the environment is its own.
    // SAFETY: no other thread of this process reads the environment now.
    unsafe { std::env::set_var("SSL_CERT_FILE", server.ca()) };

    for (port, protocol) in [
        (server.h2, Protocol::Http2),
        (server.h2_narrow, Protocol::Http2),
        (server.h1, Protocol::Http1),
    ] {
        let url = servers::StaticTls::url(port);
        let remote = Remote::open(&url, &RemoteOptions::default()).unwrap();
        let out = root.path().join(format!("out{port}"));
        let options = FetchOptions {
            concurrency: None,
            ..fetch_options(&root.path().join(format!("cache{port}")))
        };
        let fetched = block_on(masterctl_delivery::fetch(
            &remote,
            &out,
            &options,
            &|_, _| {},
        ))
        .unwrap_or_else(|e| panic!("{url}: {e}"));
        for (path, bytes) in &files {
            assert!(
                std::fs::read(out.join(path)).unwrap() == *bytes,
                "{url}: {path} arrived whole"
            );
        }
        assert_eq!(fetched.downloaded, SMALL + 1, "{url}");
        let traffic = fetched
            .transport
            .expect("a network store reports its traffic");
        assert_eq!(traffic.protocol, Some(protocol), "{url}");
        // The objects, the pointer and the manifest it names.
        assert_eq!(traffic.requests, SMALL + 3, "{url}");
        match protocol {
            Protocol::Http2 => assert_eq!(traffic.connections, 1, "{url}: one connection"),
            // As many as the requests in flight, kept and used again (a connection
            // handed back just after the next request set out may leave a spare one
            // opened): never one per object.
            Protocol::Http1 => assert!(
                (2..SMALL).contains(&traffic.connections),
                "{url}: connections kept, not one per object: {}",
                traffic.connections
            ),
        }
    }

    // A folder store reports none.
    let fetched = fetch(
        &store.remote,
        &root.path().join("from-folder"),
        &root.path().join("folder-cache"),
    )
    .unwrap();
    assert_eq!(fetched.transport, None);
}

/// The build's files: many small ones, and one of 24 MB that does not compress (it
/// moves on one stream, far past HTTP/2's default window of 64 KiB).
fn build_files() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = (0..SMALL)
        .map(|i| {
            (
                format!("t/{i}.bin"),
                format!("table {i}").repeat(40).into_bytes(),
            )
        })
        .collect();
    let mut large = vec![0; 24 << 20];
    blake3::Hasher::new()
        .update(b"large")
        .finalize_xof()
        .fill(&mut large);
    files.push(("large.bin".to_string(), large));
    files
}
