//! The delivery path under attack, through the library a server links: forged releases
//! that would write through the fetch cache, objects of the wrong size, output folders
//! that are links or someone else's, oversized objects, a damaged store repaired, and
//! what killed uploads leave. Each test is the reproduction of a defect once found.

use crate::common::*;
use masterctl_delivery::{DeliveryError, Remote, RemoteOptions};

/// The first build, fetched: the price a server serves is in `out/v1/price.bin`.
fn served(store: &Store, root: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let build_dir = root.join("build");
    build(
        &build_dir,
        &commit(1),
        &[("price.bin", b"price=100"), ("name.bin", b"sword")],
    );
    publish(&store.remote, &build_dir, false).unwrap();
    let (out, cache) = (root.join("v1"), root.join("cache"));
    fetch(&store.remote, &out, &cache).unwrap();
    (out, cache)
}

#[test]
fn a_forged_release_never_writes_through_the_cache_into_served_builds() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let (v1, cache) = served(&store, root.path());
    let forged: &[u8] = b"price=999999";
    let price = entry("price.bin", b"price=100");
    let mut twice = entry("price.bin", forged);
    twice.path = "price.bin".to_string();
    let mut manifest_too = entry("./manifest.json", forged);
    manifest_too.path = "./manifest.json".to_string();
    let mut dotted = entry("./price.bin", forged);
    dotted.path = "./price.bin".to_string();
    for (n, extra) in [twice, manifest_too, dotted].into_iter().enumerate() {
        let release = commit(100 + n as u32);
        forge(&store, &release, vec![price.clone(), extra], &[forged]);
        let error = fetch(&store.remote, &root.path().join("v2"), &cache).unwrap_err();
        assert!(
            matches!(error, DeliveryError::Foreign { .. }),
            "{release}: {error}"
        );
        assert_eq!(std::fs::read(v1.join("price.bin")).unwrap(), b"price=100");
        assert_eq!(
            std::fs::read(cache.join(hash(b"price=100"))).unwrap(),
            b"price=100"
        );
        assert!(!root.path().join("v2").exists());
    }
}

#[test]
fn an_object_of_the_wrong_size_is_never_linked() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let (v1, cache) = served(&store, root.path());
    // One hash, two sizes.
    let mut wrong = entry("other.bin", b"price=100");
    wrong.size += 7;
    forge(
        &store,
        &commit(200),
        vec![entry("price.bin", b"price=100"), wrong.clone()],
        &[],
    );
    let error = fetch(&store.remote, &root.path().join("v2"), &cache).unwrap_err();
    assert!(matches!(error, DeliveryError::Foreign { .. }), "{error}");
    // The cached object's hash with another size alone: downloaded, and refused.
    wrong.path = "price.bin".to_string();
    forge(&store, &commit(201), vec![wrong], &[]);
    let error = fetch(&store.remote, &root.path().join("v2"), &cache).unwrap_err();
    assert!(
        matches!(
            error,
            DeliveryError::Corrupt { .. } | DeliveryError::TooLarge { .. }
        ),
        "{error}"
    );
    assert!(!root.path().join("v2").exists());
    assert_eq!(std::fs::read(v1.join("price.bin")).unwrap(), b"price=100");
}

