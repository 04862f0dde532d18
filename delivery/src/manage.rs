//! Operating a store: the releases it holds, moving a region back to one of them, and
//! deleting what no kept release needs.

use std::collections::{BTreeMap, BTreeSet};

use futures::StreamExt;
use object_store::UpdateVersion;
use serde::Serialize;

use crate::layout::{self, Pointer, Release};
use crate::manifests::{names_of, objects_of, release_manifest};
use crate::remote::Remote;
use crate::{DeliveryError, Progress, lease};

/// A release as `releases` lists it.
#[derive(Debug, Clone, Serialize)]
pub struct ReleaseInfo {
    pub region: String,
    pub release: String,
    /// When it was first published (UTC).
    pub published: String,
    pub tool: String,
    pub files: usize,
    /// Plain bytes of its files.
    pub bytes: u64,
    pub languages: Vec<String>,
    /// Whether the region's pointer names it.
    pub current: bool,
    /// The versions that named its commit when it was published.
    pub versions: Vec<String>,
    /// Who published it, and their words (when they said).
    pub by: Option<String>,
    pub message: Option<String>,
    /// The current one's pointer: who made it current, when and why (a rollback's
    /// reason).
    pub made_current: Option<MadeCurrent>,
    /// The servers reporting they run it (`releases --fleet`; `None` when not asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub servers: Option<Vec<String>>,
}

/// Who moved a region's pointer to its release, when, and why.
#[derive(Debug, Clone, Serialize)]
pub struct MadeCurrent {
    pub time: String,
    pub by: Option<String>,
    pub reason: Option<String>,
}

/// Who moves a pointer back, and why: what the pointer records.
#[derive(Debug, Clone, Default)]
pub struct Moving {
    pub by: Option<String>,
    pub reason: Option<String>,
    /// Sign the release anew with this key (`crate::signing`).
    pub sign: Option<std::sync::Arc<crate::signing::SigningKey>>,
}

/// The region's pointer and its version, or `None` before its first publish.
pub(crate) async fn read_pointer(
    remote: &Remote,
    region: &str,
) -> Result<Option<(Pointer, UpdateVersion)>, DeliveryError> {
    let key = layout::pointer_key(region);
    Ok(
        match remote.get_versioned(&key, layout::POINTER_LIMIT).await? {
            Some(read) => Some((
                Pointer::parse(&read.bytes, &key, remote.shown(), region)?,
                read.version,
            )),
            None => None,
        },
    )
}

/// The pointer read again after `first` was read from it: `first` itself when the
/// store says the pointer is still that version (a HEAD: no body moves), else the
/// pointer as it is now.
pub(crate) async fn read_pointer_again(
    remote: &Remote,
    region: &str,
    first: Option<(Pointer, UpdateVersion)>,
) -> Result<Option<(Pointer, UpdateVersion)>, DeliveryError> {
    if let Some((pointer, version)) = first
        && remote.still(&layout::pointer_key(region), &version).await?
    {
        return Ok(Some((pointer, version)));
    }
    read_pointer(remote, region).await
}

/// A release record, or `None` when it is not on the store.
pub(crate) async fn read_release(
    remote: &Remote,
    region: &str,
    release: &str,
) -> Result<Option<Release>, DeliveryError> {
    let key = layout::release_key(region, release);
    match remote.get(&key, layout::RELEASE_LIMIT).await? {
        Some(bytes) => {
            let parsed = Release::parse(&bytes, &key, remote.shown(), region)?;
            if parsed.release != release {
                return Err(DeliveryError::Foreign {
                    store: remote.shown().to_string(),
                    key,
                    why: format!("it names release {}", parsed.release),
                });
            }
            Ok(Some(parsed))
        }
        None => Ok(None),
    }
}

