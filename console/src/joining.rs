//! Rebasing a region (or a work branch onto its region) and reflecting a work branch
//! into its region, in the console: the dry run's review (every change taken, with
//! what the join does with it), the conflicts as a grid resolved per cell — a side, or
//! a value typed (checked against the column's type when the join goes on) — or per
//! table or column, then continue or abort. The same session the command line drives
//! (`rebase::session::run`); a maintainer does it, others see it.

use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::{Form, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use masterctl_store::proposals::{self, Proposal};
use masterctl_store::rebase::resolutions::Resolution;
use masterctl_store::rebase::session::{self, Action, ConflictEntry, Rebased, Step};
use masterctl_store::rebase::{Join, RebaseError};
use masterctl_store::{Line, MasterRepo, Structure};
use serde::Deserialize;

use crate::Console;
use crate::access::Role;
use crate::forms::Acting;
use crate::shown::{error_page, render, store_error};
use crate::target::Target;
use crate::visitor::Visitor;

/// Which join a request names: `kind` (`rebase`, `merge`), the region, the work branch.
#[derive(Deserialize)]
pub struct JoinQuery {
    kind: String,
    #[serde(flatten)]
    target: Target,
}

impl JoinQuery {
    /// `kind=…&region=…[&branch=…]` for a link.
    fn query(&self) -> String {
        format!("kind={}&{}", self.kind, self.target.query())
    }

    /// The join, checked against the project: a rebase of the region (or of a work
    /// branch onto it), or a merge of a work branch into it; with the repository and
    /// its structure.
    fn join(&self, console: &Console) -> Result<(MasterRepo, Structure, Join), Response> {
        let (repo, structure, line) = self.target.open(console)?;
        let join = match (self.kind.as_str(), line.work()) {
            ("rebase", None) => Join::Rebase(line.region().clone()),
            ("rebase", Some(work)) => Join::Refresh(work.clone()),
            ("merge", Some(work)) => Join::Reflect(work.clone()),
            _ => {
                return Err(error_page(
                    StatusCode::BAD_REQUEST,
                    "a rebase names a region (and perhaps a work branch); a merge names a work branch",
                ));
            }
        };
        Ok((repo, structure, join))
    }
}

/// A join's failure as a page: the store's by what it means, a request that cannot be
/// taken 400, and the rest — one in progress, none in progress, a branch that moved or
/// was rewritten — 409.
fn join_error(error: RebaseError) -> Response {
    match error {
        RebaseError::Store(e) => store_error(e),
        RebaseError::NoUpstream(_) | RebaseError::BadResolution(_) => {
            error_page(StatusCode::BAD_REQUEST, &error.to_string())
        }
        _ => error_page(StatusCode::CONFLICT, &error.to_string()),
    }
}

#[derive(Template)]
#[template(path = "join.html")]
struct JoinPage<'a> {
    who: &'a Visitor,
    kind: &'a str,
    line: Line,
    query: String,
    region: &'a str,
    branch: Option<&'a str>,
    in_progress: bool,
    may: bool,
    step: &'a Step,
    /// The merge proposed for the work branch (a merge's page).
    proposal: Option<Proposal>,
}

impl JoinPage<'_> {
    fn rebased(&self) -> Option<&Rebased> {
        match self.step {
            Step::DryRun { rebase, .. } => Some(rebase),
            _ => None,
        }
    }

    fn conflicts(&self) -> &[ConflictEntry] {
        match self.step {
            Step::Conflicts { conflicts, .. } => conflicts,
            _ => &[],
        }
    }

    fn invalid(&self) -> Vec<String> {
        match self.step {
            Step::Invalid { report, .. } => {
                report.diagnostics.iter().map(|d| d.to_string()).collect()
            }
            _ => Vec::new(),
        }
    }

    fn up_to_date(&self) -> bool {
        matches!(self.step, Step::UpToDate { .. })
    }
}

/// `GET /join?kind=rebase|merge&region=R[&branch=NAME]`: what the join would do now —
/// the review, or the conflicts still to resolve.
pub async fn page(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<JoinQuery>,
) -> Response {
    if let Err(refused) = who.may(Role::Editor) {
        return refused;
    }
    let (repo, structure, join) = match query.join(&console) {
        Ok(found) => found,
        Err(response) => return response,
    };
    let line = join.target();
    let in_progress = matches!(
        masterctl_store::rebase::state::load_state(&repo, &line),
        Ok(Some(state)) if state.kind == join.kind()
    );
    let step = match session::run(&repo, &structure, &join, &Action::DryRun, None) {
        Ok(step) => step,
        Err(e) => return join_error(e),
    };
    let proposal = match &join {
        Join::Reflect(work) => match proposals::proposal_of(&repo, work) {
            Ok(found) => found,
            Err(e) => return store_error(e),
        },
        _ => None,
    };
    render(&JoinPage {
        who: &who,
        kind: join.kind(),
        line,
        query: query.query(),
        region: &query.target.region,
        branch: query.target.branch(),
        in_progress,
        may: who.identity.role >= Role::Maintainer,
        step: &step,
        proposal,
    })
}

