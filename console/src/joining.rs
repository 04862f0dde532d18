//! Rebasing a region (or a work branch onto its region) and reflecting a work branch
//! into its region, in the console: the dry run's review (every change taken, with
//! what the join does with it), the conflicts as a grid resolved per cell — a side, or
//! a value typed (checked against the column's type when the join goes on) — or per
//! table or column, then continue or abort. The same session the command line drives
//! (`join::session::run`); a maintainer does it, others see it.

use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::{Form, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};
use masterctl_app::ErrorKind;
use masterctl_store::join::Join;
use masterctl_store::join::resolutions::Resolution;
use masterctl_store::join::session::{self, Action, ConflictEntry, Rebased, Step};
use masterctl_store::proposals::{self, Proposal};
use masterctl_store::{Branch, MasterRepo, Structure};
use serde::Deserialize;

use crate::Console;
use crate::access::Role;
use crate::failed::{Answer, ConsoleError};
use crate::forms::Acting;
use crate::shown::render;
use crate::target::{Target, urlencode};
use crate::visitor::Visitor;

/// Which join a request names: `kind` (`rebase`, `merge`), the region, the work branch.
#[derive(Deserialize, Clone)]
pub struct JoinQuery {
    kind: String,
    #[serde(flatten)]
    target: Target,
}

/// The join's page: the join, and the message typed when going on was refused (kept).
#[derive(Deserialize)]
pub struct JoinPageQuery {
    #[serde(flatten)]
    join: JoinQuery,
    #[serde(default)]
    message: Option<String>,
}

impl JoinQuery {
    /// `kind=…&region=…[&branch=…]` for a link.
    fn query(&self) -> String {
        format!("kind={}&{}", self.kind, self.target.query())
    }

    /// The join, checked against the project: a rebase of the region (or of a work
    /// branch onto it), or a merge of a work branch into it; with the repository and
    /// its structure.
    fn join(&self, console: &Console) -> Result<(MasterRepo, Structure, Join), ConsoleError> {
        let (repo, structure, line) = self.target.open(console)?;
        let join = match (self.kind.as_str(), line.work()) {
            ("rebase", None) => Join::Rebase(line.region().clone()),
            ("rebase", Some(work)) => Join::Refresh(work.clone()),
            ("merge", Some(work)) => Join::Reflect(work.clone()),
            _ => {
                return Err(ConsoleError::refusing("join-names-its-branch", &[]));
            }
        };
        Ok((repo, structure, join))
    }
}

#[derive(Template)]
#[template(path = "join.html")]
struct JoinPage<'a> {
    who: &'a Visitor,
    kind: &'a str,
    line: Branch,
    query: String,
    region: &'a str,
    branch: Option<&'a str>,
    in_progress: bool,
    may: bool,
    step: &'a Step,
    /// The merge proposed for the work branch (a merge's page).
    proposal: Option<Proposal>,
    /// What the join takes from, as a planner says it (`jp`, `work/jp/alice`).
    source: String,
    /// Resolutions the merged data refuses, to be resolved again.
    refused: Vec<Refused>,
    /// The message typed for the commit when going on was refused.
    typed: Option<String>,
}

/// A resolution given that the merged data refuses (a value below a field's minimum,
/// say): the cell, what was chosen, and why it will not do — resolved again here.
struct Refused {
    table: String,
    key: String,
    column: String,
    /// What was chosen: the id of its words, and a value typed.
    chosen: &'static str,
    value: Option<String>,
    why: String,
}