/// The release `named` stands for: a whole id, or a unique prefix of at least 7
/// hexadecimal digits (git's rule; masterctl prints 12) of one of the region's releases
/// on the store. A prefix of several is an error listing them.
pub async fn resolve_release(
    remote: &Remote,
    region: &str,
    named: &str,
) -> Result<String, DeliveryError> {
    layout::check_region(region)?;
    let named = named.trim().to_ascii_lowercase();
    // A whole client build's id names one release; a whole commit may have a server
    // and a client build, found by listing like a prefix.
    if layout::check_release(&named).is_ok()
        && (named.ends_with(layout::CLIENT_SUFFIX) || !remote.is_writable())
    {
        return Ok(named);
    }
    let digits = named.strip_suffix(layout::CLIENT_SUFFIX).unwrap_or(&named);
    let hex = digits.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex || digits.len() < 7 || named.len() > 64 + layout::CLIENT_SUFFIX.len() {
        return Err(DeliveryError::BadName(named));
    }
    if !remote.is_writable() {
        return Err(DeliveryError::Url {
            url: remote.shown().to_string(),
            why: format!(
                "an HTTP store cannot be listed: give release `{named}` whole (40 hexadecimal digits), or use the s3:// or file:// URL"
            ),
        });
    }
    let prefix = layout::releases_prefix(region);
    let found: Vec<String> = remote
        .list(&prefix)
        .await?
        .into_iter()
        .filter_map(|l| {
            let id = l.key.strip_prefix(&prefix)?.strip_suffix(".json")?;
            (layout::check_release(id).is_ok() && starts(&named, id)).then(|| id.to_string())
        })
        .collect();
    match choose(&named, found) {
        Ok(release) => Ok(release),
        Err(found) if found.is_empty() => Err(DeliveryError::NoRelease {
            store: remote.shown().to_string(),
            what: if layout::check_release(&named).is_ok() {
                format!("release {named} of region {region}")
            } else {
                format!("release of region {region} starting with {named}")
            },
        }),
        Err(candidates) => Err(DeliveryError::Ambiguous { named, candidates }),
    }
}

/// Whether `named` starts release `id`: `abcdef0` any build of a commit starting so,
/// `abcdef0-client` its client build.
fn starts(named: &str, id: &str) -> bool {
    match named.strip_suffix(layout::CLIENT_SUFFIX) {
        Some(digits) => id.starts_with(digits) && id.ends_with(layout::CLIENT_SUFFIX),
        None => id.starts_with(named),
    }
}

/// The release `named` means among the ids it starts (`found`), or them all (none, or
/// several). A name that is one release's whole id means that one; a name without
/// `-client` that starts one server build means that one, as `releases` shows the
/// server build `abcdef0` and its client build `abcdef0-client`.
fn choose(named: &str, mut found: Vec<String>) -> Result<String, Vec<String>> {
    found.sort();
    if found.iter().any(|id| id == named) {
        return Ok(named.to_string());
    }
    let servers: Vec<&String> = found
        .iter()
        .filter(|id| !id.ends_with(layout::CLIENT_SUFFIX))
        .collect();
    if !named.ends_with(layout::CLIENT_SUFFIX) && servers.len() == 1 {
        return Ok(servers[0].clone());
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        _ => Err(found),
    }
}

/// Every release on the store (of one region, or of all), newest first per region.
pub async fn releases(
    remote: &Remote,
    region: Option<&str>,
) -> Result<Vec<ReleaseInfo>, DeliveryError> {
    if let Some(region) = region {
        layout::check_region(region)?;
    }
    // A mistyped folder is said to be one, not listed as an empty store.
    remote.folder_there()?;
    let records = all_releases(remote, region).await?;
    let mut currents = read_pointers(remote, records.keys().cloned()).await?;
    let mut infos = Vec::new();
    for (region, releases) in records {
        let pointer = currents.remove(&region).flatten();
        let current = pointer.as_ref().map(|p| p.release.clone());
        for release in releases {
            let summary = release.summary();
            infos.push(ReleaseInfo {
                current: current.as_deref() == Some(release.release.as_str()),
                region: region.clone(),
                published: release.published.time.clone(),
                tool: release.published.tool.clone(),
                files: summary.files,
                bytes: summary.bytes,
                languages: summary.languages,
                versions: release.versions,
                by: release.published.by,
                message: release.published.message,
                made_current: (pointer.as_ref())
                    .filter(|p| p.release == release.release)
                    .map(|p| MadeCurrent {
                        time: p.time.clone(),
                        by: p.by.clone(),
                        reason: p.reason.clone(),
                    }),
                release: release.release,
                servers: None,
            });
        }
    }
    Ok(infos)
}

/// [`releases`], each with the servers reporting they run it (`crate::fleet`).
pub async fn releases_and_fleet(
    remote: &Remote,
    region: Option<&str>,
) -> Result<Vec<ReleaseInfo>, DeliveryError> {
    let (infos, reports) = futures::join!(
        releases(remote, region),
        crate::fleet::reports(remote, region)
    );
    let running = crate::fleet::running(&reports?);
    let mut infos = infos?;
    for info in &mut infos {
        let at = (info.region.clone(), info.release.clone());
        let hosts = running
            .get(&at)
            .map(|hosts| hosts.iter().cloned().collect());
        info.servers = Some(hosts.unwrap_or_default());
    }
    Ok(infos)
}

