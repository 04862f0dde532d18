//! A build folder kept at a region's current release (`masterctl watch`): each round
//! asks the pointer (a conditional read: nothing moves when it did not change), fetches
//! what it names when it changed, and says in a [`Status`] what happened — kept beside
//! the build and shared with whoever serves it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::fetch::{FetchOptions, fetch};
use crate::remote::Remote;
use crate::status::{Status, status_path, write_status};
use crate::{DeliveryError, layout};

/// A watcher's status, shared between its rounds and what serves it.
#[derive(Debug)]
pub struct Watched {
    state: Mutex<Status>,
}

impl Watched {
    /// A watcher whose status is `status` so far.
    pub fn new(status: Status) -> Arc<Watched> {
        Arc::new(Watched {
            state: Mutex::new(status),
        })
    }

    /// Its status now, and the seconds since its build was taken.
    pub fn now(&self) -> (Status, Option<f64>) {
        let status = self
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let age = (status.taken.as_deref())
            .and_then(layout::millis_since)
            .map(|millis| millis.max(0) as f64 / 1000.0);
        (status, age)
    }

    fn change(&self, change: impl FnOnce(&mut Status)) -> Status {
        let mut status = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        change(&mut status);
        status.clone()
    }
}

/// How a build folder is kept.
pub struct Keeper {
    remote: Remote,
    out: PathBuf,
    options: FetchOptions,
    status_file: PathBuf,
    /// The pointer's ETag when it was last taken or refused for good (`None`: read it
    /// whole next round).
    seen: Option<String>,
    /// Report each round's status to the store as this host (`crate::fleet`).
    pub report_as: Option<String>,
}

impl Keeper {
    /// Keep `out` at the release of `options.region` on `remote`; its status is kept
    /// beside it (`.NAME.status.json`).
    pub fn new(remote: Remote, out: &Path, options: FetchOptions) -> Keeper {
        Keeper {
            remote,
            out: out.to_path_buf(),
            options,
            status_file: status_path(out),
            seen: None,
            report_as: None,
        }
    }

    /// Where its status is kept.
    pub fn status_file(&self) -> &Path {
        &self.status_file
    }

    /// The status an earlier watcher of the folder kept (what the folder holds, its
    /// refusals counted on), or a new one: a watcher restarted says what it runs at once.
    pub fn resumed(&self) -> Status {
        let kept = std::fs::read(&self.status_file).ok();
        let kept: Option<Status> = kept.and_then(|bytes| serde_json::from_slice(&bytes).ok());
        kept.filter(|status| status.region == self.options.region)
            .unwrap_or_else(|| Status::new(&self.options.region))
    }

    /// One round: the pointer asked, the release it names fetched when it changed, and
    /// `watched` (and the status file) told. A refusal is part of the status, not an
    /// error; the error is the status not written.
    pub async fn round(&mut self, watched: &Watched) -> Result<Status, DeliveryError> {
        let now = layout::now();
        let status = match self.changed().await {
            Ok(None) => watched.change(|status| status.unchanged(&now)),
            Ok(Some(etag)) => match fetch(&self.remote, &self.out, &self.options, &|_, _| {}).await
            {
                Ok(fetched) => {
                    let record = crate::manage::read_release(
                        &self.remote,
                        &self.options.region,
                        &fetched.release,
                    )
                    .await
                    .ok()
                    .flatten();
                    let audience = masterctl_runtime::read_manifest(&self.out)
                        .ok()
                        .and_then(|(m, _)| m.audience);
                    self.seen = etag;
                    watched.change(|status| status.took(&fetched, record.as_ref(), audience, &now))
                }
                Err(error) => {
                    // A release refused for what it is is not fetched again until the
                    // pointer moves; one the store could not give, next round.
                    if is_decided(&error) {
                        self.seen = etag;
                    }
                    watched.change(|status| status.refused(&error, &now))
                }
            },
            Err(error) => watched.change(|status| status.refused(&error, &now)),
        };
        let status = match &self.report_as {
            // A report that fails is said in the status; the watcher goes on.
            Some(host) => {
                let reported = crate::fleet::report(&self.remote, host, &status).await;
                let failed = reported.err().map(|e| e.to_string());
                watched.change(|status| status.report_failed = failed)
            }
            None => status,
        };
        write_status(&self.status_file, &status)?;
        Ok(status)
    }

    /// Rounds every `every` until `each`, told each round's status, says to stop: the
    /// last status.
    pub async fn keep(
        &mut self,
        watched: &Watched,
        every: std::time::Duration,
        mut each: impl FnMut(&Status) -> bool,
    ) -> Result<Status, DeliveryError> {
        loop {
            let status = self.round(watched).await?;
            if !each(&status) {
                return Ok(status);
            }
            tokio::time::sleep(every).await;
        }
    }

    /// The pointer's ETag when it changed since the last round (`Some(None)`: the store
    /// gives none), `None` when it did not.
    async fn changed(&self) -> Result<Option<Option<String>>, DeliveryError> {
        let key = layout::pointer_key(&self.options.region);
        let read = self
            .remote
            .get_if_changed(&key, self.seen.as_deref(), layout::POINTER_LIMIT)
            .await?;
        match read {
            None => Err(DeliveryError::NoRelease {
                store: self.remote.shown().to_string(),
                what: format!(
                    "release of region {} ({key} is not there)",
                    self.options.region
                ),
            }),
            Some(None) => Ok(None),
            Some(Some(read)) => Ok(Some(read.version.e_tag)),
        }
    }
}

/// Whether a fetch failed for what the release is (so the same pointer is refused
/// again), not for the store's or the machine's state.
fn is_decided(error: &DeliveryError) -> bool {
    matches!(
        crate::status::reason_of(error),
        "unsigned" | "untrusted" | "replayed" | "damaged"
    )
}
