//! Choosing the console's language: `/language?to=ja` keeps the choice in a cookie
//! (`i18n::COOKIE`, a year) and goes back to the page the switch was on — only a page
//! of this console (the `Referer`'s path on this host), else the regions.

use axum::extract::Query;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use crate::failed::ConsoleError;
use crate::i18n::{COOKIE, Lang};

#[derive(Deserialize)]
pub struct LanguageQuery {
    to: String,
}

/// `GET /language?to=ja|en`.
pub async fn choose(headers: HeaderMap, Query(query): Query<LanguageQuery>) -> Response {
    let Some(lang) = Lang::of(&query.to).filter(|l| l.tag() == query.to) else {
        return ConsoleError::refusing("console-speaks", &[]).into_response();
    };
    let mut response = Redirect::to(&back(&headers)).into_response();
    let cookie = format!(
        "{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax",
        lang.tag()
    );
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

/// The page the request came from, when it is one of this console's (same host): its
/// path and query; else `/`.
fn back(headers: &HeaderMap) -> String {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let referer = headers.get(header::REFERER).and_then(|r| r.to_str().ok());
    let (Some(host), Some(referer)) = (host, referer) else {
        return "/".to_string();
    };
    let rest = referer
        .strip_prefix("http://")
        .or_else(|| referer.strip_prefix("https://"))
        .and_then(|r| r.strip_prefix(host));
    match rest {
        Some(path)
            if path.starts_with('/')
                && !path.starts_with("//")
                && !path.contains(['\\', '\r', '\n']) =>
        {
            path.to_string()
        }
        _ => "/".to_string(),
    }
}
