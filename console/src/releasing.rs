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
    /// The write that led here (`rolled-back`, `published`, `tagged`), said at the top.
    #[serde(default)]
    done: Option<String>,
    /// The release published, the version tagged.
    #[serde(default)]
    release: Option<String>,
    #[serde(default)]
    version: Option<String>,
}

/// The region a request names, checked against the project, and the project's store
/// (`None` when it names none).
fn store_of(console: &Console, region: &str) -> Result<(Region, Option<Remote>), ConsoleError> {
    store_and_zone(console, region).map(|(region, remote, _)| (region, remote))
}

/// [`store_of`], and the project's time zone (what a page shows times in).
fn store_and_zone(
    console: &Console,
    region: &str,
) -> Result<(Region, Option<Remote>, masterctl_schemas::zone::Zone), ConsoleError> {
    let repo = console.open()?;
    let structure = repo.structure()?;
    let region = Region::of(&structure.project, region)?;
    let remote = masterctl_app::project::project_store(&structure, None)?;
    Ok((region, remote, structure.project.config.timezone))
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
    /// The release the publish that led here made.
    published: Option<&'a ReleaseInfo>,
    /// The version the tag that led here named.
    tagged: Option<&'a str>,
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
    let (region, remote, zone) = console
        .blocking(move |console| store_and_zone(console, &named))
        .await?;
    let store = remote.as_ref().map(|r| r.shown().to_string());
    let mut releases = match &remote {
        Some(remote) => listed(remote, &region).await?,
        None => Vec::new(),
    };
    for release in &mut releases {
        release.published = crate::shown::local(&release.published, &zone);
        if let Some(made) = &mut release.made_current {
            made.time = crate::shown::local(&made.time, &zone);
        }
    }
    let rolled_back = match query.done.as_deref() {
        Some("rolled-back") => releases.iter().find(|r| r.current),
        _ => None,
    };
    let published = match (query.done.as_deref(), &query.release) {
        (Some("published"), Some(id)) => releases.iter().find(|r| r.release == *id),
        _ => None,
    };
    let tagged = match query.done.as_deref() {
        Some("tagged") => query.version.as_deref(),
        _ => None,
    };
    render(&ReleasesPage {
        who: &who,
        region: region.name(),
        store,
        releases: &releases,
        may: who.identity.role >= Role::Maintainer,
        rolled_back,
        published,
        tagged,
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
        .ok_or_else(|| {
            ConsoleError::saying(masterctl_app::ErrorKind::NotFound, "no-such-release", &[])
        })?;
    render(&RollbackPage {
        who: &who,
        region: region.name(),
        store: remote.shown(),
        target,
        current: releases.iter().find(|r| r.current),
    })
}

fn no_store() -> ConsoleError {
    ConsoleError::saying(masterctl_app::ErrorKind::NotFound, "no-store", &[])
}

#[derive(Deserialize)]
pub struct Rollback {
    region: String,
    /// The release made current again (`rollback`).
    #[serde(default)]
    release: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    /// The version to tag the region's head with (`tag`).
    #[serde(default)]
    version: Option<String>,
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
    match form.action.as_str() {
        "rollback" => {}
        "publish" => return publish(console, who, form).await,
        "tag" => return tag(console, who, form).await,
        _ => {
            return Err(ConsoleError::not_one_of(
                "action",
                &form.action,
                &["publish", "tag", "rollback"],
            ));
        }
    }
    let Some(release) = form.on.release.clone().filter(|r| !r.is_empty()) else {
        return Err(ConsoleError::refusing("rollback-names-release", &[]));
    };
    let Some(reason) = crate::forms::typed(form.on.reason.as_deref()) else {
        return Err(ConsoleError::saying(
            masterctl_app::ErrorKind::Usage,
            "rollback-needs-reason",
            &[],
        ));
    };
    let named = form.on.region.clone();
    let (region, remote) = console
        .blocking(move |console| store_of(console, &named))
        .await?;
    let remote = remote.ok_or_else(no_store)?;
    let moving = Moving {
        by: Some(who.signature()),
        reason: Some(one_line(reason)),
        sign: None,
    };
    masterctl_delivery::rollback(&remote, region.name(), &release, &moving).await?;
    let notice = masterctl_app::notify::of::release(
        region.name(),
        &release,
        false,
        &who.signature(),
        moving.reason.as_deref(),
    );
    let author = who.clone();
    console
        .blocking(move |console| {
            console.tell(&author.writing(console.open()?)?, Some(notice));
            Ok(())
        })
        .await?;
    Ok(Redirect::to(&format!(
        "/releases?region={}&done=rolled-back",
        crate::target::urlencode(region.name())
    ))
    .into_response())
}

/// `action=publish`: the region's head built for servers and clients and published to
/// the project's store as the signed-in maintainer, with their words; back to the
/// releases, which say what it did.
async fn publish(console: Arc<Console>, who: Visitor, form: Acting<Rollback>) -> Answer {
    let message = form.message().map(one_line);
    let region_name = form.on.region.clone();
    let author = who.clone();
    console
        .in_background(&who, move |console| {
            let (region, remote) = store_of(console, &region_name)?;
            let remote = remote.ok_or_else(no_store)?;
            let repo = author.writing(console.open()?)?;
            let staged = masterctl_app::release::stage(
                &repo,
                &masterctl_store::Branch::from(region.clone()),
            )?;
            let published_words = message.clone();
            let published = tokio::runtime::Handle::current().block_on(
                masterctl_app::release::publish_staged(
                    &remote,
                    &staged,
                    Some(author.signature()),
                    message,
                ),
            )?;
            drop(staged);
            let notice = masterctl_app::notify::of::release(
                region.name(),
                &published.release,
                true,
                &author.signature(),
                published_words.as_deref(),
            );
            console.tell(&repo, Some(notice));
            Ok(format!(
                "/releases?region={}&done=published&release={}",
                crate::target::urlencode(region.name()),
                crate::target::urlencode(&published.release)
            ))
        })
        .await
}

/// `action=tag`: the region's head named as a version (`version`, with the message
/// typed), as the signed-in maintainer; sent to the remote when the console serves
/// with one.
async fn tag(console: Arc<Console>, who: Visitor, form: Acting<Rollback>) -> Answer {
    let Some(version) = crate::forms::typed(form.on.version.as_deref()).map(str::to_string) else {
        return Err(ConsoleError::saying(
            masterctl_app::ErrorKind::Usage,
            "name-the-version",
            &[],
        ));
    };
    let message = form.message().map(str::to_string);
    let region_name = form.on.region.clone();
    console
        .blocking(move |console| {
            let repo = who.writing(console.open()?)?;
            let structure = repo.structure()?;
            let region = Region::of(&structure.project, &region_name)?;
            let line = masterctl_store::Branch::from(region.clone());
            let made = console.write_line(
                &repo,
                &line,
                |repo| {
                    let request = masterctl_store::tags::TagRequest {
                        version: &version,
                        rev: None,
                        message: message.as_deref(),
                    };
                    masterctl_store::tags::create(repo, &region, &request)
                        .map_err(ConsoleError::from)
                },
                |_| true,
            )?;
            let notice = masterctl_app::notify::of::tag(&made, &who.signature());
            console.tell(&repo, Some(notice));
            Ok(Redirect::to(&format!(
                "/releases?region={}&done=tagged&version={}",
                crate::target::urlencode(region.name()),
                crate::target::urlencode(&version)
            ))
            .into_response())
        })
        .await
}
