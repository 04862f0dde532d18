//! A release's manifest as the store holds it: the object the pointer names, or the
//! one a release record names (a record of format 1 holds it), verified by its hash and
//! checked to be the manifest of that region's release; and the objects it names, which
//! a publish and a rollback need not ask the store about.

use std::collections::HashSet;

use masterctl_runtime::Manifest;

use crate::layout::{self, Pointer, Release};
use crate::remote::Remote;
use crate::{DeliveryError, object};

/// The manifest of the release `record` (of `region`) and its bytes as stored: read
/// from the object the record names, verified by its hash and checked to be the build
/// of that release. A record of format 1 holds the manifest: its object is read only
/// when the manifest held was written otherwise than `build` writes it, and must be
/// that manifest.
pub async fn release_manifest(
    remote: &Remote,
    region: &str,
    record: &Release,
) -> Result<(Manifest, Vec<u8>), DeliveryError> {
    let (store, hash) = (remote.shown(), &record.manifest_blake3);
    if let Some(held) = &record.manifest {
        let written = held.to_bytes();
        if written.len() as u64 == record.manifest_size
            && blake3::hash(&written).to_hex().as_str() == hash
        {
            return Ok((held.clone(), written));
        }
    }
    let foreign = |why: String| DeliveryError::Foreign {
        store: store.to_string(),
        key: layout::release_key(region, &record.release),
        why,
    };
    let stored = remote
        .get(&layout::object_key(hash), record.manifest_size)
        .await?
        .ok_or_else(|| {
            damaged(
                store,
                hash,
                "the release's manifest object is missing".into(),
            )
        })?;
    let (manifest, bytes) = parsed(
        store,
        hash,
        object::decode(&stored, hash, record.manifest_size),
    )?;
    if record
        .manifest
        .as_ref()
        .is_some_and(|held| *held != manifest)
    {
        return Err(foreign(
            "its manifest is not the manifest object it names".into(),
        ));
    }
    layout::check_manifest(&manifest, &record.release, region).map_err(foreign)?;
    Ok((manifest, bytes))
}

/// The objects the release `pointer` names: its manifest object (read and verified by
/// its hash, as a fetch reads it; 71 KB compressed for 1,500 files) and the files it
/// lists. `None` when that object is missing or is not the manifest of the pointer's
/// release: then every object is asked about.
pub(crate) async fn names_of(
    remote: &Remote,
    region: &str,
    pointer: &Pointer,
) -> Result<Option<HashSet<String>>, DeliveryError> {
    match pointer_manifest(remote, region, pointer, &mut |_| {}).await {
        Ok(Some((manifest, _))) => Ok(Some(
            objects_of(&manifest, &pointer.manifest_blake3)
                .map(str::to_string)
                .collect(),
        )),
        Ok(None) | Err(DeliveryError::Foreign { .. } | DeliveryError::Corrupt { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The objects a release names: the files its manifest lists, and the manifest's own
/// object (`manifest_hash`).
pub(crate) fn objects_of<'m>(
    manifest: &'m Manifest,
    manifest_hash: &'m str,
) -> impl Iterator<Item = &'m str> {
    manifest
        .files
        .iter()
        .map(|f| f.blake3.as_str())
        .chain([manifest_hash])
}

/// The manifest object the pointer names, verified by its hash and checked to be a
/// manifest of this region's release the pointer names; `None` when the store lacks the
/// object (then the release's record is read: one of format 1 holds the manifest, one
/// of format 2 names this very object, and the release is damaged).
pub(crate) async fn pointer_manifest(
    remote: &Remote,
    region: &str,
    pointer: &Pointer,
    seen: &mut (dyn FnMut(&[u8]) + Send),
) -> Result<Option<(Manifest, Vec<u8>)>, DeliveryError> {
    let store = remote.shown();
    let hash = &pointer.manifest_blake3;
    let limit = masterctl_runtime::MANIFEST_LIMIT;
    let key = layout::object_key(hash);
    let Some(stored) = remote.get_watched(&key, limit, seen).await? else {
        return Ok(None);
    };
    let (manifest, bytes) = parsed(store, hash, object::decode_within(&stored, hash, limit))?;
    // Its paths will be joined to a folder on this machine: checked as a record's are.
    let foreign = |why: String| DeliveryError::Foreign {
        store: store.to_string(),
        key: key.clone(),
        why,
    };
    manifest
        .check()
        .map_err(|cause| foreign(format!("its manifest: {cause}")))?;
    if manifest.region != region || layout::release_id(&manifest) != pointer.release {
        return Err(DeliveryError::Foreign {
            store: store.to_string(),
            key: layout::pointer_key(region),
            why: format!(
                "it names release {} and a manifest of release {} of `{}`",
                pointer.release,
                layout::release_id(&manifest),
                manifest.region
            ),
        });
    }
    Ok(Some((manifest, bytes)))
}

/// A manifest object's plain bytes (`decoded`: verified by its hash, or why not) read
/// as a manifest; the object is damaged when they are not one.
fn parsed(
    store: &str,
    hash: &str,
    decoded: Result<Vec<u8>, String>,
) -> Result<(Manifest, Vec<u8>), DeliveryError> {
    let bytes = decoded.map_err(|why| damaged(store, hash, why))?;
    let manifest = serde_json::from_slice(&bytes).map_err(|e| {
        damaged(
            store,
            hash,
            format!("the manifest object is not a manifest ({e})"),
        )
    })?;
    Ok((manifest, bytes))
}

/// The object `hash` of `store` is damaged, for `why`.
fn damaged(store: &str, hash: &str, why: String) -> DeliveryError {
    DeliveryError::Corrupt {
        store: store.to_string(),
        hash: hash.to_string(),
        why,
    }
}
