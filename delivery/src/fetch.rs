//! `fetch`: a published release into a build directory — only the objects the cache
//! lacks, each verified on the way in, the build assembled from links into the cache
//! beside the directory and swapped into place whole.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::StreamExt;
use masterctl_runtime::parallel::parallel_map;
use masterctl_runtime::{FileEntry, MANIFEST, Manifest, Masters, check, files};
use serde::Serialize;

use crate::cache::Cache;
use crate::layout;
use crate::manifests::{pointer_manifest, release_manifest};
use crate::prefetch::{Asked, ManifestWatch, Prefetch};
use crate::remote::Remote;
use crate::transport::{Protocol, Traffic};
use crate::{DeliveryError, Progress, object};

/// What to fetch, and where to keep what was downloaded.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    pub region: String,
    /// Only these languages' strings (`None`: every language of the release).
    pub languages: Option<Vec<String>>,
    /// This release (`None`: the one the region's pointer names).
    pub release: Option<String>,
    /// Where objects are kept between fetches, by hash (`None`: `.NAME.cache` beside
    /// the output folder).
    pub cache: Option<PathBuf>,
    /// Objects downloaded at once (`None`: as many as suit the protocol the store
    /// answered in: [`crate::transport::STREAMS`] over HTTP/2, [`crate::transport::CONNECTIONS`]
    /// otherwise).
    pub concurrency: Option<usize>,
    /// Hash every cached object before it is used (a damaged one is downloaded again);
    /// otherwise an object verified when it came into the cache is trusted by its size.
    pub verify: bool,
    /// Take only a release signed by one of these keys, never one signed before the
    /// release the build runs (`crate::signing`). Empty: signatures are not asked for.
    pub trusted: Vec<masterctl_runtime::signature::TrustedKey>,
    /// Where what the build runs is kept, when its releases are signed (`None`:
    /// `.NAME.signed.json` beside the output folder).
    pub signed_state: Option<PathBuf>,
}

/// What a fetch did.
#[derive(Debug, Clone, Serialize)]
pub struct Fetched {
    pub store: String,
    pub region: String,
    pub release: String,
    pub out: PathBuf,
    pub cache: PathBuf,
    /// The languages whose strings the build holds.
    pub languages: Vec<String>,
    /// Distinct objects the build is made of (its files; the manifest is read apart).
    pub objects: usize,
    pub downloaded: usize,
    /// Bytes moved over the wire (compressed where the store keeps them so).
    pub downloaded_bytes: u64,
    pub reused: usize,
    pub reused_bytes: u64,
    /// Whether a build was in the output folder before (it was replaced).
    pub replaced: bool,
    /// Whether the output folder held this very build already: every file a link to the
    /// cached object, the manifest the same. Nothing was replaced.
    pub up_to_date: bool,
    /// The protocol and the connections this fetch used (`None` for a folder).
    pub transport: Option<Traffic>,
    /// The release's signature as checked, when keys are trusted: what the build now
    /// runs (kept beside it).
    pub signed: Option<crate::signing::Running>,
}

/// Fetch a release of `options.region` from `remote` into `out`.
///
/// Every object downloaded is verified (its hash after decompression, its structure as
/// an archive) before it enters the cache; a cached object is trusted by its size
/// unless `options.verify`. The build is assembled beside `out` and swapped in whole.
/// [`fetch_opened`] also opens it through the runtime first, for a server about to use
/// it.
pub async fn fetch(
    remote: &Remote,
    out: &Path,
    options: &FetchOptions,
    progress: Progress<'_>,
) -> Result<Fetched, DeliveryError> {
    let (fetched, staged) = stage(remote, out, options, progress).await?;
    if let Some(staged) = staged {
        swap(&staged, out)?;
    }
    keep_signed(out, options, &fetched)?;
    Ok(fetched)
}

/// What the build now runs kept beside it, when its release was signed.
fn keep_signed(out: &Path, options: &FetchOptions, fetched: &Fetched) -> Result<(), DeliveryError> {
    match &fetched.signed {
        Some(running) => crate::signing::keep_running(&signed_state(out, options), running),
        None => Ok(()),
    }
}