#[cfg(unix)]
#[test]
fn a_downloaded_object_is_one_file_in_the_build_and_the_cache_and_a_damaged_copy_is_replaced() {
    #[cfg(unix)]
    use std::os::unix::fs::MetadataExt;
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let build_dir = root.path().join("build");
    let twin: &[u8] = b"the same bytes twice";
    build(
        &build_dir,
        &commit(1),
        &[
            ("a/one.bin", twin),
            ("b/two.bin", twin),
            ("three.bin", b"three"),
        ],
    );
    publish(&store.remote, &build_dir, false).unwrap();
    // The cache holds a damaged copy of one object (another size: not taken).
    let cache = root.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(cache.join(hash(b"three")), b"thre").unwrap();
    let out = root.path().join("out");
    fetch(&store.remote, &out, &cache).unwrap();
    for (path, bytes) in [
        ("a/one.bin", twin),
        ("b/two.bin", twin),
        ("three.bin", b"three"),
    ] {
        assert_eq!(std::fs::read(out.join(path)).unwrap(), bytes, "{path}");
        let kept = cache.join(hash(bytes));
        assert_eq!(std::fs::read(&kept).unwrap(), bytes, "{path} in the cache");
        let (file, cached) = (
            std::fs::metadata(out.join(path)).unwrap(),
            std::fs::metadata(&kept).unwrap(),
        );
        assert!(file.permissions().readonly() && cached.permissions().readonly());
        // Written once, linked into the cache and to the other path made of it (the
        // damaged copy is replaced by a copy of its own).
        #[cfg(unix)]
        assert!(path == "three.bin" || file.ino() == cached.ino(), "{path}");
    }
}

#[test]
fn a_link_or_a_foreign_folder_is_never_replaced() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let (v1, cache) = served(&store, root.path());
    std::fs::write(v1.join("unrelated.txt"), "kept").unwrap();
    let current = root.path().join("current");
    std::os::unix::fs::symlink(&v1, &current).unwrap();
    let error = fetch(&store.remote, &current, &cache).unwrap_err();
    assert!(matches!(error, DeliveryError::OutIsLink(_)), "{error}");
    assert!(v1.join("unrelated.txt").is_file() && v1.join("price.bin").is_file());
    assert!(current.is_symlink());
    // A folder holding another tool's manifest.json.
    let web = root.path().join("web");
    std::fs::create_dir(&web).unwrap();
    std::fs::write(web.join("manifest.json"), r#"{"name":"app","icons":[]}"#).unwrap();
    std::fs::write(web.join("index.html"), "<html>").unwrap();
    let error = fetch(&store.remote, &web, &cache).unwrap_err();
    assert!(matches!(error, DeliveryError::NotABuild(_)), "{error}");
    assert!(web.join("index.html").is_file());
}

#[test]
fn reads_stop_at_what_the_record_says() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let build_dir = root.path().join("build");
    build(&build_dir, &commit(1), &[("price.bin", b"price=100")]);
    publish(&store.remote, &build_dir, false).unwrap();
    // A 2 GiB sparse file in the place of a 9-byte object: refused before it is read.
    let object = store.path(&format!("objects/{}", hash(b"price=100")));
    std::fs::remove_file(&object).unwrap();
    std::fs::File::create(&object)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let cache = root.path().join("cache");
    let error = fetch(&store.remote, &root.path().join("out"), &cache).unwrap_err();
    assert!(matches!(error, DeliveryError::TooLarge { .. }), "{error}");
    // A pointer of a megabyte.
    let pointer = store.path("regions/jp/current.json");
    std::fs::write(&pointer, vec![b' '; 1 << 20]).unwrap();
    let error = fetch(&store.remote, &root.path().join("out"), &cache).unwrap_err();
    assert!(matches!(error, DeliveryError::TooLarge { .. }), "{error}");
}

