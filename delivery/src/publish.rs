//! `publish`: a build directory onto a store — objects the store lacks, then the
//! release, then the pointer.

use std::path::{Path, PathBuf};

use futures::StreamExt;
use serde::Serialize;

use crate::layout::{self, Pointer, Release};
use crate::remote::Remote;
use crate::{DeliveryError, Progress, object};

/// How to publish.
#[derive(Debug, Clone)]
pub struct PublishOptions {
    /// Move the pointer even to a release published before the current one.
    pub force: bool,
    /// Objects checked and uploaded at once.
    pub concurrency: usize,
    /// What the publish record names as its tool (`masterctl 0.1.0`).
    pub tool: String,
}

impl Default for PublishOptions {
    fn default() -> PublishOptions {
        PublishOptions {
            force: false,
            concurrency: crate::CONCURRENCY,
            tool: format!("masterctl {}", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// What a publish did.
#[derive(Debug, Clone, Serialize)]
pub struct Published {
    pub store: String,
    pub region: String,
    pub release: String,
    /// The objects of the build (its files and its manifest).
    pub objects: usize,
    pub uploaded: usize,
    /// Bytes sent for the uploaded objects (compressed where that was smaller).
    pub uploaded_bytes: u64,
    pub skipped: usize,
    /// Plain bytes of the objects the store already had.
    pub skipped_bytes: u64,
    /// Whether the release record was written now (else it was already there).
    pub release_written: bool,
    /// The release the pointer named before (`None`: the region's first publish).
    pub previous: Option<String>,
    /// Whether the pointer moved (else it already named this release).
    pub pointer_moved: bool,
}

/// One file of the build to put on the store.
struct Part {
    path: PathBuf,
    hash: String,
    size: u64,
}

/// Publish the build in `dir` to `remote`.
pub async fn publish(
    remote: &Remote,
    dir: &Path,
    options: &PublishOptions,
    progress: Progress<'_>,
) -> Result<Published, DeliveryError> {
    if !remote.is_writable() {
        return Err(DeliveryError::ReadOnly {
            store: remote.shown().to_string(),
        });
    }
    let (manifest, manifest_bytes) =
        masterctl_runtime::read_manifest(dir).map_err(DeliveryError::Unloadable)?;
    // A missing bucket, refused credentials, a server down: said before any work (some
    // servers would create a bucket on the first write).
    remote.probe("regions/").await?;
    let region = manifest.region.clone();
    let release = manifest.source_commit.clone();
    layout::check_region(&region)?;
    layout::check_release(&release)?;
    let manifest_hash = blake3::hash(&manifest_bytes).to_hex().to_string();
    let pointer_key = layout::pointer_key(&region);
    let current = crate::manage::read_pointer(remote, &region).await?;
    // One object per distinct content (two files may hold the same bytes).
    let mut parts: Vec<Part> = manifest
        .files
        .iter()
        .map(|f| Part {
            path: dir.join(&f.path),
            hash: f.blake3.clone(),
            size: f.size,
        })
        .collect();
    parts.sort_by(|a, b| a.hash.cmp(&b.hash));
    parts.dedup_by(|a, b| a.hash == b.hash);
    let mut published = Published {
        store: remote.shown().to_string(),
        region: region.clone(),
        release: release.clone(),
        objects: parts.len() + 1,
        uploaded: 0,
        uploaded_bytes: 0,
        skipped: 0,
        skipped_bytes: 0,
        release_written: false,
        previous: current.as_ref().map(|(p, _)| p.release.clone()),
        pointer_moved: false,
    };
    // The release is current already: nothing to move, nothing to check.
    if let Some((pointer, _)) = &current
        && pointer.release == release
        && pointer.manifest_blake3 == manifest_hash
    {
        published.skipped = published.objects;
        published.skipped_bytes =
            parts.iter().map(|p| p.size).sum::<u64>() + manifest_bytes.len() as u64;
        return Ok(published);
    }

    // 1. Objects the store lacks, many at once; the manifest's own object last.
    let total = parts.len() + 1;
    let all_plain = parts.iter().map(|p| p.size).sum::<u64>() + manifest_bytes.len() as u64;
    let mut uploaded_plain = 0u64;
    let mut done = 0;
    let mut uploads = crate::bounded(
        &parts,
        options.concurrency,
        |part| part.size,
        |part| upload(remote, part),
    );
    while let Some(result) = uploads.next().await {
        if let Some((plain, sent)) = result? {
            published.uploaded += 1;
            published.uploaded_bytes += sent;
            uploaded_plain += plain;
        } else {
            published.skipped += 1;
        }
        done += 1;
        progress(done, total);
    }
    drop(uploads);
    let manifest_key = layout::object_key(&manifest_hash);
    let stored = object::encode(&manifest_bytes);
    let sent = stored.len() as u64;
    if remote.create(&manifest_key, stored).await? {
        published.uploaded += 1;
        published.uploaded_bytes += sent;
        uploaded_plain += manifest_bytes.len() as u64;
    } else {
        published.skipped += 1;
    }
    progress(total, total);
    published.skipped_bytes = all_plain - uploaded_plain;

    // 2. The release: created once; a republish finds it and checks it is this build.
    let release_key = layout::release_key(&region, &release);
    let record = Release {
        masterctl_release: layout::LAYOUT_VERSION,
        region: region.clone(),
        release: release.clone(),
        manifest_blake3: manifest_hash.clone(),
        manifest_size: manifest_bytes.len() as u64,
        manifest: manifest.clone(),
        published: layout::Published {
            time: layout::now(),
            tool: options.tool.clone(),
        },
    };
    let record_bytes = serde_json::to_vec_pretty(&record).unwrap_or_default();
    published.release_written = remote.create(&release_key, record_bytes).await?;
    let ours = if published.release_written {
        record
    } else {
        let bytes = remote
            .get(&release_key)
            .await?
            .ok_or_else(|| DeliveryError::Missing {
                store: remote.shown().to_string(),
                what: release_key.clone(),
            })?;
        let there = Release::parse(&bytes, &release_key, remote.shown(), &region)?;
        if there.manifest_blake3 != manifest_hash {
            return Err(DeliveryError::Different {
                region,
                release,
                ours: manifest_hash,
                theirs: there.manifest_blake3,
            });
        }
        there
    };

    // 3. The pointer, last, and only if no one moved it since it was read.
    if let Some((pointer, _)) = &current
        && pointer.release != release
        && !options.force
        && let Some(theirs) = crate::manage::read_release(remote, &region, &pointer.release).await?
        && theirs.published.time > ours.published.time
    {
        return Err(DeliveryError::Backwards {
            region,
            release,
            current: pointer.release.clone(),
        });
    }
    let pointer = Pointer {
        masterctl_pointer: layout::LAYOUT_VERSION,
        region: region.clone(),
        release: release.clone(),
        manifest_blake3: manifest_hash,
        time: layout::now(),
    };
    let pointer_bytes = serde_json::to_vec_pretty(&pointer).unwrap_or_default();
    let expected = current.as_ref().map(|(_, version)| version);
    if !remote
        .swap(&pointer_key, pointer_bytes.clone(), expected)
        .await?
    {
        return Err(DeliveryError::Raced { region, release });
    }
    // Read back: a server that checks a condition without holding the object (s3s-fs)
    // can let two racing writes both pass; the one whose pointer did not stay learns it.
    let stayed = remote.get(&pointer_key).await?;
    if stayed.as_deref() != Some(pointer_bytes.as_slice()) {
        return Err(DeliveryError::Raced { region, release });
    }
    published.pointer_moved = true;
    Ok(published)
}

/// Put one file's object on the store unless it is there: `Some((plain bytes, bytes
/// sent))` when uploaded. The file must be what the manifest says, byte for byte.
async fn upload(remote: &Remote, part: &Part) -> Result<Option<(u64, u64)>, DeliveryError> {
    let key = layout::object_key(&part.hash);
    if remote.exists(&key).await? {
        return Ok(None);
    }
    let path = part.path.clone();
    let hash = part.hash.clone();
    let size = part.size;
    let stored = tokio::task::spawn_blocking(move || -> Result<Vec<u8>, DeliveryError> {
        let plain = std::fs::read(&path).map_err(DeliveryError::io(&path))?;
        let found = blake3::hash(&plain).to_hex();
        if plain.len() as u64 != size || found.as_str() != hash {
            return Err(DeliveryError::Build {
                path,
                why: format!(
                    "{} bytes hashing to {found}; the manifest says {size} bytes, {hash}: rebuild",
                    plain.len()
                ),
            });
        }
        Ok(object::encode(&plain))
    })
    .await
    .map_err(|e| DeliveryError::Build {
        path: part.path.clone(),
        why: e.to_string(),
    })??;
    let sent = stored.len() as u64;
    Ok(remote.create(&key, stored).await?.then_some((size, sent)))
}
