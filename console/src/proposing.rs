//! Proposing a merge: an editor asks for their work branch to be reflected into its
//! region, or withdraws the request; a maintainer finds it on the regions page and on
//! the merge's page, reviews the merge and makes it. The proposal is the store's
//! (`proposals`): a record in the repository, the same one `branch propose` writes.

use std::sync::Arc;

use crate::Console;
use crate::access::Role;
use crate::forms::Acting;
use crate::shown::{error_page, store_error};
use crate::target::Target;
use crate::visitor::Visitor;
use axum::Extension;
use axum::extract::{Form, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use masterctl_store::proposals;

/// `POST /propose`: propose the work branch for merging (as the signed-in editor), or
/// withdraw its proposal; back to the merge's page.
pub async fn act(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(form): Form<Acting<Target>>,
) -> Response {
    if let Err(refused) = who.may_post(Role::Editor, form.csrf.as_deref()) {
        return refused;
    }
    let (repo, _, line) = match form.on.open(&console) {
        Ok(found) => found,
        Err(response) => return response,
    };
    let Some(work) = line.work() else {
        return error_page(
            StatusCode::BAD_REQUEST,
            "a merge is proposed for a work branch: name one",
        );
    };
    let repo = match repo.write_as(&who.identity.name, &who.identity.email) {
        Ok(repo) => repo,
        Err(e) => return store_error(e),
    };
    let done = match form.action.as_str() {
        "propose" => proposals::propose(&repo, work, form.message()).map(|_| ()),
        "withdraw" => proposals::withdraw(&repo, work).map(|_| ()),
        _ => return error_page(StatusCode::BAD_REQUEST, "the action is propose or withdraw"),
    };
    match done {
        Ok(()) => Redirect::to(&format!("/join?kind=merge&{}", form.on.query())).into_response(),
        Err(e) => store_error(e),
    }
}
