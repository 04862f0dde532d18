//! Importing through the console: upload workbooks (kept per user), see every
//! diagnostic or the review of exactly what the import changes (the import's own dry
//! run, the diff `masterctl diff` shows), then import with a message. Nothing is
//! written before the planner confirms; a rejected or lost import keeps its upload.

use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::{Form, Multipart, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};
use masterctl_app::ErrorKind;
use masterctl_schemas::Diagnostic;
use masterctl_store::import::{self, ImportError, ImportOutcome, Request, Summary};
use masterctl_store::{Branch, MasterRepo, StoreError};
use serde::Deserialize;

use crate::Console;
use crate::access::Role;
use crate::failed::{Answer, ConsoleError};
use crate::i18n::Lang;
use crate::jobs::Polled;
use crate::sheets::Window;
use crate::shown::render;
use crate::target::{Target, urlencode};
use crate::uploads::{Staged, Uploads, WORKBOOKS_OR_ZIPS, keep_form, refused};
use crate::visitor::Visitor;
use crate::writing::Working;

/// The branch a request names, with its repository.
fn line(console: &Console, target: &Target) -> Result<(MasterRepo, Branch), ConsoleError> {
    target.open(console).map(|(repo, _, line)| (repo, line))
}

#[derive(Template)]
#[template(path = "import.html")]
struct ImportPage<'a> {
    who: &'a Visitor,
    line: &'a Branch,
    target: &'a Target,
    message: Option<&'a str>,
}

/// `GET /import?region=R[&branch=NAME]`: the upload form.
pub async fn form(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(target): Query<Target>,
) -> Answer {
    who.may(Role::Editor)?;
    console
        .blocking(move |console| {
            let (_, line) = line(console, &target)?;
            render(&ImportPage {
                who: &who,
                line: &line,
                target: &target,
                message: None,
            })
        })
        .await
}

/// `POST /upload` (multipart: `csrf`, `region`, `branch`, files): keep the files, then
/// show what importing them would do.
pub async fn upload(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    mut form: Multipart,
) -> Answer {
    let files = ("files", WORKBOOKS_OR_ZIPS);
    let unzip = |staged: &mut Staged| staged.unzip().map_err(|e| refused(&e));
    keep_form(&console, &mut form, files, &who, unzip, "/review").await
}

#[derive(Deserialize, Clone)]
pub struct ReviewQuery {
    upload: String,
    #[serde(flatten)]
    target: Target,
    /// `keep=branch`: where the upload's exported workbooks and the branch both changed
    /// a cell since the export, the branch's value (a colleague's) is kept and the rest
    /// imported.
    #[serde(default)]
    keep: Option<String>,
}

impl ReviewQuery {
    /// Whether the branch's values are kept over the workbooks' on cells both changed.
    fn keep_branch(&self) -> bool {
        self.keep.as_deref() == Some("branch")
    }

    /// `upload=…&region=…[&branch=…][&keep=branch]`.
    fn query(&self) -> String {
        let keep = if self.keep_branch() {
            "&keep=branch"
        } else {
            ""
        };
        format!("upload={}&{}{keep}", self.upload, self.target.query())
    }
}

/// A diagnostic as the review shows it: the file by its own name (never a path of the
/// server), where in it, and what.
struct Shown {
    file: String,
    /// The grid of the uploaded sheet at the diagnostic's row (none for a file the
    /// upload does not hold: a table kept from the branch).
    link: Option<String>,
    place: String,
    message: String,
    found: Option<String>,
    expected: Option<String>,
    hint: Option<String>,
    error: bool,
}

impl Shown {
    /// `d` as shown in the review of the upload `base` (`upload=…&region=…`) holding
    /// `files`.
    fn of(d: &Diagnostic, base: &str, files: &[String], lang: Lang) -> Shown {
        let l = &d.location;
        let file = crate::shown::file_name(l);
        let row = match (&l.cell, l.line) {
            (Some(cell), _) => {
                masterctl_schemas::diagnostic::parse_a1(cell).map(|(r, _)| u64::from(r) + 1)
            }
            (None, line) => line,
        };
        let link = files.contains(&file).then(|| {
            let mut link = sheet_address(base, &file, l.sheet.as_deref());
            if let Some(row) = row {
                link.push_str(&format!("&at={row}#r{row}"));
            }
            link
        });
        let mut place = Vec::new();
        if let Some(sheet) = &l.sheet {
            place.push(format!("{sheet}!{}", l.cell.as_deref().unwrap_or("")));
        } else if let Some(line) = l.line {
            place.push(lang.say("place-line", &[("line", &line.to_string())]));
        }
        if let (Some(table), Some(field)) = (&l.table, &l.field) {
            place.push(format!("{table}.{field}"));
        }
        if let Some(key) = &l.key {
            place.push(lang.say("place-key", &[("key", key)]));
        }
        Shown {
            file,
            link,
            place: place.join(" "),
            message: crate::mistakes::what(d, lang),
            found: d.found.clone(),
            // What would do, as the library says it: shown in English only.
            expected: d.expected.clone().filter(|_| lang == Lang::En),
            hint: crate::mistakes::hint(d, lang),
            error: d.severity == masterctl_schemas::diagnostic::Severity::Error,
        }
    }
}

