//! The audit log, as the repository keeps it (`store::audit`): who imported, edited,
//! took back, rebased, merged, proposed, published and rolled back what, when (in the
//! project's zone) and from where — newest first, every clone's that pulls joined.

use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::State;
use masterctl_store::audit::{self, Entry};

use crate::Console;
use crate::failed::Answer;
use crate::shown::render;
use crate::visitor::Visitor;

/// Entries a page shows.
const SHOWN: usize = 500;

#[derive(Template)]
#[template(path = "audit.html")]
struct AuditPage<'a> {
    who: &'a Visitor,
    entries: &'a [Entry],
    /// More entries than the page shows.
    more: bool,
}

/// `GET /audit`: the newest entries of the audit log.
pub async fn page(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
) -> Answer {
    console
        .blocking(move |console| {
            let repo = console.open()?;
            let structure = repo.structure()?;
            let mut entries = audit::read(&repo, SHOWN + 1)?;
            let more = entries.len() > SHOWN;
            entries.truncate(SHOWN);
            let zone = &structure.project.config.timezone;
            for entry in &mut entries {
                entry.time = crate::shown::local(&entry.time, zone);
            }
            render(&AuditPage {
                who: &who,
                entries: &entries,
                more,
            })
        })
        .await
}
