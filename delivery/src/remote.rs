//! A store named by a URL — `s3://bucket/prefix`, `file:///path`, `http(s)://host/path`
//! — and the few operations publishing and fetching need, with object_store's errors
//! turned into [`DeliveryError`]s that name the store and never a credential.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use object_store::aws::{AmazonS3Builder, S3ConditionalPut};
use object_store::http::HttpBuilder;
use object_store::local::LocalFileSystem;
use object_store::path::Path as Key;
use object_store::{
    BackoffConfig, ClientOptions, GetOptions, ObjectStore, ObjectStoreExt, PutMode, PutOptions,
    PutPayload, RetryConfig, UpdateVersion,
};

use crate::DeliveryError;
use crate::causes::{causes, refused_certificate};
use crate::transport::{Connector, Counters, Tally};

/// How a store is reached, besides its URL.
#[derive(Debug, Clone, Default)]
pub struct RemoteOptions {
    /// An S3-compatible endpoint (`http://127.0.0.1:9000`); else `AWS_ENDPOINT_URL` or
    /// the profile's `endpoint_url`; else AWS itself.
    pub endpoint: Option<String>,
    /// Attempts after a transient failure (a dropped connection, a 5xx, a throttle),
    /// with exponential backoff from 100 ms. Default 4.
    pub retries: Option<usize>,
}

/// How the pointer is replaced only if no one replaced it since it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Swap {
    /// The store honours `If-Match`/`If-None-Match` on a put (S3 and its kin).
    Conditional,
    /// A folder: a lock object created exclusively around the read-compare-write.
    Locked,
    /// Read only (HTTP).
    None,
}

/// A store, opened.
#[derive(Debug, Clone)]
pub struct Remote {
    store: Arc<dyn ObjectStore>,
    prefix: String,
    shown: String,
    swap: Swap,
    /// Credentials in use, scrubbed from every message that leaves this module.
    secrets: Vec<String>,
    /// The folder of a `file://` store.
    folder: Option<PathBuf>,
    /// Connections and responses of a network store's client.
    counters: Option<Arc<Counters>>,
}

/// An object found by listing.
#[derive(Debug, Clone)]
pub struct Listed {
    pub key: String,
    pub size: u64,
    /// Seconds since it was last written.
    pub age: u64,
}

/// A pointer as read: its bytes and the version a conditional write compares against.
pub struct Versioned {
    pub bytes: Bytes,
    pub version: UpdateVersion,
}

