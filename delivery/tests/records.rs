//! What a fetch reads to learn a release's manifest: for the current release, the
//! manifest object the pointer names (stored compressed and verified by its hash); for a
//! release named by id, its record, which names that object too (records written
//! before hold the manifest, and serve without it). A pointer or a record naming the
//! manifest of another release is refused; without its manifest object a release is
//! damaged until a repairing publish puts it back.

use crate::common::*;
use masterctl_delivery::{DeliveryError, layout};

/// A fetch of the store's current release into `root/out`.
fn fetch_out(
    store: &Store,
    root: &std::path::Path,
) -> Result<masterctl_delivery::Fetched, DeliveryError> {
    fetch(&store.remote, &root.join("out"), &root.join("cache"))
}

/// A fetch of the release `named` into `root/into`.
fn fetch_named(
    store: &Store,
    root: &std::path::Path,
    into: &str,
    named: &str,
) -> Result<masterctl_delivery::Fetched, DeliveryError> {
    let mut options = fetch_options(&root.join("cache"));
    options.release = Some(named.to_string());
    block_on(masterctl_delivery::fetch(
        &store.remote,
        &root.join(into),
        &options,
        &|_, _| {},
    ))
}

/// That `error` is `Foreign`, says `says`, and nothing was swapped in at `out`.
fn refused_foreign(error: &DeliveryError, says: &str, out: &std::path::Path) {
    assert!(matches!(error, DeliveryError::Foreign { .. }), "{error}");
    assert!(error.to_string().contains(says), "{error}");
    assert!(!out.exists());
}

/// A published build of release 1; the store and the release's id.
fn published(root: &std::path::Path) -> (Store, String) {
    let store = Store::new();
    let dir = root.join("build");
    build(
        &dir,
        &commit(1),
        &[("item.bin", b"sword"), ("shop.bin", b"price=100")],
    );
    let release = publish(&store.remote, &dir, false).unwrap().release;
    (store, release)
}

#[test]
fn the_current_release_is_fetched_from_its_manifest_object() {
    let root = tempfile::tempdir().unwrap();
    let (store, release) = published(root.path());
    std::fs::remove_file(store.path(&layout::release_key("jp", &release))).unwrap();
    let fetched = fetch_out(&store, root.path()).unwrap();
    assert_eq!(fetched.release, release);
    assert_eq!(
        std::fs::read(root.path().join("out/shop.bin")).unwrap(),
        b"price=100"
    );
    // A release named by id is found by its record, which is gone.
    assert!(fetch_named(&store, root.path(), "named", &release).is_err());
}

#[test]
fn a_record_names_its_manifest_and_a_release_named_by_id_is_fetched_through_it() {
    let root = tempfile::tempdir().unwrap();
    let (store, release) = published(root.path());
    let key = layout::release_key("jp", &release);
    let record = std::fs::read(store.path(&key)).unwrap();
    let record = layout::Release::parse(&record, &key, "", "jp").unwrap();
    assert_eq!(record.masterctl_release, layout::RELEASE_FORMAT);
    assert!(record.manifest.is_none(), "the record holds no manifest");
    let summary = record.build.as_ref().unwrap();
    assert_eq!((summary.files, summary.bytes), (2, 14));
    let releases = block_on(masterctl_delivery::releases(&store.remote, Some("jp"))).unwrap();
    assert_eq!((releases[0].files, releases[0].bytes), (2, 14));
    let named = fetch_named(&store, root.path(), "named", &release).unwrap();
    assert_eq!(named.release, release);
    assert_eq!(
        std::fs::read(root.path().join("named/shop.bin")).unwrap(),
        b"price=100"
    );

    // A record naming the manifest object of another release (on the store, whole) is
    // refused when that manifest is read, and nothing is fetched.
    let other = manifest(&commit(2), vec![entry("item.bin", b"sword")]).to_bytes();
    std::fs::write(store.path(&layout::object_key(&hash(&other))), &other).unwrap();
    let mut forged = record.clone();
    forged.manifest_blake3 = hash(&other);
    forged.manifest_size = other.len() as u64;
    std::fs::write(store.path(&key), forged.to_bytes()).unwrap();
    let error = fetch_named(&store, root.path(), "forged", &release).unwrap_err();
    refused_foreign(&error, "not of the commit", &root.path().join("forged"));
}

