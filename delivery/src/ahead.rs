//! Work started ahead of its need on a task of its own (a record read while a lease is
//! taken, an object asked for while its manifest arrives), cancelled when it is no
//! longer wanted.

use std::future::Future;

/// A spawned task whose output is awaited at most once; dropped, it is cancelled.
pub(crate) struct Ahead<T>(tokio::task::JoinHandle<T>);

impl<T: Send + 'static> Ahead<T> {
    pub(crate) fn spawn(work: impl Future<Output = T> + Send + 'static) -> Ahead<T> {
        Ahead(tokio::spawn(work))
    }
}

impl<T> Ahead<T> {
    /// Its output, waited for; `None` when the task panicked or was cancelled.
    pub(crate) async fn output(&mut self) -> Option<T> {
        (&mut self.0).await.ok()
    }

    #[cfg(test)]
    pub(crate) fn is_finished(&self) -> bool {
        self.0.is_finished()
    }
}

impl<T> Drop for Ahead<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