impl Remote {
    /// Open the store a URL names. Nothing is requested yet.
    pub fn open(url: &str, options: &RemoteOptions) -> Result<Remote, DeliveryError> {
        if url.len() > MAX_URL {
            return Err(DeliveryError::Url {
                url: shortened(url),
                why: too_long(url),
            });
        }
        let bad = |why: &str| DeliveryError::Url {
            url: url.to_string(),
            why: why.to_string(),
        };
        let retry = RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(5),
                base: 2.0,
            },
            max_retries: options.retries.unwrap_or(4),
            retry_timeout: Duration::from_secs(60),
        };
        let client = ClientOptions::new()
            .with_allow_http(true)
            .with_connect_timeout(Duration::from_secs(5))
            .with_timeout(Duration::from_secs(120));
        let counters = Arc::new(Counters::default());
        let connector = || Connector {
            counters: counters.clone(),
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(120),
        };
        if let Some(rest) = url.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(bad("it names no bucket (s3://bucket/prefix)"));
            }
            let credentials = Credentials::find();
            let mut builder = AmazonS3Builder::from_env()
                .with_bucket_name(bucket)
                .with_allow_http(true)
                .with_conditional_put(S3ConditionalPut::ETagMatch)
                .with_retry(retry)
                .with_client_options(client)
                .with_http_connector(connector());
            let mut secrets = Vec::new();
            if let Some((id, secret, token)) = &credentials.keys {
                builder = builder
                    .with_access_key_id(id)
                    .with_secret_access_key(secret);
                if let Some(token) = token {
                    builder = builder.with_token(token);
                    secrets.push(token.clone());
                }
                secrets.extend([id.clone(), secret.clone()]);
            }
            builder = builder.with_region(credentials.region.as_deref().unwrap_or("us-east-1"));
            // object_store reads these itself, and panics on some malformed ones.
            for name in [
                "AWS_ENDPOINT",
                "AWS_ENDPOINT_URL",
                "AWS_ENDPOINT_URL_S3",
                "AWS_ENDPOINT_URL_STS",
            ] {
                if let Ok(value) = std::env::var(name)
                    && !value.is_empty()
                {
                    let checked = check_http_url(&value).map_err(|why| DeliveryError::Url {
                        url: redact(&value),
                        why: format!("{name} {why}"),
                    })?;
                    secrets.extend(checked.secrets);
                }
            }
            let endpoint = options.endpoint.clone().or(credentials.endpoint);
            if let Some(endpoint) = &endpoint {
                let checked = check_http_url(endpoint).map_err(|why| DeliveryError::Url {
                    url: redact(endpoint),
                    why: format!("the S3 endpoint {why}"),
                })?;
                secrets.extend(checked.secrets);
                builder = builder.with_endpoint(endpoint);
            }
            // Also whatever the environment holds, should a message quote it.
            for name in [
                "AWS_ACCESS_KEY_ID",
                "AWS_SECRET_ACCESS_KEY",
                "AWS_SESSION_TOKEN",
            ] {
                if let Ok(value) = std::env::var(name) {
                    secrets.push(value);
                }
            }
            secrets.retain(|s| s.len() >= 4);
            let store = builder
                .build()
                .map_err(|e| bad(&scrub(&e.to_string(), &secrets)))?;
            let shown = match &endpoint {
                Some(endpoint) => format!("{url} (at {})", redact(endpoint).trim_end_matches('/')),
                None => url.to_string(),
            };
            return Ok(Remote {
                store: Arc::new(store),
                prefix: prefix.trim_matches('/').to_string(),
                shown,
                swap: Swap::Conditional,
                secrets,
                folder: None,
                counters: Some(counters),
            });
        }
        if let Some(path) = url.strip_prefix("file://") {
            if !path.starts_with('/') {
                return Err(bad(
                    "a file URL takes an absolute path (file:///srv/masters)",
                ));
            }
            let root = PathBuf::from(path);
            let (base, prefix) = folder_base(&root)?;
            // No automatic cleanup of emptied folders: with it, a delete that empties
            // `locks/write/` removes the folder while another process is creating its
            // lease there, and that create fails (seen racing publishers and gc).
            let store = LocalFileSystem::new_with_prefix(&base).map_err(|e| bad(&e.to_string()))?;
            return Ok(Remote {
                store: Arc::new(store),
                prefix,
                shown: url.to_string(),
                swap: Swap::Locked,
                secrets: Vec::new(),
                folder: Some(root),
                counters: None,
            });
        }
        if url.starts_with("http://") || url.starts_with("https://") {
            let checked = check_http_url(url).map_err(|why| DeliveryError::Url {
                url: redact(url),
                why: format!("it {why}"),
            })?;
            let store = HttpBuilder::new()
                .with_url(url.trim_end_matches('/'))
                .with_retry(retry)
                .with_client_options(client)
                .with_http_connector(connector())
                .build()
                .map_err(|e| DeliveryError::Url {
                    url: redact(url),
                    why: scrub(&e.to_string(), &checked.secrets),
                })?;
            return Ok(Remote {
                store: Arc::new(store),
                prefix: String::new(),
                shown: redact(url),
                swap: Swap::None,
                secrets: checked.secrets,
                folder: None,
                counters: Some(counters),
            });
        }
        Err(bad(
            "use s3://bucket/prefix, file:///path or http(s)://host/path",
        ))
    }

    /// The store as shown to people: its URL, never a credential.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The connections a network store's client opened and the responses it received so
    /// far; `None` for a folder.
    pub fn tally(&self) -> Option<Tally> {
        self.counters.as_ref().map(|counters| counters.tally())
    }

    /// Whether this store can be written (not HTTP).
    pub fn is_writable(&self) -> bool {
        self.swap != Swap::None
    }

    /// What a reader of the README needs to know of the pointer's guarantee here.
    pub fn swap_guarantee(&self) -> &'static str {
        match self.swap {
            Swap::Conditional => "compare-and-swap (conditional put)",
            Swap::Locked => "compare-and-swap under a lock object (one host's folder)",
            Swap::None => "read only",
        }
    }

    fn key(&self, key: &str) -> Key {
        if self.prefix.is_empty() {
            Key::from(key)
        } else {
            Key::from(format!("{}/{key}", self.prefix))
        }
    }

    /// An object's bytes, or `None` when it is not there; refused past `limit` bytes.
    pub async fn get(&self, key: &str, limit: u64) -> Result<Option<Bytes>, DeliveryError> {
        Ok(self.get_versioned(key, limit).await?.map(|v| v.bytes))
    }

    /// An object's bytes and version (for a conditional write), or `None`; refused past
    /// `limit` bytes.
    pub async fn get_versioned(
        &self,
        key: &str,
        limit: u64,
    ) -> Result<Option<Versioned>, DeliveryError> {
        Ok(self.get_if_changed(key, None, limit).await?.and_then(|c| c))
    }

    /// An object unless its ETag is still `known`: `None` when it is not there,
    /// `Some(None)` when it did not change (a conditional GET; a server that answers 200
    /// anyway is caught by comparing the ETag it sends), `Some(Some(read))` otherwise.
    ///
    /// Never more than `limit` bytes are taken: an object the store says is larger is
    /// refused before its body is read, and a body that runs past `limit` (a server
    /// that announced less, or nothing) is refused the moment it does.
    pub async fn get_if_changed(
        &self,
        key: &str,
        known: Option<&str>,
        limit: u64,
    ) -> Result<Option<Option<Versioned>>, DeliveryError> {
        self.read(key, known, limit, &mut |_| {}).await
    }

    /// [`Remote::get`], `seen` shown the body so far each time more of it arrives.
    pub async fn get_watched(
        &self,
        key: &str,
        limit: u64,
        seen: &mut (dyn FnMut(&[u8]) + Send),
    ) -> Result<Option<Bytes>, DeliveryError> {
        let read = self.read(key, None, limit, seen).await?;
        Ok(read.flatten().map(|v| v.bytes))
    }

    /// [`Remote::get_if_changed`], `seen` shown the body so far as it arrives.
    async fn read(
        &self,
        key: &str,
        known: Option<&str>,
        limit: u64,
        seen: &mut (dyn FnMut(&[u8]) + Send),
    ) -> Result<Option<Option<Versioned>>, DeliveryError> {
        use futures::TryStreamExt;
        let options = GetOptions {
            if_none_match: known.map(str::to_string),
            ..GetOptions::default()
        };
        let result = match self.store.get_opts(&self.key(key), options).await {
            Ok(result) => result,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(object_store::Error::NotModified { .. }) => return Ok(Some(None)),
            Err(e) => return Err(self.error(e)),
        };
        if known.is_some() && result.meta.e_tag.as_deref() == known {
            return Ok(Some(None));
        }
        let too_large = || DeliveryError::TooLarge {
            store: self.shown.clone(),
            key: key.to_string(),
            limit,
        };
        if result.meta.size > limit {
            return Err(too_large());
        }
        let version = UpdateVersion {
            e_tag: result.meta.e_tag.clone(),
            version: result.meta.version.clone(),
        };
        // The announced size sizes the buffer; what arrives is counted as it arrives.
        let mut body = Vec::with_capacity(usize::try_from(result.meta.size).unwrap_or(0));
        let mut stream = result.into_stream();
        while let Some(chunk) = stream.try_next().await.map_err(|e| self.error(e))? {
            if (body.len() + chunk.len()) as u64 > limit {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
            seen(&body);
        }
        Ok(Some(Some(Versioned {
            bytes: Bytes::from(body),
            version,
        })))
    }

    /// Whether an object is there (a HEAD request; no body moves).
    pub async fn exists(&self, key: &str) -> Result<bool, DeliveryError> {
        match self.store.head(&self.key(key)).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.error(e)),
        }
    }

    /// [`Remote::exists`] for a key the future owns (many at once).
    pub(crate) async fn exists_owned(&self, key: String) -> Result<bool, DeliveryError> {
        self.exists(&key).await
    }

    /// [`Remote::delete`] for a key the future owns (many at once).
    pub(crate) async fn delete_owned(&self, key: String) -> Result<(), DeliveryError> {
        self.delete(&key).await
    }

    /// Create an object that must not exist yet; `false` when it already did (its
    /// content is then left as it was).
    pub async fn create(&self, key: &str, bytes: Vec<u8>) -> Result<bool, DeliveryError> {
        self.writable()?;
        Ok(self.put_if(key, bytes, PutMode::Create).await?.is_some())
    }

    /// Write an object whatever is there (a lease rewritten; an object repaired with
    /// bytes verified to be its content).
    pub(crate) async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), DeliveryError> {
        self.writable()?;
        self.store
            .put_opts(
                &self.key(key),
                PutPayload::from(bytes),
                PutOptions::default(),
            )
            .await
            .map(drop)
            .map_err(|e| self.error(e))
    }

    /// A put under a condition (create-only, only over a version, or none): the version
    /// written, or `None` when the condition failed.
    async fn put_if(
        &self,
        key: &str,
        bytes: Vec<u8>,
        mode: PutMode,
    ) -> Result<Option<UpdateVersion>, DeliveryError> {
        let options = PutOptions {
            mode,
            ..PutOptions::default()
        };
        match self
            .store
            .put_opts(&self.key(key), PutPayload::from(bytes), options)
            .await
        {
            Ok(put) => Ok(Some(UpdateVersion {
                e_tag: put.e_tag,
                version: put.version,
            })),
            Err(object_store::Error::AlreadyExists { .. })
            | Err(object_store::Error::Precondition { .. }) => Ok(None),
            Err(e) => Err(self.error(e)),
        }
    }

    /// Whether an object is still the version `written` (a HEAD request: its ETag
    /// compared, no body moves). `false` when it changed, is gone, or the store gives no
    /// ETag to compare — a caller then reads the object itself.
    pub async fn still(&self, key: &str, written: &UpdateVersion) -> Result<bool, DeliveryError> {
        if written.e_tag.is_none() {
            return Ok(false);
        }
        match self.store.head(&self.key(key)).await {
            Ok(meta) => Ok(meta.e_tag == written.e_tag),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.error(e)),
        }
    }

    /// Replace an object only if it is still the version read (`None`: only if it still
    /// does not exist): the version written, or `None` when someone else wrote it in
    /// between.
    pub async fn swap(
        &self,
        key: &str,
        bytes: Vec<u8>,
        expected: Option<&UpdateVersion>,
    ) -> Result<Option<UpdateVersion>, DeliveryError> {
        self.writable()?;
        match self.swap {
            Swap::Conditional => {
                let mode = match expected {
                    Some(version) => PutMode::Update(version.clone()),
                    None => PutMode::Create,
                };
                self.put_if(key, bytes, mode).await
            }
            Swap::Locked => self.swap_locked(key, bytes, expected).await,
            Swap::None => Err(self.read_only()),
        }
    }

    /// A folder has no conditional put: a lock object, created exclusively, guards the
    /// read-compare-write. A lock left by a killed publisher is taken over: at once when
    /// it was a process of this machine (the lock names it), else once older than a
    /// minute.
    async fn swap_locked(
        &self,
        key: &str,
        bytes: Vec<u8>,
        expected: Option<&UpdateVersion>,
    ) -> Result<Option<UpdateVersion>, DeliveryError> {
        let lock = format!("{key}.lock");
        let mut waited = Duration::ZERO;
        let record = crate::holder::record_bytes("pointer", key);
        while !self.create(&lock, record.clone()).await? {
            let stale = match self.store.head(&self.key(&lock)).await {
                Ok(meta) => {
                    let age = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs())
                        .saturating_sub(u64::try_from(meta.last_modified.timestamp()).unwrap_or(0));
                    age > 60
                        || self
                            .get(&lock, 64 << 10)
                            .await
                            .ok()
                            .flatten()
                            .is_some_and(|held| crate::holder::holder_died(&held))
                }
                Err(object_store::Error::NotFound { .. }) => false,
                Err(e) => return Err(self.error(e)),
            };
            if stale {
                let _ = self.store.delete(&self.key(&lock)).await;
                continue;
            }
            if waited > Duration::from_secs(30) {
                return Err(DeliveryError::Busy {
                    store: self.shown.clone(),
                    doing: format!("a move of {key} (its lock {lock} is held)"),
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            waited += Duration::from_millis(50);
        }
        let result = async {
            let current = match self.store.head(&self.key(key)).await {
                Ok(meta) => Some(meta.e_tag),
                Err(object_store::Error::NotFound { .. }) => None,
                Err(e) => return Err(self.error(e)),
            };
            let unchanged = match (expected, current) {
                (None, None) => true,
                (Some(version), Some(e_tag)) => version.e_tag == e_tag,
                _ => false,
            };
            if !unchanged {
                return Ok(None);
            }
            self.put_if(key, bytes, PutMode::Overwrite).await
        }
        .await;
        let _ = self.store.delete(&self.key(&lock)).await;
        result
    }

    /// Objects under a prefix (keys relative to the store's own prefix), with their
    /// size and age. Listing needs `s3://` or `file://`.
    pub async fn list(&self, prefix: &str) -> Result<Vec<Listed>, DeliveryError> {
        use futures::TryStreamExt;
        self.writable()?;
        let base = self.key(prefix);
        let metas: Vec<object_store::ObjectMeta> = self
            .store
            .list(Some(&base))
            .try_collect()
            .await
            .map_err(|e| self.error(e))?;
        let strip = if self.prefix.is_empty() {
            String::new()
        } else {
            format!("{}/", self.prefix)
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Ok(metas
            .into_iter()
            .map(|m| {
                let key = m.location.to_string();
                Listed {
                    key: key.strip_prefix(&strip).unwrap_or(&key).to_string(),
                    size: m.size,
                    age: now
                        .saturating_sub(u64::try_from(m.last_modified.timestamp()).unwrap_or(0)),
                }
            })
            .collect())
    }

    /// Ask the store for anything under a prefix: an error when the bucket is missing,
    /// the credentials are refused or the server is unreachable; `Ok` otherwise (even
    /// with nothing there).
    pub async fn probe(&self, prefix: &str) -> Result<(), DeliveryError> {
        self.store
            .list_with_delimiter(Some(&self.key(prefix)))
            .await
            .map(drop)
            .map_err(|e| match self.error(e) {
                DeliveryError::Missing { store, .. } => DeliveryError::NoBucket { store },
                other => other,
            })
    }

    /// [`Remote::probe`], and [`Remote::folder_there`]: for work that means nothing on a
    /// store that is not there (a collection), before its first write would make the
    /// store — a folder's first write makes the folder, and some servers (s3s-fs) make a
    /// bucket.
    pub async fn probe_there(&self) -> Result<(), DeliveryError> {
        self.folder_there()?;
        self.probe("releases/").await
    }

    /// For a folder store, whether its folder is there (nothing was ever published to
    /// one that is not); other stores say so themselves when asked.
    pub fn folder_there(&self) -> Result<(), DeliveryError> {
        match &self.folder {
            Some(folder) if !folder.is_dir() => Err(DeliveryError::Missing {
                store: self.shown.clone(),
                what: "folder: nothing was ever published there".into(),
            }),
            _ => Ok(()),
        }
    }

    /// Delete an object (gone already is fine).
    pub async fn delete(&self, key: &str) -> Result<(), DeliveryError> {
        self.writable()?;
        match self.store.delete(&self.key(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.error(e)),
        }
    }

    /// In a folder store, the partial uploads killed writers left anywhere under `prefix`
    /// (object_store stages a put as `<name>#<n>` and renames it; listing hides them),
    /// untouched for `grace_seconds`: their paths and sizes. Other stores: none.
    pub(crate) fn upload_leftovers(&self, prefix: &str, grace_seconds: u64) -> Vec<(PathBuf, u64)> {
        let Some(folder) = &self.folder else {
            return Vec::new();
        };
        let mut entries = Vec::new();
        let mut folders = vec![folder.join(prefix)];
        while let Some(dir) = folders.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                // Folders of the store, never a link to one.
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    folders.push(entry.path());
                } else {
                    entries.push(entry);
                }
            }
        }
        let now = std::time::SystemTime::now();
        entries
            .into_iter()
            .filter_map(|entry| {
                let name = entry.file_name();
                let (_, attempt) = name.to_str()?.rsplit_once('#')?;
                if attempt.is_empty() || !attempt.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                // Not followed: a link is a file here like any other.
                let metadata = entry.metadata().ok()?;
                let age = now.duration_since(metadata.modified().ok()?).ok()?;
                (!metadata.is_dir() && age.as_secs() >= grace_seconds)
                    .then(|| (entry.path(), metadata.len()))
            })
            .collect()
    }

    /// Remove one of [`Remote::upload_leftovers`].
    pub(crate) fn remove_leftover(&self, path: &Path) -> Result<(), DeliveryError> {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(DeliveryError::io(path)(e)),
            _ => Ok(()),
        }
    }

    fn writable(&self) -> Result<(), DeliveryError> {
        if self.is_writable() {
            Ok(())
        } else {
            Err(self.read_only())
        }
    }

    fn read_only(&self) -> DeliveryError {
        DeliveryError::ReadOnly {
            store: self.shown.clone(),
        }
    }

    /// An object_store error as one line that names the store and no secret.
    pub(crate) fn error(&self, error: object_store::Error) -> DeliveryError {
        let store = self.shown.clone();
        let mut message = String::new();
        let mut source: Option<&dyn std::error::Error> = Some(&error);
        // The innermost cause says what happened ("Connection refused"); the outer ones
        // add request details and timings.
        let mut innermost = String::new();
        while let Some(e) = source {
            let text = e.to_string();
            innermost = text.clone();
            if !message.contains(&text) {
                if !message.is_empty() {
                    message.push_str(": ");
                }
                message.push_str(&text);
            }
            source = e.source();
        }
        let message = scrub(&message, &self.secrets);
        if let object_store::Error::NotFound { path, .. } = &error {
            return DeliveryError::Missing {
                store,
                what: format!("object {path}"),
            };
        }
        // What the server said is read from the error code in its answer (S3's XML
        // `<Code>`), never from words anywhere in the message: the message also holds
        // the request's path and timings, which are the user's and the clock's.
        let code = |codes: &[&str]| {
            codes
                .iter()
                .any(|c| message.contains(&format!("<Code>{c}</Code>")))
        };
        if code(&["NoSuchBucket"]) {
            return DeliveryError::NoBucket { store };
        }
        let denied = matches!(
            error,
            object_store::Error::PermissionDenied { .. }
                | object_store::Error::Unauthenticated { .. }
        );
        if denied
            || code(&[
                "AccessDenied",
                "InvalidAccessKeyId",
                "SignatureDoesNotMatch",
                "ExpiredToken",
                "InvalidToken",
            ])
        {
            return DeliveryError::Refused {
                store,
                message: "the credentials were not accepted (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE)".into(),
            };
        }
        if let Some(refused) = refused_certificate(&error) {
            return DeliveryError::Untrusted {
                store,
                message: one_line(&refused.to_string()),
            };
        }
        if unreachable(&error) {
            DeliveryError::Unreachable {
                store,
                message: one_line(&scrub(&innermost, &self.secrets)),
            }
        } else {
            DeliveryError::Failed {
                store,
                message: one_line(&message),
            }
        }
    }
}

