//! Long work a page waits for. The work runs on a blocking thread; the request that
//! started it waits a moment (most work ends within it, and the page comes at once),
//! else answers with how far it got — a page that reloads itself until the work is done
//! (no script needed), then shows the result. Each job is found by a key (whose work,
//! on what); asking again while it runs never starts it twice.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How far a job got: `done` of `total` steps (files read, for an import).
#[derive(Default)]
pub struct Progress {
    done: AtomicUsize,
    total: AtomicUsize,
}

impl Progress {
    pub fn set(&self, done: usize, total: usize) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(done, Ordering::Relaxed);
    }

    fn get(&self) -> (usize, usize) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }
}

struct Job<T> {
    progress: Arc<Progress>,
    result: tokio::sync::watch::Receiver<Option<Arc<Mutex<Option<T>>>>>,
}

/// What asking for a job's result came to.
pub enum Polled<T> {
    /// Done: the result (handed to this request only; the job is forgotten).
    Done(T),
    /// Still working: `done` of `total`.
    Running { done: usize, total: usize },
    /// Done, but the result went to another request for the same key (a reload raced
    /// it): asking again starts it anew.
    Taken,
}

/// The jobs of one kind.
pub struct Jobs<T> {
    running: Mutex<HashMap<String, Job<T>>>,
}

impl<T> Default for Jobs<T> {
    fn default() -> Jobs<T> {
        Jobs {
            running: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: Send + 'static> Jobs<T> {
    /// The result of the job `key`: started with `work` when none runs, waited for up to
    /// `patience`.
    pub async fn run(
        &self,
        key: &str,
        patience: Duration,
        work: impl FnOnce(&Progress) -> T + Send + 'static,
    ) -> Polled<T> {
        let mut result = {
            let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
            match running.get(key) {
                Some(job) => job.result.clone(),
                None => {
                    // Results nobody came back for are dropped (one asked for again is
                    // worked out again).
                    running.retain(|_, job| job.result.borrow().is_none());
                    let progress = Arc::new(Progress::default());
                    let (sender, receiver) = tokio::sync::watch::channel(None);
                    let shared = progress.clone();
                    tokio::task::spawn_blocking(move || {
                        let value = work(&shared);
                        let _ = sender.send(Some(Arc::new(Mutex::new(Some(value)))));
                    });
                    running.insert(
                        key.to_string(),
                        Job {
                            progress,
                            result: receiver.clone(),
                        },
                    );
                    receiver
                }
            }
        };
        let finished = tokio::time::timeout(patience, result.wait_for(Option::is_some)).await;
        match finished {
            Ok(Ok(value)) => {
                let slot = value.as_ref().cloned();
                drop(value);
                self.forget(key);
                match slot.and_then(|slot| slot.lock().ok()?.take()) {
                    Some(value) => Polled::Done(value),
                    None => Polled::Taken,
                }
            }
            // The worker died (a panic in the work): forget it; asking again retries.
            Ok(Err(_)) => {
                self.forget(key);
                Polled::Taken
            }
            Err(_) => {
                let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
                let (done, total) = running
                    .get(key)
                    .map(|job| job.progress.get())
                    .unwrap_or_default();
                Polled::Running { done, total }
            }
        }
    }

    fn forget(&self, key: &str) {
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    #[tokio::test(flavor = "multi_thread")]
    async fn a_job_runs_once_shows_its_progress_and_hands_its_result_to_one_asker() {
        let jobs: Jobs<&'static str> = Jobs::default();
        let started = Arc::new(AtomicUsize::new(0));
        let release = Arc::new(AtomicBool::new(false));
        let work = |started: Arc<AtomicUsize>, release: Arc<AtomicBool>| {
            move |progress: &Progress| {
                started.fetch_add(1, Ordering::SeqCst);
                progress.set(3, 500);
                while !release.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(2));
                }
                "reviewed"
            }
        };
        let short = Duration::from_millis(50);
        for _ in 0..3 {
            let polled = jobs
                .run("eddie/u1", short, work(started.clone(), release.clone()))
                .await;
            assert!(
                matches!(
                    polled,
                    Polled::Running {
                        done: 3,
                        total: 500
                    }
                ),
                "still running, with how far it got"
            );
        }
        assert_eq!(started.load(Ordering::SeqCst), 1, "never started twice");
        release.store(true, Ordering::SeqCst);
        // Done, and forgotten once handed over: asking again works it out again.
        for _ in 0..2 {
            let polled = jobs
                .run(
                    "eddie/u1",
                    Duration::from_secs(10),
                    work(started.clone(), release.clone()),
                )
                .await;
            assert!(matches!(polled, Polled::Done("reviewed")));
        }
        assert_eq!(started.load(Ordering::SeqCst), 2);
    }
}