/// [`fetch`], opening the assembled build through the runtime before the swap (every
/// check of [`Masters::open`]: every file hashed, across files too); the opened build is
/// handed back (its maps stay valid in `out`), so a server does not open it again.
/// Should it not open, every cached object is hashed, the damaged ones are downloaded
/// again, and the build is assembled once more.
pub async fn fetch_opened(
    remote: &Remote,
    out: &Path,
    options: &FetchOptions,
    progress: Progress<'_>,
) -> Result<(Fetched, Masters), DeliveryError> {
    let mut options = options.clone();
    loop {
        let (fetched, staged) = stage(remote, out, &options, progress).await?;
        let opened = {
            let dir = staged.clone().unwrap_or_else(|| out.to_path_buf());
            blocking(move || Masters::open(&dir)).await
        };
        let failed = match opened {
            Ok(masters) => {
                if let Some(staged) = staged {
                    swap(&staged, out)?;
                }
                keep_signed(out, &options, &fetched)?;
                return Ok((fetched, masters));
            }
            Err(e) => e,
        };
        if let Some(staged) = staged {
            let _ = std::fs::remove_dir_all(&staged);
        }
        if options.verify {
            return Err(DeliveryError::Corrupt {
                store: fetched.store,
                hash: fetched.release,
                why: format!("the fetched build does not open: {failed}"),
            });
        }
        options.verify = true;
    }
}

/// The release read, its objects verified (downloaded where the cache lacks them), and
/// the build assembled in a staging folder beside `out` — `None` when `out` holds this
/// very build already.
async fn stage(
    remote: &Remote,
    out: &Path,
    options: &FetchOptions,
    progress: Progress<'_>,
) -> Result<(Fetched, Option<PathBuf>), DeliveryError> {
    let region = options.region.as_str();
    layout::check_region(region)?;
    let store = remote.shown().to_string();
    let before = remote.tally();
    let traffic = || Some(Traffic::from(remote.tally()?.since(before?)));
    let cache_dir = match &options.cache {
        Some(cache) => cache.clone(),
        None => default_cache(out),
    };
    let Read {
        release,
        manifest,
        manifest_bytes,
        asked,
        signature,
    } = read_release(remote, region, options, &cache_dir).await?;
    let signed = match options.trusted.is_empty() {
        true => None,
        false => {
            let read = Fetching {
                store: remote.shown(),
                region,
                release: &release,
            };
            let signature = signature.as_deref();
            Some(check_signed(
                &read,
                &manifest,
                &manifest_bytes,
                signature,
                options,
                out,
            )?)
        }
    };
    // The release's requests tell which protocol the store speaks.
    let protocol = traffic().and_then(|t| t.protocol);
    let languages = choose_languages(&release, &manifest, options.languages.as_deref())?;
    let selected: Vec<FileEntry> = manifest
        .files
        .iter()
        .filter(|f| takes(&languages, f))
        .cloned()
        .collect();
    let replaced = check_out(out)?;
    let cache = Cache::open(&cache_dir)?;

    let cache = Arc::new(cache);
    let objects = distinct_objects(&selected);
    let held = held(&cache, &objects, options.verify, asked.as_ref()).await;
    let (cached, mut missing): (Vec<_>, Vec<_>) =
        objects.into_iter().partition(|o| held.contains(&o.0));
    if let Some(asked) = &asked {
        asked.in_order(&mut missing);
    }
    let mut fetched = Fetched {
        store,
        region: region.to_string(),
        release,
        out: out.to_path_buf(),
        cache: cache.dir().to_path_buf(),
        languages: languages.clone(),
        objects: cached.len() + missing.len(),
        downloaded: 0,
        downloaded_bytes: 0,
        reused: cached.len(),
        reused_bytes: cached.iter().map(|(_, size)| size).sum(),
        replaced,
        up_to_date: false,
        transport: None,
        signed,
    };
    let manifest_out = manifest_of(manifest, manifest_bytes, &languages);
    if missing.is_empty() && replaced {
        let (out, cache) = (out.to_path_buf(), cache.clone());
        let (manifest_out, selected) = (manifest_out.clone(), selected.clone());
        if blocking(move || in_place(&out, &manifest_out, &selected, &cache)).await {
            fetched.replaced = false;
            fetched.up_to_date = true;
            fetched.transport = traffic();
            return Ok((fetched, None));
        }
    }

    // Assembled beside `out`: the files the cache holds are linked while the others
    // download, then those.
    let staged = files::staging_dir(out).map_err(DeliveryError::io(out))?;
    // Archives are checked as archives on the way in; the client export by its hash.
    let archives: HashSet<String> = selected
        .iter()
        .filter(|f| f.kind.is_archive())
        .map(|f| f.blake3.clone())
        .collect();
    let (ready, later): (Vec<FileEntry>, Vec<FileEntry>) =
        selected.into_iter().partition(|f| held.contains(&f.blake3));
    let linking = {
        let (staged, cache) = (staged.clone(), cache.clone());
        blocking(move || assemble(&staged, &cache, &ready))
    };
    // Each object downloaded is written where the first file made of it goes, then
    // linked into the cache; the others made of it are linked from there afterwards.
    if let Err(e) = make_folders(&staged, &later) {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(e);
    }
    let mut written: HashMap<String, PathBuf> = HashMap::new();
    let later: Vec<FileEntry> = later
        .into_iter()
        .filter(|entry| match written.entry(entry.blake3.clone()) {
            std::collections::hash_map::Entry::Vacant(first) => {
                first.insert(staged.join(&entry.path));
                false
            }
            std::collections::hash_map::Entry::Occupied(_) => true,
        })
        .collect();
    let concurrency = options
        .concurrency
        .unwrap_or_else(|| Protocol::concurrency(protocol));
    let downloading = download_all(
        remote,
        &cache,
        &missing,
        (&archives, asked, &written),
        concurrency,
        progress,
        &mut fetched,
    );
    let finished = match tokio::join!(linking, downloading) {
        (Ok(()), Ok(())) => {
            let (staged, cache) = (staged.clone(), cache.clone());
            blocking(move || {
                assemble(&staged, &cache, &later)?;
                let path = staged.join(MANIFEST);
                files::write_new(&path, &manifest_out, false).map_err(DeliveryError::io(&path))
            })
            .await
        }
        (Err(e), _) | (_, Err(e)) => Err(e),
    };
    if let Err(e) = finished {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(e);
    }
    fetched.transport = traffic();
    Ok((fetched, Some(staged)))
}

