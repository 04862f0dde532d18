//! Every write the console makes goes through here: the repository opened as the
//! signed-in user (the author of what they commit), and — when the console serves with
//! a remote — the branches about to be written pulled first and the branch committed
//! pushed after, so the git host (and the CI behind it) sees each write at once. A
//! write runs on a thread of its own: quick ones answer at once, long ones (an import,
//! a rebase of large tables) send the browser to a page that shows the work under way
//! and goes on to the result when it is done.

use std::sync::Arc;

use axum::Extension;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Redirect};
use masterctl_app::ErrorKind;
use masterctl_app::sync::{Around, Push, Remote};
use masterctl_store::{Branch, MasterRepo};
use serde::Deserialize;

use crate::Console;
use crate::failed::{Answer, ConsoleError};
use crate::jobs::Polled;
use crate::shown::render;
use crate::visitor::Visitor;

/// The page shown while work runs (it reloads itself).
#[derive(askama::Template)]
#[template(path = "working.html")]
pub struct Working<'a> {
    pub who: &'a Visitor,
    /// The ids of the page's title and of what is being done, in the console's words.
    pub title: &'a str,
    pub doing: &'a str,
    pub done: usize,
    pub total: usize,
}

/// How long a request waits for work before it answers with how far it got (unless
/// the console is told otherwise).
pub const PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);

impl Console {
    /// The remote every write takes its branches from first and sends its commit to
    /// after, when the console serves with one.
    pub(crate) fn around(&self) -> Option<Remote> {
        self.remote.clone().map(|name| Remote {
            name,
            pull: true,
            push: true,
        })
    }

    /// A write's result once the remote around it is dealt with. A pull that could not
    /// be made cleanly (both sides changed a cell, or a join is stopped on the branch)
    /// is a conflict: nothing was written. A push that did not land says that the
    /// commit is kept here.
    pub(crate) fn landed<T>(&self, around: Around<T>, line: &Branch) -> Result<T, ConsoleError> {
        let remote = self
            .remote
            .as_ref()
            .map(|r| r.to_string())
            .unwrap_or_default();
        let synced = match around {
            Around::Done(synced) => synced,
            Around::Stopped(pulled) => {
                let branch = pulled
                    .iter()
                    .find(|p| p.stopped())
                    .map_or_else(|| line.branch().to_string(), |p| p.branch.clone());
                return Err(ConsoleError::saying(
                    ErrorKind::Conflict,
                    "pull-stopped",
                    &[("branch", &branch), ("remote", &remote)],
                ));
            }
        };
        let kept = |why: String| {
            let branch = line.branch().to_string();
            ConsoleError::saying(
                ErrorKind::Environment,
                "not-pushed",
                &[("branch", &branch), ("remote", &remote), ("why", &why)],
            )
        };
        match &synced.pushed {
            Push::No => {}
            Push::Failed(e) => return Err(kept(e.to_string())),
            Push::Sent(sent) => {
                if let Some(stopped) = sent.stopped() {
                    return Err(kept(format!(
                        "taking what {remote} has of {} stopped on conflicts",
                        stopped.branch
                    )));
                }
                if !sent.landed() {
                    return Err(kept(format!(
                        "{remote} kept moving ({} attempts)",
                        sent.attempts
                    )));
                }
            }
        }
        Ok(synced.result)
    }

    /// Record `notice` in the repository's audit log (as `repo`'s writer, the signed-in
    /// user), and tell the project's webhook (`[notify]`) of it when the project names
    /// one, on the console's runtime after the answer. What was done stands, recorded
    /// and told or not.
    pub(crate) fn tell(&self, repo: &MasterRepo, notice: Option<masterctl_app::notify::Notice>) {
        let Some(notice) = notice else {
            return;
        };
        let _ = masterctl_app::notify::record(repo, &notice, "the console");
        let Some(config) = (repo.structure().ok()).and_then(|s| s.project.config.notify) else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                masterctl_app::notify::tell(Some(&config), notice).await;
            });
        }
    }

    /// Write `line` through `write` in `repo` (opened as the author), with the remote
    /// around it when the console serves with one — the branch taken first, the commit
    /// sent after when `committed` says there is one — and the result once it landed.
    pub(crate) fn write_line<T>(
        &self,
        repo: &MasterRepo,
        line: &Branch,
        write: impl FnOnce(&MasterRepo) -> Result<T, ConsoleError>,
        committed: impl FnOnce(&T) -> bool,
    ) -> Result<T, ConsoleError> {
        let around = masterctl_app::sync::around(
            repo,
            self.around().as_ref(),
            std::slice::from_ref(line),
            line,
            write,
            committed,
        )?;
        self.landed(around, line)
    }
}

impl Console {
    /// Do `work` (a write; it says where the browser goes next, or answers with a page)
    /// on a thread of its own: its answer when it is done within a moment, else the
    /// page of the work under way (`/working?job=ID`), which goes on when it is done.
    pub(crate) async fn in_background(
        self: &Arc<Self>,
        who: &Visitor,
        work: impl FnOnce(&Console) -> Result<String, ConsoleError> + Send + 'static,
    ) -> Answer {
        let id = crate::access::random_token()[..24].to_string();
        let key = job_key(who, &id);
        let console = self.clone();
        self.writes.start(&key, move |_| work(&console));
        answer(self.writes.wait(&key, self.patience).await, who, &id)
    }
}

/// A job of `who`'s: another user's id names nothing of theirs.
fn job_key(who: &Visitor, id: &str) -> String {
    format!("{}\n{id}", who.identity.name)
}

/// What the browser gets for a write: where to go, its page, or the work under way.
fn answer(polled: Polled<Result<String, ConsoleError>>, who: &Visitor, id: &str) -> Answer {
    match polled {
        Polled::Done(Ok(location)) => Ok(Redirect::to(&location).into_response()),
        Polled::Done(Err(error)) => Err(error),
        Polled::Running { .. } => Ok(Redirect::to(&format!("/working?job={id}")).into_response()),
        Polled::Gone => Err(ConsoleError::saying(
            ErrorKind::NotFound,
            "no-such-work",
            &[("who", &who.identity.name)],
        )),
    }
}

#[derive(Deserialize)]
pub struct JobQuery {
    job: String,
}

/// `GET /working?job=ID`: the write under way (the page reloads itself), then where it
/// leads.
pub async fn working(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<JobQuery>,
) -> Answer {
    let key = job_key(&who, &query.job);
    match console.writes.wait(&key, console.patience).await {
        Polled::Running { .. } => render(&Working {
            who: &who,
            title: "working",
            doing: "change-being-made",
            done: 0,
            total: 0,
        }),
        polled => answer(polled, &who, &query.job),
    }
}
