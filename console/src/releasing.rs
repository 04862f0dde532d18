//! Releases, when the project names its store (`[publish] store` in masterctl.toml): a
//! region's releases on the store, newest first, the current one marked; a maintainer
//! makes an earlier one current again (rollback — only when every object it names is
//! on the store). The delivery crate's own `releases` and `rollback`, as the command
//! line calls them.

use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::{Form, Query, State};
use axum::response::{IntoResponse, Redirect};
use masterctl_delivery::{ReleaseInfo, Remote};
use masterctl_store::Region;
use serde::Deserialize;

use crate::Console;
use crate::access::Role;
use crate::failed::{Answer, ConsoleError};
use crate::forms::Acting;
use crate::shown::render;
use crate::visitor::Visitor;

#[derive(Deserialize)]
pub struct RegionQuery {
    region: String,
}

/// The region a request names, checked against the project, and the project's store
/// (`None` when it names none).
fn store_of(console: &Console, region: &str) -> Result<(Region, Option<Remote>), ConsoleError> {
    let repo = console.open()?;
    let structure = repo.structure()?;
    let region = Region::of(&structure.project, region)?;
    let remote = masterctl_app::project::project_store(&structure, None)?;
    Ok((region, remote))
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
) -> Answer {
    let (region, remote) = console
        .blocking(move |console| store_of(console, &query.region))
        .await?;
    let store = remote.as_ref().map(|r| r.shown().to_string());
    let releases = match remote {
        // The project's folder store before its first publish: nothing published yet
        // (its folder is made by that publish).
        Some(remote) if remote.folder_there().is_err() => Vec::new(),
        Some(remote) => masterctl_delivery::releases(&remote, Some(region.name())).await?,
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
) -> Answer {
    who.may_post(Role::Maintainer, form.csrf.as_deref())?;
    if form.action != "rollback" {
        return Err(ConsoleError::bad_request("the action is rollback"));
    }
    let named = form.on.region.clone();
    let (region, remote) = console
        .blocking(move |console| store_of(console, &named))
        .await?;
    let Some(remote) = remote else {
        return Err(ConsoleError::not_found(
            "this project names no store ([publish] store in masterctl.toml)",
        ));
    };
    masterctl_delivery::rollback(&remote, region.name(), &form.on.release).await?;
    Ok(Redirect::to(&format!(
        "/releases?region={}",
        crate::target::urlencode(region.name())
    ))
    .into_response())
}
