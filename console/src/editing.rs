//! Editing in the browser: a row's form (inputs that fit each field's type, every
//! value checked as it is typed), edits gathered into the planner's draft of the
//! branch, the draft reviewed as a diff and committed with a message as the signed-in
//! user — the store's `edit::run`, an import's guarded, validated path. A cell a
//! colleague changed meanwhile is named with who changed it; the draft is kept, and
//! the planner keeps their value over the colleague's or lets it go. Who else is
//! editing a table is shown on it.

use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::{Form, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};
use masterctl_app::browse::{self, Input, RowForm};
use masterctl_app::drafts::{Draft, Editor};
use masterctl_store::Branch;
use masterctl_store::edit::{self, Edit, EditOutcome, Refusal, Request, Why};
use masterctl_store::review::diff::{DiffOptions, TableDiff};
use serde::Deserialize;

use crate::Console;
use crate::access::Role;
use crate::failed::{Answer, ConsoleError};
use crate::shown::render;
use crate::target::{Target, urlencode};
use crate::visitor::Visitor;

impl Visitor {
    /// The name a draft is kept under.
    fn drafter(&self) -> &str {
        &self.identity.name
    }
}

/// What a table's page shows of the drafts: the visitor's edits waiting on the branch,
/// their values of this table's cells, and the others editing the table.
pub(crate) struct TableDrafts {
    pub may_edit: bool,
    pub waiting: usize,
    /// (key, field, value) of the visitor's cell edits of the table.
    pub pending: Vec<(String, String, String)>,
    pub editors: Vec<Editor>,
}

impl TableDrafts {
    pub(crate) fn of(console: &Console, who: &Visitor, branch: &str, table: &str) -> TableDrafts {
        let draft = console.drafts.get(branch, who.drafter());
        let pending = (draft.edits.iter())
            .filter_map(|e| match e {
                Edit::Set {
                    table: t,
                    key,
                    field,
                    value,
                    ..
                } if t == table => Some((key.clone(), field.clone(), value.clone())),
                _ => None,
            })
            .collect();
        TableDrafts {
            may_edit: who.identity.role >= Role::Editor,
            waiting: draft.edits.len(),
            pending,
            editors: console.drafts.editing(branch, table, who.drafter()),
        }
    }

    /// The visitor's value of a cell, when they edited it.
    pub(crate) fn value_of(&self, key: &str, field: &str) -> Option<&str> {
        (self.pending.iter())
            .find(|(k, f, _)| k == key && f == field)
            .map(|(_, _, v)| v.as_str())
    }
}

#[derive(Deserialize)]
pub struct RowQuery {
    #[serde(flatten)]
    target: Target,
    table: String,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    copy: Option<String>,
}

#[derive(Template)]
#[template(path = "row.html")]
struct RowPage<'a> {
    who: &'a Visitor,
    line: &'a Branch,
    form: &'a RowForm,
    /// `region=…[&branch=…]`.
    target: String,
    /// The row copied into this new one.
    copied: Option<&'a str>,
    /// Which fields hold a value of the draft's, not the branch's.
    pending: Vec<bool>,
    editors: Vec<Editor>,
}

impl RowPage<'_> {
    fn input_id(&self, at: &usize) -> String {
        format!("v-{at}")
    }

    fn check(&self, field: &str) -> String {
        let row = (self.form.key.as_deref())
            .map_or_else(String::new, |k| format!("&key={}", urlencode(k)));
        format!(
            "/check-value?{}&table={}&column={}{row}",
            self.target,
            urlencode(&self.form.table),
            urlencode(field)
        )
    }
}

