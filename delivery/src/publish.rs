//! `publish`: a build directory onto a store — objects the store lacks, then the
//! release, then the pointer.

use std::collections::HashSet;
use std::future::Future;
use std::path::{Path, PathBuf};

use futures::StreamExt;
use serde::Serialize;

use crate::ahead::Ahead;
use crate::layout::{self, Pointer, Release};
use crate::manifests::names_of;
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
    /// Read back every object of the build (the current release's too) and put again
    /// what is missing or damaged, instead of trusting what the store holds.
    pub repair: bool,
    /// The versions naming the build's commit (`masters/jp/1.4`), recorded with the
    /// release.
    pub versions: Vec<String>,
    /// Who publishes (`Name <email>`), recorded with the release and the pointer.
    pub by: Option<String>,
    /// The publisher's words, recorded likewise.
    pub message: Option<String>,
    /// Sign the release with this key (`crate::signing`): its signature is put beside
    /// its record before the pointer names it.
    pub sign: Option<std::sync::Arc<crate::signing::SigningKey>>,
}

impl Default for PublishOptions {
    fn default() -> PublishOptions {
        PublishOptions {
            force: false,
            concurrency: crate::CONCURRENCY,
            tool: format!("masterctl {}", env!("CARGO_PKG_VERSION")),
            repair: false,
            versions: Vec::new(),
            by: None,
            message: None,
            sign: None,
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
    /// Objects whose presence was asked of the store: those the current release does
    /// not name (its objects are there — every publish puts them before its release,
    /// and gc keeps them), or every object when repairing.
    pub asked: usize,
    /// Whether every object was read back from the store and verified (`repair`).
    pub verified: bool,
    /// Objects found missing or damaged and put again (`repair`; counted in `uploaded`
    /// too).
    pub repaired: usize,
    /// Whether the release record was written now (else it was already there).
    pub release_written: bool,
    /// The release the pointer named before (`None`: the region's first publish).
    pub previous: Option<String>,
    /// Whether the pointer moved (else it already named this release).
    pub pointer_moved: bool,
    /// Whether another publisher of this very build moved the pointer to it first (this
    /// one's move then had nothing left to do).
    pub moved_by_another: bool,
    /// The key that signed the release and the number it stated, when it was signed.
    pub signed: Option<crate::signing::SignedAs>,
}

/// One file of the build to put on the store.
struct Part {
    path: PathBuf,
    hash: String,
    size: u64,
}

/// Publish the build in `dir` to `remote`: the objects the store lacks, then the
/// release record, then the pointer, under a write lease (never while a gc runs).
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
    let build = Build::read(dir)?;
    // A missing bucket, refused credentials, a server down: said before any write (some
    // servers would create a bucket on the first one). The pointer is read meanwhile: a
    // round trip saved, and the probe's error is the one told.
    let (probed, current) = futures::join!(
        remote.probe("regions/"),
        crate::manage::read_pointer(remote, &build.region)
    );
    probed?;
    let current = current?;
    let parts = build.parts(dir);
    let mut published = build.outcome(remote, parts.len(), current.as_ref(), options);
    // The release is current already: nothing to move, nothing to check (unless asked
    // to repair what the store holds, or to sign it when it is not signed).
    let is_current = current.as_ref().is_some_and(|(p, _)| {
        p.release == build.release
            && p.manifest_blake3 == build.manifest_hash
            && (options.sign.is_none() || p.sequence.is_some())
    });
    if is_current && !options.repair {
        record_versions(remote, options, &mut published).await?;
        published.skipped = published.objects;
        published.skipped_bytes =
            parts.iter().map(|p| p.size).sum::<u64>() + build.manifest_bytes.len() as u64;
        return Ok(published);
    }
    // What the current release names (its manifest object), and — when the pointer
    // is to move from another release — its record, read while the lease is taken.
    let (early_names, early_record) = match &current {
        Some((pointer, _)) if !options.repair => {
            let backwards_check = pointer.release != build.release && !options.force;
            (
                Some(read_names_early(remote, &build.region, pointer)),
                backwards_check.then(|| read_early(remote, &build.region, pointer)),
            )
        }
        _ => (None, None),
    };
    let what = format!("publish of release {} of {}", build.release, build.region);
    // The pointer read again once the lease is there (nothing to read when repairing),
    // on a task of its own: the work under the lease begins as soon as the lease is
    // known to be held, and waits for this read only where it needs it.
    let repairing = options.repair;
    let region = &build.region;
    let pointer_again = {
        let (remote, region, first) = (remote.clone(), region.clone(), current.clone());
        async move {
            (!repairing).then(|| {
                Ahead::spawn(async move {
                    crate::manage::read_pointer_again(&remote, &region, first).await
                })
            })
        }
    };
    let step = Step {
        remote,
        build: &build,
        options,
        progress,
    };
    let (published, settled) = crate::lease::holding_then(
        remote,
        crate::lease::Kind::Write,
        &what,
        crate::lease::GC_WAIT,
        pointer_again,
        |pointer_again| async move {
            // Which objects the store has: the names of the release the pointer names
            // once the lease is there.
            let known = async {
                let pointer_again = match pointer_again.flatten() {
                    Some(mut read) => read.output().await,
                    None => None,
                };
                current_names(remote, region, early_names, pointer_again).await
            };
            let move_from = (!is_current).then_some(current.as_ref());
            let swapped =
                put_release(&step, parts, known, move_from, early_record, &mut published).await?;
            // Read back while the lease is given back.
            let read_back = async move {
                match swapped {
                    Some(swapped) => settle(remote, &swapped).await.map(Some),
                    None => Ok(None),
                }
            };
            Ok((published, read_back))
        },
    )
    .await?;
    let mut published = published;
    match settled? {
        Some(Settled::Moved) => published.pointer_moved = true,
        Some(Settled::ByAnother) => published.moved_by_another = true,
        None => {}
    }
    Ok(published)
}

/// The build being published, as its folder holds it.
struct Build {
    manifest: masterctl_runtime::Manifest,
    manifest_bytes: Vec<u8>,
    manifest_hash: String,
    region: String,
    release: String,
}

impl Build {
    /// The build in `dir`: its manifest read, its region and release checked.
    fn read(dir: &Path) -> Result<Build, DeliveryError> {
        let (manifest, manifest_bytes) =
            masterctl_runtime::read_manifest(dir).map_err(DeliveryError::Unloadable)?;
        let region = manifest.region.clone();
        let release = layout::release_id(&manifest);
        layout::check_region(&region)?;
        layout::check_release(&release)?;
        let manifest_hash = blake3::hash(&manifest_bytes).to_hex().to_string();
        Ok(Build {
            manifest,
            manifest_bytes,
            manifest_hash,
            region,
            release,
        })
    }

