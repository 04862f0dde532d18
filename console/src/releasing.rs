//! Releases, when the project names its store (`[publish] store` in masterctl.toml): a
//! region's releases on the store, newest first, the current one marked; a maintainer
//! makes an earlier one current again (rollback — only when every object it names is
//! on the store). The delivery crate's own `releases` and `rollback`, as the command
//! line calls them.

use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::{Form, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use masterctl_delivery::{DeliveryError, ReleaseInfo, Remote, RemoteOptions};
use masterctl_store::Region;
use serde::Deserialize;

use crate::Console;
use crate::access::Role;
use crate::forms::Acting;
use crate::shown::{error_page, render, store_error};
use crate::visitor::Visitor;

#[derive(Deserialize)]
pub struct RegionQuery {
    region: String,
}

/// The region a request names, checked against the project, and the project's store
/// (`None` when it names none).
fn store_of(console: &Console, region: &str) -> Result<(Region, Option<Remote>), Response> {
    let repo = console.open().map_err(store_error)?;
    let structure = repo.structure().map_err(store_error)?;
    let region = Region::of(&structure.project, region).map_err(store_error)?;
    let Some(publish) = &structure.project.config.publish else {
        return Ok((region, None));
    };
    let options = RemoteOptions {
        endpoint: publish.endpoint.clone(),
        ..RemoteOptions::default()
    };
    let remote = Remote::open(&publish.store, &options).map_err(delivery_error)?;
    Ok((region, Some(remote)))
}

/// A delivery failure as a page: a release named wrongly 404, one that cannot be made
/// current (objects missing, another publisher or gc at work) 409, a store that did not
/// answer 502.
fn delivery_error(error: DeliveryError) -> Response {
    let status = match &error {
        DeliveryError::Missing { .. } | DeliveryError::Ambiguous { .. } => StatusCode::NOT_FOUND,
        DeliveryError::Raced { .. }
        | DeliveryError::Busy { .. }
        | DeliveryError::Corrupt { .. }
        | DeliveryError::Foreign { .. } => StatusCode::CONFLICT,
        DeliveryError::Url { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_GATEWAY,
    };
    error_page(status, &error.to_string())
}

#[derive(Template)]
#[template(path = "releases.html")]
struct ReleasesPage<'a> {
    who: &'a Visitor,
    region: &'a str,
    /// The store as shown (credentials never are).
    store: Option<String>,
    releases: &'a [ReleaseInfo],
    may: bool,
}

/// `GET /releases?region=R`: the region's releases on the project's store.
pub async fn page(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<RegionQuery>,
) -> Response {
    let (region, remote) = match store_of(&console, &query.region) {
        Ok(found) => found,
        Err(response) => return response,
    };
    let store = remote.as_ref().map(|r| r.shown().to_string());
    let releases = match remote {
        // The project's folder store before its first publish: nothing published yet
        // (its folder is made by that publish).
        Some(remote) if remote.folder_there().is_err() => Vec::new(),
        Some(remote) => {
            let name = region.name().to_string();
            let listed = delivered(move |runtime| {
                runtime.block_on(masterctl_delivery::releases(&remote, Some(&name)))
            });
            match listed.await {
                Ok(Ok(releases)) => releases,
                Ok(Err(e)) => return delivery_error(e),
                Err(response) => return response,
            }
        }
        None => Vec::new(),
    };
    render(&ReleasesPage {
        who: &who,
        region: region.name(),
        store,
        releases: &releases,
        may: who.identity.role >= Role::Maintainer,
    })
}

#[derive(Deserialize)]
pub struct Rollback {
    region: String,
    release: String,
}

/// `POST /releases` (`action=rollback`, `region`, `release`): make the release the
/// region's current one again — a maintainer's.
pub async fn act(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(form): Form<Acting<Rollback>>,
) -> Response {
    if let Err(refused) = who.may_post(Role::Maintainer, form.csrf.as_deref()) {
        return refused;
    }
    if form.action != "rollback" {
        return error_page(StatusCode::BAD_REQUEST, "the action is rollback");
    }
    let (region, remote) = match store_of(&console, &form.on.region) {
        Ok(found) => found,
        Err(response) => return response,
    };
    let Some(remote) = remote else {
        return error_page(
            StatusCode::NOT_FOUND,
            "this project names no store ([publish] store in masterctl.toml)",
        );
    };
    let (name, release) = (region.name().to_string(), form.on.release.clone());
    let rolled = delivered(move |runtime| {
        runtime.block_on(masterctl_delivery::rollback(&remote, &name, &release))
    });
    match rolled.await {
        Err(response) => response,
        Ok(Ok(_)) => Redirect::to(&format!(
            "/releases?region={}",
            crate::target::urlencode(region.name())
        ))
        .into_response(),
        Ok(Err(e)) => delivery_error(e),
    }
}

/// Delivery's work, on a blocking thread of the console's runtime: its futures borrow
/// across awaits in ways a request's future cannot carry between threads.
async fn delivered<T: Send + 'static>(
    work: impl FnOnce(tokio::runtime::Handle) -> T + Send + 'static,
) -> Result<T, Response> {
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || work(runtime))
        .await
        .map_err(|e| error_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()))
}
