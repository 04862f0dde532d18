//! What a fetch reads to learn a release's manifest: for the current release, the
//! manifest object the pointer names (stored compressed and verified by its hash), not
//! the release record that also holds it; the record when that object is gone, and for
//! a release named by id. A pointer naming the manifest of another release is refused.

mod common;

use common::*;
use masterctl_delivery::{DeliveryError, layout};

/// A fetch of the store's current release into `root/out`.
fn fetch_out(
    store: &Store,
    root: &std::path::Path,
) -> Result<masterctl_delivery::Fetched, DeliveryError> {
    fetch(&store.remote, &root.join("out"), &root.join("cache"))
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
    let mut options = fetch_options(&root.path().join("cache"));
    options.release = Some(release.clone());
    let named = block_on(masterctl_delivery::fetch(
        &store.remote,
        &root.path().join("named"),
        &options,
        &|_, _| {},
    ));
    assert!(named.is_err());
}

#[test]
fn without_its_manifest_object_the_record_serves() {
    let root = tempfile::tempdir().unwrap();
    let (store, release) = published(root.path());
    let manifest = std::fs::read(root.path().join("build/manifest.json")).unwrap();
    std::fs::remove_file(store.path(&layout::object_key(&hash(&manifest)))).unwrap();
    let fetched = fetch_out(&store, root.path()).unwrap();
    assert_eq!(fetched.release, release);
    assert_eq!(
        std::fs::read(root.path().join("out/item.bin")).unwrap(),
        b"sword"
    );
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
    assert!(matches!(error, DeliveryError::Foreign { .. }), "{error}");
    assert!(error.to_string().contains("manifest of release"), "{error}");
    assert!(!root.path().join("out").exists());
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