#[test]
fn publish_repair_puts_back_what_the_store_lost() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let build_dir = root.path().join("build");
    build(
        &build_dir,
        &commit(1),
        &[("price.bin", b"price=100"), ("name.bin", b"sword")],
    );
    publish(&store.remote, &build_dir, false).unwrap();
    let price = store.path(&format!("objects/{}", hash(b"price=100")));
    let name = store.path(&format!("objects/{}", hash(b"sword")));
    std::fs::remove_file(&price).unwrap();
    std::fs::write(&name, b"swore").unwrap();
    let cache = root.path().join("cache");
    let out = root.path().join("out");
    assert!(fetch(&store.remote, &out, &cache).is_err());
    // A plain republish trusts the current release: nothing uploaded.
    let again = publish(&store.remote, &build_dir, false).unwrap();
    assert_eq!((again.uploaded, again.pointer_moved), (0, false));
    // --repair reads every object back and puts again what is not whole.
    let repaired = publish(&store.remote, &build_dir, true).unwrap();
    assert_eq!(repaired.repaired, 2, "{repaired:?}");
    assert!(!repaired.pointer_moved);
    fetch(&store.remote, &out, &cache).unwrap();
    assert_eq!(std::fs::read(out.join("name.bin")).unwrap(), b"sword");
    // Nothing left to repair.
    let whole = publish(&store.remote, &build_dir, true).unwrap();
    assert_eq!((whole.repaired, whole.uploaded), (0, 0));
}

#[test]
fn gc_removes_what_killed_uploads_left() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let build_dir = root.path().join("build");
    build(&build_dir, &commit(1), &[("price.bin", b"price=100")]);
    publish(&store.remote, &build_dir, false).unwrap();
    let old = store.path(&format!("objects/{}#1", "a".repeat(64)));
    let young = store.path(&format!("objects/{}#2", "b".repeat(64)));
    std::fs::write(&old, b"half").unwrap();
    std::fs::write(&young, b"half").unwrap();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
    let collected = block_on(masterctl_delivery::gc(
        &store.remote,
        3,
        3600,
        false,
        &|_, _| {},
    ))
    .unwrap();
    assert_eq!(collected.leftovers_deleted, 1);
    assert!(!old.exists() && young.exists());
    // The release is whole still.
    fetch(
        &store.remote,
        &root.path().join("out"),
        &root.path().join("cache"),
    )
    .unwrap();
}

#[test]
fn a_folder_store_that_is_not_there_is_made_by_a_publish_only() {
    let root = tempfile::tempdir().unwrap();
    let folder = root.path().join("mistyped/store");
    let url = format!("file://{}", folder.display());
    let remote = Remote::open(&url, &RemoteOptions::default()).unwrap();
    // Read, or collected: said, and nothing made.
    let collected = block_on(masterctl_delivery::gc(&remote, 1, 0, false, &|_, _| {}));
    assert!(
        matches!(collected, Err(DeliveryError::Missing { .. })),
        "{collected:?}"
    );
    let listed = block_on(masterctl_delivery::releases(&remote, None));
    assert!(
        matches!(listed, Err(DeliveryError::Missing { .. })),
        "{listed:?}"
    );
    let out = root.path().join("out");
    let fetched = fetch(&remote, &out, &root.path().join("cache"));
    let said = fetched.map(drop).unwrap_err().to_string();
    assert!(said.contains("nothing was ever published there"), "{said}");
    assert!(
        !root.path().join("mistyped").exists(),
        "a read made the folder"
    );
    // A publish makes it, and what it wrote is where a store opened on it now reads.
    let build_dir = root.path().join("build");
    build(&build_dir, &commit(1), &[("price.bin", b"price=100")]);
    publish(&remote, &build_dir, false).unwrap();
    assert!(folder.join("regions/jp/current.json").is_file());
    let reopened = Remote::open(&url, &RemoteOptions::default()).unwrap();
    fetch(&reopened, &out, &root.path().join("cache")).unwrap();
    block_on(masterctl_delivery::gc(&reopened, 1, 0, false, &|_, _| {})).unwrap();
}

#[test]
fn publishers_of_one_build_both_succeed() {
    // Two publishers of the same build: the one whose pointer write loses finds the
    // pointer naming its release, which is success.
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let first = root.path().join("first");
    build(&first, &commit(1), &[("a.bin", b"one")]);
    publish(&store.remote, &first, false).unwrap();
    let second = root.path().join("second");
    build(&second, &commit(2), &[("a.bin", b"two")]);
    let results: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| publish(&store.remote, &second, false)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for result in &results {
        let published = result
            .as_ref()
            .expect("every publisher of the build succeeds");
        assert!(published.pointer_moved || published.moved_by_another || published.uploaded == 0);
    }
    assert!(
        results
            .iter()
            .filter(|r| r.as_ref().unwrap().pointer_moved)
            .count()
            >= 1
    );
}

