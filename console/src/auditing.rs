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

impl AuditPage<'_> {
    /// What was done to what (`imported into masters/jp`), in the visitor's words; an
    /// action this console does not know (a newer one's) as it was recorded.
    fn what(&self, entry: &Entry) -> String {
        let target = entry.branch.as_deref().unwrap_or(&entry.region);
        let id = match entry.action.as_str() {
            "imported into" => "audit-imported-into",
            "edited" => "audit-edited",
            "took back a commit of" => "audit-took-back",
            "took translations into" => "audit-took-translations",
            "merged into" => "audit-merged-into",
            "rebased" => "audit-rebased",
            "proposed merging" => "audit-proposed",
            "withdrew the proposal of" => "audit-withdrew",
            "tagged" => "audit-tagged",
            "published a release of" => "audit-published",
            "rolled back" => "audit-rolled-back",
            _ => return format!("{} {target}", entry.action),
        };
        self.who.lang.say(id, &[("target", target)])
    }

    /// From where (`the console on build-01`), in the visitor's words.
    fn whence(&self, entry: &Entry) -> String {
        let faces = [
            ("the console on ", "audit-from-console"),
            ("the command line on ", "audit-from-command-line"),
        ];
        faces
            .iter()
            .find_map(|(face, id)| {
                let machine = entry.from.strip_prefix(face)?;
                Some(self.who.lang.say(id, &[("machine", machine)]))
            })
            .unwrap_or_else(|| entry.from.clone())
    }
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
