//! Why a request gets an error page instead of what it asked for: [`ConsoleError`], a
//! status and what to tell the planner. Every handler returns `Result<Response,
//! ConsoleError>`; an error of the store, a join or delivery becomes one by its kind
//! ([`status_of`], the one table of the console's statuses), and the page is made once,
//! here.

use askama::Template;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use masterctl_app::{ErrorKind, Kinded};
use masterctl_delivery::DeliveryError;
use masterctl_store::StoreError;
use masterctl_store::join::JoinError;

use crate::i18n::Lang;

/// A request refused or failed: the status, and the message the page shows.
#[derive(Debug, Clone)]
pub struct ConsoleError {
    status: StatusCode,
    message: String,
    /// The message as words of the console's words files, for a page in another
    /// language (none: said as `message` in every language).
    said: Option<Said>,
}

/// Words of the console's words files (`id`) and their values.
#[derive(Debug, Clone)]
struct Said {
    id: &'static str,
    args: Vec<(&'static str, String)>,
}

/// What a handler answers.
pub type Answer = Result<Response, ConsoleError>;

impl ConsoleError {
    /// An error of `kind`, its status from the table.
    pub fn of(kind: ErrorKind, message: impl Into<String>) -> ConsoleError {
        ConsoleError {
            status: status_of(kind),
            message: message.into(),
            said: None,
        }
    }

