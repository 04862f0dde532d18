//! Leases: who is changing a store right now. A writer (`publish`, `rollback`) and a
//! collector (`gc`) must never run at once — a publisher that found an old object
//! present and skipped it would otherwise see gc delete it before its release names it,
//! and a rollback would move the pointer to a release gc is deleting. Writers may run
//! together (their pointer is a compare-and-swap); one collector runs alone.
//!
//! The protocol needs only create-once puts, listing and deletes, which every store
//! here has (S3's listing is strongly consistent; a folder is a folder). Each party
//! creates its own lease object, `locks/<kind>/<id>.json`, *then* lists `locks/`: if
//! it finds a live lease it conflicts with, it deletes its own and tries again later.
//! Of a writer and a collector that both created their lease, the one that listed
//! second sees the other's, so they never both go on.
//!
//! A lease is kept alive by rewriting it every [`REFRESH`]; one not rewritten for
//! [`STALE`] belongs to a process that died (killed mid-publish) and is ignored, and
//! removed by the next collector — at once when the dead process was of the same
//! machine (its record names the machine and process). This assumes the clocks of the machines that change a
//! store, and the store's own, agree within a few minutes.

use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant};

use crate::DeliveryError;
use crate::holder::{holder_died, record_bytes};
use crate::remote::Remote;

/// How often a lease is rewritten while its holder works.
pub const REFRESH: Duration = Duration::from_secs(30);
/// A lease not rewritten for this long is a dead process's.
pub const STALE: Duration = Duration::from_secs(300);
/// How long a writer (publish, rollback) waits for a running `gc` to finish.
pub const GC_WAIT: Duration = STALE;

/// What holds a lease.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Publishes a release or moves the pointer: many at once.
    Write,
    /// Deletes releases and objects: alone.
    Collect,
}

impl Kind {
    fn folder(self) -> &'static str {
        match self {
            Kind::Write => "write",
            Kind::Collect => "gc",
        }
    }

    /// What the other party is doing, for a message.
    fn doing(self) -> &'static str {
        match self {
            Kind::Write => "a publish or rollback",
            Kind::Collect => "a gc",
        }
    }

    fn conflicts(self, other: Kind) -> bool {
        self == Kind::Collect || other == Kind::Collect
    }
}

/// A lease held: rewritten in the background until released.
pub(crate) struct Lease {
    remote: Remote,
    key: String,
    refresher: tokio::task::JoinHandle<()>,
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.refresher.abort();
    }
}

/// Run `work` holding a lease of `kind` on `remote` (`what` says what it is, on the
/// store). Waits up to `wait` for a conflicting holder to finish; then
/// [`DeliveryError::Busy`]. The lease is released whatever `work` returns.
pub(crate) async fn holding<T>(
    remote: &Remote,
    kind: Kind,
    what: &str,
    wait: Duration,
    work: impl Future<Output = Result<T, DeliveryError>>,
) -> Result<T, DeliveryError> {
    let ready = std::future::ready(());
    let work = |_| async { work.await.map(|done| (done, std::future::ready(()))) };
    let (done, ()) = holding_then(remote, kind, what, wait, ready, work).await?;
    Ok(done)
}

/// [`holding`], with two round trips saved. `alongside` runs while the store is asked
/// whether anyone holds a conflicting lease — after this lease is there, so what it
/// reads is read under it — and `work` is given its output (`None` when the lease had to
/// be asked for again: then `work` reads for itself). `work` also hands back what is
/// left to do that needs no lease: it runs while the lease is given back, and its
/// output comes with `work`'s.
pub(crate) async fn holding_then<T, A: Future, W, Then: Future>(
    remote: &Remote,
    kind: Kind,
    what: &str,
    wait: Duration,
    alongside: A,
    work: impl FnOnce(Option<A::Output>) -> W,
) -> Result<(T, Then::Output), DeliveryError>
where
    W: Future<Output = Result<(T, Then), DeliveryError>>,
{
    let (lease, beside) = Lease::take(remote, kind, what, wait, alongside).await?;
    match work(beside).await {
        Ok((done, then)) => {
            let ((), after) = futures::join!(lease.release(), then);
            Ok((done, after))
        }
        Err(e) => {
            lease.release().await;
            Err(e)
        }
    }
}

