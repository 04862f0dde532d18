//! What a page computes from what never changes — a commit's review, the translation
//! states of a branch at a commit, a table's grid made from its blobs — kept by that
//! identity (a bounded number, the oldest dropped first), so that many planners opening
//! the same pages do the work once.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Values by key, and the keys oldest first.
type Kept<V> = (HashMap<String, Arc<V>>, VecDeque<String>);

/// Values by key, at most `capacity` of them.
pub struct Memo<V> {
    capacity: usize,
    kept: Mutex<Kept<V>>,
}

impl<V> Memo<V> {
    pub fn new(capacity: usize) -> Memo<V> {
        Memo {
            capacity,
            kept: Mutex::new((HashMap::new(), VecDeque::new())),
        }
    }

    /// The value of `key`: kept, or made by `make` (an error is not kept).
    pub fn get_or<E>(&self, key: &str, make: impl FnOnce() -> Result<V, E>) -> Result<Arc<V>, E> {
        if let Some(value) = self.lock().0.get(key) {
            return Ok(value.clone());
        }
        // Made outside the lock: two requests may both make it; either is right.
        let value = Arc::new(make()?);
        let mut kept = self.lock();
        let (by_key, order) = &mut *kept;
        if by_key.insert(key.to_string(), value.clone()).is_none() {
            order.push_back(key.to_string());
        }
        while order.len() > self.capacity {
            if let Some(oldest) = order.pop_front() {
                by_key.remove(&oldest);
            }
        }
        Ok(value)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept<V>> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_made_once_and_the_oldest_go_first() {
        let memo: Memo<String> = Memo::new(2);
        let made = std::cell::Cell::new(0);
        let make = |v: &str| {
            made.set(made.get() + 1);
            Ok::<_, ()>(v.to_string())
        };
        assert_eq!(*memo.get_or("a", || make("A")).unwrap(), "A");
        assert_eq!(*memo.get_or("a", || make("other")).unwrap(), "A");
        assert_eq!(made.get(), 1);
        memo.get_or("b", || make("B")).unwrap();
        memo.get_or("c", || make("C")).unwrap();
        assert_eq!(*memo.get_or("a", || make("A again")).unwrap(), "A again");
        assert!(memo.get_or("d", || Err::<String, ()>(())).is_err());
        assert_eq!(*memo.get_or("d", || make("D")).unwrap(), "D");
    }
}
