//! Proposing a merge: an editor asks for their work branch to be reflected into its
//! region, or withdraws the request; a maintainer finds it on the regions page and on
//! the merge's page, reviews the merge and makes it. The proposal is the store's
//! (`proposals`): a record in the repository, the same one `branch propose` writes.

use std::sync::Arc;

use crate::Console;
use crate::access::Role;
use crate::failed::{Answer, ConsoleError};
use crate::forms::Acting;
use crate::target::Target;
use crate::visitor::Visitor;
use axum::Extension;
use axum::extract::{Form, State};
use axum::response::{IntoResponse, Redirect};
use masterctl_store::proposals;

/// `POST /propose`: propose the work branch for merging (as the signed-in editor), or
/// withdraw its proposal; back to the merge's page.
pub async fn act(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(form): Form<Acting<Target>>,
) -> Answer {
    who.may_post(Role::Editor, form.csrf.as_deref())?;
    let propose = match form.action.as_str() {
        "propose" => true,
        "withdraw" => false,
        _ => {
            return Err(ConsoleError::not_one_of(
                "action",
                &form.action,
                &["propose", "withdraw"],
            ));
        }
    };
    console
        .blocking(move |console| {
            let (repo, _, line) = form.on.open(console)?;
            let Some(work) = line.work() else {
                return Err(ConsoleError::refusing("propose-names-work", &[]));
            };
            let repo = who.writing(repo)?;
            // With a remote, the proposal (or its withdrawal) travels at once.
            let work_line = masterctl_store::Branch::from(work.clone());
            console.write_line(
                &repo,
                &work_line,
                |repo| {
                    match propose {
                        true => proposals::propose(repo, work, form.message()).map(|_| ())?,
                        false => proposals::withdraw(repo, work).map(|_| ())?,
                    }
                    Ok(())
                },
                |_| true,
            )?;
            let by = who.signature();
            let notice = masterctl_app::notify::of::proposal(work, propose, &by, form.message());
            console.tell(&repo, Some(notice));
            Ok(Redirect::to(&format!("/join?kind=merge&{}", form.on.query())).into_response())
        })
        .await
}