/// Whether an error's causes say the store could not be reached: the HTTP client could
/// not connect or timed out, or the network refused, reset or dropped the connection.
/// Read from the causes' types, not their words.
fn unreachable(error: &(dyn std::error::Error + 'static)) -> bool {
    use object_store::client::{HttpError, HttpErrorKind};
    use std::io::ErrorKind;
    causes(error).any(|e| {
        let connect = e.downcast_ref::<HttpError>().is_some_and(|http| {
            matches!(http.kind(), HttpErrorKind::Connect | HttpErrorKind::Timeout)
        });
        let network = e.downcast_ref::<std::io::Error>().is_some_and(|io| {
            matches!(
                io.kind(),
                ErrorKind::ConnectionRefused
                    | ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::NotConnected
                    | ErrorKind::TimedOut
                    | ErrorKind::HostUnreachable
                    | ErrorKind::NetworkUnreachable
                    | ErrorKind::AddrNotAvailable
            )
        });
        connect || network
    })
}

/// The first line of a message, at most 300 characters: a server's error body can be a
/// page of XML.
fn one_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default();
    match line.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

/// `text` with every secret replaced: as it is, and percent-encoded (a server echoing a
/// request's query or path quotes it so), with either case of hexadecimal digits.
fn scrub(text: &str, secrets: &[String]) -> String {
    use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
    let mut forms: Vec<String> = Vec::new();
    for secret in secrets {
        let encoded = utf8_percent_encode(secret, NON_ALPHANUMERIC).to_string();
        // `-`, `.`, `_`, `~` are left as they are by most encoders.
        let lenient = encoded
            .replace("%2D", "-")
            .replace("%2E", ".")
            .replace("%5F", "_")
            .replace("%7E", "~");
        for form in [secret.clone(), encoded, lenient] {
            forms.push(lower_hex_escapes(&form));
            forms.push(form);
        }
    }
    // Longest first, so that a form is not cut by a shorter one inside it.
    forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    forms.dedup();
    forms.iter().fold(text.to_string(), |text, form| {
        text.replace(form.as_str(), "***")
    })
}

/// `%2F` written `%2f`.
fn lower_hex_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let escape = rest.get(at..at + 3).unwrap_or(&rest[at..]);
        out.push_str(&escape.to_ascii_lowercase());
        rest = &rest[at + escape.len()..];
    }
    out.push_str(rest);
    out
}

