//! A workbook `export` wrote, imported after the branch moved on: the cells both the
//! workbook and the branch changed since the export, differently, said — with the row's
//! key, the column, both values, and who changed it on the branch and when — and, when
//! the planner asks, the branch's values kept and the rest of the workbook imported.

use std::path::Path;

use masterctl_schemas::diagnostic::{Code, Diagnostic, Location, Severity};
use masterctl_schemas::{Table, TableSchema, Value};

use crate::MasterRepo;
use crate::StoreError;
use crate::join::resolutions::{self, Resolution, Resolutions, key_text};
use crate::merge::Conflict;
use crate::names::Branch;

/// At most this many cells are looked up in the branch's history (each is a blame).
const NAMED: usize = 20;

/// Each conflicting cell as a diagnostic: an error, or — the branch's value kept
/// (`kept`) — a warning saying the workbook's value was not imported.
pub(super) fn conflicts_said(
    repo: &MasterRepo,
    region: &Branch,
    schema: &TableSchema,
    file: &Path,
    conflicts: &[Conflict],
    kept: bool,
) -> Vec<Diagnostic> {
    let shown = |v: &Option<Value>| {
        v.as_ref().map_or_else(
            || "(no row)".to_string(),
            |v| format!("`{}`", v.canonical()),
        )
    };
    (conflicts.iter().enumerate())
        .map(|(at, conflict)| {
            let key: Vec<String> = conflict.key.iter().map(Value::canonical).collect();
            let field = &schema.fields[conflict.field].name;
            let who = (at < NAMED)
                .then(|| who_changed(repo, region, &schema.name, &key, field))
                .flatten();
            let by = (who.as_ref())
                .map(|(author, time)| format!(" by {author} at {time}"))
                .unwrap_or_default();
            let location = Location {
                file: Some(file.to_path_buf()),
                table: Some(schema.name.clone()),
                field: Some(field.clone()),
                key: Some(key.join("|")),
                ..Location::default()
            };
            let changed = format!(
                "changed in this workbook to {} and on {} since its export{by} (from {} to {})",
                shown(&conflict.theirs),
                region.branch(),
                shown(&conflict.base),
                shown(&conflict.ours)
            );
            let said = |d: Diagnostic| {
                let d = (d.arg("theirs", shown(&conflict.theirs)))
                    .arg("base", shown(&conflict.base))
                    .arg("ours", shown(&conflict.ours))
                    .arg("branch", region.branch().to_string());
                match &who {
                    Some((author, time)) => (d.arg("named", "yes"))
                        .arg("who", author.clone())
                        .arg("when", time.clone()),
                    None => d.arg("named", "no"),
                }
            };
            if kept {
                let mut d = Diagnostic::new(
                    Code::ExportConflict,
                    location,
                    format!("{changed}: the branch's {} is kept", shown(&conflict.ours)),
                );
                d.severity = Severity::Warning;
                said(d).arg("case", "kept")
            } else {
                let d = Diagnostic::new(Code::ExportConflict, location, changed).hint(
                    "keep the branch's values and import the rest, or export again and redo this cell on the new workbook",
                );
                said(d).arg("hint", "keep-theirs")
            }
        })
        .collect()
}

/// Who last changed the cell on the branch, and when (nothing when the history does not
/// say).
fn who_changed(
    repo: &MasterRepo,
    region: &Branch,
    table: &str,
    key: &[String],
    field: &str,
) -> Option<(String, String)> {
    let blamed = crate::review::blame::blame(repo, region, table, key, Some(field)).ok()?;
    let cell = blamed.cells.into_iter().next()?;
    Some((cell.commit.author.to_string(), cell.commit.time.to_string()))
}

/// Settle every conflict with the branch's side: the cell keeps the branch's value, a
/// row the branch deleted stays deleted, a row it kept stays.
pub(super) fn keep_branch_values(
    schema: &TableSchema,
    table: &mut Table,
    conflicts: Vec<Conflict>,
) -> Result<(), StoreError> {
    let choices: Resolutions = (conflicts.iter())
        .map(|c| {
            let column = schema.fields[c.field].name.clone();
            (
                (schema.name.clone(), key_text(&c.key), column),
                Resolution::Ours,
            )
        })
        .collect();
    resolutions::apply(schema, table, conflicts, &choices)
        .map(drop)
        .map_err(|message| StoreError::BrokenSnapshot {
            branch: schema.name.clone(),
            message,
        })
}
