//! What a page computes from what never changes — a commit's review, the translation
//! states of a branch at a commit, a table's grid made from its blobs — kept by that
//! identity (a bounded number, the oldest dropped first), so that many planners opening
//! the same pages do the work once.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// One key's place: empty until its value is made. Whoever makes it holds the place's
/// lock, so that others asking for the same key wait for that value instead of making
/// it again (twenty planners opening one new page at once make it once).
type Place<V> = Arc<Mutex<Option<Arc<V>>>>;

/// Places by key, and the keys oldest first.
type Kept<V> = (HashMap<String, Place<V>>, VecDeque<String>);

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

    /// The value of `key`: kept, or made by `make` — once, while others asking for it
    /// wait (an error is not kept: the next asking makes it again).
    pub fn get_or<E>(&self, key: &str, make: impl FnOnce() -> Result<V, E>) -> Result<Arc<V>, E> {
        let place = self.place(key);
        let mut value = place.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(value) = &*value {
            return Ok(value.clone());
        }
        let made = Arc::new(make()?);
        *value = Some(made.clone());
        Ok(made)
    }

    /// The place of `key`, made (and the oldest dropped beyond the capacity) if new.
    fn place(&self, key: &str) -> Place<V> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let (by_key, order) = &mut *kept;
        if let Some(place) = by_key.get(key) {
            return place.clone();
        }
        let place = Place::default();
        by_key.insert(key.to_string(), place.clone());
        order.push_back(key.to_string());
        while order.len() > self.capacity {
            if let Some(oldest) = order.pop_front() {
                by_key.remove(&oldest);
            }
        }
        place
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

    #[test]
    fn many_asking_at_once_for_a_new_value_make_it_once() {
        let memo: Memo<usize> = Memo::new(4);
        let made = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    let value = memo.get_or("page", || {
                        std::thread::sleep(std::time::Duration::from_millis(50));
                        Ok::<_, ()>(made.fetch_add(1, std::sync::atomic::Ordering::SeqCst))
                    });
                    assert_eq!(*value.unwrap(), 0);
                });
            }
        });
        assert_eq!(made.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