/// `GET /row?region=R[&branch=NAME]&table=T[&key=K[&copy=1]]`: a row's form (no key:
/// a new row; `copy`: a new row holding `key`'s cells).
pub async fn form(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<RowQuery>,
) -> Answer {
    who.may(Role::Editor)?;
    console
        .blocking(move |console| {
            let (repo, _, line) = query.target.open(console)?;
            let key = query.key.as_deref().filter(|k| !k.is_empty());
            let copy = query.copy.as_deref() == Some("1");
            let mut form = browse::row_form(&repo, &line, &query.table, key, copy, &console.grids)?;
            let draft = console.drafts.get(line.branch(), who.drafter());
            let pending = pending_values(&draft, &mut form);
            render(&RowPage {
                who: &who,
                line: &line,
                form: &form,
                target: query.target.query(),
                copied: key.filter(|_| copy),
                pending,
                editors: console
                    .drafts
                    .editing(line.branch(), &query.table, who.drafter()),
            })
        })
        .await
}

/// Show the draft's values in the row's form; which fields hold one.
fn pending_values(draft: &Draft, form: &mut RowForm) -> Vec<bool> {
    let mut pending = vec![false; form.fields.len()];
    let Some(key) = form.key.clone() else {
        return pending;
    };
    for edit in &draft.edits {
        if let Edit::Set {
            table,
            key: k,
            field,
            value,
            ..
        } = edit
            && *table == form.table
            && *k == key
            && let Some(at) = form.fields.iter().position(|f| f.column.name == *field)
        {
            form.fields[at].value.clone_from(value);
            pending[at] = true;
        }
    }
    pending
}

/// The fields of a row's form: `v.FIELD` (the value) and `was.FIELD` (the cell as
/// shown), and the rest by name.
struct RowFields {
    named: Vec<(String, String)>,
    values: Vec<(String, String)>,
    was: Vec<(String, String)>,
}

impl RowFields {
    fn of(pairs: Vec<(String, String)>) -> RowFields {
        let mut fields = RowFields {
            named: Vec::new(),
            values: Vec::new(),
            was: Vec::new(),
        };
        for (name, value) in pairs {
            if let Some(field) = name.strip_prefix("v.") {
                fields.values.push((field.to_string(), value));
            } else if let Some(field) = name.strip_prefix("was.") {
                fields.was.push((field.to_string(), value));
            } else {
                fields.named.push((name, value));
            }
        }
        fields
    }

    fn get(&self, name: &str) -> Option<&str> {
        (self.named.iter())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }
}

/// `POST /row`: the row's changed fields (or its deletion: `action=delete`) into the
/// planner's draft; back to the table at the row.
pub async fn save(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Answer {
    let fields = RowFields::of(pairs);
    who.may_post(Role::Editor, fields.get("csrf"))?;
    let (Some(region), Some(table)) = (fields.get("region"), fields.get("table")) else {
        return Err(ConsoleError::refusing("row-form-names-table", &[]));
    };
    let target = Target {
        region: region.to_string(),
        branch: fields.get("branch").map(str::to_string),
    };
    let table = table.to_string();
    console
        .blocking(move |console| {
            let (repo, _, line) = target.open(console)?;
            let key = fields.get("key");
            let edits = match (fields.get("action"), key) {
                (Some("delete"), Some(key)) => vec![Edit::Delete {
                    table: table.clone(),
                    key: key.to_string(),
                    was: fields.was.clone(),
                }],
                (Some("delete"), None) => {
                    return Err(ConsoleError::refusing("delete-names-key", &[]));
                }
                _ => browse::row_edits(&repo, &line, &table, key, &fields.was, &fields.values)?,
            };
            let back = format!(
                "/table?{}&table={}{}",
                target.query(),
                urlencode(&table),
                key.map_or_else(String::new, |k| format!("&key={}#row", urlencode(k)))
            );
            console.drafts.add(line.branch(), who.drafter(), edits);
            Ok(Redirect::to(&back).into_response())
        })
        .await
}

#[derive(Template)]
#[template(path = "edits.html")]
struct EditsPage<'a> {
    who: &'a Visitor,
    line: &'a Branch,
    target: String,
    draft: &'a Draft,
    shown: Shown<'a>,
}

