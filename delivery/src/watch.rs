//! Hot reload for servers: poll a region's pointer cheaply, fetch a new release in the
//! background into a directory of its own, and hand over a freshly opened [`Masters`].
//!
//! ```no_run
//! # async fn serve() -> Result<(), masterctl_delivery::DeliveryError> {
//! use std::sync::{Arc, RwLock};
//! use masterctl_delivery::{Remote, RemoteOptions, watch::Watch};
//!
//! let remote = Remote::open("https://cdn.example.com/live", &RemoteOptions::default())?;
//! let mut watch = Watch::new(remote, "global", "/srv/masters");
//! let first = watch.poll().await?.expect("a release is published");
//! let current = RwLock::new(Arc::new(first));
//! loop {
//!     tokio::time::sleep(std::time::Duration::from_secs(30)).await;
//!     if let Some(next) = watch.poll().await? {
//!         // Lookups in flight keep the Arc they cloned; the old release's folder is
//!         // removed when the last of them is done.
//!         *current.write().unwrap() = Arc::new(next);
//!     }
//! }
//! # }
//! ```

use std::path::{Path, PathBuf};

use masterctl_runtime::Masters;

use crate::fetch::{FetchOptions, fetch_opened};
use crate::remote::Remote;
use crate::{DeliveryError, layout};

/// A region's pointer, watched.
pub struct Watch {
    remote: Remote,
    region: String,
    dir: PathBuf,
    /// Only these languages (`None`: all).
    pub languages: Option<Vec<String>>,
    /// Take only releases signed by one of these keys, never one signed before the last
    /// one taken (kept in `dir/.signed.json`). Empty: signatures are not asked for.
    pub trusted: Vec<masterctl_runtime::signature::TrustedKey>,
    /// The pointer's ETag and release when last read.
    seen: Option<(Option<String>, String)>,
}

/// A release fetched and opened; its folder is removed when this is dropped (when the
/// last user of the release lets go of it).
pub struct Loaded {
    pub release: String,
    pub masters: Masters,
    dir: PathBuf,
}

impl Loaded {
    /// The folder the release was fetched into.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Watch {
    /// Watch `region` on `remote`; releases are fetched into `dir/<release>`, with the
    /// objects cached in `dir/.cache`.
    pub fn new(remote: Remote, region: &str, dir: impl Into<PathBuf>) -> Watch {
        Watch {
            remote,
            region: region.to_string(),
            dir: dir.into(),
            languages: None,
            trusted: Vec::new(),
            seen: None,
        }
    }

    /// Read the pointer (a conditional GET when it was read before); when it names a
    /// release other than the last one handed over, fetch that release and open it.
    /// `None`: nothing new.
    pub async fn poll(&mut self) -> Result<Option<Loaded>, DeliveryError> {
        layout::check_region(&self.region)?;
        let key = layout::pointer_key(&self.region);
        let known = self.seen.as_ref().and_then(|(etag, _)| etag.clone());
        let read = match self
            .remote
            .get_if_changed(&key, known.as_deref(), layout::POINTER_LIMIT)
            .await?
        {
            None => {
                return Err(DeliveryError::NoRelease {
                    store: self.remote.shown().to_string(),
                    what: format!("release of region {} ({key})", self.region),
                });
            }
            Some(None) => return Ok(None),
            Some(Some(read)) => read,
        };
        let pointer = layout::Pointer::parse(&read.bytes, &key, self.remote.shown(), &self.region)?;
        if self
            .seen
            .as_ref()
            .is_some_and(|(_, release)| *release == pointer.release)
        {
            self.seen = Some((read.version.e_tag, pointer.release));
            return Ok(None);
        }
        let dir = self.dir.join(&pointer.release);
        let options = FetchOptions {
            region: self.region.clone(),
            languages: self.languages.clone(),
            release: Some(pointer.release.clone()),
            cache: Some(self.dir.join(".cache")),
            concurrency: None,
            // The build is opened, every file hashed, before it is handed over.
            verify: false,
            trusted: self.trusted.clone(),
            // One for the watcher: each release has a folder of its own.
            signed_state: Some(self.dir.join(".signed.json")),
        };
        let (_, masters) = fetch_opened(&self.remote, &dir, &options, &|_, _| {}).await?;
        self.seen = Some((read.version.e_tag, pointer.release.clone()));
        Ok(Some(Loaded {
            release: pointer.release,
            masters,
            dir,
        }))
    }
}
