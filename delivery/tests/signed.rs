//! Signed releases in a folder store (`signed_scenario.rs`; `race.rs` runs the same on
//! s3s-fs).

use crate::common::Store;

#[test]
fn a_server_that_trusts_keys_takes_only_what_they_signed_and_never_an_older_release() {
    let store = Store::new();
    let root = tempfile::tempdir().unwrap();
    crate::signed_scenario::scenario(&store.remote, store.root.path(), root.path());
}