#[derive(Template)]
#[template(path = "review.html")]
struct ReviewPage<'a> {
    who: &'a Visitor,
    line: &'a Branch,
    upload: &'a str,
    files: &'a [String],
    query: String,
    /// Every diagnostic (the rejected case), or the warnings met.
    diagnostics: Vec<Shown>,
    rejected: bool,
    summary: Option<&'a Summary>,
    unchanged: bool,
    /// Cells both changed since an export refuse the upload: offer to keep the branch's.
    keepable: bool,
    /// The branch's values are kept on such cells.
    keeping: bool,
}

/// The upload a request names, of the signed-in user: the repository, the branch and
/// the upload's folder.
fn upload_of(
    console: &Console,
    who: &Visitor,
    query: &ReviewQuery,
) -> Result<(masterctl_store::MasterRepo, Branch, std::path::PathBuf), ConsoleError> {
    let (repo, line) = line(console, &query.target)?;
    let folder = Uploads::new(repo.git.path())
        .folder(&who.identity.name, &query.upload)
        .map_err(|e| crate::uploads::refused(&e))?;
    Ok((repo, line, folder))
}

/// How far an import of an upload goes.
#[derive(Clone, Copy)]
enum Mode<'m> {
    /// A dry run that counts: every diagnostic, what changes per table.
    Count,
    /// A dry run with the cell-by-cell review.
    Review,
    /// The import itself, with the planner's message.
    Commit(Option<&'m str>),
}

/// What importing the upload would do, computed by the import itself (at once: the
/// pages that show a part of an upload's review).
fn dry_run(
    console: &Console,
    who: &Visitor,
    query: &ReviewQuery,
    mode: Mode<'_>,
) -> Result<
    (
        masterctl_store::MasterRepo,
        Branch,
        std::path::PathBuf,
        ImportOutcome,
    ),
    ConsoleError,
> {
    let (repo, line, folder) = upload_of(console, who, query)?;
    let outcome = import_run(&repo, &line, &folder, mode, query.keep_branch())?;
    Ok((repo, line, folder, outcome))
}

fn import_run(
    repo: &masterctl_store::MasterRepo,
    line: &Branch,
    folder: &std::path::Path,
    mode: Mode<'_>,
    keep_branch: bool,
) -> Result<ImportOutcome, ConsoleError> {
    import_with_progress(repo, line, folder, mode, keep_branch, &|_, _| {})
}

