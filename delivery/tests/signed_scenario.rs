//! Signed releases against any store whose objects are files under `files` (a folder
//! store, or s3s-fs's bucket folder): what a server that trusts keys takes and refuses.
//! Shared by the suite (a folder) and `race.rs` (s3s-fs).

use std::path::Path;
use std::sync::Arc;

use masterctl_delivery::signing::{SigningKey, new_key_pair};
use masterctl_delivery::{DeliveryError, FetchOptions, Moving, PublishOptions, Remote, layout};
use masterctl_runtime::signature::TrustedKey;

use crate::common::{block_on, build_release};

/// A key pair: the key to sign with, the key to trust.
fn key_pair() -> (Arc<SigningKey>, TrustedKey) {
    let pair = new_key_pair(None).unwrap();
    let key = SigningKey::read(&pair.secret, || panic!("the key is not encrypted")).unwrap();
    (Arc::new(key), TrustedKey::parse(&pair.public).unwrap())
}

/// Publish release `n` (a build of its own), signed by `key` when given.
fn publish(
    remote: &Remote,
    root: &Path,
    n: u32,
    key: Option<&Arc<SigningKey>>,
) -> masterctl_delivery::Published {
    let dir = build_release(root, n);
    let options = PublishOptions {
        force: true,
        sign: key.cloned(),
        ..PublishOptions::default()
    };
    block_on(masterctl_delivery::publish(
        remote,
        &dir,
        &options,
        &|_, _| {},
    ))
    .unwrap()
}

/// Fetch the region's current release into `root/server`, trusting `trusted`.
fn fetch(
    remote: &Remote,
    root: &Path,
    trusted: &[&TrustedKey],
) -> Result<masterctl_delivery::Fetched, DeliveryError> {
    let options = FetchOptions {
        region: "jp".into(),
        languages: None,
        release: None,
        cache: Some(root.join("cache")),
        concurrency: Some(4),
        verify: false,
        trusted: trusted.iter().map(|k| (*k).clone()).collect(),
        signed_state: None,
    };
    block_on(masterctl_delivery::fetch(
        remote,
        &root.join("server"),
        &options,
        &|_, _| {},
    ))
}

/// The release the server's build runs.
fn running(root: &Path) -> String {
    let manifest = masterctl_runtime::read_manifest(&root.join("server"))
        .unwrap()
        .0;
    layout::release_id(&manifest)
}

/// Roll back to `release`, signed by `key`.
fn roll_back(
    remote: &Remote,
    release: &str,
    key: &Arc<SigningKey>,
) -> masterctl_delivery::RolledBack {
    let moving = Moving {
        by: None,
        reason: Some("back".into()),
        sign: Some(key.clone()),
    };
    block_on(masterctl_delivery::rollback(remote, "jp", release, &moving)).unwrap()
}

/// Every way a server that trusts keys is given a release it must refuse — unsigned,
/// signed by a key it does not trust, a signature moved to another release, a signature
/// stripped, an older signed release put back (a replay) — refused with the build it
/// runs left as it was; and what it must take: a signed publish, a signed rollback
/// (which states a later number), a new key trusted beside the old one, then alone.
pub fn scenario(remote: &Remote, files: &Path, root: &Path) {
    let (old, old_trusted) = key_pair();
    let (new, new_trusted) = key_pair();
    let (stranger, _) = key_pair();
    let file = |key: &str| files.join(key);

    // A signed release is taken; what it states is kept beside the build.
    let first = publish(remote, root, 1, Some(&old));
    let signed = first.signed.clone().unwrap();
    assert_eq!(signed.key, old.id());
    assert!(file(&layout::signature_key("jp", &first.release)).is_file());
    let fetched = fetch(remote, root, &[&old_trusted]).unwrap();
    let kept = fetched.signed.unwrap();
    assert_eq!(
        (kept.release.as_str(), kept.sequence),
        (first.release.as_str(), signed.sequence)
    );
    assert!(root.join(".server.signed.json").is_file());
    let first_pointer = std::fs::read(file(&layout::pointer_key("jp"))).unwrap();

    // Unsigned: refused, the build left as it was.
    let unsigned = publish(remote, root, 2, None);
    assert!(unsigned.signed.is_none());
    let refused = fetch(remote, root, &[&old_trusted]).unwrap_err();
    assert!(
        matches!(refused, DeliveryError::Unsigned { .. }),
        "{refused}"
    );
    assert_eq!(running(root), first.release);

    // Signed by a key not trusted.
    let strange = publish(remote, root, 3, Some(&stranger));
    let refused = fetch(remote, root, &[&old_trusted]).unwrap_err();
    assert!(
        refused.to_string().contains(&format!(
            "signed by key {}, which is not trusted",
            stranger.id()
        )),
        "{refused}"
    );
    assert_eq!(running(root), first.release);
    assert!(strange.signed.is_some());

    // Signed by the trusted key: taken, stating a later number than the first.
    let fourth = publish(remote, root, 4, Some(&old));
    assert!(fourth.signed.as_ref().unwrap().sequence > signed.sequence);
    fetch(remote, root, &[&old_trusted]).unwrap();
    assert_eq!(running(root), fourth.release);

    // A signature moved onto another release: not over its manifest.
    let fifth = publish(remote, root, 5, None);
    std::fs::copy(
        file(&layout::signature_key("jp", &fourth.release)),
        file(&layout::signature_key("jp", &fifth.release)),
    )
    .unwrap();
    let refused = fetch(remote, root, &[&old_trusted]).unwrap_err();
    assert!(
        refused.to_string().contains("does not match it"),
        "{refused}"
    );
    assert_eq!(running(root), fourth.release);

    // The first release put back as it was, its signature and all: a replay.
    std::fs::write(file(&layout::pointer_key("jp")), &first_pointer).unwrap();
    let refused = fetch(remote, root, &[&old_trusted]).unwrap_err();
    assert!(
        matches!(refused, DeliveryError::Replayed { .. }),
        "{refused}"
    );
    assert_eq!(running(root), fourth.release);

    // A rollback to it, signed, states a later number: taken.
    let rolled = roll_back(remote, &first.release, &old);
    assert!(rolled.moved);
    assert!(rolled.signed.unwrap().sequence > fourth.signed.unwrap().sequence);
    fetch(remote, root, &[&old_trusted]).unwrap();
    assert_eq!(running(root), first.release);

    // A new key trusted beside the old one, then alone.
    let sixth = publish(remote, root, 6, Some(&new));
    fetch(remote, root, &[&old_trusted, &new_trusted]).unwrap();
    assert_eq!(running(root), sixth.release);
    roll_back(remote, &fourth.release, &old);
    let refused = fetch(remote, root, &[&new_trusted]).unwrap_err();
    assert!(
        matches!(refused, DeliveryError::BadSignature { .. }),
        "{refused}"
    );
    assert_eq!(running(root), sixth.release);

    // The signature stripped.
    roll_back(remote, &sixth.release, &new);
    std::fs::remove_file(file(&layout::signature_key("jp", &sixth.release))).unwrap();
    let refused = fetch(remote, root, &[&new_trusted]).unwrap_err();
    assert!(
        matches!(refused, DeliveryError::Unsigned { .. }),
        "{refused}"
    );
}