/// Whether `out` holds this very build: its manifest is `manifest`, and each of `entries`
/// is the cached object itself (a link to it: verified on its way in).
fn in_place(out: &Path, manifest: &[u8], entries: &[FileEntry], cache: &Cache) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let same =
            |a: &Path, b: &Path| match (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b))
            {
                (Ok(a), Ok(b)) => a.is_file() && (a.dev(), a.ino()) == (b.dev(), b.ino()),
                _ => false,
            };
        let limit = manifest.len() as u64 + 1;
        files::read_regular(&out.join(MANIFEST), limit)
            .is_ok_and(|m| m.as_deref() == Some(manifest))
            && entries
                .iter()
                .all(|f| same(&out.join(&f.path), &cache.path(&f.blake3)))
    }
    #[cfg(not(unix))]
    {
        let _ = (out, manifest, entries, cache);
        false
    }
}

/// Whether a build of `languages` takes `file`: every file but other languages' strings.
fn takes(languages: &[String], file: &FileEntry) -> bool {
    // Strings and the client export's texts carry their language.
    file.language.as_ref().is_none_or(|l| languages.contains(l))
}

/// The manifest a build of `languages` holds: the release's own bytes when it takes
/// every language, else the manifest narrowed to the files it takes.
fn manifest_of(manifest: Manifest, bytes: Vec<u8>, languages: &[String]) -> Vec<u8> {
    if languages.len() == manifest.languages.len() {
        return bytes;
    }
    let mut narrowed = manifest;
    narrowed.files.retain(|f| takes(languages, f));
    // `languages` stays the region's fallback order, which the strings refer to.
    narrowed
        .fallbacks
        .retain(|f| languages.contains(&f.language));
    narrowed.to_bytes()
}

