//! Objects asked for while the manifest that names them is still arriving. A manifest
//! of 1,500 files is 70 KB compressed: on a new connection across a distant link that
//! is three round trips of TCP's slow start, during which the connection would carry
//! nothing else. The files it lists come in order, so each entry is read as soon as it
//! is whole and the object it names is asked for at once.
//!
//! Nothing is trusted before the whole manifest is verified by its hash: an object
//! asked for early is only held in memory, as the store sent it; once the manifest
//! verifies, the fetch takes it in place of a request of its own and checks it like
//! any other (its hash, its structure as an archive, as the verified manifest says).
//! Should the manifest not verify, whatever was asked for is dropped, requests still
//! running cancelled, and nothing has reached the cache.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use bytes::Bytes;
use masterctl_runtime::FileEntry;

use crate::ahead::Ahead;
use crate::arriving::ManifestText;
use crate::cache::Cache;
use crate::layout;
use crate::remote::Remote;

/// Bytes of objects asked for before the manifest verifies, at most (what they may hold
/// in memory should the manifest not verify): the rest are asked for once it does.
const BUDGET: u64 = 16 << 20;

/// A manifest object as it arrives, each entry handed to a [`Prefetch`] as soon as it
/// is whole.
pub(crate) struct ManifestWatch {
    text: ManifestText,
    prefetch: Prefetch,
}

impl ManifestWatch {
    /// A watch handing entries to `prefetch`, of a manifest of at most `limit` bytes
    /// of text.
    pub(crate) fn new(prefetch: Prefetch, limit: u64) -> ManifestWatch {
        ManifestWatch {
            text: ManifestText::new(limit),
            prefetch,
        }
    }

    /// The stored bytes so far (each call's a prefix of the next one's).
    pub(crate) fn seen(&mut self, stored: &[u8]) {
        for entry in self.text.seen(stored) {
            self.prefetch.ask(&entry);
        }
    }

    /// What was asked for.
    pub(crate) fn into_prefetch(self) -> Prefetch {
        self.prefetch
    }
}

/// An object asked for early: its bytes as the store sent them, or `None` when the
/// request failed (it is then asked for again, as if never asked). Dropped, the request
/// is cancelled.
pub(crate) type Asked = Ahead<Option<Bytes>>;

/// The objects asked for while a manifest arrives.
pub(crate) struct Prefetch {
    remote: Remote,
    cache: Cache,
    /// The languages asked for (`None`: all).
    languages: Option<Vec<String>>,
    /// Requests in flight at once, at most (the fetch's own concurrency).
    slots: Arc<tokio::sync::Semaphore>,
    budget: u64,
    asked: HashMap<String, Asked>,
    /// The objects asked for, in the order they were.
    order: Vec<String>,
    /// The objects (hash, size) the cache held when the entry naming them came.
    held: HashSet<(String, u64)>,
}

impl Prefetch {
    /// Early requests to `remote` for objects `cache` (its folder; nothing is written
    /// there) lacks, of `languages`, `concurrency` at a time.
    pub(crate) fn new(
        remote: &Remote,
        cache: Cache,
        languages: Option<Vec<String>>,
        concurrency: usize,
    ) -> Prefetch {
        Prefetch {
            remote: remote.clone(),
            cache,
            languages,
            slots: Arc::new(tokio::sync::Semaphore::new(concurrency.max(1))),
            budget: BUDGET,
            asked: HashMap::new(),
            order: Vec::new(),
            held: HashSet::new(),
        }
    }

    /// Ask for the object of `entry` (as the unverified manifest says it is), unless
    /// it is another language's, the cache holds it, it was asked for, or the budget is
    /// spent.
    pub(crate) fn ask(&mut self, entry: &FileEntry) {
        let wanted = match (&self.languages, &entry.language) {
            (Some(languages), Some(language)) => languages.contains(language),
            _ => true,
        };
        if !wanted
            || entry.size > self.budget
            || self.asked.contains_key(&entry.blake3)
            || !layout::is_hash(&entry.blake3)
        {
            return;
        }
        if self.cache.holds(&entry.blake3, entry.size, false) {
            self.held.insert((entry.blake3.clone(), entry.size));
            return;
        }
        self.budget -= entry.size;
        let (remote, slots) = (self.remote.clone(), self.slots.clone());
        let (key, limit) = (layout::object_key(&entry.blake3), entry.size);
        let request = Ahead::spawn(async move {
            let _slot = slots.acquire_owned().await.ok()?;
            remote.get(&key, limit).await.ok().flatten()
        });
        self.asked.insert(entry.blake3.clone(), request);
        self.order.push(entry.blake3.clone());
    }