    /// Its files in `dir`, one per distinct content (two files may hold the same bytes).
    fn parts(&self, dir: &Path) -> Vec<Part> {
        let mut parts: Vec<Part> = self
            .manifest
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
        parts
    }

    /// The outcome before anything is done: `parts` objects and the manifest's, the
    /// release the pointer names now (`current`).
    fn outcome(
        &self,
        remote: &Remote,
        parts: usize,
        current: Option<&(Pointer, object_store::UpdateVersion)>,
        options: &PublishOptions,
    ) -> Published {
        Published {
            store: remote.shown().to_string(),
            region: self.region.clone(),
            release: self.release.clone(),
            objects: parts + 1,
            uploaded: 0,
            uploaded_bytes: 0,
            skipped: 0,
            skipped_bytes: 0,
            asked: 0,
            release_written: false,
            previous: current.map(|(p, _)| p.release.clone()),
            pointer_moved: false,
            verified: options.repair,
            repaired: 0,
            moved_by_another: false,
            signed: None,
        }
    }
}

/// What every step under the lease works with.
struct Step<'a> {
    remote: &'a Remote,
    build: &'a Build,
    options: &'a PublishOptions,
    progress: Progress<'a>,
}

/// Under the lease: the objects the current release does not name (`known`: a read of
/// the objects it names), then the release record, then the pointer moved from where it
/// is (`move_from`: `Some(None)` when there is none yet; `None` when it names this
/// release already; `record`: its release's record, read ahead). Returns the swap to
/// read back, when the pointer was moved.
async fn put_release(
    step: &Step<'_>,
    parts: Vec<Part>,
    known: impl Future<Output = Result<Option<HashSet<String>>, DeliveryError>>,
    move_from: Option<Option<&(Pointer, object_store::UpdateVersion)>>,
    record: Option<EarlyRecord>,
    published: &mut Published,
) -> Result<Option<Swapped>, DeliveryError> {
    let Step {
        remote,
        build,
        options,
        progress,
    } = step;
    // The manifest's object goes up at once (a new release's is new, and under the
    // lease no gc can take it), beside the read of what is there and the uploads.
    let manifest = Part {
        path: PathBuf::new(),
        hash: build.manifest_hash.clone(),
        size: build.manifest_bytes.len() as u64,
    };
    let manifest_put = put_object(
        remote,
        &manifest,
        build.manifest_bytes.clone(),
        options.repair,
    );
    let objects = async {
        // What the current release names is there: only the rest is asked about.
        let known = known.await?.unwrap_or_default();
        let (there, asked): (Vec<Part>, Vec<Part>) =
            parts.into_iter().partition(|p| known.contains(&p.hash));
        published.skipped += there.len();
        published.skipped_bytes += there.iter().map(|p| p.size).sum::<u64>();
        upload_objects(remote, &asked, options, progress, published).await?;
        Ok::<usize, DeliveryError>(asked.len() + 1)
    };
    let (manifest_sent, objects) = futures::join!(manifest_put, objects);
    let total = objects?;
    published.count(manifest_sent?, manifest.size);
    progress(total, total);
    let ours = write_release(
        remote,
        &build.manifest,
        &build.manifest_bytes,
        &build.manifest_hash,
        options,
        published,
    )
    .await?;
    let Some(from) = move_from else {
        return Ok(None);
    };
    // Signed once the record is there (a release already published from another
    // build is refused before its signature could be replaced), before the pointer.
    if let Some(key) = &options.sign {
        let current = from.map(|(pointer, _)| pointer);
        let (manifest, bytes) = (&build.manifest, &build.manifest_bytes);
        let signed =
            crate::signing::put_signature(remote, key, manifest, bytes, &build.release, current);
        published.signed = Some(signed.await?);
    }
    let sequence = published.signed.as_ref().map(|s| s.sequence);
    let record = match (record, from) {
        (Some(record), Some((pointer, _))) => record.of(&pointer.release).await,
        _ => None,
    };
    let current = from.map(|(pointer, version)| Current {
        pointer,
        version,
        record: record.as_ref(),
    });
    Ok(Some(
        move_pointer(remote, &ours, current, sequence, options).await?,
    ))
}

