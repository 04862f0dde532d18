//! What every part of the console shows the same way: an error as a page with its
//! status, and the 401 page (with the sign-in form where users sign in).

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

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
