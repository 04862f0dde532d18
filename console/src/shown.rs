//! What every part of the console shows the same way: a page rendered, an error as a
//! page with its status (a store's error by what it means), and the 401 page (with the
//! sign-in form where users sign in).

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use masterctl_store::{ErrorKind, StoreError};

use crate::access::Policy;

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    title: &'a str,
    message: &'a str,
}

#[derive(Template)]
#[template(path = "login.html")]
pub struct LoginPage<'a> {
    pub message: &'a str,
    pub form: bool,
}

/// An error as a page, with its status.
pub fn error_page(status: StatusCode, message: &str) -> Response {
    let page = ErrorPage {
        title: status.canonical_reason().unwrap_or("error"),
        message,
    };
    (status, Html(page.render().unwrap_or_default())).into_response()
}

/// 401: who asks is not known (the sign-in page where users sign in).
pub fn unauthorized(policy: &Policy) -> Response {
    let message = match policy {
        Policy::Users(_) => "sign in with your token",
        _ => "this console knows who you are only through the studio's sign-in",
    };
    let page = LoginPage {
        message,
        form: matches!(policy, Policy::Users(_)),
    };
    (
        StatusCode::UNAUTHORIZED,
        Html(page.render().unwrap_or_default()),
    )
        .into_response()
}

/// A store error as the page a planner sees, its status from its kind.
pub fn store_error(error: StoreError) -> Response {
    error_page(status_of(error.kind()), &error.to_string())
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

/// A page, rendered (a template that fails is a 500 naming why).
pub fn render(page: &impl Template) -> Response {
    match page.render() {
        Ok(html) => Html(html).into_response(),
        Err(e) => error_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

/// The file a diagnostic names, by its own name only (never a path of the server).
pub fn file_name(location: &masterctl_schemas::Location) -> String {
    location
        .file
        .as_ref()
        .and_then(|f| f.file_name())
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default()
}