/// Each distinct object `files` are made of: its hash and size.
fn distinct_objects(files: &[FileEntry]) -> Vec<(String, u64)> {
    let mut objects: Vec<(String, u64)> =
        files.iter().map(|f| (f.blake3.clone(), f.size)).collect();
    objects.sort_unstable();
    objects.dedup();
    objects
}

/// The objects the cache holds (hashed first when `verify`), checked on every core —
/// except those the early look found held or missing (`asked`: the objects asked for
/// while the manifest arrived), which are not looked at again.
async fn held(
    cache: &Arc<Cache>,
    objects: &[(String, u64)],
    verify: bool,
    asked: Option<&Prefetch>,
) -> HashSet<String> {
    let (mut held, mut unknown) = (HashSet::new(), Vec::new());
    for (hash, size) in objects {
        // Hashing every object again trusts no earlier look.
        let found = asked
            .filter(|_| !verify)
            .and_then(|a| a.found_held(hash, *size));
        match found {
            Some(true) => {
                held.insert(hash.clone());
            }
            Some(false) => {}
            None => unknown.push((hash.clone(), *size)),
        }
    }
    if unknown.is_empty() {
        return held;
    }
    let cache = cache.clone();
    let looked = blocking(move || {
        let found = parallel_map(&unknown, |(hash, size)| cache.holds(hash, *size, verify));
        unknown
            .into_iter()
            .zip(found)
            .filter_map(|((hash, _), found)| found.then_some(hash))
            .collect::<Vec<_>>()
    })
    .await;
    held.extend(looked);
    held
}

/// Download `objects` into the cache, many at once (those of `asked`, the objects
/// asked for while the manifest arrived, taken from there); `archives` are checked as
/// archives. Counted in `fetched`.
async fn download_all(
    remote: &Remote,
    cache: &Arc<Cache>,
    objects: &[(String, u64)],
    (archives, asked, written): (
        &HashSet<String>,
        Option<Prefetch>,
        &HashMap<String, PathBuf>,
    ),
    concurrency: usize,
    progress: Progress<'_>,
    fetched: &mut Fetched,
) -> Result<(), DeliveryError> {
    let slots = asked.as_ref().map(Prefetch::slots);
    let asked = std::sync::Mutex::new(asked);
    let early = |hash: &str| {
        let mut asked = asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        asked.as_mut().and_then(|asked| asked.take(hash))
    };
    // Objects are checked and written into the cache a core's worth at a time, however
    // many are in flight: more writers than cores only contend for the cache folder.
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let writers = tokio::sync::Semaphore::new(cores);
    let mut downloads = crate::bounded(
        objects,
        concurrency,
        |(_, size)| *size,
        |(hash, size)| {
            let wanted = Wanted {
                hash,
                size: *size,
                archive: archives.contains(hash),
                target: written.get(hash).cloned(),
                early: early(hash),
                slots: slots.as_deref(),
            };
            download(remote, cache, wanted, &writers)
        },
    );
    while let Some(bytes) = downloads.next().await {
        fetched.downloaded += 1;
        fetched.downloaded_bytes += bytes?;
        progress(fetched.downloaded, objects.len());
    }
    Ok(())
}

/// The assembled build in the place of `out` (the previous one removed).
fn swap(staged: &Path, out: &Path) -> Result<(), DeliveryError> {
    files::replace_dir(staged, out).map_err(|e| {
        let _ = std::fs::remove_dir_all(staged);
        DeliveryError::io(out)(e)
    })
}

/// `work` on a thread where blocking is allowed.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(work).await {
        Ok(done) => done,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// The release to fetch (the pointer's, unless one is named): its id and its manifest