enum Shown<'a> {
    Empty,
    Review(&'a [TableDiff]),
    Refused(&'a [Refusal]),
    Rejected(&'a [masterctl_schemas::Diagnostic]),
    Unchanged,
}

impl EditsPage<'_> {
    /// The refusal of edit `at`, in words.
    fn refusal_of(&self, at: &usize) -> Option<String> {
        match &self.shown {
            Shown::Refused(refusals) => (refusals.iter())
                .find(|r| r.edit == *at)
                .map(|r| crate::mistakes::refusal(r, self.who.lang)),
            _ => None,
        }
    }

    /// What the cell holds now, when a colleague changed it since edit `at` was made.
    fn changed_to(&self, at: &usize) -> Option<&str> {
        match &self.shown {
            Shown::Refused(refusals) => refusals.iter().find_map(|r| match &r.why {
                Why::Changed { now: Some(now) } if r.edit == *at => Some(now.as_str()),
                _ => None,
            }),
            _ => None,
        }
    }

    fn row_link(&self, table: &str, key: &str) -> String {
        format!(
            "/table?{}&table={}&key={}#row",
            self.target,
            urlencode(table),
            urlencode(key)
        )
    }
}

/// The draft of the visitor on the target's branch, reviewed as a dry run.
fn reviewed(
    console: &Console,
    who: &Visitor,
    target: &Target,
) -> Result<(Branch, Draft, Option<EditOutcome>), ConsoleError> {
    let (repo, structure, line) = target.open(console)?;
    let draft = console.drafts.get(line.branch(), who.drafter());
    if draft.edits.is_empty() {
        return Ok((line, draft, None));
    }
    let mut outcome = edit::run(
        &repo,
        &Request {
            line: &line,
            edits: &draft.edits,
            message: None,
            dry_run: true,
            review: DiffOptions::default(),
        },
    )?;
    // When a colleague changed a cell, in the project's zone.
    if let EditOutcome::Refused(refusals) = &mut outcome {
        let zone = &structure.project.config.timezone;
        for by in refusals.iter_mut().filter_map(|r| r.by.as_mut()) {
            by.time = crate::shown::local(&by.time, zone);
        }
    }
    Ok((line, draft, Some(outcome)))
}

/// `GET /edits?region=R[&branch=NAME]`: the planner's draft of the branch — each edit,
/// what it changes, what stops it — and the form that commits it.
pub async fn page(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(target): Query<Target>,
) -> Answer {
    who.may(Role::Editor)?;
    console
        .blocking(move |console| {
            let (line, draft, outcome) = reviewed(console, &who, &target)?;
            let (shown, refused) = match &outcome {
                None => (Shown::Empty, false),
                Some(EditOutcome::Reviewed { review, .. }) => {
                    (Shown::Review(&review.diff.tables), false)
                }
                Some(EditOutcome::Refused(refusals)) => (Shown::Refused(refusals), true),
                Some(EditOutcome::Rejected(report)) => (Shown::Rejected(&report.diagnostics), true),
                Some(EditOutcome::Unchanged) => (Shown::Unchanged, false),
                Some(EditOutcome::Committed { .. }) => {
                    return Err(ConsoleError::internal("a review committed"));
                }
            };
            let page = render(&EditsPage {
                who: &who,
                line: &line,
                target: target.query(),
                draft: &draft,
                shown,
            })?;
            let status = match refused {
                true => StatusCode::UNPROCESSABLE_ENTITY,
                false => StatusCode::OK,
            };
            Ok((status, page).into_response())
        })
        .await
}

/// `GET /edits/diff?region=R[&branch=NAME]`: every change the draft makes, cell by cell.
pub async fn diff(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(target): Query<Target>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Answer {
    who.may(Role::Editor)?;
    let paging = crate::reviewing::Paging::of("/edits/diff", pairs)?;
    console
        .blocking(move |console| match reviewed(console, &who, &target)? {
            (line, _, Some(EditOutcome::Reviewed { review, .. })) => {
                Ok(crate::guard::review_page(paging.page(
                    &format!("Edits of {}", line.branch()),
                    &review.from.label,
                    &review.to.label,
                    &review.diff,
                )))
            }
            _ => Err(ConsoleError::saying(
                masterctl_app::ErrorKind::Invalid,
                "edits-cannot-be-made",
                &[],
            )),
        })
        .await
}

#[derive(Deserialize)]
pub struct EditsForm {
    #[serde(default)]
    csrf: Option<String>,
    #[serde(flatten)]
    target: Target,
    action: String,
    #[serde(default)]
    at: Option<usize>,
    #[serde(default)]
    now: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

/// `POST /edits`: `action=remove|keep` an edit (`at`; `keep` makes it over the
/// colleague's `now`), `clear` the draft, or `commit` it with `message`.
pub async fn act(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(form): Form<EditsForm>,
) -> Answer {
    who.may_post(Role::Editor, form.csrf.as_deref())?;
    let draft_page = format!("/edits?{}", form.target.query());
    if form.action == "commit" {
        return commit(console, who, form).await;
    }
    console
        .blocking(move |console| {
            let (_, _, line) = form.target.open(console)?;
            let (branch, drafter) = (line.branch(), who.drafter());
            let done = match (form.action.as_str(), form.at, &form.now) {
                ("remove", Some(at), _) => console.drafts.remove(branch, drafter, at),
                ("keep", Some(at), Some(now)) => console.drafts.keep_over(branch, drafter, at, now),
                ("clear", _, _) => {
                    console.drafts.clear(branch, drafter);
                    true
                }
                // `remove` and `keep` name the edit (`at`), `keep` its value now.
                _ => {
                    return Err(ConsoleError::not_one_of(
                        "action",
                        &form.action,
                        &["remove", "keep", "clear", "commit"],
                    ));
                }
            };
            if !done {
                return Err(ConsoleError::saying(
                    masterctl_app::ErrorKind::NotFound,
                    "no-such-edit",
                    &[],
                ));
            }
            Ok(Redirect::to(&draft_page).into_response())
        })
        .await
}

/// Commit the draft as the signed-in user: to the history when done; back to the
/// draft (kept, with its message) when a cell changed meanwhile or a value is refused.
async fn commit(console: Arc<Console>, who: Visitor, form: EditsForm) -> Answer {
    let message = crate::forms::typed(form.message.as_deref()).map(str::to_string);
    let history = format!("/history?{}&done=edited", form.target.query());
    let draft_page = format!("/edits?{}", form.target.query());
    let author = who.clone();
    console
        .in_background(&who, move |console| {
            let (repo, _, line) = form.target.open(console)?;
            let drafter = author.drafter();
            console
                .drafts
                .set_message(line.branch(), drafter, message.as_deref().unwrap_or(""));
            let draft = console.drafts.get(line.branch(), drafter);
            let repo = author.writing(repo)?;
            let outcome = console.write_line(
                &repo,
                &line,
                |repo| {
                    edit::run(
                        repo,
                        &Request {
                            line: &line,
                            edits: &draft.edits,
                            message: message.as_deref(),
                            dry_run: false,
                            review: DiffOptions::default(),
                        },
                    )
                    .map_err(ConsoleError::from)
                },
                |outcome| matches!(outcome, EditOutcome::Committed { .. }),
            )?;
            let by = author.signature();
            let notice = masterctl_app::notify::of::edit(&outcome, line.name(), line.branch(), &by);
            console.tell(&repo, notice);
            match outcome {
                EditOutcome::Committed { .. } | EditOutcome::Unchanged => {
                    console
                        .drafts
                        .committed(line.branch(), drafter, &draft.edits);
                    Ok(history)
                }
                _ => Ok(draft_page),
            }
        })
        .await
}
