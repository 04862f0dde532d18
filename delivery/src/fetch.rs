//! `fetch`: a published release into a build directory — only the objects the cache
//! lacks, every one verified, the whole opened through the runtime before it is swapped
//! into place.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use futures::StreamExt;
use masterctl_runtime::manifest::FileKind;
use masterctl_runtime::{MANIFEST, Manifest, Masters, files};
use serde::Serialize;

use crate::layout::{self, Release};
use crate::remote::Remote;
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
    /// Objects downloaded at once.
    pub concurrency: usize,
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
}

/// Fetch a release of `options.region` from `remote` into `out`.
pub async fn fetch(
    remote: &Remote,
    out: &Path,
    options: &FetchOptions,
    progress: Progress<'_>,
) -> Result<Fetched, DeliveryError> {
    Ok(fetch_opened(remote, out, options, progress).await?.0)
}

/// [`fetch`], and the build as it was opened to check it before the swap (its maps stay
/// valid in `out`): a server takes it without opening the build a second time.
pub async fn fetch_opened(
    remote: &Remote,
    out: &Path,
    options: &FetchOptions,
    progress: Progress<'_>,
) -> Result<(Fetched, Masters), DeliveryError> {
    let region = options.region.as_str();
    layout::check_region(region)?;
    let store = remote.shown().to_string();
    let (release, manifest, manifest_bytes) = read_release(remote, region, options).await?;
    let languages = choose_languages(&release, &manifest, options.languages.as_deref())?;
    // Every file but the strings of languages not asked for.
    let taken = |f: &masterctl_runtime::FileEntry| {
        f.kind != FileKind::Strings || f.language.as_ref().is_some_and(|l| languages.contains(l))
    };
    let selected: Vec<&masterctl_runtime::FileEntry> =
        manifest.files.iter().filter(|f| taken(f)).collect();
    let replaced = check_out(out)?;
    let cache = match &options.cache {
        Some(cache) => cache.clone(),
        None => default_cache(out),
    };
    std::fs::create_dir_all(&cache).map_err(DeliveryError::io(&cache))?;

    // Every distinct object: from the cache when it holds it intact, else downloaded.
    let mut wanted: Vec<(&str, u64)> = selected
        .iter()
        .map(|f| (f.blake3.as_str(), f.size))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut fetched = Fetched {
        store,
        region: region.to_string(),
        release: release.release.clone(),
        out: out.to_path_buf(),
        cache: cache.clone(),
        languages: languages.clone(),
        objects: wanted.len(),
        downloaded: 0,
        downloaded_bytes: 0,
        reused: 0,
        reused_bytes: 0,
        replaced,
    };
    // Assembled beside `out`, opened as a server would, then swapped in.
    let manifest_out = if languages.len() == manifest.languages.len() {
        manifest_bytes
    } else {
        let mut narrowed = manifest.clone();
        narrowed.files.retain(taken);
        // `languages` stays the region's fallback order, which the strings refer to.
        narrowed
            .fallbacks
            .retain(|f| languages.contains(&f.language));
        let mut bytes = serde_json::to_vec_pretty(&narrowed).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    };
    // Cached objects are taken by their size first: opening the assembled build hashes
    // every file anyway. Should it not open, every cached object is hashed, the damaged
    // ones are downloaded again, and the build is assembled once more.
    let mut verify_cache = false;
    loop {
        let total = wanted.len();
        let mut done = 0;
        fetched.reused = 0;
        fetched.reused_bytes = 0;
        let mut downloads =
            futures::stream::iter(wanted.iter().map(|&(hash, size)| {
                cached_or_downloaded(remote, &cache, hash, size, verify_cache)
            }))
            .buffer_unordered(options.concurrency.max(1));
        while let Some(result) = downloads.next().await {
            match result? {
                Source::Cache(size) => {
                    fetched.reused += 1;
                    fetched.reused_bytes += size;
                }
                Source::Store(moved) => {
                    fetched.downloaded += 1;
                    fetched.downloaded_bytes += moved;
                }
            }
            done += 1;
            progress(done, total);
        }
        drop(downloads);
        let staged = files::staging_dir(out).map_err(DeliveryError::io(out))?;
        let opened = assemble(&staged, &cache, &selected, &manifest_out).and_then(|()| {
            Masters::open(&staged).map_err(|e| DeliveryError::Corrupt {
                store: fetched.store.clone(),
                hash: release.release.clone(),
                why: format!("the fetched build does not open: {e}"),
            })
        });
        let swapped = match opened {
            Err(_) if !verify_cache => {
                let _ = std::fs::remove_dir_all(&staged);
                verify_cache = true;
                continue;
            }
            opened => opened.and_then(|masters| {
                files::replace_dir(&staged, out)
                    .map(|()| masters)
                    .map_err(DeliveryError::io(out))
            }),
        };
        if swapped.is_err() {
            let _ = std::fs::remove_dir_all(&staged);
        }
        return Ok((fetched, swapped?));
    }
}