/// as stored. The pointer's is read from the manifest object the pointer names
/// (verified by its hash), the objects it names asked for as it arrives (`cache`: the
/// folder of objects the fetch has); a named release's through its record, which names
/// that object too.
async fn read_release(
    remote: &Remote,
    region: &str,
    options: &FetchOptions,
    cache: &Path,
) -> Result<Read, DeliveryError> {
    let store = remote.shown();
    let named = match &options.release {
        Some(named) => Some(crate::manage::resolve_release(remote, region, named).await?),
        None => None,
    };
    let pointer = match &named {
        Some(_) => None,
        None => match crate::manage::read_pointer(remote, region).await? {
            Some((pointer, _)) => Some(pointer),
            None => {
                // A missing bucket (or folder) can answer like a missing object: tell
                // them apart.
                if remote.is_writable() {
                    remote.folder_there()?;
                    remote.probe("regions/").await?;
                }
                return Err(DeliveryError::NoRelease {
                    store: store.to_string(),
                    what: format!(
                        "release of region {region} ({} is not there: publish one first)",
                        layout::pointer_key(region)
                    ),
                });
            }
        },
    };
    if let Some(pointer) = &pointer {
        // The objects the manifest names asked for as it arrives (not when every
        // cached object is to be hashed again: what the cache holds is not known yet).
        let concurrency = options
            .concurrency
            .unwrap_or_else(|| Protocol::concurrency(remote.tally().and_then(|t| t.protocol())));
        // Nor when only a signed release is taken: nothing a manifest names is
        // downloaded before its signature is checked.
        let mut prefetch = (!options.verify && options.trusted.is_empty()).then(|| {
            let languages = options.languages.clone();
            let prefetch = Prefetch::new(remote, Cache::at(cache), languages, concurrency);
            ManifestWatch::new(prefetch, masterctl_runtime::MANIFEST_LIMIT)
        });
        let mut watch = |stored: &[u8]| {
            if let Some(prefetch) = &mut prefetch {
                prefetch.seen(stored);
            }
        };
        // The release's signature, when one is asked for, read beside its manifest: no
        // round trip more than an unsigned fetch.
        let (manifest, signature) = futures::join!(
            pointer_manifest(remote, region, pointer, &mut watch),
            read_signature(remote, region, &pointer.release, options)
        );
        if let Some(manifest) = manifest? {
            return Ok(Read {
                release: pointer.release.clone(),
                manifest: manifest.0,
                manifest_bytes: manifest.1,
                asked: prefetch.map(ManifestWatch::into_prefetch),
                signature: signature?,
            });
        }
    }
    let release_id = match (&named, &pointer) {
        (Some(release), _) => release.clone(),
        (None, Some(pointer)) => pointer.release.clone(),
        (None, None) => unreachable!("a pointer was read when no release was named"),
    };
    let release = crate::manage::read_release(remote, region, &release_id)
        .await?
        .ok_or_else(|| DeliveryError::NoRelease {
            store: store.to_string(),
            what: format!(
                "release {release_id} of region {region} ({})",
                layout::release_key(region, &release_id)
            ),
        })?;
    if let Some(pointer) = &pointer
        && pointer.manifest_blake3 != release.manifest_blake3
    {
        return Err(DeliveryError::Foreign {
            store: store.to_string(),
            key: layout::pointer_key(region),
            why: "its manifest hash is not the release's".into(),
        });
    }
    let (manifest, signature) = futures::join!(
        release_manifest(remote, region, &release),
        read_signature(remote, region, &release.release, options)
    );
    let (manifest, manifest_bytes) = manifest?;
    Ok(Read {
        release: release.release,
        manifest,
        manifest_bytes,
        asked: None,
        signature: signature?,
    })
}

/// The signature of `release` when the fetch trusts keys (`None` when it does not, or
/// the release has none).
async fn read_signature(
    remote: &Remote,
    region: &str,
    release: &str,
    options: &FetchOptions,
) -> Result<Option<bytes::Bytes>, DeliveryError> {
    if options.trusted.is_empty() {
        return Ok(None);
    }
    let key = layout::signature_key(region, release);
    remote.get(&key, layout::SIGNATURE_LIMIT).await
}

