//! What every response carries so that a browser keeps the console's pages to
//! themselves: a Content-Security-Policy (scripts only the console's own — its one
//! asset, or a review page's inline script by its hash; no plugin, no frame, forms only
//! to the console), no content-type sniffing, no referrer to other sites. And the one
//! asset, embedded in the binary.

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use base64::Engine;
use sha2::Digest;

/// The console's script.
const SCRIPT: &str = include_str!("../assets/console.js");

/// The policy, with `scripts` (`'sha256-…'` sources) beside the console's own.
fn policy(scripts: &str) -> String {
    format!(
        "default-src 'none'; script-src 'self'{scripts}; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    )
}

/// `GET /assets/console.js`.
pub async fn script() -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/javascript; charset=utf-8"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=3600"),
            ),
        ],
        SCRIPT,
    )
        .into_response()
}

/// A review page (the store's `diff::page`, whose script is inline), allowed to run
/// that script and nothing else: its policy names the script by its SHA-256.
pub fn review_page(html: String) -> Response {
    let hashes: String = html
        .split("<script>")
        .skip(1)
        .filter_map(|rest| rest.split_once("</script>").map(|(body, _)| body))
        .map(|body| {
            let digest = sha2::Sha256::digest(body.as_bytes());
            format!(
                " 'sha256-{}'",
                base64::engine::general_purpose::STANDARD.encode(digest)
            )
        })
        .collect();
    let mut response = Html(html).into_response();
    if let Ok(value) = HeaderValue::from_str(&policy(&hashes)) {
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, value);
    }
    response
}

/// The middleware: the headers every response carries (a page that set its own policy
/// keeps it).
pub async fn headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY)
        && let Ok(value) = HeaderValue::from_str(&policy(""))
    {
        headers.insert(header::CONTENT_SECURITY_POLICY, value);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(
        HeaderName::from_static("cross-origin-opener-policy"),
        HeaderValue::from_static("same-origin"),
    );
    if !response.headers().contains_key(header::CACHE_CONTROL) {
        // Pages show the repository as it is now — and an error page what was refused
        // to whom: never from a cache.
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}
