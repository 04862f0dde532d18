//! Every write the console makes goes through here: the repository opened as the
//! signed-in user (the author of what they commit), and — when the console serves with
//! a remote — the branches about to be written pulled first and the branch committed
//! pushed after, so the git host (and the CI behind it) sees each write at once.

use axum::http::StatusCode;
use axum::response::Response;
use masterctl_store::remote::{self, PullState, Scope};
use masterctl_store::{Line, MasterRepo};

use crate::Console;
use crate::shown::{error_page, store_error};
use crate::visitor::Visitor;

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