/// A record read ahead: the release it is of, and the read, running as a task of its
/// own.
struct EarlyRecord {
    release: String,
    read: Ahead<Result<Option<Release>, DeliveryError>>,
}

impl EarlyRecord {
    /// The record, when it is of `release` and was read (else the caller reads it).
    async fn of(mut self, release: &str) -> Option<Release> {
        if self.release != release {
            return None;
        }
        match self.read.output().await {
            Some(Ok(read)) => read,
            _ => None,
        }
    }
}

/// The record of the release `pointer` names, read while the publish takes its lease
/// and puts its objects, for the check that the pointer does not move backwards.
fn read_early(remote: &Remote, region: &str, pointer: &Pointer) -> EarlyRecord {
    let (remote, region, release) = (remote.clone(), region.to_string(), pointer.release.clone());
    EarlyRecord {
        release: release.clone(),
        read: Ahead::spawn(
            async move { crate::manage::read_release(&remote, &region, &release).await },
        ),
    }
}

/// The objects a release names, read ahead: the pointer they were read for, and the
/// read, running as a task of its own.
struct EarlyNames {
    pointer: Pointer,
    read: Ahead<Result<Option<HashSet<String>>, DeliveryError>>,
}

/// The objects of the release `pointer` names, read while the publish takes its lease
/// (a round trip and the manifest's transfer saved).
fn read_names_early(remote: &Remote, region: &str, pointer: &Pointer) -> EarlyNames {
    let (remote, region, read_for) = (remote.clone(), region.to_string(), pointer.clone());
    EarlyNames {
        pointer: pointer.clone(),
        read: Ahead::spawn(async move { names_of(&remote, &region, &read_for).await }),
    }
}

/// The objects the region's current release names, as the pointer read under the
/// publish's lease names it, while no gc can delete what it names: they are on the
/// store, and the store need not be asked about them. Names read `early`, before the
/// lease, are taken when they were read for that very pointer (release and manifest:
/// what a manifest names never changes); otherwise they are read now. `pointer` is the
/// pointer as read once the lease was there (`None`: it is read now). `None` when
/// repairing (nothing read early: every object is asked about), before the first
/// publish, or when the manifest object is missing or is not the pointer's.
async fn current_names(
    remote: &Remote,
    region: &str,
    early: Option<EarlyNames>,
    pointer: Option<Result<Option<(Pointer, object_store::UpdateVersion)>, DeliveryError>>,
) -> Result<Option<HashSet<String>>, DeliveryError> {
    let Some(mut early) = early else {
        return Ok(None);
    };
    let pointer = match pointer {
        Some(read) => read,
        None => crate::manage::read_pointer(remote, region).await,
    };
    let Some((pointer, _)) = pointer? else {
        return Ok(None);
    };
    if early.pointer.release == pointer.release
        && early.pointer.manifest_blake3 == pointer.manifest_blake3
        && let Some(Ok(read)) = early.read.output().await
    {
        return Ok(read);
    }
    // Another release, or a read that failed: read under the lease.
    names_of(remote, region, &pointer).await
}