/// Each error of `report` on a cell a resolution set, with that resolution.
fn refused_resolutions(
    repo: &MasterRepo,
    line: &Branch,
    report: &masterctl_schemas::Report,
    lang: crate::i18n::Lang,
) -> Result<Vec<Refused>, ConsoleError> {
    let resolutions = masterctl_store::join::state::load_resolutions(repo, line)?;
    let mut refused = Vec::new();
    for d in report.diagnostics.iter().filter(|d| d.is_error()) {
        let l = &d.location;
        let (Some(table), Some(key), Some(column)) = (&l.table, &l.key, &l.field) else {
            continue;
        };
        let Some(chosen) = resolutions.get(&(table.clone(), key.clone(), column.clone())) else {
            continue;
        };
        refused.push(Refused {
            table: table.clone(),
            key: key.clone(),
            column: column.clone(),
            chosen: match chosen {
                Resolution::Ours => "keep-our-change",
                Resolution::Theirs => "take-their-change",
                Resolution::Value(v) if v.is_empty() => "an-empty-cell",
                Resolution::Value(_) => "the-value",
            },
            value: match chosen {
                Resolution::Value(v) if !v.is_empty() => Some(v.clone()),
                _ => None,
            },
            why: crate::mistakes::what(d, lang),
        });
    }
    Ok(refused)
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
                let lang = self.who.lang;
                (report.diagnostics.iter())
                    .map(|d| crate::mistakes::line(d, lang))
                    .collect()
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
    Query(asked): Query<JoinPageQuery>,
) -> Answer {
    who.may(Role::Editor)?;
    let (query, typed) = (asked.join, asked.message);
    console
        .blocking(move |console| {
            let (repo, structure, join) = query.join(console)?;
            let in_progress = masterctl_app::join::stopped_as(&repo, &join)?;
            let step = session::run(&repo, &structure, &join, &Action::DryRun, None)?;
            let proposal = match &join {
                Join::Reflect(work) => proposals::proposal_of(&repo, work)?,
                _ => None,
            };
            let source = join.source(&structure.project)?.name;
            let refused = match (&step, in_progress) {
                (Step::Invalid { report, .. }, true) => {
                    refused_resolutions(&repo, &join.target(), report, who.lang)?
                }
                _ => Vec::new(),
            };
            render(&JoinPage {
                who: &who,
                kind: join.kind(),
                line: join.target(),
                query: query.query(),
                region: &query.target.region,
                branch: query.target.branch(),
                in_progress,
                may: who.identity.role >= Role::Maintainer,
                step: &step,
                proposal,
                source,
                refused,
                typed,
            })
        })
        .await
}

