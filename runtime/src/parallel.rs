//! Work spread over every core, results in input order: the loader's hashing and
//! checks, and the workspace's readers and checks, share this one — rayon's global
//! pool, so nested calls and calls from several threads share the cores instead of
//! each spawning its own threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// How many threads [`parallel_map`] runs work on: one per core (or `RAYON_NUM_THREADS`).
pub fn workers() -> usize {
    rayon::current_num_threads()
}

/// Run `f` over `items` on every core, keeping the input order of results; every
/// result is kept (a panic in `f` reaches the caller). Items are taken in order, one at
/// a time, by this thread and as many of the pool's workers as there are other items
/// (put the longest first: tables of very different sizes then spread evenly).
pub fn parallel_map<'a, T: Sync, R: Send>(
    items: &'a [T],
    f: impl Fn(&'a T) -> R + Sync + Send,
) -> Vec<R> {
    if items.len() <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    // One slot per item, each filled once by the worker that took it: nothing is lost.
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let result = f(item);
            *slots[i].lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
        }
    };
    // The pool's workers and this thread take items: a caller outside the pool (the
    // command's own thread) works too instead of waiting, as a worker calling in does.
    let helpers = rayon::current_num_threads().min(items.len() - 1);
    rayon::in_place_scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(|_| work());
        }
        work();
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .expect("every item was taken by a worker")
        })
        .collect()
}

/// Free `value` on one of the pool's workers while the caller goes on: freeing a table
/// of a million values takes tens of milliseconds that the caller's next step
/// (hashing, compressing, writing) need not wait for.
pub fn drop_aside<T: Send + 'static>(value: T) {
    rayon::spawn(move || drop(value));
}

#[cfg(test)]
mod tests {
    use super::{drop_aside, parallel_map};

    #[test]
    fn a_value_set_aside_is_freed() {
        struct Told(std::sync::mpsc::Sender<()>);
        impl Drop for Told {
            fn drop(&mut self) {
                let _ = self.0.send(());
            }
        }
        let (tell, told) = std::sync::mpsc::channel();
        drop_aside(Told(tell));
        told.recv().unwrap();
    }

    #[test]
    fn every_result_comes_back_in_input_order() {
        let items: Vec<u64> = (0..10_000).collect();
        let squares = parallel_map(&items, |n| {
            // Uneven work, so that items finish out of order.
            if n % 97 == 0 {
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
            n * n
        });
        assert_eq!(squares.len(), items.len());
        assert!(squares.iter().zip(&items).all(|(s, n)| *s == n * n));
        // Nested calls share the pool and still keep order.
        let nested = parallel_map(&[3usize, 1, 2], |&n| {
            parallel_map(&(0..n).collect::<Vec<_>>(), |i| i + 1)
        });
        assert_eq!(nested, [vec![1, 2, 3], vec![1], vec![1, 2]]);
        assert!(parallel_map(&[] as &[u8], |b| *b).is_empty());
    }
}