/// 1. The objects the store lacks, many at once (the manifest's own is put beside
///    them). With `repair`, every object is read back and verified, and put again when
///    it is not whole. Progress counts the manifest's object as the last.
async fn upload_objects(
    remote: &Remote,
    parts: &[Part],
    options: &PublishOptions,
    progress: Progress<'_>,
    published: &mut Published,
) -> Result<(), DeliveryError> {
    let total = parts.len() + 1;
    let mut uploads = crate::bounded(
        parts,
        options.concurrency,
        |part| part.size,
        |part| upload(remote, part, options.repair),
    );
    let mut done = 0;
    while let Some(result) = uploads.next().await {
        let (sent, plain) = result?;
        published.count(sent, plain);
        done += 1;
        progress(done, total);
    }
    Ok(())
}

impl Published {
    /// One object counted: what became of it, and its plain size.
    fn count(&mut self, sent: Sent, plain: u64) {
        self.asked += 1;
        match sent {
            Sent::Skipped => {
                self.skipped += 1;
                self.skipped_bytes += plain;
            }
            Sent::Uploaded(bytes) | Sent::Repaired(bytes) => {
                self.uploaded += 1;
                self.uploaded_bytes += bytes;
                self.repaired += usize::from(matches!(sent, Sent::Repaired(_)));
            }
        }
    }
}

/// 2. The release: created once; a republish finds it and checks it is this build (a
///    record that does not read is written again when repairing).
async fn write_release(
    remote: &Remote,
    manifest: &masterctl_runtime::Manifest,
    manifest_bytes: &[u8],
    manifest_hash: &str,
    options: &PublishOptions,
    published: &mut Published,
) -> Result<Release, DeliveryError> {
    let (region, release) = (&published.region, &published.release);
    let release_key = layout::release_key(region, release);
    let record = Release {
        masterctl_release: layout::RELEASE_FORMAT,
        region: region.clone(),
        release: release.clone(),
        manifest_blake3: manifest_hash.to_string(),
        manifest_size: manifest_bytes.len() as u64,
        manifest: None,
        build: Some(layout::Summary::of(manifest)),
        published: layout::Published {
            time: layout::now(),
            tool: options.tool.clone(),
            by: options.by.clone(),
            message: options.message.clone(),
        },
        versions: options
            .versions
            .iter()
            .filter(|v| layout::is_version_tag(v, region))
            .cloned()
            .collect(),
    };
    let record_bytes = record.to_bytes();
    published.release_written = remote.create(&release_key, record_bytes.clone()).await?;
    if published.release_written {
        return Ok(record);
    }
    let there = match remote.get(&release_key, layout::RELEASE_LIMIT).await? {
        Some(bytes) => Release::parse(&bytes, &release_key, remote.shown(), region),
        None => Err(DeliveryError::NoRelease {
            store: remote.shown().to_string(),
            what: release_key.clone(),
        }),
    };
    let there = match there {
        Ok(there) => there,
        Err(_) if options.repair => {
            remote.put(&release_key, record_bytes).await?;
            published.release_written = true;
            published.repaired += 1;
            return Ok(record);
        }
        Err(e) => return Err(e),
    };
    if there.manifest_blake3 != manifest_hash {
        return Err(DeliveryError::Different {
            region: region.clone(),
            release: release.clone(),
            ours: manifest_hash.to_string(),
            theirs: there.manifest_blake3,
        });
    }
    let mut there = there;
    if add_versions(&mut there, &record.versions) {
        remote.put(&release_key, there.to_bytes()).await?;
        published.release_written = true;
    }
    Ok(there)
}

/// Versions the record lacks added to it (those of its region only); whether any was.
fn add_versions(record: &mut Release, versions: &[String]) -> bool {
    let new: Vec<String> = versions
        .iter()
        .filter(|v| layout::is_version_tag(v, &record.region) && !record.versions.contains(v))
        .cloned()
        .collect();
    if new.is_empty() {
        return false;
    }
    record.versions.extend(new);
    record.versions.sort();
    true
}

