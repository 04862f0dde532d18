//! The pages: regions and work branches, a branch's history, one commit's changes, who
//! changed a row's cells; signing in and out. Each handler reads what it shows through
//! the store's own calls and renders a template; what comes from the request is checked
//! (a region against the project, a commit id as hex) before it names anything, and no
//! request ever names a path.

use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use masterctl_store::proposals::{self, Proposal};
use masterctl_store::review::blame::Blame;
use masterctl_store::status::RegionStatus;
use masterctl_store::{Branch, ImportRecord, MasterRepo, Structure, short_id};
use serde::Deserialize;

use crate::Console;
use crate::access::Policy;
use crate::failed::{Answer, ConsoleError};
use crate::shown::{LoginPage, render, unauthorized};
use crate::target::Target;
use crate::visitor::{Visitor, cookie_ended, cookie_for};

/// The repository and its structure.
fn open(console: &Console) -> Result<(MasterRepo, Structure), ConsoleError> {
    let repo = console.open()?;
    let structure = repo.structure()?;
    Ok((repo, structure))
}

#[derive(Template)]
#[template(path = "regions.html")]
struct RegionsPage<'a> {
    who: &'a Visitor,
    lines: &'a [LineShown],
    proposals: &'a [Proposal],
}

/// A branch on the regions page: where it stands, its last commit (who, when, what) and
/// how much of each language is translated.
struct LineShown {
    status: RegionStatus,
    last: Option<ImportRecord>,
    coverage: Vec<Coverage>,
}

/// One language of a branch: the share of units translated, and how many need work.
struct Coverage {
    language: String,
    percent: usize,
    to_do: usize,
}

impl RegionsPage<'_> {
    fn short(id: &Option<String>) -> String {
        id.as_deref().map(short_id).unwrap_or("—").to_string()
    }

    /// The words of a stopped join of `kind` (`rebase`, `merge`).
    fn stopped(&self, kind: &str) -> &'static str {
        match kind {
            "rebase" => "rebase-stopped",
            "merge" => "merge-stopped",
            _ => "join-stopped",
        }
    }

    /// The proposal of a line, when it is a work branch someone proposed.
    fn proposed(&self, line: &RegionStatus) -> Option<&Proposal> {
        let work = line.work.as_deref()?;
        self.proposals
            .iter()
            .find(|p| p.region == line.region && p.name == work)
    }
}

/// A branch's last commit and its translation coverage.
fn shown_line(
    console: &Console,
    repo: &MasterRepo,
    structure: &Structure,
    status: RegionStatus,
) -> Result<LineShown, ConsoleError> {
    if status.head.is_none() {
        return Ok(LineShown {
            status,
            last: None,
            coverage: Vec::new(),
        });
    }
    let reference = format!("refs/heads/{}", status.branch);
    let last = masterctl_store::history(repo, &reference, 1)?
        .into_iter()
        .next()
        .map(|mut record| {
            record.time = crate::shown::local(&record.time, &structure.project.config.timezone);
            record
        });
    let region = masterctl_store::Region::of(&structure.project, &status.region)?;
    let line = Branch::of(&region, status.work.as_deref())?;
    let coverage = console
        .translation_states(repo, &line)?
        .iter()
        .map(|l| {
            let c = &l.total;
            let all = c.translated + c.missing + c.stale + c.failing;
            Coverage {
                language: l.language.clone(),
                percent: (c.translated * 100).checked_div(all).unwrap_or(100),
                to_do: all - c.translated,
            }
        })
        .collect();
    Ok(LineShown {
        status,
        last,
        coverage,
    })
}