impl Lease {
    /// The lease, and what `alongside` read while the first look for conflicting
    /// holders was made (`None` when there was one, and the lease was asked for again).
    async fn take<A: Future>(
        remote: &Remote,
        kind: Kind,
        what: &str,
        wait: Duration,
        alongside: A,
    ) -> Result<(Lease, Option<A::Output>), DeliveryError> {
        let bytes = record_bytes(kind.folder(), what);
        let started = Instant::now();
        let mut key = create(remote, kind, &bytes).await?;
        let mut alongside = Some(alongside);
        loop {
            let (found, beside) = match alongside.take() {
                Some(alongside) => {
                    let (found, beside) =
                        futures::join!(conflicting(remote, kind, &key), alongside);
                    (found, Some(beside))
                }
                None => (conflicting(remote, kind, &key).await, None),
            };
            let holder = match found {
                Ok(None) => {
                    let refresher = tokio::spawn(refresh(remote.clone(), key.clone(), bytes));
                    let lease = Lease {
                        remote: remote.clone(),
                        key,
                        refresher,
                    };
                    return Ok((lease, beside));
                }
                Ok(Some(holder)) => holder,
                Err(e) => {
                    let _ = remote.delete(&key).await;
                    return Err(e);
                }
            };
            // A writer steps back for a collector (which keeps its lease while it waits,
            // so that a stream of publishes cannot starve it); a collector steps back for
            // another collector.
            let steps_back = kind == Kind::Write || holder == Kind::Collect;
            if steps_back || started.elapsed() >= wait {
                remote.delete(&key).await?;
            }
            if started.elapsed() >= wait {
                return Err(DeliveryError::Busy {
                    store: remote.shown().to_string(),
                    doing: holder.doing().to_string(),
                });
            }
            // Jittered, so that two parties stepping back do not meet again in step.
            tokio::time::sleep(Duration::from_millis(50 + random() % 150)).await;
            if steps_back {
                key = create(remote, kind, &bytes).await?;
            }
        }
    }

    async fn release(self) {
        self.refresher.abort();
        let _ = self.remote.delete(&self.key).await;
    }
}

/// A new lease object of `kind` holding `bytes`: its key.
async fn create(remote: &Remote, kind: Kind, bytes: &[u8]) -> Result<String, DeliveryError> {
    loop {
        let key = format!("locks/{}/{}.json", kind.folder(), unique_id());
        if remote.create(&key, bytes.to_vec()).await? {
            return Ok(key);
        }
    }
}

/// The kind of a live lease other than `own` that `kind` conflicts with, if any. A
/// collector removes the stale leases it finds: their holders are dead.
async fn conflicting(
    remote: &Remote,
    kind: Kind,
    own: &str,
) -> Result<Option<Kind>, DeliveryError> {
    let mut found = None;
    for listed in remote.list("locks/").await? {
        if listed.key == own || !listed.key.ends_with(".json") {
            continue;
        }
        let other = if listed.key.starts_with("locks/gc/") {
            Kind::Collect
        } else if listed.key.starts_with("locks/write/") {
            Kind::Write
        } else {
            continue;
        };
        if !kind.conflicts(other) {
            continue;
        }
        let dead = listed.age >= STALE.as_secs()
            || remote
                .get(&listed.key, 64 << 10)
                .await
                .ok()
                .flatten()
                .is_some_and(|bytes| holder_died(&bytes));
        if dead {
            if kind == Kind::Collect {
                remote.delete(&listed.key).await?;
            }
            continue;
        }
        found = Some(other);
    }
    Ok(found)
}

/// Rewrite the lease every [`REFRESH`] while its holder works.
async fn refresh(remote: Remote, key: String, bytes: Vec<u8>) {
    loop {
        tokio::time::sleep(REFRESH).await;
        let _ = remote.put(&key, bytes.clone()).await;
    }
}

/// A name no other lease has: the time, this process, and randomness.
fn unique_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{nanos:x}-{}-{:016x}", std::process::id(), random())
}