/// `GET /join/diff?…`: the review, cell by cell, as `diff` shows it.
pub async fn diff(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<JoinQuery>,
) -> Response {
    if let Err(refused) = who.may(Role::Editor) {
        return refused;
    }
    let (repo, structure, join) = match query.join(&console) {
        Ok(found) => found,
        Err(response) => return response,
    };
    match session::run(&repo, &structure, &join, &Action::DryRun, None) {
        Ok(Step::DryRun { diff, rebase }) => {
            crate::guard::review_page(masterctl_store::review::diff::page(
                &format!("{} of {}", join.kind(), join.target().branch()),
                join.target().branch(),
                &rebase.upstream,
                &diff,
            ))
            .into_response()
        }
        Ok(_) => error_page(
            StatusCode::CONFLICT,
            "nothing to review: resolve the conflicts first",
        ),
        Err(e) => join_error(e),
    }
}

/// `POST /join`: start (or continue) the join, or abort it — a maintainer's, committed
/// as them.
pub async fn act(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(form): Form<Acting<JoinQuery>>,
) -> Response {
    if let Err(refused) = who.may_post(Role::Maintainer, form.csrf.as_deref()) {
        return refused;
    }
    let (repo, structure, join) = match form.on.join(&console) {
        Ok(found) => found,
        Err(response) => return response,
    };
    let stopped = matches!(
        masterctl_store::rebase::state::load_state(&repo, &join.target()),
        Ok(Some(_))
    );
    drop(repo);
    let action = match (form.action.as_str(), stopped) {
        ("abort", _) => Action::Abort,
        ("start", true) => Action::Continue,
        ("start", false) => Action::Start,
        _ => return error_page(StatusCode::BAD_REQUEST, "the action is start or abort"),
    };
    let target = join.target();
    // The history of the branch that moves, or the join's page while it waits.
    let history = Target {
        region: form.on.target.region.clone(),
        branch: target.work().map(|w| w.name().to_string()),
    };
    let history = format!("/history?{}", history.query());
    let page = format!("/join?{}", form.on.query());
    let message = form.message().map(str::to_string);
    let author = who.clone();
    console
        .in_background(&who, move |console| {
            // A join that starts takes the remote's side of both branches first; one
            // that goes on works on what it stopped with.
            let other = match &join {
                Join::Reflect(work) | Join::Refresh(work) => Some(Line::from(work.clone())),
                _ => None,
            };
            let pulled: Vec<&Line> = match stopped {
                true => Vec::new(),
                false => std::iter::once(&target).chain(other.as_ref()).collect(),
            };
            let repo = console.writer(&author, &pulled)?;
            match session::run(&repo, &structure, &join, &action, message.as_deref()) {
                Ok(Step::Committed { .. }) => {
                    console.pushed(&repo, &target)?;
                    Ok(history)
                }
                Ok(_) => Ok(page),
                Err(e) => Err(join_error(e)),
            }
        })
        .await
}

#[derive(Deserialize)]
pub struct ResolveForm {
    #[serde(default)]
    csrf: Option<String>,
    #[serde(flatten)]
    join: JoinQuery,
    /// `ours`, `theirs` or `value`.
    side: String,
    #[serde(default)]
    value: Option<String>,
    /// Which conflicts (each empty: all).
    #[serde(default)]
    table: Option<String>,
    #[serde(default)]
    column: Option<String>,
    #[serde(default)]
    key: Option<String>,
}

/// `POST /resolve`: resolve the conflicts the form names with a side or a value.
pub async fn resolve(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(form): Form<ResolveForm>,
) -> Response {
    if let Err(refused) = who.may_post(Role::Maintainer, form.csrf.as_deref()) {
        return refused;
    }
    let (repo, structure, join) = match form.join.join(&console) {
        Ok(found) => found,
        Err(response) => return response,
    };
    let side = match form.side.as_str() {
        "ours" => Resolution::Ours,
        "theirs" => Resolution::Theirs,
        "value" => Resolution::Value(form.value.clone().unwrap_or_default()),
        _ => return error_page(StatusCode::BAD_REQUEST, "a side is ours, theirs or value"),
    };
    let filter = |v: &Option<String>| v.as_deref().filter(|s| !s.is_empty()).map(str::to_string);
    let (table, column, key) = (filter(&form.table), filter(&form.column), filter(&form.key));
    let action = Action::Resolve {
        side,
        table: table.as_deref(),
        column: column.as_deref(),
        key: key.as_deref(),
    };
    match session::run(&repo, &structure, &join, &action, None) {
        Ok(_) => Redirect::to(&format!("/join?{}", form.join.query())).into_response(),
        Err(e) => join_error(e),
    }
}

#[derive(Deserialize)]
pub struct ValueQuery {
    #[serde(flatten)]
    target: Target,
    table: String,
    column: String,
    #[serde(default)]
    value: String,
}

/// `GET /check-value?region=R[&branch=NAME]&table=T&column=C&value=V`: whether a value
/// typed to resolve a conflict reads as its column's type (the parser the merge uses);
/// 200, or 422 with what was expected. The merge checks it again when it goes on.
pub async fn check_value(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<ValueQuery>,
) -> Response {
    if let Err(refused) = who.may(Role::Editor) {
        return refused;
    }
    let (_, structure, _) = match query.target.open(&console) {
        Ok(found) => found,
        Err(response) => return response,
    };
    let Some(field) = structure
        .project
        .table(&query.table)
        .and_then(|table| table.field(&query.column))
    else {
        return (StatusCode::NOT_FOUND, "no such column").into_response();
    };
    match masterctl_schemas::parse::parse_text_in(&field.ty, &query.value, Some(&field.zone)) {
        Ok(_) => (StatusCode::OK, "").into_response(),
        Err(mismatch) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("not {}", mismatch.expected),
        )
            .into_response(),
    }
}
