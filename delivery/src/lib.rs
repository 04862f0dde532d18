//! Publishing builds and fetching them back: the last mile from CI to game servers.
//!
//! A store (an S3 bucket and prefix, a local folder, or plain HTTP(S) in front of either,
//! for reading) holds three kinds of objects ([`layout`]):
//!
//! ```text
//! objects/<blake3>                   immutable content, uploaded only when missing (zstd when
//!                                    it saves bytes; the name is the hash of the plain bytes)
//! releases/<region>/<release>.json   a build's manifest and its publish record
//! regions/<region>/current.json      the pointer to the current release, written last
//! ```
//!
//! [`publish`] writes objects, then the release, then the pointer, so a reader never
//! sees half a release; [`fetch`] reads the pointer, downloads only the objects its cache
//! lacks, verifies every one, and swaps the assembled build into place. Everything here is
//! async (object_store's requests); the library never prints.

mod ahead;
mod arriving;
mod bounded;
mod cache;
mod causes;
pub mod fetch;
pub mod fleet;
mod holder;
pub mod keeping;

pub mod layout;
pub mod lease;
pub mod manage;
mod manifests;
mod object;
mod prefetch;
pub mod publish;
pub mod remote;
pub mod signing;
pub mod status;
pub mod transport;
pub mod watch;

use std::path::PathBuf;

pub use fetch::{FetchOptions, Fetched, fetch};
pub use layout::short_release;
pub use manage::{
    Collected, MadeCurrent, Moving, ReleaseInfo, RolledBack, gc, releases, releases_and_fleet,
    resolve_release, rollback,
};
pub use manifests::release_manifest;
pub use publish::{PublishOptions, Published, publish};
pub use remote::{Remote, RemoteOptions};

/// What went wrong, with the store (as shown: never a credential) and the object.
#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    /// A URL that names no store.
    #[error("`{url}` is not a store URL: {why}")]
    Url { url: String, why: String },
    /// The store cannot be reached (no server, a refused connection, a timeout).
    #[error("{store} cannot be reached: {message}")]
    Unreachable { store: String, message: String },
    /// The store's certificate is not one this machine trusts (signed by an authority it
    /// does not know, expired, made for another name).
    #[error("{store} is not trusted: its certificate was refused ({message})")]
    Untrusted { store: String, message: String },
    /// The store refused the credentials, or the bucket does not exist.
    #[error("{store} refused the request: {message}")]
    Refused { store: String, message: String },
    /// The bucket the URL names does not exist.
    #[error("{store}: the bucket does not exist")]
    NoBucket { store: String },
    /// The store answered with a failure that is neither of those.
    #[error("{store} failed: {message}")]
    Failed { store: String, message: String },
    /// Something the store should hold is not there.
    #[error("{store} has no {what}")]
    Missing { store: String, what: String },
    /// A release (or a region's current one) the store does not have.
    #[error("{store} has no {what}")]
    NoRelease { store: String, what: String },
    /// An object whose bytes are not the content its name promises.
    #[error("object {hash} on {store} is damaged: {why}")]
    Corrupt {
        store: String,
        hash: String,
        why: String,
    },
    /// An object larger than what names it says (or than such a record may be).
    #[error("{store}: {key} is larger than the {limit} bytes it may have; nothing more was read")]
    TooLarge {
        store: String,
        key: String,
        limit: u64,
    },
    /// A pointer or release file that masterctl did not write.
    #[error("{store}: {key} is not what masterctl writes: {why}")]
    Foreign {
        store: String,
        key: String,
        why: String,
    },
    /// Another publisher moved the pointer between this one's read and write.
    #[error(
        "another publisher moved the current release of {region} while this one published {release}; \
         nothing was lost: the objects and the release are on the store. Publish again to make it current"
    )]
    Raced { region: String, release: String },
    /// Another process is changing the store in a way this one must not overlap.
    #[error("{store}: {doing} is in progress; nothing was changed: run this again when it is done")]
    Busy { store: String, doing: String },
    /// Moving the pointer to a release published before the current one.
    #[error(
        "release {release} of {region} was published before the current one ({current}); \
         nothing was moved"
    )]
    Backwards {
        region: String,
        release: String,
        current: String,
    },
    /// A release id that is already published from a different build.
    #[error(
        "release {release} of {region} is already on the store from a different build \
         (manifest {theirs}, this build's {ours}): a release is one build of its commit, \
         made the same way: rebuild it as it was published, or publish the build of a new \
         commit"
    )]
    Different {
        region: String,
        release: String,
        ours: String,
        theirs: String,
    },
    /// Writing to a store that is read only (HTTP).
    #[error("{store} is read-only: publish to an s3:// or file:// URL")]
    ReadOnly { store: String },
    /// The local build is not whole.
    #[error("{path}: {why}")]
    Build { path: PathBuf, why: String },
    /// A local build that does not load (its manifest, or a file it names).
    #[error("{0}")]
    Unloadable(masterctl_runtime::LoadError),
    /// The output folder holds something that is not a build.
    #[error(
        "{0} exists and is not a build (no masterctl manifest.json): fetch replaces only a build or an empty folder"
    )]
    NotABuild(PathBuf),
    /// The output folder is a symbolic link.
    #[error(
        "{0} is a symbolic link: a build folder is replaced whole and a link is never followed; name the folder itself"
    )]
    OutIsLink(PathBuf),
    /// A language the release does not have.
    #[error("release {release} has no language `{language}`; it has {languages}")]
    UnknownLanguage {
        release: String,
        language: String,
        languages: String,
    },
    /// A release prefix that several releases start with.
    #[error("release `{named}` is ambiguous: it starts {}; give more of it", candidates.join(", "))]
    Ambiguous {
        named: String,
        candidates: Vec<String>,
    },
    /// A release without a signature, fetched by one who trusts only signed releases.
    #[error(
        "{store}: release {release} of {region} is not signed, and only releases signed by a trusted key are taken"
    )]
    Unsigned {
        store: String,
        region: String,
        release: String,
    },
    /// A release whose signature is refused: by a key not trusted, not over this
    /// release, or stating another.
    #[error("{store}: release {release} of {region} is refused: {why}")]
    BadSignature {
        store: String,
        region: String,
        release: String,
        why: String,
    },
    /// A signed release signed before the one the build runs: a replay.
    #[error(
        "release {release} of {region} was signed as number {sequence}, before the release this build runs ({running}, number {running_sequence}): \
         a release signed earlier is refused (a rollback signs its release anew); nothing was changed"
    )]
    Replayed {
        region: String,
        release: String,
        sequence: u64,
        running: String,
        running_sequence: u64,
    },
    /// A signing key that cannot be read or used.
    #[error("{0}")]
    Key(String),
    /// A name that cannot be part of a store key.
    #[error("`{0}` is not a region or release name")]
    BadName(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What a build folder keeps beside it: `.NAME<suffix>` in its parent folder (its cache
/// `.cache`, what it runs `.signed.json`, a watcher's status `.status.json`).
pub(crate) fn beside(out: &std::path::Path, suffix: &str) -> PathBuf {
    let name =
        (out.file_name()).map_or_else(|| "build".into(), |n| n.to_string_lossy().into_owned());
    masterctl_runtime::files::parent_of(out).join(format!(".{name}{suffix}"))
}

impl DeliveryError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> DeliveryError {
        let path = path.into();
        move |source| DeliveryError::Io { path, source }
    }
}

/// A runtime that runs everything on the thread that blocks on it (work that blocks
/// still goes to threads of its own), for a caller that is not async itself and does
/// one operation at a time: the command line. Responses arrive on the thread that
/// waits for them, and no thread is woken to hand them over (a fetch of 1,500 objects
/// over one HTTP/2 connection woke the waiting thread for nearly every one).
pub fn runtime_on_this_thread() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// A runtime for the operations here with a few workers, timers and I/O on, for callers
/// that are not async themselves and run several operations at once (tests, examples).
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
}