    /// `objects` (hash, size) in the order they are best taken: those asked for early
    /// first, as they were asked for (so that their answers are taken as they come
    /// rather than held), then the others.
    pub(crate) fn in_order(&self, objects: &mut [(String, u64)]) {
        let place: HashMap<&str, usize> = self
            .order
            .iter()
            .enumerate()
            .map(|(at, hash)| (hash.as_str(), at))
            .collect();
        objects.sort_by_key(|(hash, _)| place.get(hash.as_str()).copied().unwrap_or(usize::MAX));
    }

    /// The requests in flight at once: those asked for early share them with the
    /// fetch's own, so that the two together never open more connections than the
    /// fetch alone would.
    pub(crate) fn slots(&self) -> Arc<tokio::sync::Semaphore> {
        self.slots.clone()
    }

    /// Whether the cache held the object `hash` of `size` bytes when its entry came
    /// (`Some(false)`: it was asked for, the cache lacking it); `None` when that was not
    /// looked at. The fetch asks the cache only about the others.
    pub(crate) fn found_held(&self, hash: &str, size: u64) -> Option<bool> {
        if self.held.contains(&(hash.to_string(), size)) {
            return Some(true);
        }
        self.asked.contains_key(hash).then_some(false)
    }

    /// The early request for `hash`, if there was one.
    pub(crate) fn take(&mut self, hash: &str) -> Option<Asked> {
        self.asked.remove(hash)
    }

    /// Every request asked for answered (for tests that change the store after).
    #[cfg(test)]
    pub(crate) async fn answered(&mut self) {
        for asked in self.asked.values_mut() {
            let answer = asked.output().await.flatten();
            *asked = Ahead::spawn(async move { answer });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arriving::tests::manifest;

    /// A store in the folder `store` of `root`.
    fn folder_store(root: &std::path::Path) -> Remote {
        let url = format!("file://{}", root.join("store").display());
        Remote::open(&url, &crate::RemoteOptions::default()).unwrap()
    }

    #[test]
    fn objects_asked_for_early_are_taken_first_as_they_were_asked_for() {
        let root = tempfile::tempdir().unwrap();
        let remote = folder_store(root.path());
        let files = manifest().files;
        crate::runtime().unwrap().block_on(async {
            let cache = Cache::at(&root.path().join("cache"));
            let mut prefetch = Prefetch::new(&remote, cache, None, 2);
            prefetch.ask(&files[2]);
            prefetch.ask(&files[0]);
            prefetch.ask(&files[0]);
            let mut objects: Vec<(String, u64)> = ["f".repeat(64), files[0].blake3.clone()]
                .into_iter()
                .chain(files.iter().map(|f| f.blake3.clone()))
                .map(|hash| (hash, 1))
                .collect();
            objects.sort();
            objects.dedup();
            prefetch.in_order(&mut objects);
            let order: Vec<&str> = objects.iter().map(|(hash, _)| hash.as_str()).collect();
            let (a, b, c) = (&files[0].blake3, &files[1].blake3, &files[2].blake3);
            assert_eq!(order, [c.as_str(), a, b, &"f".repeat(64)]);
        });
    }

    #[test]
    fn what_the_cache_held_when_an_entry_came_is_told_by_hash_and_size() {
        let root = tempfile::tempdir().unwrap();
        let remote = folder_store(root.path());
        let files = manifest().files;
        let cache = Cache::open(&root.path().join("cache")).unwrap();
        cache.put(&files[0].blake3, &[b'x'; 10]).unwrap();
        crate::runtime().unwrap().block_on(async {
            let mut prefetch = Prefetch::new(&remote, Cache::at(cache.dir()), None, 2);
            prefetch.ask(&files[0]);
            prefetch.ask(&files[1]);
            let (held, lacking, unseen) = (&files[0], &files[1], &files[2]);
            assert_eq!(prefetch.found_held(&held.blake3, held.size), Some(true));
            assert_eq!(
                prefetch.found_held(&lacking.blake3, lacking.size),
                Some(false)
            );
            // Not looked at: neither entry came, nor an object of another size.
            assert_eq!(prefetch.found_held(&unseen.blake3, unseen.size), None);
            assert_eq!(prefetch.found_held(&held.blake3, held.size + 1), None);
        });
    }
}