/// A release current already: a version tagged since it was published is recorded in
/// its record (read, added to, written back).
async fn record_versions(
    remote: &Remote,
    options: &PublishOptions,
    published: &mut Published,
) -> Result<(), DeliveryError> {
    if options.versions.is_empty() {
        return Ok(());
    }
    let key = layout::release_key(&published.region, &published.release);
    let Some(bytes) = remote.get(&key, layout::RELEASE_LIMIT).await? else {
        return Ok(());
    };
    let mut record = Release::parse(&bytes, &key, remote.shown(), &published.region)?;
    if add_versions(&mut record, &options.versions) {
        remote.put(&key, record.to_bytes()).await?;
        published.release_written = true;
    }
    Ok(())
}

/// 3. The pointer, last, and only if no one moved it since it was read ([`settle`] then
///    reads it back). Another publisher of this very build that moved it first did this
///    one's work.
async fn move_pointer(
    remote: &Remote,
    ours: &Release,
    current: Option<Current<'_>>,
    sequence: Option<u64>,
    options: &PublishOptions,
) -> Result<Swapped, DeliveryError> {
    let (region, release) = (ours.region.clone(), ours.release.clone());
    if let Some(Current {
        pointer, record, ..
    }) = &current
        && pointer.release != release
        && !options.force
        && let Some(their_time) = match record {
            Some(record) => Some(record.published.time.clone()),
            None => crate::manage::read_release(remote, &region, &pointer.release)
                .await?
                .map(|r| r.published.time),
        }
        && their_time > ours.published.time
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
        manifest_blake3: ours.manifest_blake3.clone(),
        time: layout::now(),
        by: ours.published.by.clone(),
        reason: ours.published.message.clone(),
        sequence,
    };
    let pointer_key = layout::pointer_key(&region);
    let pointer_bytes = serde_json::to_vec_pretty(&pointer).unwrap_or_default();
    let expected = current.map(|c| c.version);
    let written = remote
        .swap(&pointer_key, pointer_bytes.clone(), expected)
        .await?;
    Ok(Swapped {
        written,
        pointer,
        bytes: pointer_bytes,
    })
}

/// The pointer this publish wrote (or tried to: `written` is the version the store
/// gave it, `None` when the store refused it).
struct Swapped {
    written: Option<object_store::UpdateVersion>,
    pointer: Pointer,
    bytes: Vec<u8>,
}

/// How the pointer stands after a [`Swapped`], read back — which needs no lease: the
/// release it names is current, and gc keeps what a current release names.
enum Settled {
    /// Ours.
    Moved,
    /// Another publish of this very build moved it there.
    ByAnother,
}

/// Read back: a server that checks a condition without holding the object (s3s-fs) can
/// let two racing writes both pass; the one whose pointer did not stay learns it. Asked
/// first by the version the store gave the write (a HEAD: no body moves); the pointer
/// is read only when that does not answer it.
async fn settle(remote: &Remote, ours: &Swapped) -> Result<Settled, DeliveryError> {
    let (region, release) = (&ours.pointer.region, &ours.pointer.release);
    let pointer_key = layout::pointer_key(region);
    if let Some(written) = &ours.written
        && remote.still(&pointer_key, written).await?
    {
        return Ok(Settled::Moved);
    }
    let stayed = remote.get(&pointer_key, layout::POINTER_LIMIT).await?;
    if ours.written.is_some() && stayed.as_deref() == Some(ours.bytes.as_slice()) {
        return Ok(Settled::Moved);
    }
    let now_current = match &stayed {
        Some(bytes) => Some(Pointer::parse(bytes, &pointer_key, remote.shown(), region)?),
        None => None,
    };
    if now_current
        .is_some_and(|p| p.release == *release && p.manifest_blake3 == ours.pointer.manifest_blake3)
    {
        return Ok(Settled::ByAnother);
    }
    Err(DeliveryError::Raced {
        region: region.clone(),
        release: release.clone(),
    })
}

/// The pointer as the publish first read it, with the record of the release it names
/// when the publish has read that already.
struct Current<'a> {
    pointer: &'a Pointer,
    version: &'a object_store::UpdateVersion,
    record: Option<&'a Release>,
}

/// What became of one object.
#[derive(Debug, Clone, Copy)]
enum Sent {
    /// The store had it (and, repairing, it read back whole).
    Skipped,
    /// Put now: the bytes sent.
    Uploaded(u64),
    /// It was damaged or missing from the current release, and put again.
    Repaired(u64),
}

