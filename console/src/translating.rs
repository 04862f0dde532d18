//! Translations in the console: each language's state per table (translated, missing,
//! stale, failing), the exchange file of what needs work to download (XLIFF, PO or
//! CSV), and a translated file taken back — checked first (every check failure with its
//! unit and source text), committed once the translator confirms, as them.

use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::{Form, Multipart, Query, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use masterctl_app::ErrorKind;
use masterctl_locales::exchange::Format;
use masterctl_store::l10n::import::{self as taking, Taken, TakenState, TranslationOutcome};
use masterctl_store::l10n::{self, LanguageStatus, RegionTexts};
use masterctl_store::{Branch, MasterRepo};
use serde::Deserialize;

use crate::Console;
use crate::access::Role;
use crate::failed::{Answer, ConsoleError};
use crate::shown::render;
use crate::target::Target;
use crate::uploads::{EXCHANGE, Staged, Uploads, keep_form};
use crate::visitor::Visitor;

/// The repository, the branch named and its texts.
fn open(
    console: &Console,
    target: &Target,
) -> Result<(MasterRepo, Branch, RegionTexts), ConsoleError> {
    let (repo, _, line) = target.open(console)?;
    let texts = l10n::open_region(&repo, &line)?;
    Ok((repo, line, texts))
}

#[derive(Template)]
#[template(path = "translations.html")]
struct TranslationsPage<'a> {
    who: &'a Visitor,
    line: &'a Branch,
    languages: &'a [LanguageStatus],
}

/// `GET /translations?region=R[&branch=NAME]`: every language's state, per table.
pub async fn page(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(target): Query<Target>,
) -> Answer {
    console
        .blocking(move |console| {
            let (repo, _, line) = target.open(console)?;
            let languages = console.translation_states(&repo, &line)?;
            render(&TranslationsPage {
                who: &who,
                line: &line,
                languages: &languages,
            })
        })
        .await
}

#[derive(Deserialize)]
pub struct FileQuery {
    #[serde(flatten)]
    target: Target,
    lang: String,
    format: String,
    #[serde(default)]
    all: bool,
}

/// `GET /translations/file?region=R&lang=L&format=xliff|po|csv`: the exchange file.
pub async fn file(State(console): State<Arc<Console>>, Query(query): Query<FileQuery>) -> Answer {
    let Some(format) = Format::parse(&query.format) else {
        return Err(ConsoleError::saying(ErrorKind::Usage, "format-is", &[]));
    };
    console
        .blocking(move |console| {
            let (repo, _, line) = query.target.open(console)?;
            let (_, export) =
                masterctl_app::l10n::export(&repo, &line, &query.lang, format, query.all)?;
            let extension = match format {
                Format::Xliff => "xlf",
                Format::Po => "po",
                Format::Csv => "csv",
            };
            // The name is made of checked names only.
            let name = format!("{}-{}.{extension}", line.name(), query.lang);
            Ok((
                [
                    (header::CONTENT_TYPE, "application/octet-stream".to_string()),
                    (
                        header::CONTENT_DISPOSITION,
                        format!("attachment; filename=\"{name}\""),
                    ),
                ],
                export.bytes,
            )
                .into_response())
        })
        .await
}

#[derive(Template)]
#[template(path = "taken.html")]
struct TakenPage<'a> {
    who: &'a Visitor,
    line: &'a Branch,
    upload: &'a str,
    /// Why the file cannot be taken: each check failure, its unit and source text.
    rejected: Vec<Failing>,
    taken: Option<&'a Taken>,
}

/// `POST /translations` (multipart: `csrf`, `region`, `branch`, `file`): keep the file,
/// check it, show what taking it would do.
pub async fn upload(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    mut form: Multipart,
) -> Answer {
    let one = |staged: &mut Staged| match staged.len() {
        1 => Ok(()),
        _ => Err(ConsoleError::saying(
            ErrorKind::Usage,
            "one-file-at-a-time",
            &[],
        )),
    };
    let files = ("file", EXCHANGE);
    keep_form(&console, &mut form, files, &who, one, "/translations/check").await
}

#[derive(Deserialize)]
pub struct CheckQuery {
    upload: String,
    #[serde(flatten)]
    target: Target,
}