    /// An error of `kind` in the console's words: `id` with `args` (`{ $name }`), in
    /// English here and in the visitor's language on the page.
    pub fn saying(
        kind: ErrorKind,
        id: &'static str,
        args: &[(&'static str, &str)],
    ) -> ConsoleError {
        let message = Lang::En.say(id, args);
        ConsoleError::of(kind, message).said_as(id, args)
    }

    /// This error, said in another language as `id` with `args` (its English message
    /// stays as it is).
    pub(crate) fn said_as(
        mut self,
        id: &'static str,
        args: &[(&'static str, &str)],
    ) -> ConsoleError {
        let args = args.iter().map(|(n, v)| (*n, v.to_string())).collect();
        self.said = Some(Said { id, args });
        self
    }

    /// What the page says, in `lang`.
    fn message_in(&self, lang: Lang) -> String {
        let said = self
            .said
            .as_ref()
            .filter(|_| lang != Lang::En)
            .and_then(|said| {
                let args: Vec<(&str, &str)> = (said.args.iter())
                    .map(|(name, value)| (*name, value.as_str()))
                    .collect();
                lang.say_exactly(said.id, &args)
            });
        said.unwrap_or_else(|| self.message.clone())
    }

    /// A parameter or a form's field whose value is none of those the page takes
    /// (`known`): 400.
    pub fn not_one_of(name: &'static str, value: &str, known: &[&str]) -> ConsoleError {
        let known = (known.iter().map(|k| format!("`{k}`")))
            .collect::<Vec<_>>()
            .join(", ");
        let value: String = value.chars().take(40).collect();
        ConsoleError::refusing(
            "not-one-of",
            &[("name", name), ("value", &value), ("known", &known)],
        )
    }

    /// A request the console cannot take as it is, in the console's words (`id`): 400.
    pub fn refusing(id: &'static str, args: &[(&'static str, &str)]) -> ConsoleError {
        ConsoleError::saying(ErrorKind::Usage, id, args)
    }

    /// A bug of the console's: 500.
    pub fn internal(message: impl Into<String>) -> ConsoleError {
        ConsoleError::of(ErrorKind::Internal, message)
    }

    /// A request HTTP itself refuses — too large, not arrived whole — with the status
    /// that says so.
    pub fn http(status: StatusCode, message: impl Into<String>) -> ConsoleError {
        ConsoleError {
            status,
            message: message.into(),
            said: None,
        }
    }

    /// An error of the layer below, by its kind, its message followed by `more`.
    pub fn with(error: &impl Kinded, more: &str) -> ConsoleError {
        ConsoleError::of(error.kind(), format!("{error}{more}"))
    }

    /// The status the page is sent with.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl std::fmt::Display for ConsoleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<StoreError> for ConsoleError {
    fn from(error: StoreError) -> ConsoleError {
        let plain = ConsoleError::with(&error, "");
        // What a planner meets, said in other languages from its values.
        match &error {
            StoreError::NoTable { table, at, .. } => {
                plain.said_as("store-no-table", &[("table", table), ("at", at)])
            }
            StoreError::NoField { table, field } => {
                plain.said_as("store-no-field", &[("table", table), ("field", field)])
            }
            StoreError::NoRow { table, key, at } => plain.said_as(
                "store-no-row",
                &[("table", table), ("key", &key.join(", ")), ("at", at)],
            ),
            StoreError::NothingToEdit { branch } => {
                plain.said_as("store-nothing-to-edit", &[("branch", branch)])
            }
            StoreError::NothingToPropose(branch) => {
                plain.said_as("store-nothing-to-propose", &[("branch", branch)])
            }
            StoreError::NothingToExport { branch } => {
                plain.said_as("store-nothing-to-export", &[("branch", branch)])
            }
            StoreError::WorkBranchExists(branch) => {
                plain.said_as("store-work-branch-exists", &[("branch", branch)])
            }
            StoreError::TagExists(tag) => plain.said_as("store-tag-exists", &[("tag", tag)]),
            StoreError::BadVersion(version) => {
                plain.said_as("store-bad-version", &[("version", version)])
            }
            StoreError::NotInHistory { revision, branch } => plain.said_as(
                "store-not-in-history",
                &[("revision", revision), ("branch", branch)],
            ),
            StoreError::RebaseInProgress { branch, kind, .. } => {
                plain.said_as("store-in-progress", &[("branch", branch), ("kind", kind)])
            }
            _ => plain,
        }
    }
}

impl From<masterctl_store::git::Error> for ConsoleError {
    fn from(error: masterctl_store::git::Error) -> ConsoleError {
        StoreError::from(error).into()
    }
}

impl From<masterctl_store::remote::RemoteError> for ConsoleError {
    fn from(error: masterctl_store::remote::RemoteError) -> ConsoleError {
        ConsoleError::with(&error, "")
    }
}

impl From<masterctl_app::join::StepError> for ConsoleError {
    fn from(error: masterctl_app::join::StepError) -> ConsoleError {
        ConsoleError::with(&error, "")
    }
}

impl From<masterctl_store::import::ImportError> for ConsoleError {
    fn from(error: masterctl_store::import::ImportError) -> ConsoleError {
        ConsoleError::with(&error, "")
    }
}

impl From<masterctl_store::revert::RevertError> for ConsoleError {
    fn from(error: masterctl_store::revert::RevertError) -> ConsoleError {
        ConsoleError::with(&error, "")
    }
}

impl From<masterctl_store::init::InitError> for ConsoleError {
    fn from(error: masterctl_store::init::InitError) -> ConsoleError {
        ConsoleError::with(&error, "")
    }
}

impl From<JoinError> for ConsoleError {
    fn from(error: JoinError) -> ConsoleError {
        ConsoleError::with(&error, "")
    }
}

impl From<DeliveryError> for ConsoleError {
    fn from(error: DeliveryError) -> ConsoleError {
        ConsoleError::with(&error, "")
    }
}

impl IntoResponse for ConsoleError {
    fn into_response(self) -> Response {
        // The page in English; [`in_language`] says it again in the visitor's.
        let mut response = error_page(self.status, &self.message_in(Lang::En), Lang::En);
        response.extensions_mut().insert(Failed(self));
        response
    }
}

/// A response that is an error page, with what it said: kept so that [`in_language`]
/// can say it in the visitor's language.
#[derive(Debug, Clone)]
struct Failed(ConsoleError);

/// Every error page in the language of the request that got it (its cookie, else its
/// browser's): the page's title and its way back are the console's words.
pub async fn in_language(request: Request, next: Next) -> Response {
    let lang = crate::i18n::language(request.headers());
    let response = next.run(request).await;
    if lang == Lang::En {
        return response;
    }
    match response.extensions().get::<Failed>() {
        Some(Failed(error)) => {
            let mut page = error_page(error.status, &error.message_in(lang), lang);
            // What else the response carried (a cookie, the security headers) stays.
            let (parts, _) = response.into_parts();
            let status = page.status();
            *page.headers_mut() = parts.headers;
            page.headers_mut()
                .remove(axum::http::header::CONTENT_LENGTH);
            *page.status_mut() = status;
            page
        }
        None => response,
    }
}

/// The one table of the console's statuses: an error's kind decides it, as it decides
/// the command line's exit code (`cli/src/failure.rs`; a test holds the two together).
pub fn status_of(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Invalid => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorKind::Usage => StatusCode::BAD_REQUEST,
        ErrorKind::Conflict => StatusCode::CONFLICT,
        ErrorKind::Forbidden => StatusCode::FORBIDDEN,
        ErrorKind::Environment => StatusCode::SERVICE_UNAVAILABLE,
        ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    lang: Lang,
    title: String,
    message: &'a str,
}

/// The words of a status's title (`Not Found`), by its code.
fn title_of(status: StatusCode, lang: Lang) -> String {
    let id = match status.as_u16() {
        400 => "status-400",
        401 => "status-401",
        403 => "status-403",
        404 => "status-404",
        409 => "status-409",
        413 => "status-413",
        422 => "status-422",
        503 => "status-503",
        _ => "status-other",
    };
    lang.say(id, &[])
}

/// An error as a page, with its status, in `lang`.
fn error_page(status: StatusCode, message: &str, lang: Lang) -> Response {
    let page = ErrorPage {
        lang,
        title: title_of(status, lang),
        message,
    };
    (status, Html(page.render().unwrap_or_default())).into_response()
}
