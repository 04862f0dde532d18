//! What a publish asks the store: only about the objects the region's current release
//! does not name (those are there: every publish puts its objects before its release,
//! and gc keeps the current release's), every object when repairing, and every object
//! again when the current release's manifest object does not read. A rollback asks the
//! same way.

use crate::common::*;
use masterctl_delivery::layout;

const A: &[u8] = b"item table";
const B: &[u8] = b"quest table";

/// A build of release `n` holding A, B and `changed`.
fn build_of(root: &std::path::Path, n: u32, changed: &[u8]) -> std::path::PathBuf {
    let dir = root.join(format!("build{n}"));
    build(
        &dir,
        &commit(n),
        &[("item.bin", A), ("quest.bin", B), ("shop.bin", changed)],
    );
    dir
}

#[test]
fn a_publish_asks_only_about_what_the_current_release_does_not_name() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let first = publish(&store.remote, &build_of(root.path(), 1, b"shop v1"), false).unwrap();
    // Three files and the manifest, none there before.
    assert_eq!((first.objects, first.asked, first.uploaded), (4, 4, 4));
    // Its record is stored compressed (zstd), and reads back.
    let key = layout::release_key("jp", &first.release);
    let record = std::fs::read(store.path(&key)).unwrap();
    assert!(record.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]), "not zstd");
    let read = layout::Release::parse(&record, &key, "", "jp").unwrap();
    assert_eq!(read.release, first.release);

    let second = publish(&store.remote, &build_of(root.path(), 2, b"shop v2"), false).unwrap();
    // The changed table and the new manifest asked about; the rest known.
    assert_eq!((second.objects, second.asked, second.uploaded), (4, 2, 2));
    assert_eq!(second.skipped, 2);
    assert_eq!(second.skipped_bytes, (A.len() + B.len()) as u64);

    // An object of the current release lost from the store is not seen by a publish
    // that trusts the release, and is put back by one that repairs.
    std::fs::remove_file(store.path(&layout::object_key(&hash(A)))).unwrap();
    let third = publish(&store.remote, &build_of(root.path(), 3, b"shop v3"), false).unwrap();
    assert_eq!((third.asked, third.uploaded), (2, 2));
    assert!(!store.path(&layout::object_key(&hash(A))).exists());
    let repaired = publish(&store.remote, &build_of(root.path(), 3, b"shop v3"), true).unwrap();
    assert_eq!((repaired.asked, repaired.repaired), (4, 1));
    assert!(store.path(&layout::object_key(&hash(A))).exists());
}

#[test]
fn a_rollback_asks_only_about_what_the_current_release_does_not_name() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let first = publish(&store.remote, &build_of(root.path(), 1, b"shop v1"), false).unwrap();
    let second = publish(&store.remote, &build_of(root.path(), 2, b"shop v2"), false).unwrap();
    let current = || {
        let pointer = std::fs::read(store.path(&layout::pointer_key("jp"))).unwrap();
        serde_json::from_slice::<serde_json::Value>(&pointer).unwrap()["release"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // An object only the first release names is missing: refused, the pointer stays.
    let own = store.path(&layout::object_key(&hash(b"shop v1")));
    let held = std::fs::read(&own).unwrap();
    std::fs::remove_file(&own).unwrap();
    let refused = block_on(masterctl_delivery::rollback(
        &store.remote,
        "jp",
        &first.release,
        &masterctl_delivery::Moving::default(),
    ));
    let error = refused.unwrap_err();
    assert!(
        matches!(error, masterctl_delivery::DeliveryError::Corrupt { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("1 of its 4 objects"), "{error}");
    assert_eq!(current(), second.release);
    std::fs::write(&own, held).unwrap();
    // An object both releases name, lost from the store, is not seen: the current
    // release is trusted whole, as a publish trusts it (`publish --repair` mends it).
    std::fs::remove_file(store.path(&layout::object_key(&hash(A)))).unwrap();
    let rolled = block_on(masterctl_delivery::rollback(
        &store.remote,
        "jp",
        &first.release,
        &masterctl_delivery::Moving {
            by: Some("Mia <mia@example.com>".into()),
            reason: Some("the shop's prices were wrong".into()),
            sign: None,
        },
    ))
    .unwrap();
    assert!(rolled.moved);
    assert_eq!(current(), first.release);
    // The listing says who made it current, and why; an older masterctl's pointer
    // (neither field) reads as before.
    let listed = block_on(masterctl_delivery::releases(&store.remote, Some("jp"))).unwrap();
    let made = listed
        .iter()
        .find(|r| r.release == first.release)
        .and_then(|r| r.made_current.clone())
        .unwrap();
    assert_eq!(made.by.as_deref(), Some("Mia <mia@example.com>"));
    assert_eq!(made.reason.as_deref(), Some("the shop's prices were wrong"));
    assert!(
        listed
            .iter()
            .filter(|r| r.release != first.release)
            .all(|r| r.made_current.is_none())
    );
}

#[test]
fn a_current_release_whose_manifest_does_not_read_makes_a_publish_ask_about_everything() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let first = publish(&store.remote, &build_of(root.path(), 1, b"shop v1"), false).unwrap();
    // The release's record is not what names its objects: damaged, nothing changes.
    let record = store.path(&layout::release_key("jp", &first.release));
    std::fs::write(&record, b"{ not a release").unwrap();
    let second = publish(&store.remote, &build_of(root.path(), 2, b"shop v2"), false).unwrap();
    assert_eq!((second.asked, second.uploaded, second.skipped), (2, 2, 2));
    // Its manifest object is: damaged, every object is asked about.
    let manifest = hash(&std::fs::read(root.path().join("build2/manifest.json")).unwrap());
    std::fs::write(store.path(&layout::object_key(&manifest)), b"damaged").unwrap();
    let third = publish(&store.remote, &build_of(root.path(), 3, b"shop v3"), false).unwrap();
    assert_eq!((third.asked, third.uploaded, third.skipped), (4, 2, 2));
}