/// Take the kept exchange file `upload` into the target (or only check it).
fn take(
    console: &Console,
    who: &Visitor,
    upload: &str,
    target: &Target,
    dry_run: bool,
) -> Result<(Branch, TranslationOutcome), ConsoleError> {
    let (repo, line, _) = open(console, target)?;
    let uploads = Uploads::new(repo.git.path());
    let folder = uploads
        .folder(&who.identity.name, upload)
        .map_err(|e| crate::uploads::refused(&e))?;
    let Some(name) = Uploads::files(&folder).into_iter().next() else {
        return Err(ConsoleError::saying(
            ErrorKind::NotFound,
            "upload-holds-no-file",
            &[],
        ));
    };
    let repo = who.writing(repo)?;
    // Only a take that commits has the remote around it.
    let remote = console.around().filter(|_| !dry_run);
    let around = masterctl_app::sync::around(
        &repo,
        remote.as_ref(),
        std::slice::from_ref(&line),
        &line,
        |repo| {
            taking::run(
                repo,
                &taking::Request {
                    region: line.name(),
                    branch: line.work().map(|w| w.name()),
                    file: &folder.join(name),
                    language: None,
                    message: None,
                    dry_run,
                },
            )
            .map_err(ConsoleError::from)
        },
        |outcome| {
            matches!(
                outcome,
                TranslationOutcome::Taken(Taken {
                    state: TakenState::Committed { .. },
                    ..
                })
            )
        },
    )?;
    let outcome = console.landed(around, &line)?;
    let by = who.signature();
    console.tell(
        &repo,
        masterctl_app::notify::of::translations(&outcome, &by),
    );
    Ok((line, outcome))
}

/// `GET /translations/check?upload=ID&region=R`: what taking the file would do.
pub async fn check(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<CheckQuery>,
) -> Answer {
    who.may(Role::Editor)?;
    console
        .blocking(move |console| check_page(console, &who, &query))
        .await
}

/// What taking the file would do, as its page.
fn check_page(console: &Console, who: &Visitor, query: &CheckQuery) -> Answer {
    let (line, outcome) = take(console, who, &query.upload, &query.target, true)?;
    let (rejected, taken) = match &outcome {
        TranslationOutcome::Rejected(report) => {
            let failing = report.diagnostics.iter();
            (failing.map(|d| Failing::of(d, who.lang)).collect(), None)
        }
        TranslationOutcome::Taken(taken) => (Vec::new(), Some(taken)),
    };
    let status = match taken {
        None => StatusCode::UNPROCESSABLE_ENTITY,
        Some(_) => StatusCode::OK,
    };
    let page = TakenPage {
        who,
        line: &line,
        upload: &query.upload,
        rejected,
        taken,
    };
    Ok((status, render(&page)?).into_response())
}

/// A check failure as the page shows it: where in the file (by its own name only), the
/// unit (table, field, key), what is wrong, the translation given and the source text.
pub struct Failing {
    place: String,
    unit: String,
    check: String,
    message: String,
    translation: String,
    /// What was expected: a translation of the source text (quoted), or a limit.
    expected: String,
    /// The source text where `expected` does not quote it.
    hint: String,
}

impl Failing {
    fn of(d: &masterctl_schemas::Diagnostic, lang: crate::i18n::Lang) -> Failing {
        let l = &d.location;
        let file = crate::shown::file_name(l);
        let place = match l.line {
            Some(line) => format!("{file}:{line}"),
            None => file,
        };
        let unit = match (&l.table, &l.field, &l.key) {
            (Some(table), Some(field), Some(key)) => format!("{table}.{field} {key}"),
            (Some(table), Some(field), None) => format!("{table}.{field}"),
            (Some(table), None, _) => table.clone(),
            _ => String::new(),
        };
        Failing {
            place,
            unit,
            check: d.code.to_string(),
            message: crate::mistakes::what(d, lang),
            translation: d.found.clone().unwrap_or_default(),
            expected: crate::mistakes::expected(d, lang),
            hint: crate::mistakes::hint(d, lang).unwrap_or_default(),
        }
    }
}

#[derive(Deserialize)]
pub struct TakeForm {
    #[serde(default)]
    csrf: Option<String>,
    upload: String,
    #[serde(flatten)]
    target: Target,
}

/// `POST /translations/take`: take the checked file, as the signed-in user.
pub async fn commit(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Form(form): Form<TakeForm>,
) -> Answer {
    who.may_post(Role::Editor, form.csrf.as_deref())?;
    let translations = format!("/translations?{}", form.target.query());
    let author = who.clone();
    console
        .in_background(&who, move |console| {
            match take(console, &author, &form.upload, &form.target, false)? {
                (_, TranslationOutcome::Taken(Taken { state, .. }))
                    if !matches!(state, TakenState::DryRun) =>
                {
                    Ok(translations)
                }
                _ => Err(ConsoleError::saying(
                    ErrorKind::Invalid,
                    "file-cannot-be-taken",
                    &[],
                )),
            }
        })
        .await
}
