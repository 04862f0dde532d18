//! Values worked out from content, remembered in this process by what they were worked
//! out from. A page of the console (and a command's second look at the same commit)
//! asks for the project of the same structure files again and again: parsing 500
//! schemas takes tens of milliseconds, recognising their bytes or blob ids well under
//! one. A key names the content itself (a hash of the bytes, or git's blob ids), so a
//! change of any byte is another key, never a stale value; a few recent ones are kept.

use std::sync::{Mutex, PoisonError};

/// How many values each memory keeps: a console serves a structure or two at a time
/// (the working tree's and the branches' commits).
const KEPT: usize = 8;

/// The most recently used values, by key.
pub(crate) struct Recent<K, V> {
    entries: Mutex<Vec<(K, V)>>,
}

impl<K: PartialEq, V: Clone> Recent<K, V> {
    pub(crate) const fn new() -> Self {
        Recent {
            entries: Mutex::new(Vec::new()),
        }
    }

    /// The value kept for `key`, now the most recent.
    pub(crate) fn get(&self, key: &K) -> Option<V> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let at = entries.iter().position(|(k, _)| k == key)?;
        let entry = entries.remove(at);
        let value = entry.1.clone();
        entries.push(entry);
        Some(value)
    }

    /// Keep `value` for `key`, letting the least recent go past [`KEPT`].
    pub(crate) fn keep(&self, key: K, value: V) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.retain(|(k, _)| *k != key);
        if entries.len() >= KEPT {
            entries.remove(0);
        }
        entries.push((key, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_value_goes_first() {
        let recent: Recent<u32, String> = Recent::new();
        for key in 0..KEPT as u32 {
            recent.keep(key, key.to_string());
        }
        // 0 used again: 1 is now the least recent, and goes when a new one comes.
        assert_eq!(recent.get(&0).as_deref(), Some("0"));
        recent.keep(100, "100".into());
        assert_eq!(recent.get(&1), None);
        assert_eq!(recent.get(&0).as_deref(), Some("0"));
        assert_eq!(recent.get(&100).as_deref(), Some("100"));
        // A key kept again holds its new value.
        recent.keep(100, "again".into());
        assert_eq!(recent.get(&100).as_deref(), Some("again"));
    }
}
