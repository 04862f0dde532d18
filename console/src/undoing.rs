//! Undo, from a branch's history: a commit taken back as a new commit — reviewed first
//! (what changes, per table, and cell by cell), then taken back with a message as the
//! signed-in user; refused, with each cell named, where later commits built on what it
//! changed. The store's `revert::run`, as the command line's `revert` calls it.

use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::{Form, Query, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use masterctl_store::Branch;
use masterctl_store::join::session::{ConflictEntry, conflict_entries};
use masterctl_store::revert::{self, Request, RevertOutcome};
use masterctl_store::review::diff::{DiffOptions, TableDiff};
use masterctl_store::short_id;
use serde::Deserialize;

use crate::Console;
use crate::access::Role;
use crate::failed::{Answer, ConsoleError};
use crate::shown::render;
use crate::target::{Target, urlencode};
use crate::visitor::Visitor;

#[derive(Deserialize)]
pub struct RevertQuery {
    #[serde(flatten)]
    target: Target,
    commit: String,
}

impl RevertQuery {
    /// `region=…[&branch=…]&commit=…`.
    fn query(&self) -> String {
        format!("{}&commit={}", self.target.query(), urlencode(&self.commit))
    }
}

#[derive(Template)]
#[template(path = "revert.html")]
struct RevertPage<'a> {
    who: &'a Visitor,
    line: &'a Branch,
    query: String,
    commit: &'a str,
    /// What the page has to say: a review, or why not.
    shown: Shown<'a>,
}

enum Shown<'a> {
    Review {
        subject: &'a str,
        tables: &'a [TableDiff],
    },
    BuiltOn(Vec<ConflictEntry>),
    Rejected(&'a [masterctl_schemas::Diagnostic]),
    Unchanged,
}

impl RevertPage<'_> {
    fn short(&self) -> &str {
        short_id(self.commit)
    }
}

/// The revert of the query's commit as a dry run.
fn reviewed(
    console: &Console,
    query: &RevertQuery,
) -> Result<(Branch, RevertOutcome), ConsoleError> {
    let (repo, _, line) = query.target.open(console)?;
    let outcome = revert::run(
        &repo,
        &Request {
            line: &line,
            commit: &query.commit,
            message: None,
            dry_run: true,
            review: DiffOptions::default(),
        },
    )?;
    Ok((line, outcome))
}

/// `GET /revert?region=R[&branch=NAME]&commit=ID`: what taking the commit back
/// changes, and the form that does it (an editor's).
pub async fn page(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<RevertQuery>,
) -> Answer {
    who.may(Role::Editor)?;
    console
        .blocking(move |console| {
            let (line, outcome) = reviewed(console, &query)?;
            let (shown, commit, refused) = match &outcome {
                RevertOutcome::Reviewed {
                    commit,
                    subject,
                    review,
                    ..
                } => (
                    Shown::Review {
                        subject,
                        tables: &review.diff.tables,
                    },
                    commit.as_str(),
                    false,
                ),
                RevertOutcome::BuiltOn { commit, tables } => (
                    Shown::BuiltOn(conflict_entries(tables)),
                    commit.as_str(),
                    true,
                ),
                RevertOutcome::Rejected(report) => (
                    Shown::Rejected(&report.diagnostics),
                    query.commit.as_str(),
                    true,
                ),
                RevertOutcome::Unchanged { commit } => (Shown::Unchanged, commit.as_str(), false),
                RevertOutcome::Committed { .. } => {
                    return Err(ConsoleError::internal("a review committed"));
                }
            };
            let page = render(&RevertPage {
                who: &who,
                line: &line,
                query: query.query(),
                commit,
                shown,
            })?;
            let status = if refused {
                StatusCode::UNPROCESSABLE_ENTITY
            } else {
                StatusCode::OK
            };
            Ok((status, page).into_response())
        })
        .await
}

/// `GET /revert/diff?…`: every change taking the commit back makes, cell by cell.
pub async fn diff(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<RevertQuery>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Answer {
    who.may(Role::Editor)?;
    let paging = crate::reviewing::Paging::of("/revert/diff", pairs)?;
    console
        .blocking(move |console| match reviewed(console, &query)? {
            (line, RevertOutcome::Reviewed { commit, review, .. }) => {
                Ok(crate::guard::review_page(paging.page(
                    &format!("Taking back {} on {}", short_id(&commit), line.branch()),
                    &review.from.label,
                    &review.to.label,
                    &review.diff,
                )))
            }
            _ => Err(ConsoleError::saying(
                masterctl_app::ErrorKind::Invalid,
                "commit-cannot-be-taken-back",
                &[],
            )),
        })
        .await
}

#[derive(Deserialize)]
pub struct RevertForm {
    #[serde(default)]
    csrf: Option<String>,
    #[serde(flatten)]
    target: Target,
    commit: String,
    #[serde(default)]
    message: Option<String>,
}

/// `POST /revert`: take the commit back as the signed-in user; to the history when
/// done, or back to the review when refused.
pub async fn act(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(form): Form<RevertForm>,
) -> Answer {
    who.may_post(Role::Editor, form.csrf.as_deref())?;
    let message = crate::forms::typed(form.message.as_deref()).map(str::to_string);
    let history = format!("/history?{}&done=reverted", form.target.query());
    let review = format!(
        "/revert?{}&commit={}",
        form.target.query(),
        urlencode(&form.commit)
    );
    let author = who.clone();
    console
        .in_background(&who, move |console| {
            let (repo, _, line) = form.target.open(console)?;
            let repo = author.writing(repo)?;
            let outcome = console.write_line(
                &repo,
                &line,
                |repo| {
                    revert::run(
                        repo,
                        &Request {
                            line: &line,
                            commit: &form.commit,
                            message: message.as_deref(),
                            dry_run: false,
                            review: DiffOptions::default(),
                        },
                    )
                    .map_err(ConsoleError::from)
                },
                |outcome| matches!(outcome, RevertOutcome::Committed { .. }),
            )?;
            let by = author.signature();
            let notice =
                masterctl_app::notify::of::revert(&outcome, line.name(), line.branch(), &by);
            console.tell(&repo, notice);
            match outcome {
                RevertOutcome::Committed { .. } | RevertOutcome::Unchanged { .. } => Ok(history),
                _ => Ok(review),
            }
        })
        .await
}