#[test]
fn without_its_manifest_object_a_release_is_damaged_until_a_repairing_publish() {
    let root = tempfile::tempdir().unwrap();
    let (store, release) = published(root.path());
    let manifest_bytes = std::fs::read(root.path().join("build/manifest.json")).unwrap();
    let object = store.path(&layout::object_key(&hash(&manifest_bytes)));
    std::fs::remove_file(&object).unwrap();
    let error = fetch_out(&store, root.path()).unwrap_err();
    assert!(matches!(error, DeliveryError::Corrupt { .. }), "{error}");
    assert!(
        error.to_string().contains("manifest object is missing"),
        "{error}"
    );
    assert!(!root.path().join("out").exists());
    // gc cannot know what the release needs: it deletes nothing.
    let objects = std::fs::read_dir(store.path("objects")).unwrap().count();
    let error = block_on(masterctl_delivery::gc(
        &store.remote,
        1,
        0,
        false,
        &|_, _| {},
    ));
    assert!(
        matches!(error, Err(DeliveryError::Corrupt { .. })),
        "{error:?}"
    );
    assert_eq!(
        std::fs::read_dir(store.path("objects")).unwrap().count(),
        objects
    );
    let repaired = publish(&store.remote, &root.path().join("build"), true).unwrap();
    assert!(repaired.repaired >= 1 && object.is_file());
    assert_eq!(fetch_out(&store, root.path()).unwrap().release, release);
}

#[test]
fn a_record_of_the_earlier_format_serves_without_its_manifest_object() {
    let root = tempfile::tempdir().unwrap();
    let store = Store::new();
    let sword = entry("item.bin", b"sword");
    forge(&store, &commit(3), vec![sword], &[b"sword"]);
    let pointer: serde_json::Value =
        serde_json::from_slice(&std::fs::read(store.path(&layout::pointer_key("jp"))).unwrap())
            .unwrap();
    let manifest_hash = pointer["manifest_blake3"].as_str().unwrap();
    std::fs::remove_file(store.path(&layout::object_key(manifest_hash))).unwrap();
    let fetched = fetch_out(&store, root.path()).unwrap();
    assert_eq!(fetched.release, pointer["release"].as_str().unwrap());
    assert_eq!(
        std::fs::read(root.path().join("out/item.bin")).unwrap(),
        b"sword"
    );
    let releases = block_on(masterctl_delivery::releases(&store.remote, Some("jp"))).unwrap();
    assert_eq!((releases[0].files, releases[0].bytes), (1, 5));
}

#[test]
fn a_pointer_naming_another_releases_manifest_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let (store, _) = published(root.path());
    // A second release's manifest object on the store, the pointer naming it under the
    // first release's id.
    let other = manifest(&commit(2), vec![entry("item.bin", b"sword")]).to_bytes();
    let path = store.path(&layout::object_key(&hash(&other)));
    std::fs::write(&path, &other).unwrap();
    let pointer_path = store.path(&layout::pointer_key("jp"));
    let mut pointer: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&pointer_path).unwrap()).unwrap();
    pointer["manifest_blake3"] = hash(&other).into();
    std::fs::write(&pointer_path, serde_json::to_vec(&pointer).unwrap()).unwrap();
    let error = fetch_out(&store, root.path()).unwrap_err();
    refused_foreign(&error, "manifest of release", &root.path().join("out"));
}

#[test]
fn a_manifest_object_that_does_not_verify_lets_nothing_into_the_cache() {
    let root = tempfile::tempdir().unwrap();
    let (store, release) = published(root.path());
    // Under the current manifest's name, another manifest of this release naming an
    // object on the store: its entries arrive, and are asked for, before the whole of
    // it fails its hash.
    let gem = b"gem of the forger";
    let path = store.path(&layout::object_key(&hash(gem)));
    std::fs::write(&path, gem).unwrap();
    let current = std::fs::read(root.path().join("build/manifest.json")).unwrap();
    let mut forged = manifest(&release, vec![entry("gem.bin", gem)]);
    forged.files.extend(
        serde_json::from_slice::<masterctl_runtime::Manifest>(&current)
            .unwrap()
            .files,
    );
    std::fs::write(
        store.path(&layout::object_key(&hash(&current))),
        forged.to_bytes(),
    )
    .unwrap();
    let error = fetch_out(&store, root.path()).unwrap_err();
    assert!(matches!(error, DeliveryError::Corrupt { .. }), "{error}");
    assert!(!root.path().join("out").exists());
    let cached = std::fs::read_dir(root.path().join("cache")).map_or(0, |d| d.count());
    assert_eq!(cached, 0, "nothing entered the cache");
}