/// The release records under `releases/`, by region, newest first.
async fn all_releases(
    remote: &Remote,
    region: Option<&str>,
) -> Result<BTreeMap<String, Vec<Release>>, DeliveryError> {
    let prefix = match region {
        Some(region) => layout::releases_prefix(region),
        None => "releases/".to_string(),
    };
    let listed = remote.list(&prefix).await?;
    let named: Vec<(String, String)> = listed
        .iter()
        .filter_map(|l| {
            let rest = l.key.strip_prefix("releases/")?;
            let (region, file) = rest.split_once('/')?;
            let release = file.strip_suffix(".json")?;
            (layout::check_region(region).is_ok() && layout::check_release(release).is_ok())
                .then(|| (region.to_string(), release.to_string()))
        })
        .collect();
    // Records are a few hundred bytes (those holding a manifest, older, more): as many
    // at once as objects move.
    // (The reads made first, then streamed: a stream mapped by a closure over borrowed
    // items is a future the compiler cannot prove `Send`, and servers await these on
    // any thread.)
    let reads: Vec<_> = named
        .iter()
        .map(|(r, id)| read_release(remote, r, id))
        .collect();
    let read: Vec<Result<Option<Release>, DeliveryError>> = futures::stream::iter(reads)
        .buffered(crate::CONCURRENCY)
        .collect()
        .await;
    let mut by_region: BTreeMap<String, Vec<Release>> = BTreeMap::new();
    for release in read {
        if let Some(release) = release? {
            by_region
                .entry(release.region.clone())
                .or_default()
                .push(release);
        }
    }
    for releases in by_region.values_mut() {
        releases.sort_by(|a, b| b.published.time.cmp(&a.published.time));
    }
    Ok(by_region)
}

/// Which of the objects `hashes` the store does not hold, asked many at once.
async fn absent<'h>(remote: &Remote, hashes: &[&'h str]) -> Result<Vec<&'h str>, DeliveryError> {
    // (Made first, then streamed: see `all_releases`.)
    let asks: Vec<_> = hashes
        .iter()
        .map(|hash| remote.exists_owned(layout::object_key(hash)))
        .collect();
    let present: Vec<Result<bool, DeliveryError>> = futures::stream::iter(asks)
        .buffered(crate::CONCURRENCY)
        .collect()
        .await;
    let mut missing = Vec::new();
    for (hash, present) in hashes.iter().zip(present) {
        if !present? {
            missing.push(*hash);
        }
    }
    Ok(missing)
}

/// Every object the `kept` releases (region, record) name: their manifests' objects
/// and the files those list, read many at once. A kept release whose manifest does not
/// read stops the collection before anything is deleted: what it needs is not known.
async fn kept_objects(
    remote: &Remote,
    kept: &[(&str, &Release)],
) -> Result<BTreeSet<String>, DeliveryError> {
    // As many at once as other reads, within the bytes a fetch holds in flight (a
    // manifest may be large: its record says how large).
    let mut manifests = crate::bounded(
        kept,
        crate::CONCURRENCY,
        |(_, record)| record.manifest_size,
        |(region, record)| async move {
            let read = release_manifest(remote, region, record).await;
            (record, read)
        },
    );
    let mut needed = BTreeSet::new();
    while let Some((record, manifest)) = manifests.next().await {
        let (manifest, _) = manifest?;
        needed.extend(objects_of(&manifest, &record.manifest_blake3).map(str::to_string));
    }
    Ok(needed)
}

/// What a rollback did.
#[derive(Debug, Clone, Serialize)]
pub struct RolledBack {
    pub store: String,
    pub region: String,
    pub release: String,
    /// The release the pointer named before.
    pub previous: Option<String>,
    /// Whether the pointer moved (else it already named the release).
    pub moved: bool,
    /// The key that signed the release anew and the number it stated, when signed.
    pub signed: Option<crate::signing::SignedAs>,
}