/// Progress of long work: `(done, total)` objects.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// Objects moved at once unless asked otherwise: a store answers each request after a
/// round trip, and many small objects are fastest with many in flight. A publish's
/// uploads; a fetch takes as many over HTTP/1.1 and from a folder, and more streams over
/// HTTP/2 ([`transport::Protocol::concurrency`]).
pub const CONCURRENCY: usize = transport::CONNECTIONS;

pub(crate) use bounded::bounded;

#[cfg(test)]
mod tests {
    /// Every operation may be awaited on any thread of a multi-threaded runtime (a
    /// console's, a game server's): were one's future not `Send`, this would not compile.
    #[allow(dead_code)]
    fn operations_are_send(
        remote: &crate::Remote,
        path: &std::path::Path,
        fetching: &crate::FetchOptions,
        progress: crate::Progress<'_>,
    ) {
        fn send<T: Send>(_: T) {}
        send(crate::releases(remote, None));
        send(crate::rollback(
            remote,
            "jp",
            "0123456",
            &crate::Moving::default(),
        ));
        send(crate::resolve_release(remote, "jp", "0123456"));
        send(crate::gc(remote, 1, 0, true, progress));
        send(crate::publish(
            remote,
            path,
            &crate::PublishOptions::default(),
            progress,
        ));
        send(crate::fetch(remote, path, fetching, progress));
        send(crate::fetch::fetch_opened(remote, path, fetching, progress));
    }

    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

    use futures::StreamExt;

    #[test]
    fn bounded_work_keeps_to_its_count_and_its_bytes() {
        const MB: u64 = 1 << 20;
        // Many small items, then large ones that only fit in memory a few at a time, and
        // one larger than the whole budget (it runs alone).
        let mut sizes = vec![10_000; 200];
        sizes.extend([100 * MB; 6]);
        sizes.push(1024 * MB);
        let (running, bytes) = (AtomicUsize::new(0), AtomicU64::new(0));
        let (most_running, most_bytes) = (AtomicUsize::new(0), AtomicU64::new(0));
        let done = crate::runtime().unwrap().block_on(async {
            crate::bounded(
                sizes.clone(),
                8,
                |size| *size,
                |size| {
                    let (running, bytes) = (&running, &bytes);
                    let (most_running, most_bytes) = (&most_running, &most_bytes);
                    async move {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most_running.fetch_max(now, Ordering::SeqCst);
                        let held = bytes
                            .fetch_add(size.min(crate::bounded::IN_FLIGHT_BYTES), Ordering::SeqCst);
                        most_bytes.fetch_max(
                            held + size.min(crate::bounded::IN_FLIGHT_BYTES),
                            Ordering::SeqCst,
                        );
                        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                        bytes
                            .fetch_sub(size.min(crate::bounded::IN_FLIGHT_BYTES), Ordering::SeqCst);
                        running.fetch_sub(1, Ordering::SeqCst);
                        size
                    }
                },
            )
            .collect::<Vec<u64>>()
            .await
        });
        assert_eq!(done.len(), sizes.len(), "every item ran");
        assert_eq!(most_running.load(Ordering::SeqCst), 8);
        assert!(most_bytes.load(Ordering::SeqCst) <= crate::bounded::IN_FLIGHT_BYTES);
    }
}
