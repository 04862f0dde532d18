//! What every part of the console shows the same way: a page rendered, an error as a
//! page with its status, and the 401 page (with the sign-in form where users sign in).

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::access::Policy;
use crate::failed::{Answer, ConsoleError};
use crate::i18n::Lang;

#[derive(Template)]
#[template(path = "login.html")]
pub struct LoginPage<'a> {
    pub lang: Lang,
    /// The id of what the page says.
    pub message: &'a str,
    pub form: bool,
}

/// 401: who asks is not known (the sign-in page where users sign in), in `lang`.
pub fn unauthorized(policy: &Policy, lang: Lang) -> Response {
    let message = match policy {
        Policy::Users(_) => "sign-in-with-token",
        _ => "sign-in-through-studio",
    };
    let page = LoginPage {
        lang,
        message,
        form: matches!(policy, Policy::Users(_)),
    };
    (
        StatusCode::UNAUTHORIZED,
        Html(page.render().unwrap_or_default()),
    )
        .into_response()
}

/// A page, rendered (a template that fails is a 500 naming why).
pub fn render(page: &impl Template) -> Answer {
    page.render()
        .map(|html| Html(html).into_response())
        .map_err(|e| ConsoleError::internal(e.to_string()))
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

/// A time as the studio reads it: in the project's zone (`timezone` in masterctl.toml),
/// with its offset — `2026-12-05 16:10:00+09:00` — whatever offset it was recorded in
/// (a commit keeps its author's, a store UTC). A text that is no time is shown as it is.
pub fn local(text: &str, zone: &masterctl_schemas::zone::Zone) -> String {
    match masterctl_schemas::value::parse_datetime(text.trim()) {
        Some(instant) => {
            let shown = zone.show(instant);
            // Whole seconds: a time on a page needs no milliseconds.
            let shown = match (shown.find('.'), shown.rfind(['+', '-', 'Z'])) {
                (Some(dot), Some(offset)) if dot < offset => {
                    format!("{}{}", &shown[..dot], &shown[offset..])
                }
                _ => shown,
            };
            shown.replacen('T', " ", 1)
        }
        None => text.to_string(),
    }
}

/// A commit's count line (`item: 2 added, 1 changed, 0 removed`, as the commit's body
/// records it) in `lang`: each count in the language's words; a line of another shape
/// is shown as it is.
pub fn counts(line: &str, lang: Lang) -> String {
    let said = line.split_once(": ").and_then(|(table, counts)| {
        let parts: Option<Vec<String>> = (counts.split(", "))
            .map(|part| {
                let (count, what) = part.split_once(' ')?;
                if let Some(commit) = part.strip_prefix("taking back ") {
                    return Some(lang.say("count-taking-back", &[("commit", commit)]));
                }
                count.parse::<u64>().ok()?;
                let id = match what {
                    "added" => "count-added",
                    "changed" => "count-changed",
                    "removed" => "count-removed",
                    "updated" => "count-updated",
                    "kept stale" => "count-kept-stale",
                    "applied" => "count-applied",
                    "kept (owned)" => "count-kept-owned",
                    "resolved" => "count-resolved",
                    _ => return None,
                };
                Some(lang.say(id, &[("count", count)]))
            })
            .collect();
        Some(format!(
            "{table}: {}",
            parts?.join(&lang.t("list-separator"))
        ))
    });
    said.unwrap_or_else(|| line.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commits_counts_are_said_in_the_visitors_words() {
        let line = "item: 1 applied, 0 kept (owned), 2 resolved";
        assert_eq!(counts(line, Lang::En), line);
        assert_eq!(
            counts(line, Lang::Ja),
            "item: 反映 1、保持（所有） 0、解決 2"
        );
        let taken_back = "item (en): 2 applied, taking back 15b688f5fc79";
        assert_eq!(counts(taken_back, Lang::En), taken_back);
        assert_eq!(
            counts(taken_back, Lang::Ja),
            "item (en): 反映 2、15b688f5fc79 の取り消し"
        );
        // A line of another shape, as it is.
        assert_eq!(counts("item: 2 renamed", Lang::Ja), "item: 2 renamed");
    }
}