/// `/`: every region and work branch.
pub async fn regions(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
) -> Answer {
    console
        .blocking(move |console| {
            let (repo, structure) = open(console)?;
            let remote = console.shown_remote(&repo);
            let lines = masterctl_store::status::status(&repo, &structure, remote.as_ref())?
                .into_iter()
                .map(|status| shown_line(console, &repo, &structure, status))
                .collect::<Result<Vec<_>, _>>()?;
            let regions = masterctl_store::Region::all(&structure.project);
            let proposals = proposals::list(&repo, &regions)?;
            render(&RegionsPage {
                who: &who,
                lines: &lines,
                proposals: &proposals,
            })
        })
        .await
}

#[derive(Template)]
#[template(path = "history.html")]
struct HistoryPage<'a> {
    who: &'a Visitor,
    line: &'a Branch,
    records: &'a [ImportRecord],
    /// `region=…[&branch=…]`.
    here: String,
    /// The commit the page starts at, when not the head.
    from: Option<&'a str>,
    /// Where the older commits start.
    older: Option<&'a str>,
    /// An editor, who may take a commit back.
    may_undo: bool,
    /// What the write that led here did.
    done: Option<&'a str>,
}

impl HistoryPage<'_> {
    /// Whether the record at `index` can be taken back: any but the branch's first.
    fn undoable(&self, index: usize) -> bool {
        self.may_undo && (self.older.is_some() || index + 1 < self.records.len())
    }
}

/// How many commits a history page shows.
const HISTORY: usize = 100;

#[derive(Deserialize)]
pub struct HistoryQuery {
    #[serde(flatten)]
    target: Target,
    /// A commit of the branch's history to start at (a page of older commits).
    #[serde(default)]
    from: Option<String>,
    /// The write that led here (`reverted`), said at the top.
    #[serde(default)]
    done: Option<String>,
}

/// `/history?region=R[&branch=NAME][&from=COMMIT]`: a branch's imports, rebases and
/// merges, a page at a time, each linking to the older ones.
pub async fn history(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<HistoryQuery>,
) -> Answer {
    console
        .blocking(move |console| {
            let (repo, structure, line) = query.target.open(console)?;
            repo.head_of_branch(&line)?;
            let from = query.from.as_deref().filter(|f| !f.is_empty());
            let mut stretch =
                masterctl_store::history_from(&repo, &line.reference(), from, HISTORY)?;
            let zone = &structure.project.config.timezone;
            for record in &mut stretch.records {
                record.time = crate::shown::local(&record.time, zone);
            }
            render(&HistoryPage {
                who: &who,
                line: &line,
                records: &stretch.records,
                here: query.target.query(),
                from,
                older: stretch.older.as_deref(),
                may_undo: who.identity.role >= crate::access::Role::Editor,
                // The words of the write that led here (`done-…` in the console's
                // languages).
                done: query.done.as_deref().filter(|done| {
                    [
                        "reverted",
                        "imported",
                        "unchanged",
                        "rebase",
                        "merge",
                        "edited",
                    ]
                    .contains(done)
                }),
            })
        })
        .await
}

#[derive(Deserialize)]
pub struct CommitQuery {
    id: String,
}

/// `/commit?id=<commit>`: what one commit changed, as the review page `diff` writes.
pub async fn commit(
    State(console): State<Arc<Console>>,
    Query(query): Query<CommitQuery>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Answer {
    let paging = crate::reviewing::Paging::of("/commit", pairs)?;
    // A commit id, and nothing else a revision could be (no ranges, no paths).
    if !(7..=40).contains(&query.id.len()) || !query.id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ConsoleError::refusing("commit-is-named-by-id", &[]));
    }
    console
        .blocking(move |console| {
            let repo = console.open()?;
            // A commit's review never changes: made once per commit (and window).
            let id = repo.commit_id(&query.id)?;
            use masterctl_store::review::diff;
            let page = console
                .commits
                .get_or(&format!("{id}\n{}", paging.key()), || {
                    let sides = masterctl_app::diff::Sides::Revision(&id);
                    let review =
                        masterctl_app::diff::review(&repo, sides, &diff::DiffOptions::default())?;
                    let title = format!("commit {}", short_id(&id));
                    Ok::<_, masterctl_store::StoreError>(paging.page(
                        &title,
                        &review.from.label,
                        &review.to.label,
                        &review.diff,
                    ))
                })?;
            Ok(crate::guard::review_page(page.as_str().to_string()))
        })
        .await
}