/// `GET /join/diff?…`: the review, cell by cell, as `diff` shows it.
pub async fn diff(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<JoinQuery>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Answer {
    who.may(Role::Editor)?;
    let paging = crate::reviewing::Paging::of("/join/diff", pairs)?;
    console
        .blocking(move |console| {
            let (repo, structure, join) = query.join(console)?;
            match session::run(&repo, &structure, &join, &Action::DryRun, None)? {
                Step::DryRun { diff, rebase } => Ok(crate::guard::review_page(paging.page(
                    &format!("{} of {}", join.kind(), join.target().branch()),
                    join.target().branch(),
                    &rebase.upstream,
                    &diff,
                ))),
                _ => Err(ConsoleError::saying(
                    ErrorKind::Conflict,
                    "resolve-conflicts-first",
                    &[],
                )),
            }
        })
        .await
}

/// `POST /join`: start (or continue) the join, or abort it — a maintainer's, committed
/// as them.
pub async fn act(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(form): Form<Acting<JoinQuery>>,
) -> Answer {
    who.may_post(Role::Maintainer, form.csrf.as_deref())?;
    let abort = match form.action.as_str() {
        "abort" => true,
        "start" => false,
        other => {
            return Err(ConsoleError::not_one_of(
                "action",
                other,
                &["start", "abort"],
            ));
        }
    };
    let message = form.message().map(str::to_string);
    // Back on the join's page (conflicts, data refused), the message typed is kept.
    let page = match &message {
        Some(typed) => format!("/join?{}&message={}", form.on.query(), urlencode(typed)),
        None => format!("/join?{}", form.on.query()),
    };
    let (target, author) = (form.on, who.clone());
    console
        .in_background(&who, move |console| {
            let (repo, structure, join) = target.join(console)?;
            let repo = author.writing(repo)?;
            // Starting again where a join stopped goes on with it.
            let action = match (abort, masterctl_app::join::stopped(&repo, &join)?) {
                (true, _) => Action::Abort,
                (false, true) => Action::Continue,
                (false, false) => Action::Start,
            };
            let moved = join.target();
            let around = masterctl_app::join::step(
                &repo,
                &structure,
                &join,
                &action,
                message.as_deref(),
                console.around().as_ref(),
            )?;
            let step = console.landed(around, &moved)?;
            let by = author.signature();
            let notice = masterctl_app::notify::of::join(&step, &join, &by, message.as_deref());
            console.tell(&repo, notice);
            match step {
                // The history of the branch that moved.
                Step::Committed { .. } => {
                    let history = Target {
                        region: target.target.region.clone(),
                        branch: moved.work().map(|w| w.name().to_string()),
                    };
                    Ok(format!("/history?{}&done={}", history.query(), join.kind()))
                }
                // The join's page while it waits.
                _ => Ok(page),
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
) -> Answer {
    who.may_post(Role::Maintainer, form.csrf.as_deref())?;
    let side = match form.side.as_str() {
        "ours" => Resolution::Ours,
        "theirs" => Resolution::Theirs,
        "value" => Resolution::Value(form.value.clone().unwrap_or_default()),
        other => {
            return Err(ConsoleError::not_one_of(
                "side",
                other,
                &["ours", "theirs", "value"],
            ));
        }
    };
    console
        .blocking(move |console| {
            let (repo, structure, join) = form.join.join(console)?;
            let filter =
                |v: &Option<String>| v.as_deref().filter(|s| !s.is_empty()).map(str::to_string);
            let (table, column, key) =
                (filter(&form.table), filter(&form.column), filter(&form.key));
            let action = Action::Resolve {
                side,
                table: table.as_deref(),
                column: column.as_deref(),
                key: key.as_deref(),
            };
            session::run(&repo, &structure, &join, &action, None)?;
            Ok(Redirect::to(&format!("/join?{}", form.join.query())).into_response())
        })
        .await
}

#[derive(Deserialize)]
pub struct ValueQuery {
    #[serde(flatten)]
    target: Target,
    table: String,
    column: String,
    #[serde(default)]
    value: String,
    /// The row the value goes into (none: a new row).
    #[serde(default)]
    key: Option<String>,
}

/// `GET /check-value?region=R[&branch=NAME]&table=T&column=C[&key=K]&value=V`: whether a
/// value typed to resolve a conflict or into a row's form (`key`: the row; none for a
/// new row) would do: read by its column's parser (the one the merge
/// uses) and held to the column's rules and references (`app::browse::check_cell`);
/// 200, or 422 with why. The merge checks it again when it goes on.
pub async fn check_value(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<ValueQuery>,
) -> Answer {
    who.may(Role::Editor)?;
    console
        .blocking(move |console| {
            let (repo, _, line) = query.target.open(console)?;
            let typed = masterctl_app::browse::Typed {
                table: &query.table,
                column: &query.column,
                text: &query.value,
                row: query.key.as_deref().filter(|k| !k.is_empty()),
            };
            let checked = masterctl_app::browse::check_cell(&repo, &line, &typed, &console.grids)?;
            use masterctl_app::browse::Verdict;
            Ok(match checked {
                Verdict::Fine => (StatusCode::OK, String::new()).into_response(),
                Verdict::Noted(note) => {
                    (StatusCode::OK, crate::mistakes::note(note, who.lang)).into_response()
                }
                Verdict::Refused(why) => {
                    let said = match crate::mistakes::hint(&why, who.lang) {
                        Some(hint) => format!("{}: {hint}", crate::mistakes::what(&why, who.lang)),
                        None => crate::mistakes::what(&why, who.lang),
                    };
                    (StatusCode::UNPROCESSABLE_ENTITY, said).into_response()
                }
            })
        })
        .await
}