/// A release as [`read_release`] read it.
struct Read {
    /// Its id.
    release: String,
    manifest: Manifest,
    /// The manifest as stored: the bytes its hash names.
    manifest_bytes: Vec<u8>,
    /// The objects asked for while the manifest arrived (only the pointer's manifest
    /// object is read so).
    asked: Option<Prefetch>,
    /// Its signature, when the fetch trusts keys and the store has one.
    signature: Option<bytes::Bytes>,
}

/// The languages to take: all, or the ones asked for (each must be the release's), in
/// the region's fallback order.
fn choose_languages(
    release: &str,
    manifest: &Manifest,
    asked: Option<&[String]>,
) -> Result<Vec<String>, DeliveryError> {
    let Some(asked) = asked else {
        return Ok(manifest.languages.clone());
    };
    let asked: BTreeSet<&String> = asked.iter().collect();
    if let Some(unknown) = asked.iter().find(|l| !manifest.languages.contains(l)) {
        return Err(DeliveryError::UnknownLanguage {
            release: release.to_string(),
            language: unknown.to_string(),
            languages: manifest.languages.join(", "),
        });
    }
    Ok(manifest
        .languages
        .iter()
        .filter(|l| asked.contains(l))
        .cloned()
        .collect())
}

/// Whether `out` holds a build to replace (`true`), nothing yet (`false`), or something
/// else, which is refused: the same rule as `build`.
fn check_out(out: &Path) -> Result<bool, DeliveryError> {
    match files::occupant(out) {
        files::Occupant::Nothing => Ok(false),
        files::Occupant::Build => Ok(true),
        files::Occupant::Link => Err(DeliveryError::OutIsLink(out.to_path_buf())),
        files::Occupant::Other => Err(DeliveryError::NotABuild(out.to_path_buf())),
    }
}

/// `.NAME.cache` beside the output folder.
/// What a fetch is taking: the release of the region on the store.
struct Fetching<'a> {
    store: &'a str,
    region: &'a str,
    release: &'a str,
}

/// The release's `signature` (read beside its record) checked over its manifest against
/// the trusted keys; its statement checked against the release and the build `out`
/// runs. No signature: refused.
fn check_signed(
    read: &Fetching<'_>,
    manifest: &Manifest,
    manifest_bytes: &[u8],
    signature: Option<&[u8]>,
    options: &FetchOptions,
    out: &Path,
) -> Result<crate::signing::Running, DeliveryError> {
    let Fetching {
        store,
        region,
        release,
    } = *read;
    let Some(signature) = signature else {
        return Err(DeliveryError::Unsigned {
            store: store.to_string(),
            region: region.to_string(),
            release: release.to_string(),
        });
    };
    let refused = |why: String| DeliveryError::BadSignature {
        store: store.to_string(),
        region: region.to_string(),
        release: release.to_string(),
        why,
    };
    let text =
        std::str::from_utf8(signature).map_err(|_| refused("its signature is not text".into()))?;
    let signed = masterctl_runtime::signature::verify(manifest_bytes, text, &options.trusted)
        .map_err(|e| refused(e.to_string()))?;
    let kept = signed_state(out, options);
    let audience = manifest.audience.as_deref();
    crate::signing::check_statement(&signed, store, region, release, audience, &kept)
}

/// Where what the build `out` runs is kept.
fn signed_state(out: &Path, options: &FetchOptions) -> PathBuf {
    (options.signed_state.clone()).unwrap_or_else(|| crate::signing::running_path(out))
}

fn default_cache(out: &Path) -> PathBuf {
    crate::beside(out, ".cache")
}

/// Objects up to this size are checked and written where they arrive (a millisecond at
/// most) rather than handed to a thread that may block: two thread switches each saved,
/// which on a machine whose cores many fetches share (a fleet booting) wait for the
/// scheduler. Larger ones (a table of a million rows) go to a thread, so that the
/// downloads do not stall behind their decompression.
const KEPT_IN_PLACE: u64 = 1 << 20;