#[derive(Deserialize)]
pub struct BlameQuery {
    #[serde(flatten)]
    target: Target,
    table: String,
    /// The key's cells joined by `|` (`10|3`), as the command line takes them.
    key: String,
}

#[derive(Template)]
#[template(path = "blame.html")]
struct BlamePage<'a> {
    who: &'a Visitor,
    line: &'a Branch,
    blame: &'a Blame,
    /// The commits that changed the row, newest first.
    history: &'a [masterctl_store::review::blame::RowVersion],
}

/// The commits of a row's history a blame page shows.
const ROW_HISTORY: usize = 50;

/// `/blame?region=R&table=T&key=K`: who last changed each cell of a row.
pub async fn blame(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<BlameQuery>,
) -> Answer {
    console
        .blocking(move |console| {
            let (repo, structure, line) = query.target.open(console)?;
            let key: Vec<String> = query.key.split('|').map(str::to_string).collect();
            let mut blame =
                masterctl_store::review::blame::blame(&repo, &line, &query.table, &key, None)?;
            let mut history = masterctl_store::review::blame::row_history(
                &repo,
                &line,
                &query.table,
                &key,
                ROW_HISTORY,
            )?;
            let zone = &structure.project.config.timezone;
            for cell in &mut blame.cells {
                cell.commit.time = crate::shown::local(&cell.commit.time, zone);
            }
            for version in &mut history {
                version.commit.time = crate::shown::local(&version.commit.time, zone);
            }
            render(&BlamePage {
                who: &who,
                line: &line,
                blame: &blame,
                history: &history,
            })
        })
        .await
}

/// `GET /login`: the sign-in form (users sign in with their token).
pub async fn login_form(State(console): State<Arc<Console>>, headers: HeaderMap) -> Response {
    let page = LoginPage {
        lang: crate::i18n::language(&headers),
        message: "sign-in-with-token",
        form: matches!(console.policy, Policy::Users(_)),
    };
    Html(page.render().unwrap_or_default()).into_response()
}

#[derive(Deserialize)]
pub struct LoginForm {
    token: String,
}

/// `POST /login`: a token that is a user's opens a session (the cookie); another is 401.
pub async fn login(
    State(console): State<Arc<Console>>,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> Response {
    let lang = crate::i18n::language(&headers);
    let Policy::Users(users) = &console.policy else {
        return Redirect::to("/").into_response();
    };
    let Some(identity) = users.by_token(form.token.trim()) else {
        return unauthorized(&console.policy, lang);
    };
    let Some((id, _)) = console.sessions.open(identity.clone()) else {
        return ConsoleError::of(
            masterctl_app::ErrorKind::Environment,
            lang.t("too-many-sessions"),
        )
        .into_response();
    };
    let mut response = Redirect::to("/").into_response();
    // Users of a users file sign in to the console itself (no proxy to say https).
    response
        .headers_mut()
        .append(header::SET_COOKIE, cookie_for(&id, false));
    response
}

#[derive(Deserialize)]
pub struct CsrfForm {
    #[serde(default)]
    csrf: Option<String>,
}

/// `POST /logout`: the session ends (a form of this console only).
pub async fn logout(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(form): Form<CsrfForm>,
) -> Response {
    if let Err(refused) = who.posted_here(form.csrf.as_deref()) {
        return refused.into_response();
    }
    if let Some((id, _)) = &who.session {
        console.sessions.close(id);
    }
    let mut response = Redirect::to("/login").into_response();
    response
        .headers_mut()
        .append(header::SET_COOKIE, cookie_ended());
    response
}
