//! Fleets that say what they run (`crate::fleet`): watchers reporting to a folder store,
//! counted per release; gc keeping what they run; a stale or forged report not counted.

use masterctl_delivery::keeping::{Keeper, Watched};
use masterctl_delivery::{fleet, layout};

use crate::common::*;

/// Publish release `n`.
fn publish_release(store: &Store, root: &std::path::Path, n: u32) -> String {
    let dir = build_release(root, n);
    publish(&store.remote, &dir, false).unwrap().release
}

#[test]
fn watchers_report_what_they_run_and_gc_keeps_it() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let first = publish_release(&store, root, 1);
    // Two servers take the first release and report it.
    for host in ["web-1", "web-2"] {
        let mut keeper = Keeper::new(
            store.remote.clone(),
            &root.join(host),
            fetch_options(&root.join("cache")),
        );
        keeper.report_as = Some(host.to_string());
        let watched = Watched::new(keeper.resumed());
        let status = block_on(keeper.round(&watched)).unwrap();
        assert_eq!(status.release.as_deref(), Some(first.as_str()));
        assert!(status.report_failed.is_none(), "{status:?}");
    }
    let second = publish_release(&store, root, 2);
    let third = publish_release(&store, root, 3);
    // One moves on to the third.
    let mut keeper = Keeper::new(
        store.remote.clone(),
        &root.join("web-2"),
        fetch_options(&root.join("cache")),
    );
    keeper.report_as = Some("web-2".into());
    let watched = Watched::new(keeper.resumed());
    block_on(keeper.round(&watched)).unwrap();

    let listed = block_on(masterctl_delivery::releases_and_fleet(
        &store.remote,
        Some("jp"),
    ))
    .unwrap();
    let servers = |release: &str| {
        let info = listed.iter().find(|r| r.release == release).unwrap();
        info.servers.clone().unwrap()
    };
    assert_eq!(servers(&first), ["web-1"]);
    assert_eq!(servers(&second), Vec::<String>::new());
    assert_eq!(servers(&third), ["web-2"]);

    // A stale report, and one whose host is not its key's, are not counted.
    let stale = fleet::Report {
        masterctl_fleet: 1,
        region: "jp".into(),
        host: "web-9".into(),
        release: Some(second.clone()),
        taken: None,
        reported: "2020-01-01T00:00:00.000Z".into(),
        refused: None,
    };
    let write = |key: &str, report: &fleet::Report| {
        std::fs::write(store.path(key), serde_json::to_vec(report).unwrap()).unwrap();
    };
    write(&fleet::report_key("jp", "web-9"), &stale);
    let forged = fleet::Report {
        host: "web-1".into(),
        reported: layout::now(),
        ..stale.clone()
    };
    write(&fleet::report_key("jp", "web-8"), &forged);
    let listed = block_on(masterctl_delivery::releases_and_fleet(
        &store.remote,
        Some("jp"),
    ))
    .unwrap();
    let second_info = listed.iter().find(|r| r.release == second).unwrap();
    assert_eq!(second_info.servers.as_deref(), Some(&[][..]));

    // A report no server rewrote for two days.
    let silent = store.path(&fleet::report_key("jp", "web-7"));
    write(&fleet::report_key("jp", "web-7"), &stale);
    let two_days_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 86_400);
    let file = std::fs::File::options().write(true).open(&silent).unwrap();
    file.set_modified(two_days_ago).unwrap();

    // gc keeping one release keeps the first too: web-1 runs it; the second goes, and
    // so does the silent server's report.
    let collected = block_on(masterctl_delivery::gc(
        &store.remote,
        1,
        0,
        false,
        &|_, _| {},
    ))
    .unwrap();
    assert_eq!(collected.reports_deleted, 1);
    assert!(!silent.exists());
    assert!(store.path(&fleet::report_key("jp", "web-1")).exists());
    assert_eq!(collected.deleted["jp"], std::slice::from_ref(&second));
    assert_eq!(collected.kept_running["jp"][&first], ["web-1"]);
    fetch(&store.remote, &root.join("again"), &root.join("cache2")).unwrap();
}