/// An object to download: its hash and plain size, whether it is an archive (checked
/// as one), what the store answered when it was asked for early, and the request slots
/// shared with those early requests.
struct Wanted<'a> {
    hash: &'a str,
    size: u64,
    archive: bool,
    /// Where in the build it is written (then linked into the cache).
    target: Option<PathBuf>,
    early: Option<Asked>,
    slots: Option<&'a tokio::sync::Semaphore>,
}

/// Download one object into the cache (or take what the store answered early): its
/// hash verified after decompression, and its structure when it is an archive. The
/// bytes moved.
async fn download(
    remote: &Remote,
    cache: &Arc<Cache>,
    wanted: Wanted<'_>,
    writers: &tokio::sync::Semaphore,
) -> Result<u64, DeliveryError> {
    let Wanted {
        hash,
        size,
        archive,
        target,
        early,
        slots,
    } = wanted;
    let (store, hash) = (remote.shown().to_string(), hash.to_string());
    // What the store answered while the manifest arrived, if it came whole; checked
    // below like any answer.
    let early = match early {
        Some(mut asked) => asked
            .output()
            .await
            .flatten()
            .filter(|b| b.len() as u64 <= size),
        None => None,
    };
    // Stored compressed only when that is smaller: never more than its plain size.
    let stored = match early {
        Some(stored) => Some(stored),
        None => {
            // A slot shared with the requests asked early (never closed: only waits).
            let _slot = match slots {
                Some(slots) => slots.acquire().await.ok(),
                None => None,
            };
            remote.get(&layout::object_key(&hash), size).await?
        }
    };
    let Some(stored) = stored else {
        return Err(DeliveryError::Corrupt {
            store,
            hash,
            why: "the release names it and it is not there".into(),
        });
    };
    let moved = stored.len() as u64;
    let cache = cache.clone();
    // The semaphore is never closed: acquiring only waits.
    let _writer = writers.acquire().await;
    let keep = move || {
        let checked = object::decode(&stored, &hash, size).and_then(|plain| {
            if archive {
                check::archive(&plain).map_err(|cause| cause.to_string())?;
            }
            Ok(plain)
        });
        match (checked, target) {
            (Ok(plain), Some(target)) => keep_at(&cache, &hash, &plain, &target),
            (Ok(plain), None) => cache.put(&hash, &plain),
            (Err(why), _) => Err(DeliveryError::Corrupt { store, hash, why }),
        }
    };
    if size <= KEPT_IN_PLACE {
        keep()?;
    } else {
        blocking(keep).await?;
    }
    Ok(moved)
}

/// Files of the build, linked (or copied) from the cache on every core. Each lands on a
/// name nothing holds yet (the manifest lists each path once).
fn assemble(staged: &Path, cache: &Cache, files: &[FileEntry]) -> Result<(), DeliveryError> {
    make_folders(staged, files)?;
    let link = |entry: &FileEntry| {
        let (source, target) = (cache.path(&entry.blake3), staged.join(&entry.path));
        link_new(&source, &target).map_err(DeliveryError::io(&target))
    };
    let chunks: Vec<&[FileEntry]> = files.chunks(64).collect();
    parallel_map(&chunks, |chunk| chunk.iter().try_for_each(link))
        .into_iter()
        .collect()
}

/// The folders of the build that `files` go in.
fn make_folders(staged: &Path, files: &[FileEntry]) -> Result<(), DeliveryError> {
    let folders: BTreeSet<&Path> = files
        .iter()
        .filter_map(|entry| Path::new(&entry.path).parent())
        .collect();
    for folder in folders {
        let folder = staged.join(folder);
        std::fs::create_dir_all(&folder).map_err(DeliveryError::io(&folder))?;
    }
    Ok(())
}

/// A verified object written as a new file of the build at `target` (read-only), then
/// linked into the cache under its hash — the cache's name appears only for the whole
/// file, as a rename would make it, without the rename. Where the cache cannot link it
/// (another file system) or holds a copy already (damaged, or another fetch's), it is
/// put there as [`Cache::put`] puts it.
fn keep_at(cache: &Cache, hash: &str, plain: &[u8], target: &Path) -> Result<(), DeliveryError> {
    files::write_new(target, plain, true).map_err(DeliveryError::io(target))?;
    if std::fs::hard_link(target, cache.path(hash)).is_err() {
        cache.put(hash, plain)?;
    }
    Ok(())
}