/// The release to fetch (the pointer's, unless one is named), and its manifest as
/// stored: checked against the release and the pointer.
async fn read_release(
    remote: &Remote,
    region: &str,
    options: &FetchOptions,
) -> Result<(Release, Manifest, Vec<u8>), DeliveryError> {
    let store = remote.shown();
    let pointer = match &options.release {
        Some(release) => {
            layout::check_release(release)?;
            None
        }
        None => match crate::manage::read_pointer(remote, region).await? {
            Some((pointer, _)) => Some(pointer),
            None => {
                // A missing bucket can answer like a missing object: tell them apart.
                if remote.is_writable() {
                    remote.probe("regions/").await?;
                }
                return Err(DeliveryError::Missing {
                    store: store.to_string(),
                    what: format!(
                        "release of region {region} ({} is not there: publish one first)",
                        layout::pointer_key(region)
                    ),
                });
            }
        },
    };
    let release_id = match (&options.release, &pointer) {
        (Some(release), _) => release.clone(),
        (None, Some(pointer)) => pointer.release.clone(),
        (None, None) => unreachable!("a pointer was read when no release was named"),
    };
    let key = layout::release_key(region, &release_id);
    let release = crate::manage::read_release(remote, region, &release_id)
        .await?
        .ok_or_else(|| DeliveryError::Missing {
            store: store.to_string(),
            what: format!("release {release_id} of region {region} ({key})"),
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
    let hash = &release.manifest_blake3;
    let stored = remote
        .get(&layout::object_key(hash))
        .await?
        .ok_or_else(|| DeliveryError::Corrupt {
            store: store.to_string(),
            hash: hash.clone(),
            why: "the release's manifest object is missing".into(),
        })?;
    let manifest_bytes = object::decode(&stored, hash, release.manifest_size).map_err(|why| {
        DeliveryError::Corrupt {
            store: store.to_string(),
            hash: hash.clone(),
            why,
        }
    })?;
    let manifest: Manifest =
        serde_json::from_slice(&manifest_bytes).map_err(|e| DeliveryError::Corrupt {
            store: store.to_string(),
            hash: hash.clone(),
            why: format!("the manifest object is not a manifest ({e})"),
        })?;
    if manifest != release.manifest {
        return Err(DeliveryError::Foreign {
            store: store.to_string(),
            key,
            why: "its manifest is not the manifest object it names".into(),
        });
    }
    Ok((release, manifest, manifest_bytes))
}

/// The languages to take: all, or the ones asked for (each must be the release's), in
/// the region's fallback order.
fn choose_languages(
    release: &Release,
    manifest: &Manifest,
    asked: Option<&[String]>,
) -> Result<Vec<String>, DeliveryError> {
    let Some(asked) = asked else {
        return Ok(manifest.languages.clone());
    };
    let asked: BTreeSet<&String> = asked.iter().collect();
    if let Some(unknown) = asked.iter().find(|l| !manifest.languages.contains(l)) {
        return Err(DeliveryError::UnknownLanguage {
            release: release.release.clone(),
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
        files::Occupant::Other => Err(DeliveryError::NotABuild(out.to_path_buf())),
    }
}

/// `.NAME.cache` beside the output folder.
fn default_cache(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "build".into(), |n| n.to_string_lossy().into_owned());
    files::parent_of(out).join(format!(".{name}.cache"))
}

enum Source {
    /// Taken from the cache: its plain size.
    Cache(u64),
    /// Downloaded: the bytes moved.
    Store(u64),
}

/// An object in the cache (of the right size; hashed when `verify`), or downloaded,
/// verified and added to it.
async fn cached_or_downloaded(
    remote: &Remote,
    cache: &Path,
    hash: &str,
    size: u64,
    verify: bool,
) -> Result<Source, DeliveryError> {
    let path = cache.join(hash);
    let cached = if !verify {
        std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == size)
    } else {
        let (path, hash) = (path.clone(), hash.to_string());
        tokio::task::spawn_blocking(move || {
            files::read_regular(&path, size.saturating_add(1))
                .ok()
                .flatten()
                .is_some_and(|bytes| {
                    bytes.len() as u64 == size && blake3::hash(&bytes).to_hex().as_str() == hash
                })
        })
        .await
        .unwrap_or(false)
    };
    if cached {
        return Ok(Source::Cache(size));
    }
    let corrupt = |why: String| DeliveryError::Corrupt {
        store: remote.shown().to_string(),
        hash: hash.to_string(),
        why,
    };
    let stored = remote
        .get(&layout::object_key(hash))
        .await?
        .ok_or_else(|| corrupt("the release names it and it is not there".into()))?;
    let moved = stored.len() as u64;
    let hash_owned = hash.to_string();
    tokio::task::spawn_blocking(move || -> Result<(), DeliveryError> {
        let plain =
            object::decode(&stored, &hash_owned, size).map_err(|why| DeliveryError::Corrupt {
                store: String::new(),
                hash: hash_owned.clone(),
                why,
            })?;
        files::write_atomic_unsynced(&path, &plain).map_err(DeliveryError::io(&path))
    })
    .await
    .map_err(|e| corrupt(e.to_string()))?
    .map_err(|e| match e {
        DeliveryError::Corrupt { why, .. } => corrupt(why),
        other => other,
    })?;
    Ok(Source::Store(moved))
}

/// The build's files, linked (or copied) from the cache, and its manifest.
fn assemble(
    staged: &Path,
    cache: &Path,
    files: &[&masterctl_runtime::FileEntry],
    manifest: &[u8],
) -> Result<(), DeliveryError> {
    for entry in files {
        let target = staged.join(&entry.path);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(DeliveryError::io(dir))?;
        }
        let source = cache.join(&entry.blake3);
        if std::fs::hard_link(&source, &target).is_err() {
            std::fs::copy(&source, &target).map_err(DeliveryError::io(&target))?;
        }
    }
    let path = staged.join(MANIFEST);
    std::fs::write(&path, manifest).map_err(DeliveryError::io(&path))
}
