//! Releases, when the project names its store (`[publish] store` in masterctl.toml): a
//! region's releases on the store, newest first, the current one marked; a maintainer
//! makes an earlier one current again (rollback — confirmed on a page of its own, with
//! a reason the pointer records beside who moved it; only when every object it names is
//! on the store). The delivery crate's own `releases` and `rollback`, as the command
//! line calls them.

use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::{Form, Query, State};
use axum::response::{IntoResponse, Redirect};
use masterctl_delivery::{Moving, ReleaseInfo, Remote};
use masterctl_store::Region;
use masterctl_store::names::one_line;
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
    /// The write that led here (`rolled-back`), said at the top.
    #[serde(default)]
    done: Option<String>,
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

/// The region's releases on its store, newest first (none before the first publish).
async fn listed(remote: &Remote, region: &Region) -> Result<Vec<ReleaseInfo>, ConsoleError> {
    // The project's folder store before its first publish: nothing published yet (its
    // folder is made by that publish).
    if remote.folder_there().is_err() {
        return Ok(Vec::new());
    }
    Ok(masterctl_delivery::releases(remote, Some(region.name())).await?)
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
    /// The release made current by the rollback that led here.
    rolled_back: Option<&'a ReleaseInfo>,
}

/// `GET /releases?region=R`: the region's releases on the project's store — each with
/// its versions, its publisher's words, who published it and when; the current one
/// with who made it current and why.
pub async fn page(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<RegionQuery>,
) -> Answer {
    let named = query.region.clone();
    let (region, remote) = console
        .blocking(move |console| store_of(console, &named))
        .await?;
    let store = remote.as_ref().map(|r| r.shown().to_string());
    let releases = match &remote {
        Some(remote) => listed(remote, &region).await?,
        None => Vec::new(),
    };
    let rolled_back = match query.done.as_deref() {
        Some("rolled-back") => releases.iter().find(|r| r.current),
        _ => None,
    };
    render(&ReleasesPage {
        who: &who,
        region: region.name(),
        store,
        releases: &releases,
        may: who.identity.role >= Role::Maintainer,
        rolled_back,
    })
}

#[derive(Deserialize)]
pub struct ReleaseQuery {
    region: String,
    release: String,
}

#[derive(Template)]
#[template(path = "rollback.html")]
struct RollbackPage<'a> {
    who: &'a Visitor,
    region: &'a str,
    store: &'a str,
    target: &'a ReleaseInfo,
    current: Option<&'a ReleaseInfo>,
}

/// `GET /releases/rollback?region=R&release=ID`: what making an earlier release
/// current again does — the release servers and clients take now, and the one they
/// would take — and the form that does it, which asks why (a maintainer's).
pub async fn confirm(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<ReleaseQuery>,
) -> Answer {
    who.may(Role::Maintainer)?;
    let named = query.region.clone();
    let (region, remote) = console
        .blocking(move |console| store_of(console, &named))
        .await?;
    let remote = remote.ok_or_else(no_store)?;
    let releases = listed(&remote, &region).await?;
    let target = releases
        .iter()
        .find(|r| r.release == query.release)
        .ok_or_else(|| ConsoleError::not_found("the region has no release of that id"))?;
    render(&RollbackPage {
        who: &who,
        region: region.name(),
        store: remote.shown(),
        target,
        current: releases.iter().find(|r| r.current),
    })
}

fn no_store() -> ConsoleError {
    ConsoleError::not_found("this project names no store ([publish] store in masterctl.toml)")
}

#[derive(Deserialize)]
pub struct Rollback {
    region: String,
    release: String,
    #[serde(default)]
    reason: Option<String>,
}

/// `POST /releases` (`action=rollback`, `region`, `release`, `reason`): make the
/// release the region's current one again — a maintainer's, who must say why; the
/// pointer records who and why.
pub async fn act(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(form): Form<Acting<Rollback>>,
) -> Answer {
    who.may_post(Role::Maintainer, form.csrf.as_deref())?;
    if form.action != "rollback" {
        return Err(ConsoleError::bad_request("the action is rollback"));
    }
    let Some(reason) = crate::forms::typed(form.on.reason.as_deref()) else {
        return Err(ConsoleError::bad_request(
            "say why the release goes back: a rollback needs a reason",
        ));
    };
    let named = form.on.region.clone();
    let (region, remote) = console
        .blocking(move |console| store_of(console, &named))
        .await?;
    let remote = remote.ok_or_else(no_store)?;
    let moving = Moving {
        by: Some(one_line(&format!(
            "{} <{}>",
            who.identity.name, who.identity.email
        ))),
        reason: Some(one_line(reason)),
    };
    masterctl_delivery::rollback(&remote, region.name(), &form.on.release, &moving).await?;
    Ok(Redirect::to(&format!(
        "/releases?region={}&done=rolled-back",
        crate::target::urlencode(region.name())
    ))
    .into_response())
}
