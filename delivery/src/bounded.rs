//! Work over many objects at once, within a count and a number of bytes in memory: many
//! small objects move together, large ones take turns. A stream of the results in the
//! order the work finishes, whose future is `Send` whenever the work's is — each piece
//! of work is boxed as it starts, so the stream's type names no closure's future (a
//! stream mapped by a closure over borrowed items is one the compiler cannot prove
//! `Send`, and servers and the console await these on any thread).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use futures::stream::{FuturesUnordered, Stream, StreamExt};

/// The most object bytes held in memory at once, whatever the concurrency.
pub(crate) const IN_FLIGHT_BYTES: u64 = 256 << 20;

/// The budget's unit: a megabyte of an object's size.
const UNIT: u64 = 1 << 20;

/// `work` over `items`, up to `concurrency` at once and up to [`IN_FLIGHT_BYTES`] of
/// their `size` (an item larger than that runs alone), in the order they finish.
pub(crate) fn bounded<'a, I, S, W, F, R>(
    items: I,
    concurrency: usize,
    size: S,
    work: W,
) -> Bounded<'a, I::IntoIter, S, W, R>
where
    I: IntoIterator,
    S: Fn(&I::Item) -> u64,
    W: Fn(I::Item) -> F,
    F: Future<Output = R> + Send + 'a,
{
    let total = (IN_FLIGHT_BYTES / UNIT) as u32;
    Bounded {
        items: items.into_iter(),
        size,
        work,
        budget: Arc::new(tokio::sync::Semaphore::new(total as usize)),
        total,
        concurrency: concurrency.max(1),
        running: FuturesUnordered::new(),
    }
}

/// The stream [`bounded`] returns.
pub(crate) struct Bounded<'a, I, S, W, R> {
    items: I,
    size: S,
    work: W,
    budget: Arc<tokio::sync::Semaphore>,
    /// The budget in units.
    total: u32,
    concurrency: usize,
    running: FuturesUnordered<BoxFuture<'a, R>>,
}

impl<'a, I, S, W, F, R> Stream for Bounded<'a, I, S, W, R>
where
    I: Iterator + Unpin,
    S: Fn(&I::Item) -> u64 + Unpin,
    W: Fn(I::Item) -> F + Unpin,
    F: Future<Output = R> + Send + 'a,
{
    type Item = R;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<R>> {
        let this = self.get_mut();
        // As many started as may run.
        while this.running.len() < this.concurrency {
            let Some(item) = this.items.next() else {
                break;
            };
            let permits = u32::try_from((this.size)(&item).div_ceil(UNIT))
                .map_or(this.total, |n| n.clamp(1, this.total));
            let (budget, job) = (this.budget.clone(), (this.work)(item));
            this.running.push(Box::pin(async move {
                // The semaphore is never closed: acquiring only waits.
                let _held = budget.acquire_many_owned(permits).await;
                job.await
            }));
        }
        // Done when nothing runs and nothing is left to start.
        this.running.poll_next_unpin(cx)
    }
}