/// `target`, a new name, for the cached object `source`: a hard link, or a copy where
/// the file system links no files. Never written through an existing name: a name that
/// exists (a link to a cached object, which every build sharing it would see changed)
/// is an error, not a file to overwrite.
fn link_new(source: &Path, target: &Path) -> std::io::Result<()> {
    match std::fs::hard_link(source, target) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
        Err(_) => {
            let mut from = std::fs::File::open(source)?;
            let mut to = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(target)?;
            std::io::copy(&mut from, &mut to).map(drop)
        }
    }
}

#[cfg(test)]
mod tests {
    use masterctl_runtime::{FORMAT_VERSION, FileKind};

    use super::*;

    #[test]
    fn objects_asked_for_while_the_manifest_arrived_are_taken_from_there() {
        let root = tempfile::tempdir().unwrap();
        let url = format!("file://{}", root.path().join("store").display());
        let remote = Remote::open(&url, &crate::RemoteOptions::default()).unwrap();
        let objects: Vec<(Vec<u8>, Option<&str>)> = (0..40)
            .map(|n| {
                (
                    format!("object {n}").into_bytes(),
                    Some(["ja", "en"][n % 2]),
                )
            })
            .collect();
        let files: Vec<FileEntry> = objects
            .iter()
            .enumerate()
            .map(|(n, (bytes, language))| FileEntry {
                path: format!("client/{n}.bin"),
                kind: FileKind::Client,
                name: format!("f{n}"),
                language: language.map(str::to_string),
                table: None,
                blake3: blake3::hash(bytes).to_hex().to_string(),
                size: bytes.len() as u64,
                rows: 0,
            })
            .collect();
        for (entry, (bytes, _)) in files.iter().zip(&objects) {
            let path = root
                .path()
                .join("store")
                .join(layout::object_key(&entry.blake3));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        let manifest = Manifest {
            format: FORMAT_VERSION,
            region: "jp".to_string(),
            source_commit: "0".repeat(40),
            schema_hash: "0".repeat(64),
            languages: vec!["ja".to_string(), "en".to_string()],
            files: files.clone(),
            fallbacks: Vec::new(),
            timezone: None,
            audience: None,
            seen_by: Vec::new(),
        };
        let stored = object::encode(&manifest.to_bytes());
        assert!(
            stored.starts_with(&crate::object::ZSTD_MAGIC),
            "stored compressed"
        );
        let cache_dir = root.path().join("cache");
        crate::runtime().unwrap().block_on(async {
            let languages = Some(vec!["ja".to_string()]);
            let prefetch = Prefetch::new(&remote, Cache::at(&cache_dir), languages, 4);
            let mut watch = ManifestWatch::new(prefetch, masterctl_runtime::MANIFEST_LIMIT);
            // The manifest arriving a few bytes at a time (the first, too few to tell
            // a zstd frame by).
            for end in [2]
                .into_iter()
                .chain((3..stored.len()).step_by(7))
                .chain([stored.len()])
            {
                watch.seen(&stored[..end]);
            }
            let mut asked = watch.into_prefetch();
            // Answered before the objects left the store; taken from there after.
            asked.answered().await;
            std::fs::remove_dir_all(root.path().join("store/objects")).unwrap();
            let cache = Arc::new(Cache::open(&cache_dir).unwrap());
            let writers = tokio::sync::Semaphore::new(1);
            for entry in &files {
                let early = asked.take(&entry.blake3);
                let wanted = Wanted {
                    hash: &entry.blake3,
                    size: entry.size,
                    archive: false,
                    target: None,
                    early,
                    slots: None,
                };
                let downloaded = download(&remote, &cache, wanted, &writers).await;
                // Only the language asked for was asked for early.
                match entry.language.as_deref() {
                    Some("ja") => assert_eq!(downloaded.unwrap(), entry.size),
                    _ => assert!(downloaded.is_err(), "{} was not asked for", entry.path),
                }
            }
        });
    }
}