fn import_with_progress(
    repo: &masterctl_store::MasterRepo,
    line: &Branch,
    folder: &std::path::Path,
    mode: Mode<'_>,
    keep_branch: bool,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<ImportOutcome, ConsoleError> {
    let paths = [folder.to_path_buf()];
    import::run(
        repo,
        &Request {
            region: line.name(),
            branch: line.work().map(|w| w.name()),
            paths: &paths,
            structure: None,
            message: match mode {
                Mode::Commit(message) => message,
                _ => None,
            },
            dry_run: !matches!(mode, Mode::Commit(_)),
            review: matches!(mode, Mode::Review).then(Default::default),
            allow_removal: false,
            revert_upstream: false,
            keep_branch,
            progress,
        },
    )
    .map_err(import_error)
}

/// A refused import as the planner sees it: what it would remove or take back, a race
/// lost, an upload with nothing to import — their upload kept.
fn import_error(error: ImportError) -> ConsoleError {
    match &error {
        ImportError::Removes { .. }
        | ImportError::Reverts { .. }
        | ImportError::Store(StoreError::Git(masterctl_store::git::Error::Raced { .. }))
        | ImportError::NoSources => {
            ConsoleError::with(&error, "; your upload is kept: review it again")
        }
        _ => error.into(),
    }
}

/// `GET /review?upload=ID&region=R[&branch=NAME]`: every diagnostic, or the change.
pub async fn review(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<ReviewQuery>,
) -> Answer {
    who.may(Role::Editor)?;
    let (line, folder) = console
        .blocking({
            let (who, query) = (who.clone(), query.clone());
            move |console| {
                let (_, line, folder) = upload_of(console, &who, &query)?;
                Ok((line, folder))
            }
        })
        .await?;
    // The import's own dry run, on a thread of its own: a large upload shows how far
    // its reading got until it is done.
    let key = format!("{}\n{}", who.identity.name, query.query());
    let work = {
        let (root, line, folder) = (console.repo.clone(), line.clone(), folder.clone());
        let keep = query.keep_branch();
        move |progress: &crate::jobs::Progress| {
            let repo = masterctl_store::MasterRepo::open(&root)?;
            import_with_progress(&repo, &line, &folder, Mode::Count, keep, &|done, total| {
                progress.set(done, total)
            })
        }
    };
    let outcome = match console.reviews.run(&key, console.patience, work).await {
        Polled::Done(outcome) => outcome?,
        Polled::Running { done, total } => {
            return render(&Working {
                who: &who,
                title: "checking-upload",
                doing: "reading-every-sheet",
                done,
                total,
            });
        }
        Polled::Gone => {
            return Ok(Redirect::to(&format!("/review?{}", query.query())).into_response());
        }
    };
    console
        .blocking(move |_| review_page(&who, &query, &line, &folder, &outcome))
        .await
}

/// The review of an upload, once its dry run is done: the diagnostics, or the change.
fn review_page(
    who: &Visitor,
    query: &ReviewQuery,
    line: &Branch,
    folder: &std::path::Path,
    outcome: &ImportOutcome,
) -> Answer {
    let files = Uploads::files(folder);
    let q = query.query();
    // Cells the exported workbooks and the branch both changed: the planner may keep the
    // branch's values and import the rest.
    let keepable = !query.keep_branch()
        && matches!(outcome, ImportOutcome::Rejected(report) if report.diagnostics.iter().any(|d| {
            d.is_error() && d.code == masterctl_schemas::diagnostic::Code::ExportConflict
        }));
    let page = match outcome {
        ImportOutcome::Rejected(report) => ReviewPage {
            who,
            line,
            upload: &query.upload,
            files: &files,
            query: q.clone(),
            diagnostics: (report.diagnostics.iter())
                .map(|d| Shown::of(d, &q, &files, who.lang))
                .collect(),
            rejected: true,
            summary: None,
            unchanged: false,
            keepable,
            keeping: query.keep_branch(),
        },
        ImportOutcome::DryRun {
            summary, unchanged, ..
        } => ReviewPage {
            who,
            line,
            upload: &query.upload,
            files: &files,
            query: q.clone(),
            diagnostics: (summary.report.diagnostics.iter())
                .map(|d| Shown::of(d, &q, &files, who.lang))
                .collect(),
            rejected: false,
            summary: Some(summary),
            unchanged: *unchanged,
            keepable,
            keeping: query.keep_branch(),
        },
        _ => return Err(ConsoleError::internal("a dry run committed")),
    };
    let status = if page.rejected {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    Ok((status, render(&page)?).into_response())
}

/// `GET /review/diff?upload=ID&region=R`: the change, cell by cell, as `diff` shows it.
pub async fn review_diff(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<ReviewQuery>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Answer {
    who.may(Role::Editor)?;
    let paging = crate::reviewing::Paging::of("/review/diff", pairs)?;
    console
        .blocking(
            move |console| match dry_run(console, &who, &query, Mode::Review)? {
                (
                    _,
                    line,
                    _,
                    ImportOutcome::DryRun {
                        review: Some(review),
                        ..
                    },
                ) => Ok(crate::guard::review_page(paging.page(
                    &format!("Importing into {}", line.branch()),
                    &review.from.label,
                    &review.to.label,
                    &review.diff,
                ))),
                _ => Err(ConsoleError::saying(
                    ErrorKind::Invalid,
                    "upload-not-valid",
                    &[],
                )),
            },
        )
        .await
}

#[derive(Deserialize)]
pub struct ImportForm {
    #[serde(default)]
    csrf: Option<String>,
    upload: String,
    #[serde(flatten)]
    target: Target,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    keep: Option<String>,
}

/// `POST /import`: import the reviewed upload, as the signed-in user.
pub async fn commit(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(form): Form<ImportForm>,
) -> Answer {
    who.may_post(Role::Editor, form.csrf.as_deref())?;
    let (line, folder) = console
        .blocking({
            let (who, target, upload) = (who.clone(), form.target.clone(), form.upload.clone());
            move |console| {
                let (repo, line) = line(console, &target)?;
                let folder = Uploads::new(repo.git.path())
                    .folder(&who.identity.name, &upload)
                    .map_err(|e| crate::uploads::refused(&e))?;
                Ok((line, folder))
            }
        })
        .await?;
    let message = crate::forms::typed(form.message.as_deref()).map(str::to_string);
    let history = format!("/history?{}", form.target.query());
    let keep = form.keep.as_deref() == Some("branch");
    let review = format!(
        "/review?upload={}&{}{}",
        form.upload,
        form.target.query(),
        if keep { "&keep=branch" } else { "" }
    );
    let author = who.clone();
    console
        .in_background(&who, move |console| {
            let repo = author.writing(console.open()?)?;
            let outcome = console.write_line(
                &repo,
                &line,
                |repo| import_run(repo, &line, &folder, Mode::Commit(message.as_deref()), keep),
                |outcome| matches!(outcome, ImportOutcome::Committed { .. }),
            )?;
            console.tell(
                &repo,
                masterctl_app::notify::of::import(
                    &outcome,
                    line.name(),
                    line.branch(),
                    &author.signature(),
                ),
            );
            match outcome {
                ImportOutcome::Committed { .. } => Ok(format!("{history}&done=imported")),
                ImportOutcome::Unchanged(_) => Ok(format!("{history}&done=unchanged")),
                ImportOutcome::Rejected(_) => Ok(review),
                ImportOutcome::DryRun { .. } => {
                    Err(ConsoleError::internal("an import only reviewed"))
                }
            }
        })
        .await
}

#[derive(Deserialize)]
pub struct SheetQuery {
    upload: String,
    #[serde(flatten)]
    target: Target,
    file: String,
    #[serde(default)]
    sheet: Option<String>,
    /// The row to show (a diagnostic's: the sheet's row number, or the CSV line).
    #[serde(default)]
    at: Option<u64>,
    /// The window's first row, counted from the sheet's first.
    #[serde(default)]
    from: Option<usize>,
    /// As the review's (`keep=branch`).
    #[serde(default)]
    keep: Option<String>,
}

#[derive(Template)]
#[template(path = "sheet.html")]
struct SheetPage<'a> {
    who: &'a Visitor,
    file: &'a str,
    sheet: Option<&'a str>,
    shown: &'a crate::sheets::ShownSheet,
    back: String,
    /// This sheet's address without its window (`/review/sheet?…`).
    here: String,
}

/// `GET /review/sheet?upload=ID&region=R&file=NAME[&sheet=S]`: an uploaded sheet as a
/// grid, the cells the review's diagnostics name highlighted with their messages. The
/// file is one of the upload's by its exact name (never a path).
pub async fn sheet(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<SheetQuery>,
) -> Answer {
    who.may(Role::Editor)?;
    console
        .blocking(move |console| sheet_page(console, &who, &query))
        .await
}

/// The sheet's grid, its cells named by the upload's dry run.
fn sheet_page(console: &Console, who: &Visitor, query: &SheetQuery) -> Answer {
    let review = ReviewQuery {
        upload: query.upload.clone(),
        target: Target {
            region: query.target.region.clone(),
            branch: query.target.branch.clone(),
        },
        keep: query.keep.clone(),
    };
    let (_, _, folder, outcome) = dry_run(console, who, &review, Mode::Count)?;
    let Some(name) = Uploads::files(&folder)
        .into_iter()
        .find(|f| *f == query.file)
    else {
        return Err(ConsoleError::saying(
            ErrorKind::NotFound,
            "no-such-file-in-upload",
            &[],
        ));
    };
    let path = folder.join(&name);
    let diagnostics: Vec<Diagnostic> = match &outcome {
        ImportOutcome::Rejected(report) => report.diagnostics.clone(),
        ImportOutcome::DryRun { summary, .. } => summary.report.diagnostics.clone(),
        _ => Vec::new(),
    }
    .into_iter()
    .filter(|d| d.location.file.as_deref() == Some(path.as_path()))
    .filter(|d| query.sheet.is_none() || d.location.sheet == query.sheet)
    // Each marked cell says its mistake in the visitor's words.
    .map(|mut d| {
        d.message = crate::mistakes::what(&d, who.lang);
        d
    })
    .collect();
    let sheet = query.sheet.as_deref();
    let window = match (query.at, query.from) {
        (Some(at), _) => Window::At(at),
        (None, from) => Window::From(from.unwrap_or(0)),
    };
    let shown = crate::sheets::sheet(&path, sheet, &diagnostics, window)
        .map_err(|why| ConsoleError::of(ErrorKind::Invalid, why))?;
    let base = format!("upload={}&{}", query.upload, query.target.query());
    render(&SheetPage {
        who,
        file: &name,
        sheet,
        shown: &shown,
        here: sheet_address(&base, &name, sheet),
        back: format!("/review?{base}"),
    })
}

/// The address of an uploaded file's sheet grid, without its window.
fn sheet_address(base: &str, file: &str, sheet: Option<&str>) -> String {
    let mut address = format!("/review/sheet?{base}&file={}", urlencode(file));
    if let Some(sheet) = sheet {
        address.push_str(&format!("&sheet={}", urlencode(sheet)));
    }
    address
}
