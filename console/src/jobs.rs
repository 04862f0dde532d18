//! Long work a page waits for. The work runs on a blocking thread; the request that
//! started it waits a moment (most work ends within it, and the page comes at once),
//! else answers with how far it got — a page that reloads itself until the work is done
//! (no script needed), then shows the result. Each job is found by a key (whose work,
//! on what); asking again while it runs never starts it twice. A result nobody came back
//! for is kept ten minutes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// A job's result once it is done: when it finished, and the value (taken once).
type Finished<T> = Option<(Instant, Arc<Mutex<Option<T>>>)>;

struct Job<T> {
    progress: Arc<Progress>,
    result: tokio::sync::watch::Receiver<Finished<T>>,
}

/// How long a result nobody came back for is kept.
const KEPT_FOR: Duration = Duration::from_secs(600);

/// What asking for a job's result came to.
pub enum Polled<T> {
    /// Done: the result (handed to this request only; the job is forgotten).
    Done(T),
    /// Still working: `done` of `total`.
    Running { done: usize, total: usize },
    /// No such job: never started, or done and its result handed to another request
    /// (a reload raced it), or kept past [`KEPT_FOR`].
    Gone,
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
        self.start(key, work);
        self.wait(key, patience).await
    }

    /// Start `work` as the job `key`, unless that job runs (or waits to be collected).
    pub fn start(&self, key: &str, work: impl FnOnce(&Progress) -> T + Send + 'static) {
        let mut running = self.lock();
        if running.contains_key(key) {
            return;
        }
        // Results nobody came back for go after a while.
        running.retain(|_, job| {
            job.result
                .borrow()
                .as_ref()
                .is_none_or(|(finished, _)| finished.elapsed() < KEPT_FOR)
        });
        let progress = Arc::new(Progress::default());
        let (sender, receiver) = tokio::sync::watch::channel(None);
        let shared = progress.clone();
        tokio::task::spawn_blocking(move || {
            let value = work(&shared);
            let _ = sender.send(Some((Instant::now(), Arc::new(Mutex::new(Some(value))))));
        });
        running.insert(
            key.to_string(),
            Job {
                progress,
                result: receiver,
            },
        );
    }

    /// The result of the job `key`, waited for up to `patience`; or how far it got.
    pub async fn wait(&self, key: &str, patience: Duration) -> Polled<T> {
        let Some(mut result) = self.lock().get(key).map(|job| job.result.clone()) else {
            return Polled::Gone;
        };
        let finished = tokio::time::timeout(patience, result.wait_for(Option::is_some)).await;
        match finished {
            Ok(Ok(value)) => {
                let slot = value.as_ref().map(|(_, slot)| slot.clone());
                drop(value);
                self.forget(key);
                match slot.and_then(|slot| slot.lock().ok()?.take()) {
                    Some(value) => Polled::Done(value),
                    None => Polled::Gone,
                }
            }
            // The worker died (a panic in the work): forget it.
            Ok(Err(_)) => {
                self.forget(key);
                Polled::Gone
            }
            Err(_) => {
                let (done, total) = self
                    .lock()
                    .get(key)
                    .map(|job| job.progress.get())
                    .unwrap_or_default();
                Polled::Running { done, total }
            }
        }
    }

    fn forget(&self, key: &str) {
        self.lock().remove(key);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Job<T>>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
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