/// Make `release` the region's current one again, if every object it names is on the
/// store. Never while a `gc` runs (it could be deleting that release).
pub async fn rollback(
    remote: &Remote,
    region: &str,
    release: &str,
    moving: &Moving,
) -> Result<RolledBack, DeliveryError> {
    let release = resolve_release(remote, region, release).await?;
    let release = release.as_str();
    let what = format!("rollback of {region} to {release}");
    lease::holding(
        remote,
        lease::Kind::Write,
        &what,
        lease::GC_WAIT,
        roll_back(remote, region, release, moving),
    )
    .await
}

async fn roll_back(
    remote: &Remote,
    region: &str,
    release: &str,
    moving: &Moving,
) -> Result<RolledBack, DeliveryError> {
    let store = remote.shown().to_string();
    let record = read_release(remote, region, release)
        .await?
        .ok_or_else(|| DeliveryError::NoRelease {
            store: store.clone(),
            what: format!("release {release} of region {region}"),
        })?;
    let current = read_pointer(remote, region).await?;
    let mut done = RolledBack {
        store: store.clone(),
        region: region.to_string(),
        release: release.to_string(),
        previous: current.as_ref().map(|(p, _)| p.release.clone()),
        moved: false,
        signed: None,
    };
    // Already current: nothing to move — unless it is to be signed, which a rollback
    // always does anew (a server refusing a replay of this release takes it so).
    if moving.sign.is_none()
        && current.as_ref().is_some_and(|(p, _)| {
            p.release == release && p.manifest_blake3 == record.manifest_blake3
        })
    {
        return Ok(done);
    }
    // Its manifest read (from its object, but for a record holding it) beside the
    // current release's names: what the current release names is there (a release is
    // made current only whole, and under this lease no gc runs), so only the rest of
    // the objects it names are asked about, the manifest's own among them.
    let current_names = async {
        match &current {
            Some((pointer, _)) => names_of(remote, region, pointer).await,
            None => Ok(None),
        }
    };
    let (manifest, there) =
        futures::join!(release_manifest(remote, region, &record), current_names);
    let ((manifest, manifest_bytes), there) = (manifest?, there?.unwrap_or_default());
    let needed: BTreeSet<&str> = objects_of(&manifest, &record.manifest_blake3).collect();
    let asked: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|hash| !there.contains(*hash))
        .collect();
    let missing = absent(remote, &asked).await?;
    if let Some(first) = missing.first() {
        return Err(DeliveryError::Corrupt {
            store,
            hash: first.to_string(),
            why: format!(
                "release {release} names it and it is not there ({} of its {} objects are missing); the pointer was not moved",
                missing.len(),
                needed.len()
            ),
        });
    }
    // Signed anew, stating the number after the current one's: a server that runs a
    // later release takes this one back only so.
    if let Some(key) = &moving.sign {
        let current = current.as_ref().map(|(pointer, _)| pointer);
        let signed = crate::signing::put_signature(
            remote,
            key,
            &manifest,
            &manifest_bytes,
            release,
            current,
        )
        .await?;
        done.signed = Some(signed);
    }
    let pointer = Pointer {
        masterctl_pointer: layout::LAYOUT_VERSION,
        region: region.to_string(),
        release: release.to_string(),
        manifest_blake3: record.manifest_blake3.clone(),
        time: layout::now(),
        by: moving.by.clone(),
        reason: moving.reason.clone(),
        sequence: done.signed.as_ref().map(|s| s.sequence),
    };
    let bytes = serde_json::to_vec_pretty(&pointer).unwrap_or_default();
    let key = layout::pointer_key(region);
    // Read back (by version first, as a publish does): a server that checks a
    // condition without holding the object can let two racing writes both pass.
    let stayed = match remote
        .swap(&key, bytes.clone(), current.as_ref().map(|(_, v)| v))
        .await?
    {
        Some(written) => {
            remote.still(&key, &written).await?
                || remote.get(&key, layout::POINTER_LIMIT).await?.as_deref()
                    == Some(bytes.as_slice())
        }
        None => false,
    };
    if !stayed {
        return Err(DeliveryError::Raced {
            region: region.to_string(),
            release: release.to_string(),
        });
    }
    done.moved = true;
    Ok(done)
}