#[test]
fn release_ids_as_printed_are_taken_back() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    // Two releases sharing their first 9 digits.
    let (a, b) = (
        format!("abcdef012{}", "0".repeat(31)),
        format!("abcdef012{}", "1".repeat(31)),
    );
    for (release, bytes) in [(&a, b"one".as_slice()), (&b, b"two".as_slice())] {
        let dir = root.path().join(release);
        build(&dir, release, &[("a.bin", bytes)]);
        publish(&store.remote, &dir, false).unwrap();
    }
    let resolve = |named: &str| {
        block_on(masterctl_delivery::resolve_release(
            &store.remote,
            "jp",
            named,
        ))
    };
    // These are client builds: `<commit>-client`.
    let (a_id, b_id) = (format!("{a}-client"), format!("{b}-client"));
    assert_eq!(resolve(&a_id[..12]).unwrap(), a_id, "12 digits, as printed");
    assert_eq!(resolve(&b.to_uppercase()[..10]).unwrap(), b_id);
    assert_eq!(resolve(&a).unwrap(), a_id, "the whole commit");
    assert_eq!(resolve(&a_id).unwrap(), a_id);
    assert_eq!(resolve(&format!("{}-client", &a[..12])).unwrap(), a_id);
    match resolve("abcdef01") {
        Err(DeliveryError::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates, [a_id.clone(), b_id.clone()])
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(resolve("abcdef"), Err(DeliveryError::BadName(_))),
        "6 digits"
    );
    assert!(matches!(
        resolve("fffffff"),
        Err(DeliveryError::NoRelease { .. })
    ));
    // rollback and fetch take them.
    block_on(masterctl_delivery::rollback(
        &store.remote,
        "jp",
        &a[..12],
        &Default::default(),
    ))
    .unwrap();
    let mut options = fetch_options(&root.path().join("cache"));
    options.release = Some(b[..12].to_string());
    let fetched = block_on(masterctl_delivery::fetch(
        &store.remote,
        &root.path().join("out"),
        &options,
        &|_, _| {},
    ))
    .unwrap();
    assert_eq!(fetched.release, b_id);
}

/// A pointer naming a release whose record is gone (deleted by hand, or never written
/// by a foreign tool): what that release needs is unknown, so gc deletes nothing, not
/// even the releases and objects it would otherwise collect, and says which pointer.
#[test]
fn gc_deletes_nothing_while_a_pointer_names_a_release_without_a_record() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let build_dir = root.path().join("build");
    for n in 1..=3 {
        build(
            &build_dir,
            &commit(n),
            &[("price.bin", format!("price={n}").as_bytes())],
        );
        publish(&store.remote, &build_dir, false).unwrap();
    }
    let listing = |dir: &str| std::fs::read_dir(store.path(dir)).unwrap().count();
    let (releases, objects) = (listing("releases/jp"), listing("objects"));
    let record = std::fs::read_dir(store.path("releases/jp"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains(&commit(3)))
        .unwrap();
    std::fs::remove_file(record).unwrap();
    let error = block_on(masterctl_delivery::gc(
        &store.remote,
        1,
        0,
        false,
        &|_, _| {},
    ))
    .unwrap_err();
    assert!(matches!(error, DeliveryError::Foreign { .. }), "{error}");
    assert!(
        error.to_string().contains("regions/jp/current.json"),
        "{error}"
    );
    assert!(error.to_string().contains(&commit(3)), "{error}");
    assert_eq!(
        (listing("releases/jp"), listing("objects")),
        (releases - 1, objects)
    );
}