/// An `http(s)://` URL checked before it reaches object_store (which panics on some
/// malformed ones): what it holds of credentials, to be scrubbed.
struct CheckedUrl {
    secrets: Vec<String>,
}

/// Why `text` is not a usable `http(s)://` URL, or what it holds of credentials.
/// The longest store URL or endpoint taken: far past any real one, and far below what
/// the HTTP stack under object_store panics on (a URI of 64 KiB).
const MAX_URL: usize = 8 << 10;

fn too_long(url: &str) -> String {
    format!(
        "it is {} bytes long; a store's URL and endpoint may have {MAX_URL}",
        url.len()
    )
}

/// The start of a URL too long to show whole.
fn shortened(url: &str) -> String {
    let start: String = url.chars().take(80).collect();
    format!("{start}…")
}

fn check_http_url(text: &str) -> Result<CheckedUrl, String> {
    if text.len() > MAX_URL {
        return Err(too_long(text));
    }
    if text.trim() != text || text.chars().any(char::is_control) {
        return Err("has spaces or control characters around or in it".into());
    }
    let parsed = url::Url::parse(text).map_err(|e| format!("is not a URL ({e})"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err("must start with http:// or https://".into());
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err("names no host".into());
    }
    let decoded = |part: &str| {
        percent_encoding::percent_decode_str(part)
            .decode_utf8_lossy()
            .into_owned()
    };
    let mut secrets = Vec::new();
    for part in [parsed.username(), parsed.password().unwrap_or_default()] {
        if !part.is_empty() {
            secrets.extend([part.to_string(), decoded(part)]);
        }
    }
    secrets.retain(|s| s.len() >= 4);
    Ok(CheckedUrl { secrets })
}

/// Where a folder store's objects are reached from: the folder itself when it is there;
/// when it is not, the nearest folder above it that is, and the path from there as the
/// keys' prefix — opening a store makes nothing (its first write makes the folder), so
/// that a command reading a mistyped folder leaves none behind. A missing part that
/// keys would spell otherwise (a `#`, a `%`, any letter outside ASCII: object_store's
/// folder store would write `マスター` as a folder named `%E3%83%9E…`) is made at once
/// instead, as before.
fn folder_base(root: &Path) -> Result<(PathBuf, String), DeliveryError> {
    // The nearest thing above that is there must be a folder (a file, or a link to
    // nothing, is told by the making below).
    let there = root
        .ancestors()
        .find(|path| path.symlink_metadata().is_ok());
    if let Some(base) = there.filter(|base| *base != root && base.is_dir())
        && let Ok(rest) = root.strip_prefix(base)
        && let Some(prefix) = spelled_as_is(rest)
    {
        return Ok((base.to_path_buf(), prefix));
    }
    std::fs::create_dir_all(root).map_err(DeliveryError::io(root))?;
    Ok((root.to_path_buf(), String::new()))
}

/// The folders of `rest` as a key's prefix, when keys spell each name as it is (no `.`
/// or `..`, nothing object_store would percent-encode).
fn spelled_as_is(rest: &Path) -> Option<String> {
    let names = rest.components().map(|part| match part {
        std::path::Component::Normal(name) => name
            .to_str()
            .filter(|name| object_store::path::PathPart::from(*name).as_ref() == *name),
        _ => None,
    });
    let names: Vec<&str> = names.collect::<Option<_>>()?;
    (!names.is_empty()).then(|| names.join("/"))
}

/// A URL as shown: any `user:password@` replaced.
fn redact(text: &str) -> String {
    if text.len() > MAX_URL {
        let end = (0..=MAX_URL)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        return shortened(&redact(&text[..end]));
    }
    match url::Url::parse(text.trim()) {
        Ok(mut parsed) if !parsed.username().is_empty() || parsed.password().is_some() => {
            let _ = parsed.set_username("***");
            let _ = parsed.set_password(None);
            parsed.to_string()
        }
        Ok(_) => text.to_string(),
        // Not a URL: shown up to its `@`, should it hold credentials anyway.
        Err(_) => match text.rsplit_once('@') {
            Some((_, host)) => format!("***@{host}"),
            None => text.to_string(),
        },
    }
}

/// Credentials and settings from the standard places: the environment first, then the
/// profile (`AWS_PROFILE`, else `default`) of `~/.aws/credentials` and `~/.aws/config`.
struct Credentials {
    keys: Option<(String, String, Option<String>)>,
    region: Option<String>,
    endpoint: Option<String>,
}

impl Credentials {
    fn find() -> Credentials {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let profile = env("AWS_PROFILE").unwrap_or_else(|| "default".to_string());
        let home = env("HOME").map(PathBuf::from);
        let file = |variable: &str, default: &str| {
            env(variable)
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(".aws").join(default)))
        };
        let credentials = file("AWS_SHARED_CREDENTIALS_FILE", "credentials")
            .map(|path| profile_settings(&path, &profile, false))
            .unwrap_or_default();
        let config = file("AWS_CONFIG_FILE", "config")
            .map(|path| profile_settings(&path, &profile, true))
            .unwrap_or_default();
        let setting = |name: &str| {
            credentials
                .iter()
                .chain(&config)
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        let keys = match (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
            (Some(id), Some(secret)) => Some((id, secret, env("AWS_SESSION_TOKEN"))),
            _ => match (
                setting("aws_access_key_id"),
                setting("aws_secret_access_key"),
            ) {
                (Some(id), Some(secret)) => Some((id, secret, setting("aws_session_token"))),
                _ => None,
            },
        };
        Credentials {
            keys,
            region: env("AWS_REGION")
                .or_else(|| env("AWS_DEFAULT_REGION"))
                .or_else(|| setting("region")),
            endpoint: env("AWS_ENDPOINT_URL").or_else(|| setting("endpoint_url")),
        }
    }
}

