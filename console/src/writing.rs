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
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use masterctl_store::remote::{self, PullState, Scope};
use masterctl_store::{Line, MasterRepo};
use serde::Deserialize;

use crate::Console;
use crate::jobs::Polled;
use crate::shown::{error_page, render, store_error};
use crate::visitor::Visitor;

/// The page shown while work runs (it reloads itself).
#[derive(askama::Template)]
#[template(path = "working.html")]
pub struct Working<'a> {
    pub who: &'a Visitor,
    pub title: &'a str,
    pub doing: &'a str,
    pub done: usize,
    pub total: usize,
}

/// How long a request waits for work before it answers with how far it got (unless
/// the console is told otherwise).
pub const PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);

impl Console {
    /// The repository, to be written by `who`: each of `lines` first takes what the
    /// remote has of it. A pull that cannot be made cleanly (both sides changed a cell,
    /// or a join is stopped on the branch) is a conflict page; nothing is written.
    pub(crate) fn writer(&self, who: &Visitor, lines: &[&Line]) -> Result<MasterRepo, Response> {
        let repo = self
            .open()
            .and_then(|repo| repo.write_as(&who.identity.name, &who.identity.email))
            .map_err(store_error)?;
        let Some(remote) = &self.remote else {
            return Ok(repo);
        };
        let structure = repo.structure().map_err(store_error)?;
        for line in lines {
            let scope = Scope::Line((*line).clone());
            for pulled in remote::pull(&repo, &structure, remote, &scope).map_err(store_error)? {
                if let PullState::Stopped { .. } | PullState::InProgress { .. } = pulled.state {
                    return Err(error_page(
                        StatusCode::CONFLICT,
                        &format!(
                            "{} could not take what {remote} has of it: both changed the same cells, or a join is stopped on it. Nothing was written; a maintainer finishes that pull in the repository the console serves, then this can be done again",
                            pulled.branch
                        ),
                    ));
                }
            }
        }
        Ok(repo)
    }

    /// After a commit on `line`: push it when the console serves with a remote
    /// (pulling and pushing again while another clone beat it). A push that does not
    /// land is an error page saying the commit is kept here.
    pub(crate) fn pushed(&self, repo: &MasterRepo, line: &Line) -> Result<(), Response> {
        let Some(remote) = &self.remote else {
            return Ok(());
        };
        let kept = |why: String| {
            error_page(
                StatusCode::BAD_GATEWAY,
                &format!(
                    "committed on {} here, but not pushed to {remote}: {why}. The next write to it pushes it again",
                    line.branch()
                ),
            )
        };
        let structure = repo.structure().map_err(store_error)?;
        let sent = remote::send(repo, &structure, remote, line, remote::send::ATTEMPTS)
            .map_err(|e| kept(e.to_string()))?;
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
        Ok(())
    }
}

impl Console {
    /// Do `work` (a write; it says where the browser goes next, or answers with a page)
    /// on a thread of its own: its answer when it is done within a moment, else the
    /// page of the work under way (`/working?job=ID`), which goes on when it is done.
    pub(crate) async fn in_background(
        self: &Arc<Self>,
        who: &Visitor,
        work: impl FnOnce(&Console) -> Result<String, Response> + Send + 'static,
    ) -> Response {
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
fn answer(polled: Polled<Result<String, Response>>, who: &Visitor, id: &str) -> Response {
    match polled {
        Polled::Done(Ok(location)) => Redirect::to(&location).into_response(),
        Polled::Done(Err(response)) => response,
        Polled::Running { .. } => Redirect::to(&format!("/working?job={id}")).into_response(),
        Polled::Gone => error_page(
            StatusCode::NOT_FOUND,
            &format!(
                "no work of {}'s runs under this id (it may be done: see the branch's history)",
                who.identity.name
            ),
        ),
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
) -> Response {
    let key = job_key(&who, &query.job);
    match console.writes.wait(&key, console.patience).await {
        Polled::Running { .. } => render(&Working {
            who: &who,
            title: "Working",
            doing: "The change is being made",
            done: 0,
            total: 0,
        }),
        polled => answer(polled, &who, &query.job),
    }
}