/// Objects up to this size are put create-only without asking first whether the store
/// holds them (it answers a create of an object there with a refusal, and the object
/// is counted as there): sending them costs less than the round trip a question does.
/// Larger ones are asked about first, so that a build sharing them with an older
/// release does not send them again.
const PUT_WITHOUT_ASKING: u64 = 256 << 10;

/// Put one file's object on the store unless it is there (with `repair`: unless it
/// reads back whole). The file must be what the manifest says, byte for byte. What
/// became of it, and its plain size.
async fn upload(remote: &Remote, part: &Part, repair: bool) -> Result<(Sent, u64), DeliveryError> {
    let key = layout::object_key(&part.hash);
    if !repair && part.size > PUT_WITHOUT_ASKING && remote.exists(&key).await? {
        return Ok((Sent::Skipped, part.size));
    }
    let path = part.path.clone();
    let hash = part.hash.clone();
    let size = part.size;
    let plain = tokio::task::spawn_blocking(move || -> Result<Vec<u8>, DeliveryError> {
        let plain = masterctl_runtime::files::read_regular(&path, size)
            .map_err(DeliveryError::io(&path))?
            .ok_or_else(|| DeliveryError::Build {
                path: path.clone(),
                why: "the manifest names it and it is not there: rebuild".into(),
            })?;
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
        Ok(plain)
    })
    .await
    .map_err(|e| DeliveryError::Build {
        path: part.path.clone(),
        why: e.to_string(),
    })??;
    Ok((put_object(remote, part, plain, repair).await?, part.size))
}

/// Put `plain`, verified to be `part`'s content, as its object: created when missing;
/// with `repair`, an object there is read back and written again unless it is whole.
async fn put_object(
    remote: &Remote,
    part: &Part,
    plain: Vec<u8>,
    repair: bool,
) -> Result<Sent, DeliveryError> {
    let key = layout::object_key(&part.hash);
    let stored = object::encode(&plain);
    let sent = stored.len() as u64;
    if !repair {
        return Ok(match remote.create(&key, stored).await? {
            true => Sent::Uploaded(sent),
            false => Sent::Skipped,
        });
    }
    let whole = match remote.get(&key, part.size).await {
        Ok(Some(there)) => object::decode(&there, &part.hash, part.size).is_ok(),
        Ok(None) | Err(DeliveryError::TooLarge { .. }) => false,
        Err(e) => return Err(e),
    };
    if whole {
        return Ok(Sent::Skipped);
    }
    // Content-addressed: the bytes put are the only bytes that name may hold.
    remote.put(&key, stored).await?;
    Ok(Sent::Repaired(sent))
}

#[cfg(test)]
mod tests {
    use masterctl_runtime::{FORMAT_VERSION, FileEntry, FileKind, MANIFEST, Manifest};

    use super::*;