/// The `key = value` lines of one profile's section of an AWS INI file (`[name]` in the
/// credentials file; `[profile name]`, or `[default]`, in the config file).
fn profile_settings(path: &Path, profile: &str, config: bool) -> Vec<(String, String)> {
    let Ok(Some(bytes)) = masterctl_runtime::files::read_regular(path, 1 << 20) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let wanted = if config && profile != "default" {
        format!("profile {profile}")
    } else {
        profile.to_string()
    };
    let mut inside = false;
    let mut settings = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = section.trim() == wanted;
            continue;
        }
        if inside && let Some((key, value)) = line.split_once('=') {
            settings.push((key.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    settings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_store_is_made_by_its_first_write_unless_its_name_is_spelled_otherwise() {
        let root = tempfile::tempdir().unwrap();
        let there = root.path().join("there");
        std::fs::create_dir(&there).unwrap();
        assert_eq!(folder_base(&there).unwrap(), (there.clone(), String::new()));
        // Not there: reached from the folder above that is, nothing made.
        let missing = there.join("a b/c-d_e.f");
        assert_eq!(
            folder_base(&missing).unwrap(),
            (there.clone(), "a b/c-d_e.f".to_string())
        );
        assert!(!there.join("a b").exists());
        // A name keys would spell otherwise is made at once, as it always was.
        for odd in ["50%#x/y", "マスター"] {
            let odd = there.join(odd);
            assert_eq!(folder_base(&odd).unwrap(), (odd.clone(), String::new()));
            assert!(odd.is_dir());
        }
        // A file where the folder belongs, or above it, is an error naming the folder.
        let file = there.join("file");
        std::fs::write(&file, b"x").unwrap();
        assert!(folder_base(&file).is_err());
        let below = file.join("store");
        let error = folder_base(&below).unwrap_err().to_string();
        assert!(error.contains("file/store"), "{error}");
    }

    #[test]
    fn a_refused_connection_is_unreachable_whatever_its_path_and_timing_say() {
        // A real refused connection, through object_store's own client; the path holds
        // words the old reading of messages took for causes.
        let options = RemoteOptions {
            retries: Some(0),
            ..RemoteOptions::default()
        };
        let remote = Remote::open("http://127.0.0.1:9/forbidden-credential", &options).unwrap();
        let runtime = crate::runtime().unwrap();
        let error = runtime
            .block_on(remote.get("releases/AccessDenied-403", 1024))
            .unwrap_err();
        assert!(
            matches!(error, DeliveryError::Unreachable { .. }),
            "{error:?}"
        );
        // A server's answer that is no connection failure, whatever its path or timing
        // says, is a failure, not an unreachable store or refused credentials.
        let answered = |text: &str| object_store::Error::Generic {
            store: "S3",
            source: text.to_string().into(),
        };
        for text in [
            "Error after 0 retries in 401.2ms: Server returned non-2xx status code: 500: connect/timeout/credential.bin",
            "GET https://host/unreachable/forbidden: 503 Slow Down",
        ] {
            let error = remote.error(answered(text));
            assert!(
                matches!(error, DeliveryError::Failed { .. }),
                "{text}: {error:?}"
            );
        }
        // S3's codes say what was refused.
        let denied = answered("<Error><Code>AccessDenied</Code></Error>");
        assert!(matches!(
            remote.error(denied),
            DeliveryError::Refused { .. }
        ));
        let no_bucket = answered("<Error><Code>NoSuchBucket</Code></Error>");
        assert!(matches!(
            remote.error(no_bucket),
            DeliveryError::NoBucket { .. }
        ));
        // An I/O cause is read by its kind.
        let refused = object_store::Error::Generic {
            store: "HTTP",
            source: Box::new(std::io::Error::from(std::io::ErrorKind::ConnectionRefused)),
        };
        assert!(matches!(
            remote.error(refused),
            DeliveryError::Unreachable { .. }
        ));
        // A certificate refused in the handshake (inside the I/O error the TLS stream
        // gives) is no unreachable store: the store is there and not trusted.
        let handshake = |tls: rustls::Error| object_store::Error::Generic {
            store: "HTTP",
            source: Box::new(crate::causes::as_the_tls_stream_gives_it(tls)),
        };
        let unknown = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let error = remote.error(handshake(unknown));
        assert!(
            matches!(&error, DeliveryError::Untrusted { message, .. } if message.contains("UnknownIssuer")),
            "{error:?}"
        );
        // Another TLS failure is not about trust.
        let other = remote.error(handshake(rustls::Error::DecryptError));
        assert!(
            !matches!(other, DeliveryError::Untrusted { .. }),
            "{other:?}"
        );
    }

    #[test]
    fn urls_name_a_store_or_say_why_not() {
        let options = RemoteOptions::default();
        assert!(Remote::open("ftp://x", &options).is_err());
        assert!(Remote::open("s3://", &options).is_err());
        assert!(Remote::open("file://relative", &options).is_err());
        let http = Remote::open("http://127.0.0.1:1/masters", &options).unwrap();
        assert!(!http.is_writable());
    }

    #[test]
    fn secrets_never_leave_a_message() {
        let secrets = vec!["AKIDEXAMPLE".to_string(), "wJalrXUtnFEMI".to_string()];
        assert_eq!(
            scrub("key AKIDEXAMPLE and wJalrXUtnFEMI/K7MDENG", &secrets),
            "key *** and ***/K7MDENG"
        );
    }

    #[test]
    fn secrets_are_scrubbed_in_their_encoded_forms_too() {
        let secrets = vec!["wJal/rXU+tn=FEMI".to_string()];
        for echoed in [
            "wJal/rXU+tn=FEMI",
            "wJal%2FrXU%2Btn%3DFEMI",
            "wJal%2frXU%2btn%3dFEMI",
        ] {
            let text = format!("<Error><Key>{echoed}</Key></Error>");
            assert_eq!(scrub(&text, &secrets), "<Error><Key>***</Key></Error>");
        }
    }

    #[test]
    fn malformed_endpoints_are_errors_not_panics() {
        for endpoint in [
            "notaurl",
            "http://[::1",
            "http://127.0.0.1:99999",
            " http://127.0.0.1:9000",
            "http://127.0.0.1:9000\n",
            "ftp://127.0.0.1",
            "http://",
        ] {
            let options = RemoteOptions {
                endpoint: Some(endpoint.to_string()),
                ..RemoteOptions::default()
            };
            let error = Remote::open("s3://masters/x", &options).unwrap_err();
            assert!(
                matches!(error, DeliveryError::Url { .. }),
                "{endpoint}: {error}"
            );
            let error = Remote::open(endpoint, &RemoteOptions::default());
            assert!(error.is_err(), "{endpoint} as a store");
        }
        assert!(Remote::open("http://[::1/masters", &RemoteOptions::default()).is_err());
    }

    #[test]
    fn urls_and_endpoints_past_what_the_http_stack_takes_are_refused_first() {
        let long = "a".repeat(70 << 10);
        for url in [
            format!("s3://{long}/x"),
            format!("s3://masters/{long}"),
            format!("http://{long}.example/x"),
            format!("https://example.com/{long}"),
        ] {
            let error = Remote::open(&url, &RemoteOptions::default()).unwrap_err();
            assert!(
                matches!(&error, DeliveryError::Url { why, .. } if why.contains("may have 8192")),
                "{error}"
            );
            assert!(error.to_string().len() < 400, "the URL is not echoed whole");
        }
        let options = RemoteOptions {
            endpoint: Some(format!("http://{long}.example:9000")),
            ..RemoteOptions::default()
        };
        let error = Remote::open("s3://masters/x", &options).unwrap_err();
        assert!(matches!(error, DeliveryError::Url { .. }), "{error}");
        assert!(
            error.to_string().len() < 400,
            "the endpoint is not echoed whole"
        );
    }

    #[test]
    fn credentials_in_an_endpoint_are_never_shown() {
        let options = RemoteOptions {
            endpoint: Some("http://AKIDINURL:s3cr%2Fet@127.0.0.1:9000".to_string()),
            ..RemoteOptions::default()
        };
        let remote = Remote::open("s3://masters/x", &options).unwrap();
        assert!(!remote.shown().contains("AKIDINURL"), "{}", remote.shown());
        assert!(!remote.shown().contains("s3cr"), "{}", remote.shown());
        let echoed = remote.error(object_store::Error::Generic {
            store: "S3",
            source: "denied for AKIDINURL with s3cr/et and s3cr%2Fet".into(),
        });
        let text = echoed.to_string();
        assert!(
            !text.contains("AKIDINURL") && !text.contains("s3cr"),
            "{text}"
        );
        let http = Remote::open(
            "https://user:hunter22@cdn.example/m",
            &RemoteOptions::default(),
        )
        .unwrap();
        assert!(!http.shown().contains("hunter22"), "{}", http.shown());
    }

    #[test]
    fn profiles_are_read_from_their_sections() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("credentials");
        std::fs::write(
            &path,
            "[default]\naws_access_key_id = A\n\n[ci]\n# a comment\naws_access_key_id = B\naws_secret_access_key = S\n",
        )
        .unwrap();
        assert_eq!(
            profile_settings(&path, "ci", false),
            [
                ("aws_access_key_id".to_string(), "B".to_string()),
                ("aws_secret_access_key".to_string(), "S".to_string())
            ]
        );
        let config = dir.path().join("config");
        std::fs::write(&config, "[profile ci]\nregion = ap-northeast-1\n").unwrap();
        assert_eq!(
            profile_settings(&config, "ci", true),
            [("region".to_string(), "ap-northeast-1".to_string())]
        );
    }
}