/// A random number (the standard library's hash keys are drawn at random).
fn random() -> u64 {
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::holder::{Record, this_machine};

    /// A folder store in a new temporary folder.
    fn folder_store() -> (tempfile::TempDir, Remote) {
        let root = tempfile::tempdir().unwrap();
        let url = format!("file://{}", root.path().display());
        let remote = Remote::open(&url, &crate::RemoteOptions::default()).unwrap();
        (root, remote)
    }

    /// A lease, nothing read alongside.
    async fn take(
        remote: &Remote,
        kind: Kind,
        what: &str,
        wait: Duration,
    ) -> Result<Lease, DeliveryError> {
        let ready = std::future::ready(());
        Ok(Lease::take(remote, kind, what, wait, ready).await?.0)
    }

    #[test]
    fn what_is_read_alongside_is_kept_only_when_the_first_look_found_no_conflict() {
        let (_root, remote) = folder_store();
        crate::runtime().unwrap().block_on(async {
            let wait = Duration::from_secs(20);
            let (lease, beside) = Lease::take(&remote, Kind::Write, "a", wait, async { 7 })
                .await
                .unwrap();
            assert_eq!(beside, Some(7));
            lease.release().await;
            // A collector is there when the writer first looks: it steps back, and takes
            // its lease once the collector is gone, with nothing read alongside.
            let gc = take(&remote, Kind::Collect, "gc", wait).await.unwrap();
            let (writer, ()) = futures::join!(
                async {
                    let (lease, beside) = Lease::take(&remote, Kind::Write, "b", wait, async { 8 })
                        .await
                        .unwrap();
                    assert_eq!(beside, None, "read before the conflict was seen");
                    lease
                },
                async {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    gc.release().await;
                }
            );
            writer.release().await;
        });
    }

    #[test]
    fn a_collector_waits_for_writers_and_writers_for_it() {
        let (root, remote) = folder_store();
        crate::runtime().unwrap().block_on(async {
            let short = Duration::from_millis(300);
            // Two writers hold leases at once.
            let a = take(&remote, Kind::Write, "a", short).await.unwrap();
            let b = take(&remote, Kind::Write, "b", short).await.unwrap();
            // A collector cannot take one while they do.
            let busy = take(&remote, Kind::Collect, "gc", short).await;
            assert!(matches!(busy, Err(DeliveryError::Busy { .. })));
            a.release().await;
            b.release().await;
            let gc = take(&remote, Kind::Collect, "gc", short).await.unwrap();
            // Neither a writer nor another collector while it runs.
            let busy = take(&remote, Kind::Write, "c", short).await;
            assert!(matches!(busy, Err(DeliveryError::Busy { .. })));
            assert!(take(&remote, Kind::Collect, "gc2", short).await.is_err());
            gc.release().await;
            // Nothing left behind by those that gave up or finished.
            assert!(remote.list("locks/").await.unwrap().is_empty());
            // A lease of a process of this machine that no longer runs: ignored at once.
            let gone = Record {
                masterctl_lease: 1,
                kind: "write".into(),
                what: "killed".into(),
                machine: this_machine(),
                pid: 4_194_399,
                since: crate::layout::now(),
            };
            let dead_here = root.path().join("locks/write/killed.json");
            std::fs::create_dir_all(dead_here.parent().unwrap()).unwrap();
            std::fs::write(&dead_here, serde_json::to_vec(&gone).unwrap()).unwrap();
            let gc = take(&remote, Kind::Collect, "gc", short).await.unwrap();
            assert!(!dead_here.exists(), "the killed writer's lease was removed");
            gc.release().await;
            // A lease nobody rewrote for longer than STALE is a dead process's.
            let dead = root.path().join("locks/write/dead.json");
            std::fs::create_dir_all(dead.parent().unwrap()).unwrap();
            std::fs::write(&dead, b"{}").unwrap();
            let old = std::time::SystemTime::now() - STALE - Duration::from_secs(5);
            std::fs::File::options()
                .write(true)
                .open(&dead)
                .unwrap()
                .set_modified(old)
                .unwrap();
            let gc = take(&remote, Kind::Collect, "gc", short).await.unwrap();
            assert!(
                !dead.exists(),
                "the collector removed the dead writer's lease"
            );
            gc.release().await;
        });
    }
}