    /// A build of one client file in `dir`, of commit `n`.
    fn build(dir: &Path, n: u32) -> PathBuf {
        let bytes = format!("table {n}").into_bytes();
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("t.bin"), &bytes).unwrap();
        let manifest = Manifest {
            format: FORMAT_VERSION,
            region: "jp".to_string(),
            source_commit: format!("{n:040x}"),
            schema_hash: "0".repeat(64),
            languages: vec!["ja".to_string()],
            files: vec![FileEntry {
                path: "t.bin".to_string(),
                kind: FileKind::Client,
                name: "t_bin".to_string(),
                language: None,
                table: None,
                blake3: blake3::hash(&bytes).to_hex().to_string(),
                size: bytes.len() as u64,
                rows: 0,
            }],
            fallbacks: Vec::new(),
            timezone: None,
            audience: None,
            seen_by: Vec::new(),
        };
        std::fs::write(dir.join(MANIFEST), manifest.to_bytes()).unwrap();
        dir.to_path_buf()
    }

    #[test]
    fn names_read_early_are_taken_only_for_the_release_the_pointer_still_names() {
        let root = tempfile::tempdir().unwrap();
        let url = format!("file://{}", root.path().join("store").display());
        let remote = Remote::open(&url, &crate::RemoteOptions::default()).unwrap();
        let options = PublishOptions {
            force: true,
            ..PublishOptions::default()
        };
        crate::runtime().unwrap().block_on(async {
            let quiet = |_: usize, _: usize| {};
            let pointer = || async {
                let read = crate::manage::read_pointer(&remote, "jp").await;
                read.unwrap().unwrap().0
            };
            let file_of = |n: u32| {
                blake3::hash(format!("table {n}").as_bytes())
                    .to_hex()
                    .to_string()
            };
            let (b1, b2) = (root.path().join("b1"), root.path().join("b2"));
            publish(&remote, &build(&b1, 1), &options, &quiet)
                .await
                .unwrap();
            let first = pointer().await;
            publish(&remote, &build(&b2, 2), &options, &quiet)
                .await
                .unwrap();
            let second = pointer().await;

            // Read early for the first release; by the time the lease is held the
            // pointer names the second: its names are read then.
            let early = read_names_early(&remote, "jp", &first);
            let names = current_names(&remote, "jp", Some(early), None)
                .await
                .unwrap();
            let names = names.unwrap();
            assert!(names.contains(&file_of(2)) && !names.contains(&file_of(1)));
            assert!(names.contains(&second.manifest_blake3));

            // Read early for the release the pointer still names: taken as they were
            // read (its manifest object gone from the store since, a read now would
            // find none).
            let early = read_names_early(&remote, "jp", &second);
            while !early.read.is_finished() {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
            let manifest_object = root
                .path()
                .join("store")
                .join(layout::object_key(&second.manifest_blake3));
            std::fs::remove_file(&manifest_object).unwrap();
            let names = current_names(&remote, "jp", Some(early), None)
                .await
                .unwrap();
            assert!(names.unwrap().contains(&file_of(2)));
            // Read now, the missing manifest object names nothing: every object is
            // asked about.
            let early = read_names_early(&remote, "jp", &first);
            assert!(
                current_names(&remote, "jp", Some(early), None)
                    .await
                    .unwrap()
                    .is_none()
            );
            // Nothing read early (repairing): every object asked about.
            assert!(
                current_names(&remote, "jp", None, None)
                    .await
                    .unwrap()
                    .is_none()
            );
        });
    }

    #[test]
    fn nothing_of_a_publish_reaches_the_store_while_a_gc_holds_its_lease() {
        let root = tempfile::tempdir().unwrap();
        let url = format!("file://{}", root.path().join("store").display());
        let remote = Remote::open(&url, &crate::RemoteOptions::default()).unwrap();
        let (b1, b2) = (root.path().join("b1"), root.path().join("b2"));
        let (b1, b2) = (build(&b1, 1), build(&b2, 2));
        crate::runtime().unwrap().block_on(async {
            let quiet = |_: usize, _: usize| {};
            let options = PublishOptions::default();
            publish(&remote, &b1, &options, &quiet).await.unwrap();
            let objects = || async {
                let listed = remote.list("objects/").await.unwrap();
                listed.into_iter().map(|o| o.key).collect::<HashSet<_>>()
            };
            let before = objects().await;
            let wait = std::time::Duration::from_secs(20);
            let (held, holding) = tokio::sync::oneshot::channel::<()>();
            let collector =
                crate::lease::holding(&remote, crate::lease::Kind::Collect, "gc", wait, async {
                    let _ = held.send(());
                    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                    Ok(objects().await)
                });
            // The publish starts once the collector holds its lease: it waits, and puts
            // nothing meanwhile — not even its manifest's object, which no release
            // names yet.
            let publishing = async {
                holding.await.unwrap();
                publish(&remote, &b2, &options, &quiet).await
            };
            let (waited, published) = futures::join!(collector, publishing);
            let waited = waited.unwrap();
            assert_eq!(
                waited, before,
                "objects put while the collector held its lease"
            );
            let published = published.unwrap();
            assert!(published.pointer_moved && published.uploaded == 2);
            assert_eq!(objects().await.len(), before.len() + 2);
        });
    }

    /// A store in a new folder (kept while the folder is).
    fn folder_store() -> (tempfile::TempDir, Remote) {
        let root = tempfile::tempdir().unwrap();
        let url = format!("file://{}", root.path().join("store").display());
        let remote = Remote::open(&url, &crate::RemoteOptions::default()).unwrap();
        (root, remote)
    }

    /// A pointer of `release` (a commit number) as a publish writes it, at `time`.
    fn pointer_of(release: u32, time: &str) -> (Pointer, Vec<u8>) {
        let pointer = Pointer {
            masterctl_pointer: layout::LAYOUT_VERSION,
            region: "jp".to_string(),
            release: format!("{release:040x}"),
            manifest_blake3: format!("{release:064x}"),
            time: time.to_string(),
            by: None,
            reason: None,
            sequence: None,
        };
        let bytes = serde_json::to_vec_pretty(&pointer).unwrap();
        (pointer, bytes)
    }

    #[test]
    fn a_moved_pointer_is_read_back_by_its_version_then_by_its_bytes() {
        let (_root, remote) = folder_store();
        let key = layout::pointer_key("jp");
        crate::runtime().unwrap().block_on(async {
            let (pointer, bytes) = pointer_of(1, "2026-12-01T00:00:00Z");
            let written = remote.swap(&key, bytes.clone(), None).await.unwrap();
            assert!(written.as_ref().is_some_and(|v| v.e_tag.is_some()));
            let ours = Swapped {
                written,
                pointer,
                bytes,
            };
            assert!(matches!(settle(&remote, &ours).await, Ok(Settled::Moved)));
            // The same bytes written again since: another version, and still ours.
            remote.put(&key, ours.bytes.clone()).await.unwrap();
            assert!(
                !remote
                    .still(&key, ours.written.as_ref().unwrap())
                    .await
                    .unwrap()
            );
            assert!(matches!(settle(&remote, &ours).await, Ok(Settled::Moved)));
            // Another publish of this very build moved it (at its own time).
            let (_, theirs) = pointer_of(1, "2026-12-01T00:00:01Z");
            remote.put(&key, theirs).await.unwrap();
            assert!(matches!(
                settle(&remote, &ours).await,
                Ok(Settled::ByAnother)
            ));
            // Another release: this publish lost the race.
            let (_, other) = pointer_of(2, "2026-12-01T00:00:02Z");
            remote.put(&key, other).await.unwrap();
            assert!(matches!(
                settle(&remote, &ours).await,
                Err(DeliveryError::Raced { .. })
            ));
            // A store that gave no version: read and compared.
            remote.put(&key, ours.bytes.clone()).await.unwrap();
            let unversioned = object_store::UpdateVersion {
                e_tag: None,
                version: None,
            };
            assert!(!remote.still(&key, &unversioned).await.unwrap());
            let ours = Swapped {
                written: Some(unversioned),
                ..ours
            };
            assert!(matches!(settle(&remote, &ours).await, Ok(Settled::Moved)));
            // Refused: never ours, whatever the pointer holds.
            let refused = Swapped {
                written: None,
                ..ours
            };
            assert!(matches!(
                settle(&remote, &refused).await,
                Ok(Settled::ByAnother)
            ));
        });
    }

    #[test]
    fn a_pointer_still_at_the_version_first_read_is_not_read_again() {
        let (_root, remote) = folder_store();
        let key = layout::pointer_key("jp");
        crate::runtime().unwrap().block_on(async {
            let again = |first| crate::manage::read_pointer_again(&remote, "jp", first);
            assert!(again(None).await.unwrap().is_none());
            let (_, bytes) = pointer_of(1, "2026-12-01T00:00:00Z");
            let version = remote.swap(&key, bytes, None).await.unwrap().unwrap();
            // What was first read is taken as it was while the store says the pointer
            // is that version: a read would find release 1, not the 3 given here.
            let (given, _) = pointer_of(3, "2026-12-01T00:00:00Z");
            let first = Some((given.clone(), version.clone()));
            assert_eq!(again(first.clone()).await.unwrap().unwrap().0, given);
            // Moved since: read as it is now.
            let (moved, bytes) = pointer_of(2, "2026-12-01T00:00:01Z");
            remote.put(&key, bytes).await.unwrap();
            assert_eq!(again(first.clone()).await.unwrap().unwrap().0, moved);
            // Gone since: none.
            remote.delete(&key).await.unwrap();
            assert!(again(first).await.unwrap().is_none());
        });
    }

    #[test]
    fn a_record_read_early_is_taken_only_for_the_release_it_was_read_for() {
        let root = tempfile::tempdir().unwrap();
        let url = format!("file://{}", root.path().join("store").display());
        let remote = Remote::open(&url, &crate::RemoteOptions::default()).unwrap();
        crate::runtime().unwrap().block_on(async {
            let quiet = |_: usize, _: usize| {};
            let options = PublishOptions::default();
            publish(
                &remote,
                &build(&root.path().join("b1"), 1),
                &options,
                &quiet,
            )
            .await
            .unwrap();
            let read = crate::manage::read_pointer(&remote, "jp").await;
            let pointer = read.unwrap().unwrap().0;
            let record = read_early(&remote, "jp", &pointer)
                .of(&pointer.release)
                .await;
            assert_eq!(record.unwrap().manifest_blake3, pointer.manifest_blake3);
            let other = "f".repeat(40);
            assert!(
                read_early(&remote, "jp", &pointer)
                    .of(&other)
                    .await
                    .is_none()
            );
        });
    }
}