/// What a garbage collection deleted (or would delete, in a dry run).
#[derive(Debug, Clone, Serialize)]
pub struct Collected {
    pub store: String,
    pub dry_run: bool,
    /// Releases kept, by region.
    pub kept: BTreeMap<String, Vec<String>>,
    /// Releases deleted, by region.
    pub deleted: BTreeMap<String, Vec<String>>,
    pub objects_deleted: usize,
    pub bytes_deleted: u64,
    /// Unreferenced objects younger than the grace period, left for a publish that may
    /// be writing its release now.
    pub objects_too_young: usize,
    /// Partial uploads killed publishers left in a folder store (`objects/<hash>#1`),
    /// older than the grace period.
    pub leftovers_deleted: usize,
    /// Releases kept beyond `--keep` because servers report they still run them: by
    /// region, each release with those servers.
    pub kept_running: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// Fleet reports no server rewrote for a day (`crate::fleet::EXPIRED_SECONDS`).
    pub reports_deleted: usize,
}

/// How long an object no release names is left alone by default: a publisher writes its
/// objects before its release.
pub const GRACE_SECONDS: u64 = 3600;

/// The least age of a killed put's staging file gc removes.
pub const LEFTOVER_AGE: u64 = 300;

/// How long `gc` waits for publishes and rollbacks in progress to finish.
pub const WRITERS_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Delete the releases beyond the `keep` newest of each region (never a region's
/// current one), then the objects no remaining release names and older than
/// `grace_seconds` (and, in a folder store, what killed uploads left).
///
/// It runs alone: holding the collector's lease, no publish or rollback runs meanwhile
/// ([`lease`]), so what it finds unreferenced stays so while it deletes.
pub async fn gc(
    remote: &Remote,
    keep: usize,
    grace_seconds: u64,
    dry_run: bool,
    progress: Progress<'_>,
) -> Result<Collected, DeliveryError> {
    // A store that is not there is said to be so (not collected, and not made by the
    // lease's object).
    remote.probe_there().await?;
    lease::holding(
        remote,
        lease::Kind::Collect,
        "gc",
        WRITERS_WAIT,
        collect(remote, keep, grace_seconds, dry_run, progress),
    )
    .await
}

/// The pointers of `regions`, read many at once: by region, the pointer (`None` where
/// the region has none).
async fn read_pointers(
    remote: &Remote,
    regions: impl Iterator<Item = String>,
) -> Result<BTreeMap<String, Option<Pointer>>, DeliveryError> {
    futures::stream::iter(regions.map(|region| async move {
        let read = read_pointer(remote, &region).await?;
        Ok((region, read.map(|(pointer, _)| pointer)))
    }))
    .buffered(crate::CONCURRENCY)
    .collect::<Vec<Result<_, DeliveryError>>>()
    .await
    .into_iter()
    .collect()
}

/// Every region's pointer on the store, each read once: by region, the release it names
/// (a key that names no valid region is not a pointer).
async fn pointers(remote: &Remote) -> Result<BTreeMap<String, String>, DeliveryError> {
    let regions = remote
        .list("regions/")
        .await?
        .into_iter()
        .filter_map(|listed| {
            let region = listed
                .key
                .strip_prefix("regions/")
                .and_then(|k| k.strip_suffix("/current.json"))?;
            layout::check_region(region)
                .is_ok()
                .then(|| region.to_string())
        });
    let read = read_pointers(remote, regions).await?;
    Ok(read
        .into_iter()
        .filter_map(|(region, pointer)| pointer.map(|p| (region, p.release)))
        .collect())
}

async fn collect(
    remote: &Remote,
    keep: usize,
    grace_seconds: u64,
    dry_run: bool,
    progress: Progress<'_>,
) -> Result<Collected, DeliveryError> {
    let records = all_releases(remote, None).await?;
    let mut collected = Collected {
        store: remote.shown().to_string(),
        dry_run,
        kept: BTreeMap::new(),
        deleted: BTreeMap::new(),
        objects_deleted: 0,
        bytes_deleted: 0,
        objects_too_young: 0,
        leftovers_deleted: 0,
        kept_running: BTreeMap::new(),
        reports_deleted: 0,
    };
    let pointers = pointers(remote).await?;
    // Every pointer must name a release listed: its objects are known only from it.
    for (region, release) in &pointers {
        if !records
            .get(region)
            .is_some_and(|r| r.iter().any(|r| &r.release == release))
        {
            return Err(DeliveryError::Foreign {
                store: remote.shown().to_string(),
                key: layout::pointer_key(region),
                why: format!(
                    "it names release {release} whose record is not on the store; nothing was deleted"
                ),
            });
        }
    }
    // A release a server reports it still runs is kept, whatever its age; a report no
    // server has rewritten for a day goes.
    let (reports, expired) = crate::fleet::reports_and_expired(remote).await?;
    let running = crate::fleet::running(&reports);
    collected.reports_deleted = expired.len();
    let mut kept: Vec<(&str, &Release)> = Vec::new();
    let mut doomed: Vec<(String, String)> = Vec::new();
    for (region, releases) in &records {
        let current = pointers.get(region).map(String::as_str);
        for (i, release) in releases.iter().enumerate() {
            let is_current = current == Some(release.release.as_str());
            let run = running.get(&(region.clone(), release.release.clone()));
            if let Some(hosts) = run.filter(|_| i >= keep && !is_current) {
                (collected.kept_running.entry(region.clone()).or_default())
                    .insert(release.release.clone(), hosts.iter().cloned().collect());
            }
            if i < keep || is_current || run.is_some() {
                collected
                    .kept
                    .entry(region.clone())
                    .or_default()
                    .push(release.release.clone());
                kept.push((region, release));
            } else {
                collected
                    .deleted
                    .entry(region.clone())
                    .or_default()
                    .push(release.release.clone());
                doomed.push((region.clone(), release.release.clone()));
            }
        }
    }
    let needed = kept_objects(remote, &kept).await?;
    let objects = remote.list("objects/").await?;
    let mut victims = Vec::new();
    for object in &objects {
        let Some(hash) = object.key.strip_prefix("objects/") else {
            continue;
        };
        if needed.contains(hash) || !layout::is_hash(hash) {
            continue;
        }
        if object.age < grace_seconds {
            collected.objects_too_young += 1;
            continue;
        }
        victims.push(object);
    }
    collected.objects_deleted = victims.len();
    collected.bytes_deleted = victims.iter().map(|o| o.size).sum();
    // Never younger than a few minutes, whatever the grace: a lease is written before
    // its holder knows a gc runs, and its put stages like any other.
    let leftovers = remote.upload_leftovers("", grace_seconds.max(LEFTOVER_AGE));
    collected.leftovers_deleted = leftovers.len();
    collected.bytes_deleted += leftovers.iter().map(|(_, size)| size).sum::<u64>();
    if dry_run {
        return Ok(collected);
    }
    for (path, _) in &leftovers {
        remote.remove_leftover(path)?;
    }
    // Releases first, so that no release is ever left naming a deleted object.
    for (region, release) in &doomed {
        remote.delete(&layout::release_key(region, release)).await?;
        remote
            .delete(&layout::signature_key(region, release))
            .await?;
    }
    for key in &expired {
        remote.delete(key).await?;
    }
    let total = victims.len();
    let mut done = 0;
    let keys: Vec<String> = victims.iter().map(|o| o.key.clone()).collect();
    let mut deletions = crate::bounded(
        keys,
        crate::CONCURRENCY,
        |_| 0,
        |key| remote.delete_owned(key),
    );
    while let Some(result) = deletions.next().await {
        result?;
        done += 1;
        progress(done, total);
    }
    Ok(collected)
}

#[cfg(test)]
mod choosing {
    use super::{choose, starts};
    use crate::layout::short_release;

    #[test]
    fn a_release_id_as_printed_names_that_release() {
        let commit = "6787a8ead97a".to_string() + &"0".repeat(28);
        let server = commit.clone();
        let client = format!("{commit}-client");
        let both = [client.clone(), server.clone()];
        // `releases` prints them apart, and each printed id is taken back.
        assert_eq!(short_release(&server), "6787a8ead97a");
        assert_eq!(short_release(&client), "6787a8ead97a-client");
        for (named, meant) in [
            (short_release(&server), &server),
            (short_release(&client), &client),
            (server.clone(), &server),
            (client.clone(), &client),
        ] {
            let found: Vec<String> = both
                .iter()
                .filter(|id| starts(&named, id))
                .cloned()
                .collect();
            assert_eq!(choose(&named, found).as_ref(), Ok(meant), "{named}");
        }
        // A client build alone answers to its commit's digits.
        assert_eq!(
            choose("6787a8ead97a", vec![client.clone()]),
            Ok(client.clone())
        );
        // Two server builds sharing the digits given are still several.
        let other = "6787a8ead97b".to_string() + &"0".repeat(28);
        let several = choose("6787a8ead9", vec![server.clone(), other.clone()]);
        assert_eq!(several, Err(vec![server, other]));
        assert_eq!(choose("6787a8e", Vec::new()), Err(Vec::new()));
    }
}
